// The per-tile launch and load functions, defined (and explicitly instantiated) in
// spmm_tiles_small.cu (Small, Medium, Wide) and spmm_tiles_large.cu (Large, Huge), so that the
// two compile units build in parallel.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "families/nm/kernels/launch.hpp"

namespace spx::kernels::nm::detail {

template <class T>
cudaError_t launch_tile(const SpmmArgs& a, int64_t smem_bytes, cudaStream_t stream);
template <class T>
cudaError_t load_tile(size_t smem_optin);
extern template cudaError_t launch_tile<SmallTile>(const SpmmArgs&, int64_t, cudaStream_t);
extern template cudaError_t launch_tile<MediumTile>(const SpmmArgs&, int64_t, cudaStream_t);
extern template cudaError_t launch_tile<LargeTile>(const SpmmArgs&, int64_t, cudaStream_t);
extern template cudaError_t launch_tile<HugeTile>(const SpmmArgs&, int64_t, cudaStream_t);
extern template cudaError_t launch_tile<WideTile>(const SpmmArgs&, int64_t, cudaStream_t);
extern template cudaError_t load_tile<SmallTile>(size_t);
extern template cudaError_t load_tile<MediumTile>(size_t);
extern template cudaError_t load_tile<LargeTile>(size_t);
extern template cudaError_t load_tile<HugeTile>(size_t);
extern template cudaError_t load_tile<WideTile>(size_t);

}  // namespace spx::kernels::nm::detail
