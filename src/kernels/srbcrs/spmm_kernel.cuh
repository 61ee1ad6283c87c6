// The SR-BCRS SpMM kernel (Magicube's algorithm, computed transposed for m16n8k32). Included by
// the four spmm_l*r*.cu files, each instantiating one (A bits, B bits) pair for the four
// signedness combinations. README.md has the design; the numbers are in config.hpp.
//
// One warp = one vector-row (V rows of C) x 64 dense columns. Per stride of 32 slots:
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

#include "kernels/common/elements.cuh"
#include "kernels/srbcrs/config.hpp"
#include "kernels/srbcrs/device.cuh"
#include "kernels/srbcrs/lane_map.hpp"
#include "kernels/srbcrs/variants.hpp"

namespace spx::kernels::srbcrs::detail {

/// Writes the 2 x 8 outputs of a lane: rows row0 + vv (vv < rows_valid), columns col0 + e.
__device__ __forceinline__ void store_outputs(const KernelParams& p, int64_t row0, int rows_valid,
                                              int64_t col0, const int32_t (&out)[2][8]) {
  const DenseView& C = p.C;
  const bool row_major = C.order == SPX_ORDER_ROW;
  const bool full = col0 + 8 <= p.n;
  if (C.type == SPX_R_32I) {
    const int32_t alpha = alpha_int(p.scalars), beta = beta_int(p.scalars);
#pragma unroll
    for (int vv = 0; vv < 2; ++vv) {
      if (vv >= rows_valid) break;
      int32_t* base = static_cast<int32_t*>(C.ptr);
      if (row_major && full) {
        int32_t* dst = base + (row0 + vv) * C.ld + col0;
        if ((reinterpret_cast<uintptr_t>(dst) & 15) == 0) {
          int32_t v[8];
#pragma unroll
          for (int e = 0; e < 8; ++e) v[e] = wrap_mul(alpha, out[vv][e]);
          if (beta != 0) {
            const int4 o0 = reinterpret_cast<const int4*>(dst)[0];
            const int4 o1 = reinterpret_cast<const int4*>(dst)[1];
            const int32_t old[8] = {o0.x, o0.y, o0.z, o0.w, o1.x, o1.y, o1.z, o1.w};
#pragma unroll
            for (int e = 0; e < 8; ++e) v[e] = wrap_add(v[e], wrap_mul(beta, old[e]));
          }
          reinterpret_cast<int4*>(dst)[0] = make_int4(v[0], v[1], v[2], v[3]);
          reinterpret_cast<int4*>(dst)[1] = make_int4(v[4], v[5], v[6], v[7]);
          continue;
        }
      }
#pragma unroll
      for (int e = 0; e < 8; ++e)
        if (col0 + e < p.n)
          store_result_int(base, linear(C, row0 + vv, col0 + e), out[vv][e], p.scalars);
    }
    return;
  }
  const float alpha = alpha_float(p.scalars), beta = beta_float(p.scalars);
#pragma unroll
  for (int vv = 0; vv < 2; ++vv) {
    if (vv >= rows_valid) break;
    if (row_major && full && C.type == SPX_R_32F) {
      float* dst = static_cast<float*>(C.ptr) + (row0 + vv) * C.ld + col0;
      if ((reinterpret_cast<uintptr_t>(dst) & 15) == 0) {
        float v[8];
#pragma unroll
        for (int e = 0; e < 8; ++e) v[e] = alpha * static_cast<float>(out[vv][e]);
        if (beta != 0.0f) {
          const float4 o0 = reinterpret_cast<const float4*>(dst)[0];
          const float4 o1 = reinterpret_cast<const float4*>(dst)[1];
          const float old[8] = {o0.x, o0.y, o0.z, o0.w, o1.x, o1.y, o1.z, o1.w};
#pragma unroll
          for (int e = 0; e < 8; ++e) v[e] = fmaf(beta, old[e], v[e]);
        }
        reinterpret_cast<float4*>(dst)[0] = make_float4(v[0], v[1], v[2], v[3]);
        reinterpret_cast<float4*>(dst)[1] = make_float4(v[4], v[5], v[6], v[7]);
        continue;
      }
    }
    if (row_major && full && C.type == SPX_R_16F) {
      __half* dst = static_cast<__half*>(C.ptr) + (row0 + vv) * C.ld + col0;
      if ((reinterpret_cast<uintptr_t>(dst) & 15) == 0) {
        float v[8];
#pragma unroll
        for (int e = 0; e < 8; ++e) v[e] = alpha * static_cast<float>(out[vv][e]);
        if (beta != 0.0f) {
          const uint4 o = *reinterpret_cast<const uint4*>(dst);
          const uint32_t ow[4] = {o.x, o.y, o.z, o.w};
#pragma unroll
          for (int w = 0; w < 4; ++w) {
            const float2 f = __half22float2(*reinterpret_cast<const __half2*>(&ow[w]));
            v[2 * w] = fmaf(beta, f.x, v[2 * w]);
            v[2 * w + 1] = fmaf(beta, f.y, v[2 * w + 1]);
          }
        }
        uint32_t packed[4];
#pragma unroll
        for (int w = 0; w < 4; ++w) {
          const __half2 h =
              __halves2half2(__float2half_rn(v[2 * w]), __float2half_rn(v[2 * w + 1]));
          packed[w] = *reinterpret_cast<const uint32_t*>(&h);
        }
        *reinterpret_cast<uint4*>(dst) = make_uint4(packed[0], packed[1], packed[2], packed[3]);
        continue;
      }
    }
#pragma unroll
    for (int e = 0; e < 8; ++e)
      if (col0 + e < p.n)
        store_result_float(C.ptr, C.type, linear(C, row0 + vv, col0 + e),
                           static_cast<float>(out[vv][e]), p.scalars);
  }
}

template <int ABits, int BBits, bool ASigned, bool BSigned>
__global__ void __launch_bounds__(SpmmTile::kThreads) spmm_kernel(const KernelParams p) {
  using T = SpmmTile;
  constexpr int kBRow = map::b_row_bytes(BBits);  // bytes of a gathered B row chunk
  constexpr int kBStage = T::b_stage_bytes(BBits);
  constexpr int kAStage = T::a_stage_bytes(ABits);
  constexpr int kStageBytes = kBStage + kAStage;
  constexpr int kBIters = kBStage / 16 / 32;  // 16-byte copies per lane per stage
  static_assert(kBStage % (16 * 32) == 0, "a stage of B is whole 16-byte copies of every lane");
  static_assert(kStageBytes % 16 == 0, "stages start 16-byte aligned");
  static_assert(T::kWarps * 32 * 16 * 4 <= T::kWarps * T::kStages * kStageBytes,
                "the split-K partial sums fit in the (then idle) stage rings");
  __shared__ __align__(16) uint8_t smem[T::kWarps][T::kStages][kStageBytes];

  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int g = lane >> 2, t = lane & 3;
  const int V = p.vec_len;
  // `split` warps of the block share one output tile (vector-row x 64 columns), taking every
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
  const int64_t n0 = ntile * T::kWarpCols;

  int32_t acc[T::kMmaTiles][4];
#pragma unroll
  for (int i = 0; i < T::kMmaTiles; ++i) acc[i][0] = acc[i][1] = acc[i][2] = acc[i][3] = 0;

  int32_t first = 0, strides = 0;
  if (valid) {
    first = __ldg(p.row_ptr + 2 * vrow);
    strides = (__ldg(p.row_ptr + 2 * vrow + 2) - first) / T::kStride;
  }
  // This warp's strides: sub, sub + split, ...; li counts them and picks the ring slot.
  const int mine = strides > sub ? (strides - sub + split - 1) / split : 0;
  const int32_t* col = p.col + first;
  const int a_stride_bytes = V * T::kStride * ABits / 8;  // this stride's A values: 2V or V copies
  const uint8_t* a_src = p.values + static_cast<int64_t>(first) * V * ABits / 8;
  const int64_t b_byte0 = n0 * BBits / 8;  // first byte of this warp's columns
  uint8_t(*ring)[kStageBytes] = smem[warp];
  const auto stride_of = [&](int li) { return sub + li * split; };
  // Column index of load position `lane` of this warp's li-th stride (-1 past the end).
  const auto load_col = [&](int li) {
    return li < mine ? __ldg(col + stride_of(li) * T::kStride + lane) : -1;
  };

  // Copies this warp's li-th stride (its B row chunks and A values) into ring slot li % kStages.
  // col_q: this lane's column index of load position `lane` of that stride.
  auto issue = [&](int li, int32_t col_q) {
    uint8_t* stage = ring[li % T::kStages];
    const int q = stride_of(li);
#pragma unroll
    for (int i = 0; i < kBIters; ++i) {
      const int chunk = lane + 32 * i;
      const int r = map::copy_row(chunk, BBits);     // shared-memory row of the stage
      const int c = map::copy_chunk(chunk, BBits);   // its 16-byte chunk
      const int pos = map::position_of_smem_row(r);  // load position stored in row r
      const int32_t src_row = max(__shfl_sync(0xFFFFFFFFu, col_q, pos), 0);  // pad: A is 0 there
      const int64_t byte = b_byte0 + 16 * c;
      const int64_t left = p.b_row_bytes - byte;
      const int bytes = left >= 16 ? 16 : (left > 0 ? static_cast<int>(left) : 0);
      const uint8_t* src = bytes > 0 ? p.b + src_row * p.b_pitch + byte : p.b;
      const int c_stored = map::stored_chunk(r, c, BBits);
      cp_async16(stage + r * kBRow + c_stored * 16, src, bytes);
    }
    if (lane * 16 < a_stride_bytes)
      cp_async16(stage + kBStage + lane * 16,
                 a_src + static_cast<int64_t>(q) * a_stride_bytes + lane * 16, 16);
  };

  // Where this lane reads its B rows (load positions 8t .. 8t+7) and its A values in a stage.
  const int b_lane_offset = map::lane_b_offset(g, t, BBits);
  const int a_lane_offset = kBStage + map::lane_a_offset(g, t, ABits);

  if (mine > 0) {
    // Prologue: indices of the first kStages - 1 strides, their copies, then the indices of
    // the next kIndexAhead strides.
    int32_t col_pro[T::kStages - 1];
#pragma unroll
    for (int li = 0; li < T::kStages - 1; ++li) col_pro[li] = load_col(li);
#pragma unroll
    for (int li = 0; li < T::kStages - 1; ++li) {
      if (li < mine) issue(li, col_pro[li]);
      cp_async_commit();
    }
    int32_t col_next[T::kIndexAhead];
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
      // Sparse operand (the mma's B, 32 x 8): row g of the stride's A values, positions 8t..8t+7.
      uint32_t sa0 = 0, sa1 = 0;
      if (g < V) {
        if constexpr (ABits == 8) {
          const uint2 x = lds64(stage + a_lane_offset);
          sa0 = x.x;
          sa1 = x.y;
        } else {
          const uint32_t x = lds32(stage + a_lane_offset);
          sa0 = map::nibbles_lo(x, ASigned);  // positions 8t .. 8t+3 = slots 8t + 0, 2, 4, 6
          sa1 = map::nibbles_hi(x, ASigned);  // positions 8t+4 .. 8t+7 = slots 8t + 1, 3, 5, 7
        }
      }
      // Dense operand (the mma's A, 16 x 32 per tile): frag[i][2 * kq + h] = k-quad kq (positions
      // 8t + 4kq .. +3), half h (mma rows g / g + 8) of tile i.
      uint32_t frag[T::kMmaTiles][4];
      const uint8_t* b_lane = stage + b_lane_offset;
      if constexpr (BBits == 8) {
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
            frag[i][2 * kq] = lo[i];      // columns 8g + i
            frag[i][2 * kq + 1] = hi[i];  // columns 8g + 4 + i
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
#pragma unroll
      for (int i = 0; i < T::kMmaTiles; ++i) {
        // Register order of the mma's A: (row g, k-quad 0), (row g+8, k-quad 0), (row g, k-quad
        // 1), (row g+8, k-quad 1).
        const uint32_t a[4] = {frag[i][0], frag[i][1], frag[i][2], frag[i][3]};
        mma_m16n8k32<BSigned, ASigned>(acc[i], a, sa0, sa1);
      }
    }
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
      for (int i = 0; i < T::kMmaTiles; ++i)
#pragma unroll
        for (int r = 0; r < 4; ++r)
          partial[(warp * 32 + lane) * 16 + i * 4 + r] = static_cast<uint32_t>(acc[i][r]);
    }
    __syncthreads();
    if (sub != 0) return;
    for (int o = 1; o < split; ++o)
#pragma unroll
      for (int i = 0; i < T::kMmaTiles; ++i)
#pragma unroll
        for (int r = 0; r < 4; ++r)
          acc[i][r] = static_cast<int32_t>(static_cast<uint32_t>(acc[i][r]) +
                                           partial[((warp + o) * 32 + lane) * 16 + i * 4 + r]);
  }
  if (!valid) return;

