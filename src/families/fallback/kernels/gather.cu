#include "device/elements.cuh"
#include "families/fallback/kernels/fallback.hpp"
#include "families/fallback/kernels/launch.cuh"

namespace spx::kernels::fallback {
namespace {

__global__ void gather_float_kernel(GatherArgs a) {
  float* dst = static_cast<float*>(a.dst);
  for (int64_t e = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; e < a.count;
       e += static_cast<int64_t>(gridDim.x) * blockDim.x)
    dst[e] = load_float(a.src, a.src_type, a.slot[e]);
}

__global__ void gather_int_kernel(GatherArgs a) {
  int32_t* dst = static_cast<int32_t*>(a.dst);
  for (int64_t e = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; e < a.count;
       e += static_cast<int64_t>(gridDim.x) * blockDim.x)
    dst[e] = load_int(a.src, a.src_type, a.slot[e]);
}

}  // namespace

cudaError_t gather_widen_load() {
  cudaFuncAttributes attr;
  cudaError_t err = cudaFuncGetAttributes(&attr, gather_float_kernel);
  return err != cudaSuccess ? err : cudaFuncGetAttributes(&attr, gather_int_kernel);
}

cudaError_t gather_widen(const GatherArgs& args, cudaStream_t stream) {
  if (args.count == 0) return cudaSuccess;
  const bool is_float = args.src_type == SPX_R_32F || args.src_type == SPX_R_16F ||
                        args.src_type == SPX_R_16BF;
  if (is_float)
    gather_float_kernel<<<grid_for(args.count), kThreads, 0, stream>>>(args);
  else
    gather_int_kernel<<<grid_for(args.count), kThreads, 0, stream>>>(args);
  return cudaGetLastError();
}

}  // namespace spx::kernels::fallback
