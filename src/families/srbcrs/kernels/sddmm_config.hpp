// The tile configuration of the SR-BCRS SDDMM kernel (plain C++, no CUDA: the plan code and the
// kernels include it). README.md ("SDDMM") explains every number.
//
// A warp owns one task: one vector-row of C (V <= 8 rows) and one stride of 32 of its vectors
// (slots of the SR-BCRS layout; padding slots past the row's end compute nothing that is kept).
// Per step of 64 values of k it issues, for each of its two m16 tiles, two
// mma.sync.m16n8k32 (int8 -> int32) computed transposed:
//   D (16 x 8) += Bg^T (16 x 32) * Ar^T (32 x 8)
// Bg^T = 16 gathered columns of B (the m = 16 side), Ar^T = the V rows of A (the n = 8 side; rows
// V..7 are zero). Lane (g, t) reads k positions 16t .. 16t+15 of the step from A's row g and from
// the B columns of slots 16i + g and 16i + 8 + g: one 16-byte copy each for 8-bit operands,
// through a per-warp cp.async ring (the stage count is in sddmm_kernel.cuh, AsyncStage).
#pragma once

#include <cstdint>

namespace spx::kernels::srbcrs {

struct SddmmTile {
  /// Slots (vectors of C) per warp: one stride of the SR-BCRS layout.
  static constexpr int kSlots = 32;
  /// m16 mma tiles per warp (kSlots / 16), sharing the A fragment of a step.
  static constexpr int kMmaTiles = kSlots / 16;
  /// Reduction size of one mma (m16n8k32 on int8).
  static constexpr int kMmaK = 32;
  /// Values of k per step: each lane owns 16 consecutive ones (two mma per tile).
  static constexpr int kStepK = 64;
  static constexpr int kLaneK = kStepK / 4;
  /// Warps (tasks) per block: consecutive tasks mostly share a vector-row, so A's rows are read
  /// from L1 after the first warp.
  static constexpr int kWarps = 4;
  static constexpr int kThreads = kWarps * 32;
  /// Largest vector length (the n = 8 side of the mma).
  static constexpr int kMaxVec = 8;

  /// Bytes a lane loads per operand row / column and step: 16 positions of `bits`.
  static constexpr int lane_bytes(int bits) { return kLaneK * bits / 8; }
  /// Bytes of one step of a k-contiguous row.
  static constexpr int step_bytes(int bits) { return kStepK * bits / 8; }
};

static_assert(SddmmTile::kSlots == 32, "a task is one 32-slot stride of the SR-BCRS layout");
static_assert(SddmmTile::kMmaTiles * 16 == SddmmTile::kSlots, "whole m16 tiles per task");
static_assert(SddmmTile::kStepK == 2 * SddmmTile::kMmaK, "a step is two mma of k = 32");
static_assert(SddmmTile::lane_bytes(8) == 16, "an 8-bit lane fragment is one 16-byte load");

}  // namespace spx::kernels::srbcrs
