// The tile configuration of the SR-BCRS SpMM kernel (plain C++, no CUDA: the plan code and the
// kernels include it). One named struct; README.md explains every number.
//
// A warp owns one vector-row (V rows of C) and 64 dense columns, and walks the row's strides of
// 32 slots. Per stride it computes four mma.sync.m16n8k32 (int8 -> int32) tiles *transposed*:
//   D (16 x 8) += Bg (16 x 32) * As (32 x 8)
// Bg = 16 dense columns x 32 gathered rows of B (the m = 16 side), As = the stride's V <= 8 sparse
// rows x 32 slots (the n = 8 side; rows V..7 are ignored). Warps are independent (no block-level
// barrier): each fills its own shared-memory ring of `kStages` stages with cp.async.
#pragma once

#include <cstdint>

namespace spx::kernels::srbcrs {

struct SpmmTile {
  /// Slots per stride = the mma's reduction size k (m16n8k32 on int8).
  static constexpr int kStride = 32;
  /// Dense columns per warp: 4 mma tiles of 16 (8 bytes of an int8 B row per lane).
  static constexpr int kWarpCols = 64;
  static constexpr int kMmaTiles = kWarpCols / 16;
  /// Warps per block. Warps share nothing but L1 (the block's warps take the same vector-row's
  /// consecutive column tiles, so its indices and values are read from DRAM once).
  static constexpr int kWarps = 4;
  static constexpr int kThreads = kWarps * 32;
  /// cp.async ring depth per warp: stage s + kStages - 1 is in flight while stage s computes.
  static constexpr int kStages = 4;
  /// Largest vector length (the n = 8 side of the mma).
  static constexpr int kMaxVec = 8;
  /// Stages of column indices loaded into registers ahead of the stage that needs them.
  static constexpr int kIndexAhead = 2;

  /// Bytes of one gathered B row chunk in shared memory: 64 int8 or 64 int4 columns.
  static constexpr int b_row_bytes(int b_bits) { return kWarpCols * b_bits / 8; }
  /// Bytes of one stage of B (kStride rows) and of A (V <= 8 rows of kStride slots).
  static constexpr int b_stage_bytes(int b_bits) { return kStride * b_row_bytes(b_bits); }
  static constexpr int a_stage_bytes(int a_bits) { return kMaxVec * kStride * a_bits / 8; }
  /// Shared memory of one warp and of one block.
  static constexpr int warp_smem_bytes(int a_bits, int b_bits) {
    return kStages * (b_stage_bytes(b_bits) + a_stage_bytes(a_bits));
  }
  static constexpr int block_smem_bytes(int a_bits, int b_bits) {
    return kWarps * warp_smem_bytes(a_bits, b_bits);
  }
};

static_assert(SpmmTile::kStride == 32, "the lane <-> slot mapping assumes 32 slots per stride");
static_assert(SpmmTile::kWarpCols == 64, "each lane reads 8 consecutive columns of a B row");
static_assert(SpmmTile::kStages >= 2, "the ring needs a stage in flight while one computes");
static_assert(SpmmTile::block_smem_bytes(8, 8) <= 48 * 1024,
              "the static shared memory of a block must stay under 48 KiB");

}  // namespace spx::kernels::srbcrs
