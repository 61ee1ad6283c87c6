// Compile-time tile shapes of the SpTC kernels (shared-memory layouts, threads). Plain C++ (no
// CUDA): the kernels, the choice rule (plan/choice.hpp) and the CPU tests include it. See
// README.md.
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

/// Largest shared memory one block may opt in to (H100 and A100: 227 KB).
constexpr int kMaxSmemPerBlock = 232448;

}  // namespace spx::kernels::sptc
