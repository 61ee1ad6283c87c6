#include "device/elements.cuh"
#include "families/fallback/kernels/fallback.hpp"
#include "families/fallback/kernels/launch.cuh"

namespace spx::kernels::fallback {
namespace {

// One thread per stored entry of C: a dot product of a row of A with a column of B.
__global__ void sddmm_kernel(SddmmArgs a) {
  for (int64_t e = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; e < a.nnz;
       e += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t r = a.entry_row[e], c = a.col_ind[e], out = a.slot[e];
    if (a.integer) {
      int32_t acc = 0;
      for (int64_t p = 0; p < a.k; ++p)
        acc = wrap_add(acc, wrap_mul(load_int(a.A.ptr, a.A.type, linear(a.A, r, p)),
                                     load_int(a.B.ptr, a.B.type, linear(a.B, p, c))));
      if (a.c_type == SPX_R_32I)
        store_result_int(static_cast<int32_t*>(a.c_values), out, acc, a.scalars);
      else
        store_result_float(a.c_values, a.c_type, out, static_cast<float>(acc), a.scalars);
    } else {
      float acc = 0.0f;
      for (int64_t p = 0; p < a.k; ++p)
        acc = fmaf(load_float(a.A.ptr, a.A.type, linear(a.A, r, p)),
                   load_float(a.B.ptr, a.B.type, linear(a.B, p, c)), acc);
      store_result_float(a.c_values, a.c_type, out, acc, a.scalars);
    }
  }
}

}  // namespace

cudaError_t sddmm_load() {
  cudaFuncAttributes attr;
  return cudaFuncGetAttributes(&attr, sddmm_kernel);
}

cudaError_t sddmm(const SddmmArgs& args, cudaStream_t stream) {
  if (args.nnz == 0) return cudaSuccess;
  sddmm_kernel<<<grid_for(args.nnz), kThreads, 0, stream>>>(args);
  return cudaGetLastError();
}

}  // namespace spx::kernels::fallback
