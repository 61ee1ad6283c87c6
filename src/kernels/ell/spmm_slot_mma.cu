// SlotMma: the decode kernel (n <= 16) on tensor cores, fp16 values with 16-bit indices.
//
// Why: the staged SlotSplit issues ~23 instructions per slot and 8 output columns (a 16-byte
// gather, 8 fp16 -> fp32 conversions, 8 FFMA, index and address work): ncu at 4096^2 x 8, 80 %
// counted 45 k warp instructions per SM at an IPC of 2.8, the shared-memory pipe 27 % busy.
// mma.sync m16n8k16 takes the fp16 B rows as they are, and ldmatrix gathers them:
//
//   D[16 rows x 8 columns] += V[16 rows x 16 k] * G[16 k x 8 columns]
//
// * G (the B operand) is 16 gathered rows of B's staged chunk, one ldmatrix.trans matrix per 8:
//   matrix rows k = 0..7 are 8 slots of A row p, k = 8..15 the same 8 positions of row p + 8. The
//   8 slots are a bank-order position set of the plan ({64 b + 8 i + e : i = 0..7}): 8 distinct
//   columns mod 8, so with B staged in planes of 16-byte rows (plane q = columns 8 q .. 8 q + 7)
//   a matrix is one conflict-free wavefront.
// * V (the A operand) is one-hot: column k holds slot k's value in row p (k < 8) or p + 8. In the
//   m16n8k16 A layout lane (g, t4) holds (m = g, k = 2 t4, 2 t4 + 1) and (m = g + 8, k = 8 + 2 t4,
//   9 + 2 t4): so in "type" p only the 4 lanes with g == p hold values, namely rows p and p + 8 at
//   positions 2 t4, 2 t4 + 1 (slots 64 b + 16 t4 + e and 64 b + 16 t4 + 8 + e). Every lane keeps
//   those pairs of its own rows g, g + 8 (two 16-byte vectors per row and block, paired by one
//   PRMT per position e) and passes them or zero: two selects per mma, no per-element work.
// * D accumulates 16 rows x 8 columns per plane across all of a warp's mmas: no shuffle
//   reduction. A row group of 16 rows is split over S warps of a block (64-slot blocks b = s,
//   s + S, ...), whose partial D meet in shared memory at the end.
// Per 16 slots x 8 P columns (P planes): one ldmatrix, P mmas, two selects, two address
// instructions: about 7 instructions for P = 2 against ~23 of SlotSplit (two chunks of 8).
// Padding: a slot at or past its row's length gathers the staged zero row k (its value is 0 or
// unused: 0 * 0), so a non-finite B row never meets a padding slot.
#include <atomic>
#include <cstdlib>
#include <cstring>

#include "kernels/common/cp_async.cuh"
#include "kernels/ell/device.cuh"

namespace spx::kernels::ell {
namespace {

constexpr int kRowsPerGroup = 16;  // mma M: the A rows of a row group
constexpr int kBlockSlots = 64;    // slots of a block: 8 positions e x 8 vectors i
constexpr int kWarpsPerBlock = kSlotMmaThreads / kWarp;
static_assert(kRowsPerGroup == 16 && kBlockSlots == 8 * kSlotVector, "the m16n8k16 layout above");

__device__ __forceinline__ void ldmatrix_x4_t(uint32_t addr, uint32_t (&r)[4]) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}
__device__ __forceinline__ void ldmatrix_x2_t(uint32_t addr, uint32_t (&r)[4]) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16 {%0, %1}, [%2];\n"
               : "=r"(r[0]), "=r"(r[1])
               : "r"(addr));
}
/// d += A * B for m16n8k16 with the one-hot A of the header: a0a1 (rows g) and a6a7 (rows g + 8)
/// may be non-zero, a2a3 = a4a5 = 0.
__device__ __forceinline__ void mma_onehot(float (&d)[4], uint32_t a01, uint32_t a67, uint32_t b0,
                                           uint32_t b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %5, %6}, "
      "{%7, %8}, {%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a01), "r"(0u), "r"(a67), "r"(b0), "r"(b1));
}

