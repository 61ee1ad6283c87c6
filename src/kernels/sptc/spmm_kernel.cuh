// The SpTC SpMM kernel: mma.sp m16n8k32 (fp16 / bf16, fp32 accumulation) over the reorder-aware
// storage of planning/sptc_storage.hpp. Included only by the spmm_bt*.cu instantiation units.
//
// Block = one panel (BT rows) x tiles_per_block n tiles of BN columns, streamed through one
// pipeline (a short panel's fill latency is paid once per block, not once per tile); 4 warps
// split BN, each covering all BT / 16 row slices. Per k step (a pair of k tiles = 64 MMA k
// positions of one n tile):
//   * B: the 64 rows the gather index names (-1 = zero row), BN columns from n0, into shared
//     memory in MMA order, padded 8 elements per row (16 B), by 16-byte cp.async (zero-filled
//     past n or for -1); or element by element when B's rows are not 16-byte aligned;
//   * A: 2 x BT / 16 tiles of 512 bytes in A-fragment order (one 16-byte LDS per lane);
//   * metadata: BT / 16 x 32 words, interleaved (one LDS.32 per lane serves both k tiles,
//     sparsity selector 0 then 1).
// Pipeline: kStages steps in flight; step j's cp.async group also carries the gather indices of
// step j + kStages - 1, so the B gather of a step never waits on its indices (the paper's deeper
// pipeline: indices n + 2 while loading n + 1 and computing n, for kStages = 3). When a tile's
// last pair is computed, its C tile is written through a shared-memory region of its own, one
// 16-row slice at a time, in 16-byte vectors along C's contiguous dimension.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "kernels/common/elements.cuh"
#include "kernels/sptc/config.hpp"
#include "kernels/sptc/launch.cuh"

namespace spx::kernels::sptc::detail {

__device__ __forceinline__ uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

/// 16-byte async copy global -> shared; src_bytes < 16 zero-fills the rest (0: all zeros, no read).
__device__ __forceinline__ void cp_async16(uint32_t dst, const void* src, int src_bytes) {
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
               "r"(src_bytes)
               : "memory");
}
__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}
template <int N>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(N) : "memory");
}

/// Four 8x8 16-bit matrices, transposed: lane l gives the address of row l (matrix l / 8); each
/// lane receives, per matrix, the elements (rows 2 (l % 4), 2 (l % 4) + 1; column l / 4) = the
/// mma B fragment of k rows 8 j .. 8 j + 7.
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&r)[4], uint32_t addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr)
               : "memory");
}

/// d += A (16 x 32, 2:4 compressed in a) * B (32 x 8) with metadata e from the lanes the
/// sparsity selector SEL names (0: lanes 4 g, 4 g + 1; 1: lanes 4 g + 2, 4 g + 3).
template <class T, int SEL>
__device__ __forceinline__ void mma_sp(float (&d)[4], const uint4& a, const uint32_t (&b)[4],
                                       uint32_t e);

#define SPX_SPTC_MMA(T, PTX_T, SEL)                                                              \
  template <>                                                                                    \
  __device__ __forceinline__ void mma_sp<T, SEL>(float(&d)[4], const uint4& a,                   \
                                                 const uint32_t(&b)[4], uint32_t e) {            \
    asm("mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32." PTX_T "." PTX_T            \
        ".f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9, %10, %11}, {%0, %1, %2, %3}, %12, " #SEL \
        ";\n"                                                                                    \
        : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])                                          \
        : "r"(a.x), "r"(a.y), "r"(a.z), "r"(a.w), "r"(b[0]), "r"(b[1]), "r"(b[2]), "r"(b[3]),     \
          "r"(e));                                                                               \
  }
SPX_SPTC_MMA(__half, "f16", 0)
SPX_SPTC_MMA(__half, "f16", 1)
SPX_SPTC_MMA(__nv_bfloat16, "bf16", 0)
SPX_SPTC_MMA(__nv_bfloat16, "bf16", 1)
#undef SPX_SPTC_MMA

