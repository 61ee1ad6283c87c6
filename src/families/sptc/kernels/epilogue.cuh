// The SpTC kernels' epilogue: C written from each warp's fragments through a shared-memory
// region of its own, one 16-row slice at a time, in 16-byte vectors along C's contiguous
// dimension where alignment allows; rows through the plan's row map (clustered row order).
// Shared by the mma.sync kernels (spmm_kernel.cuh) and the warpgroup kernel (spmm_wgmma.cu).
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "device/elements.cuh"
#include "families/sptc/kernels/config.hpp"
#include "families/sptc/kernels/launch.cuh"

namespace spx::kernels::sptc::detail {

/// epilogue(alpha * v) + beta * C[li] for `count` (<= 8) consecutive elements of C's contiguous
/// dimension starting at linear index li, one element at a time (tails, unaligned C). Element e
/// is in row `row + e * row_step` of C (row_step: 0 for row-major C, 1 for column-major), whose
/// fused epilogue (device/epilogue.cuh) it gets.
__device__ __forceinline__ void store_scalars(const DenseView& C, const Epilogue& ep, int64_t row,
                                              int row_step, int64_t li, const float* v, int count,
                                              float alpha, float beta) {
#pragma unroll
  for (int e = 0; e < 8; ++e) {  // static indices keep v in registers
    if (e >= count) break;
    float x = apply_epilogue(ep, row + e * row_step, alpha * v[e]);
    if (beta != 0.0f) x = fmaf(beta, load_float(C.ptr, C.type, li + e), x);
    store_float(C.ptr, C.type, li + e, x);
  }
}

/// The same for one 16-byte vector (4 fp32 or 8 fp16 / bf16 elements: kESize 4 / 2) at a
/// 16-byte aligned li.
template <int kESize>
__device__ __forceinline__ void store_vector(const DenseView& C, const Epilogue& ep, int64_t row,
                                             int row_step, int64_t li, const float* v,
                                             float alpha, float beta) {
  if constexpr (kESize == 4) {
    float4* dst = reinterpret_cast<float4*>(static_cast<float*>(C.ptr) + li);
    float4 x = make_float4(alpha * v[0], alpha * v[1], alpha * v[2], alpha * v[3]);
    if (ep.on) {
      x.x = apply_epilogue(ep, row, x.x);
      x.y = apply_epilogue(ep, row + row_step, x.y);
      x.z = apply_epilogue(ep, row + 2 * row_step, x.z);
      x.w = apply_epilogue(ep, row + 3 * row_step, x.w);
    }
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
    if (ep.on) {
#pragma unroll
      for (int e = 0; e < 8; ++e) x[e] = apply_epilogue(ep, row + e * row_step, x[e]);
    }
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

/// One warp writes its staged 16-row slice of C (the rows `rows` names from base, columns c0 ..
/// c0 + kWarpN): epilogue(alpha * slice) + beta * C (C never read when beta == 0), clipped to m x n. Lanes walk
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
  const Epilogue& ep = p.scalars.epilogue;
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
        store_vector<kESize>(C, ep, r, 0, li, v, alpha, beta);
      else
        store_scalars(C, ep, r, 0, li, v, static_cast<int>(cols - i0 < vec ? cols - i0 : vec),
                      alpha, beta);
    } else {
      if (o >= cols) continue;
      const int64_t c = c0 + o;
      const int64_t r0 = row_at(rows, base, i0);
      bool together = r0 >= 0 && vec_ok && r0 % vec == 0;
#pragma unroll
      for (int e = 1; e < vec; ++e) together = together && row_at(rows, base, i0 + e) == r0 + e;
      if (together) {
        store_vector<kESize>(C, ep, r0, 1, linear(C, r0, c), v, alpha, beta);
      } else {
#pragma unroll
        for (int e = 0; e < vec; ++e) {
          const int64_t r = row_at(rows, base, i0 + e);
          if (r >= 0) store_scalars(C, ep, r, 0, linear(C, r, c), v + e, 1, alpha, beta);
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

}  // namespace spx::kernels::sptc::detail
