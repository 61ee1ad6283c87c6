// The tile configuration of the SR-BCRS SpMM kernel (plain C++, no CUDA: the plan code and the
// kernels include it). Named structs; README.md explains every number.
//
// A warp owns one vector-row (V rows of C) and 64 dense columns (32 for 16-bit B), and walks the
// row's strides of 32 slots (64 on the native int4 path). Per stride it computes mma tiles
// *transposed*:
//   D (16 x 8) += Bg (16 x k) * As (k x 8)
// Bg = 16 dense columns x k gathered rows of B (the m = 16 side), As = the stride's V <= 8 sparse
// rows x k slots (the n = 8 side; rows V..7 are ignored). Warps are independent (no block-level
// barrier): each fills its own shared-memory ring of `kStages` stages with cp.async.
#pragma once

#include <cstdint>

namespace spx::kernels::srbcrs {

struct SpmmTile {
  /// Slots per stride of the int8 path = the mma's reduction size k (m16n8k32 on int8).
  static constexpr int kStride = 32;
  /// Dense columns per warp for 8- and 4-bit B: 4 mma tiles of 16 (8 bytes of an int8 B row
  /// per lane). 16-bit B takes 32 (see SpmmShape).
  static constexpr int kWarpCols = 64;
  static constexpr int kMmaTiles = 4;
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

  /// Bytes of one gathered B row chunk in shared memory: 64 int8, 64 int4 or 32 int16 columns.
  static constexpr int b_row_bytes(int b_bits) { return b_bits == 4 ? 32 : 64; }
  /// Dense columns of one warp: 64, or 32 for 16-bit B (whose 64-byte row chunk they fill).
  static constexpr int warp_cols(int b_bits) { return b_bits == 16 ? 32 : kWarpCols; }
  /// Slots per stride: 32 (m16n8k32 on int8), 64 on the native int4 path (m16n8k64).
  static constexpr int stride(bool native_int4) { return native_int4 ? 64 : kStride; }
  /// int8 slices of one A value: 16-bit A is two (low byte unsigned, high byte signed).
  static constexpr int a_slices(int a_bits) { return a_bits == 16 ? 2 : 1; }
  /// Bytes of one stage of B (stride rows) and of A (V <= 8 rows of stride slots, every slice).
  static constexpr int b_stage_bytes(int b_bits, bool native_int4 = false) {
    return stride(native_int4) * b_row_bytes(b_bits);
  }
  static constexpr int a_stage_bytes(int a_bits, bool native_int4 = false) {
    return kMaxVec * stride(native_int4) * a_bits / 8;
  }
  /// Shared memory of one warp and of one block.
  static constexpr int warp_smem_bytes(int a_bits, int b_bits, bool native_int4 = false) {
    return kStages * (b_stage_bytes(b_bits, native_int4) + a_stage_bytes(a_bits, native_int4));
  }
  static constexpr int block_smem_bytes(int a_bits, int b_bits, bool native_int4 = false) {
    return kWarps * warp_smem_bytes(a_bits, b_bits, native_int4);
  }
};

/// The compile-time shape of one kernel instance: A bits (4, 8 or 16 = two int8 slices), B bits
/// (4, 8 or 16 = two int8 slices per column), and whether 4-bit A and B feed m16n8k64 natively.
template <int ABits, int BBits, bool NativeInt4>
struct SpmmShape {
  static constexpr int kStride = SpmmTile::stride(NativeInt4);
  static constexpr int kWarpCols = SpmmTile::warp_cols(BBits);
  /// Output columns one lane owns (8 consecutive; 4 for 16-bit B) and where they start: lane g.
  static constexpr int kLaneCols = kWarpCols / 8;
  static constexpr int kASlices = SpmmTile::a_slices(ABits);
  static constexpr int kBRowBytes = SpmmTile::b_row_bytes(BBits);
  static constexpr int kBStageBytes = SpmmTile::b_stage_bytes(BBits, NativeInt4);
  static constexpr int kAStageBytes = SpmmTile::a_stage_bytes(ABits, NativeInt4);
  static constexpr int kStageBytes = kBStageBytes + kAStageBytes;
  /// Column indices each lane holds per stride (lane p: load positions p, p + 32, ...).
  static constexpr int kIndicesPerLane = kStride / 32;

  static_assert(ABits == 4 || ABits == 8 || ABits == 16, "A is 4-, 8- or 16-bit");
  static_assert(BBits == 4 || BBits == 8 || BBits == 16, "B is 4-, 8- or 16-bit");
  static_assert(!NativeInt4 || (ABits == 4 && BBits == 4), "the native path is L4-R4 only");
  static_assert(kStride == 32 || kStride == 64, "one or two halves of 32 load positions");
  static_assert(kWarpCols * BBits / 8 == SpmmTile::b_row_bytes(BBits),
                "a warp's columns fill one B row chunk");
  static_assert(kBStageBytes % (16 * 32) == 0, "a stage of B is whole 16-byte copies of every lane");
  static_assert(kStageBytes % 16 == 0, "stages start 16-byte aligned");
  static_assert(SpmmTile::kMaxVec * kStride * ABits / 8 <= 32 * 16,
                "one 16-byte cp.async per lane copies a stride's A values");
  static_assert(SpmmTile::block_smem_bytes(ABits, BBits, NativeInt4) <= 48 * 1024,
                "the static shared memory of a block must stay under 48 KiB");
  static_assert(SpmmTile::kWarps * 32 * 16 * 4 <= SpmmTile::block_smem_bytes(ABits, BBits, NativeInt4),
                "the split-K partial sums fit in the (then idle) stage rings");
};

static_assert(SpmmTile::kStride == 32, "the lane <-> slot mapping assumes 32 slots per stride");
static_assert(SpmmTile::kWarpCols == 64, "each lane reads 8 consecutive columns of a B row");
static_assert(SpmmTile::kStages >= 2, "the ring needs a stage in flight while one computes");

}  // namespace spx::kernels::srbcrs
