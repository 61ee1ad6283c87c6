// Host planning of the NM family (plain C++, no CUDA): validation of the user's N:M indices, the
// stage geometry, the paper's offline pre-processing for packed loads (Fig. 4: col_info per
// (row tile, stage), the indices re-ordered into positions of the packed rows, and the layout
// change to stage-contiguous blocks), and the packing decision from the arithmetic-intensity
// model (the paper's Eq. 3).
//
// The kernels never see the user's positions-in-window. For every group g and compressed slot u
// they read ridx[g][u]: the row of the stage's shared B buffer that slot reads, i.e.
//   non-packing: (u_in_stage / N) * M + index   (the stage buffer holds all k_s = W * M rows)
//   packing:     position of that row in the pack tile's col_info list for the stage.
// uint16 values: 2 bytes per (group, slot) against 4 * L bytes of values, so the indices cost
// 1 / (2L) <= 3.1 % of the values, and col_info as much again at most (see nm_metadata_bytes).
#pragma once

#include <cstdint>
#include <vector>

namespace spx::plan {

/// Shape of a vector-wise N:M matrix in the spxCreateNM layout.
struct NmDims {
  int64_t rows = 0, cols = 0, n = 0, m = 0, l = 0;
  int64_t kc() const { return m > 0 ? cols / m * n : 0; }
  int64_t groups() const { return l > 0 ? rows / l : 0; }
};

/// INVALID_VALUE unless every index is in [0, M) and indices increase strictly inside a window.
/// `idx` holds groups() x kc() int32 entries.
void validate_nm_indices(const NmDims& d, const int32_t* idx);

/// How the compressed dimension is cut into pipeline stages, and the padded plan arrays.
struct NmStaging {
  int64_t windows = 0;     ///< W: windows of M columns per stage
  int64_t w_s = 0;         ///< compressed slots per stage (N * W)
  int64_t k_s = 0;         ///< columns of A (rows of B) per stage (M * W)
  int64_t stages = 0;      ///< ceil(kc / w_s)
  int64_t kc_pad = 0;      ///< stages * w_s
  int64_t rows_pad = 0;    ///< rows rounded up to row_pad
  int64_t groups_pad = 0;  ///< rows_pad / L
};
NmStaging nm_staging(const NmDims& d, int64_t windows, int64_t row_pad);

/// How many B rows packed stages hold: the union, over the groups of a pack tile, of their kept
/// rows in the stage. `mean_rows` averages the union size over every (tile, stage) pair;
/// `mean_sectors` the number of distinct 32-byte sectors (8 consecutive rows of a column-major B)
/// those rows fall in; `max_rows` the largest union. With `max_pairs` > 0 and more (tile, stage)
/// pairs than that, the statistics come from every k-th pack tile (k = pairs / max_pairs rounded
/// up; all their stages): the packing decision needs the mean, and a full pass costs ~40 ms of
/// analyze on a 17920 x 6656 weight. `sampled_tiles` says how many tiles were read.
struct NmUnionStats {
  double mean_rows = 0, mean_sectors = 0;
  int64_t max_rows = 0;
  int64_t sampled_tiles = 0;
};
NmUnionStats nm_union_stats(const NmDims& d, const int32_t* idx, const NmStaging& s,
                            int64_t pack_tile_rows, int64_t max_pairs = 0);

/// The kernel-ready index arrays.
struct NmIndexLayout {
  bool packing = false;
  int64_t pack_capacity = 0;         ///< P_max: col_info entries per (tile, stage) (packing)
  int64_t tiles = 0;                 ///< pack tiles (rows_pad / pack_tile_rows) (packing)
  std::vector<uint16_t> ridx;        ///< groups_pad x kc_pad: stage buffer row per (group, slot)
  std::vector<uint16_t> col_info;    ///< tiles x stages x P_max: stage-relative B rows to load
  std::vector<int32_t> col_count;    ///< tiles x stages: used entries of each col_info list
};
/// Builds ridx (and col_info when packing). Padding slots (slot >= kc) repeat the row of the
/// group's first slot of their stage (their A values are zero); padding groups (rows >= rows)
/// read row 0. `pack_capacity` must be >= max_rows of nm_union_stats.
NmIndexLayout nm_build_layout(const NmDims& d, const int32_t* idx, const NmStaging& s, bool packing,
                              int64_t pack_tile_rows, int64_t pack_capacity);

/// Device bytes of the index arrays of a layout (ridx + col_info + col_count).
int64_t nm_metadata_bytes(const NmIndexLayout& layout);

/// The roofline of one block stage (the paper's Eq. 3 per stage, C traffic left out as it is paid
/// once): FLOPs = 2 * BM * BN * w_s; bytes = 4 * (w_s * BM + rows * BN) where rows is k_s
/// (non-packing) or the mean packed union (packing), plus 2 bytes per col_info entry. For a
/// column-major B the L2 traffic of a packed stage is really whole 32-byte sectors (packed_sectors),
/// but its loader is bound by the one-element copies, which shrink with the rows as for a
/// row-major B (measured on H200: non-packed 1:8 column-major ran at 0.8x cuBLAS).
/// The time of a stage is max(FLOPs / flops_per_clk, bytes / l2_bytes_per_clk) (per SM); packing
/// adds `packing_overhead` (the dependent col_info load before the B load).
struct NmCostModel {
  double flops_per_clk = 256.0;     ///< FFMA: 128 lanes x 2 FLOP per SM per clock
  double l2_bytes_per_clk = 28.0;   ///< L2 -> SM bytes per SM per clock (~7 TB/s on 132 SMs)
  double packing_overhead = 0.05;   ///< relative cost of the col_info indirection
};

struct NmStageCostInput {
  int64_t bm = 0, bn = 0;
  int64_t w_s_plain = 0, k_s_plain = 0;  ///< non-packing staging (0 = does not fit)
  int64_t w_s_packed = 0;                ///< packing staging (0 = does not fit)
  double packed_rows = 0;                ///< mean union rows per packed stage
  double packed_sectors = 0;             ///< mean 32-byte sectors per packed stage and column
  bool b_col_major = false;
};

struct NmPackingDecision {
  bool packing = false;
  double ai_plain = 0, ai_packed = 0;  ///< FLOP per byte of a stage (Eq. 3)
  double balance = 0;                  ///< machine balance flops_per_clk / l2_bytes_per_clk
  double clk_per_slot_plain = 0, clk_per_slot_packed = 0;  ///< modelled clocks per slot
};
/// Packing when its modelled time per compressed slot is lower (or when only it fits).
NmPackingDecision nm_decide_packing(const NmStageCostInput& in, const NmCostModel& model = {});

}  // namespace spx::plan
