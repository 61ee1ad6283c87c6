// The NM SpMM kernel: one template over the tile configurations of config.hpp, instantiated in
// spmm_tiles_*.cu. Design (NM-SpMM, adapted to a sparse LEFT operand; see README.md):
//
//  * Hierarchical blocking. A block computes BM x BN of C. The reduction is cut into stages of
//    w_s compressed slots (= W windows = k_s columns of A / rows of B). Per stage the block holds
//    in shared memory: the A values [w_s][BM] (the plan stores them slot-major, so these are
//    straight 16-byte copies), the B rows the stage needs [rows_s][BN + 4], and the stage-relative
//    row of every (group, slot) [groups][w_s] (uint16).
//  * Sparsity-aware loads. Non-packing: the B buffer holds all k_s rows of the stage (rows past k
//    zero-filled) and a slot reads row (u / N) * M + index. Packing: it holds only the rows named
//    by col_info for (pack tile, stage), and a slot reads the position the planner re-ordered its
//    index to. Same compute loop for both; only the B loader differs.
//  * Thread inner kernel: per slot, TM values of A (LDS.128 from the A buffer, contiguous rows)
//    times TN values of B (LDS.128 chunks of the group's row) as a register outer product of
//    TM * TN FFMA. Slot rows come two at a time from one 32-bit shared load of the index buffer.
//  * Bank conflicts. A warp reads 4 (or 8) distinct 16-byte A chunks that lie in one 128-byte
//    line; its B chunks are 8 consecutive 16-byte chunks of one row (one group per warp when
//    L >= 32). B rows are padded to BN + 4 floats so the column-major loader (8 consecutive rows
//    x 4 columns per warp, 4-byte copies) writes 32 distinct banks.
//  * Pipeline: `depth` stage buffers (2 by default) filled by cp.async (16-byte .cg for A and
//    row-major B at per-thread precomputed addresses, 4-byte .ca for the index rows, column-major
//    B and unaligned edges, zero-fill past the matrix), one commit group and one barrier per
//    stage, the copies of stage s + depth - 1 in flight while stage s is computed. A packed stage
//    carries the col_info list of the stage whose copies are issued after its barrier, so those
//    are issued from shared memory without a dependent global load. Within a stage the next
//    slot's fragments are loaded while the current slot's FFMA run. (On sm_90 non-packed plans
//    run spmm_bulk.cuh instead: tensor copies and mbarriers, same inner kernel and epilogue.)
//  * Split-K: blockIdx.z takes a contiguous range of stages and writes its partial product to the
//    workspace; a reduction kernel then applies alpha and beta once (deterministic order).
#pragma once

#include <cstdint>
#include <type_traits>

#include "device/cp_async.cuh"
#include "device/elements.cuh"
#include "families/nm/kernels/launch.hpp"

namespace spx::kernels::nm::detail {

__host__ __device__ __forceinline__ int align16_int(int bytes) {
  return (bytes + 15) & ~15;
}

/// Pointers into one stage buffer.
struct StageBuffer {
  float* a;             ///< [w_s][BM]
  float* b;             ///< [rows_s][BN + 4]
  uint16_t* idx;        ///< [groups][w_s]
  int32_t* next_rows;   ///< packing: row count of the next stage's col_info list
  uint16_t* next_list;  ///< packing: the next stage's col_info list [pack_capacity]
};

/// Reads a uint16 from shared memory through its 32-bit shared address (an LDS, where a plain
/// pointer the compiler cannot prove shared would become a generic load).
__device__ __forceinline__ uint32_t lds_u16(unsigned addr) {
  unsigned short v;
  asm volatile("ld.shared.u16 %0, [%1];\n" : "=h"(v) : "r"(addr));
  return v;
}

/// Per-thread constants of the stage loaders, computed once per block (divisions, 64-bit
/// products and the thread's copy positions), so that a stage's copies are a few pointer
/// increments each. The loader was most of the kernel's non-FFMA instructions before (ncu, H100,
/// 2:4: FFMA 64 % of the instructions with a 293-instruction inner loop of 256 FFMA: about 40
/// instructions per 16-byte B copy in the generic loader, with its 64-bit row products, the
/// col_info branch and the vec4 / element split inside the loop).
template <class T>
struct StageLoader {
  static constexpr int kAChunks = T::kBM / 4, kARowStep = T::kThreads / kAChunks;
  static constexpr int kBChunks = T::kBN / 4, kBRowStep = T::kThreads / kBChunks;
  /// Index pairs a thread copies per stage, at most: groups * w_s / 2 <= (BM / 16) * 32.
  static constexpr int kIdxCopies = (2 * T::kBM + T::kThreads - 1) / T::kThreads;