  // acc[i][0..1]: mma row g (half 0), C rows 2t, 2t+1 of the vector; acc[i][2..3]: row g + 8.
  int32_t out[2][8];
#pragma unroll
  for (int i = 0; i < T::kMmaTiles; ++i) {
    out[0][map::column_of(i, 0, BBits)] = acc[i][0];
    out[1][map::column_of(i, 0, BBits)] = acc[i][1];
    out[0][map::column_of(i, 1, BBits)] = acc[i][2];
    out[1][map::column_of(i, 1, BBits)] = acc[i][3];
  }
  const int rows_valid = min(2, max(0, V - 2 * t));
  if (rows_valid > 0) store_outputs(p, vrow * V + 2 * t, rows_valid, n0 + 8 * g, out);
}

template <int ABits, int BBits, bool ASigned, bool BSigned>
cudaError_t launch_variant(const KernelParams& p, cudaStream_t stream) {
  const int64_t tiles = p.vector_rows * p.n_tiles;
  const int64_t per_block = SpmmTile::kWarps / p.split;
  const int64_t blocks = (tiles + per_block - 1) / per_block;
  if (blocks == 0) return cudaSuccess;
  spmm_kernel<ABits, BBits, ASigned, BSigned>
      <<<static_cast<unsigned>(blocks), SpmmTile::kThreads, 0, stream>>>(p);
  return cudaGetLastError();
}

