// Host planning of the SpTC family (plain C++, no CUDA): the multi-granularity column reorder of
// Jigsaw that turns any vector-sparse matrix (BCRS with V in {1, 2, 4, 8, 16}; CSR is V = 1) into
// tiles that satisfy the 2:4 rule of mma.sp, and the reorder-aware storage the kernels read.
//
// Row clustering (optional, sptc_cluster_rows): the vector rows of A are first permuted so that
// rows sharing columns land in the same panel (greedy, most shared columns first); a panel then
// keeps fewer columns and its gathered B rows serve more rows of A. The layout records the order
// (row_order) and the kernel writes each row of C back to its original place.
//
// Granularities (rows of A are cut into panels of BLOCK_TILE rows; one thread block per panel):
//   panel  (BLOCK_TILE rows): columns with no nonzero in the panel are skipped; the others are the
//          panel's kept columns, and the kernel gathers the B rows of col_idx into shared memory.
//   unit   (16 consecutive col_idx positions, a k16 half of an m16n8k32 MMA): its 16 positions are
//          grouped into four compatible groups of 4 (every row of the panel has at most 2
//          nonzeros in each group). block_col_idx lists, for the MMA's k position q, the unit
//          position it reads. One grouping serves every 16-row slice of the panel (the B tile in
//          shared memory is shared), so compatibility is checked over all BLOCK_TILE rows. The
//          rows of one vector share their columns, so the search works on vector rows (one bit
//          each, at most 64 per panel: BLOCK_TILE 128 needs V >= 2).
//   tile   (16 rows x 32 k of mma.sp m16n8k32 = 2 units): the 2:4 metadata and compressed values.
//
// Unit search (sptc_group_unit): "bidirectional" in the sense of the paper's Algorithm 1. All
// compatible 4-groups of the unit are listed; the forward side builds the 8-column half G1 that
// holds unit position 0 from two disjoint compatible groups; the backward side checks whether the
// complement G2 splits into two compatible groups (memoised per 16-bit set). When no split exists
// the least compatible real column (fewest compatible 4-groups, then most nonzeros, then the
// highest position) leaves the unit: its position becomes padding (an all-zero column) and the
// column goes to the end of the panel's queue, to be placed in a later unit (a "retry"). A unit
// with at most 8 real columns always succeeds (two columns and two padding per group), so the
// retries per unit are at most 8. Units are filled from the queue keeping every row at <= 8
// nonzeros (balance_units; skipped columns keep their place): a grouping's necessary
// condition, which removes most retries when few vector rows share a panel (V = 8, BT = 16).
//
// Bank-conflict rule (Sec. 3.4.1): the kernel pads every B row in shared memory so that row r of
// a stage starts at bank 4 r mod 32 (64 fp16 columns + 8 fp16 padding = 36 banks). An ldmatrix
// 8x8 phase reads the 8 rows of 8 consecutive MMA k positions (two groups = one half G1 or G2);
// it is conflict-free iff those 8 unit positions are distinct modulo 8, i.e. the half holds
// exactly one of positions {r, r + 8} for every r. With prefer_conflict_free the search first
// looks only at conflict-free halves and falls back to any grouping.
//
// Metadata layout (mma.sp m16n8k32 f16/bf16, sparsity selector 0): 16 uint32 per tile, word
// 2 g + t (g = lane / 4, t = lane % 4 in {0, 1}) is the register of lane 4 g + t: bits [0, 16)
// hold row g, bits [16, 32) row g + 8; each half holds the four chunks 4 t .. 4 t + 3 (k 16 t ..
// 16 t + 15), one nibble per chunk (lowest chunk in the lowest nibble), nibble = i0 | i1 << 2 with
// i0 < i1 the positions (0..3) in the chunk of compressed slots 2 c and 2 c + 1 (the ordered
// metadata of mma.sp::ordered_metadata). Checked on an H100 by the probe of tests/families/sptc/test_sptc
// (and a different lane layout fails there). With selector 1 the same registers come from lanes
// 4 g + 2 + t: formats/sptc_storage interleaves two tiles that way. Unused slots hold a zero.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "formats/host_formats.hpp"

