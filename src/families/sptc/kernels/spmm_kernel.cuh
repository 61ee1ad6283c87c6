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
// tile of the block reads B alone from L2. These loads (and the pipeline's waits) are
// producer.cuh's Producer, shared with the warpgroup kernel; B's layout here is its MmaBLayout.
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
#include "families/sptc/kernels/producer.cuh"

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

  if constexpr (kResident)
    load_resident_panel<kThreads, kSlices>(p, res_gather, res_meta, res_a, pair0, npairs, tid);
  else
    load_first_indices<kThreads>(p, idx_ring, pair0, npairs, steps, tid);

  // The producer (producer.cuh): B in MMA order, padded rows; its cursors.
  using BLayout = MmaBLayout<S, BN, kStageStride, kResident>;
  int i_left = steps, i_stage = 0, i_pair = 0, i_tile = 0;
  int x_pair = (kStages - 1) % npairs;
  const uint16_t* chunk_base = p.b;
  int chunk_bytes = 0;
  Producer<S, BN, BLayout, kAligned, kResident> producer(
      p, BLayout(smem, kResident ? res_gather : idx_ring, tid), tid, pair0, npairs, tile0,
      idx_ring, i_left, i_stage, i_pair, i_tile, x_pair, chunk_base, chunk_bytes);
  producer.prologue();

  int j = 0, t = 0, s = 0;  // pair, tile and stage of the step computed
  for (int q = steps; q > 0; --q) {
    wait_step();         // groups 0 .. q complete, everyone's; step q - 1's buffers free
    producer.issue();    // step q + kStages - 1

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
