// Every decision of the SpTC family in one place (plain C++, no CUDA; CPU-tested in
// tests/families/sptc/test_sptc_choice.cpp):
//   read_overrides  the SPX_SPTC_* switches, parsed once per analyze (nothing else reads them);
//   choose_layout   before the reorder: the row order and a forced BLOCK_TILE;
//   choose          after the reorder: the kernel and its configuration (the rule's choice, the
//                   candidates of spxSpMM_search, the one the plan starts on) and the text plan
//                   info prints;
//   launch_for      per call: how B is read (pointer alignment and leading dimension may change
//                   between calls) and so which kernel of the decided configuration runs.
// The rules (BN, tiles per block, resident A, the warpgroup kernel, BLOCK_TILE 32 -> 64) are
// README.md's; the launchers (kernels/sptc.hpp) only carry out a launch_for result.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "families/candidates.hpp"
#include "families/sptc/kernels/launch_config.hpp"
#include "families/sptc/plan/reorder.hpp"
#include "families/switches.hpp"
#include "spx/spx_types.h"

namespace spx::plan::sptc {

using kernels::sptc::MmaConfig;
using kernels::sptc::SptcConfig;
using kernels::sptc::SptcLaunch;
using kernels::sptc::WgmmaConfig;

// ---- Switches ------------------------------------------------------------------------------

/// The SPX_SPTC_* switches the family honours (README "Run-time switches"); each field at its
/// default means "unset: the rules decide".
struct Overrides {
  int block_tile = 0;            ///< SPX_SPTC_BLOCK_TILE: 16, 32, 64 or 128; 0: the cost model
  int cluster = -1;              ///< SPX_SPTC_CLUSTER: 0 identity / 1 clustered row order; -1
  int resident = -1;             ///< SPX_SPTC_RESIDENT: 0 / 1 resident A off / on; -1
  int tiles_per_block = 0;       ///< SPX_SPTC_TILES_PER_BLOCK: t >= 1 for every candidate; 0
  int wgmma = -1;                ///< SPX_SPTC_WGMMA: 0 never / 1 wherever it fits; -1
  bool wg_interleave = false;    ///< SPX_SPTC_WG_INTERLEAVE=1: no-swizzle B in wgmma candidates
  int64_t force_candidate = -1;  ///< SPX_SPTC_FORCE_CANDIDATE: index i (range checked by choose)
};

/// Parses the switches once (a value that does not parse is ignored with an info line).
Overrides read_overrides(const dispatch::Switches& switches);

// ---- Before the reorder -----------------------------------------------------------------------

/// What the reorder is asked for.
struct LayoutChoice {
  SptcRowOrder row_order = SptcRowOrder::kIdentity;  ///< choose_block_tile's / the reorder's
  /// The BLOCK_TILE to reorder at; 0: the cost model (choose_block_tile) picks, then
  /// promote_to_block_tile_64 may move its 32 to 64.
  int block_tile = 0;
};

/// Row order: sptc_default_row_order(n) unless SPX_SPTC_CLUSTER; BLOCK_TILE: SPX_SPTC_BLOCK_TILE
/// where the vector length allows it (BLOCK_TILE / V <= 64 vector rows per panel).
LayoutChoice choose_layout(int64_t n, int64_t vec_len, const Overrides& o);

// ---- The rules ----------------------------------------------------------------------------------

/// Blocks of an instance that can be resident at once: by shared memory (228 KB per SM, 1 KB
/// reserved per block), by registers (at most 128 per thread: 65536 per SM) and at most 4.
int64_t resident_blocks(int sm_count, int smem, int threads = 128);

/// Tiles per block: a block streams its panel's k steps for several n tiles in one pipeline, so
/// the fill latency of a short panel (a few k steps) is paid once per block instead of once per
/// tile; as many as keep at least two waves of blocks. (A model that fills whole waves instead,
/// 8 tiles per block for 16384 x 512 x 4096 at BLOCK_TILE 128, measured slower: 0.192 ms
/// against 0.174 ms at this rule's 7 and 0.170 ms at 4; panels of unequal length balance
/// better over more blocks. README, notes.) smem 0: the streaming kernel's.
int tiles_per_block_for(int64_t panels, int64_t n, int block_tile, int bn, int sm_count,
                        int smem = 0);

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
bool promote_to_block_tile_64(int64_t m, int64_t n, int sm_count);

/// THE mma.sync rule: BN = 128 (each A fragment feeds 4 mma.sp per warp) unless the grid of
/// BN = 128 tiles would leave fewer than two blocks per resident slot, or n fits in 64; then the
/// tiles per block. With two or more tiles per block and a 16-byte aligned B (`aligned`; a
/// column-major B always is, through the workspace), A stays resident when the longest panel
/// (max_pairs) still lets two blocks share an SM: the block then reads its panel's A from L2
/// once instead of once per n tile.
MmaConfig choose_config(int block_tile, int64_t panels, int64_t n, int sm_count, int max_pairs = 0,
                        bool aligned = false);

/// The warpgroup kernel (sm_90a) covers BLOCK_TILE 64 / 128 (a warpgroup is 64 rows).
inline bool wgmma_fits(int block_tile) { return block_tile == 64 || block_tile == 128; }
/// Whether DEFAULT takes the warpgroup kernel where it can run (SPX_SPTC_WGMMA=1 / 0 forces it
/// on / off for every plan): every BLOCK_TILE 64 / 128 plan measured faster with it (README,
/// notes v5).
inline bool wgmma_default(int block_tile, int64_t n) {
  (void)n;
  return wgmma_fits(block_tile);
}
/// The warpgroup kernel at c's BLOCK_TILE and BN: streaming (its A comes with every stage; no
/// resident variant), tiles per block recomputed for its shared memory and threads; c itself
/// where it does not fit. Why it pays: one wgmma.sp m64n128k32 does the work of 16 mma.sp per
/// warp at Hopper's full sparse rate and is issued asynchronously, so the warps' issue slots go
/// to the gather (README, notes v5).
SptcConfig with_wgmma(const MmaConfig& c, int64_t panels, int64_t n, int sm_count);

// ---- After the reorder: the decision ----------------------------------------------------------

/// What choose() looks at: the problem, the device and the layout the plan computed.
struct Inputs {
  // Problem
  int64_t m = 0, k = 0, n = 0;
  bool bf16 = false;  ///< A and B are 16BF (else 16F)
  spxOrder_t b_order = SPX_ORDER_ROW, c_order = SPX_ORDER_ROW;
  spxDataType_t c_type = SPX_R_16F;
  /// B at analyze takes the 16-byte gather (b_aligned: row-major with aligned rows, or
  /// column-major, read through the aligned workspace).
  bool b_aligned = true;
  // Device
  int sm_count = 132;
  /// The build holds the sm_90a warpgroup kernel and this device (compute capability 9.0) runs
  /// it: kernels::sptc::wgmma_usable(cc_major, cc_minor).
  bool wgmma_usable = false;
  size_t smem_optin = 0;     ///< bytes a block may opt in to (0: unknown, kMaxSmemPerBlock)
  // Layout (the reorder and the storage)
  int block_tile = 32;
  int64_t panels = 0;
  int max_pairs = 0;  ///< the longest panel's k-tile pairs (resident A's shared memory)
  bool clustered = false;  ///< the panels come from a clustered row order (a row map)
  int64_t tiles = 0, slices = 0;  ///< mma.sp tiles over all row slices; row slices per panel
  int64_t columns_skipped = 0, retries = 0, padding_columns = 0;
  double dense_fraction = 0;  ///< the plan's device bytes against a dense fp16 A
};

/// The decision: which kernel and configuration the plan runs and may run.
struct Decision {
  /// The rule's choice (with SPX_SPTC_RESIDENT / SPX_SPTC_WGMMA applied; before
  /// SPX_SPTC_TILES_PER_BLOCK and SPX_SPTC_WG_INTERLEAVE): candidate 0 unless those rewrote it.
  SptcConfig rule;
  /// What spxSpMM_search times, the rule's choice first; selected(): the one the plan runs
  /// (SPX_SPTC_FORCE_CANDIDATE, or spxSpMM_search's pick).
  dispatch::CandidateSet<SptcConfig> candidates{"SpTC"};
  /// Dynamic shared memory of the resident-A kernel for this layout (its longest panel).
  int resident_smem = 0;
  /// Plan info's suffix: layout statistics and operand orders / types.
  std::string layout;
  bool bf16 = false;

