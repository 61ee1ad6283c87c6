// A read-only view of a caller's fp32 dense matrix on the host, in either storage order.
// The host API checks sizes, order and leading dimension before building one.
#pragma once

#include <cstdint>

#include "spx/spx_types.h"

namespace spx::plan {

struct DenseView {
  int64_t rows = 0, cols = 0, ld = 0;
  const float* data = nullptr;
  spxOrder_t order = SPX_ORDER_ROW;

  float at(int64_t r, int64_t c) const {
    return data[order == SPX_ORDER_ROW ? r * ld + c : r + c * ld];
  }
};

}  // namespace spx::plan