  const float* a_src;     ///< the thread's first A chunk of stage 0
  int64_t a_stage;        ///< floats between the A chunks of consecutive stages (w_s * rows_pad)
  int64_t a_row_step;     ///< floats between the thread's A rows (kARowStep * rows_pad)
  int a_dst, a_u0;        ///< byte offset in the A buffer, first slot row
  const uint16_t* i_src[kIdxCopies];  ///< the thread's index pairs in stage 0 (or nullptr)
  int i_dst[kIdxCopies];              ///< their byte offsets in the index buffer
  int i_pairs, i_total;               ///< pairs per group and stage, pairs of the block
  const float* b_col;     ///< B + n0 + 4 * (thread's chunk) (row-major B)
  int64_t b_row_step;     ///< floats between the thread's B rows (kBRowStep * ldb)
  int b_dst, b_r0;        ///< byte offset in the B buffer of the first row, first row
  bool b_fast_cols;       ///< the block's BN columns lie inside n and B allows 16-byte copies

  __device__ __forceinline__ void init(const SpmmArgs& a, int64_t m0, int64_t n0, int groups,
                                       bool b_vec4) {
    const int tid = threadIdx.x;
    const int w_s = a.w_s;
    const int ca = tid % kAChunks;
    a_u0 = tid / kAChunks;
    a_src = a.a_t + static_cast<int64_t>(a_u0) * a.rows_pad + m0 + ca * 4;
    a_stage = static_cast<int64_t>(w_s) * a.rows_pad;
    a_row_step = static_cast<int64_t>(kARowStep) * a.rows_pad;
    a_dst = (a_u0 * T::kBM + ca * 4) * 4;
    const int pairs = w_s / 2;
    i_pairs = pairs;
    i_total = groups * pairs;
    const uint16_t* i_base = a.ridx + (m0 / a.l) * a.kc_pad;
#pragma unroll
    for (int j = 0; j < kIdxCopies; ++j) {
      const int i = tid + j * T::kThreads;
      const int g = i / pairs, p = i - g * pairs;
      i_src[j] = i < groups * pairs ? i_base + g * a.kc_pad + 2 * p : nullptr;
      i_dst[j] = (g * w_s + 2 * p) * 2;
    }
    const int cb = tid % kBChunks;
    b_r0 = tid / kBChunks;
    b_col = static_cast<const float*>(a.B.ptr) + n0 + cb * 4;
    b_row_step = static_cast<int64_t>(kBRowStep) * a.B.ld;
    b_dst = (b_r0 * T::kBRowStride + cb * 4) * 4;
    b_fast_cols = b_vec4 && n0 + T::kBN <= a.n;
  }
};

/// Issues the copies of one stage into `sb`. Packing: `rows` / `col_info` are this stage's list
/// (read from the previous stage's buffer, or from global memory for the first stage), and the
/// next stage's list is copied along into `sb`. A row-major B whose block columns lie inside n
/// (16-byte aligned) takes the lean path: 16-byte copies at precomputed addresses, no
/// predicates (every packed row is a kept row, so inside k; a non-packed stage takes it when all
/// its k_s rows are inside k). The rest (the last non-packed stage, the n edge, unaligned or
/// column-major B) takes the general path with zero-fill.
template <class T>
__device__ __forceinline__ void load_stage(const SpmmArgs& a, const StageLoader<T>& ld,
                                           const StageBuffer& sb, int stage, int64_t m0,
                                           int64_t n0, bool b_row_major, bool b_vec4, int rows,
                                           const uint16_t* col_info, bool col_info_shared) {
  using L = StageLoader<T>;
  const int tid = threadIdx.x;
  const int w_s = a.w_s;

  // A values: w_s rows of BM floats, slot-major in the plan (padded: no predicates).
  {
    const float* src = ld.a_src + stage * ld.a_stage;
    unsigned dst = smem_address(sb.a) + ld.a_dst;
    for (int u = ld.a_u0; u < w_s; u += L::kARowStep) {
      asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src) : "memory");
      src += ld.a_row_step;
      dst += L::kARowStep * T::kBM * 4;
    }
  }

  // Stage-relative rows of the block's groups, copied as pairs.
  {
    const unsigned base = smem_address(sb.idx);
    const int offset = stage * w_s;
#pragma unroll
    for (int j = 0; j < L::kIdxCopies; ++j)
      if (ld.i_src[j] != nullptr)
        asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(base + ld.i_dst[j]),
                     "l"(ld.i_src[j] + offset)
                     : "memory");
    // More pairs than that only when one window pair exceeds kMaxSlotsPerStage slots (N > 32).
    const uint16_t* i_base = a.ridx + (m0 / a.l) * a.kc_pad + offset;
    for (int i = tid + L::kIdxCopies * T::kThreads; i < ld.i_total; i += T::kThreads) {
      const int g = i / ld.i_pairs, p = i - g * ld.i_pairs;
      cp_async4(sb.idx + g * w_s + 2 * p, i_base + g * a.kc_pad + 2 * p, 4);
    }
  }

  // The col_info list of the stage depth - 1 after this one (packing): its copies are issued
  // right after this stage's barrier.
  if (a.packing && stage + a.depth - 1 < a.stages) {
    const int64_t list = (m0 / kPackTileRows) * a.stages + stage + a.depth - 1;
    if (tid == 0) cp_async4(sb.next_rows, a.col_count + list, 4);
    const uint16_t* src = a.col_info + list * a.pack_capacity;
    for (int i = tid; i < a.pack_capacity / 2; i += T::kThreads)
      cp_async4(sb.next_list + 2 * i, src + 2 * i, 4);
  }

  const int64_t k_base = static_cast<int64_t>(stage) * a.k_s;
  if (b_row_major && ld.b_fast_cols && (col_info != nullptr || k_base + a.k_s <= a.k)) {
    const float* stage_src = ld.b_col + k_base * a.B.ld;
    unsigned dst = smem_address(sb.b) + ld.b_dst;
    if (col_info == nullptr) {
      const float* src = stage_src + ld.b_r0 * a.B.ld;
      for (int r = ld.b_r0; r < rows; r += L::kBRowStep) {
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src) : "memory");
        src += ld.b_row_step;
        dst += L::kBRowStep * T::kBRowStride * 4;
      }
    } else {
      const unsigned list = smem_address(col_info);
      const int64_t ldb = a.B.ld;
      for (int r = ld.b_r0; r < rows; r += L::kBRowStep) {
        const int kk = col_info_shared ? static_cast<int>(lds_u16(list + 2 * r)) : col_info[r];
        const float* src = stage_src + kk * ldb;
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(src) : "memory");
        dst += L::kBRowStep * T::kBRowStride * 4;
      }
    }
    return;
  }

  // General path: B rows (all k_s rows of the stage, or the pack tile's col_info list).
  const float* B = static_cast<const float*>(a.B.ptr);
  const int64_t ldb = a.B.ld;
  if (b_row_major) {
    // One row = BN / 4 chunks of 16 bytes; a thread copies one fixed chunk column.
    const int c = tid % L::kBChunks;
    const int64_t col = n0 + c * 4;
    const bool whole = b_vec4 && col + 4 <= a.n;  // a 16-byte copy; else 4-byte ones
    for (int r = tid / L::kBChunks; r < rows; r += L::kBRowStep) {
      const int64_t kk = k_base + (col_info ? col_info[r] : r);
      float* dst = sb.b + r * T::kBRowStride + c * 4;
      const bool row_ok = kk < a.k;
      if (whole) {
        cp_async16(dst, row_ok ? B + kk * ldb + col : B, row_ok ? 16 : 0);
      } else {
#pragma unroll
        for (int e = 0; e < 4; ++e) {
          const bool ok = row_ok && col + e < a.n;
          cp_async4(dst + e, ok ? B + kk * ldb + col + e : B, ok ? 4 : 0);
        }
      }
    }
  } else {
    // Column-major B: a warp copies 8 consecutive rows (one 32-byte sector per column) of 4
    // columns; with rows padded to BN + 4 floats the 32 shared words land in 32 distinct banks.
    constexpr int kColGroups = T::kBN / 4, kWarps = T::kThreads / 32;
    const int lane = tid & 31, r_lo = lane & 7, c_lo = lane >> 3;
    const int blocks = (rows + 7) / 8 * kColGroups;
    for (int blk = tid >> 5; blk < blocks; blk += kWarps) {
      const int r = (blk / kColGroups) * 8 + r_lo, c = (blk % kColGroups) * 4 + c_lo;
      if (r < rows) {
        const int64_t kk = k_base + (col_info ? col_info[r] : r);
        const int64_t col = n0 + c;
        const bool ok = kk < a.k && col < a.n;
        cp_async4(sb.b + r * T::kBRowStride + c, ok ? B + kk + col * ldb : B, ok ? 4 : 0);
      }
    }
  }
}

