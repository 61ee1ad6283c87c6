// The SR-BCRS SDDMM kernel (Magicube's SDDMM, computed transposed for m16n8k32). Included by the
// sddmm_l*r*.cu files, each instantiating one (A bits, B bits) pair. README.md ("SDDMM") has the
// design; the numbers are in sddmm_config.hpp.
//
// One warp = one task = one vector-row of C (rows vrow * V .. + V - 1) x one stride of 32 of its
// vectors (slots; padding slots have column -1). Per step of 64 values of k, lane (g, t) =
// (lane / 4, lane % 4) reads positions 16t .. 16t+15 of the step
//   * of A's row vrow * V + g (g < V; rows g >= V are zero): the n = 8 side of the mma,
//   * of B's columns col[16i + g] and col[16i + 8 + g] for the two m16 tiles i: the m = 16 side,
// both k-contiguous (A row-major, B column-major), so every fragment is one 16-byte copy (8-bit;
// 8 bytes for 4-bit, 32 for 16-bit) that needs no transpose: cp.async into the lane's own slots
// of the warp's shared-memory ring (several steps in flight), then read back into registers.
// mma h (h = 0, 1) of a step takes positions 16t + 8h .. + 7: its k-quad 0 register holds four of
// them, its k-quad 1 register the other four (the PTX fragment tables in device.cuh: k = 4t + j
// and k = 16 + 4t + j of lane (g, t)). Both operands put the same positions in the same register
// bytes, which is all the reduction needs; the order inside is the cheapest one for B (natural for
// 8- and 16-bit B, (0, 2, 4, 6 | 1, 3, 5, 7) for 4-bit B, the nibble order), and A follows B.
#pragma once

#include <cuda_fp16.h>

#include <cstdint>

#include "device/elements.cuh"
#include "families/srbcrs/kernels/device.cuh"
#include "families/srbcrs/kernels/lane_map.hpp"
#include "families/srbcrs/kernels/sddmm_config.hpp"
#include "families/srbcrs/kernels/sddmm_lane_map.hpp"
#include "families/srbcrs/kernels/sddmm_variants.hpp"