/// alpha * v + beta * C[li] for `count` (<= 8) consecutive elements of C's contiguous dimension
/// starting at linear index li, one element at a time (tails, unaligned C).
__device__ __forceinline__ void store_scalars(const DenseView& C, int64_t li, const float* v,
                                              int count, float alpha, float beta) {
#pragma unroll
  for (int e = 0; e < 8; ++e) {  // static indices keep v in registers
    if (e >= count) break;
    float x = alpha * v[e];
    if (beta != 0.0f) x = fmaf(beta, load_float(C.ptr, C.type, li + e), x);
    store_float(C.ptr, C.type, li + e, x);
  }
}

/// The same for one 16-byte vector (4 fp32 or 8 fp16 / bf16 elements) at a 16-byte aligned li.
__device__ __forceinline__ void store_vector(const DenseView& C, int64_t li, const float* v,
                                             float alpha, float beta) {
  if (C.type == SPX_R_32F) {
    float4* dst = reinterpret_cast<float4*>(static_cast<float*>(C.ptr) + li);
    float4 x = make_float4(alpha * v[0], alpha * v[1], alpha * v[2], alpha * v[3]);
    if (beta != 0.0f) {
      const float4 old = *dst;
      x.x = fmaf(beta, old.x, x.x);
      x.y = fmaf(beta, old.y, x.y);
      x.z = fmaf(beta, old.z, x.z);
      x.w = fmaf(beta, old.w, x.w);
    }
    *dst = x;
    return;
  }
  uint4* dst = reinterpret_cast<uint4*>(static_cast<uint16_t*>(C.ptr) + li);
  float x[8];
#pragma unroll
  for (int e = 0; e < 8; ++e) x[e] = alpha * v[e];
  const bool half = C.type == SPX_R_16F;
  if (beta != 0.0f) {
    const uint4 old = *dst;
    const uint32_t w[4] = {old.x, old.y, old.z, old.w};
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      float2 f;
      if (half) f = __half22float2(*reinterpret_cast<const __half2*>(&w[i]));
      else f = __bfloat1622float2(*reinterpret_cast<const __nv_bfloat162*>(&w[i]));
      x[2 * i] = fmaf(beta, f.x, x[2 * i]);
      x[2 * i + 1] = fmaf(beta, f.y, x[2 * i + 1]);
    }
  }
  uint32_t w[4];
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    if (half) {
      const __half2 h2 = __floats2half2_rn(x[2 * i], x[2 * i + 1]);
      w[i] = *reinterpret_cast<const uint32_t*>(&h2);
    } else {
      const __nv_bfloat162 b2 = __floats2bfloat162_rn(x[2 * i], x[2 * i + 1]);
      w[i] = *reinterpret_cast<const uint32_t*>(&b2);
    }
  }
  *dst = make_uint4(w[0], w[1], w[2], w[3]);
}

/// Writes one 16-row slice of C at (row0, n0) from the staged floats (C row-major: slice
/// [16][kSliceRowStride]; column-major: [BN][16]): alpha * slice + beta * C (C never read when
/// beta == 0), clipped to m x n. Threads walk C's contiguous dimension in 16-byte vectors, so a
/// warp's stores cover whole sectors; unaligned C and the tails go element by element.
template <int BT, int BN>
__device__ __forceinline__ void write_slice(const KernelParams& p, const float* slice,
                                            int64_t row0, int64_t n0, float alpha, float beta) {
  using S = TileShape<BT, BN>;
  const DenseView& C = p.C;
  const bool c_row = C.order == SPX_ORDER_ROW;
  const int esize = C.type == SPX_R_32F ? 4 : 2;
  const int vec = 16 / esize;
  const int inner_extent = c_row ? BN : 16, outer_extent = c_row ? 16 : BN;
  const int stride = c_row ? S::kSliceRowStride : S::kSliceColStride;
  const int64_t rows = p.m - row0 < 16 ? p.m - row0 : 16;
  const int64_t cols = p.n - n0 < BN ? p.n - n0 : BN;
  const int64_t inner_n = c_row ? cols : rows, outer_n = c_row ? rows : cols;
  // n0 and row0 are multiples of 16 elements: a vector starts 16-byte aligned when C and its
  // leading dimension are.
  const bool vec_ok = reinterpret_cast<uintptr_t>(C.ptr) % 16 == 0 && (C.ld * esize) % 16 == 0;
  const int groups = inner_extent / vec;
  for (int w = threadIdx.x; w < outer_extent * groups; w += kThreads) {
    const int o = w / groups, i0 = (w % groups) * vec;
    if (o >= outer_n || i0 >= inner_n) continue;
    float v[8];
    const float4* src = reinterpret_cast<const float4*>(slice + o * stride + i0);
    *reinterpret_cast<float4*>(v) = src[0];
    if (vec == 8) *reinterpret_cast<float4*>(v + 4) = src[1];
    const int64_t r = c_row ? row0 + o : row0 + i0;
    const int64_t c = c_row ? n0 + i0 : n0 + o;
    const int64_t li = linear(C, r, c);
    if (vec_ok && i0 + vec <= inner_n)
      store_vector(C, li, v, alpha, beta);
    else
      store_scalars(C, li, v, static_cast<int>(inner_n - i0 < vec ? inner_n - i0 : vec), alpha,
                    beta);
  }
}

