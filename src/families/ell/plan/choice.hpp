// The ELL family's one decision: choose(inputs, overrides) -> Decision, at analyze. The inputs
// are what the rule looks at (shapes, types, orders, the device, the layout's statistics); the
// overrides are the SPX_ELL_* switches, parsed once by read_overrides; the Decision holds the
// rule's configuration, the candidates spxSpMM_search times (the rule's first) with the one the
// plan runs, and describe(), the text plan info prints. Per-call choices (B's alignment and
// leading dimension) are plan/call.hpp's. Plain C++ (no CUDA): the plan and the CPU tests.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "families/candidates.hpp"
#include "families/ell/kernels/config.hpp"
#include "families/switches.hpp"
#include "spx/spx_types.h"

namespace spx::plan {

// The configuration types, constants and sizes of kernels/config.hpp.
using namespace kernels::ell;

/// What the rule looks at.
struct EllInputs {
  int64_t m = 0, k = 0, n = 0;
  int64_t width = 0;    ///< slots per row of the plan's ELL part
  int value_bytes = 4;  ///< 4 (fp32) or 2 (fp16)
  bool b_row_major = true;
  int sm_count = 132;
  int64_t smem_optin = 0;  ///< shared memory a block may opt in to (0: never stage B)
  /// The architecture the library's device code runs as here (not only the device's: an sm_80
  /// build runs sm_80 code on an H100). 90 and later: the TMA unit's 1-D bulk copy and
  /// programmatic dependent launch (griddepcontrol) are in the code.
  int code_arch = 0;
  /// The plan's column indices are 16-bit (plan/layout.hpp: k <= 65536); the bulk-copy kernels
  /// are instantiated for those only.
  bool index16 = true;
  // The layout's statistics and the operands' types and orders (plan info).
  int64_t nnz = 0;       ///< entries of A
  int64_t overflow = 0;  ///< entries in the HYB tail
  spxDataType_t a_type = SPX_R_32F, c_type = SPX_R_32F;
  spxOrder_t c_order = SPX_ORDER_ROW;
  /// DenseMma may be chosen (its dense copy of A made): at the analyzed n; another n of the
  /// same plan only where that copy exists already (one copy of A per plan, whatever n runs).
  bool dense_a_allowed = true;
};

/// The TMA unit's bulk copy is in the code that runs here (sm_90 and later).
inline bool bulk_copy_exists(const EllInputs& s) { return s.code_arch >= 90; }

/// The SPX_ELL_* switches the family honours, parsed once from the analyze's snapshot.
struct EllOverrides {
  int64_t force_candidate = -1;  ///< SPX_ELL_FORCE_CANDIDATE=i: the plan starts on candidate i (out of range: ignored, info line)
  bool dense_candidates = false; ///< SPX_ELL_DENSE_CANDIDATES=1: DenseMma is a candidate wherever A is >= 10 % dense
};
EllOverrides read_overrides(const dispatch::Switches& switches);

/// What choose() decided.
struct Decision {
  EllInputs inputs;
  EllOverrides overrides;
  /// The rule's configuration first, then the alternatives; selected(): the one the plan runs
  /// (the forced one, else the rule's; spxSpMM_search may select another).
  dispatch::CandidateSet<KernelConfig> candidates{"ELL"};
  /// The staged SlotSplit launches with programmatic dependent launch (code_arch >= 90).
  bool dependent_launch = false;