namespace spx::kernels::srbcrs::detail {

/// Copies a lane's fragment (16 positions of `Bits`, 8 / 16 / 32 bytes) into shared memory:
/// `bytes` of them from `src` (0: none, the fragment is zero), zeros after. Through L1 (.ca):
/// B columns and A rows are gathered again by other warps.
template <int Bits>
__device__ __forceinline__ void copy_fragment(uint8_t* dst, const uint8_t* src, int bytes) {
  constexpr int kBytes = 16 * Bits / 8;
  if constexpr (kBytes == 8) {
    cp_async_ca<8>(dst, src, bytes);
  } else {
#pragma unroll
    for (int q = 0; q < kBytes / 16; ++q) {
      const int left = bytes - 16 * q;
      cp_async_ca<16>(dst + 16 * q, left > 0 ? src + 16 * q : src, left > 16 ? 16 : (left > 0 ? left : 0));
    }
  }
}

/// Reads a lane's fragment back from shared memory; a 4-bit fragment with an odd number of
/// positions inside k clears the nibble past k (cp.async copies whole bytes).
template <int Bits>
__device__ __forceinline__ void read_fragment(const uint8_t* src, int positions, map::Raw<Bits>& r) {
  if constexpr (Bits == 4) {
    const uint2 x = lds64(src);
    r.w[0] = x.x;
    r.w[1] = x.y;
    if (positions & 1) {
      const int last = positions >> 1;  // the byte holding position `positions - 1` and past k
#pragma unroll
      for (int b = 0; b < 8; ++b)
        if (b == last) r.w[b >> 2] &= ~(0xF0u << (8 * (b & 3)));
    }
  } else {
#pragma unroll
    for (int q = 0; q < Bits / 8; ++q) {
      const uint4 x = *reinterpret_cast<const uint4*>(src + 16 * q);
      r.w[4 * q] = x.x;
      r.w[4 * q + 1] = x.y;
      r.w[4 * q + 2] = x.z;
      r.w[4 * q + 3] = x.w;
    }
  }
}

/// The accumulators of a lane: per m16 tile, the mma's d[0..3]; L16-R16 keeps three of them
/// (high x high, the two mixed products, low x low), combined with shifts at the end.
template <bool Wide>
struct Acc {
  int32_t d[Wide ? 3 : 1][SddmmTile::kMmaTiles][4];
};

/// The mma of one step: a: this lane's A fragment, b[i][h']: its B fragments (tile i, column
/// 16i + 8h' + g).
template <int ABits, int BBits, bool ASigned, bool BSigned>
__device__ __forceinline__ void step_mma(const map::Raw<ABits>& a,
                                         const map::Raw<BBits> (&b)[SddmmTile::kMmaTiles][2],
                                         Acc<ABits == 16>& acc) {
  using T = SddmmTile;
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    if constexpr (ABits == 16) {
      uint32_t ahi[2], alo[2];
      map::slices16(a, h, ahi, alo);
#pragma unroll
      for (int i = 0; i < T::kMmaTiles; ++i) {
        uint32_t b0hi[2], b0lo[2], b1hi[2], b1lo[2];
        map::slices16(b[i][0], h, b0hi, b0lo);
        map::slices16(b[i][1], h, b1hi, b1lo);
        const uint32_t bhi[4] = {b0hi[0], b1hi[0], b0hi[1], b1hi[1]};
        const uint32_t blo[4] = {b0lo[0], b1lo[0], b0lo[1], b1lo[1]};
        mma_m16n8k32<true, true>(acc.d[0][i], bhi, ahi[0], ahi[1]);
        mma_m16n8k32<true, false>(acc.d[1][i], bhi, alo[0], alo[1]);
        mma_m16n8k32<false, true>(acc.d[1][i], blo, ahi[0], ahi[1]);
        mma_m16n8k32<false, false>(acc.d[2][i], blo, alo[0], alo[1]);
      }
    } else {
      constexpr bool kInterleaved = BBits == 4;
      uint32_t a0, a1;
      map::quads<ABits, ASigned, kInterleaved>(a, h, a0, a1);
#pragma unroll
      for (int i = 0; i < T::kMmaTiles; ++i) {
        uint32_t c0q0, c0q1, c1q0, c1q1;  // columns g and g + 8 of the tile
        map::quads<BBits, BSigned, kInterleaved>(b[i][0], h, c0q0, c0q1);
        map::quads<BBits, BSigned, kInterleaved>(b[i][1], h, c1q0, c1q1);
        // Register order of the mma's A: (row g, k-quad 0), (row g+8, k-quad 0), (row g, k-quad
        // 1), (row g+8, k-quad 1).
        const uint32_t bm[4] = {c0q0, c1q0, c0q1, c1q1};
        mma_m16n8k32<BSigned, ASigned>(acc.d[0][i], bm, a0, a1);
      }
    }
  }
}

/// Writes one output value: alpha * acc + beta * old (old read only when beta != 0), or 0 into
/// an SR-BCRS padding element.
__device__ __forceinline__ void store_value(const SddmmParams& p, int64_t e, int32_t acc,
                                            bool real) {
  if (p.c_type == SPX_R_32I) {
    int32_t* out = static_cast<int32_t*>(p.c_values);
    if (real)
      store_result_int(out, e, acc, p.scalars);
    else
      out[e] = 0;
  } else if (real) {
    store_result_float(p.c_values, p.c_type, e, static_cast<float>(acc), p.scalars);
  } else {
    store_float(p.c_values, p.c_type, e, 0.0f);
  }
}

/// Shared memory of one warp's stage (async pipeline): the lane fragments of A (32 lanes) and of
/// the 2 x kMmaTiles B columns, each lane's fragment contiguous (conflict-free 8- / 16-byte reads).
template <int ABits, int BBits>
struct AsyncStage {
  static constexpr int kA = 32 * SddmmTile::lane_bytes(ABits);
  static constexpr int kB = 32 * SddmmTile::lane_bytes(BBits);
  static constexpr int kBytes = kA + 2 * SddmmTile::kMmaTiles * kB;
  /// Steps in flight per warp: 4 for 8- and 4-bit operands, 2 for 16-bit (twice the bytes).
  static constexpr int kStages = ABits == 16 ? 2 : 4;
  static_assert(SddmmTile::kWarps * kStages * kBytes <= 48 * 1024,
                "the static shared memory of a block must stay under 48 KiB");
};

