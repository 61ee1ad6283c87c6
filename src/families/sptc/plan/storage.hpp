// Reorder-aware storage of the SpTC family (plain C++, no CUDA): turns the reorder's layout
// (families/sptc/plan/reorder.hpp: col_idx, block_col_idx, 2:4 metadata, value map, per 16 x 32 tile)
// into the arrays the mma.sp kernel reads, laid out for its loads:
//
//   k step    The kernel consumes a panel two k tiles (64 MMA k positions) at a time: one
//             "pair". A panel of T k tiles holds ceil(T / 2) pairs; when T is odd the second
//             tile of the last pair is a phantom (gather -1, zero values, valid metadata) that
//             the kernel skips.
//   gather    Per pair, 64 int32: the B row that MMA k position q reads, i.e. col_idx composed
//             with block_col_idx on the host (col_idx[16 u + block_col_idx[q]]); -1 = zero row.
//             The kernel gathers B rows straight into MMA order, so its shared-memory B tile
//             needs no per-lane permutation and every ldmatrix phase reads 8 consecutive rows
//             (conflict-free with the 8-half row padding, whatever the grouping).
//   metadata  Per (pair, 16-row slice), 32 uint32, interleaved so that one 32-bit load per lane
//             serves both mma.sp of the pair: lane 4 g + j holds, for j in {0, 1}, register
//             2 g + j of the pair's first tile (sparsity selector 0: lanes 4 g and 4 g + 1 give
//             the metadata), and for j in {2, 3} register 2 g + j - 2 of the second tile
//             (selector 1: lanes 4 g + 2 and 4 g + 3). The register layout is the one of
//             sptc_reorder.hpp (row g in bits [0, 16), row g + 8 in [16, 32), chunks 4 j ..
//             4 j + 3 one nibble each, nibble = i0 | i1 << 2 with i0 < i1).
//   values    Per (pair, slice, tile of the pair), 256 16-bit values in register order of the
//             mma.sp A fragment: lane l = 4 g + t owns 8 consecutive values (one 16-byte load,
//             conflict-free in shared memory):
//               [0, 1]  row g,     chunk t      [4, 5]  row g,     chunk t + 4
//               [2, 3]  row g + 8, chunk t      [6, 7]  row g + 8, chunk t + 4
//             (the two kept values of the chunk, lower position first). value_slot holds the
//             user's value slot of each, -1 = zero; spxPlanUpdateValues re-packs through it.
//   row map   With a clustered row order (sptc_cluster_rows), row_map[p * BLOCK_TILE + r] is the
//             row of A (and C) that row r of panel p holds, -1 past the end; empty = identity.
//   panels    panel_info[2 p] = first pair, panel_info[2 p + 1] = k tiles of panel p;
//             panel_order lists panels by decreasing k tiles (longest first, so the last wave of
//             blocks is not one long panel).
#pragma once

#include <cstdint>
#include <vector>

#include "families/sptc/plan/reorder.hpp"

namespace spx::plan {

/// Per-pair sizes of the device arrays (see above).
constexpr int kSptcPairK = 64;           ///< MMA k positions per pair (two m16n8k32 tiles)
constexpr int kSptcTileValues = 256;     ///< compressed 16-bit values per 16 x 32 tile
constexpr int kSptcMetaPerSlice = 32;    ///< uint32 metadata words per (pair, slice)
/// Metadata of an empty 16 x 32 tile: every chunk "positions 0 and 1" (a valid encoding).
constexpr uint32_t kSptcEmptyMeta = 0x44444444u;

struct SptcStorage {
  int64_t rows = 0, cols = 0, block_tile = 0, slices = 0, panels = 0, pairs = 0;
  std::vector<int32_t> panel_info;   ///< 2 per panel: first pair, k tiles
  std::vector<int32_t> panel_order;  ///< panels, longest first (ties: lower panel first)
  std::vector<int32_t> gather;       ///< pairs * 64
  std::vector<uint32_t> metadata;    ///< pairs * slices * 32
  std::vector<int32_t> value_slot;   ///< pairs * slices * 2 * 256
  std::vector<int32_t> row_map;      ///< panels * block_tile, or empty (identity)
  int32_t max_pairs = 0;             ///< the longest panel's pairs

  /// Bytes the kernel reads besides the values (gather, metadata, panel arrays).
  int64_t index_bytes() const;
  int64_t metadata_bytes() const { return static_cast<int64_t>(metadata.size() * 4); }
  int64_t value_bytes() const { return static_cast<int64_t>(value_slot.size() * 2); }
  int64_t value_slot_bytes() const { return static_cast<int64_t>(value_slot.size() * 4); }
  /// (values + gather + metadata + panel arrays) / (rows * cols * 2): the paper's memory
  /// overhead against dense fp16 (the value slot map, used only by re-packing, is not counted).
  double dense_fraction() const;
};

/// Builds the device arrays from a reorder layout. `vector_slot` (optional, one entry per vector
/// of the BcrsView the layout was built from) maps the view's vector index to the user's vector
/// index when the plan sorted the user's columns first; empty = identity. Value slots become
/// user slots: vector_slot[vi] * vec_len + r.
SptcStorage sptc_build_storage(const SptcLayout& layout,
                               const std::vector<int32_t>& vector_slot = {});

/// What the kernel reads per launch position (families/sptc/kernels/sptc.hpp: SptcArgs::blocks): for each
/// entry of panel_order, 4 int32 = the panel, its first pair, its k tiles, 0; a block reads its
/// panel with one 16-byte load instead of panel_order, then panel_info.
std::vector<int32_t> sptc_block_records(const SptcStorage& storage);

/// The host version of spxPlanUpdateValues (for tests and the bench's checks): packed[i] =
/// user_values[value_slot[i]] or 0 (16-bit values as raw bits).
std::vector<uint16_t> sptc_pack_values(const SptcStorage& s, const uint16_t* user_values);

/// A BCRS structure whose columns are strictly increasing within every block row, and the map
/// from its vectors to the user's: what the reorder needs from any valid user input (CSR is
/// V = 1; unsorted columns are sorted here).
struct SortedBcrs {
  int64_t rows = 0, cols = 0, vec_len = 1;
  std::vector<int32_t> block_row_ptr, block_col, vector_slot;
  int64_t duplicate_block_row = -1;  ///< first block row with a repeated column (-1: none)
  int64_t duplicate_col = -1;        ///< ... that column
  int64_t duplicate_index = -1;      ///< ... and its second entry's position in the user's array
  BcrsView view() const;
};

/// Validates (INVALID_VALUE with the position, as the fallback's checks) and sorts the user's
/// block rows. A repeated column within a block row is not an error here (the format allows it)
/// but the SpTC layout cannot hold it: duplicate_block_row says where, for the family's refusal.
SortedBcrs sptc_sort_structure(int64_t rows, int64_t cols, int64_t vec_len, int64_t num_vectors,
                               const int32_t* block_row_ptr, const int32_t* block_col);

}  // namespace spx::plan
