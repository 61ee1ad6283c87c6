// The tensor-copy NM SpMM kernel (sm_90; spmm_bulk.cuh): explicit instantiations for every tile,
// the tensor maps of A (the plan's a_t) and B, and the launch.
#include <cudaTypedefs.h>

#include "device/launch.cuh"
#include "families/nm/kernels/spmm_bulk.cuh"
#include "families/nm/kernels/tiles.hpp"

namespace spx::kernels::nm {
namespace {

/// A row-major fp32 matrix (rows x cols, ld floats) as 2-D tensor map with box box_cols x
/// box_rows through the driver's encoder; elements outside the matrix read as zeros.
bool encode_2d(void* encoder, CUtensorMap* map, const void* ptr, int64_t rows, int64_t cols,
               int64_t ld, int box_cols, int box_rows) {
  const auto encode = reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(encoder);
  if (encode == nullptr) return false;
  const cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
  const cuuint64_t strides[1] = {static_cast<cuuint64_t>(ld) * 4};
  const cuuint32_t box[2] = {static_cast<cuuint32_t>(box_cols), static_cast<cuuint32_t>(box_rows)};
  const cuuint32_t element_strides[2] = {1, 1};
  return encode(map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, const_cast<void*>(ptr), dims, strides,
                box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_SUCCESS;
}

/// Tiles with a streamed-B kernel: the Wide tile (the sm_90 tile for large products). Its two
/// blocks per SM leave registers and shared memory for the copy's block; Huge's two blocks of
/// 256 threads take the whole register file.
template <class T>
constexpr bool kStreams = T::kTN == 16 && T::kThreads == 128;

/// Tiles with a stream-K kernel (spmm_bulk.cuh, kStreamK): the Wide tile, the tile of the shapes
/// whose last wave is worth sharing out.
template <class T>
constexpr bool kStreamK = kStreams<T>;

// The plan decides from config.hpp's has_streamed_b_kernel / has_stream_k_kernel and
// blocks_per_sm: the same facts as these kernels'.
template <class T>
constexpr TileShape shape_of() {
  return TileShape{TileId::Huge, "", T::kBM, T::kBN, T::kTM, T::kTN, T::kThreads, 1.0, 1.0};
}
template <class T>
constexpr bool kAgrees = kStreams<T> == has_streamed_b_kernel(shape_of<T>()) &&
                         kStreamK<T> == has_stream_k_kernel(shape_of<T>()) &&
                         T::kMinBlocks == blocks_per_sm(shape_of<T>());
static_assert(kAgrees<SmallTile> && kAgrees<MediumTile> && kAgrees<LargeTile> &&
                  kAgrees<HugeTile> && kAgrees<WideTile>,
              "the plan's view of the tensor-copy kernels must match them");

template <class T>
cudaError_t launch(const SpmmArgs& a, void* encoder, int copy_grid, cudaStream_t stream) {
  if (a.box_rows <= 0 || a.box_rows > 256 || a.k_s % a.box_rows != 0)
    return cudaErrorInvalidValue;
  CUtensorMap map_a, map_b;
  if (!encode_2d(encoder, &map_a, a.a_t, a.kc_pad, a.rows_pad, a.rows_pad, T::kBM, a.w_s) ||
      !encode_2d(encoder, &map_b, a.B.ptr, a.k, a.n, a.B.ld, T::kBN, a.box_rows))
    return cudaErrorInvalidValue;
  const dim3 grid(static_cast<unsigned>((a.m + T::kBM - 1) / T::kBM),
                  static_cast<unsigned>((a.n + T::kBN - 1) / T::kBN),
                  static_cast<unsigned>(a.split));
  const size_t smem = static_cast<size_t>(detail::bulk_smem_bytes<T>(a));
  // Stream-K: a 1-D grid over the schedule; its tile counters start at zero (the workspace is
  // the caller's and holds anything).
  const StreamKSchedule& sk = a.stream_k.schedule;
  if (sk.on()) {
    if (!kStreamK<T> || a.split != 1 || a.streamed.copy_blocks > 0 || !a.producer_last ||
        sk.tiles != static_cast<int64_t>(grid.x) * grid.y || sk.stages != a.stages ||
        a.stream_k.m_tiles != static_cast<int64_t>(grid.x) || a.stream_k.partials == nullptr ||
        a.stream_k.counters == nullptr)
      return cudaErrorInvalidValue;
    if constexpr (kStreamK<T>) {
      const size_t counters = static_cast<size_t>(sk.region_tiles()) * (T::kThreads / 32);
      cudaError_t err = cudaMemsetAsync(a.stream_k.counters, 0, counters * 4, stream);
      if (err != cudaSuccess) return err;
      detail::spmm_bulk_kernel<T, false, true>
          <<<static_cast<unsigned>(sk.grid()), T::kThreads, smem, stream>>>(a, map_a, map_b);
      return cudaGetLastError();
    }
  }
  if (a.streamed.copy_blocks > 0) {
    if constexpr (kStreams<T>) {
      // The copy first, then the product as its programmatic dependent (stream_b.cu: why that
      // cannot deadlock). Split-K grids are not streamed (the copy's order assumes one z).
      if (a.split != 1) return cudaErrorInvalidValue;
      StreamedB copy = a.streamed;
      cudaError_t err = stream_b_launch(copy, a.k, a.n, T::kBN, grid.x, copy_grid, stream);
      if (err != cudaSuccess) return err;
      return launch_programmatic(detail::spmm_bulk_kernel<T, true>, grid, dim3(T::kThreads),
                                 smem, stream, a, map_a, map_b);
    }
    return cudaErrorInvalidValue;
  }
  detail::spmm_bulk_kernel<T, false><<<grid, T::kThreads, smem, stream>>>(a, map_a, map_b);
  return cudaGetLastError();
}

template <class Kernel>
cudaError_t load_kernel(Kernel kernel, size_t smem_optin) {
  cudaFuncAttributes attr;
  cudaError_t err = cudaFuncGetAttributes(&attr, kernel);
  if (err != cudaSuccess) return err;
  err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             static_cast<int>(smem_optin));
  if (err != cudaSuccess) return err;
  return cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                              cudaSharedmemCarveoutMaxShared);
}

template <class T>
cudaError_t load(size_t smem_optin) {
  cudaError_t err = load_kernel(detail::spmm_bulk_kernel<T, false>, smem_optin);
  if constexpr (kStreams<T>)
    if (err == cudaSuccess) err = load_kernel(detail::spmm_bulk_kernel<T, true>, smem_optin);
  if constexpr (kStreamK<T>)
    if (err == cudaSuccess)
      err = load_kernel(detail::spmm_bulk_kernel<T, false, true>, smem_optin);
  return err;
}

/// Blocks of the tile's stream-K kernel one SM holds with that much shared memory (0: the tile
/// has none).
template <class T>
int stream_k_occupancy(int64_t smem_bytes) {
  if constexpr (kStreamK<T>) {
    int blocks = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &blocks, detail::spmm_bulk_kernel<T, false, true>, T::kThreads,
            static_cast<size_t>(smem_bytes)) != cudaSuccess)
      return 0;
    return blocks;
  }
  return 0;
}

}  // namespace