/// The block's epilogue for one n tile: slice by slice, every warp stages its fragments (lane
/// (g, t): rows g, g + 8 and columns 2 t, 2 t + 1 of each m16n8 block of its columns), then the
/// block writes the slice. Block-uniform; uses only the epilogue region, so the pipeline's
/// copies of the next tile keep flying.
template <int BT, int BN>
__device__ __forceinline__ void store_tile(const KernelParams& p, float* slice,
                                           const float (&acc)[BT / 16][TileShape<BT, BN>::kNB][4],
                                           int64_t row0, int64_t n0, int warp_col, float alpha,
                                           float beta) {
  using S = TileShape<BT, BN>;
  const bool c_row = p.C.order == SPX_ORDER_ROW;
  const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
#pragma unroll
  for (int sl = 0; sl < S::kSlices; ++sl) {
#pragma unroll
    for (int nb = 0; nb < S::kNB; ++nb)
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int r = g + 8 * h, c = warp_col + nb * 8 + 2 * t;
        const float v0 = acc[sl][nb][2 * h], v1 = acc[sl][nb][2 * h + 1];
        if (c_row) {
          *reinterpret_cast<float2*>(slice + r * S::kSliceRowStride + c) = make_float2(v0, v1);
        } else {
          slice[c * S::kSliceColStride + r] = v0;
          slice[(c + 1) * S::kSliceColStride + r] = v1;
        }
      }
    __syncthreads();
    write_slice<BT, BN>(p, slice, row0 + sl * 16, n0, alpha, beta);
    __syncthreads();  // the next slice overwrites the region
  }
}