template <class T>
__device__ __forceinline__ void outer_product(float (&acc)[T::kTM][T::kTN],
                                              const float (&av)[T::kTM],
                                              const float (&bv)[T::kTN]) {
#pragma unroll
  for (int i = 0; i < T::kTM; ++i)
#pragma unroll
    for (int j = 0; j < T::kTN; ++j) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
}

__device__ __forceinline__ void lds128(float* dst, unsigned addr) {
  asm volatile("ld.shared.v4.f32 {%0, %1, %2, %3}, [%4];\n"
               : "=f"(dst[0]), "=f"(dst[1]), "=f"(dst[2]), "=f"(dst[3])
               : "r"(addr));
}
__device__ __forceinline__ uint32_t lds32(unsigned addr) {
  uint32_t v;
  asm volatile("ld.shared.u32 %0, [%1];\n" : "=r"(v) : "r"(addr));
  return v;
}
/// A 16-bit stage-relative row, zero-extended by the load itself (a 32-bit load of a pair needs a
/// shift or mask per half on top of the multiply-add).
__device__ __forceinline__ uint32_t lds16(unsigned addr) {
  uint32_t v;
  asm volatile("ld.shared.u16 %0, [%1];\n" : "=r"(v) : "r"(addr));
  return v;
}

template <class T>
__device__ __forceinline__ void load_a_frag(float (&dst)[T::kTM], unsigned addr) {
#pragma unroll
  for (int i = 0; i < T::kTM; i += 4) lds128(dst + i, addr + 4 * i);
}
template <class T>
__device__ __forceinline__ void load_b_frag(float (&dst)[T::kTN], unsigned addr) {
#pragma unroll
  for (int c = 0; c < T::kChunks; ++c) lds128(dst + 4 * c, addr + 4 * c * T::kChunkStride);
}