struct MmaParams {
  int splits_log2 = 3;  ///< S = 2^splits_log2 warps per row group
  bool b_vec = false;   ///< planes copied with cp.async from row-major B (16-byte pieces)
};

/// One warp's registers for one 64-slot block: its 8 index vectors (one per type p: row
/// p + 8 (matrix & 1), vector = its ldmatrix row) and the value pairs of its rows g, g + 8.
struct BlockRegs {
  uint4 idx[8];
  uint4 va[2], vb[2];  // rows g and g + 8: vectors 2 t4 and 2 t4 + 1 of the block
};

template <int kPlanes>
__global__ void __launch_bounds__(kSlotMmaThreads, 1) slot_mma_kernel(SpmmArgs a, MmaParams mp) {
  extern __shared__ __align__(16) unsigned char smem[];
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
  const int64_t kp1 = a.k + 1;
  const uint32_t plane_bytes = static_cast<uint32_t>(kp1 * 16);
  float* red = reinterpret_cast<float*>(smem + kPlanes * static_cast<size_t>(plane_bytes));
  const uint32_t smem_base = smem_address(smem);
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int g = lane >> 2, t4 = lane & 3;
  const int mi = lane >> 3, li = lane & 7;  // ldmatrix: matrix and row this lane addresses
  const int S = 1 << mp.splits_log2;
  const int s = warp & (S - 1);
  const int groups_per_block = kWarpsPerBlock >> mp.splits_log2;
  const int group_in_block = warp >> mp.splits_log2;
  const int64_t groups = (a.m + kRowsPerGroup - 1) / kRowsPerGroup;
  const int64_t n0 = static_cast<int64_t>(blockIdx.y) * 8 * kPlanes;
  const int nblocks = static_cast<int>((a.stride + kBlockSlots - 1) / kBlockSlots);
  const __half* values = static_cast<const __half*>(a.values);
  const uint16_t* indices = static_cast<const uint16_t*>(a.indices);
  const uint32_t zero_row = static_cast<uint32_t>(a.k);
  // This lane's ldmatrix plane (x4: matrices 2, 3 are plane 1) and its index row offset.
  const uint32_t my_plane = smem_base + (kPlanes == 2 ? static_cast<uint32_t>(mi >> 1) : 0u) * plane_bytes;
  const int idx_row_off = 8 * (mi & 1);

  // Loads of block b of row group `group` (zero where past the row or the stride; pad_block
  // points the index entries past the row's length at the zero row).
  auto load_idx = [&](int64_t group, int b, int p) {
    const int64_t row = group * kRowsPerGroup + p + idx_row_off;
    const int slot_i = b * kBlockSlots + kSlotVector * li;  // this lane's index vector
    return row < a.m && slot_i < a.stride
               ? __ldg(reinterpret_cast<const uint4*>(indices + row * a.stride + slot_i))
               : make_uint4(0, 0, 0, 0);
  };
  auto load_vals = [&](BlockRegs& r, int64_t group, int b) {
    const int slot_v = b * kBlockSlots + 16 * t4;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const int64_t row = group * kRowsPerGroup + g + 8 * h;
      uint4* dst = h == 0 ? r.va : r.vb;
#pragma unroll
      for (int q = 0; q < 2; ++q) {
        const int slot = slot_v + kSlotVector * q;
        dst[q] = row < a.m && slot < a.stride
                     ? __ldg(reinterpret_cast<const uint4*>(values + row * a.stride + slot))
                     : make_uint4(0, 0, 0, 0);
      }
    }
  };
  auto load_block = [&](BlockRegs& r, int64_t group, int b) {
#pragma unroll
    for (int p = 0; p < 8; ++p) r.idx[p] = load_idx(group, b, p);
    load_vals(r, group, b);
  };
  // Points the index entries at or past their row's length at the zero row (len: this lane's
  // row_len of row group row `lane & 15`, read through shuffles).
  auto pad_block = [&](BlockRegs& r, int b, int my_len) {
    const int slot_i = b * kBlockSlots + kSlotVector * li;
#pragma unroll
    for (int p = 0; p < 8; ++p) {
      const int len = __shfl_sync(0xffffffffu, my_len, p + idx_row_off);
      if (slot_i + kSlotVector > len) {
        uint32_t w[4] = {r.idx[p].x, r.idx[p].y, r.idx[p].z, r.idx[p].w};
#pragma unroll
        for (int e = 0; e < kSlotVector; ++e) {
          if (slot_i + e >= len) {
            const uint32_t keep = (e & 1) ? 0x0000FFFFu : 0xFFFF0000u;
            const uint32_t put = (e & 1) ? (zero_row << 16) : zero_row;
            w[e >> 1] = (w[e >> 1] & keep) | put;
          }
        }
        r.idx[p] = make_uint4(w[0], w[1], w[2], w[3]);
      }
    }
  };

  // The first pass's first block, requested before B is staged.
  const int64_t pass_groups = static_cast<int64_t>(gridDim.x) * groups_per_block;
  int64_t group = static_cast<int64_t>(blockIdx.x) * groups_per_block + group_in_block;
  BlockRegs cur;
  if (group < groups && s < nblocks) load_block(cur, group, s);

  // Stage B's chunk as kPlanes planes of 16-byte rows (8 columns each), zero past n, and the
  // zero row k of every plane.
  {
    const __half* B = static_cast<const __half*>(a.B.ptr);
    const int64_t ld = a.B.ld;
    const int64_t pieces = a.k * kPlanes;
    if (mp.b_vec) {
      for (int64_t i = threadIdx.x; i < pieces; i += blockDim.x) {
        const int64_t c = i / kPlanes;
        const int q = static_cast<int>(i % kPlanes);
        cp_async16(smem_base + q * plane_bytes + static_cast<uint32_t>(c) * 16u,
                   B + c * ld + n0 + 8 * q, 16);
      }
      cp_async_commit();
    } else {
      const int64_t elems = pieces * 8;
      for (int64_t i = threadIdx.x; i < elems; i += blockDim.x) {
        // Column-major B: consecutive threads take consecutive rows of one column.
        const bool col_major = a.B.order == SPX_ORDER_COL;
        const int64_t c = col_major ? i % a.k : i / (8 * kPlanes);
        const int j = static_cast<int>(col_major ? i / a.k : i % (8 * kPlanes));
        const int64_t col = n0 + j;
        const __half v = col < a.n ? B[col_major ? col * ld + c : c * ld + col] : __half(0.0f);
        *reinterpret_cast<__half*>(smem + (j >> 3) * plane_bytes + c * 16 + (j & 7) * 2) = v;
      }
    }
    for (int i = threadIdx.x; i < kPlanes * 4; i += blockDim.x)
      *reinterpret_cast<uint32_t*>(smem + (i >> 2) * plane_bytes + a.k * 16 + (i & 3) * 4) = 0u;
    if (mp.b_vec) cp_async_wait<0>();
  }
  __syncthreads();

  const float alpha = alpha_float(a.scalars), beta = beta_float(a.scalars);
  for (int64_t gbase = static_cast<int64_t>(blockIdx.x) * groups_per_block; gbase < groups;
       gbase += pass_groups, group += pass_groups) {
    const bool active = group < groups;
    const int64_t r0 = group * kRowsPerGroup;
    const int my_len = active && r0 + (lane & 15) < a.m ? a.row_len[r0 + (lane & 15)] : 0;
    // Two accumulator sets per plane (even / odd positions e): two independent mma chains.
    float acc[kPlanes][2][4];
#pragma unroll
    for (int q = 0; q < kPlanes; ++q)
#pragma unroll
      for (int h = 0; h < 2; ++h)
#pragma unroll
        for (int i = 0; i < 4; ++i) acc[q][h][i] = 0.0f;

    for (int b = s; active && b < nblocks; b += S) {
      pad_block(cur, b, my_len);
      // Value pairs per position e: (slot 16 t4 + e, slot 16 t4 + 8 + e) of rows g and g + 8.
      uint32_t wa[8], wb[8];
      {
        const uint32_t a0[4] = {cur.va[0].x, cur.va[0].y, cur.va[0].z, cur.va[0].w};
        const uint32_t a1[4] = {cur.va[1].x, cur.va[1].y, cur.va[1].z, cur.va[1].w};
        const uint32_t b0[4] = {cur.vb[0].x, cur.vb[0].y, cur.vb[0].z, cur.vb[0].w};
        const uint32_t b1[4] = {cur.vb[1].x, cur.vb[1].y, cur.vb[1].z, cur.vb[1].w};
#pragma unroll
        for (int e = 0; e < 8; ++e) {
          const uint32_t sel = (e & 1) ? 0x7632u : 0x5410u;
          wa[e] = __byte_perm(a0[e >> 1], a1[e >> 1], sel);
          wb[e] = __byte_perm(b0[e >> 1], b1[e >> 1], sel);
        }
      }
      // The next block of this warp, requested while this one is multiplied: its values now
      // (this block's are in wa / wb), each index vector as soon as this block's is read.
      const bool more = b + S < nblocks;
      if (more) load_vals(cur, group, b + S);
#pragma unroll
      for (int p = 0; p < 8; ++p) {
        const uint4 iv = cur.idx[p];
        if (more) cur.idx[p] = load_idx(group, b + S, p);
        const uint32_t w[4] = {iv.x, iv.y, iv.z, iv.w};
        const bool mine = g == p;
#pragma unroll
        for (int e = 0; e < 8; ++e) {
          const uint32_t c = (e & 1) ? (w[e >> 1] >> 16) : (w[e >> 1] & 0xFFFFu);
          uint32_t frag[4];
          if constexpr (kPlanes == 2)
            ldmatrix_x4_t(my_plane + c * 16u, frag);
          else
            ldmatrix_x2_t(my_plane + c * 16u, frag);
          const uint32_t a01 = mine ? wa[e] : 0u;
          const uint32_t a67 = mine ? wb[e] : 0u;
          mma_onehot(acc[0][e & 1], a01, a67, frag[0], frag[1]);
          if constexpr (kPlanes == 2) mma_onehot(acc[1][e & 1], a01, a67, frag[2], frag[3]);
        }
      }
    }
    // HYB overflow (split 0): lane (g, t4) adds its columns 2 t4, 2 t4 + 1 of rows g, g + 8.
    if (active && s == 0 && a.tail_ptr != nullptr) {
      const int64_t tail = a.m * a.stride;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int64_t row = r0 + g + 8 * h;
        if (row >= a.m) continue;
        const int end = a.tail_ptr[row + 1];
        for (int t = a.tail_ptr[row]; t < end; ++t) {
          const float v = __half2float(values[tail + t]);
          const uint32_t c = indices[tail + t];
#pragma unroll
          for (int q = 0; q < kPlanes; ++q) {
            const float2 bb = __half22float2(
                *reinterpret_cast<const __half2*>(smem + q * plane_bytes + c * 16 + t4 * 4));
            acc[q][0][2 * h] = fmaf(v, bb.x, acc[q][0][2 * h]);
            acc[q][0][2 * h + 1] = fmaf(v, bb.y, acc[q][0][2 * h + 1]);
          }
        }
      }
    }
    // The S partial tiles meet in shared memory ([warp][plane x 4][lane]); split 0 stores.
    if (S > 1) {
      if (s != 0) {
#pragma unroll
        for (int q = 0; q < kPlanes; ++q)
#pragma unroll
          for (int i = 0; i < 4; ++i)
            red[(warp * kPlanes * 4 + q * 4 + i) * kWarp + lane] = acc[q][0][i] + acc[q][1][i];
      }
      __syncthreads();
    }
    if (active && s == 0) {
#pragma unroll
      for (int q = 0; q < kPlanes; ++q)
#pragma unroll
        for (int i = 0; i < 4; ++i) {
          float v = acc[q][0][i] + acc[q][1][i];
          for (int o = 1; o < S; ++o) v += red[((warp + o) * kPlanes * 4 + q * 4 + i) * kWarp + lane];
          const int64_t row = r0 + g + 8 * (i >> 1);
          const int64_t col = n0 + 8 * q + 2 * t4 + (i & 1);
          if (row < a.m && col < a.n) detail::store_out(a.C, row, col, v, alpha, beta);
        }
    }
    if (S > 1) __syncthreads();  // red is reused by the next pass
    // The next pass's first block.
    const int64_t next_group = group + pass_groups;
    if (next_group < groups && s < nblocks) load_block(cur, next_group, s);
  }
}