/// The kernel. T: __half or __nv_bfloat16 (A and B); C is 32F or T (run-time type). Block
/// (x, y) computes panel panel_order[x] for the n tiles [y * tpb, (y + 1) * tpb) (BN columns
/// each) as one stream of k steps: step q is pair q % npairs of tile q / npairs.
template <class T, int BT, int BN, bool kAligned>
__global__ void __launch_bounds__(kThreads) spmm_kernel(const KernelParams p) {
  using S = TileShape<BT, BN>;
  constexpr int kSlices = S::kSlices, kNB = S::kNB;
  extern __shared__ __align__(128) unsigned char smem[];
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;

  const int panel = p.panel_order[blockIdx.x];
  const int64_t pair0 = p.panel_info[2 * panel];
  const int ktiles = p.panel_info[2 * panel + 1];
  const int npairs = (ktiles + 1) >> 1;
  const int64_t n_tiles = (p.n + BN - 1) / BN;
  const int64_t tile0 = static_cast<int64_t>(blockIdx.y) * p.tiles_per_block;
  const int tiles = static_cast<int>(n_tiles - tile0 < p.tiles_per_block ? n_tiles - tile0
                                                                         : p.tiles_per_block);
  const int steps = tiles * npairs;
  const int64_t row0 = static_cast<int64_t>(panel) * BT;
  const float alpha = alpha_float(p.scalars), beta = beta_float(p.scalars);

  auto stage_b = [&](int s) { return reinterpret_cast<uint16_t*>(smem + s * S::kStageBytes); };
  auto stage_a = [&](int s) {
    return reinterpret_cast<uint16_t*>(smem + s * S::kStageBytes + S::kBBytes);
  };
  auto stage_m = [&](int s) {
    return reinterpret_cast<uint32_t*>(smem + s * S::kStageBytes + S::kBBytes + S::kABytes);
  };
  int32_t* const idx_ring = reinterpret_cast<int32_t*>(smem + kStages * S::kStageBytes);
  float* const slice = reinterpret_cast<float*>(smem + kStages * S::kStageBytes + S::kIndexBytes);
  const int warp_col = warp * S::kWarpN;

  float acc[kSlices][kNB][4];
  auto clear = [&]() {
#pragma unroll
    for (int s = 0; s < kSlices; ++s)
#pragma unroll
      for (int b = 0; b < kNB; ++b)
#pragma unroll
        for (int i = 0; i < 4; ++i) acc[s][b][i] = 0.0f;
  };
  clear();

  if (steps == 0) {  // an empty panel: C = beta * C on every tile of the block
    for (int t = 0; t < tiles; ++t)
      store_tile<BT, BN>(p, slice, acc, row0, (tile0 + t) * BN, warp_col, alpha, beta);
    return;
  }

  // The indices of the first kStages - 1 steps, synchronously (the only exposed index latency).
  for (int e = tid; e < (kStages - 1) * kPairK; e += kThreads) {
    const int q = e / kPairK;
    idx_ring[e] = q < steps ? __ldg(p.gather + (pair0 + q % npairs) * kPairK + e % kPairK) : -1;
  }
  __syncthreads();

  // This thread's 16-byte chunk of a B row (aligned path): kPasses rows per step.
  constexpr int kChunksPerRow = BN / 8;
  constexpr int kRowsPerPass = kThreads / kChunksPerRow;
  constexpr int kPasses = kPairK / kRowsPerPass;
  static_assert(kThreads % kChunksPerRow == 0 && kPairK % kRowsPerPass == 0, "B copy mapping");
  const int chunk = tid % kChunksPerRow, row_in_pass = tid / kChunksPerRow;

  // Group q: step q's B, A and metadata, plus the indices of step q + kStages - 1.
  auto issue = [&](int q) {
    if (q < steps) {
      const int s = q % kStages;
      const int j = q % npairs;
      const int64_t n0 = (tile0 + q / npairs) * BN;
      const int32_t* idx = idx_ring + s * kPairK;
      uint16_t* bs = stage_b(s);
      if constexpr (kAligned) {
        const int64_t chunk_col = n0 + chunk * 8;
        const int chunk_bytes = chunk_col >= p.n ? 0
                                : (p.n - chunk_col >= 8 ? 16 : static_cast<int>(p.n - chunk_col) * 2);
#pragma unroll
        for (int ps = 0; ps < kPasses; ++ps) {
          const int r = ps * kRowsPerPass + row_in_pass;
          const int32_t col = idx[r];
          const int bytes = col >= 0 ? chunk_bytes : 0;
          const uint16_t* src = bytes > 0 ? p.b + static_cast<int64_t>(col) * p.ldb + chunk_col : p.b;
          cp_async16(smem_addr(bs + r * S::kBStride + chunk * 8), src, bytes);
        }
      } else {
        for (int e = tid; e < kPairK * BN; e += kThreads) {
          const int r = e / BN, c = e % BN;
          const int32_t col = idx[r];
          const int64_t gc = n0 + c;
          bs[r * S::kBStride + c] =
              (col >= 0 && gc < p.n) ? p.b[static_cast<int64_t>(col) * p.ldb + gc] : uint16_t{0};
        }
      }
      const int64_t pair = pair0 + j;
      const uint16_t* a_src = p.values + pair * (kSlices * 512);
      uint16_t* as = stage_a(s);
      for (int c = tid; c < kSlices * 64; c += kThreads)
        cp_async16(smem_addr(as + c * 8), a_src + c * 8, 16);
      if (tid < kSlices * 8)
        cp_async16(smem_addr(stage_m(s) + tid * 4), p.metadata + pair * (kSlices * 32) + tid * 4, 16);
    }
    const int x = q + kStages - 1;
    if (x < steps && tid < kPairK / 4)
      cp_async16(smem_addr(idx_ring + (x % kStages) * kPairK + tid * 4),
                 p.gather + (pair0 + x % npairs) * kPairK + tid * 4, 16);
    cp_async_commit();
  };

  // Prologue: steps 0 .. kStages - 2. A barrier between issues: issue(q) overwrites the index
  // slot issue(q - 1) read.
#pragma unroll
  for (int q = 0; q < kStages - 1; ++q) {
    issue(q);
    __syncthreads();
  }

  int j = 0, t = 0;  // pair and tile of step q
  for (int q = 0; q < steps; ++q) {
    cp_async_wait<kStages - 2>();  // groups 0 .. q complete (this thread's copies)
    __syncthreads();               // everyone's copies visible; step q - 1's buffers free
    issue(q + kStages - 1);

    const int s = q % kStages;
    const uint16_t* as = stage_a(s);
    const uint32_t* ms = stage_m(s);
    uint32_t meta[kSlices];
#pragma unroll
    for (int sl = 0; sl < kSlices; ++sl) meta[sl] = ms[sl * 32 + lane];
    const uint32_t b_addr = smem_addr(stage_b(s) + lane * S::kBStride + warp_col);

    {  // first k tile of the pair: sparsity selector 0
      uint4 a[kSlices];
#pragma unroll
      for (int sl = 0; sl < kSlices; ++sl)
        a[sl] = *reinterpret_cast<const uint4*>(as + (sl * 2) * 256 + lane * 8);
#pragma unroll
      for (int nb = 0; nb < kNB; ++nb) {
        uint32_t b[4];
        ldmatrix_x4_trans(b, b_addr + nb * 16);
#pragma unroll
        for (int sl = 0; sl < kSlices; ++sl) mma_sp<T, 0>(acc[sl][nb], a[sl], b, meta[sl]);
      }
    }
    if (2 * j + 1 < ktiles) {  // second k tile (absent: the phantom half of an odd panel)
      uint4 a[kSlices];
#pragma unroll
      for (int sl = 0; sl < kSlices; ++sl)
        a[sl] = *reinterpret_cast<const uint4*>(as + (sl * 2 + 1) * 256 + lane * 8);
#pragma unroll
      for (int nb = 0; nb < kNB; ++nb) {
        uint32_t b[4];
        ldmatrix_x4_trans(b, b_addr + 32 * S::kBStride * 2 + nb * 16);
#pragma unroll
        for (int sl = 0; sl < kSlices; ++sl) mma_sp<T, 1>(acc[sl][nb], a[sl], b, meta[sl]);
      }
    }
    if (++j == npairs) {  // the tile is complete: write it while the next tile's copies fly
      store_tile<BT, BN>(p, slice, acc, row0, (tile0 + t) * BN, warp_col, alpha, beta);
      clear();
      j = 0;
      ++t;
    }
  }
  cp_async_wait<0>();  // (only empty groups can be pending here)
}

