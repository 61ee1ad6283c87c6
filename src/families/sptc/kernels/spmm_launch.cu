// spmm(): the entry the plan calls. Routes (type, BLOCK_TILE, BN, alignment) to the instantiated
// kernel; a column-major B is first transposed into the workspace. Also the value packing of
// spxPlanUpdateValues and the shared-memory opt-in at load time.

#include "families/sptc/kernels/launch.cuh"
#include "families/sptc/kernels/sptc.hpp"

namespace spx::kernels::sptc {
namespace {

/// Row stride (elements) of the row-major copy of a column-major B: n rounded up to 8, so every
/// row starts 16-byte aligned.
int64_t bt_ld(int64_t n) { return (n + 7) / 8 * 8; }

constexpr int kTransposeTile = 32;
constexpr int kTransposeRows = 8;  ///< threads per tile column (32 x 8 threads, 4 rows each)

/// out (k x ldo, row-major) = B (k x n, column-major, ld) for 16-bit elements.
__global__ void __launch_bounds__(kTransposeTile* kTransposeRows)
    transpose_kernel(const uint16_t* __restrict__ in, int64_t ld, int64_t k, int64_t n,
                     uint16_t* __restrict__ out, int64_t ldo) {
  __shared__ uint16_t tile[kTransposeTile][kTransposeTile + 1];
  const int64_t r0 = static_cast<int64_t>(blockIdx.x) * kTransposeTile;  // rows of B (k)
  const int64_t c0 = static_cast<int64_t>(blockIdx.y) * kTransposeTile;  // columns of B (n)
  // Read: consecutive threads walk B's column (contiguous in memory).
  for (int i = threadIdx.y; i < kTransposeTile; i += kTransposeRows) {
    const int64_t r = r0 + threadIdx.x, c = c0 + i;
    if (r < k && c < n) tile[i][threadIdx.x] = in[r + c * ld];
  }
  __syncthreads();
  // Write: consecutive threads walk the output row (contiguous).
  for (int i = threadIdx.y; i < kTransposeTile; i += kTransposeRows) {
    const int64_t r = r0 + i, c = c0 + threadIdx.x;
    if (r < k && c < n) out[r * ldo + c] = tile[threadIdx.x][i];
  }
}

__global__ void pack_kernel(PackArgs a) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < a.count;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int32_t s = a.slot[i];
    a.dst[i] = s >= 0 ? a.src[s] : uint16_t{0};
  }
}

template <class T>
cudaError_t route(const detail::KernelParams& p, int64_t panels, int block_tile,
                  const detail::LaunchShape& shape, cudaStream_t stream) {
  switch (block_tile) {
    case 16: return detail::launch_bt<T, 16>(p, panels, shape, stream);
    case 32: return detail::launch_bt<T, 32>(p, panels, shape, stream);
    case 64: return detail::launch_bt<T, 64>(p, panels, shape, stream);
    case 128: return detail::launch_bt<T, 128>(p, panels, shape, stream);
  }
  return cudaErrorInvalidValue;
}

/// The warpgroup kernel of (T, BLOCK_TILE); only called when wgmma_usable().
template <class T>
cudaError_t route_wgmma(const detail::KernelParams& p, int64_t panels, int block_tile, int bn,
                        bool interleave, cudaStream_t stream) {
#if defined(SPX_SPTC_SM90A)
  if (block_tile == 64) return detail::launch_wgmma<T, 64>(p, panels, bn, interleave, stream);
  if (block_tile == 128) return detail::launch_wgmma<T, 128>(p, panels, bn, interleave, stream);
#else
  (void)p, (void)panels, (void)block_tile, (void)bn, (void)interleave, (void)stream;
#endif
  return cudaErrorInvalidValue;
}

#if defined(SPX_SPTC_SM90A)
/// Compute capability of the current device (the warpgroup kernel runs on 9.0 only).
bool current_device_runs_wgmma() {
  int dev = 0, major = 0, minor = 0;
  if (cudaGetDevice(&dev) != cudaSuccess) return false;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) != cudaSuccess)
    return false;
  return wgmma_usable(major, minor);
}
#endif

template <class T>
cudaError_t load(int block_tile) {
  switch (block_tile) {
    case 16: return detail::load_bt<T, 16>();
    case 32: return detail::load_bt<T, 32>();
    case 64: return detail::load_bt<T, 64>();
    case 128: return detail::load_bt<T, 128>();
  }
  return cudaErrorInvalidValue;
}

}  // namespace

bool wgmma_usable(int cc_major, int cc_minor) {
#if defined(SPX_SPTC_SM90A)
  return cc_major == 9 && cc_minor == 0;
#else
  (void)cc_major, (void)cc_minor;
  return false;
#endif
}

bool b_aligned(const void* ptr, int64_t ld, spxOrder_t order) {
  return order == SPX_ORDER_COL || (reinterpret_cast<uintptr_t>(ptr) % 16 == 0 && ld % 8 == 0);
}

