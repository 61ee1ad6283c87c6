// The generic fallback kernels: correct for every (format, type, order) the API accepts, and the
// path for inputs the fast families cannot take. The plan turns any format into CSR on the host
// (formats/to_csr) and keeps the values widened to fp32 or int32; these kernels do the rest.
// Simple by design: one thread per output element (SpMM) or per stored entry (SDDMM).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "device/args.hpp"

namespace spx::kernels::fallback {

/// C = alpha * A * B + beta * C with A in CSR (values widened: fp32 or int32).
struct SpmmCsrArgs {
  int64_t m = 0, n = 0;
  const int32_t* row_ptr = nullptr;
  const int32_t* col_ind = nullptr;
  const void* values = nullptr;  ///< float[nnz] when !integer, int32[nnz] when integer
  bool integer = false;          ///< integer inputs: int32 accumulation
  DenseView B{}, C{};
  Scalars scalars{};
};
cudaError_t spmm_csr(const SpmmCsrArgs& args, cudaStream_t stream);

/// Loads the kernels of this file now. With CUDA's lazy module loading, the first launch of a
/// kernel loads it and may wait for the device: analyze calls these so that execute never does.
cudaError_t spmm_csr_load();
cudaError_t sddmm_load();
cudaError_t gather_widen_load();

/// C.values[slot[e]] = alpha * dot(A[row[e], :], B[:, col[e]]) + beta * C.values[slot[e]].
struct SddmmArgs {
  int64_t nnz = 0, k = 0;
  const int32_t* entry_row = nullptr;
  const int32_t* col_ind = nullptr;
  const int64_t* slot = nullptr;
  bool integer = false;
  DenseView A{}, B{};
  void* c_values = nullptr;
  spxDataType_t c_type = SPX_R_32F;
  Scalars scalars{};
};
cudaError_t sddmm(const SddmmArgs& args, cudaStream_t stream);

/// dst[e] = widen(src[slot[e]]): fp32 for float types, int32 for integer types (4-bit unpacked).
struct GatherArgs {
  int64_t count = 0;
  const int64_t* slot = nullptr;
  const void* src = nullptr;
  spxDataType_t src_type = SPX_R_32F;
  void* dst = nullptr;
};
cudaError_t gather_widen(const GatherArgs& args, cudaStream_t stream);

}  // namespace spx::kernels::fallback