/// nt = 16 (two planes): the transposed product, so one mma covers 16 slots x 16 columns:
///
///   D[16 columns x 8 rows] += G[16 columns x 16 k] * V[16 k x 8 rows]
///
/// G (the A operand) is one ldmatrix.x4.trans: matrices (row 2 p, plane 0), (row 2 p, plane 1),
/// (row 2 p + 1, plane 0), (row 2 p + 1, plane 1), each the 8 slots of a position set. V (the B
/// operand, two registers) is one-hot: k < 8 belong to row 2 p (lanes g = 2 p hold b0b1), k >= 8
/// to row 2 p + 1 (lanes g = 2 p + 1 hold b2b3), each lane passing the pairs of its own row g.
/// Row groups of 8 rows; 1024 threads (64 registers): the next block's loads reuse the registers
/// of the current one as they are consumed.
__global__ void __launch_bounds__(kSlotMma16Threads, 1) slot_mma16_kernel(SpmmArgs a, MmaParams mp) {
  constexpr int kRows = 8, kWarps = kSlotMma16Threads / kWarp;
  extern __shared__ __align__(16) unsigned char smem[];
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
  const uint32_t plane_bytes = static_cast<uint32_t>((a.k + 1) * 16);
  float* red = reinterpret_cast<float*>(smem + 2 * static_cast<size_t>(plane_bytes));
  const uint32_t smem_base = smem_address(smem);
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
  const int g = lane >> 2, t4 = lane & 3;
  const int mi = lane >> 3, li = lane & 7;
  const int S = 1 << mp.splits_log2;
  const int s = warp & (S - 1);
  const int groups_per_block = kWarps >> mp.splits_log2;
  const int64_t groups = (a.m + kRows - 1) / kRows;
  const int64_t n0 = static_cast<int64_t>(blockIdx.y) * 16;
  const int nblocks = static_cast<int>((a.stride + kBlockSlots - 1) / kBlockSlots);
  const __half* values = static_cast<const __half*>(a.values);
  const uint16_t* indices = static_cast<const uint16_t*>(a.indices);
  const uint32_t zero_row = static_cast<uint32_t>(a.k);
  const uint32_t my_plane = smem_base + static_cast<uint32_t>(mi & 1) * plane_bytes;
  const int idx_row_off = mi >> 1;  // this lane's ldmatrix rows: row 2 p + idx_row_off

  auto load_idx = [&](int64_t group, int b, int p) {
    const int64_t row = group * kRows + 2 * p + idx_row_off;
    const int slot_i = b * kBlockSlots + kSlotVector * li;
    return row < a.m && slot_i < a.stride
               ? __ldg(reinterpret_cast<const uint4*>(indices + row * a.stride + slot_i))
               : make_uint4(0, 0, 0, 0);
  };
  auto load_val = [&](int64_t group, int b, int q) {
    const int64_t row = group * kRows + g;
    const int slot = b * kBlockSlots + 16 * t4 + kSlotVector * q;
    return row < a.m && slot < a.stride
               ? __ldg(reinterpret_cast<const uint4*>(values + row * a.stride + slot))
               : make_uint4(0, 0, 0, 0);
  };

  const int64_t pass_groups = static_cast<int64_t>(gridDim.x) * groups_per_block;
  int64_t group = static_cast<int64_t>(blockIdx.x) * groups_per_block + (warp >> mp.splits_log2);
  uint4 idx[4], val[2];
  const bool first = group < groups && s < nblocks;
#pragma unroll
  for (int p = 0; p < 4; ++p) idx[p] = first ? load_idx(group, s, p) : make_uint4(0, 0, 0, 0);
#pragma unroll
  for (int q = 0; q < 2; ++q) val[q] = first ? load_val(group, s, q) : make_uint4(0, 0, 0, 0);

  // Stage B's 16 columns as two planes of 16-byte rows, and their zero rows k.
  {
    const __half* B = static_cast<const __half*>(a.B.ptr);
    const int64_t ld = a.B.ld;
    if (mp.b_vec) {
      for (int64_t i = threadIdx.x; i < a.k * 2; i += blockDim.x) {
        const int64_t c = i >> 1;
        const int q = static_cast<int>(i & 1);
        cp_async16(smem_base + q * plane_bytes + static_cast<uint32_t>(c) * 16u,
                   B + c * ld + n0 + 8 * q, 16);
      }
      cp_async_commit();
    } else {
      const bool col_major = a.B.order == SPX_ORDER_COL;
      for (int64_t i = threadIdx.x; i < a.k * 16; i += blockDim.x) {
        const int64_t c = col_major ? i % a.k : i / 16;
        const int j = static_cast<int>(col_major ? i / a.k : i % 16);
        const int64_t col = n0 + j;
        const __half v = col < a.n ? B[col_major ? col * ld + c : c * ld + col] : __half(0.0f);
        *reinterpret_cast<__half*>(smem + (j >> 3) * plane_bytes + c * 16 + (j & 7) * 2) = v;
      }
    }
    if (threadIdx.x < 8)
      *reinterpret_cast<uint32_t*>(smem + (threadIdx.x >> 2) * plane_bytes + a.k * 16 +
                                   (threadIdx.x & 3) * 4) = 0u;
    if (mp.b_vec) cp_async_wait<0>();
  }
  __syncthreads();

  const float alpha = alpha_float(a.scalars), beta = beta_float(a.scalars);
  for (int64_t gbase = static_cast<int64_t>(blockIdx.x) * groups_per_block; gbase < groups;
       gbase += pass_groups, group += pass_groups) {
    const bool active = group < groups;
    const int64_t r0 = group * kRows;
    const int my_len = active && r0 + (lane & 7) < a.m ? a.row_len[r0 + (lane & 7)] : 0;
    float acc[2][4];  // two mma chains (even / odd positions e)
#pragma unroll
    for (int h = 0; h < 2; ++h)
#pragma unroll
      for (int i = 0; i < 4; ++i) acc[h][i] = 0.0f;
    for (int b = s; active && b < nblocks; b += S) {
      const bool more = b + S < nblocks;
      // Value pairs of row g per position e: (slot 16 t4 + e, slot 16 t4 + 8 + e).
      uint32_t w[8];
      {
        const uint32_t v0[4] = {val[0].x, val[0].y, val[0].z, val[0].w};
        const uint32_t v1[4] = {val[1].x, val[1].y, val[1].z, val[1].w};
#pragma unroll
        for (int e = 0; e < 8; ++e) w[e] = __byte_perm(v0[e >> 1], v1[e >> 1], (e & 1) ? 0x7632u : 0x5410u);
      }
      if (more) {
#pragma unroll
        for (int q = 0; q < 2; ++q) val[q] = load_val(group, b + S, q);
      }
      const int slot_i = b * kBlockSlots + kSlotVector * li;
#pragma unroll
      for (int p = 0; p < 4; ++p) {
        uint32_t c4[4] = {idx[p].x, idx[p].y, idx[p].z, idx[p].w};
        if (more) idx[p] = load_idx(group, b + S, p);
        // Entries at or past their row's length gather the zero row k.
        const int len = __shfl_sync(0xffffffffu, my_len, 2 * p + idx_row_off);
        if (slot_i + kSlotVector > len) {
#pragma unroll
          for (int e = 0; e < kSlotVector; ++e)
            if (slot_i + e >= len) {
              const uint32_t keep = (e & 1) ? 0x0000FFFFu : 0xFFFF0000u;
              c4[e >> 1] = (c4[e >> 1] & keep) | ((e & 1) ? (zero_row << 16) : zero_row);
            }
        }
        const bool lo = g == 2 * p, hi = g == 2 * p + 1;
#pragma unroll
        for (int e = 0; e < 8; ++e) {
          const uint32_t c = (e & 1) ? (c4[e >> 1] >> 16) : (c4[e >> 1] & 0xFFFFu);
          uint32_t frag[4];
          ldmatrix_x4_t(my_plane + c * 16u, frag);
          const uint32_t b01 = lo ? w[e] : 0u, b23 = hi ? w[e] : 0u;
          asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
              "{%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
              : "+f"(acc[e & 1][0]), "+f"(acc[e & 1][1]), "+f"(acc[e & 1][2]), "+f"(acc[e & 1][3])
              : "r"(frag[0]), "r"(frag[1]), "r"(frag[2]), "r"(frag[3]), "r"(b01), "r"(b23));
        }
      }
    }
    float d[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) d[i] = acc[0][i] + acc[1][i];
    // HYB overflow (split 0): lane (g, t4) adds columns g, g + 8 of rows 2 t4, 2 t4 + 1.
    if (active && s == 0 && a.tail_ptr != nullptr) {
      const int64_t tail = a.m * a.stride;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int64_t row = r0 + 2 * t4 + h;
        if (row >= a.m) continue;
        const int end = a.tail_ptr[row + 1];
        for (int t = a.tail_ptr[row]; t < end; ++t) {
          const float v = __half2float(values[tail + t]);
          const uint32_t c = indices[tail + t];
#pragma unroll
          for (int q = 0; q < 2; ++q) {
            const float bv = __half2float(
                *reinterpret_cast<const __half*>(smem + q * plane_bytes + c * 16 + g * 2));
            d[2 * q + h] = fmaf(v, bv, d[2 * q + h]);
          }
        }
      }
    }
    if (S > 1) {
      if (s != 0) {
#pragma unroll
        for (int i = 0; i < 4; ++i) red[(warp * 4 + i) * kWarp + lane] = d[i];
      }
      __syncthreads();
    }
    if (active && s == 0) {
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        float v = d[i];
        for (int o = 1; o < S; ++o) v += red[((warp + o) * 4 + i) * kWarp + lane];
        const int64_t row = r0 + 2 * t4 + (i & 1);
        const int64_t col = n0 + g + 8 * (i >> 1);
        if (row < a.m && col < a.n) detail::store_out(a.C, row, col, v, alpha, beta);
      }
    }
    if (S > 1) __syncthreads();
    const int64_t next_group = group + pass_groups;
    if (next_group < groups && s < nblocks) {
#pragma unroll
      for (int p = 0; p < 4; ++p) idx[p] = load_idx(next_group, s, p);
#pragma unroll
      for (int q = 0; q < 2; ++q) val[q] = load_val(next_group, s, q);
    }
  }
}