void* tensor_map_encoder() {
  void* p = nullptr;
  cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
  if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault,
                                       &q) != cudaSuccess ||
      q != cudaDriverEntryPointSuccess)
    return nullptr;
  return p;
}

cudaError_t spmm_bulk(TileId tile, const SpmmArgs& a, void* encoder, int copy_grid,
                      cudaStream_t stream) {
  switch (tile) {
    case TileId::Small: return launch<SmallTile>(a, encoder, copy_grid, stream);
    case TileId::Medium: return launch<MediumTile>(a, encoder, copy_grid, stream);
    case TileId::Large: return launch<LargeTile>(a, encoder, copy_grid, stream);
    case TileId::Huge: return launch<HugeTile>(a, encoder, copy_grid, stream);
    case TileId::Wide: return launch<WideTile>(a, encoder, copy_grid, stream);
  }
  return cudaErrorInvalidValue;
}

int spmm_bulk_stream_k_occupancy(TileId tile, int64_t smem_bytes) {
  switch (tile) {
    case TileId::Small: return stream_k_occupancy<SmallTile>(smem_bytes);
    case TileId::Medium: return stream_k_occupancy<MediumTile>(smem_bytes);
    case TileId::Large: return stream_k_occupancy<LargeTile>(smem_bytes);
    case TileId::Huge: return stream_k_occupancy<HugeTile>(smem_bytes);
    case TileId::Wide: return stream_k_occupancy<WideTile>(smem_bytes);
  }
  return 0;
}

cudaError_t spmm_bulk_load(size_t smem_optin) {
  cudaError_t err = load<SmallTile>(smem_optin);
  if (err == cudaSuccess) err = load<MediumTile>(smem_optin);
  if (err == cudaSuccess) err = load<LargeTile>(smem_optin);
  if (err == cudaSuccess) err = load<HugeTile>(smem_optin);
  if (err == cudaSuccess) err = load<WideTile>(smem_optin);
  if (err == cudaSuccess) err = stream_b_load();
  return err;
}

}  // namespace spx::kernels::nm
