// RowTile: CL lanes per (row, CL * VN output columns), 32 / CL rows per warp. A row's lanes load
// CL of its slots at a time (coalesced), broadcast each (value, column) with shuffles, and every
// lane gathers VN consecutive elements of that B row with one 16 B (or 8 B) load. Eight slots are
// in flight per lane to hide the gather latency. For n > 16.
//   * CL (8, 16, 32) sets the column chunk: B's chunk (k x CL * VN) is what the SMs working on
//     one grid column share through L1, so the rule keeps it L1-sized (consecutive blocks share
//     blockIdx.y, so the SMs work on one chunk at a time).
//   * splits (1..8): warps of a block that cut one row's ELL width in parts, their partial sums
//     added through shared memory: enough warps when m * n is small.
// A column-major B is first transposed into the workspace (transpose_kernel below).
#include "families/ell/kernels/device.cuh"

namespace spx::kernels::ell {
namespace {

using detail::load_row;
using detail::to_float;

constexpr int kWarpsPerBlock = kBlockThreads / kWarp;
constexpr int kUnroll = 8;  ///< slots whose B loads are issued before their FMAs

template <class T, int VN>
__device__ __forceinline__ void slot_fma(float (&acc)[VN], float v, int c, const T* B, int64_t ld,
                                         int64_t n0, int ncols, bool vec) {
  const T* p = B + static_cast<int64_t>(c) * ld + n0;
  if (vec) {
    float b[VN];
    load_row<T, VN>(p, b);
#pragma unroll
    for (int j = 0; j < VN; ++j) acc[j] = fmaf(v, b[j], acc[j]);
  } else {
#pragma unroll
    for (int j = 0; j < VN; ++j)
      if (j < ncols) acc[j] = fmaf(v, to_float(__ldg(p + j)), acc[j]);
  }
}

/// Applies the slots [0, count) of one row segment (vals / idx) to acc. The warp holds 32 / CL
/// rows, CL lanes each; a row's CL lanes load CL slots at a time (coalesced) and broadcast them
/// with width-CL shuffles. `steps` is the warp-wide maximum of count (loops stay uniform).
/// kGuard: some row of the warp has fewer than `steps` slots, so slots are checked one by one
/// (the common uniform case, count == steps everywhere, runs without the checks).
template <class T, class I, int VN, bool kGuard>
__device__ __forceinline__ void apply_segment_impl(float (&acc)[VN], const T* vals, const I* idx, int count,
                                              int steps, int cl, int cl_lane, const T* B, int64_t ld,
                                              int64_t n0, int ncols, bool vec) {
  for (int base = 0; base < steps; base += cl) {
    const int j = base + cl_lane;
    float v = 0.0f;
    int c = -1;  // -1: no slot (past this row's count); its B row is not read
    if (j < count) {
      v = to_float(vals[j]);
      c = static_cast<int>(idx[j]);
    }
    const int cnt = steps - base < cl ? steps - base : cl;  // uniform over the warp
    int u0 = 0;
    for (; u0 + kUnroll <= cnt; u0 += kUnroll) {
      float vv[kUnroll];
      int cc[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) {
        vv[u] = __shfl_sync(0xffffffffu, v, u0 + u, cl);
        cc[u] = __shfl_sync(0xffffffffu, c, u0 + u, cl);
      }
      if (ncols > 0) {
        if (vec) {
          float b[kUnroll][VN];
#pragma unroll
          for (int u = 0; u < kUnroll; ++u) {
            if (kGuard) {
#pragma unroll
              for (int q = 0; q < VN; ++q) b[u][q] = 0.0f;
              if (cc[u] >= 0) load_row<T, VN>(B + static_cast<int64_t>(cc[u]) * ld + n0, b[u]);
            } else {
              load_row<T, VN>(B + static_cast<int64_t>(cc[u]) * ld + n0, b[u]);
            }
          }
#pragma unroll
          for (int u = 0; u < kUnroll; ++u)
#pragma unroll
            for (int q = 0; q < VN; ++q) acc[q] = fmaf(vv[u], b[u][q], acc[q]);
        } else {
#pragma unroll
          for (int u = 0; u < kUnroll; ++u)
            if (!kGuard || cc[u] >= 0) slot_fma<T, VN>(acc, vv[u], cc[u], B, ld, n0, ncols, false);
        }
      }
    }
    for (; u0 < cnt; ++u0) {
      const float vv = __shfl_sync(0xffffffffu, v, u0, cl);
      const int cc = __shfl_sync(0xffffffffu, c, u0, cl);
      if (ncols > 0 && (!kGuard || cc >= 0)) slot_fma<T, VN>(acc, vv, cc, B, ld, n0, ncols, vec);
    }
  }
}

template <class T, class I, int VN>
__device__ __forceinline__ void apply_segment(float (&acc)[VN], const T* vals, const I* idx, int count,
                                              int steps, int cl, int cl_lane, const T* B, int64_t ld,
                                              int64_t n0, int ncols, bool vec) {
  if (__all_sync(0xffffffffu, count == steps))
    apply_segment_impl<T, I, VN, false>(acc, vals, idx, count, steps, cl, cl_lane, B, ld, n0, ncols, vec);
  else
    apply_segment_impl<T, I, VN, true>(acc, vals, idx, count, steps, cl, cl_lane, B, ld, n0, ncols, vec);
}

/// Block: 8 warps = (8 / splits) warp rows x splits parts of the ELL width. Warp lanes: 32 / CL
/// rows x CL column lanes of VN columns each. The parts' partial sums meet in shared memory.
template <class T, class I, int VN>
__global__ void __launch_bounds__(kBlockThreads)
    row_tile_kernel(SpmmArgs a, const T* B, int64_t ldb, bool b_vec, int cl_log2, int splits_log2) {
  // Only launches with splits > 1 get this shared memory (splits == 1 keeps all of L1 for B).
  extern __shared__ float partial[];  // [kWarpsPerBlock][kWarp][VN]
  const int lane = threadIdx.x & (kWarp - 1), warp = threadIdx.x >> 5;
  const int cl = 1 << cl_log2, splits = 1 << splits_log2;
  const int cl_lane = lane & (cl - 1), part = warp & (splits - 1);
  const int rows_per_warp = kWarp >> cl_log2;
  const int64_t row = (static_cast<int64_t>(blockIdx.x) * (kWarpsPerBlock >> splits_log2) +
                       (warp >> splits_log2)) * rows_per_warp + (lane >> cl_log2);
  const int64_t n0 = (static_cast<int64_t>(blockIdx.y) * cl + cl_lane) * VN;
  const int64_t left = a.n - n0;
  const bool live = row < a.m;
  const int ncols = !live || left <= 0 ? 0 : (left < VN ? static_cast<int>(left) : VN);
  const bool vec = b_vec && ncols == VN;
  const T* values = static_cast<const T*>(a.values);
  const I* indices = static_cast<const I*>(a.indices);

  float acc[VN];
#pragma unroll
  for (int j = 0; j < VN; ++j) acc[j] = 0.0f;

  // This part's share of the row: ELL slots, then the HYB overflow, each cut in `splits` pieces.
  int len = 0, tail_begin = 0, tail_len = 0;
  if (live) {
    len = a.row_len[row];
    if (a.tail_ptr != nullptr) {
      tail_begin = a.tail_ptr[row];
      tail_len = a.tail_ptr[row + 1] - tail_begin;
    }
  }
  const int per = (len + splits - 1) >> splits_log2;
  const int begin = min(len, part * per), count = min(len, begin + per) - begin;
  const int steps = __reduce_max_sync(0xffffffffu, count);
  const int64_t start = live ? row * a.stride + begin : 0;
  apply_segment<T, I, VN>(acc, values + start, indices + start, count, steps, cl, cl_lane, B, ldb,
                          n0, ncols, vec);
  if (a.tail_ptr != nullptr) {
    const int tper = (tail_len + splits - 1) >> splits_log2;
    const int tb = min(tail_len, part * tper), tcount = min(tail_len, tb + tper) - tb;
    const int tsteps = __reduce_max_sync(0xffffffffu, tcount);
    const int64_t tstart = a.m * a.stride + tail_begin + tb;
    apply_segment<T, I, VN>(acc, values + tstart, indices + tstart, tcount, tsteps, cl, cl_lane, B,
                            ldb, n0, ncols, vec);
  }
  if (splits > 1) {
#pragma unroll
    for (int j = 0; j < VN; ++j) partial[(warp * kWarp + lane) * VN + j] = acc[j];
    __syncthreads();
    if (part != 0) return;
    for (int p = 1; p < splits; ++p)
#pragma unroll
      for (int j = 0; j < VN; ++j) acc[j] += partial[((warp + p) * kWarp + lane) * VN + j];
  }
  if (ncols == 0) return;
  const float alpha = alpha_float(a.scalars), beta = beta_float(a.scalars);
#pragma unroll
  for (int j = 0; j < VN; ++j)
    if (j < ncols) detail::store_out(a.C, a.scalars.epilogue, row, n0 + j, acc[j], alpha, beta);
}

/// Column-major B (k x n, ld) -> row-major B^T rows (k x ld_out) through a 32 x 32 tile.
template <class T>
__global__ void __launch_bounds__(kBlockThreads)
    transpose_kernel(const T* in, int64_t ld_in, int64_t k, int64_t n, T* out, int64_t ld_out) {
  __shared__ T tile[32][33];
  const int64_t r0 = static_cast<int64_t>(blockIdx.y) * 32, c0 = static_cast<int64_t>(blockIdx.x) * 32;
  const int tx = threadIdx.x & 31, ty = threadIdx.x >> 5;
  for (int j = ty; j < 32; j += kWarpsPerBlock) {  // read column c0 + j, rows r0 + tx
    const int64_t r = r0 + tx, c = c0 + j;
    tile[j][tx] = r < k && c < n ? in[r + c * ld_in] : T{};
  }
  __syncthreads();
  // Rows are written up to ld_out, the padding as zeros: the row kernels load whole vectors.
  for (int j = ty; j < 32; j += kWarpsPerBlock) {  // write row r0 + j, columns c0 + tx
    const int64_t r = r0 + j, c = c0 + tx;
    if (r < k && c < ld_out) out[r * ld_out + c] = tile[tx][j];
  }
}

template <class T, class I>
struct TileKernels {
  using Fn = void (*)(SpmmArgs, const T*, int64_t, bool, int, int);
  static Fn pick(int vn) {
    constexpr int kFull = 16 / static_cast<int>(sizeof(T)), kHalf = 8 / static_cast<int>(sizeof(T));
    return vn == kFull ? row_tile_kernel<T, I, kFull> : row_tile_kernel<T, I, kHalf>;
  }
  static cudaError_t load() {
    cudaFuncAttributes attr;
    cudaError_t err = cudaFuncGetAttributes(&attr, pick(16 / static_cast<int>(sizeof(T))));
    return err != cudaSuccess ? err : cudaFuncGetAttributes(&attr, pick(8 / static_cast<int>(sizeof(T))));
  }
  static void launch(const SpmmArgs& a, int vn, const void* b, int64_t ldb, bool b_vec, dim3 grid,
                     int cl_log2, int splits_log2, cudaStream_t stream) {
    const size_t smem = splits_log2 > 0 ? sizeof(float) * kBlockThreads * vn : 0;
    pick(vn)<<<grid, kBlockThreads, smem, stream>>>(a, static_cast<const T*>(b), ldb, b_vec, cl_log2,
                                                    splits_log2);
  }
};


}  // namespace

cudaError_t launch_row_tile(const SpmmArgs& a, const EllConfig& launch, const void* b_rows,
                            int64_t ldb, cudaStream_t stream) {
  const auto* c = std::get_if<RowTileConfig>(&launch.kernel);
  if (c == nullptr) return cudaErrorInvalidValue;
  const RowTileConfig& cfg = *c;
  const int elem = a.half ? 2 : 4;
  if (cfg.vn * elem != 16 && cfg.vn * elem != 8) return cudaErrorInvalidValue;
  const bool b_vec = launch.call.b_vec;  // vn x elem-byte loads of B's rows (plan/call.hpp)
  int cl_log2 = 0, splits_log2 = 0;
  while ((1 << cl_log2) < cfg.col_lanes) ++cl_log2;
  while ((1 << splits_log2) < cfg.splits) ++splits_log2;
  if ((1 << cl_log2) != cfg.col_lanes || cl_log2 < 3 || cl_log2 > 5 || (1 << splits_log2) != cfg.splits ||
      splits_log2 > 3)
    return cudaErrorInvalidValue;
  const int64_t cols_per_block = static_cast<int64_t>(cfg.col_lanes) * cfg.vn;
  const int64_t gy = (a.n + cols_per_block - 1) / cols_per_block;
  if (gy > 65535) return cudaErrorInvalidConfiguration;
  const int64_t rows_per_block = (kWarpsPerBlock / cfg.splits) * (kWarp / cfg.col_lanes);
  const dim3 grid(static_cast<unsigned>((a.m + rows_per_block - 1) / rows_per_block),
                  static_cast<unsigned>(gy));
  if (a.half) {
    if (a.index16) TileKernels<__half, uint16_t>::launch(a, cfg.vn, b_rows, ldb, b_vec, grid, cl_log2, splits_log2, stream);
    else TileKernels<__half, int32_t>::launch(a, cfg.vn, b_rows, ldb, b_vec, grid, cl_log2, splits_log2, stream);
  } else {
    if (a.index16) TileKernels<float, uint16_t>::launch(a, cfg.vn, b_rows, ldb, b_vec, grid, cl_log2, splits_log2, stream);
    else TileKernels<float, int32_t>::launch(a, cfg.vn, b_rows, ldb, b_vec, grid, cl_log2, splits_log2, stream);
  }
  return cudaGetLastError();
}

cudaError_t load_row_tile(bool half, bool index16) {
  if (half) return index16 ? TileKernels<__half, uint16_t>::load() : TileKernels<__half, int32_t>::load();
  return index16 ? TileKernels<float, uint16_t>::load() : TileKernels<float, int32_t>::load();
}

cudaError_t launch_transpose(const DenseView& B, int64_t k, int64_t n, bool half, void* out,
                             int64_t ld_out, cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>((n + 31) / 32), static_cast<unsigned>((k + 31) / 32));
  if (grid.y > 65535) return cudaErrorInvalidConfiguration;
  if (half)
    transpose_kernel<__half><<<grid, kBlockThreads, 0, stream>>>(
        static_cast<const __half*>(B.ptr), B.ld, k, n, static_cast<__half*>(out), ld_out);
  else
    transpose_kernel<float><<<grid, kBlockThreads, 0, stream>>>(
        static_cast<const float*>(B.ptr), B.ld, k, n, static_cast<float*>(out), ld_out);
  return cudaGetLastError();
}

cudaError_t load_transpose(bool half) {
  cudaFuncAttributes attr;
  return half ? cudaFuncGetAttributes(&attr, transpose_kernel<__half>)
              : cudaFuncGetAttributes(&attr, transpose_kernel<float>);
}

}  // namespace spx::kernels::ell
