// Stream-K for the NM tensor-copy kernel: the last, partly filled wave of tiles is shared out
// evenly over every block slot instead of running one tile per slot. Plain integer functions,
// compiled for the device by the kernel (spmm_bulk.cuh) and for the host by the plan and the CPU
// test (tests/families/nm/test_nm_layout.cpp), so the schedule the kernel runs is the one tested.
//
// Why. A tile's time hardly depends on how many tiles run beside it, so a grid of 1024 Wide tiles
// on 264 slots (H100 / H200, 132 SMs x 2) takes four full waves: measured on an H100 at 4096^3,
// m = 3968 (992 tiles), 4096 (1024) and 4224 (1056) all ran 1.100-1.107 ms at 62.5 %. The last
// wave's 232 tiles leave 32 slots idle, 3 % of the whole product.
//
// How. A unit is one stage of one tile, numbered tile * stages + stage with tiles in launch
// order (tile = m-tile + n-tile * m-tiles). The first dp_tiles tiles are computed whole, one
// block each (blocks 0 .. dp_tiles - 1, as without stream-K). The remaining tiles' units are
// cut into `blocks` contiguous ranges of (almost) equal length, one per stream-K block (blocks
// dp_tiles .. dp_tiles + blocks - 1). A range may start or end inside a tile: the block computes
// those stages as a partial product (a "segment"). Each warp writes its share of a partial
// segment to the block's workspace slot and counts it on the tile's counter for that warp; the
// part that counts last adds the parts in their order along k (deterministic, whoever is last)
// and stores the tile with alpha and beta (spmm_stream_k.cuh). No block ever waits for another,
// so the result does not depend on which blocks run at once.
#pragma once

#include <cmath>
#include <cstdint>

#if defined(__CUDACC__)
#define SPX_NM_HD __host__ __device__ __forceinline__
#else
#define SPX_NM_HD inline
#endif

namespace spx::kernels::nm {

/// The tiles below this many stages are not shared out: a part's fixed cost (its partial
/// product written and read back, ~2-4 us) would eat the wave it saves.
constexpr int64_t kStreamKMinStages = 16;

/// The schedule of one launch: `tiles` tiles of `stages` stages, the first `dp_tiles` whole, the
/// rest over `blocks` stream-K blocks (blocks == 0: stream-K off, one block per tile).
struct StreamKSchedule {
  int64_t tiles = 0, stages = 0;
  int64_t dp_tiles = 0;
  int64_t blocks = 0;

  SPX_NM_HD bool on() const { return blocks > 0; }
  /// Blocks of the launch: the whole tiles' and the stream-K blocks.
  SPX_NM_HD int64_t grid() const { return on() ? dp_tiles + blocks : tiles; }
  SPX_NM_HD int64_t region_begin() const { return dp_tiles * stages; }
  SPX_NM_HD int64_t region_units() const { return (tiles - dp_tiles) * stages; }
  /// First unit of stream-K block j; j == blocks gives the end of the region.
  SPX_NM_HD int64_t first_unit(int64_t j) const {
    return region_begin() + j * region_units() / blocks;
  }
  /// The stream-K block whose range holds unit u (a unit of the region): the largest j with
  /// first_unit(j) <= u, i.e. j * R / B <= u - begin < (j + 1) * R / B (integer divisions).
  SPX_NM_HD int64_t block_of(int64_t u) const {
    return ((u - region_begin() + 1) * blocks - 1) / region_units();
  }
  /// The stream-K blocks that compute part of tile t (t >= dp_tiles): first and last.
  SPX_NM_HD int64_t first_block(int64_t t) const { return block_of(t * stages); }
  SPX_NM_HD int64_t last_block(int64_t t) const { return block_of((t + 1) * stages - 1); }
  /// Workspace slot of block j's partial product of tile t: a range has at most one partial
  /// segment at each end, so 2j for the segment its range starts with (it starts inside t or
  /// at t's first stage) and 2j + 1 for the one it ends with (it started before t).
  SPX_NM_HD int64_t slot(int64_t j, int64_t t) const {
    return 2 * j + (first_unit(j) < t * stages ? 1 : 0);
  }
  SPX_NM_HD int64_t slots() const { return 2 * blocks; }
  /// Tiles with a counter (those of the region).
  SPX_NM_HD int64_t region_tiles() const { return tiles - dp_tiles; }
};

/// The schedule for `tiles` tiles of `stages` stages on `slots` block slots (the blocks that run
/// at once). Off when the whole waves are full or nearly so (less than a tenth of a wave idle),
/// when the tiles are too short (kStreamKMinStages), when there are fewer tiles than half the
/// slots (split-K's case: choose_tile), or when the units would not fit 31 bits (the kernel
/// counts them in int). A tail of at least half a wave is shared out alone over one wave of
/// blocks; a shorter tail goes with the last full wave, over two waves of blocks. Either way a
/// range is 1/2 to 1 tile: a block computes at most two segments (the kernel runs each with its
/// own stage loop and restarts the pipeline once between them) and a tile has at most three
/// parts.
inline StreamKSchedule plan_stream_k(int64_t tiles, int64_t stages, int64_t slots) {
  StreamKSchedule s;
  s.tiles = tiles;
  s.stages = stages;
  if (tiles <= 0 || slots < 2 || stages < kStreamKMinStages || tiles * stages > INT32_MAX)
    return s;
  const int64_t waves = tiles / slots, tail = tiles % slots;
  if (tail == 0 || 10 * tail > 9 * slots) return s;
  int64_t region = tail;
  if (2 * tail < slots) {
    if (waves == 0) return s;
    region += slots;
  }
  s.dp_tiles = tiles - region;
  s.blocks = slots * ((region + slots - 1) / slots);
  return s;
}

/// What stream-K costs, measured on an H100 at 4096^3, 62.5 %, row-major B (Wide tile, 264
/// slots): the stream-K kernel runs 2 % slower per tile than the one-tile kernel (its segment
/// loop: SPX_NM_STREAM_K_SLOTS=5, where it computes all but 4 tiles whole, 1.128 against 1.104
/// ms), and the parts' meeting and the ragged start of the shared wave cost ~0.06 of a wave
/// (the schedule at 264 slots: 1.110 ms, where 3.88 waves of 1.128 / 4 would be 1.094).
constexpr double kStreamKTileCost = 1.02;
constexpr double kStreamKMeetingWaves = 0.06;

/// Whether schedule s on `slots` slots is predicted faster than one block per tile by at least
/// the factor `gain`, in waves: ceil(tiles / slots) whole against tiles / slots x
/// kStreamKTileCost + kStreamKMeetingWaves. At 4096^3 (3.88 waves) it is not (4.02 against 4).
inline bool stream_k_pays(const StreamKSchedule& s, int64_t slots, double gain) {
  if (!s.on() || slots <= 0) return false;
  const double waves = static_cast<double>(s.tiles) / static_cast<double>(slots);
  return waves * kStreamKTileCost + kStreamKMeetingWaves <= std::ceil(waves) / gain;
}

}  // namespace spx::kernels::nm