  const KernelConfig& rule() const { return candidates.at(0); }
  const KernelConfig& chosen() const { return candidates.chosen(); }
  /// Some candidate is DenseMma: the plan keeps a dense copy of A (dense_a_bytes()).
  bool keeps_dense_a() const;
  int64_t dense_a_bytes() const;
  /// The most workspace any candidate needs (B^T for a column-major B).
  size_t workspace_bytes() const;
  /// spxPlanInfo_t::kernel.
  static const char* kernel() { return "ell_uspmm"; }
  /// spxPlanInfo_t::config of candidate i (describe(): the selected one), verbatim: the
  /// configuration, then "; A <type> ELL w=<width> idx<16|32>, overflow <N> entries; B <order>,
  /// C <type> <order>" and, with a dense A, its size.
  std::string describe(int candidate) const;
  std::string describe() const { return describe(candidates.selected()); }
};

/// THE decision (plan/choice.cpp says the rule and where its numbers come from).
Decision choose(const EllInputs& inputs, const EllOverrides& overrides);

/// The rule's configuration alone (the Decision's first candidate).
KernelConfig choose_config(const EllInputs& s);
/// The gather kernels' rule for n > 16 (RowMma, RowStaged or RowTile).
KernelConfig row_config(const EllInputs& s);
/// The candidates (the rule's first); `dense_candidates`: SPX_ELL_DENSE_CANDIDATES.
std::vector<KernelConfig> candidate_configs(const EllInputs& s, bool dense_candidates = false);

// The rule's pieces (inline: the CPU tests check them one by one).

/// Whether SlotSplit can stage B's chunk of nt columns in shared memory.
inline bool slot_stage_fits(const EllInputs& s, int nt) {
  return s.k > 0 && slot_stage_bytes(s.k, nt, s.value_bytes) <= s.smem_optin;
}
inline bool row_stage_fits(const EllInputs& s) {
  return s.k > 0 && row_stage_bytes(s.k) <= s.smem_optin;
}
inline bool row_mma_fits(const EllInputs& s, int splits, int cols = 64) {
  return s.value_bytes == 2 && s.k > 0 &&
         row_mma_smem_bytes(s.k, row_mma_warps(cols), splits, cols) <= s.smem_optin;
}

/// Smallest instantiated NT covering n (16 when n > 16: SlotSplit then loops over column chunks).
inline int slot_nt_for(int64_t n) {
  for (int nt : kSlotNts)
    if (n <= nt) return nt;
  return 16;
}

/// The staged SlotSplit's NT before the 16-byte preference below: slot_nt_for(n), halved (4 -> 1
/// last) until B's k x NT chunk fits in shared memory; 0 when not even one column fits.
inline int slot_staged_fit_nt_for(const EllInputs& s) {
  int nt = slot_nt_for(s.n);
  while (nt > 1 && !slot_stage_fits(s, nt)) nt = nt == 4 ? 1 : nt / 2;
  return slot_stage_fits(s, nt) ? nt : 0;
}

/// Whether fp16 NT 16 (one chunk of 32-byte rows, 512 threads, A read once, ~2.3 instead of ~3
/// row-loop instructions per slot and column) has enough slots per staged byte to pay for its
/// 128 KB-per-SM copy: m x width >= 2.4 x k x SMs (the row loop's multiply-adds per SM at least
/// 1.2 per byte of the 32-byte rows every SM stages). Since B's thread copy runs in batches
/// (docs/notes/ell.md, note 12), measured on H100, fp16 4096^2 x 16 at 80 / 90 / 95 % (m x width / (k x
/// SMs) = 6.2 / 3.1 / 1.6): NT 16 11.3 / 8.6 / 7.0 us against the two chunks' 12.0 / 8.9 / 6.6;
/// H200 at 70 / 80 / 90 / 95 %: 13.2 / 10.7 / 8.3 / 6.6 against 14.3 / 11.3 / 8.4 / 6.3.
inline bool slot_wide_rows_pay(const EllInputs& s, int nt) {
  return s.value_bytes == 2 && nt == 16 &&
         5 * s.m * s.width >= 12 * s.k * static_cast<int64_t>(s.sm_count);
}

/// Whether the staged SlotSplit may have the TMA unit copy B's chunk (KernelConfig::bulk_copy): one
/// chunk of B's whole rows, k x nt x value bytes a multiple of 16, 16-bit indices (row-major;
/// the launch also checks ld == nt and 16-byte alignment and otherwise lets the threads copy),
/// staged contiguously: rows of <= 16 B as they are, 32-byte rows (fp16 NT 16, fp32 NT 8, one
/// part) with odd lanes reading a row's second half first (spmm_slot_staged.cu). Not 64-byte
/// rows (fp32 NT 16: their planes stay).
inline bool slot_bulk_fits(const EllInputs& s, int nt, int parts) {
  const int row_bytes = nt * s.value_bytes;
  return bulk_copy_exists(s) && s.index16 && s.b_row_major && s.n == nt && parts == 1 &&
         (row_bytes <= 16 || row_bytes == 32) && s.k * row_bytes % 16 == 0;
}

/// NT of the staged SlotSplit: the fitting NT above where slot_wide_rows_pay or where the TMA unit
/// can copy that one chunk (slot_bulk_fits: then the copy costs the SMs nothing, and one chunk
/// reads A once; H100, one call, 4096^2 at 80 / 95 %: fp16 x 16 NT 16 bulk 9.4 / 5.1 us against
/// two chunks of 8 11.5 / 6.4, fp32 x 8 NT 8 bulk 8.8 / 5.2 against two chunks of 4 11.4 /
/// 6.5), else halved further
/// while its staged rows are wider than 16 bytes and the halved chunks are at most two. Rows of
/// <= 16 B run 1024 threads (64 registers) instead of 512, and every SM stages half the bytes;
/// the price is A read once per chunk (from L2). More chunks (grid.y) share the columns; their
/// persistent blocks walk the same rows at the same time, so A comes from DRAM about once.
/// Measured before the batched copy (H100, 4096^2, 70 / 80 / 90 / 95 %): fp16 n = 16: NT 8 (two
/// chunks) 18.9 / 15.4 / 11.7 / 8.9 us against NT 16's 21.7 / 18.1 / 14.5 / 12.0; fp32 n = 8:
/// NT 4 16.8 / 13.6 / 10.5 / 8.6 against NT 8's 15.7 / 13.4 / 11.0 / 9.6; fp32 n = 16 (four
/// chunks of 4 would be needed): NT 4 22.9 us against NT 8's 18.6 at 80 %. With NT 16's row loop
/// unrolled (docs/notes/ell.md, note 10): fp16 4096^2 x 16 at 80 / 90 %: NT 16 19.5 / 17.0 us (cp.async
/// copy) against 12.1 / 9.2. fp32 keeps the 16-byte rows (not re-measured since docs/notes/ell.md note 12).
inline int slot_staged_nt_for(const EllInputs& s) {
  int nt = slot_staged_fit_nt_for(s);
  if (slot_wide_rows_pay(s, nt) || slot_bulk_fits(s, nt, 1)) return nt;
  while (nt >= 8 && nt * s.value_bytes > 16 && (s.n + nt / 2 - 1) / (nt / 2) <= 2) nt /= 2;
  return nt;
}

/// Lanes per row for SlotSplit: enough that each lane does about two 8-slot steps per row, then
/// more while the grid would hold fewer than 8 warps per SM (the split over the ELL width is what
/// fills the GPU when m is small).
inline int slot_lanes_for(const EllInputs& s) {
  int lanes = 4;
  while (lanes < 32 && static_cast<int64_t>(lanes) * kSlotVector * 2 < s.width) lanes *= 2;
  const int64_t chunks = (s.n + slot_nt_for(s.n) - 1) / slot_nt_for(s.n);
  while (lanes < 32 && s.m * chunks * lanes / kWarp < 8LL * s.sm_count) lanes *= 2;
  return lanes;
}
/// Whether a chunk of nt columns splits in two 16-byte column parts (the instantiated case).
inline bool slot_parts_fit(int nt, int value_bytes) { return nt * value_bytes == 32; }

/// Lanes per row of the staged SlotSplit (8, 16 or 32 are instantiated; a quarter-warp of one
/// row is what the plan's bank order makes conflict-free): the most lanes (32, 16, 8) with which
/// one pass of the persistent grid covers rows x chunks, else 8. Fewer lanes per row mean more
/// rows per pass, and a second pass costs more than a lane's longer walk along its row. Measured
/// on H100, fp16 4096^2: n = 8 (1024 threads, one pass at 32) 8.2 us with 32 lanes, 10.4 with
/// 16, 13.6 with 8; n = 16, NT 16 (512 threads, one pass at 16) 18.1 us with 16 lanes, 22.2 with
/// 32, 24.5 with 8; fp32 4096^2 x 16, NT 8 (512 threads, two chunks: one pass at 8) 24.2 / 18.6 /
/// 13.7 / 11.4 us at 70 / 80 / 90 / 95 % with 8 lanes against 25.1 / 19.9 / 15.4 / 12.4 with 16;
/// 4096 x 11008 x 16 (NT 4, four chunks) 44.6 us at 80 % with 8 against 46.2.
inline int slot_staged_lanes_for(const EllInputs& s, int nt, int parts = 1) {
  const int64_t chunks = (s.n + nt - 1) / nt;
  const int64_t threads = static_cast<int64_t>(s.sm_count) * slot_staged_threads(nt, s.value_bytes, parts);
  for (int lanes : {32, 16})
    if (s.m * chunks <= threads / lanes) return lanes;
  return 8;
}

/// Column chunks of the staged large-n kernels (128 B of B's row each).
inline int64_t row_chunks(const EllInputs& s) {
  return (s.n * s.value_bytes + kRowStagedRowBytes - 1) / kRowStagedRowBytes;
}

/// RowStaged's work units: row groups (4 rows per warp) x 128-byte column chunks.
inline int64_t row_staged_units(const EllInputs& s) { return (s.m + 3) / 4 * row_chunks(s); }

/// Warps per block of RowStaged: 32 (one block per SM at 64 registers) from 16 units per SM,
/// else 16 (measured on H100, fp32 60 %: 1024^3 90 us vs 108 with 16 warps, 512^2 x 1024 27 vs
/// 30; with 15.5 units per SM, 1024^2 x 256 and 256^2 x 1024, 16 warps ran 34.5 / 12.3 us).
inline int row_staged_warps_for(const EllInputs& s) {
  const int most = kRowStagedMaxThreads / kWarp;
  return row_staged_units(s) >= 16LL * s.sm_count ? most : most / 2;
}

/// Whether RowStaged has enough work: at least 12 units per SM (fp32 512^2 x 1024: 4096 units,
/// 27 us against RowTile's 34; 1024^2 x 256: 2048 units, 34.5 us (16 warps) against 37.2;
/// 1024^2 x 128: 1024 units, 34 us against RowTile's 21, which splits rows over warps).
inline bool row_staged_busy(const EllInputs& s) {
  return row_staged_units(s) >= 12LL * s.sm_count;
}

/// RowMma (64 columns) work units: row groups of 8 x column chunks.
inline int64_t row_mma_units(const EllInputs& s) { return (s.m + 7) / 8 * row_chunks(s); }

/// RowMma's splits (64 columns): 1 from 8 units per SM, 2 from 4, else 4; the split sums meet at
/// a block barrier, which cost 10 % at 1024^3 (H100: 56 us unsplit, 62 us with 2 splits).
inline int row_mma_splits_for(const EllInputs& s) {
  const int64_t units = row_mma_units(s);
  return units >= 8LL * s.sm_count ? 1 : units >= 4LL * s.sm_count ? 2 : 4;
}

/// RowMma for decode (16 columns): splits doubled (up to 8) while the row groups x chunks x
/// splits give fewer warps than 16 per SM (4096 rows: 512 groups, 8 splits).
inline int row_mma16_splits_for(const EllInputs& s) {
  const int64_t units = (s.m + 7) / 8 * ((s.n + 15) / 16);
  int splits = 1;
  while (splits < 8 && units * splits < 16LL * s.sm_count) splits *= 2;
  return splits;
}

/// RowTile's VN: a 16 B vector of B per lane when n fills a warp's 32 x 16 B, else 8 B.
inline int rowtile_vn_for(const EllInputs& s) {
  const int full = 16 / s.value_bytes, half = 8 / s.value_bytes;
  return s.n >= static_cast<int64_t>(kWarp) * full * 3 / 4 ? full : half;
}

/// RowTile's column lanes: 32, halved (down to 8) while half the chunk (col_lanes * vn columns)
/// already covers n. (Narrow chunks sized for L1 reuse of B were measured slower on H200 at
/// 1024^3: 114 vs 73 us; they stay candidates for spxSpMM_search.)
inline int rowtile_col_lanes_for(const EllInputs& s, int vn) {
  int cl = 32;
  while (cl > 8 && static_cast<int64_t>(cl) * vn / 2 >= s.n) cl /= 2;
  return cl;
}

/// RowTile's splits: double (up to 8) while the grid holds fewer than 16 warps per SM and each
/// part keeps at least 25 slots (H100, fp32, 60 %: 128 x 128 x 128 (w 51) 5.3 us with 2 splits
/// against 6.9 with 1; 256 x 256 x 128 (w 102) 5.9 us with 4 against 7.5 with 2).
inline int rowtile_splits_for(const EllInputs& s, int vn, int cl) {
  const int64_t chunks =
      (s.n + static_cast<int64_t>(cl) * vn - 1) / (static_cast<int64_t>(cl) * vn);
  const int64_t warps = (s.m + kWarp / cl - 1) / (kWarp / cl) * chunks;
  int splits = 1;
  while (splits < 8 && warps * splits < 16LL * s.sm_count && s.width >= 50LL * splits) splits *= 2;
  return splits;
}
/// Largest dense A a plan keeps for DenseMma (beyond it the gather kernels run).
constexpr int64_t kDenseMmaMaxABytes = int64_t{256} << 20;
/// Block tiles of DenseMma with `rows` rows.
inline int64_t dense_mma_tiles(const EllInputs& s, int rows) {
  return (s.m + rows - 1) / rows * ((s.n + kDenseMmaCols - 1) / kDenseMmaCols);
}
/// Rows per block tile: 128 once the 128-row tiles give every SM one (more reuse of each staged
/// tile: H100 fp32 1024 x 1024 x 4096, 60 %: 225 us with 128 rows, 265 with 64), else 64 (more
/// blocks: 1024^3: 95 us with 64 rows, 138 with 128).
inline int dense_mma_rows_for(const EllInputs& s) {
  return dense_mma_tiles(s, 128) >= s.sm_count ? 128 : 64;
}
/// DenseMma can run: n > 16 (decode shapes are A's bytes, not B's gathers), the block's shared
/// memory fits, the dense A stays below kDenseMmaMaxABytes.
inline bool dense_mma_fits(const EllInputs& s, int rows) {
  return s.dense_a_allowed && s.n > 16 && s.k > 0 &&
         static_cast<int64_t>(dense_mma_smem_bytes(rows, s.value_bytes)) <= s.smem_optin &&
         dense_mma_a_bytes(s.m, s.k, s.value_bytes) <= kDenseMmaMaxABytes;
}
/// Modelled microseconds of DenseMma, fitted to H100 spx-bench ell --candidates (README): one
/// launch (~5 us; the dense A is the plan's, made in analyze: the fit with a per-call densify
/// was 9 us plus the dense A written at ~2 TB/s), then waves of block tiles (two blocks per SM),
/// each rows x 128 x ld multiply-adds (zeros included) at a block's rate with another block on
/// its SM; a block alone on its SM (tiles <= SMs) runs ~1.5x faster.
constexpr double kDenseMmaFixedUs = 5.0;
/// Multiply-adds per us of one block sharing its SM: [fp16, fp32][64 rows, 128 rows].
constexpr double kDenseMmaBlockMacPerUs[2][2] = {{2.3e5, 3.5e5}, {0.67e5, 0.80e5}};
constexpr double kDenseMmaAloneFactor = 1.5;
inline double dense_mma_model_us(const EllInputs& s, int rows) {
  const double sms = static_cast<double>(s.sm_count);
  const double ld = static_cast<double>(dense_mma_ld(s.k, s.value_bytes));
  const double tiles = static_cast<double>(dense_mma_tiles(s, rows));
  const double tile_macs = static_cast<double>(rows) * kDenseMmaCols * ld;
  const double rate = kDenseMmaBlockMacPerUs[s.value_bytes == 4 ? 1 : 0][rows == 128 ? 1 : 0] *
                      (tiles <= sms ? kDenseMmaAloneFactor : 1.0);
  const double waves = std::ceil(tiles / (2.0 * sms));
  return kDenseMmaFixedUs + waves * tile_macs / rate;
}
/// Modelled microseconds of the gather kernels for n > 16 (fixed cost + useful multiply-adds at
/// the kernel's rate, H100; predict.hpp uses the same): RowMma ~10 TMAC/s (fp16), RowStaged ~8
/// (fp16) / ~5.4 (fp32), RowTile ~5 / ~4.
inline double row_kernel_model_us(const EllInputs& s, KernelKind kind, double macs) {
  const bool half = s.value_bytes == 2;
  switch (kind) {
    case KernelKind::RowMma: return 12.0 + macs / 10.0e6;
    case KernelKind::RowStaged: return 10.0 + macs / (half ? 8.0e6 : 5.4e6);
    default: return 6.0 + macs / (half ? 5.0e6 : 4.0e6);
  }
}

/// RowMma for this shape with `cols` columns per warp.
inline RowMmaConfig row_mma_config(const EllInputs& s, int splits, int cols = 64) {
  RowMmaConfig c;
  c.mma_cols = cols;
  c.warps = row_mma_warps(cols);
  c.splits = splits;
  c.transpose_b = !s.b_row_major;
  return c;
}

/// RowStaged for this shape (the rule's fp32 large-n choice when B's rows fit).
inline RowStagedConfig row_staged_config(const EllInputs& s) {
  RowStagedConfig c;
  c.warps = row_staged_warps_for(s);
  c.transpose_b = !s.b_row_major;
  return c;
}

inline DenseMmaConfig dense_mma_config(const EllInputs& s, int rows) {
  DenseMmaConfig c;
  c.tile_rows = rows;
  c.warps = kDenseMmaThreads / kWarp;
  c.transpose_b = !s.b_row_major;
  return c;
}

}  // namespace spx::plan
