// The tensor-copy NM SpMM kernel (sm_90; spmm_bulk.cuh): explicit instantiations for every tile,
// the tensor maps of A (the plan's a_t) and B, and the launch.
#include <cudaTypedefs.h>

#include "device/launch.cuh"
#include "families/nm/kernels/spmm_bulk.cuh"
#include "families/nm/kernels/tiles.hpp"

namespace spx::kernels::nm {
namespace {

/// The driver's cuTensorMapEncodeTiled through the runtime (libspx does not link libcuda), or
/// nullptr when the driver has none.
PFN_cuTensorMapEncodeTiled_v12000 tensor_map_encoder() {
  static const PFN_cuTensorMapEncodeTiled_v12000 fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q = cudaDriverEntryPointSymbolNotFound;
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault,
                                         &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess)
      return static_cast<PFN_cuTensorMapEncodeTiled_v12000>(nullptr);
    return reinterpret_cast<PFN_cuTensorMapEncodeTiled_v12000>(p);
  }();
  return fn;
}

/// A row-major fp32 matrix (rows x cols, ld floats) as 2-D tensor map with box box_cols x
/// box_rows; elements outside the matrix read as zeros.
bool encode_2d(CUtensorMap* map, const void* ptr, int64_t rows, int64_t cols, int64_t ld,
               int box_cols, int box_rows) {
  const PFN_cuTensorMapEncodeTiled_v12000 encode = tensor_map_encoder();
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

/// B rows per tensor copy: the largest divisor of k_s that is at most 256 (a box dimension).
int box_rows_for(int k_s) {
  for (int r = k_s < 256 ? k_s : 256; r > 1; --r)
    if (k_s % r == 0) return r;
  return 1;
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

template <class T>
cudaError_t launch(const SpmmArgs& in, cudaStream_t stream) {
  SpmmArgs a = in;
  a.box_rows = box_rows_for(a.k_s);
  CUtensorMap map_a, map_b;
  if (!encode_2d(&map_a, a.a_t, a.kc_pad, a.rows_pad, a.rows_pad, T::kBM, a.w_s) ||
      !encode_2d(&map_b, a.B.ptr, a.k, a.n, a.B.ld, T::kBN, a.box_rows))
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
        a.stream_k.partials == nullptr || a.stream_k.counters == nullptr)
      return cudaErrorInvalidValue;
    if constexpr (kStreamK<T>) {
      a.stream_k.m_tiles = grid.x;
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
      // Tiles running at once: the tile's blocks per SM on every SM (one copy block each).
      const int64_t resident = static_cast<int64_t>(T::kMinBlocks) * a.streamed.copy_blocks;
      cudaError_t err =
          stream_b_launch(a.streamed, a.k, a.n, T::kBN, grid.x, resident, stream);
      if (err != cudaSuccess) return err;
      return launch_programmatic(detail::spmm_bulk_kernel<T, true>, grid, dim3(T::kThreads),
                                 smem, stream, a, map_a, map_b);
    }
    return cudaErrorInvalidValue;
  }
  detail::spmm_bulk_kernel<T, false><<<grid, T::kThreads, smem, stream>>>(a, map_a, map_b);
  return cudaGetLastError();
}

template <class T>
int64_t smem_of(const SpmmArgs& a) {
  return detail::bulk_smem_bytes<T>(a);
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

/// Blocks of the tile's stream-K kernel one SM holds with this launch's shared memory (0: the
/// tile has none).
template <class T>
int stream_k_occupancy(const SpmmArgs& a) {
  if constexpr (kStreamK<T>) {
    int blocks = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &blocks, detail::spmm_bulk_kernel<T, false, true>, T::kThreads,
            static_cast<size_t>(detail::bulk_smem_bytes<T>(a))) != cudaSuccess)
      return 0;
    return blocks;
  }
  return 0;
}

}  // namespace

bool spmm_bulk_ok(TileId tile, const SpmmArgs& a, size_t smem_optin) {
  if (a.packing || a.B.order != SPX_ORDER_ROW || a.B.ld % 4 != 0 ||
      reinterpret_cast<uintptr_t>(a.B.ptr) % 16 != 0 || a.w_s > 256 || a.m > INT32_MAX ||
      a.k > INT32_MAX || tensor_map_encoder() == nullptr)
    return false;
  int64_t smem = 0;
  switch (tile) {
    case TileId::Small: smem = smem_of<SmallTile>(a); break;
    case TileId::Medium: smem = smem_of<MediumTile>(a); break;
    case TileId::Large: smem = smem_of<LargeTile>(a); break;
    case TileId::Huge: smem = smem_of<HugeTile>(a); break;
    case TileId::Wide: smem = smem_of<WideTile>(a); break;
  }
  return smem <= static_cast<int64_t>(smem_optin);
}

bool spmm_bulk_streams(TileId tile) {
  switch (tile) {
    case TileId::Small: return kStreams<SmallTile>;
    case TileId::Medium: return kStreams<MediumTile>;
    case TileId::Large: return kStreams<LargeTile>;
    case TileId::Huge: return kStreams<HugeTile>;
    case TileId::Wide: return kStreams<WideTile>;
  }
  return false;
}

cudaError_t spmm_bulk(TileId tile, const SpmmArgs& a, cudaStream_t stream) {
  switch (tile) {
    case TileId::Small: return launch<SmallTile>(a, stream);
    case TileId::Medium: return launch<MediumTile>(a, stream);
    case TileId::Large: return launch<LargeTile>(a, stream);
    case TileId::Huge: return launch<HugeTile>(a, stream);
    case TileId::Wide: return launch<WideTile>(a, stream);
  }
  return cudaErrorInvalidValue;
}

int spmm_bulk_stream_k_occupancy(TileId tile, const SpmmArgs& a) {
  switch (tile) {
    case TileId::Small: return stream_k_occupancy<SmallTile>(a);
    case TileId::Medium: return stream_k_occupancy<MediumTile>(a);
    case TileId::Large: return stream_k_occupancy<LargeTile>(a);
    case TileId::Huge: return stream_k_occupancy<HugeTile>(a);
    case TileId::Wide: return stream_k_occupancy<WideTile>(a);
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
