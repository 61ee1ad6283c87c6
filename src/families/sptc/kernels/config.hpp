// Tile configuration of the SpTC mma.sp kernel and the rule that picks one from the shape. Plain
// C++ (no CUDA): the plan, the kernels and the CPU tests include it. See README.md.
//
// One thread block computes a BLOCK_TILE x BN tile of C: one panel of the reorder (BLOCK_TILE
// rows, BLOCK_TILE / 16 row slices) times BN columns of B. Four warps split BN (two rows of them
// at BLOCK_TILE 128); a warp owns up to four row slices times BN / 4 columns, so a B fragment
// loaded by ldmatrix feeds up to four mma.sp and an A fragment feeds BN / 32. A k step is a pair
// of m16n8k32 k tiles (64 B rows gathered), kStages steps in flight (cp.async), the gather
// indices one step further (or, resident A, the whole panel's indices, A and metadata loaded
// once per block).
#pragma once

#include <cstdint>
#include <string>

namespace spx::kernels::sptc {

constexpr int kWarpsN = 4;     ///< warps across BN
constexpr int kPairK = 64;     ///< B rows per k step (two mma.sp k tiles)
constexpr int kStages = 3;     ///< k steps in the cp.async ring
constexpr int kBPad = 8;       ///< 16-bit elements of padding per shared-memory B row
static_assert(kStages >= 2, "the pipeline needs at least two stages");

/// Bytes of one pair (two k tiles) of a panel's compressed A, metadata and gather indices, per
/// 16-row slice (A, metadata) or per pair (gather).
constexpr int kPairSliceABytes = 2 * 256 * 2;
constexpr int kPairSliceMBytes = 32 * 4;
constexpr int kPairGatherBytes = kPairK * 4;

/// Compile-time shape of one kernel instance. BLOCK_TILE 128 uses two rows of four warps
/// (256 threads); smaller tiles one row (128 threads). A warp covers kWarpSlices row slices x
/// BN / 4 columns, so its ldmatrix of B feeds kWarpSlices mma.sp and its A fragment BN / 32.
template <int BT, int BN>
struct TileShape {
  static_assert(BT == 16 || BT == 32 || BT == 64 || BT == 128, "BLOCK_TILE is 16, 32, 64 or 128");
  static_assert(BN == 64 || BN == 128, "BN is 64 or 128 columns");
  static constexpr int kSlices = BT / 16;
  static constexpr int kWarpsM = BT == 128 ? 2 : 1;
  static constexpr int kWarps = kWarpsM * kWarpsN;
  static constexpr int kThreads = 32 * kWarps;
  static constexpr int kWarpSlices = kSlices / kWarpsM;  ///< row slices per warp
  static_assert(kWarpSlices <= 4, "at most 4 row slices of accumulators per warp");
  static constexpr int kWarpN = BN / kWarpsN;  ///< C columns per warp
  static constexpr int kNB = kWarpN / 8;       ///< m16n8 blocks per warp and row slice
  static constexpr int kBStride = BN + kBPad;  ///< 16-bit elements per shared-memory B row
  // (BN + 8) * 2 bytes = 16 (mod 128): row r of an ldmatrix phase starts 4 r banks further, so
  // the 8 rows of a phase cover all 32 banks once.
  static_assert((kBStride * 2) % 128 == 16, "B rows must shift by 4 banks");
  static constexpr int kBBytes = kPairK * kBStride * 2;
  static constexpr int kABytes = kSlices * kPairSliceABytes;  ///< two k tiles of compressed A
  static constexpr int kMBytes = kSlices * kPairSliceMBytes;  ///< interleaved metadata
  static constexpr int kStageBytes = kBBytes + kABytes + kMBytes;
  static_assert(kBBytes % 16 == 0 && kABytes % 16 == 0 && kMBytes % 16 == 0,
                "cp.async 16-byte destinations");
  static constexpr int kIndexBytes = kStages * kPairK * 4;  ///< the gather-index ring
  /// The epilogue: every warp stages one 16-row slice of its own C columns in floats, in a
  /// region of its own (no block barrier; the pipeline keeps loading the next n tile), and
  /// writes it along C's contiguous dimension: 16 x (kWarpN + 4) when C is row-major, kWarpN x
  /// 18 when column-major (18: at most 2-way bank conflicts on the fragment stores; 8-byte reads).
  static constexpr int kSliceRowStride = kWarpN + 4;
  static constexpr int kSliceColStride = 18;
  static constexpr int kWarpEpilogueFloats =
      16 * kSliceRowStride > kWarpN * kSliceColStride ? 16 * kSliceRowStride
                                                       : kWarpN * kSliceColStride;
  static constexpr int kEpilogueBytes = kWarps * kWarpEpilogueFloats * 4;
  /// The panel's rows of C (offsets from its first row; filled once per block) so the epilogue
  /// reads the row map from shared memory, not from global memory once per vector.
  static constexpr int kRowMapBytes = BT * 4;
  static_assert(kRowMapBytes % 16 == 0, "the resident arrays after it start 16-byte aligned");
  static_assert((kSliceRowStride * 4) % 16 == 0 && (kSliceColStride * 4) % 8 == 0,
                "staged rows start 16-byte (row-major) / 8-byte (column-major) aligned");
  /// Streaming kernel: kStages x (B, A, metadata) + index ring + epilogue + row map.
  static constexpr int kSmemBytes =
      kStages * kStageBytes + kIndexBytes + kEpilogueBytes + kRowMapBytes;
  /// Resident-A kernel: the B ring, the epilogue, the row map, then the panel's gather indices,
  /// metadata and A for all its pairs (loaded once per block, reused by every n tile of the
  /// block).
  static constexpr int kResidentBaseBytes = kStages * kBBytes + kEpilogueBytes + kRowMapBytes;
  static constexpr int kResidentPairBytes =
      kPairGatherBytes + kSlices * (kPairSliceMBytes + kPairSliceABytes);
};

/// Compile-time shape of the warpgroup kernel (sm_90a, `spmm_wgmma.cu`): BLOCK_TILE 64 or 128
/// rows = one or two warpgroups, each computing 64 rows x BN with `wgmma.mma_async.sp` m64nBNk32
/// (A from registers, B from shared memory through a matrix descriptor). A warp holds one 16-row
/// slice x BN columns; its A fragments, metadata and accumulators have the m16n8k32 mma.sp
/// layout of that slice, so the storage is the same as the mma.sync kernel's. B sits in shared
/// memory in one of two MN-major layouts the descriptor names (no padding; see spmm_wgmma.cu):
/// 128-byte swizzle (the default: 1 KB atoms of 8 k rows x 64 columns, 16-byte chunk c of row k
/// at slot c ^ (k % 8), so a warp's copies of two whole B rows hit every bank once per 128
/// bytes) or no swizzle (8 k rows x 8 columns core matrices, 128 contiguous bytes).
template <int BT, int BN>
struct WgTileShape {
  static_assert(BT == 64 || BT == 128, "the warpgroup kernel covers 64-row warpgroups");
  static_assert(BN == 64 || BN == 128, "BN is 64 or 128 columns");
  static constexpr int kSlices = BT / 16;
  static constexpr int kWarps = kSlices;  ///< one 16-row slice per warp
  static constexpr int kThreads = 32 * kWarps;
  static constexpr int kNB = BN / 8;  ///< m16n8 accumulator blocks per warp
  static constexpr int kKGroupBytes = BN * 2 * 8;  ///< 8 k rows of B (BN / 8 core matrices)
  static constexpr int kBBytes = kPairK * BN * 2;
  static constexpr int kABytes = kSlices * kPairSliceABytes;
  static constexpr int kMBytes = kSlices * kPairSliceMBytes;
  /// Stages start 1 KB aligned (the 128-byte swizzle repeats every 1 KB of address).
  static constexpr int kStageBytes = (kBBytes + kABytes + kMBytes + 1023) / 1024 * 1024;
  static constexpr int kIndexBytes = kStages * kPairK * 4;
  /// Epilogue: a warp stages its 16 x BN slice 32 columns at a time (the mma.sync kernel's
  /// writer at a warp width of 32).
  static constexpr int kPartN = 32;
  static constexpr int kWarpEpilogueFloats =
      16 * (kPartN + 4) > kPartN * 18 ? 16 * (kPartN + 4) : kPartN * 18;
  static constexpr int kEpilogueBytes = kWarps * kWarpEpilogueFloats * 4;
  static constexpr int kRowMapBytes = BT * 4;
  /// + 1 KB: the kernel aligns the dynamic shared memory's base to 1 KB itself.
  static constexpr int kSmemBytes =
      1024 + kStages * kStageBytes + kIndexBytes + kEpilogueBytes + kRowMapBytes;
};
inline int wgmma_smem_bytes(int block_tile, int bn) {
  if (block_tile == 64) return bn == 128 ? WgTileShape<64, 128>::kSmemBytes
                                         : WgTileShape<64, 64>::kSmemBytes;
  if (block_tile == 128) return bn == 128 ? WgTileShape<128, 128>::kSmemBytes
                                          : WgTileShape<128, 64>::kSmemBytes;
  return 0;
}

/// Dynamic shared memory of a (BLOCK_TILE, BN) instance; resident: for panels of up to
/// max_pairs pairs (BN 128). Inline: the choice rule below is tested on the CPU.
template <int BT>
int smem_of(int bn, bool resident, int max_pairs) {
  using S64 = TileShape<BT, 64>;
  using S128 = TileShape<BT, 128>;
  if (resident) return S128::kResidentBaseBytes + max_pairs * S128::kResidentPairBytes;
  return bn == 128 ? S128::kSmemBytes : S64::kSmemBytes;
}
inline int smem_bytes(int block_tile, int bn, bool resident = false, int max_pairs = 0) {
  switch (block_tile) {
    case 16: return smem_of<16>(bn, resident, max_pairs);
    case 32: return smem_of<32>(bn, resident, max_pairs);
    case 64: return smem_of<64>(bn, resident, max_pairs);
    case 128: return smem_of<128>(bn, resident, max_pairs);
  }
  return 0;
}
/// Threads of a BLOCK_TILE's kernels.
inline int threads_for(int block_tile) { return block_tile == 128 ? 256 : 128; }

/// What spxSpMM_search may choose among: the n width of a block, how many n tiles one block
/// streams through its pipeline, and whether the block keeps its panel's A resident in shared
/// memory across those tiles (BLOCK_TILE is fixed by the plan's reorder).
struct SptcConfig {
  int block_tile = 32;
  int bn = 128;
  int tiles_per_block = 1;  ///< consecutive BN-wide tiles of one panel per block
  bool resident = false;    ///< A, metadata and gather of the panel loaded once per block
  bool wgmma = false;       ///< the sm_90a warpgroup kernel (streaming; BLOCK_TILE 64 / 128)
  /// wgmma only: B staged in the no-swizzle interleaved layout instead of the 128-byte swizzle
  /// (SPX_SPTC_WG_INTERLEAVE=1; measurements).
  bool wg_interleave = false;
  bool operator==(const SptcConfig& o) const {
    return block_tile == o.block_tile && bn == o.bn && tiles_per_block == o.tiles_per_block &&
           resident == o.resident && wgmma == o.wgmma && wg_interleave == o.wg_interleave;
  }
  std::string describe() const {
    return "BLOCK_TILE " + std::to_string(block_tile) + " BN " + std::to_string(bn) + " x" +
           std::to_string(tiles_per_block) + (resident ? " resident A" : "") +
           (wgmma ? " wgmma.sp" : "") + (wgmma && wg_interleave ? " interleaved B" : "") +
           " stages " + std::to_string(kStages);
  }
};

/// Blocks of an instance that can be resident at once: by shared memory (228 KB per SM, 1 KB
/// reserved per block), by registers (at most 128 per thread: 65536 per SM) and at most 4.
inline int64_t resident_blocks(int sm_count, int smem, int threads = 128) {
  int64_t per_sm = 233472 / (static_cast<int64_t>(smem) + 1024);
  const int64_t by_regs = 65536 / (128 * static_cast<int64_t>(threads));
  if (per_sm > by_regs) per_sm = by_regs;
  if (per_sm > 4) per_sm = 4;
  if (per_sm < 1) per_sm = 1;
  return per_sm * (sm_count > 0 ? sm_count : 132);
}

/// Tiles per block: a block streams its panel's k steps for several n tiles in one pipeline, so
/// the fill latency of a short panel (a few k steps) is paid once per block instead of once per
/// tile; as many as keep at least two waves of blocks. (A model that fills whole waves instead,
/// 8 tiles per block for 16384 x 512 x 4096 at BLOCK_TILE 128, measured slower: 0.192 ms
/// against 0.174 ms at this rule's 7 and 0.170 ms at 4; panels of unequal length balance
/// better over more blocks. README, notes.)
inline int tiles_per_block_for(int64_t panels, int64_t n, int block_tile, int bn, int sm_count,
                               int smem = 0) {
  const int64_t tiles = (n + bn - 1) / bn;
  if (smem <= 0) smem = smem_bytes(block_tile, bn);
  const int64_t want_blocks = 2 * resident_blocks(sm_count, smem, threads_for(block_tile));
  int64_t per = panels * tiles / (want_blocks > 0 ? want_blocks : 1);
  if (per < 1) per = 1;
  if (per > tiles) per = tiles;
  return static_cast<int>(per);
}

/// BLOCK_TILE 32 -> 64 for an m-row matrix times mid-width B (256 < n < 2048): when the
/// BLOCK_TILE 32 grid (BN 64 tiles) needs more than one wave of resident blocks and the
/// BLOCK_TILE 64 grid fits in one, the plan reorders at 64 too and takes it if its panels gather
/// no more B rows in total (one wave of 64-row panels against two of 32-row ones). The cost
/// model's B-row weight does not see waves. Measured on H100 (DLMC 95 %, V = 8, n = 512, same
/// process as the previous library): the 71 transformer 4096 x 512 attention matrices ran 11.3
/// -> 10.6 us (BLOCK_TILE 32 -> 64), the ten 4096 x 2048 ffn 23.4 -> 21.2 us, rn50 4096 x 1024 /
/// 2048 / 4608 -8 / -10 / -12 %. Raising the B-row weight instead (every mid-width matrix with a
/// wave of BLOCK_TILE 64 blocks) also moved taller matrices (8192 rows and more: two or more
/// waves either way) and BLOCK_TILE 16 picks, 1-16 % slower (README, notes v4).
inline bool promote_to_block_tile_64(int64_t m, int64_t n, int sm_count) {
  if (n <= 256 || n >= 2048) return false;
  const int64_t tiles = (n + 63) / 64;
  const int64_t grid32 = (m + 31) / 32 * tiles, grid64 = (m + 63) / 64 * tiles;
  return grid32 > resident_blocks(sm_count, smem_bytes(32, 64), threads_for(32)) &&
         grid64 <= resident_blocks(sm_count, smem_bytes(64, 64), threads_for(64));
}

/// The warpgroup kernel (sm_90a) for a configuration the rule chose: BLOCK_TILE 64 / 128 only
/// (a warpgroup is 64 rows), streaming (its A comes with every stage; no resident variant), BN
/// as chosen, tiles per block recomputed for its shared memory and threads. Why it pays: one
/// wgmma.sp m64n128k32 does the work of 16 mma.sp per warp at Hopper's full sparse rate and is
/// issued asynchronously, so the warps' issue slots go to the gather (README, notes v5).
inline bool wgmma_fits(int block_tile) { return block_tile == 64 || block_tile == 128; }
/// Whether DEFAULT takes the warpgroup kernel where it fits (SPX_SPTC_WGMMA=1 / 0 forces it on /
/// off for every plan). See README, notes v5, for the measurements behind it.
inline bool wgmma_default(int block_tile, int64_t n) {
  (void)n;
  return wgmma_fits(block_tile);
}
inline SptcConfig with_wgmma(SptcConfig c, int64_t panels, int64_t n, int sm_count) {
  if (!wgmma_fits(c.block_tile)) return c;
  c.wgmma = true;
  c.resident = false;
  c.tiles_per_block = tiles_per_block_for(panels, n, c.block_tile, c.bn, sm_count,
                                          wgmma_smem_bytes(c.block_tile, c.bn));
  return c;
}

/// Largest shared memory one block may opt in to (H100 and A100: 227 KB).
constexpr int kMaxSmemPerBlock = 232448;

/// THE rule: BN = 128 (each A fragment feeds 4 mma.sp per warp) unless the grid of BN = 128
/// tiles would leave fewer than two blocks per resident slot, or n fits in 64; then the tiles
/// per block. With two or more tiles per block and a row-major, 16-byte aligned B (`aligned`),
/// A stays resident when the longest panel (max_pairs) still lets two blocks share an SM: the
/// block then reads its panel's A from L2 once instead of once per n tile.
inline SptcConfig choose_config(int block_tile, int64_t panels, int64_t n, int sm_count,
                                int max_pairs = 0, bool aligned = false) {
  SptcConfig c;
  c.block_tile = block_tile;
  const int64_t wide = panels * ((n + 127) / 128);
  c.bn = (n <= 64 || wide < 2 * resident_blocks(sm_count, smem_bytes(block_tile, 128),
                                                threads_for(block_tile)))
             ? 64
             : 128;
  c.tiles_per_block = tiles_per_block_for(panels, n, block_tile, c.bn, sm_count);
  if (aligned && c.bn == 128 && block_tile >= 64 && c.tiles_per_block >= 2 && max_pairs > 0) {
    const int smem = smem_bytes(block_tile, 128, true, max_pairs);
    if (2 * (smem + 1024) <= 233472) {
      c.resident = true;
      c.tiles_per_block = tiles_per_block_for(panels, n, block_tile, c.bn, sm_count, smem);
    }
  }
  return c;
}

}  // namespace spx::kernels::sptc
