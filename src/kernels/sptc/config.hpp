// Tile configuration of the SpTC mma.sp kernel and the rule that picks one from the shape. Plain
// C++ (no CUDA): the plan, the kernels and the CPU tests include it. See README.md.
//
// One thread block computes a BLOCK_TILE x BN tile of C: one panel of the reorder (BLOCK_TILE
// rows, BLOCK_TILE / 16 row slices) times BN columns of B. Four warps split BN; each warp owns
// every row slice of the panel times BN / 4 columns, so a B fragment loaded by ldmatrix feeds
// BLOCK_TILE / 16 mma.sp and an A fragment feeds BN / 32. A k step is a pair of m16n8k32 k tiles
// (64 B rows gathered), kStages steps in flight (cp.async), the gather indices one step further.
#pragma once

#include <cstdint>
#include <string>

namespace spx::kernels::sptc {

constexpr int kThreads = 128;  ///< four warps
constexpr int kWarps = kThreads / 32;
constexpr int kPairK = 64;     ///< B rows per k step (two mma.sp k tiles)
constexpr int kStages = 3;     ///< k steps in the cp.async ring
constexpr int kBPad = 8;       ///< 16-bit elements of padding per shared-memory B row
static_assert(kStages >= 2, "the pipeline needs at least two stages");

/// Compile-time shape of one kernel instance.
template <int BT, int BN>
struct TileShape {
  static_assert(BT == 16 || BT == 32 || BT == 64, "BLOCK_TILE is 16, 32 or 64 rows");
  static_assert(BN == 64 || BN == 128, "BN is 64 or 128 columns");
  static constexpr int kSlices = BT / 16;
  static constexpr int kWarpN = BN / kWarps;  ///< C columns per warp
  static constexpr int kNB = kWarpN / 8;      ///< m16n8 blocks per warp and row slice
  static constexpr int kBStride = BN + kBPad; ///< 16-bit elements per shared-memory B row
  // (BN + 8) * 2 bytes = 16 (mod 128): row r of an ldmatrix phase starts 4 r banks further, so
  // the 8 rows of a phase cover all 32 banks once.
  static_assert((kBStride * 2) % 128 == 16, "B rows must shift by 4 banks");
  static constexpr int kBBytes = kPairK * kBStride * 2;
  static constexpr int kABytes = kSlices * 2 * 256 * 2;  ///< two k tiles of compressed A
  static constexpr int kMBytes = kSlices * 32 * 4;       ///< interleaved metadata
  static constexpr int kStageBytes = kBBytes + kABytes + kMBytes;
  static_assert(kBBytes % 16 == 0 && kABytes % 16 == 0 && kMBytes % 16 == 0,
                "cp.async 16-byte destinations");
  static constexpr int kIndexBytes = kStages * kPairK * 4;  ///< the gather-index ring
  /// The epilogue stages one 16-row slice of C at a time in floats, in a region of its own (the
  /// pipeline keeps loading the next n tile meanwhile): 16 x (BN + 4) when C is row-major (rows
  /// padded to 16 bytes), BN x 16 when C is column-major.
  static constexpr int kSliceRowStride = BN + 4;
  static constexpr int kSliceColStride = 16;
  static constexpr int kEpilogueBytes = 16 * kSliceRowStride * 4;
  static_assert(BN * kSliceColStride * 4 <= kEpilogueBytes, "both slice layouts fit");
  static constexpr int kSmemBytes = kStages * kStageBytes + kIndexBytes + kEpilogueBytes;
};

/// Dynamic shared memory of a (BLOCK_TILE, BN) instance.
int smem_bytes(int block_tile, int bn);

/// What spxSpMM_search may choose among: the n width of a block and how many n tiles one block
/// streams through its pipeline (BLOCK_TILE is fixed by the plan's reorder).
struct SptcConfig {
  int block_tile = 32;
  int bn = 128;
  int tiles_per_block = 1;  ///< consecutive BN-wide tiles of one panel per block
  bool operator==(const SptcConfig& o) const {
    return block_tile == o.block_tile && bn == o.bn && tiles_per_block == o.tiles_per_block;
  }
  std::string describe() const {
    return "BLOCK_TILE " + std::to_string(block_tile) + " BN " + std::to_string(bn) + " x" +
           std::to_string(tiles_per_block) + " stages " + std::to_string(kStages);
  }
};

/// Blocks of an instance that can be resident at once: by shared memory (228 KB per SM, 1 KB
/// reserved per block), at most 4 per SM (registers: up to 128 per thread at BLOCK_TILE 64).
inline int64_t resident_blocks(int sm_count, int smem) {
  int64_t per_sm = 233472 / (static_cast<int64_t>(smem) + 1024);
  if (per_sm > 4) per_sm = 4;
  if (per_sm < 1) per_sm = 1;
  return per_sm * (sm_count > 0 ? sm_count : 132);
}

/// Tiles per block: a block streams its panel's k steps for several n tiles in one pipeline, so
/// the fill latency of a short panel (a few k steps) is paid once per block instead of once per
/// tile; as many as keep at least two waves of blocks.
inline int tiles_per_block_for(int64_t panels, int64_t n, int block_tile, int bn, int sm_count) {
  const int64_t tiles = (n + bn - 1) / bn;
  const int64_t want_blocks = 2 * resident_blocks(sm_count, smem_bytes(block_tile, bn));
  int64_t per = panels * tiles / (want_blocks > 0 ? want_blocks : 1);
  if (per < 1) per = 1;
  if (per > tiles) per = tiles;
  return static_cast<int>(per);
}

/// THE rule: BN = 128 (each A fragment feeds 4 mma.sp per warp) unless the grid of BN = 128
/// tiles would leave fewer than two blocks per resident slot, or n fits in 64; then the tiles
/// per block.
inline SptcConfig choose_config(int block_tile, int64_t panels, int64_t n, int sm_count) {
  SptcConfig c;
  c.block_tile = block_tile;
  const int64_t wide = panels * ((n + 127) / 128);
  c.bn = (n <= 64 || wide < 2 * resident_blocks(sm_count, smem_bytes(block_tile, 128))) ? 64 : 128;
  c.tiles_per_block = tiles_per_block_for(panels, n, block_tile, c.bn, sm_count);
  return c;
}

}  // namespace spx::kernels::sptc
