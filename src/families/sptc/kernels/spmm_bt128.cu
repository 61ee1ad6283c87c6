// Instantiation unit of the SpTC SpMM kernel for BLOCK_TILE = 128 (fp16 and bf16; BN 64 / 128;
// aligned and element-wise B gathers; the resident-A kernel at BN 128).
#include "families/sptc/kernels/spmm_kernel.cuh"

namespace spx::kernels::sptc::detail {

template cudaError_t launch_bt<__half, 128>(const KernelParams&, int64_t, const LaunchShape&,
                                          cudaStream_t);
template cudaError_t load_bt<__half, 128>();
template cudaError_t launch_bt<__nv_bfloat16, 128>(const KernelParams&, int64_t, const LaunchShape&,
                                                   cudaStream_t);
template cudaError_t load_bt<__nv_bfloat16, 128>();

}  // namespace spx::kernels::sptc::detail
