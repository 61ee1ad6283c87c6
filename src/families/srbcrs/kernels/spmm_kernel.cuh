// The SR-BCRS SpMM kernel (Magicube's algorithm, computed transposed for m16n8k32). Included by
// the spmm_*.cu files, each instantiating one kernel shape (A bits, B bits, path) for its
// signedness combinations. README.md has the design; the numbers are in config.hpp.
//
// Emulated precisions: a 16-bit A value is two int8 slices (low byte unsigned, high byte signed)
// laid out by the plan, one mma per slice and tile; a 16-bit B row chunk is 32 columns whose
// bytes the transpose below separates into a low (unsigned) and a high (signed) slice per tile.
// The partial products meet in the epilogue, shifted by 8 bits per higher slice, in wrapping
// int32. The native int4 path (sm_80) feeds 4-bit A and B to m16n8k64 over strides of 64.
//
// One warp = one vector-row (V rows of C) x 64 dense columns (32 for 16-bit B). Per stride of 32
// slots:
//   * its 32 column indices sit in the lanes' registers (lane p holds the index of load position
//     p), loaded kIndexAhead stages ahead;
//   * the 32 gathered B row chunks (64 int8 or int4 columns each) and the stride's V x 32 A values
//     are copied with cp.async into the warp's ring of kStages shared-memory stages (Algorithm 1
//     of the paper, with cp.async in place of the register staging): stage s + kStages - 1 is in
//     flight while stage s computes;
//   * lane (g, t) = (lane / 4, lane % 4) owns load positions 8t .. 8t+7: mma k = 4t + j holds
//     position 8t + j and k = 16 + 4t + j holds 8t + 4 + j (j < 4). Its sparse operand is the
//     8 consecutive bytes of A row g at positions 8t .. 8t+7 (int4: one word, unpacked lo/hi,
//     which is why the plan shuffles int4 column indices), its dense operand 8 columns of the 8
//     B rows at those positions, transposed 4 x 4 bytes at a time in registers;
//   * shared memory: load position 8t + j goes to row 4j + t of the stage, so the 4 rows a
//     warp-wide 8-byte load touches are consecutive; int8 rows (64 B) additionally swap their
//     16-byte chunk pairs when bit 1 of the row is set. Every shared load is conflict-free.
#pragma once

#include <cuda_fp16.h>

#include <cstdint>

#include "device/elements.cuh"
#include "families/srbcrs/kernels/config.hpp"
#include "families/srbcrs/kernels/device.cuh"
#include "families/srbcrs/kernels/lane_map.hpp"
#include "families/srbcrs/kernels/variants.hpp"

