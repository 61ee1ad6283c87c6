// Explicit instantiations of the NM SpMM kernel for the Large (Table I) and Huge tiles.
#include "families/nm/kernels/spmm_kernel.cuh"
#include "families/nm/kernels/tiles.hpp"

namespace spx::kernels::nm::detail {

template __global__ void spmm_kernel<LargeTile>(const SpmmArgs);
template __global__ void spmm_kernel<HugeTile>(const SpmmArgs);
template cudaError_t launch_tile<LargeTile>(const SpmmArgs&, int64_t, cudaStream_t);
template cudaError_t launch_tile<HugeTile>(const SpmmArgs&, int64_t, cudaStream_t);
template cudaError_t load_tile<LargeTile>(size_t);
template cudaError_t load_tile<HugeTile>(size_t);

}  // namespace spx::kernels::nm::detail