/// The thread inner kernel over one stage (the paper's SMBlock, Listing 4): the fragments of the
/// next slot are loaded while the current slot's TM * TN FFMA run (two register sets, slots taken
/// in pairs: w_s is even), and the next pair of rows is read one pair ahead.
///
/// Every non-FFMA instruction costs an FFMA issue slot, so the loop works on 32-bit shared
/// addresses: a slot's B row address is one 16-bit shared load of its row and one multiply-add by
/// the row pitch onto the thread's column base (the pointer form took three instructions, a
/// 32-bit load of a row pair three per slot with its shift and mask), A addresses are immediates
/// off one register. The lookahead reads past the
/// pair / slot ends without clamping: one pair past a group's indices is the next group's first
/// pair, or the 4 zeroed bytes that end the index region (row 0), and two slots past the last A
/// row is the start of the B region — valid shared memory whose values the last iteration loads
/// but never uses.
/// compute_stage without a hook (below).
struct NoStageHook {
  __device__ void operator()(uint32_t) const {}
};

/// `Hook`: called once the thread's last shared-memory load of the stage has returned, before
/// the last slot's FFMA (with 0 computed from the last loaded values, so that whatever the hook
/// issues cannot run ahead of those loads); the tensor-copy kernel counts the warp done with the
/// buffer there, and the count's latency hides behind that slot's FFMA.
template <class T, int kPitchFloats = T::kBRowStride, class Hook = NoStageHook>
__device__ __forceinline__ void compute_stage(const StageBuffer& sb, int w_s, int ty, int tx,
                                              int group, float (&acc)[T::kTM][T::kTN],
                                              Hook hook = Hook{}) {
  constexpr unsigned kPitch = kPitchFloats * 4;  // bytes per B row in shared memory
  constexpr unsigned kSlot = T::kBM * 4;           // bytes per A slot row
  unsigned as = smem_address(sb.a) + ty * T::kTM * 4;
  // The loop bound and the column base go through a (trivial) shuffle, which ptxas does not
  // re-execute: near its register limit it otherwise recomputes them from the thread and buffer
  // indices in every iteration of the loop below (four to six instructions per four slots).
  const unsigned lane = threadIdx.x & 31;
  const unsigned a_end = __shfl_sync(0xFFFFFFFFu, as + w_s * kSlot, lane);
  const unsigned bs = __shfl_sync(0xFFFFFFFFu, smem_address(sb.b) + tx * 16, lane);
  unsigned rows = smem_address(sb.idx) + group * w_s * 2;
  float a0[T::kTM], a1[T::kTM], b0[T::kTN], b1[T::kTN];
  uint32_t hi = lds16(rows + 2);
  load_a_frag<T>(a0, as);
  load_b_frag<T>(b0, bs + lds16(rows) * kPitch);
  // One pair of slots: slot 2i + 1's fragments load while slot 2i's FFMA run, then slot 2i + 2's
  // while 2i + 1's run.
  const auto pair_step = [&]() {
    rows += 4;
    const uint32_t next_lo = lds16(rows);
    load_a_frag<T>(a1, as + kSlot);
    load_b_frag<T>(b1, bs + hi * kPitch);
    outer_product<T>(acc, a0, b0);
    load_a_frag<T>(a0, as + 2 * kSlot);
    load_b_frag<T>(b0, bs + next_lo * kPitch);
    // Loaded here, not with next_lo: one row register live at a time, as with a 32-bit pair
    // (one more register made ptxas recompute the column base in the loop at 128 registers).
    hi = lds16(rows + 2);
    outer_product<T>(acc, a1, b1);
    as += 2 * kSlot;
  };
  if constexpr (std::is_same_v<Hook, NoStageHook>) {
    // An odd number of pairs (w_s = 30, 22, ...) takes one first, so that the loop runs two
    // pairs per iteration without an exit test between them.
    if ((w_s / 2) & 1) pair_step();
    while (as < a_end) {
      pair_step();
      pair_step();
    }
  } else {
    // The last pair apart (the hook between its two slots, no lookahead loads after it); an even
    // number of pairs takes one first, so that the loop before it runs two per iteration.
    if (w_s < 2) {
      hook(0u);
      return;
    }
    const unsigned a_last = a_end - 2 * kSlot;
    if (((w_s / 2) & 1) == 0) pair_step();
    while (as < a_last) {
      pair_step();
      pair_step();
    }
    load_a_frag<T>(a1, as + kSlot);
    load_b_frag<T>(b1, bs + hi * kPitch);
    outer_product<T>(acc, a0, b0);
    uint32_t zero;
    asm volatile("{\n.reg .b32 t;\nor.b32 t, %1, %2;\nand.b32 %0, t, 0;\n}\n"
                 : "=r"(zero)
                 : "r"(__float_as_uint(a1[T::kTM - 1])), "r"(__float_as_uint(b1[T::kTN - 1])));
    hook(zero);
    outer_product<T>(acc, a1, b1);
  }
}

