#include "device/elements.cuh"
#include "families/fallback/kernels/fallback.hpp"
#include "families/fallback/kernels/launch.cuh"

namespace spx::kernels::fallback {
namespace {

// One thread per element of C. Consecutive threads walk C along its storage order so that
// the stores (and reads of C for beta) are coalesced.
__global__ void spmm_csr_kernel(SpmmCsrArgs a) {
  const int64_t total = a.m * a.n;
  const bool c_row_major = a.C.order == SPX_ORDER_ROW;
  for (int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; t < total;
       t += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t r = c_row_major ? t / a.n : t % a.m;
    const int64_t c = c_row_major ? t % a.n : t / a.m;
    const int32_t begin = a.row_ptr[r], end = a.row_ptr[r + 1];
    const int64_t out = linear(a.C, r, c);
    if (a.integer) {
      const int32_t* vals = static_cast<const int32_t*>(a.values);
      int32_t acc = 0;
      for (int32_t p = begin; p < end; ++p)
        acc = wrap_add(acc, wrap_mul(vals[p], load_int(a.B.ptr, a.B.type, linear(a.B, a.col_ind[p], c))));
      if (a.C.type == SPX_R_32I)
        store_result_int(static_cast<int32_t*>(a.C.ptr), out, acc, a.scalars);
      else
        store_spmm_float(a.C.ptr, a.C.type, out, r, static_cast<float>(acc), a.scalars);
    } else {
      const float* vals = static_cast<const float*>(a.values);
      float acc = 0.0f;
      for (int32_t p = begin; p < end; ++p)
        acc = fmaf(vals[p], load_float(a.B.ptr, a.B.type, linear(a.B, a.col_ind[p], c)), acc);
      store_spmm_float(a.C.ptr, a.C.type, out, r, acc, a.scalars);
    }
  }
}

}  // namespace

cudaError_t spmm_csr_load() {
  cudaFuncAttributes attr;
  return cudaFuncGetAttributes(&attr, spmm_csr_kernel);
}

cudaError_t spmm_csr(const SpmmCsrArgs& args, cudaStream_t stream) {
  const int64_t total = args.m * args.n;
  if (total == 0) return cudaSuccess;
  spmm_csr_kernel<<<grid_for(total), kThreads, 0, stream>>>(args);
  return cudaGetLastError();
}

}  // namespace spx::kernels::fallback
