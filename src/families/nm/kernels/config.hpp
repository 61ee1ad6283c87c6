// Tile configurations of the NM kernels and their shared-memory formulas (the choice among them
// is plan/choice.cpp's). Plain C++ (no CUDA): the kernels, the launcher and the host planning all
// read this header.
//
// Notation. C (m x n) = A (m x k, vector-wise N:M, groups of L rows) * B (k x n, dense).
// The NM-SpMM paper computes the transposed product (its dense operand is on the left), so its
// m_s / m_t (dense side) are our BN / TN and its n_s / n_t (sparse side) our BM / TM:
//
//   paper Table I      m_s  n_s  m_t  n_t   ->   here   BM   BN   TM   TN  threads
//   small               32   32    4    4        Small  32   32    4    4     64
//   medium              32   64    8    4        Medium 64   32    4    8     64
//   large               64  128    8    8        Large  128  64    8    8    128
//   (bigger shapes)                               Huge   128  128   8    8    256
//   (bigger shapes, cuBLAS-like)                  Wide   128  128   8   16    128
//
// How L and BM meet. Every thread owns TM consecutive rows of A; TM divides 16 and the smallest
// fast-path L is 16, so a thread's rows always lie in ONE group and need ONE kept position per
// compressed slot: the thread reads one B row (its group's) per slot and broadcasts it over its
// TM rows. A block (BM rows) spans BM / L groups when L < BM. The stage buffer holds every B row
// that any of them needs (non-packing: all M rows of each window of the stage; packing: the
// union of the groups' kept rows, through col_info), and each group indexes into it with its own
// stage-relative row (`ridx`). A warp covers 32 rows (16 for Small), so it is inside one group
// for L >= 32 and its B reads are broadcasts; for L = 16 two groups share a warp and a B read
// takes two shared-memory wavefronts instead of one.
#pragma once

#include <cstddef>
#include <cstdint>

namespace spx::kernels::nm {

/// A block tile: BM rows of A (sparse side) x BN columns of B / C (dense side); each thread
/// computes TM x TN outputs as a register outer product, reading its TN columns as TN / 4
/// float4 chunks spaced BN / (TN / 4) apart (so that a warp's LDS.128 cover contiguous 128 B).
template <int BM_, int BN_, int TM_, int TN_>
struct Tile {
  static constexpr int kBM = BM_, kBN = BN_, kTM = TM_, kTN = TN_;
  static constexpr int kThreadsY = BM_ / TM_;  ///< threads along the rows
  static constexpr int kThreadsX = BN_ / TN_;  ///< threads along the columns
  static constexpr int kThreads = kThreadsY * kThreadsX;
  /// A warp is kWarpRows x kWarpCols threads; warps tile the block kWarpsY x kWarpsX.
  static constexpr int kWarpCols = kThreadsX < 8 ? kThreadsX : 8;
  static constexpr int kWarpRows = 32 / kWarpCols;
  static constexpr int kWarpsX = kThreadsX / kWarpCols;
  static constexpr int kWarpsY = kThreadsY / kWarpRows;
  static constexpr int kChunks = TN_ / 4;             ///< float4 chunks per thread row
  static constexpr int kChunkStride = BN_ / kChunks;  ///< columns between a thread's chunks
  static constexpr int kBRowStride = BN_ + 4;         ///< floats per shared B row (padding)
  /// Blocks per SM the register budget is sized for (__launch_bounds__): 2 x 256 threads of the
  /// 8x8 tiles at <= 128 registers, more blocks of the small tiles.
  static constexpr int kMinBlocks =
      kThreads >= 256 ? 2 : (kThreads >= 128 ? (TN_ >= 16 ? 2 : 3) : 6);

