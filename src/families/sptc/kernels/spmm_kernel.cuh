// The SpTC SpMM kernel: mma.sp m16n8k32 (fp16 / bf16, fp32 accumulation) over the reorder-aware
// storage of families/sptc/plan/storage.hpp. Included only by the spmm_bt*.cu instantiation units.
//
// Block = one panel (BT rows) x tiles_per_block n tiles of BN columns, streamed through one
// pipeline (a short panel's fill latency is paid once per block, not once per tile). Warps:
// kWarpsM rows x 4 columns; a warp covers kWarpSlices row slices x BN / 4 columns. Per k step (a
// pair of k tiles = 64 MMA k positions of one n tile):
//   * B: the 64 rows the gather index names (-1 = zero row), BN columns from n0, into shared
//     memory in MMA order, padded 8 elements per row (16 B), by 16-byte cp.async (zero-filled
//     past n or for -1); or element by element when B's rows are not 16-byte aligned;
//   * A: 2 x BT / 16 tiles of 512 bytes in A-fragment order (one 16-byte LDS per lane);
//   * metadata: BT / 16 x 32 words, interleaved (one LDS.32 per lane serves both k tiles,
//     sparsity selector 0 then 1).
// Streaming (kResident false): A and metadata travel with B in every stage, and step j's
// cp.async group also carries the gather indices of step j + kStages - 1, so the B gather of a
// step never waits on its indices (the paper's deeper pipeline: indices n + 2 while loading
// n + 1 and computing n, for kStages = 3). Resident (kResident true): the block loads its
// panel's gather indices, A and metadata once, and the stages carry only B: every further n
// tile of the block reads B alone from L2.
// When a tile's last pair is computed, each warp writes its C fragments through a shared-memory
// region of its own (no block barrier), one 16-row slice at a time, in 16-byte vectors along
// C's contiguous dimension; rows go through the plan's row map (clustered row order) if any.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>
#include <type_traits>

#include "device/cp_async.cuh"
#include "device/elements.cuh"
#include "families/sptc/kernels/config.hpp"
#include "families/sptc/kernels/launch.cuh"