namespace spx::kernels::srbcrs::detail {

/// Writes the 2 x kCols outputs of a lane: rows row0 + vv (vv < rows_valid), columns col0 + e
/// (kCols = 8, or 4 for 16-bit B). Row-major C with aligned rows gets 16-byte (or, for 4 half
/// values, 8-byte) vector stores; everything else guarded scalar stores.
template <int kCols>
__device__ __forceinline__ void store_outputs(const KernelParams& p, int64_t row0, int rows_valid,
                                              int64_t col0, const int32_t (&out)[2][8]) {
  static_assert(kCols == 8 || kCols == 4, "a lane owns 8 or 4 consecutive columns");
  const DenseView& C = p.C;
  const bool row_major = C.order == SPX_ORDER_ROW;
  const bool full = col0 + kCols <= p.n;
  if (C.type == SPX_R_32I) {
    const int32_t alpha = alpha_int(p.scalars), beta = beta_int(p.scalars);
#pragma unroll
    for (int vv = 0; vv < 2; ++vv) {
      if (vv >= rows_valid) break;
      int32_t* base = static_cast<int32_t*>(C.ptr);
      if (row_major && full) {
        int32_t* dst = base + (row0 + vv) * C.ld + col0;
        if ((reinterpret_cast<uintptr_t>(dst) & 15) == 0) {
#pragma unroll
          for (int q = 0; q < kCols / 4; ++q) {
            int32_t v[4];
#pragma unroll
            for (int e = 0; e < 4; ++e) v[e] = wrap_mul(alpha, out[vv][4 * q + e]);
            if (beta != 0) {
              const int4 o = reinterpret_cast<const int4*>(dst)[q];
              const int32_t old[4] = {o.x, o.y, o.z, o.w};
#pragma unroll
              for (int e = 0; e < 4; ++e) v[e] = wrap_add(v[e], wrap_mul(beta, old[e]));
            }
            reinterpret_cast<int4*>(dst)[q] = make_int4(v[0], v[1], v[2], v[3]);
          }
          continue;
        }
      }
#pragma unroll
      for (int e = 0; e < kCols; ++e)
        if (col0 + e < p.n)
          store_result_int(base, linear(C, row0 + vv, col0 + e), out[vv][e], p.scalars);
    }
    return;
  }
  // Float C: the plan's fused epilogue of row row0 + vv (for int8 weights its scale is the
  // per-row dequantization scale) on alpha * the exact int32 sum, in fp32.
  const float alpha = alpha_float(p.scalars), beta = beta_float(p.scalars);
  const Epilogue& ep = p.scalars.epilogue;
#pragma unroll
  for (int vv = 0; vv < 2; ++vv) {
    if (vv >= rows_valid) break;
    if (row_major && full && C.type == SPX_R_32F) {
      float* dst = static_cast<float*>(C.ptr) + (row0 + vv) * C.ld + col0;
      if ((reinterpret_cast<uintptr_t>(dst) & 15) == 0) {
#pragma unroll
        for (int q = 0; q < kCols / 4; ++q) {
          float v[4];
#pragma unroll
          for (int e = 0; e < 4; ++e)
            v[e] = apply_epilogue(ep, row0 + vv, alpha * static_cast<float>(out[vv][4 * q + e]));
          if (beta != 0.0f) {
            const float4 o = reinterpret_cast<const float4*>(dst)[q];
            const float old[4] = {o.x, o.y, o.z, o.w};
#pragma unroll
            for (int e = 0; e < 4; ++e) v[e] = fmaf(beta, old[e], v[e]);
          }
          reinterpret_cast<float4*>(dst)[q] = make_float4(v[0], v[1], v[2], v[3]);
        }
        continue;
      }
    }
    if (row_major && full && C.type == SPX_R_16F) {
      __half* dst = static_cast<__half*>(C.ptr) + (row0 + vv) * C.ld + col0;
      constexpr int kBytes = kCols * 2;  // 16 or 8
      if ((reinterpret_cast<uintptr_t>(dst) & (kBytes - 1)) == 0) {
        float v[kCols];
#pragma unroll
        for (int e = 0; e < kCols; ++e)
          v[e] = apply_epilogue(ep, row0 + vv, alpha * static_cast<float>(out[vv][e]));
        uint32_t ow[kCols / 2];
        if (beta != 0.0f) {
          if constexpr (kCols == 8) {
            const uint4 o = *reinterpret_cast<const uint4*>(dst);
            ow[0] = o.x, ow[1] = o.y, ow[2] = o.z, ow[3] = o.w;
          } else {
            const uint2 o = *reinterpret_cast<const uint2*>(dst);
            ow[0] = o.x, ow[1] = o.y;
          }
#pragma unroll
          for (int w = 0; w < kCols / 2; ++w) {
            const float2 f = __half22float2(*reinterpret_cast<const __half2*>(&ow[w]));
            v[2 * w] = fmaf(beta, f.x, v[2 * w]);
            v[2 * w + 1] = fmaf(beta, f.y, v[2 * w + 1]);
          }
        }
        uint32_t packed[kCols / 2];
#pragma unroll
        for (int w = 0; w < kCols / 2; ++w) {
          const __half2 h =
              __halves2half2(__float2half_rn(v[2 * w]), __float2half_rn(v[2 * w + 1]));
          packed[w] = *reinterpret_cast<const uint32_t*>(&h);
        }
        if constexpr (kCols == 8)
          *reinterpret_cast<uint4*>(dst) = make_uint4(packed[0], packed[1], packed[2], packed[3]);
        else
          *reinterpret_cast<uint2*>(dst) = make_uint2(packed[0], packed[1]);
        continue;
      }
    }
#pragma unroll
    for (int e = 0; e < kCols; ++e)
      if (col0 + e < p.n)
        store_spmm_float(C.ptr, C.type, linear(C, row0 + vv, col0 + e), row0 + vv,
                         static_cast<float>(out[vv][e]), p.scalars);
  }
}

template <int ABits, int BBits, bool ASigned, bool BSigned, bool NativeInt4>
__global__ void __launch_bounds__(SpmmTile::kThreads) spmm_kernel(const KernelParams p) {
  using T = SpmmTile;
  using Shape = SpmmShape<ABits, BBits, NativeInt4>;
  constexpr int kStride = Shape::kStride;
  constexpr int kBRow = Shape::kBRowBytes;  // bytes of a gathered B row chunk
  constexpr int kBStage = Shape::kBStageBytes;
  constexpr int kStageBytes = Shape::kStageBytes;
  constexpr int kBIters = kBStage / 16 / 32;  // 16-byte copies per lane per stage
  constexpr int kSlices = Shape::kASlices;    // int8 slices of an A value (16-bit: 2)
  constexpr int kIdx = Shape::kIndicesPerLane;
  __shared__ __align__(16) uint8_t smem[T::kWarps][T::kStages][kStageBytes];

  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int V = p.vec_len;
  // `split` warps of the block share one output tile (vector-row x warp columns), taking every
  // split-th stride; the block holds kWarps / split tiles, numbered row-major (the column tiles
  // of a vector-row together) or tile-major (the vector-rows of a column tile together).
  const int split = p.split, sub = warp % split;
  const int64_t tile = static_cast<int64_t>(blockIdx.x) * (T::kWarps / split) + warp / split;
  const bool valid = tile < p.vector_rows * p.n_tiles;
  int64_t vrow = 0, ntile = 0;
  if (p.tile_major) {
    ntile = tile / p.vector_rows;
    vrow = tile - ntile * p.vector_rows;
  } else {
    vrow = tile / p.n_tiles;
    ntile = tile - vrow * p.n_tiles;
  }
  const int64_t n0 = ntile * Shape::kWarpCols;

  // acc[slice][tile]: one accumulator set per int8 slice of A (the slices' partial products are
  // combined in the epilogue, where nothing can be lost: int32 wraps like the sum itself).
  int32_t acc[kSlices][T::kMmaTiles][4];
#pragma unroll
  for (int sl = 0; sl < kSlices; ++sl)
#pragma unroll
    for (int i = 0; i < T::kMmaTiles; ++i)
      acc[sl][i][0] = acc[sl][i][1] = acc[sl][i][2] = acc[sl][i][3] = 0;

  int32_t first = 0, strides = 0;
  if (valid) {
    first = __ldg(p.row_ptr + 2 * vrow);
    strides = (__ldg(p.row_ptr + 2 * vrow + 2) - first) / kStride;
  }
  // This warp's strides: sub, sub + split, ...; li counts them and picks the ring slot.
  const int mine = strides > sub ? (strides - sub + split - 1) / split : 0;
  const int32_t* col = p.col + first;
  // This stride's A values: V rows of kStride elements (16-bit: both slices).
  const int a_stride_bytes = V * kStride * ABits / 8;
  const uint8_t* a_src = p.values + static_cast<int64_t>(first) * V * ABits / 8;
  const int64_t b_byte0 = n0 * BBits / 8;  // first byte of this warp's columns
  uint8_t(*ring)[kStageBytes] = smem[warp];
  const auto stride_of = [&](int li) { return sub + li * split; };
  // Column indices of load positions lane, lane + 32, ... of this warp's li-th stride (-1 past
  // the end).
  struct Cols {
    int32_t c[kIdx];
  };
  const auto load_col = [&](int li) {
    Cols r;
#pragma unroll
    for (int x = 0; x < kIdx; ++x)
      r.c[x] = li < mine ? __ldg(col + stride_of(li) * kStride + 32 * x + lane) : -1;
    return r;
  };

  // Copies this warp's li-th stride (its B row chunks and A values) into ring slot li % kStages.
  auto issue = [&](int li, const Cols& cq) {
    uint8_t* stage = ring[li % T::kStages];
    const int q = stride_of(li);
#pragma unroll
    for (int i = 0; i < kBIters; ++i) {
      const int chunk = lane + 32 * i;
      const int r = map::copy_row(chunk, BBits);     // shared-memory row of the stage
      const int c = map::copy_chunk(chunk, BBits);   // its 16-byte chunk
      const int pos = map::position_of_smem_row(r);  // load position stored in row r
      // Copy i writes rows [32 * 16 / kBRow * i, ...): all in one half (32 positions) of the
      // stride, whose indices the lanes hold in c[half].
      const int half = i * 16 / kBRow;
      const int32_t src_row = max(__shfl_sync(0xFFFFFFFFu, cq.c[half], pos & 31), 0);  // pad: A is 0
      const int64_t byte = b_byte0 + 16 * c;
      const int64_t left = p.b_row_bytes - byte;
      const int bytes = left >= 16 ? 16 : (left > 0 ? static_cast<int>(left) : 0);
      const uint8_t* src = bytes > 0 ? p.b + src_row * p.b_pitch + byte : p.b;
      const int c_stored = map::stored_chunk(r, c, BBits);
      cp_async16<CpCache::L1>(stage + r * kBRow + c_stored * 16, src, bytes);
    }
    if (lane * 16 < a_stride_bytes)
      cp_async16<CpCache::L1>(stage + kBStage + lane * 16,
                 a_src + static_cast<int64_t>(q) * a_stride_bytes + lane * 16, 16);
  };

  // Where this lane reads its B rows (load positions 8t .. 8t+7) in a stage.
  const int b_lane_offset = map::lane_b_offset(g, t, BBits);

  if (mine > 0) {
    // Prologue: indices of the first kStages - 1 strides, their copies, then the indices of
    // the next kIndexAhead strides.
    Cols col_pro[T::kStages - 1];
#pragma unroll
    for (int li = 0; li < T::kStages - 1; ++li) col_pro[li] = load_col(li);
#pragma unroll
    for (int li = 0; li < T::kStages - 1; ++li) {
      if (li < mine) issue(li, col_pro[li]);
      cp_async_commit();
    }
    Cols col_next[T::kIndexAhead];
#pragma unroll
    for (int a = 0; a < T::kIndexAhead; ++a) col_next[a] = load_col(T::kStages - 1 + a);

    for (int s = 0; s < mine; ++s) {
      cp_async_wait<T::kStages - 2>();  // this lane's copies of stride s have landed
      __syncwarp();                     // ... and every lane's; all lanes are done with s - 1
      const int li = s + T::kStages - 1;
      if (li < mine) issue(li, col_next[0]);  // into the slot stride s - 1 used
      cp_async_commit();
#pragma unroll
      for (int a = 0; a + 1 < T::kIndexAhead; ++a) col_next[a] = col_next[a + 1];
      col_next[T::kIndexAhead - 1] = load_col(li + T::kIndexAhead);

      const uint8_t* stage = ring[s % T::kStages];
      const uint8_t* a_stage = stage + kBStage;
      // Sparse operand (the mma's B, k x 8) per slice: row g of the stride's A values at this
      // lane's k positions.
      uint32_t sa[kSlices][2];
#pragma unroll
      for (int sl = 0; sl < kSlices; ++sl) sa[sl][0] = sa[sl][1] = 0;
      if (g < V) {
        if constexpr (NativeInt4) {
          sa[0][0] = lds32(a_stage + map::lane_a_offset_k64(g, t));       // k = 8t ..
          sa[0][1] = lds32(a_stage + map::lane_a_offset_k64(g, t) + 16);  // k = 32 + 8t ..
        } else if constexpr (ABits == 16) {
#pragma unroll
          for (int sl = 0; sl < kSlices; ++sl) {
            const uint2 x = lds64(a_stage + map::lane_a_slice_offset(g, t, V, sl));
            sa[sl][0] = x.x;
            sa[sl][1] = x.y;
          }
        } else if constexpr (ABits == 8) {
          const uint2 x = lds64(a_stage + map::lane_a_offset(g, t, 8));
          sa[0][0] = x.x;
          sa[0][1] = x.y;
        } else {
          const uint32_t x = lds32(a_stage + map::lane_a_offset(g, t, 4));
          sa[0][0] = map::nibbles_lo(x, ASigned);  // positions 8t .. 8t+3 = slots 8t + 0, 2, 4, 6
          sa[0][1] = map::nibbles_hi(x, ASigned);  // positions 8t+4 .. 8t+7 = slots 8t + 1, 3, 5, 7
        }
      }
      // Dense operand (the mma's A, 16 x k per tile): frag[i][2 * kq + h] = k-quad kq (positions
      // 8t + 4kq .. +3; native int4: stride half kq), half h (mma rows g / g + 8) of tile i.
      uint32_t frag[T::kMmaTiles][4];
      const uint8_t* b_lane = stage + b_lane_offset;
      if constexpr (NativeInt4) {
#pragma unroll
        for (int kq = 0; kq < 2; ++kq) {
          uint32_t rows[8];
#pragma unroll
          for (int j = 0; j < 8; ++j) rows[j] = lds32(b_lane + kq * 32 * kBRow + j * 4 * kBRow);
          uint32_t t0[4], t1[4];
          map::transpose4x4(rows[0], rows[1], rows[2], rows[3], t0);
          map::transpose4x4(rows[4], rows[5], rows[6], rows[7], t1);
#pragma unroll
          for (int i = 0; i < T::kMmaTiles; ++i) {
            frag[i][2 * kq] = map::merge_nibbles_even(t0[i], t1[i]);     // column 8g + 2i
            frag[i][2 * kq + 1] = map::merge_nibbles_odd(t0[i], t1[i]);  // column 8g + 2i + 1
          }
        }
      } else if constexpr (BBits != 4) {
        // 8-bit: columns 8g .. 8g+7; 16-bit: columns 4g .. 4g+3, whose low and high bytes the
        // same byte transpose separates into the two slices (map::column_of, b_slice_of_tile).
        uint2 rows[8];
#pragma unroll
        for (int j = 0; j < 8; ++j) rows[j] = lds64(b_lane + j * 4 * kBRow);
#pragma unroll
        for (int kq = 0; kq < 2; ++kq) {
          uint32_t lo[4], hi[4];
          map::transpose4x4(rows[4 * kq].x, rows[4 * kq + 1].x, rows[4 * kq + 2].x,
                            rows[4 * kq + 3].x, lo);
          map::transpose4x4(rows[4 * kq].y, rows[4 * kq + 1].y, rows[4 * kq + 2].y,
                            rows[4 * kq + 3].y, hi);
#pragma unroll
          for (int i = 0; i < T::kMmaTiles; ++i) {
            frag[i][2 * kq] = lo[i];      // int8: columns 8g + i
            frag[i][2 * kq + 1] = hi[i];  // int8: columns 8g + 4 + i
          }
        }
      } else {
        uint32_t rows[8];
#pragma unroll
        for (int j = 0; j < 8; ++j) rows[j] = lds32(b_lane + j * 4 * kBRow);
#pragma unroll
        for (int kq = 0; kq < 2; ++kq) {
          uint32_t tr[4];
          map::transpose4x4(rows[4 * kq], rows[4 * kq + 1], rows[4 * kq + 2], rows[4 * kq + 3], tr);
#pragma unroll
          for (int i = 0; i < T::kMmaTiles; ++i) {
            frag[i][2 * kq] = map::nibbles_lo(tr[i], BSigned);      // columns 8g + 2i
            frag[i][2 * kq + 1] = map::nibbles_hi(tr[i], BSigned);  // columns 8g + 2i + 1
          }
        }
      }
      // Register order of the mma's A: (row g, k-quad 0), (row g+8, k-quad 0), (row g, k-quad 1),
      // (row g+8, k-quad 1). Each (tile, A slice) pair is one mma whose operand types are the
      // slices' signedness: the high slice signed, the low slice unsigned.
      static_for<T::kMmaTiles>([&](auto tile_index) {
        constexpr int i = decltype(tile_index)::value;
        static_for<kSlices>([&](auto slice_index) {
          // (The native int4 mma has one slice: sl unused there.)
          [[maybe_unused]] constexpr int sl = decltype(slice_index)::value;
          if constexpr (NativeInt4) {
            mma_m16n8k64<BSigned, ASigned>(acc[0][i], frag[i], sa[0][0], sa[0][1]);
          } else {
            constexpr bool dense_signed =
                BBits == 16 ? map::slice_signed(map::b_slice_of_tile(i, BBits), 2) : BSigned;
            constexpr bool sparse_signed = ABits == 16 ? map::slice_signed(sl, kSlices) : ASigned;
            mma_m16n8k32<dense_signed, sparse_signed>(acc[sl][i], frag[i], sa[sl][0], sa[sl][1]);
          }
        });
      });
    }
  }

  // acc[sl][i][0..1]: mma row g (half 0), C rows 2t, 2t+1 of the vector; acc[sl][i][2..3]: row
  // g + 8. Each lands on its output column (map::column_of) shifted by 8 bits per slice above the
  // lowest (A's and B's): the exact sum modulo 2^32, as int32 accumulation gives it.
  uint32_t out[2][8];
#pragma unroll
  for (int vv = 0; vv < 2; ++vv)
#pragma unroll
    for (int e = 0; e < 8; ++e) out[vv][e] = 0;
#pragma unroll
  for (int sl = 0; sl < kSlices; ++sl)
#pragma unroll
    for (int i = 0; i < T::kMmaTiles; ++i)
#pragma unroll
      for (int h = 0; h < 2; ++h)
#pragma unroll
        for (int vv = 0; vv < 2; ++vv) {
          const int shift = 8 * sl + 8 * map::b_slice_of_tile(i, BBits);
          out[vv][map::column_of(i, h, BBits)] += static_cast<uint32_t>(acc[sl][i][2 * h + vv])
                                                  << shift;
        }

  if (split > 1) {
    // The warps of a tile add their partial sums (int32, wrapping: the same as one warp's sum)
    // through shared memory; the rings are free once every copy has landed and every warp is
    // past its loop. The lane layout of the partials is the same in every warp.
    cp_async_wait<0>();
    __syncthreads();
    uint32_t* partial = reinterpret_cast<uint32_t*>(&smem[0][0][0]);  // [warp][lane][16]
    if (sub != 0) {
#pragma unroll
      for (int vv = 0; vv < 2; ++vv)
#pragma unroll
        for (int e = 0; e < 8; ++e) partial[(warp * 32 + lane) * 16 + vv * 8 + e] = out[vv][e];
    }
    __syncthreads();
    if (sub != 0) return;
    for (int o = 1; o < split; ++o)
#pragma unroll
      for (int vv = 0; vv < 2; ++vv)
#pragma unroll
        for (int e = 0; e < 8; ++e) out[vv][e] += partial[((warp + o) * 32 + lane) * 16 + vv * 8 + e];
  }
  if (!valid) return;

  int32_t result[2][8];
#pragma unroll
  for (int vv = 0; vv < 2; ++vv)
#pragma unroll
    for (int e = 0; e < 8; ++e) result[vv][e] = static_cast<int32_t>(out[vv][e]);
  const int rows_valid = min(2, max(0, V - 2 * t));
  if (rows_valid > 0)
    store_outputs<Shape::kLaneCols>(p, vrow * V + 2 * t, rows_valid,
                                    n0 + Shape::kLaneCols * g, result);
}

template <int ABits, int BBits, bool ASigned, bool BSigned, bool NativeInt4>
cudaError_t launch_variant(const KernelParams& p, cudaStream_t stream) {
  const int64_t tiles = p.vector_rows * p.n_tiles;
  const int64_t per_block = SpmmTile::kWarps / p.split;
  const int64_t blocks = (tiles + per_block - 1) / per_block;
  if (blocks == 0) return cudaSuccess;
  spmm_kernel<ABits, BBits, ASigned, BSigned, NativeInt4>
      <<<static_cast<unsigned>(blocks), SpmmTile::kThreads, 0, stream>>>(p);
  return cudaGetLastError();
}

template <int ABits, int BBits, bool ASigned, bool BSigned, bool NativeInt4>
cudaError_t load_variant() {
  cudaFuncAttributes attr;
  return cudaFuncGetAttributes(&attr, spmm_kernel<ABits, BBits, ASigned, BSigned, NativeInt4>);
}

/// The signedness variants of one kernel shape as two plain functions launch_<NAME> /
/// load_<NAME> (declared in variants.hpp, defined by spmm_<NAME>.cu). A_SIGNED_ONLY: 16-bit A
/// (16I; no unsigned 16-bit type exists); B_SIGNED_ONLY: 16-bit B. A combination that is not
/// built answers cudaErrorInvalidValue (the plan never asks for one).
#define SPX_SRBCRS_DEFINE(NAME, ABITS, BBITS, NATIVE, A_SIGNED_ONLY, B_SIGNED_ONLY)          \
  cudaError_t launch_##NAME(bool a_signed, bool b_signed, const KernelParams& p,             \
                            cudaStream_t stream) {                                           \
    if ((A_SIGNED_ONLY && !a_signed) || (B_SIGNED_ONLY && !b_signed))                        \
      return cudaErrorInvalidValue;                                                          \
    if (a_signed)                                                                            \
      return b_signed ? launch_variant<ABITS, BBITS, true, true, NATIVE>(p, stream)          \
                      : launch_variant<ABITS, BBITS, true, (B_SIGNED_ONLY), NATIVE>(p, stream); \
    return b_signed ? launch_variant<ABITS, BBITS, (A_SIGNED_ONLY), true, NATIVE>(p, stream) \
                    : launch_variant<ABITS, BBITS, (A_SIGNED_ONLY), (B_SIGNED_ONLY), NATIVE>( \
                          p, stream);                                                        \
  }                                                                                          \
  cudaError_t load_##NAME(bool a_signed, bool b_signed) {                                    \
    if ((A_SIGNED_ONLY && !a_signed) || (B_SIGNED_ONLY && !b_signed))                        \
      return cudaErrorInvalidValue;                                                          \
    if (a_signed)                                                                            \
      return b_signed ? load_variant<ABITS, BBITS, true, true, NATIVE>()                     \
                      : load_variant<ABITS, BBITS, true, (B_SIGNED_ONLY), NATIVE>();        \
    return b_signed ? load_variant<ABITS, BBITS, (A_SIGNED_ONLY), true, NATIVE>()           \
                    : load_variant<ABITS, BBITS, (A_SIGNED_ONLY), (B_SIGNED_ONLY), NATIVE>(); \
  }

/// The four signedness variants of an 8- / 4-bit pair on the unpacking path.
#define SPX_SRBCRS_DEFINE_BITS(ABITS, BBITS) \
  SPX_SRBCRS_DEFINE(l##ABITS##r##BBITS, ABITS, BBITS, false, false, false)

}  // namespace spx::kernels::srbcrs::detail
