#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "families/dense/kernels/densify.hpp"

namespace spx::kernels::dense {
namespace {

constexpr int kThreads = 256;

template <class T>
__global__ void scatter_kernel(int64_t count, const int64_t* pos, const int64_t* slot,
                               const T* src, T* dst) {
  for (int64_t e = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; e < count;
       e += static_cast<int64_t>(gridDim.x) * blockDim.x)
    atomicAdd(dst + pos[e], src[slot[e]]);
}

unsigned grid_for(int64_t count) {
  const int64_t blocks = (count + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 65535 * 8 ? blocks : 65535 * 8);
}

template <class T>
void launch(const DensifyArgs& a, cudaStream_t stream) {
  scatter_kernel<T><<<grid_for(a.count), kThreads, 0, stream>>>(
      a.count, a.pos, a.slot, static_cast<const T*>(a.src), static_cast<T*>(a.dst));
}

}  // namespace

cudaError_t densify_load() {
  cudaFuncAttributes attr;
  cudaError_t err = cudaFuncGetAttributes(&attr, scatter_kernel<float>);
  if (err == cudaSuccess) err = cudaFuncGetAttributes(&attr, scatter_kernel<__half>);
  if (err == cudaSuccess) err = cudaFuncGetAttributes(&attr, scatter_kernel<__nv_bfloat16>);
  return err;
}

cudaError_t densify(const DensifyArgs& a, cudaStream_t stream) {
  if (a.dst_bytes == 0) return cudaSuccess;
  cudaError_t err = cudaMemsetAsync(a.dst, 0, a.dst_bytes, stream);
  if (err != cudaSuccess || a.count == 0) return err;
  switch (a.type) {
    case SPX_R_32F: launch<float>(a, stream); break;
    case SPX_R_16F: launch<__half>(a, stream); break;
    case SPX_R_16BF: launch<__nv_bfloat16>(a, stream); break;
    default: return cudaErrorInvalidValue;
  }
  return cudaGetLastError();
}

}  // namespace spx::kernels::dense