template <int ABits, int BBits, bool ASigned, bool BSigned>
__global__ void __launch_bounds__(SddmmTile::kThreads) sddmm_kernel(const SddmmParams p) {
  using T = SddmmTile;
  using Stage = AsyncStage<ABits, BBits>;
  constexpr bool kWide = ABits == 16;
  static_assert(!kWide || BBits == 16, "16-bit A goes with 16-bit B (L16-R16)");
  constexpr int kAStep = T::step_bytes(ABits), kBStep = T::step_bytes(BBits);
  __shared__ __align__(16) uint8_t smem[T::kWarps * Stage::kStages * Stage::kBytes];

  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int64_t task = static_cast<int64_t>(blockIdx.x) * T::kWarps + warp;
  if (task >= p.tasks) return;  // the whole warp
  const int V = p.vec_len;
  const int64_t vrow = __ldg(p.task_row + task);
  const int64_t slot0 = task * T::kSlots;

  // This lane's operand rows: A row vrow * V + g, B columns of slots 16i + 8h + g.
  const uint8_t* a_row =
      g < V ? p.a + (vrow * V + g) * p.a_pitch + t * T::lane_bytes(ABits) : nullptr;
  int32_t col[T::kMmaTiles][2], vec[T::kMmaTiles][2];
  const uint8_t* b_col[T::kMmaTiles][2];
#pragma unroll
  for (int i = 0; i < T::kMmaTiles; ++i)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      col[i][h] = __ldg(p.col + slot0 + 16 * i + 8 * h + g);
      // C's vector of the slot (its own order), read now: its latency hides behind the product.
      vec[i][h] = p.srbcrs_output ? -1 : __ldg(p.vec_map + slot0 + 16 * i + 8 * h + g);
      b_col[i][h] = col[i][h] >= 0
                        ? p.b + static_cast<int64_t>(col[i][h]) * p.b_pitch +
                              t * T::lane_bytes(BBits)
                        : nullptr;
    }

  Acc<kWide> acc;
#pragma unroll
  for (int s = 0; s < (kWide ? 3 : 1); ++s)
#pragma unroll
    for (int i = 0; i < T::kMmaTiles; ++i)
      acc.d[s][i][0] = acc.d[s][i][1] = acc.d[s][i][2] = acc.d[s][i][3] = 0;

  // Positions of step s inside k for this lane (0..16).
  const auto positions_of = [&](int64_t s) {
    const int64_t left = p.k - s * T::kStepK - static_cast<int64_t>(t) * T::kLaneK;
    return left >= 16 ? 16 : (left > 0 ? static_cast<int>(left) : 0);
  };

  {
    // Algorithm 1 of the paper with cp.async: each warp streams its steps through a ring of
    // kStages shared-memory stages, all of them in flight (a stage is refilled as soon as it is
    // read). Every lane copies and later reads back only its own fragments: no barrier, not even
    // __syncwarp. k = 256 (4 steps) is one round trip.
    uint8_t* ring = smem + warp * Stage::kStages * Stage::kBytes;
    const int64_t steps = (p.k + T::kStepK - 1) / T::kStepK;
    const uint8_t* dummy = p.b;  // a valid address for the zero-filling copies (k > 0 here)
    const auto issue = [&](int64_t s) {
      uint8_t* stage = ring + (s % Stage::kStages) * Stage::kBytes;
      const int pos = positions_of(s);
      const int a_bytes = (pos * ABits + 7) / 8, b_bytes = (pos * BBits + 7) / 8;
      copy_fragment<ABits>(stage + lane * T::lane_bytes(ABits),
                           a_row ? a_row + s * kAStep : dummy, a_row ? a_bytes : 0);
#pragma unroll
      for (int i = 0; i < T::kMmaTiles; ++i)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const uint8_t* src = b_col[i][h];
          copy_fragment<BBits>(stage + Stage::kA + (2 * i + h) * Stage::kB +
                                   lane * T::lane_bytes(BBits),
                               src ? src + s * kBStep : dummy, src ? b_bytes : 0);
        }
    };
