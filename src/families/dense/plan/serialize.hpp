// The dense route's part of a serialized plan (plain C++): the dense copy of A and the densify
// map (element, user value slot) that spxPlanUpdateValues re-densifies through.
#pragma once

#include "runtime/serial.hpp"
#include "spx/spx_types.h"

namespace spx::plan {

struct DenseRecord {
  spxDataType_t type = SPX_R_32F;
  bool tf32 = false;
  int64_t rows = 0, cols = 0, entries = 0;
  serial::Array pos, slot, dense;

  template <class F>
  void visit(F&& f) {
    f("dense type", type), f("dense tf32", tf32), f("dense rows", rows), f("dense cols", cols);
    f("dense entries", entries), f("dense pos", pos), f("dense slot", slot);
    f("dense values", dense);
  }
  void validate(const char* what) const;
};

}  // namespace spx::plan