template <class T, int BT, int BN, bool kAligned>
cudaError_t launch_one(const KernelParams& p, int64_t panels, cudaStream_t stream) {
  const int64_t n_tiles = (p.n + BN - 1) / BN;
  const dim3 grid(static_cast<unsigned>(panels),
                  static_cast<unsigned>((n_tiles + p.tiles_per_block - 1) / p.tiles_per_block));
  spmm_kernel<T, BT, BN, kAligned><<<grid, kThreads, TileShape<BT, BN>::kSmemBytes, stream>>>(p);
  return cudaGetLastError();
}

template <class T, int BT, int BN, bool kAligned>
cudaError_t load_one() {
  return cudaFuncSetAttribute(spmm_kernel<T, BT, BN, kAligned>,
                              cudaFuncAttributeMaxDynamicSharedMemorySize,
                              TileShape<BT, BN>::kSmemBytes);
}

template <class T, int BT>
cudaError_t launch_bt(const KernelParams& p, int64_t panels, int bn, bool aligned,
                      cudaStream_t stream) {
  if (bn == 64)
    return aligned ? launch_one<T, BT, 64, true>(p, panels, stream)
                   : launch_one<T, BT, 64, false>(p, panels, stream);
  if (bn == 128)
    return aligned ? launch_one<T, BT, 128, true>(p, panels, stream)
                   : launch_one<T, BT, 128, false>(p, panels, stream);
  return cudaErrorInvalidValue;
}

template <class T, int BT>
cudaError_t load_bt() {
  cudaError_t err = load_one<T, BT, 64, true>();
  if (err == cudaSuccess) err = load_one<T, BT, 64, false>();
  if (err == cudaSuccess) err = load_one<T, BT, 128, true>();
  if (err == cudaSuccess) err = load_one<T, BT, 128, false>();
  return err;
}

}  // namespace spx::kernels::sptc::detail