namespace spx::plan {

/// Which block-row order choose_block_tile cuts panels from.
enum class SptcRowOrder {
  kIdentity,   ///< the matrix's own order
  kAuto,       ///< the clustered order where it keeps at least 2 % fewer columns
  kClustered,  ///< always the clustered order (tests, experiments)
};

/// Tunables of the reorder.
struct SptcReorderConfig {
  int block_tile = 32;                ///< BLOCK_TILE rows: 16, 32, 64 or 128 (128: V >= 2)
  int threads = 0;                    ///< worker threads over panels; 0 = hardware concurrency
  bool prefer_conflict_free = true;   ///< prefer bank-conflict-free unit groupings
  int64_t max_pair_checks = 4096;     ///< search budget per unit attempt (then it counts as failed)
  bool balance_units = true;          ///< fill units keeping every row at <= 8 nonzeros
  int64_t lookahead = 256;            ///< queued columns a balanced unit may look at
  SptcRowOrder row_order = SptcRowOrder::kAuto;  ///< choose_block_tile's row order
};

struct SptcReorderStats {
  int64_t panels = 0, units = 0, tiles = 0;  ///< tiles: 16 x 32 mma.sp tiles (all row slices)
  int64_t kept_columns = 0;      ///< sum over panels of columns with a nonzero in the panel
  int64_t columns_skipped = 0;   ///< sum over panels of all-zero columns (cols - kept)
  int64_t retries = 0;           ///< columns moved out of a unit (each leaves one padding slot)
  int64_t padding_columns = 0;   ///< col_idx entries that are -1 (retries + unit / tile tails)
  int64_t conflicting_units = 0; ///< units whose grouping has an ldmatrix bank conflict
  int64_t panels_within_cols = 0;  ///< panels whose padded k is <= cols (the paper's "success")
  int64_t metadata_bytes = 0;    ///< 2:4 metadata (64 bytes per tile)
  int64_t index_bytes = 0;       ///< col_idx (4 bytes) + block_col_idx (1 byte) per k position
  double cost = 0;               ///< cost of choose_block_tile (see there)
  double seconds = 0;            ///< wall time of the reorder
};

/// The reorder-aware layout. k positions of panel p are [panel_k[p], panel_k[p + 1]) (a multiple of
/// 32); tiles of panel p are [panel_tile[p], panel_tile[p + 1]), ordered (row slice, k tile).
struct SptcLayout {
  int64_t rows = 0, cols = 0, vec_len = 1, block_tile = 0, panels = 0;
  /// Block-row order the panels were cut from: panel p holds block rows row_order[p * BT / V ..];
  /// empty = the identity. Row r of panel p is A's row original_row(p, r) (or past the end).
  std::vector<int32_t> row_order;
  int64_t original_row(int64_t panel, int64_t r) const {
    const int64_t i = panel * block_tile + r;  // row in the reordered matrix
    if (row_order.empty() || i >= rows) return i;
    return static_cast<int64_t>(row_order[static_cast<size_t>(i / vec_len)]) * vec_len + i % vec_len;
  }
  std::vector<int64_t> panel_k;       ///< panels + 1
  std::vector<int64_t> panel_tile;    ///< panels + 1
  std::vector<int32_t> col_idx;       ///< per k position: original column gathered there, -1 = zero
  std::vector<uint8_t> block_col_idx; ///< per MMA k position: unit position (0..15) it reads
  std::vector<uint32_t> metadata;     ///< 16 words per tile (layout above)
  std::vector<int32_t> value_map;     ///< 256 per tile: row-major 16 rows x 16 compressed slots ->
                                      ///< original value slot, -1 = zero
  SptcReorderStats stats;
};

/// INVALID_VALUE unless the structure is well formed (V in {1, 2, 4, 8, 16}, rows % V == 0,
/// non-decreasing block_row_ptr from 0, columns in range and strictly increasing per block row,
/// value slots below 2^31).
void validate_bcrs_structure(const BcrsView& a);

/// The multi-granularity reorder at config.block_tile (validates first). Blocks; uses threads.
/// row_order (optional): a permutation of the block rows (sptc_cluster_rows); empty = identity.
SptcLayout sptc_reorder(const BcrsView& a, const SptcReorderConfig& config = {},
                        const std::vector<int32_t>& row_order = {});

/// A block-row order that puts rows sharing columns into the same group of `group` block rows
/// (greedy: a group starts from the unused row with the most nonzeros and repeatedly takes the
/// unused row sharing the most columns with the group's union, ties to fewer new columns). Rows
/// are clustered within chunks of `chunk` block rows (bounded cost; chunks run on `threads`).
/// a must be valid (validate_bcrs_structure).
std::vector<int32_t> sptc_cluster_rows(const BcrsView& a, int64_t group, int64_t chunk = 4096,
                                       int threads = 0);

/// Sum over panels of BLOCK_TILE rows (block rows in `row_order`, empty = identity) of the
/// panel's kept columns rounded up to 32: the reorder's k before 2:4 padding, in linear time.
int64_t sptc_panel_union_k(const BcrsView& a, int64_t block_tile,
                           const std::vector<int32_t>& row_order = {});

/// The row order config.row_order gives panels of BLOCK_TILE block_tile: empty (identity) or
/// a clustered order (sptc_cluster_rows at group block_tile / V).
std::vector<int32_t> sptc_row_order(const BcrsView& a, int block_tile,
                                    const SptcReorderConfig& config);

/// The BLOCK_TILE values the plan considers for vector length v: 16, 32, 64, and 128 when v >= 2.
constexpr int kSptcMaxBlockTiles = 4;
int sptc_block_tiles(int64_t v, int (&tiles)[kSptcMaxBlockTiles]);

/// The B-row cost the SpTC plan uses (families/sptc/README.md: every k position of a panel
/// gathers one B row into shared memory, worth about this many rows of mma.sp work).
constexpr double kSptcBRowCost = 64.0;
/// The same for wide B (n >= 2048), where the gathered rows dominate: measured on H100 at
/// 16384 x 512 x 4096 (DLMC transformer ffn, 95 %, V = 8) BLOCK_TILE 64 / 32 / 16 ran 0.230 /
/// 0.308 / 0.471 ms, i.e. time follows the gathered k positions, which the larger tile cuts.
constexpr double kSptcBRowCostWide = 192.0;

/// The B-row cost for n columns of B.
inline double sptc_b_row_cost(int64_t n) {
  return n >= 2048 ? kSptcBRowCostWide : kSptcBRowCost;
}

/// The row order DEFAULT analyzes with for n dense columns: clustering rows that share columns
/// only pays where the gathered B rows dominate (wide B). Measured on H100, DLMC rn50 95 %, V = 8,
/// one run: n = 512 mean 1.16x cuBLAS HGEMM in the identity order vs 1.04x clustered; n = 256
/// 1.35x vs 1.37x (noise level).
inline SptcRowOrder sptc_default_row_order(int64_t n) {
  return n >= 2048 ? SptcRowOrder::kAuto : SptcRowOrder::kIdentity;
}

/// Cost of a layout: sum over panels of k_p * (BLOCK_TILE + b_row_cost), k_p the panel's padded
/// k: the tensor-core work (dense-equivalent rows x k) plus the B rows gathered into shared
/// memory, each worth b_row_cost rows of tile work (a smaller panel skips more columns but
/// reuses each gathered B row for fewer rows).
double sptc_layout_cost(const SptcLayout& layout, double b_row_cost);

/// Picks BLOCK_TILE among sptc_block_tiles by sptc_layout_cost: lowest cost wins, ties go to the
/// larger tile. Each BLOCK_TILE takes the row order config.row_order says (kAuto: the clustered
/// order where sptc_panel_union_k is at least 2 % lower than the identity's). The reorders run
/// in the order of a lower bound of their cost (kept columns rounded to 32, before 2:4 padding)
/// and a tile whose bound cannot beat the best layout so far is not reordered. Returns the
/// chosen layout (stats.cost set; `costs` gets every BLOCK_TILE's cost, or its bound where it
/// was skipped, 0 where not considered).
SptcLayout choose_block_tile(const BcrsView& a, SptcReorderConfig config = {},
                             double b_row_cost = kSptcBRowCost,
                             std::array<double, kSptcMaxBlockTiles>* costs = nullptr);

/// Result of grouping one unit of 16 positions.
struct SptcUnitGrouping {
  bool found = false;
  bool conflict_free = false;
  std::array<uint8_t, 16> order{};  ///< MMA k position -> unit position (when found)
  int least_compatible = -1;        ///< real position to move out (when not found)
  int64_t pair_checks = 0;
};

/// Groups a unit: masks[i] holds the panel rows (bit r = row r) with a nonzero at unit position i;
/// real_positions has bit i set when position i holds a column (else padding, mask 0).
SptcUnitGrouping sptc_group_unit(const std::array<uint64_t, 16>& masks, uint32_t real_positions,
                                 bool prefer_conflict_free, int64_t max_pair_checks);

/// Positions (i0, i1) in the chunk of tile row `row` (0..15) and chunk (0..7), from its metadata.
void sptc_metadata_pair(const uint32_t* tile_words, int row, int chunk, int* i0, int* i1);

}  // namespace spx::plan