size_t workspace_bytes(int64_t k, int64_t n, spxOrder_t b_order) {
  if (b_order != SPX_ORDER_COL) return 0;
  return static_cast<size_t>(k) * static_cast<size_t>(bt_ld(n)) * 2;
}

cudaError_t spmm(const SpmmArgs& a, const SptcConfig& cfg, cudaStream_t stream) {
  if (a.m == 0 || a.n == 0 || a.panels == 0) return cudaSuccess;
  detail::KernelParams p;
  p.m = a.m;
  p.n = a.n;
  p.blocks = reinterpret_cast<const int4*>(a.blocks);
  p.gather = a.gather;
  p.row_map = a.row_map;
  p.metadata = a.metadata;
  p.values = static_cast<const uint16_t*>(a.values);
  p.C = a.C;
  p.scalars = a.scalars;
  p.tiles_per_block = cfg.tiles_per_block > 0 ? cfg.tiles_per_block : 1;
  bool aligned = false;
  if (a.B.order == SPX_ORDER_ROW) {
    p.b = static_cast<const uint16_t*>(a.B.ptr);
    p.ldb = a.B.ld;
    aligned = reinterpret_cast<uintptr_t>(a.B.ptr) % 16 == 0 && a.B.ld % 8 == 0;
  } else if (a.k > 0) {
    if (a.workspace == nullptr) return cudaErrorInvalidValue;
    p.b = static_cast<const uint16_t*>(a.workspace);
    p.ldb = bt_ld(a.n);
    aligned = reinterpret_cast<uintptr_t>(a.workspace) % 16 == 0;
    const dim3 grid(static_cast<unsigned>((a.k + kTransposeTile - 1) / kTransposeTile),
                    static_cast<unsigned>((a.n + kTransposeTile - 1) / kTransposeTile));
    transpose_kernel<<<grid, dim3(kTransposeTile, kTransposeRows), 0, stream>>>(
        static_cast<const uint16_t*>(a.B.ptr), a.B.ld, a.k, a.n, static_cast<uint16_t*>(a.workspace),
        p.ldb);
    const cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) return err;
  }
  p.b_off32 = a.k * p.ldb * 2 <= int64_t{0xFFFFFFFF};
  // The warpgroup kernel (the plan chose it only where wgmma_usable()); an unaligned B at run
  // time takes the mma.sync streaming kernel of the same BN and tiles per block.
  if (cfg.wgmma && aligned && (cfg.bn == 64 || cfg.bn == 128))
    return a.bf16 ? route_wgmma<__nv_bfloat16>(p, a.panels, cfg.block_tile, cfg.bn,
                                                          cfg.wg_interleave, stream)
                  : route_wgmma<__half>(p, a.panels, cfg.block_tile, cfg.bn, cfg.wg_interleave,
                                        stream);
  detail::LaunchShape shape;
  shape.bn = cfg.bn;
  shape.aligned = aligned;
  // The resident kernel needs the cp.async gather and room for the longest panel.
  shape.resident = cfg.resident && aligned && cfg.bn == 128 && cfg.block_tile >= 64;
  if (shape.resident) {
    shape.smem = smem_bytes(cfg.block_tile, 128, true, a.max_pairs);
    if (shape.smem > kMaxSmemPerBlock) shape.resident = false;
  }
  return a.bf16 ? route<__nv_bfloat16>(p, a.panels, cfg.block_tile, shape, stream)
                : route<__half>(p, a.panels, cfg.block_tile, shape, stream);
}

cudaError_t spmm_load(int block_tile, bool bf16) {
  cudaError_t err = bf16 ? load<__nv_bfloat16>(block_tile) : load<__half>(block_tile);
#if defined(SPX_SPTC_SM90A)
  if (err == cudaSuccess && wgmma_fits(block_tile) && current_device_runs_wgmma()) {
    if (block_tile == 64)
      err = bf16 ? detail::load_wgmma<__nv_bfloat16, 64>() : detail::load_wgmma<__half, 64>();
    else
      err = bf16 ? detail::load_wgmma<__nv_bfloat16, 128>() : detail::load_wgmma<__half, 128>();
  }
#endif
  cudaFuncAttributes attr;
  if (err == cudaSuccess) err = cudaFuncGetAttributes(&attr, transpose_kernel);
  return err;
}

cudaError_t pack_values(const PackArgs& a, cudaStream_t stream) {
  if (a.count == 0) return cudaSuccess;
  constexpr int kPackThreads = 256;
  const int64_t blocks = (a.count + kPackThreads - 1) / kPackThreads;
  pack_kernel<<<static_cast<unsigned>(blocks < 65535 * 8 ? blocks : 65535 * 8), kPackThreads, 0,
                stream>>>(a);
  return cudaGetLastError();
}

cudaError_t pack_values_load() {
  cudaFuncAttributes attr;
  return cudaFuncGetAttributes(&attr, pack_kernel);
}

}  // namespace spx::kernels::sptc