#pragma unroll
    for (int u = 0; u < Stage::kStages; ++u) {
      if (u < steps) issue(u);
      cp_async_commit();
    }
    for (int64_t s = 0; s < steps; ++s) {
      cp_async_wait<Stage::kStages - 1>();  // this lane's copies of step s have landed
      const uint8_t* stage = ring + (s % Stage::kStages) * Stage::kBytes;
      const int pos = positions_of(s);
      map::Raw<ABits> ra;
      map::Raw<BBits> rb[T::kMmaTiles][2];
      read_fragment<ABits>(stage + lane * T::lane_bytes(ABits), pos, ra);
#pragma unroll
      for (int i = 0; i < T::kMmaTiles; ++i)
#pragma unroll
        for (int h = 0; h < 2; ++h)
          read_fragment<BBits>(stage + Stage::kA + (2 * i + h) * Stage::kB +
                                   lane * T::lane_bytes(BBits),
                               pos, rb[i][h]);
      step_mma<ABits, BBits, ASigned, BSigned>(ra, rb, acc);
      // Stage s is in registers now (the mma could not issue before the reads returned, and the
      // lane's own shared-memory accesses stay in order): refill it with step s + kStages.
      if (s + Stage::kStages < steps) issue(s + Stage::kStages);
      cp_async_commit();
    }
  }

  // acc d[0], d[1]: slot 16i + g, rows 2t, 2t+1 of the vector; d[2], d[3]: slot 16i + 8 + g.
#pragma unroll
  for (int i = 0; i < T::kMmaTiles; ++i)
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int q = 16 * i + 8 * h + g;
      const bool real = col[i][h] >= 0;
      if (!real && !p.srbcrs_output) continue;  // C's own order has no padding to write
      int64_t base, v_step;
      if (p.srbcrs_output) {
        base = task * T::kSlots * V + q;  // stride `task`, row v at + 32 v
        v_step = T::kSlots;
      } else {
        base = static_cast<int64_t>(vec[i][h]) * V;
        v_step = 1;
      }
#pragma unroll
      for (int r = 0; r < 2; ++r) {
        const int v = 2 * t + r;
        if (v >= V) break;
        int32_t value;
        if constexpr (kWide) {
          // x = 2^16 hh + 2^8 (hl + lh) + ll, in wrapping int32 (exact modulo 2^32).
          value = static_cast<int32_t>((static_cast<uint32_t>(acc.d[0][i][2 * h + r]) << 16) +
                                       (static_cast<uint32_t>(acc.d[1][i][2 * h + r]) << 8) +
                                       static_cast<uint32_t>(acc.d[2][i][2 * h + r]));
        } else {
          value = acc.d[0][i][2 * h + r];
        }
        store_value(p, base + v * v_step, value, real);
      }
    }
}

template <int ABits, int BBits, bool ASigned, bool BSigned>
cudaError_t sddmm_launch_variant(const SddmmParams& p, cudaStream_t stream) {
  const int64_t blocks = (p.tasks + SddmmTile::kWarps - 1) / SddmmTile::kWarps;
  if (blocks == 0) return cudaSuccess;
  sddmm_kernel<ABits, BBits, ASigned, BSigned>
      <<<static_cast<unsigned>(blocks), SddmmTile::kThreads, 0, stream>>>(p);
  return cudaGetLastError();
}

template <int ABits, int BBits, bool ASigned, bool BSigned>
cudaError_t sddmm_load_variant() {
  cudaFuncAttributes attr;
  return cudaFuncGetAttributes(&attr, sddmm_kernel<ABits, BBits, ASigned, BSigned>);
}

/// The four signedness variants of one (A bits, B bits) pair as two plain functions
/// sddmm_launch_l<A>r<B> / sddmm_load_l<A>r<B> (declared in sddmm_variants.hpp).
#define SPX_SRBCRS_SDDMM_DEFINE_BITS(ABITS, BBITS)                                              \
  cudaError_t sddmm_launch_l##ABITS##r##BBITS(bool a_signed, bool b_signed,                     \
                                              const SddmmParams& p, cudaStream_t stream) {      \
    if (a_signed)                                                                               \
      return b_signed ? sddmm_launch_variant<ABITS, BBITS, true, true>(p, stream)               \
                      : sddmm_launch_variant<ABITS, BBITS, true, false>(p, stream);             \
    return b_signed ? sddmm_launch_variant<ABITS, BBITS, false, true>(p, stream)                \
                    : sddmm_launch_variant<ABITS, BBITS, false, false>(p, stream);              \
  }                                                                                             \
  cudaError_t sddmm_load_l##ABITS##r##BBITS(bool a_signed, bool b_signed) {                     \
    if (a_signed)                                                                               \
      return b_signed ? sddmm_load_variant<ABITS, BBITS, true, true>()                          \
                      : sddmm_load_variant<ABITS, BBITS, true, false>();                        \
    return b_signed ? sddmm_load_variant<ABITS, BBITS, false, true>()                           \
                    : sddmm_load_variant<ABITS, BBITS, false, false>();                         \
  }

}  // namespace spx::kernels::srbcrs::detail
