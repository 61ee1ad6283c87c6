// spmm(): the entry the plan calls. Routes the decided launch (kernel, type, BLOCK_TILE, BN, B
// gather) to the instantiated kernel, after transposing a column-major B into the workspace when
// the launch says so; refuses what it cannot run. Also the value packing of spxPlanUpdateValues
// and the shared-memory opt-in at load time.

#include "families/sptc/kernels/launch.cuh"
#include "families/sptc/kernels/sptc.hpp"

namespace spx::kernels::sptc {
namespace {

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
    tile[i][threadIdx.x] = r < k && c < n ? in[r + c * ld] : uint16_t{0};
  }
  __syncthreads();
  // Write: consecutive threads walk the output row (contiguous), its padding up to ldo included
  // (zeros): the kernels load whole 16-byte pieces of a row.
  for (int i = threadIdx.y; i < kTransposeTile; i += kTransposeRows) {
    const int64_t r = r0 + i, c = c0 + threadIdx.x;
    if (r < k && c < ldo) out[r * ldo + c] = tile[threadIdx.x][i];
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

/// The warpgroup kernel of (T, BLOCK_TILE); refused in a build without it.
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

cudaError_t spmm(const SpmmArgs& a, const SptcLaunch& launch, cudaStream_t stream) {
  if (a.m == 0 || a.n == 0 || a.panels == 0) return cudaSuccess;
  const int block_tile = block_tile_of(launch.kernel), bn = bn_of(launch.kernel);
  const int tiles_per_block = tiles_per_block_of(launch.kernel);
  const BRead& b = launch.b;
  if (tiles_per_block < 1 || (bn != 64 && bn != 128)) return cudaErrorInvalidValue;
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
  p.tiles_per_block = tiles_per_block;
  p.ldb = b.ldb;
  p.b_off32 = b.off32;
  if (b.source == BSource::kUser) {
    p.b = static_cast<const uint16_t*>(a.B.ptr);
  } else if (b.source == BSource::kWorkspace) {
    if (a.workspace == nullptr) return cudaErrorInvalidValue;
    p.b = static_cast<const uint16_t*>(a.workspace);
    const dim3 grid(static_cast<unsigned>((a.k + kTransposeTile - 1) / kTransposeTile),
                    static_cast<unsigned>((a.n + kTransposeTile - 1) / kTransposeTile));
    transpose_kernel<<<grid, dim3(kTransposeTile, kTransposeRows), 0, stream>>>(
        static_cast<const uint16_t*>(a.B.ptr), a.B.ld, a.k, a.n, static_cast<uint16_t*>(a.workspace),
        p.ldb);
    const cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess) return err;
  }
  if (const auto* wg = std::get_if<WgmmaConfig>(&launch.kernel)) {
    if (!b.aligned) return cudaErrorInvalidValue;
    return a.bf16 ? route_wgmma<__nv_bfloat16>(p, a.panels, block_tile, bn, wg->interleaved_b,
                                                stream)
                  : route_wgmma<__half>(p, a.panels, block_tile, bn, wg->interleaved_b, stream);
  }
  detail::LaunchShape shape;
  shape.bn = bn;
  shape.aligned = b.aligned;
  shape.resident = std::get<MmaConfig>(launch.kernel).resident;
  if (shape.resident) {
    if (launch.resident_smem <= 0 || launch.resident_smem > kMaxSmemPerBlock)
      return cudaErrorInvalidValue;
    shape.smem = launch.resident_smem;
  }
  return a.bf16 ? route<__nv_bfloat16>(p, a.panels, block_tile, shape, stream)
                : route<__half>(p, a.panels, block_tile, shape, stream);
}

cudaError_t spmm_load(int block_tile, bool bf16, bool with_wgmma) {
  cudaError_t err = bf16 ? load<__nv_bfloat16>(block_tile) : load<__half>(block_tile);
  if (err == cudaSuccess && with_wgmma) {
#if defined(SPX_SPTC_SM90A)
    if (block_tile == 64)
      err = bf16 ? detail::load_wgmma<__nv_bfloat16, 64>() : detail::load_wgmma<__half, 64>();
    else if (block_tile == 128)
      err = bf16 ? detail::load_wgmma<__nv_bfloat16, 128>() : detail::load_wgmma<__half, 128>();
    else
      err = cudaErrorInvalidValue;
#else
    err = cudaErrorInvalidValue;
#endif
  }
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