  /// Plan info's kernel: "sptc_mma_sp_f16" / "sptc_mma_sp_bf16".
  std::string kernel_name() const;
  /// Plan info's config for candidate c: describe(config) + layout.
  std::string describe(int c) const;
  /// Plan info's config: the selected candidate's.
  std::string describe() const { return describe(candidates.selected()); }
  /// Whether any candidate is the warpgroup kernel (the plan loads it then).
  bool uses_wgmma() const;
};

/// The decision for a layout (see README "Candidates"): where the warpgroup kernel can run
/// (wgmma_usable: compute capability 9.0 in a build holding it), with an aligned B, at BLOCK_TILE
/// 64 / 128, the warpgroup kernel at the rule's BN first (unless SPX_SPTC_WGMMA=0 or
/// SPX_SPTC_RESIDENT=1), then the mma.sync rule, the warpgroup kernel at BN 128 / 64, each BN
/// with the rule's tiles per block and with one, and resident A where it can run (aligned B,
/// BLOCK_TILE >= 64, n > 64, shared memory) and streams two or more tiles per block.
Decision choose(const Inputs& in, const Overrides& o);

// ---- Per call --------------------------------------------------------------------------------

/// B of one call.
struct CallB {
  bool row_major = true;
  uintptr_t address = 0;  ///< B's values
  int64_t ld = 0;
  int64_t k = 0, n = 0;
  uintptr_t workspace = 0;  ///< the call's workspace (column-major B is transposed there)
};

/// Whether B takes the 16-byte cp.async gather: a row-major B with a 16-byte aligned pointer and
/// ld % 8 == 0, or any column-major B (read through the aligned workspace).
bool b_aligned(bool row_major, uintptr_t address, int64_t ld);

/// Row stride (elements) of the row-major copy of a column-major B: n rounded up to 8, so every
/// row starts 16-byte aligned.
int64_t transposed_ld(int64_t n);

/// Workspace bytes for B of k x n in `order` (a row-major copy of a column-major B).
size_t workspace_bytes(int64_t k, int64_t n, spxOrder_t b_order);

/// The launch of `decided` for one call: B read from the user's row-major array or the
/// workspace's transpose (k > 0), aligned or not; where B is not aligned the warpgroup kernel
/// and resident A give way to the mma.sync streaming kernel of the same BLOCK_TILE, BN and
/// tiles per block (correct, slower). max_pairs: the plan's longest panel (resident A's shared
/// memory).
SptcLaunch launch_for(const SptcConfig& decided, int max_pairs, const CallB& b);

}  // namespace spx::plan::sptc
