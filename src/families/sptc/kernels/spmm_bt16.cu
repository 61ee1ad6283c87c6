// Instantiation unit of the SpTC SpMM kernel for BLOCK_TILE = 16 (fp16 and bf16; BN 64 / 128;
// aligned and element-wise B gathers).
#include "families/sptc/kernels/spmm_kernel.cuh"

namespace spx::kernels::sptc::detail {

template cudaError_t launch_bt<__half, 16>(const KernelParams&, int64_t, const LaunchShape&,
                                          cudaStream_t);
template cudaError_t load_bt<__half, 16>();
template cudaError_t launch_bt<__nv_bfloat16, 16>(const KernelParams&, int64_t, const LaunchShape&,
                                                   cudaStream_t);
template cudaError_t load_bt<__nv_bfloat16, 16>();

}  // namespace spx::kernels::sptc::detail
