// The dense family's one kernel: scatters A's stored values into the plan's dense copy (row-major
// m x k of A's type), zeroed first. Duplicate entries add up (atomically, in A's type).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "spx/spx_types.h"

namespace spx::kernels::dense {

struct DensifyArgs {
  int64_t count = 0;              ///< stored entries
  const int64_t* pos = nullptr;   ///< element of the dense copy, row * k + col
  const int64_t* slot = nullptr;  ///< slot of the value in the user's values array
  const void* src = nullptr;      ///< the user's values (32F, 16F or 16BF)
  spxDataType_t type = SPX_R_32F;
  void* dst = nullptr;            ///< the dense copy
  size_t dst_bytes = 0;
};

/// Zeroes dst and scatters, queued on `stream`.
cudaError_t densify(const DensifyArgs& args, cudaStream_t stream);
/// Loads the kernels now (lazy module loading: analyze calls it so that execute never waits).
cudaError_t densify_load();

}  // namespace spx::kernels::dense