/// The epilogue: the thread's TM x TN outputs (rows r0 .. r0 + TM - 1; column c of its chunk q is
/// c0 + q * kChunkStride + c) to C with alpha, the plan's fused epilogue and beta, or (split-K:
/// raw partial sums) to the workspace, whose reduction applies them once.
template <class T>
__device__ __forceinline__ void store_tile(const SpmmArgs& a, const float (&acc)[T::kTM][T::kTN],
                                           int64_t r0, int64_t c0) {
  const bool c_row_major = a.C.order == SPX_ORDER_ROW;
  if (a.split > 1) {
    float* ws = a.workspace + static_cast<int64_t>(blockIdx.z) * a.m * a.n;
#pragma unroll
    for (int i = 0; i < T::kTM; ++i)
#pragma unroll
      for (int j = 0; j < T::kTN; ++j) {
        const int64_t r = r0 + i, col = c0 + (j / 4) * T::kChunkStride + (j % 4);
        if (r < a.m && col < a.n) ws[c_row_major ? r * a.n + col : r + col * a.m] = acc[i][j];
      }
    return;
  }
  const float alpha = alpha_float(a.scalars), beta = beta_float(a.scalars);
  const Epilogue& ep = a.scalars.epilogue;
  float* C = static_cast<float*>(a.C.ptr);
  const int64_t ldc = a.C.ld;
  // 16-byte stores where C allows them: 4 consecutive columns of a row (row-major C) or 4
  // consecutive rows of a column (column-major C); a warp's store then fills whole sectors.
  const bool vec = ldc % 4 == 0 && reinterpret_cast<uintptr_t>(C) % 16 == 0;
  if (c_row_major) {
#pragma unroll
    for (int i = 0; i < T::kTM; ++i) {
      const int64_t r = r0 + i;
      if (r >= a.m) continue;
#pragma unroll
      for (int q = 0; q < T::kChunks; ++q) {
        const int64_t col = c0 + q * T::kChunkStride;
        float* out = C + r * ldc + col;
        if (vec && col + 4 <= a.n) {
          float4 v = make_float4(alpha * acc[i][4 * q], alpha * acc[i][4 * q + 1],
                                 alpha * acc[i][4 * q + 2], alpha * acc[i][4 * q + 3]);
          if (ep.on) {
            v.x = apply_epilogue(ep, r, v.x);
            v.y = apply_epilogue(ep, r, v.y);
            v.z = apply_epilogue(ep, r, v.z);
            v.w = apply_epilogue(ep, r, v.w);
          }
          if (beta != 0.0f) {
            const float4 o = *reinterpret_cast<const float4*>(out);
            v = make_float4(fmaf(beta, o.x, v.x), fmaf(beta, o.y, v.y), fmaf(beta, o.z, v.z),
                            fmaf(beta, o.w, v.w));
          }
          *reinterpret_cast<float4*>(out) = v;
        } else {
#pragma unroll
          for (int e = 0; e < 4; ++e)
            if (col + e < a.n) {
              float v = apply_epilogue(ep, r, alpha * acc[i][4 * q + e]);
              if (beta != 0.0f) v = fmaf(beta, out[e], v);
              out[e] = v;
            }
        }
      }
    }
  } else {
#pragma unroll
    for (int j = 0; j < T::kTN; ++j) {
      const int64_t col = c0 + (j / 4) * T::kChunkStride + (j % 4);
      if (col >= a.n) continue;
#pragma unroll
      for (int i = 0; i < T::kTM; i += 4) {
        const int64_t r = r0 + i;
        float* out = C + r + col * ldc;
        if (vec && r + 4 <= a.m) {
          float4 v = make_float4(alpha * acc[i][j], alpha * acc[i + 1][j], alpha * acc[i + 2][j],
                                 alpha * acc[i + 3][j]);
          if (ep.on) {
            v.x = apply_epilogue(ep, r, v.x);
            v.y = apply_epilogue(ep, r + 1, v.y);
            v.z = apply_epilogue(ep, r + 2, v.z);
            v.w = apply_epilogue(ep, r + 3, v.w);
          }
          if (beta != 0.0f) {
            const float4 o = *reinterpret_cast<const float4*>(out);
            v = make_float4(fmaf(beta, o.x, v.x), fmaf(beta, o.y, v.y), fmaf(beta, o.z, v.z),
                            fmaf(beta, o.w, v.w));
          }
          *reinterpret_cast<float4*>(out) = v;
        } else {
#pragma unroll
          for (int e = 0; e < 4; ++e)
            if (r + e < a.m) {
              float v = apply_epilogue(ep, r + e, alpha * acc[i + e][j]);
              if (beta != 0.0f) v = fmaf(beta, out[e], v);
              out[e] = v;
            }
        }
      }
    }
  }
}