using Fn = void (*)(SpmmArgs, MmaParams);

Fn pick(int planes) { return planes == 2 ? slot_mma16_kernel : slot_mma_kernel<1>; }
int threads_of(int planes) { return planes == 2 ? kSlotMma16Threads : kSlotMmaThreads; }

bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

/// Whether the launch allows programmatic dependent launch: sm_90 and later, unless
/// SPX_ELL_PDL=0 (as the staged SlotSplit).
bool dependent_launch() {
  static const bool env_on = [] {
    const char* v = std::getenv("SPX_ELL_PDL");
    return v == nullptr || std::strcmp(v, "0") != 0;
  }();
  if (!env_on) return false;
  constexpr int kMaxDevices = 64;
  static std::atomic<int> major[kMaxDevices] = {};
  int dev = 0;
  if (cudaGetDevice(&dev) != cudaSuccess || dev < 0 || dev >= kMaxDevices) return false;
  int cc = major[dev].load(std::memory_order_relaxed);
  if (cc == 0) {
    if (cudaDeviceGetAttribute(&cc, cudaDevAttrComputeCapabilityMajor, dev) != cudaSuccess)
      return false;
    major[dev].store(cc, std::memory_order_relaxed);
  }
  return cc >= 9;
}

}  // namespace

cudaError_t launch_slot_mma(const SpmmArgs& a, const EllConfig& cfg, cudaStream_t stream) {
  const int planes = cfg.nt / 8;
  if (!a.half || !a.index16 || (planes != 1 && planes != 2) || a.stride % kSlotVector != 0)
    return cudaErrorInvalidValue;
  MmaParams mp;
  mp.splits_log2 = 0;
  while ((1 << mp.splits_log2) < cfg.splits) ++mp.splits_log2;
  if ((1 << mp.splits_log2) != cfg.splits || cfg.splits > threads_of(planes) / kWarp)
    return cudaErrorInvalidValue;
  const unsigned chunks = static_cast<unsigned>((a.n + cfg.nt - 1) / cfg.nt);
  mp.b_vec = a.B.order == SPX_ORDER_ROW && a.n % cfg.nt == 0 && aligned16(a.B.ptr) &&
             (a.B.ld * 2) % 16 == 0;
  const Fn fn = pick(planes);
  const size_t smem = static_cast<size_t>(slot_mma_smem_bytes(a.k, cfg.nt));
  const int threads = threads_of(planes);
  const int per_sm = detail::resident_blocks(reinterpret_cast<const void*>(fn), threads, smem);
  if (per_sm < 1) return cudaErrorInvalidConfiguration;
  const int rows_per_group = planes == 2 ? 8 : kRowsPerGroup;
  const int64_t groups = (a.m + rows_per_group - 1) / rows_per_group;
  const int64_t groups_per_block = threads / kWarp / cfg.splits;
  const int64_t need = (groups + groups_per_block - 1) / groups_per_block;
  int64_t blocks = static_cast<int64_t>(per_sm) * (a.sm_count > 0 ? a.sm_count : 1) / chunks;
  blocks = blocks < 1 ? 1 : (blocks > need ? need : blocks);
  const dim3 grid(static_cast<unsigned>(blocks), chunks, 1);
  if (dependent_launch()) {
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cudaLaunchConfig_t lc{};
    lc.gridDim = grid;
    lc.blockDim = dim3(static_cast<unsigned>(threads), 1, 1);
    lc.dynamicSmemBytes = smem;
    lc.stream = stream;
    lc.attrs = attr;
    lc.numAttrs = 1;
    return cudaLaunchKernelEx(&lc, fn, a, mp);
  }
  fn<<<grid, threads, smem, stream>>>(a, mp);
  return cudaGetLastError();
}

cudaError_t load_slot_mma(bool half, bool index16, size_t smem_optin) {
  if (!half || !index16) return cudaSuccess;
  for (int planes : {1, 2})
    if (const cudaError_t err =
            detail::load_kernel(reinterpret_cast<const void*>(pick(planes)), smem_optin);
        err != cudaSuccess)
      return err;
  return cudaSuccess;
}

}  // namespace spx::kernels::ell