template <int ABits, int BBits, bool ASigned, bool BSigned>
cudaError_t load_variant() {
  cudaFuncAttributes attr;
  return cudaFuncGetAttributes(&attr, spmm_kernel<ABits, BBits, ASigned, BSigned>);
}

/// The four signedness variants of one (A bits, B bits) pair, as two plain functions
/// launch_l<A>r<B> / load_l<A>r<B> (declared in variants.hpp, defined by spmm_l<A>r<B>.cu).
#define SPX_SRBCRS_DEFINE_BITS(ABITS, BBITS)                                                 \
  cudaError_t launch_l##ABITS##r##BBITS(bool a_signed, bool b_signed, const KernelParams& p, \
                                        cudaStream_t stream) {                               \
    if (a_signed)                                                                            \
      return b_signed ? launch_variant<ABITS, BBITS, true, true>(p, stream)                  \
                      : launch_variant<ABITS, BBITS, true, false>(p, stream);                \
    return b_signed ? launch_variant<ABITS, BBITS, false, true>(p, stream)                   \
                    : launch_variant<ABITS, BBITS, false, false>(p, stream);                 \
  }                                                                                          \
  cudaError_t load_l##ABITS##r##BBITS(bool a_signed, bool b_signed) {                        \
    if (a_signed)                                                                            \
      return b_signed ? load_variant<ABITS, BBITS, true, true>()                             \
                      : load_variant<ABITS, BBITS, true, false>();                           \
    return b_signed ? load_variant<ABITS, BBITS, false, true>()                              \
                    : load_variant<ABITS, BBITS, false, false>();                            \
  }

}  // namespace spx::kernels::srbcrs::detail
