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
#include "families/sptc/kernels/epilogue.cuh"
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