template <class T>
__global__ void __launch_bounds__(T::kThreads, T::kMinBlocks) spmm_kernel(const SpmmArgs a) {
  extern __shared__ __align__(16) unsigned char smem[];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int ty = (warp / T::kWarpsX) * T::kWarpRows + lane / T::kWarpCols;
  const int tx = (warp % T::kWarpsX) * T::kWarpCols + lane % T::kWarpCols;
  const int64_t m0 = static_cast<int64_t>(blockIdx.x) * T::kBM;
  const int64_t n0 = static_cast<int64_t>(blockIdx.y) * T::kBN;
  const int groups = T::kBM >= a.l ? static_cast<int>(T::kBM / a.l) : 1;
  const int group = static_cast<int>((ty * T::kTM) / a.l);  // the thread's group in the block

  const int a_bytes = align16_int(a.w_s * T::kBM * 4);
  const int b_bytes = align16_int(a.rows_s * T::kBRowStride * 4);
  const int i_bytes = align16_int(groups * a.w_s * 2 + 4);  // + 4 zeroed bytes: see compute_stage
  const int c_bytes = a.packing ? 16 + align16_int(a.pack_capacity * 2) : 0;
  const int stage_bytes = a_bytes + b_bytes + i_bytes + c_bytes;
  auto buffer = [&](int which) {
    unsigned char* base = smem + which * stage_bytes;
    unsigned char* ci = base + a_bytes + b_bytes + i_bytes;
    return StageBuffer{reinterpret_cast<float*>(base), reinterpret_cast<float*>(base + a_bytes),
                       reinterpret_cast<uint16_t*>(base + a_bytes + b_bytes),
                       reinterpret_cast<int32_t*>(ci), reinterpret_cast<uint16_t*>(ci + 16)};
  };

  const bool b_row_major = a.B.order == SPX_ORDER_ROW;
  const bool b_vec4 =
      b_row_major && (a.B.ld % 4 == 0) && (reinterpret_cast<uintptr_t>(a.B.ptr) % 16 == 0);
  const int s_begin = blockIdx.z * a.stages_per_split;
  const int s_end = min(a.stages, s_begin + a.stages_per_split);

  float acc[T::kTM][T::kTN];
#pragma unroll
  for (int i = 0; i < T::kTM; ++i)
#pragma unroll
    for (int j = 0; j < T::kTN; ++j) acc[i][j] = 0.0f;

  if (threadIdx.x < a.depth) {
    // The 4 bytes after the last group's indices: the lookahead of compute_stage reads them as
    // row 0. Written once; the barrier at the top of the first stage orders them before any use.
    *reinterpret_cast<uint32_t*>(buffer(threadIdx.x).idx + groups * a.w_s) = 0u;
  }

  StageLoader<T> loader;
  loader.init(a, m0, n0, groups, b_vec4);

  // Pipeline: `ahead` = depth - 1 stages in flight beyond the one being computed. One commit
  // group per stage (empty past the end, so that the group count stays aligned with the stages)
  // and one barrier per stage. A packed stage's buffer carries the col_info list of the stage
  // `ahead` after it: the stage whose copies are issued right after its barrier.
  const int depth = a.depth, ahead = depth - 1;
  if (s_begin < s_end) {
    for (int i = 0; i < ahead; ++i) {
      const int st = s_begin + i;
      if (st < s_end) {
        int rows = a.k_s;
        const uint16_t* col_info = nullptr;
        if (a.packing) {
          const int64_t list = (m0 / kPackTileRows) * a.stages + st;
          rows = __ldg(a.col_count + list);
          col_info = a.col_info + list * a.pack_capacity;
        }
        load_stage<T>(a, loader, buffer(i), st, m0, n0, b_row_major, b_vec4, rows, col_info,
                      false);
      }
      cp_async_commit();
    }
    int cur = 0, fill = ahead;  // buffers of stage s and of stage s + ahead
    for (int s = s_begin; s < s_end; ++s) {
      const StageBuffer here = buffer(cur);
      if (depth == 3)
        cp_async_wait<1>();
      else
        cp_async_wait<0>();
      // One barrier per stage: stage s has landed for every thread, and every thread is done
      // with stage s - 1, whose buffer the copies of stage s + ahead now overwrite.
      __syncthreads();
      if (s + ahead < s_end) {
        int rows = a.k_s;
        const uint16_t* col_info = nullptr;
        if (a.packing) {
          rows = *here.next_rows;
          col_info = here.next_list;
        }
        load_stage<T>(a, loader, buffer(fill), s + ahead, m0, n0, b_row_major, b_vec4, rows,
                      col_info, true);
      }
      cp_async_commit();
      compute_stage<T>(here, a.w_s, ty, tx, group, acc);
      cur = cur + 1 == depth ? 0 : cur + 1;
      fill = fill + 1 == depth ? 0 : fill + 1;
    }
  }

  store_tile<T>(a, acc, m0 + ty * T::kTM, n0 + tx * 4);
}

/// Launches one tile's kernel (instantiated in spmm_tiles_*.cu).
template <class T>
cudaError_t launch_tile(const SpmmArgs& a, int64_t smem_bytes, cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>((a.m + T::kBM - 1) / T::kBM),
                  static_cast<unsigned>((a.n + T::kBN - 1) / T::kBN),
                  static_cast<unsigned>(a.split));
  spmm_kernel<T><<<grid, T::kThreads, static_cast<size_t>(smem_bytes), stream>>>(a);
  return cudaGetLastError();
}

template <class T>
cudaError_t load_tile(size_t smem_optin) {
  cudaFuncAttributes attr;
  cudaError_t err = cudaFuncGetAttributes(&attr, spmm_kernel<T>);
  if (err != cudaSuccess) return err;
  err = cudaFuncSetAttribute(spmm_kernel<T>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                             static_cast<int>(smem_optin));
  if (err != cudaSuccess) return err;
  return cudaFuncSetAttribute(spmm_kernel<T>, cudaFuncAttributePreferredSharedMemoryCarveout,
                              cudaSharedmemCarveoutMaxShared);
}

}  // namespace spx::kernels::nm::detail