namespace spx::kernels::sptc::detail {

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

/// A 16-byte cp.async (L2 only) that writes zeros instead when `zero` (the ignore-src form: one
/// predicate, where the src-size form costs the address arithmetic of a byte count).
__device__ __forceinline__ void cp_async16_or_zero(uint32_t dst, const void* src, bool zero) {
  asm volatile(
      "{\n .reg .pred z;\n setp.ne.b32 z, %2, 0;\n"
      " cp.async.cg.shared.global [%0], [%1], 16, z;\n}\n" ::"r"(dst),
      "l"(src), "r"(static_cast<int>(zero))
      : "memory");
}

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

/// The same for one 16-byte vector (4 fp32 or 8 fp16 / bf16 elements: kESize 4 / 2) at a
/// 16-byte aligned li.
template <int kESize>
__device__ __forceinline__ void store_vector(const DenseView& C, int64_t li, const float* v,
                                             float alpha, float beta) {
  if constexpr (kESize == 4) {
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
  } else {
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
}

/// Row of C that row i of the reordered matrix holds (-1: past the end).
__device__ __forceinline__ int64_t c_row_of(const KernelParams& p, int64_t i) {
  if (p.row_map != nullptr) return p.row_map[i];
  return i < p.m ? i : -1;
}

/// The block's copy of its panel's rows of C in shared memory: offsets from the panel's first
/// row (base), kNoRow past the end. Filled once per block; the epilogue reads it per vector.
constexpr int32_t kNoRow = INT32_MIN;
__device__ __forceinline__ int64_t row_at(const int32_t* rows, int64_t base, int i) {
  const int32_t rel = rows[i];
  return rel == kNoRow ? -1 : base + rel;
}

/// What a block computes (both kernels): its record from plan::sptc_block_records (panel, first
/// k-tile pair, k tiles) and its run of `tiles_per_block` column tiles of BN (blockIdx.y), walked
/// as one stream of `steps` k steps.
struct BlockWork {
  int64_t pair0;
  int ktiles, npairs;
  int64_t tile0;
  int tiles, steps;
  int64_t panel_row0;
};
template <int BT, int BN>
__device__ __forceinline__ BlockWork block_work(const KernelParams& p) {
  const int4 blk = p.blocks[blockIdx.x];  // panel, first pair, k tiles
  BlockWork w;
  w.pair0 = blk.y;
  w.ktiles = blk.z;
  w.npairs = (w.ktiles + 1) >> 1;
  const int64_t n_tiles = (p.n + BN - 1) / BN;
  w.tile0 = static_cast<int64_t>(blockIdx.y) * p.tiles_per_block;
  w.tiles = static_cast<int>(n_tiles - w.tile0 < p.tiles_per_block ? n_tiles - w.tile0
                                                                   : p.tiles_per_block);
  w.steps = w.tiles * w.npairs;
  w.panel_row0 = static_cast<int64_t>(blk.x) * BT;
  return w;
}

/// The panel's rows of C into the shared row map, once per block (visible after the block's
/// next barrier).
template <int BT, int kThreads>
__device__ __forceinline__ void fill_row_map(const KernelParams& p, int64_t panel_row0,
                                             int32_t* rows) {
  for (int i = threadIdx.x; i < BT; i += kThreads) {
    const int64_t r = c_row_of(p, panel_row0 + i);
    rows[i] = r < 0 ? kNoRow : static_cast<int32_t>(r - panel_row0);
  }
}

/// One warp writes its staged 16-row slice of C (the rows `rows` names from base, columns c0 ..
/// c0 + kWarpN): alpha * slice + beta * C (C never read when beta == 0), clipped to m x n. Lanes walk
/// C's contiguous dimension in 16-byte vectors; unaligned C, tails and rows the row map scatters
/// (column-major C) go element by element. C's order (kRowC) and element size (kESize: 4 for
/// fp32, 2 for fp16 / bf16) are template parameters, so the lane -> vector mapping is constant.
/// W: the slice's columns (staged 16 x (W + 4) floats row-major, W x 18 column-major).
template <int W, bool kRowC, int kESize>
__device__ __forceinline__ void write_warp_slice(const KernelParams& p, const float* slice,
                                                 const int32_t* rows, int64_t base, int64_t c0,
                                                 float alpha, float beta) {
  constexpr int vec = 16 / kESize;
  constexpr int inner_extent = kRowC ? W : 16;
  constexpr int stride = kRowC ? W + 4 : 18;
  constexpr int groups = inner_extent / vec;
  constexpr int items = (kRowC ? 16 : W) * groups;
  static_assert(items % 32 == 0, "whole vectors per lane");
  const DenseView& C = p.C;
  const int64_t cols = p.n - c0 < W ? p.n - c0 : W;
  if (cols <= 0) return;
  // c0 is a multiple of 8 elements: a vector starts 16-byte aligned when C and its leading
  // dimension are (column-major: also when the row map keeps the vector's rows together and its
  // first row is a multiple of the vector length).
  const bool vec_ok = reinterpret_cast<uintptr_t>(C.ptr) % 16 == 0 && (C.ld * kESize) % 16 == 0;
  const int lane = threadIdx.x & 31;
#pragma unroll 1  // unrolled, the loads of later vectors are hoisted and the registers spill
  for (int it = 0; it < items / 32; ++it) {
    const int w = lane + 32 * it;
    const int o = w / groups, i0 = (w % groups) * vec;
    float v[8];
    const float2* src = reinterpret_cast<const float2*>(slice + o * stride + i0);
#pragma unroll
    for (int e = 0; e < vec / 2; ++e)  // 8-byte reads: column-major rows are 8-byte aligned only
      *reinterpret_cast<float2*>(v + 2 * e) = src[e];
    if constexpr (kRowC) {
      const int64_t r = row_at(rows, base, o);
      if (r < 0 || i0 >= cols) continue;
      const int64_t li = linear(C, r, c0 + i0);
      if (vec_ok && i0 + vec <= cols)
        store_vector<kESize>(C, li, v, alpha, beta);
      else
        store_scalars(C, li, v, static_cast<int>(cols - i0 < vec ? cols - i0 : vec), alpha, beta);
    } else {
      if (o >= cols) continue;
      const int64_t c = c0 + o;
      const int64_t r0 = row_at(rows, base, i0);
      bool together = r0 >= 0 && vec_ok && r0 % vec == 0;
#pragma unroll
      for (int e = 1; e < vec; ++e) together = together && row_at(rows, base, i0 + e) == r0 + e;
      if (together) {
        store_vector<kESize>(C, linear(C, r0, c), v, alpha, beta);
      } else {
#pragma unroll
        for (int e = 0; e < vec; ++e) {
          const int64_t r = row_at(rows, base, i0 + e);
          if (r >= 0) store_scalars(C, linear(C, r, c), v + e, 1, alpha, beta);
        }
      }
    }
  }
}

/// A warp's epilogue for one n tile: slice by slice it stages its fragments (lane (g, t): rows
/// g, g + 8 and columns 2 t, 2 t + 1 of each m16n8 block) in its own region and writes them.
/// Warp-synchronous: the rest of the block keeps computing and loading. `rows`: the row offsets
/// of the warp's first slice (16 per slice, from base).
/// The slice loop is not unrolled: one copy of the four writers (C order x element size) instead
/// of one per slice keeps the kernel small (unrolled, the epilogue was ~13700 of the BLOCK_TILE
/// 128 kernel's ~14400 SASS instructions, 220 KB of code, far more than the instruction cache).
template <int BT, int BN>
__device__ __forceinline__ void store_warp_tile(
    const KernelParams& p, float* region,
    const float (&acc)[TileShape<BT, BN>::kWarpSlices][TileShape<BT, BN>::kNB][4],
    const int32_t* rows, int64_t base, int64_t c0, float alpha, float beta) {
  using S = TileShape<BT, BN>;
  const bool c_row = p.C.order == SPX_ORDER_ROW;
  const bool wide = p.C.type == SPX_R_32F;
  const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
#pragma unroll 1
  for (int sl = 0; sl < S::kWarpSlices; ++sl) {
#pragma unroll
    for (int s2 = 0; s2 < S::kWarpSlices; ++s2) {  // static indices keep acc in registers
      if (s2 != sl) continue;
#pragma unroll
      for (int nb = 0; nb < S::kNB; ++nb)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int r = g + 8 * h, c = nb * 8 + 2 * t;
          const float v0 = acc[s2][nb][2 * h], v1 = acc[s2][nb][2 * h + 1];
          if (c_row) {
            *reinterpret_cast<float2*>(region + r * S::kSliceRowStride + c) = make_float2(v0, v1);
          } else {
            region[c * S::kSliceColStride + r] = v0;
            region[(c + 1) * S::kSliceColStride + r] = v1;
          }
        }
    }
    __syncwarp();
    const int32_t* sr = rows + sl * 16;
    constexpr int W = S::kWarpN;
    static_assert(S::kSliceRowStride == W + 4 && S::kSliceColStride == 18, "writer strides");
    if (c_row) {
      if (wide) write_warp_slice<W, true, 4>(p, region, sr, base, c0, alpha, beta);
      else write_warp_slice<W, true, 2>(p, region, sr, base, c0, alpha, beta);
    } else {
      if (wide) write_warp_slice<W, false, 4>(p, region, sr, base, c0, alpha, beta);
      else write_warp_slice<W, false, 2>(p, region, sr, base, c0, alpha, beta);
    }
    __syncwarp();  // the next slice overwrites the region
  }
}

/// The kernel. T: __half or __nv_bfloat16 (A and B); C is 32F or T (run-time type). Block
/// (x, y) computes panel panel_order[x] for the n tiles [y * tpb, (y + 1) * tpb) (BN columns
/// each) as one stream of k steps: step q is pair q % npairs of tile q / npairs.
template <class T, int BT, int BN, bool kAligned, bool kResident>
__global__ void __launch_bounds__(TileShape<BT, BN>::kThreads, BT == 128 ? 2 : 1)
    spmm_kernel(const KernelParams p) {
  using S = TileShape<BT, BN>;
  constexpr int kSlices = S::kSlices, kWarpSlices = S::kWarpSlices, kNB = S::kNB;
  constexpr int kThreads = S::kThreads;
  static_assert(!kResident || kAligned, "the resident kernel gathers B with cp.async");
  extern __shared__ __align__(128) unsigned char smem[];
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int warp_m = warp / kWarpsN, warp_n = warp % kWarpsN;
  const int slice0 = warp_m * kWarpSlices;  // the warp's first row slice

  const BlockWork work = block_work<BT, BN>(p);
  const int64_t pair0 = work.pair0;
  const int ktiles = work.ktiles, npairs = work.npairs;
  const int64_t tile0 = work.tile0;
  const int tiles = work.tiles, steps = work.steps;
  const int64_t panel_row0 = work.panel_row0;
  const float alpha = alpha_float(p.scalars), beta = beta_float(p.scalars);
  const int warp_col = warp_n * S::kWarpN;

  // Shared memory. Streaming: kStages x (B | A | M), the index ring, the epilogue regions, the
  // row map. Resident: kStages x B, the epilogue regions, the row map, then gather | metadata |
  // A of the whole panel.
  constexpr int kStageStride = kResident ? S::kBBytes : S::kStageBytes;
  constexpr int kEpilogueOffset = kResident ? kStages * S::kBBytes
                                            : kStages * S::kStageBytes + S::kIndexBytes;
  auto stage_b = [&](int s) { return reinterpret_cast<uint16_t*>(smem + s * kStageStride); };
  float* const region = reinterpret_cast<float*>(smem + kEpilogueOffset) +
                        warp * S::kWarpEpilogueFloats;
  int32_t* const rows = reinterpret_cast<int32_t*>(smem + kEpilogueOffset + S::kEpilogueBytes);
  const int32_t* const warp_rows = rows + slice0 * 16;
  unsigned char* const resident =
      smem + kEpilogueOffset + S::kEpilogueBytes + S::kRowMapBytes;
  int32_t* const res_gather = reinterpret_cast<int32_t*>(resident);
  uint32_t* const res_meta = reinterpret_cast<uint32_t*>(resident + npairs * kPairGatherBytes);
  uint16_t* const res_a = reinterpret_cast<uint16_t*>(
      resident + npairs * (kPairGatherBytes + kSlices * kPairSliceMBytes));
  int32_t* const idx_ring = reinterpret_cast<int32_t*>(smem + kStages * S::kStageBytes);
  // A and metadata of step q's pair j, stage s.
  auto pair_a = [&](int s, int j) {
    return kResident ? res_a + j * (kSlices * 512)
                     : reinterpret_cast<uint16_t*>(smem + s * kStageStride + S::kBBytes);
  };
  auto pair_m = [&](int s, int j) {
    return kResident ? res_meta + j * (kSlices * 32)
                     : reinterpret_cast<uint32_t*>(smem + s * kStageStride + S::kBBytes +
                                                   S::kABytes);
  };
  // Gather indices of step q (stage s, pair j).
  auto step_idx = [&](int s, int j) { return kResident ? res_gather + j * kPairK : idx_ring + s * kPairK; };

  float acc[kWarpSlices][kNB][4];
  auto clear = [&]() {
#pragma unroll
    for (int s = 0; s < kWarpSlices; ++s)
#pragma unroll
      for (int b = 0; b < kNB; ++b)
#pragma unroll
        for (int i = 0; i < 4; ++i) acc[s][b][i] = 0.0f;
  };
  clear();

  // The panel's rows of C, once per block (visible after the prologue's first barrier).
  fill_row_map<BT, kThreads>(p, panel_row0, rows);

  if (steps == 0) {  // an empty panel: C = beta * C on every tile of the block
    __syncthreads();
    for (int t = 0; t < tiles; ++t)
      store_warp_tile<BT, BN>(p, region, acc, warp_rows, panel_row0,
                              (tile0 + t) * BN + warp_col, alpha, beta);
    return;
  }

  if constexpr (kResident) {
    // The panel's gather indices first (the B copies need them), then its metadata and A, which
    // join step 0's group.
    for (int c = tid; c < npairs * (kPairGatherBytes / 16); c += kThreads)
      cp_async16(smem_address(res_gather + c * 4), p.gather + pair0 * kPairK + c * 4, 16);
    cp_async_commit();
    cp_async_wait<0>();
    __syncthreads();
    for (int c = tid; c < npairs * kSlices * (kPairSliceMBytes / 16); c += kThreads)
      cp_async16(smem_address(res_meta + c * 4), p.metadata + pair0 * (kSlices * 32) + c * 4, 16);
    for (int c = tid; c < npairs * kSlices * (kPairSliceABytes / 16); c += kThreads)
      cp_async16(smem_address(res_a + c * 8), p.values + pair0 * (kSlices * 512) + c * 8, 16);
  } else {
    // The indices of the first kStages - 1 steps, synchronously (the only exposed index latency).
    for (int e = tid; e < (kStages - 1) * kPairK; e += kThreads) {
      const int q = e / kPairK;
      idx_ring[e] = q < steps ? __ldg(p.gather + (pair0 + q % npairs) * kPairK + e % kPairK) : -1;
    }
    __syncthreads();
  }

  // The B gather (aligned path): thread (row group rg, chunk) copies the 16-byte chunk `chunk`
  // of kRowsPerThread consecutive B rows of a step, so its gather indices are one or two vector
  // loads from shared memory instead of one load per row.
  constexpr int kChunksPerRow = BN / 8;
  constexpr int kRowGroups = kThreads / kChunksPerRow;
  constexpr int kRowsPerThread = kPairK / kRowGroups;
  static_assert(kThreads % kChunksPerRow == 0 && kPairK % kRowGroups == 0 &&
                    (kRowsPerThread == 2 || kRowsPerThread % 4 == 0),
                "B copy mapping: 2, 4 or 8 consecutive rows per thread");
  const int chunk = tid % kChunksPerRow, row_group = tid / kChunksPerRow;
  // A of a step: kSlices x 64 16-byte chunks over the block's threads.
  constexpr int kAChunks = kSlices * 64;
  constexpr int kAPerThread = (kAChunks + kThreads - 1) / kThreads;

  // Cursors of the next issue: the step it loads (its stage, pair and tile) and the pair of the
  // step whose gather indices it loads (kStages - 1 further). They advance by one step per
  // issue, so the loop divides by npairs nowhere.
  // i_left counts the steps still to issue (no separate step index: one register less, which
  // the compiler otherwise spent re-deriving the step count every k step).
  int i_left = steps, i_stage = 0, i_pair = 0, i_tile = 0;
  int x_pair = (kStages - 1) % npairs;
  // This thread's sources and destinations of the A / metadata / index copies at pair 0 and
  // stage 0 (a step adds its pair's and stage's offsets: no per-step 64-bit thread arithmetic).
  [[maybe_unused]] const uint16_t* const a_src0 = p.values + pair0 * (kSlices * 512) + tid * 8;
  [[maybe_unused]] const uint32_t* const m_src0 = p.metadata + pair0 * (kSlices * 32) + tid * 4;
  [[maybe_unused]] const int32_t* const x_src0 = p.gather + pair0 * kPairK + tid * 4;
  [[maybe_unused]] const uint32_t a_dst0 = smem_address(smem + S::kBBytes) + tid * 16;
  [[maybe_unused]] const uint32_t m_dst0 = smem_address(smem + S::kBBytes + S::kABytes) + tid * 16;
  [[maybe_unused]] const uint32_t x_dst0 = smem_address(idx_ring) + tid * 16;
  // This thread's B chunk in the issue cursor's n tile (aligned path): where its column starts
  // in B's row 0 and how many bytes of it lie inside n (0 past n: the copies then read nothing,
  // their address stays inside B). Recomputed when the cursor enters a new tile.
  const uint16_t* chunk_base = p.b;
  int chunk_bytes = 0;
  const uint32_t ldb_bytes = static_cast<uint32_t>(p.ldb) * 2;  // used when p.b_off32
  auto enter_tile = [&]() {
    const int64_t chunk_col = (tile0 + i_tile) * BN + chunk * 8;
    chunk_bytes = chunk_col >= p.n ? 0
                  : (p.n - chunk_col >= 8 ? 16 : static_cast<int>(p.n - chunk_col) * 2);
    chunk_base = chunk_bytes > 0 ? p.b + chunk_col : p.b;
  };
  if constexpr (kAligned) enter_tile();

  // Group of the next step: its B (streaming: and its A and metadata, plus the indices of the
  // step kStages - 1 further).
  auto issue = [&]() {
    if (i_left > 0) {
      const int s = i_stage;
      const int j = i_pair;
      const int32_t* idx = step_idx(s, j);
      uint16_t* bs = stage_b(s);
      if constexpr (kAligned) {
        int32_t cols[kRowsPerThread];
        const int32_t* my_idx = idx + row_group * kRowsPerThread;
        if constexpr (kRowsPerThread == 2) {
          const int2 v = *reinterpret_cast<const int2*>(my_idx);
          cols[0] = v.x;
          cols[1] = v.y;
        } else {
#pragma unroll
          for (int r = 0; r < kRowsPerThread; r += 4) {
            const int4 v = *reinterpret_cast<const int4*>(my_idx + r);
            cols[r] = v.x;
            cols[r + 1] = v.y;
            cols[r + 2] = v.z;
            cols[r + 3] = v.w;
          }
        }
        const uint32_t dst =
            smem_address(bs + row_group * kRowsPerThread * S::kBStride + chunk * 8);
        const uint64_t ldb = static_cast<uint64_t>(p.ldb);
        if ((chunk_bytes == 16 || chunk_bytes == 0) && p.b_off32) {
          // Whole chunks, every row within 4 GiB of B: a 32-bit byte offset per row (one IMAD)
          // on the chunk's 64-bit base instead of a 64-bit product per row.
          const unsigned char* base = reinterpret_cast<const unsigned char*>(chunk_base);
#pragma unroll
          for (int r = 0; r < kRowsPerThread; ++r) {
            const int32_t col = cols[r];
            const uint32_t off = static_cast<uint32_t>(col >= 0 ? col : 0) * ldb_bytes;
            cp_async16_or_zero(dst + r * S::kBStride * 2, base + off,
                               col < 0 || chunk_bytes == 0);
          }
        } else if (chunk_bytes == 16 || chunk_bytes == 0) {  // whole chunks (n % 8 == 0)
#pragma unroll
          for (int r = 0; r < kRowsPerThread; ++r) {
            const int32_t col = cols[r];
            const uint64_t row = static_cast<uint32_t>(col >= 0 ? col : 0);  // -1: zero-filled
            cp_async16_or_zero(dst + r * S::kBStride * 2, chunk_base + row * ldb,
                               col < 0 || chunk_bytes == 0);
          }
        } else {  // the chunk that n cuts
#pragma unroll
          for (int r = 0; r < kRowsPerThread; ++r) {
            const int32_t col = cols[r];
            const uint64_t row = static_cast<uint32_t>(col >= 0 ? col : 0);
            cp_async16(dst + r * S::kBStride * 2, chunk_base + row * ldb,
                       col >= 0 ? chunk_bytes : 0);
          }
        }
      } else {
        const int64_t n0 = (tile0 + i_tile) * BN;
        for (int e = tid; e < kPairK * BN; e += kThreads) {
          const int r = e / BN, c = e % BN;
          const int32_t col = idx[r];
          const int64_t gc = n0 + c;
          bs[r * S::kBStride + c] =
              (col >= 0 && gc < p.n) ? p.b[static_cast<int64_t>(col) * p.ldb + gc] : uint16_t{0};
        }
      }
      if constexpr (!kResident) {
        const uint16_t* a_src = a_src0 + j * (kSlices * 512);
        const uint32_t a_dst = a_dst0 + s * kStageStride;
#pragma unroll
        for (int i = 0; i < kAPerThread; ++i) {
          if (kAChunks % kThreads == 0 || tid + i * kThreads < kAChunks)
            cp_async16(a_dst + i * kThreads * 16, a_src + i * kThreads * 8, 16);
        }
        if (tid < kSlices * 8)
          cp_async16(m_dst0 + s * kStageStride, m_src0 + j * (kSlices * 32), 16);
      }
    }
    if constexpr (!kResident) {
      // The indices of the step kStages - 1 further: its ring slot is the one before i_stage.
      if (i_left > kStages - 1 && tid < kPairK / 4)
        cp_async16(x_dst0 + (i_stage == 0 ? kStages - 1 : i_stage - 1) * (kPairK * 4),
                   x_src0 + x_pair * kPairK, 16);
    }
    cp_async_commit();
    --i_left;
    if (++i_stage == kStages) i_stage = 0;
    if (++i_pair == npairs) {
      i_pair = 0;
      ++i_tile;
      if constexpr (kAligned) enter_tile();
    }
    if (++x_pair == npairs) x_pair = 0;
  };

  // Prologue: steps 0 .. kStages - 2. Streaming: a barrier between issues, since the next issue
  // overwrites the index slot the previous one read.
#pragma unroll
  for (int q = 0; q < kStages - 1; ++q) {
    issue();
    if constexpr (!kResident) __syncthreads();
  }

  int j = 0, t = 0, s = 0;  // pair, tile and stage of the step computed
  for (int q = steps; q > 0; --q) {
    cp_async_wait<kStages - 2>();  // groups 0 .. q complete (this thread's copies)
    __syncthreads();               // everyone's copies visible; step q - 1's buffers free
    issue();                       // step q + kStages - 1

    const uint16_t* as = pair_a(s, j) + slice0 * 512;
    const uint32_t* ms = pair_m(s, j) + slice0 * 32;
    uint32_t meta[kWarpSlices];
#pragma unroll
    for (int sl = 0; sl < kWarpSlices; ++sl) meta[sl] = ms[sl * 32 + lane];
    const uint32_t b_addr = smem_address(stage_b(s) + lane * S::kBStride + warp_col);

    {  // first k tile of the pair: sparsity selector 0
      uint4 a[kWarpSlices];
#pragma unroll
      for (int sl = 0; sl < kWarpSlices; ++sl)
        a[sl] = *reinterpret_cast<const uint4*>(as + (sl * 2) * 256 + lane * 8);
#pragma unroll
      for (int nb = 0; nb < kNB; ++nb) {
        uint32_t b[4];
        ldmatrix_x4_trans(b, b_addr + nb * 16);
#pragma unroll
        for (int sl = 0; sl < kWarpSlices; ++sl) mma_sp<T, 0>(acc[sl][nb], a[sl], b, meta[sl]);
      }
    }
    if (2 * j + 1 < ktiles) {  // second k tile (absent: the phantom half of an odd panel)
      uint4 a[kWarpSlices];
#pragma unroll
      for (int sl = 0; sl < kWarpSlices; ++sl)
        a[sl] = *reinterpret_cast<const uint4*>(as + (sl * 2 + 1) * 256 + lane * 8);
#pragma unroll
      for (int nb = 0; nb < kNB; ++nb) {
        uint32_t b[4];
        ldmatrix_x4_trans(b, b_addr + 32 * S::kBStride * 2 + nb * 16);
#pragma unroll
        for (int sl = 0; sl < kWarpSlices; ++sl) mma_sp<T, 1>(acc[sl][nb], a[sl], b, meta[sl]);
      }
    }
    if (++j == npairs) {  // the tile is complete: the warp writes it, the copies keep flying
      store_warp_tile<BT, BN>(p, region, acc, warp_rows, panel_row0, (tile0 + t) * BN + warp_col,
                              alpha, beta);
      clear();
      j = 0;
      ++t;
    }
    if (++s == kStages) s = 0;
  }
  cp_async_wait<0>();  // (only empty groups can be pending here)
}

template <class T, int BT, int BN, bool kAligned, bool kResident>
cudaError_t launch_one(const KernelParams& p, int64_t panels, int smem, cudaStream_t stream) {
  const int64_t n_tiles = (p.n + BN - 1) / BN;
  const dim3 grid(static_cast<unsigned>(panels),
                  static_cast<unsigned>((n_tiles + p.tiles_per_block - 1) / p.tiles_per_block));
  spmm_kernel<T, BT, BN, kAligned, kResident>
      <<<grid, TileShape<BT, BN>::kThreads, smem, stream>>>(p);
  return cudaGetLastError();
}

template <class T, int BT, int BN, bool kAligned, bool kResident>
cudaError_t load_one() {
  return cudaFuncSetAttribute(spmm_kernel<T, BT, BN, kAligned, kResident>,
                              cudaFuncAttributeMaxDynamicSharedMemorySize,
                              kResident ? kMaxSmemPerBlock : TileShape<BT, BN>::kSmemBytes);
}

/// BLOCK_TILEs with a resident-A kernel (BN 128, aligned B only).
constexpr bool has_resident(int bt) { return bt >= 64; }

template <class T, int BT>
cudaError_t launch_bt(const KernelParams& p, int64_t panels, const LaunchShape& shape,
                      cudaStream_t stream) {
  if constexpr (has_resident(BT)) {
    if (shape.resident) {
      if (shape.bn != 128 || !shape.aligned) return cudaErrorInvalidValue;
      return launch_one<T, BT, 128, true, true>(p, panels, shape.smem, stream);
    }
  } else {
    if (shape.resident) return cudaErrorInvalidValue;
  }
  constexpr int s64 = TileShape<BT, 64>::kSmemBytes, s128 = TileShape<BT, 128>::kSmemBytes;
  if (shape.bn == 64)
    return shape.aligned ? launch_one<T, BT, 64, true, false>(p, panels, s64, stream)
                         : launch_one<T, BT, 64, false, false>(p, panels, s64, stream);
  if (shape.bn == 128)
    return shape.aligned ? launch_one<T, BT, 128, true, false>(p, panels, s128, stream)
                         : launch_one<T, BT, 128, false, false>(p, panels, s128, stream);
  return cudaErrorInvalidValue;
}

template <class T, int BT>
cudaError_t load_bt() {
  cudaError_t err = load_one<T, BT, 64, true, false>();
  if (err == cudaSuccess) err = load_one<T, BT, 64, false, false>();
  if (err == cudaSuccess) err = load_one<T, BT, 128, true, false>();
  if (err == cudaSuccess) err = load_one<T, BT, 128, false, false>();
  if constexpr (has_resident(BT))
    if (err == cudaSuccess) err = load_one<T, BT, 128, true, true>();
  return err;
}

}  // namespace spx::kernels::sptc::detail
