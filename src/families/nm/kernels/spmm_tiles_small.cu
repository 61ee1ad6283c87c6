// Explicit instantiations of the NM SpMM kernel for the Small and Medium tiles (Table I) and the
// Wide tile (cuBLAS-like 128 x 128, 8 x 16 per thread).
#include "families/nm/kernels/spmm_kernel.cuh"
#include "families/nm/kernels/tiles.hpp"

namespace spx::kernels::nm::detail {

template __global__ void spmm_kernel<SmallTile>(const SpmmArgs);
template __global__ void spmm_kernel<MediumTile>(const SpmmArgs);
template __global__ void spmm_kernel<WideTile>(const SpmmArgs);
template cudaError_t launch_tile<SmallTile>(const SpmmArgs&, int64_t, cudaStream_t);
template cudaError_t launch_tile<MediumTile>(const SpmmArgs&, int64_t, cudaStream_t);
template cudaError_t launch_tile<WideTile>(const SpmmArgs&, int64_t, cudaStream_t);
template cudaError_t load_tile<SmallTile>(size_t);
template cudaError_t load_tile<MediumTile>(size_t);
template cudaError_t load_tile<WideTile>(size_t);

}  // namespace spx::kernels::nm::detail