  static_assert(TM_ == 4 || TM_ == 8,
                "TM must be 4 or 8 (a thread's rows stay in one L >= 16 group)");
  static_assert(TN_ == 4 || TN_ == 8 || TN_ == 16, "TN must be 4, 8 or 16 (float4 chunks)");
  static_assert(BM_ % TM_ == 0 && BN_ % TN_ == 0, "the thread tile must divide the block tile");
  static_assert(BM_ <= 128 && 128 % BM_ == 0, "BM must divide the packing tile of 128 rows");
  static_assert(BM_ % 32 == 0 && BN_ % 32 == 0,
                "BM and BN are multiples of 32 (bank-conflict-free)");
  static_assert(32 % kWarpCols == 0 && kThreadsX % kWarpCols == 0, "warps must tile the columns");
  static_assert(kThreadsY % kWarpRows == 0, "warps must tile the rows");
  static_assert(kThreads % 32 == 0 && kThreads >= 64 && kThreads <= 256, "64..256 threads");
  static_assert(
      kThreads % (BM_ / 4) == 0 && kThreads % (BN_ / 4) == 0,
      "every thread copies the same 16-byte column chunk of A and B in every row it copies");
  static_assert(kWarpsX * kWarpsY * 32 == kThreads, "warp layout covers the block");
  static_assert(kChunkStride == 4 * kThreadsX, "chunks interleave the threads' columns");
  static_assert(kBRowStride % 32 == 4,
                "a B row padded by 4 floats: 8 consecutive rows x 4 columns hit 32 distinct banks");
};

using SmallTile = Tile<32, 32, 4, 4>;
using MediumTile = Tile<64, 32, 4, 8>;
using LargeTile = Tile<128, 64, 8, 8>;
using HugeTile = Tile<128, 128, 8, 8>;
/// cuBLAS-like: 128 x 128 with 4 warps of 8 x 16 thread tiles (6 LDS.128 per 128 FFMA, half the
/// copy instructions per FFMA of Huge), two blocks per SM. Measured on H200 at 4096^3 a few
/// percent slower than Huge, so ranked below it: a candidate for spxSpMM_search.
using WideTile = Tile<128, 128, 8, 16>;

enum class TileId : int { Small = 0, Medium = 1, Large = 2, Huge = 3, Wide = 4 };
constexpr int kTileCount = 5;

/// Rows per packing tile: col_info is built per 128 rows of A, so every tile (BM | 128) shares it.
constexpr int64_t kPackTileRows = 128;
/// Rows of A and of the plan's value copy are padded to this (no row predicates in the loads).
constexpr int64_t kRowPad = 128;

/// The run-time description of a tile (what the host needs without templates).
struct TileShape {
  TileId id;
  const char* name;
  int bm, bn, tm, tn, threads;
  /// Relative FFMA efficiency of the thread tile (8x8 outer product: 64 FFMA per 4 LDS.128;
  /// 8x4 / 4x8: 32 per 3; 4x4: 16 per 2), used to rank tiles of equal utilization: on the
  /// cp.async kernel, and on sm_90's tensor-copy kernel (no per-thread copies, no block barrier),
  /// where the 8 x 16 Wide tile is the fastest 128 x 128 tile since the inner loop went to 16-bit
  /// row loads: H100, 4096^3, in one call, 1.89x / 2.43x / 3.50x / 6.22x cuBLAS SGEMM against
  /// Huge's 1.78x / 2.30x / 3.33x / 5.91x row-major, 1.82x / 2.30x / 3.25x / 5.42x against
  /// 1.71x / 2.19x / 3.09x / 5.16x column-major. On the cp.async kernel Wide measured slower (2
  /// warps per scheduler hide less of its copies).
  double efficiency;
  double efficiency_tensor_copies;
};

constexpr TileShape kTiles[kTileCount] = {
    {TileId::Small, "small", SmallTile::kBM, SmallTile::kBN, SmallTile::kTM, SmallTile::kTN,
     SmallTile::kThreads, 0.55, 0.55},
    {TileId::Medium, "medium", MediumTile::kBM, MediumTile::kBN, MediumTile::kTM, MediumTile::kTN,
     MediumTile::kThreads, 0.75, 0.75},
    {TileId::Large, "large", LargeTile::kBM, LargeTile::kBN, LargeTile::kTM, LargeTile::kTN,
     LargeTile::kThreads, 0.93, 0.93},
    {TileId::Huge, "huge", HugeTile::kBM, HugeTile::kBN, HugeTile::kTM, HugeTile::kTN,
     HugeTile::kThreads, 1.0, 1.0},
    {TileId::Wide, "wide", WideTile::kBM, WideTile::kBN, WideTile::kTM, WideTile::kTN,
     WideTile::kThreads, 0.97, 1.05},
};

inline const TileShape& tile_shape(TileId id) {
  return kTiles[static_cast<int>(id)];
}

inline int64_t align16(int64_t bytes) {
  return (bytes + 15) / 16 * 16;
}

/// Shared memory of one pipeline stage: A values [w_s][BM] fp32, B rows [rows_s][BN + 4] fp32,
/// the groups' stage-relative rows [groups][w_s] uint16 (+ 4 zero bytes read by the lookahead), and
/// (packing) the col_info list of the NEXT stage: a 16-byte header holding its row count, then up
/// to `packed` uint16 rows. It arrives with this stage, so the next stage's B rows are known from
/// shared memory when their copies are issued (no dependent global load in front of them). The
/// kernel double-buffers it.
inline int64_t stage_bytes(const TileShape& t, int64_t w_s, int64_t rows_s, int64_t groups,
                           int64_t packed) {
  return align16(w_s * t.bm * 4) + align16(rows_s * (t.bn + 4) * 4) +
         align16(groups * w_s * 2 + 4) + (packed > 0 ? 16 + align16(packed * 2) : 0);
}
/// Pipeline depth: stage buffers in flight. 2 = double buffering (the next stage's copies land
/// during this stage's compute); 3 gives the copies two stages to land.
constexpr int kMaxDepth = 3;
/// After the stage buffers: the full / empty mbarriers of the tensor-copy kernel (8 bytes each),
/// its per-buffer counters of finished warps (4 bytes each) and, with a streamed B (launch.hpp:
/// StreamedB), the first chunk not yet seen copied (4 bytes; in dynamic shared memory, because
/// static shared memory would lower the dynamic size a kernel may opt into).
constexpr int64_t kBarrierBytes = 2 * 8 * kMaxDepth + 4 * kMaxDepth + 4;
inline int64_t kernel_smem_bytes(const TileShape& t, int64_t w_s, int64_t rows_s, int64_t groups,
                                 int64_t packed, int depth = 2) {
  return depth * stage_bytes(t, w_s, rows_s, groups, packed) + kBarrierBytes;
}

/// The tensor-copy kernel's stage (spmm_bulk.cuh): A [w_s][BM], B [k_s][BN] dense (the tensor
/// copy writes its box as it is), the index pairs (+ 4 zeroed bytes), every region 128-byte
/// aligned; the launch adds the mbarriers, the done counters and 128 bytes to align the base.
inline int64_t align128(int64_t bytes) {
  return (bytes + 127) / 128 * 128;
}
inline int64_t bulk_stage_bytes(const TileShape& t, int64_t w_s, int64_t k_s, int64_t groups) {
  return align128(w_s * t.bm * 4) + align128(k_s * t.bn * 4) + align128(groups * w_s * 2 + 4);
}
inline int64_t bulk_smem_bytes(const TileShape& t, int64_t w_s, int64_t k_s, int64_t groups,
                               int depth) {
  return depth * bulk_stage_bytes(t, w_s, k_s, groups) + kBarrierBytes + 128;
}

/// Shared memory a block may use so that two blocks share an SM (228 KiB per SM on sm_80 /
/// sm_90 with 1 KiB reserved per block; the opt-in is the per-SM size minus 1 KiB).
inline int64_t two_blocks_budget(int64_t smem_optin) {
  return (smem_optin + 1024) / 2 - 1024;
}

/// Groups of L rows a block of BM rows touches.
inline int64_t groups_per_block(const TileShape& t, int64_t l) {
  return t.bm >= l ? t.bm / l : 1;
}

/// B rows a packed stage may hold: the union of the kept rows of the pack tile's groups.
inline int64_t pack_capacity(int64_t l, int64_t w_s, int64_t k_s) {
  const int64_t groups = kPackTileRows >= l ? kPackTileRows / l : 1;
  const int64_t cap = groups * w_s;
  return cap < k_s ? cap : k_s;
}

/// Compressed slots per stage: w_s = N * W (whole windows), even (the inner loop takes slots in
/// pairs), at most kMaxSlotsPerStage unless one window pair needs more.
constexpr int64_t kMaxSlotsPerStage = 64;

/// The stage depth: windows per stage W for (N, M, L) on tile t, or 0 when no depth fits
/// `smem_budget` bytes. The deepest stage (largest k_s, the paper's Eq. 4/5: a larger k_s means
/// a higher arithmetic intensity) up to kMaxSlotsPerStage slots.
/// `bulk`: sized for the tensor-copy kernel (non-packing; dense B rows).
inline int64_t windows_per_stage(const TileShape& t, int64_t n, int64_t m, int64_t l, bool packing,
                                 int64_t smem_budget, int depth = 2, bool bulk = false) {
  const int64_t step = (n % 2 == 0) ? 1 : 2;  // w_s = n * W must be even
  int64_t best = 0;
  for (int64_t w = step;; w += step) {
    const int64_t w_s = n * w, k_s = m * w;
    if (w_s > kMaxSlotsPerStage && w > step) break;
    if (k_s > 65535) break;  // stage-relative rows are uint16
    const int64_t rows_s = packing ? pack_capacity(l, w_s, k_s) : k_s;
    const int64_t bytes =
        bulk && !packing
            ? bulk_smem_bytes(t, w_s, k_s, groups_per_block(t, l), depth)
            : kernel_smem_bytes(t, w_s, rows_s, groups_per_block(t, l), packing ? rows_s : 0, depth);
    if (bytes > smem_budget)
      break;
    best = w;
    if (w_s >= kMaxSlotsPerStage) break;
  }
  return best;
}

/// Blocks of a tile that one SM holds at once (a register / shared-memory estimate: the 8x8
/// tiles use ~128 registers per thread); the same as the kernels' Tile::kMinBlocks.
constexpr int blocks_per_sm(const TileShape& t) {
  return t.threads >= 256 ? 2 : (t.threads >= 128 ? (t.tn >= 16 ? 2 : 3) : 6);
}

/// Tiles with a streamed-B and a stream-K tensor-copy kernel (spmm_bulk.cu: kStreams, kStreamK):
/// the Wide tile, whose two blocks per SM leave room for the copy's block.
constexpr bool has_streamed_b_kernel(const TileShape& t) {
  return t.tn == 16 && t.threads == 128;
}
constexpr bool has_stream_k_kernel(const TileShape& t) {
  return has_streamed_b_kernel(t);
}

}  // namespace spx::kernels::nm
