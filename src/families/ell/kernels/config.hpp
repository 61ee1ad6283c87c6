// Tile configurations of the ELL (uniform sparsity) kernels and the rule that picks one from the
// shape. Plain C++ (no CUDA): the plan, the kernels and the CPU tests all include it.
//
// Four kernels share one plan layout (see README.md):
//   SlotSplit  G lanes of a warp per row split the row's ELL slots (8 slots, 16 B of indices, per
//              lane and step); every lane keeps NT fp32 accumulators (NT output columns); the G
//              partial sums are reduced with shuffles. The decode kernel (n <= 16): all SMs busy
//              from the split over the ELL width, A streamed with 16 B coalesced loads. With
//              stage_b, B's k x NT chunk sits in shared memory (persistent blocks).
//   RowMma     fp16, n > 16: B's chunk of 64 columns x k in shared memory (swizzled), a warp
//              computes 8 A rows x 64 columns with mma.sync m16n8k16, B's rows gathered by
//              ldmatrix.trans in the plan's bank order (spmm_rowmma.cu says how). The fp16
//              large-n kernel whenever (k + 1) x 128 B fits in a block's shared memory.
//   RowStaged  B's chunk of 128 bytes per row x k in shared memory; 8 lanes per A row each own
//              16 bytes of it (one conflict-free 128-byte row per slot), FFMA. The fp32 large-n
//              kernel whenever k x 128 B fits and the shape has enough rows x chunks.
//   RowTile    CL lanes per row and per CL*VN output columns (32/CL rows per warp); each lane
//              owns VN consecutive columns and gathers B rows from global memory (a column-major
//              B is transposed into the workspace first) with 16 B (or 8 B) loads; the row's
//              slots are loaded CL at a time and broadcast with shuffles. `splits` warps cut a
//              row's ELL width in parts, summed in shared memory. Large n when B's rows are too
//              long to stage (k > ~1800).
//   DenseMma   fp32, n > 16, moderately sparse: A densified into the plan (analyze), then a tensor-core
//              GEMM of 128 (or 64) rows x 128 columns per block with 3xTF32 (fp32-class
//              accuracy): the tile reuses each staged B element for all its rows, which no
//              slot-by-slot kernel can (spmm_dense_mma.cu).
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

namespace spx::kernels::ell {

/// Slots per vector step of SlotSplit (16 B of 16-bit indices).
constexpr int kSlotVector = 8;
constexpr int kWarp = 32;
/// Threads per block of both kernels.
constexpr int kBlockThreads = 256;
/// Threads per block of SlotSplit with B staged in shared memory: persistent blocks, each stages
/// B's chunk once, so fewer and larger blocks stage it fewer times; 32 warps per SM (64
/// registers) put one pass of the grid over ~4000 rows, all of A's first loads in flight at once.
/// Chunks of 32 B or more per row get half (their lanes need more than 64 registers).
constexpr int kStagedThreads = 1024;
/// Most threads per block of RowStaged (64 registers: one block of 32 warps per SM).
constexpr int kRowStagedMaxThreads = 1024;
/// Threads per block of RowMma (16 warps).
constexpr int kMmaThreads = 512;
/// Staged bytes per B row of RowStaged: 8 lanes x 16 B.
constexpr int kRowStagedRowBytes = 128;
static_assert(kBlockThreads % kWarp == 0, "a block is whole warps");
static_assert(kSlotVector * 2 == 16, "a SlotSplit step reads 16 B of 16-bit indices");

/// DenseMma's block tile: 128 columns x 128 bytes of A's row per stage (rows: 64 or 128), 8 warps.
constexpr int kDenseMmaCols = 128;
constexpr int kDenseMmaStageBytes = 128;
constexpr int kDenseMmaThreads = 256;

enum class KernelKind { SlotSplit = 0, RowTile = 1, RowStaged = 2, RowMma = 3, DenseMma = 4 };

/// One kernel configuration: what spxSpMM_search chooses among.
struct EllConfig {
  KernelKind kind = KernelKind::SlotSplit;
  int lanes = 32;      ///< SlotSplit: lanes per row (4, 8, 16, 32)
  int nt = 1;          ///< SlotSplit: output columns per lane and pass over A (1, 4, 8, 16)
  int vn = 4;          ///< RowTile: consecutive output columns per lane (16 B or 8 B of B's row)
  int col_lanes = 32;  ///< RowTile: lanes per row (8, 16, 32); the column chunk is col_lanes * vn
  int splits = 1;      ///< RowTile / RowMma: warps sharing a row's (group's) slots (1, 2, 4, 8)
  bool transpose_b = false;  ///< RowTile on a column-major B: B^T copied to the workspace
  /// SlotSplit: B's k x NT chunk is staged in shared memory by persistent blocks. A gather is then
  /// a shared-memory load (about 4-8 wavefronts per warp for 32 random rows) instead of an L1
  /// load of 32 distinct lines (32 wavefronts): at n <= 16 that L1 rate, about one slot per clock
  /// per SM, and not DRAM, is what bounded the global-gather kernel.
  bool stage_b = false;
  int warps = 16;  ///< RowStaged / RowMma: warps per block (RowStaged 16, 32; RowMma 16)
  int mma_cols = 64;  ///< RowMma: columns per warp and chunk (64: n > 16; 16: decode)
  int tile_rows = 128;  ///< DenseMma: rows per block tile (64, 128)
  /// Staged SlotSplit: the row's lanes split the chunk's nt columns in this many parts (1, or 2
  /// for chunks of two 16-byte halves: fp16 nt = 16, fp32 nt = 8), each lane nt / parts
  /// accumulators: half the registers (1024 threads) without staging B twice or reading A twice.
  int col_parts = 1;
  /// Staged SlotSplit (sm_90): the TMA unit copies B's chunk (B's whole rows, one contiguous
  /// block) with 1-D bulk copies instead of the threads (slot_bulk_fits says where).
  bool bulk_copy = false;

  bool operator==(const EllConfig& o) const {
    return kind == o.kind && lanes == o.lanes && nt == o.nt && vn == o.vn &&
           col_lanes == o.col_lanes && splits == o.splits && transpose_b == o.transpose_b &&
           stage_b == o.stage_b && warps == o.warps && mma_cols == o.mma_cols &&
           tile_rows == o.tile_rows && col_parts == o.col_parts && bulk_copy == o.bulk_copy;
  }
  std::string describe() const;
};

/// Compile-time lists the kernels are instantiated for (the launcher static_asserts against them).
constexpr int kSlotNts[] = {1, 4, 8, 16};
constexpr int kSlotLanes[] = {4, 8, 16, 32};

/// What the rule looks at.
struct EllShape {
  int64_t m = 0, k = 0, n = 0;
  int64_t width = 0;    ///< slots per row of the plan's ELL part
  int value_bytes = 4;  ///< 4 (fp32) or 2 (fp16)
  bool b_row_major = true;
  int sm_count = 132;
  int64_t smem_optin = 0;  ///< shared memory a block may opt in to (0: never stage B)
  /// List DenseMma candidates (and keep the plan's dense A) even where the rule does not pick
  /// it, wherever A is at least 10 % dense: SPX_ELL_DENSE_CANDIDATES=1 (tests, candidate sweeps).
  bool all_dense_candidates = false;
  /// sm_90 and later: the TMA unit's 1-D bulk copy exists (the library's code runs as sm_90).
  bool bulk_copy = false;
  /// The plan's column indices are 16-bit (families/ell/plan/layout.hpp: k <= 65536); the bulk-copy
  /// kernels are instantiated for those only.
  bool index16 = true;
};

/// After the staged chunk: the mbarrier that counts the bulk copy's bytes (8-byte aligned).
constexpr int64_t kSlotStageBarrierBytes = 16;
/// Shared-memory bytes of a staged B chunk (k x nt elements), one zero row (k), where the
/// padding slots of a row's last step gather, and the bulk copy's mbarrier.
inline int64_t slot_stage_bytes(int64_t k, int nt, int value_bytes) {
  return (k + 1) * nt * value_bytes + kSlotStageBarrierBytes;
}
/// Whether SlotSplit can stage B's chunk of nt columns in shared memory.
inline bool slot_stage_fits(const EllShape& s, int nt) {
  return s.k > 0 && slot_stage_bytes(s.k, nt, s.value_bytes) <= s.smem_optin;
}
/// Shared-memory bytes of RowStaged's chunk (k rows of 128 B).
inline int64_t row_stage_bytes(int64_t k) { return k * kRowStagedRowBytes; }
inline bool row_stage_fits(const EllShape& s) {
  return s.k > 0 && row_stage_bytes(s.k) <= s.smem_optin;
}
/// Shared-memory bytes of RowMma with `cols` columns per chunk (fp16): k + 1 staged rows (the
/// last one zero, for padding slots) and, with splits, each thread's cols / 4 partial sums.
inline int64_t row_mma_smem_bytes(int64_t k, int warps, int splits, int cols) {
  return (k + 1) * cols * 2 + (splits > 1 ? int64_t{warps} * kWarp * (cols / 4) * 4 : 0);
}
/// Warps per block of RowMma: 16 (128 registers; 64 would spill: the next block's loads are
/// held while the current one is multiplied).
inline int row_mma_warps(int) { return kMmaThreads / kWarp; }
inline bool row_mma_fits(const EllShape& s, int splits, int cols = 64) {
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
inline int slot_staged_fit_nt_for(const EllShape& s) {
  int nt = slot_nt_for(s.n);
  while (nt > 1 && !slot_stage_fits(s, nt)) nt = nt == 4 ? 1 : nt / 2;
  return slot_stage_fits(s, nt) ? nt : 0;
}

/// Whether fp16 NT 16 (one chunk of 32-byte rows, 512 threads, A read once, ~2.3 instead of ~3
/// row-loop instructions per slot and column) has enough slots per staged byte to pay for its
/// 128 KB-per-SM copy: m x width >= 2.4 x k x SMs (the row loop's multiply-adds per SM at least
/// 1.2 per byte of the 32-byte rows every SM stages). Since B's thread copy runs in batches
/// (README notes 12), measured on H100, fp16 4096^2 x 16 at 80 / 90 / 95 % (m x width / (k x
/// SMs) = 6.2 / 3.1 / 1.6): NT 16 11.3 / 8.6 / 7.0 us against the two chunks' 12.0 / 8.9 / 6.6;
/// H200 at 70 / 80 / 90 / 95 %: 13.2 / 10.7 / 8.3 / 6.6 against 14.3 / 11.3 / 8.4 / 6.3.
inline bool slot_wide_rows_pay(const EllShape& s, int nt) {
  return s.value_bytes == 2 && nt == 16 &&
         5 * s.m * s.width >= 12 * s.k * static_cast<int64_t>(s.sm_count);
}

/// Whether the staged SlotSplit may have the TMA unit copy B's chunk (EllConfig::bulk_copy): one
/// chunk of B's whole rows, k x nt x value bytes a multiple of 16, 16-bit indices (row-major;
/// the launch also checks ld == nt and 16-byte alignment and otherwise lets the threads copy),
/// staged contiguously: rows of <= 16 B as they are, 32-byte rows (fp16 NT 16, fp32 NT 8, one
/// part) with odd lanes reading a row's second half first (spmm_slot_staged.cu). Not 64-byte
/// rows (fp32 NT 16: their planes stay).
inline bool slot_bulk_fits(const EllShape& s, int nt, int parts) {
  const int row_bytes = nt * s.value_bytes;
  return s.bulk_copy && s.index16 && s.b_row_major && s.n == nt && parts == 1 &&
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
/// unrolled (README notes 10): fp16 4096^2 x 16 at 80 / 90 %: NT 16 19.5 / 17.0 us (cp.async
/// copy) against 12.1 / 9.2. fp32 keeps the 16-byte rows (not re-measured since notes 12).
inline int slot_staged_nt_for(const EllShape& s) {
  int nt = slot_staged_fit_nt_for(s);
  if (slot_wide_rows_pay(s, nt) || slot_bulk_fits(s, nt, 1)) return nt;
  while (nt >= 8 && nt * s.value_bytes > 16 && (s.n + nt / 2 - 1) / (nt / 2) <= 2) nt /= 2;
  return nt;
}

/// Lanes per row for SlotSplit: enough that each lane does about two 8-slot steps per row, then
/// more while the grid would hold fewer than 8 warps per SM (the split over the ELL width is what
/// fills the GPU when m is small).
inline int slot_lanes_for(const EllShape& s) {
  int lanes = 4;
  while (lanes < 32 && static_cast<int64_t>(lanes) * kSlotVector * 2 < s.width) lanes *= 2;
  const int64_t chunks = (s.n + slot_nt_for(s.n) - 1) / slot_nt_for(s.n);
  while (lanes < 32 && s.m * chunks * lanes / kWarp < 8LL * s.sm_count) lanes *= 2;
  return lanes;
}

/// Threads per block of the staged SlotSplit: 1024 when B's staged rows are <= 16 bytes (64
/// registers suffice), else 512.
inline int slot_staged_threads(int nt, int value_bytes, int parts = 1) {
  return nt / parts * value_bytes <= 16 ? kStagedThreads : kStagedThreads / 2;
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
inline int slot_staged_lanes_for(const EllShape& s, int nt, int parts = 1) {
  const int64_t chunks = (s.n + nt - 1) / nt;
  const int64_t threads = static_cast<int64_t>(s.sm_count) * slot_staged_threads(nt, s.value_bytes, parts);
  for (int lanes : {32, 16})
    if (s.m * chunks <= threads / lanes) return lanes;
  return 8;
}

/// Column chunks of the staged large-n kernels (128 B of B's row each).
inline int64_t row_chunks(const EllShape& s) {
  return (s.n * s.value_bytes + kRowStagedRowBytes - 1) / kRowStagedRowBytes;
}

/// RowStaged's work units: row groups (4 rows per warp) x 128-byte column chunks.
inline int64_t row_staged_units(const EllShape& s) { return (s.m + 3) / 4 * row_chunks(s); }

/// Warps per block of RowStaged: 32 (one block per SM at 64 registers) from 16 units per SM,
/// else 16 (measured on H100, fp32 60 %: 1024^3 90 us vs 108 with 16 warps, 512^2 x 1024 27 vs
/// 30; with 15.5 units per SM, 1024^2 x 256 and 256^2 x 1024, 16 warps ran 34.5 / 12.3 us).
inline int row_staged_warps_for(const EllShape& s) {
  const int most = kRowStagedMaxThreads / kWarp;
  return row_staged_units(s) >= 16LL * s.sm_count ? most : most / 2;
}

/// Whether RowStaged has enough work: at least 12 units per SM (fp32 512^2 x 1024: 4096 units,
/// 27 us against RowTile's 34; 1024^2 x 256: 2048 units, 34.5 us (16 warps) against 37.2;
/// 1024^2 x 128: 1024 units, 34 us against RowTile's 21, which splits rows over warps).
inline bool row_staged_busy(const EllShape& s) {
  return row_staged_units(s) >= 12LL * s.sm_count;
}

/// RowMma (64 columns) work units: row groups of 8 x column chunks.
inline int64_t row_mma_units(const EllShape& s) { return (s.m + 7) / 8 * row_chunks(s); }

/// RowMma's splits (64 columns): 1 from 8 units per SM, 2 from 4, else 4; the split sums meet at
/// a block barrier, which cost 10 % at 1024^3 (H100: 56 us unsplit, 62 us with 2 splits).
inline int row_mma_splits_for(const EllShape& s) {
  const int64_t units = row_mma_units(s);
  return units >= 8LL * s.sm_count ? 1 : units >= 4LL * s.sm_count ? 2 : 4;
}

/// RowMma for decode (16 columns): splits doubled (up to 8) while the row groups x chunks x
/// splits give fewer warps than 16 per SM (4096 rows: 512 groups, 8 splits).
inline int row_mma16_splits_for(const EllShape& s) {
  const int64_t units = (s.m + 7) / 8 * ((s.n + 15) / 16);
  int splits = 1;
  while (splits < 8 && units * splits < 16LL * s.sm_count) splits *= 2;
  return splits;
}

/// RowTile's VN: a 16 B vector of B per lane when n fills a warp's 32 x 16 B, else 8 B.
inline int rowtile_vn_for(const EllShape& s) {
  const int full = 16 / s.value_bytes, half = 8 / s.value_bytes;
  return s.n >= static_cast<int64_t>(kWarp) * full * 3 / 4 ? full : half;
}

/// RowTile's column lanes: 32, halved (down to 8) while half the chunk (col_lanes * vn columns)
/// already covers n. (Narrow chunks sized for L1 reuse of B were measured slower on H200 at
/// 1024^3: 114 vs 73 us; they stay candidates for spxSpMM_search.)
inline int rowtile_col_lanes_for(const EllShape& s, int vn) {
  int cl = 32;
  while (cl > 8 && static_cast<int64_t>(cl) * vn / 2 >= s.n) cl /= 2;
  return cl;
}

/// RowTile's splits: double (up to 8) while the grid holds fewer than 16 warps per SM and each
/// part keeps at least 25 slots (H100, fp32, 60 %: 128 x 128 x 128 (w 51) 5.3 us with 2 splits
/// against 6.9 with 1; 256 x 256 x 128 (w 102) 5.9 us with 4 against 7.5 with 2).
inline int rowtile_splits_for(const EllShape& s, int vn, int cl) {
  const int64_t chunks =
      (s.n + static_cast<int64_t>(cl) * vn - 1) / (static_cast<int64_t>(cl) * vn);
  const int64_t warps = (s.m + kWarp / cl - 1) / (kWarp / cl) * chunks;
  int splits = 1;
  while (splits < 8 && warps * splits < 16LL * s.sm_count && s.width >= 50LL * splits) splits *= 2;
  return splits;
}

/// RowMma for this shape with `cols` columns per warp.
inline EllConfig row_mma_config(const EllShape& s, int splits, int cols = 64) {
  EllConfig c;
  c.kind = KernelKind::RowMma;
  c.mma_cols = cols;
  c.warps = row_mma_warps(cols);
  c.splits = splits;
  c.transpose_b = !s.b_row_major;
  return c;
}

/// RowStaged for this shape (the rule's fp32 large-n choice when B's rows fit).
inline EllConfig row_staged_config(const EllShape& s) {
  EllConfig c;
  c.kind = KernelKind::RowStaged;
  c.warps = row_staged_warps_for(s);
  c.transpose_b = !s.b_row_major;
  return c;
}

/// DenseMma's stage depth in elements: 128 bytes of an A row (32 fp32, 64 fp16).
constexpr int dense_mma_depth(int value_bytes) { return kDenseMmaStageBytes / value_bytes; }
/// DenseMma's dense A: ld = k rounded up to the stage depth (zeros past k).
inline int64_t dense_mma_ld(int64_t k, int value_bytes) {
  const int64_t d = dense_mma_depth(value_bytes);
  return (k + d - 1) / d * d;
}
/// Row pitches in shared memory, in elements: A's 128 bytes + 8 elements (fp32: 8-byte fragment
/// loads conflict-free; fp16: ldmatrix rows in 8 distinct 16-byte bank groups); B's 128 columns
/// + 4 (fp32: 4-byte loads of rows 2 t4, 2 t4 + 1) or + 8 (fp16: ldmatrix.trans rows).
constexpr int dense_mma_a_pitch(int value_bytes) { return dense_mma_depth(value_bytes) + 8; }
constexpr int dense_mma_b_pitch(int value_bytes) { return kDenseMmaCols + (value_bytes == 4 ? 4 : 8); }
/// Shared memory of a DenseMma block: 3 stages of A (rows x a_pitch) and B (depth x b_pitch).
constexpr int dense_mma_smem_bytes(int rows, int value_bytes) {
  return 3 * (rows * dense_mma_a_pitch(value_bytes) +
              dense_mma_depth(value_bytes) * dense_mma_b_pitch(value_bytes)) *
         value_bytes;
}
/// Bytes of DenseMma's dense A and its per-row flags (256-byte aligned), kept in the plan.
inline int64_t dense_mma_a_bytes(int64_t m, int64_t k, int value_bytes) {
  return (m * dense_mma_ld(k, value_bytes) * value_bytes + m * 4 + 255) / 256 * 256;
}
/// Largest dense A a plan keeps for DenseMma (beyond it the gather kernels run).
constexpr int64_t kDenseMmaMaxABytes = int64_t{256} << 20;
/// Block tiles of DenseMma with `rows` rows.
inline int64_t dense_mma_tiles(const EllShape& s, int rows) {
  return (s.m + rows - 1) / rows * ((s.n + kDenseMmaCols - 1) / kDenseMmaCols);
}
/// Rows per block tile: 128 once the 128-row tiles give every SM one (more reuse of each staged
/// tile: H100 fp32 1024 x 1024 x 4096, 60 %: 225 us with 128 rows, 265 with 64), else 64 (more
/// blocks: 1024^3: 95 us with 64 rows, 138 with 128).
inline int dense_mma_rows_for(const EllShape& s) {
  return dense_mma_tiles(s, 128) >= s.sm_count ? 128 : 64;
}
/// DenseMma can run: n > 16 (decode shapes are A's bytes, not B's gathers), the block's shared
/// memory fits, the dense A stays below kDenseMmaMaxABytes.
inline bool dense_mma_fits(const EllShape& s, int rows) {
  return s.n > 16 && s.k > 0 &&
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
inline double dense_mma_model_us(const EllShape& s, int rows) {
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
inline double row_kernel_model_us(const EllShape& s, KernelKind kind, double macs) {
  const bool half = s.value_bytes == 2;
  switch (kind) {
    case KernelKind::RowMma: return 12.0 + macs / 10.0e6;
    case KernelKind::RowStaged: return 10.0 + macs / (half ? 8.0e6 : 5.4e6);
    default: return 6.0 + macs / (half ? 5.0e6 : 4.0e6);
  }
}
inline EllConfig dense_mma_config(const EllShape& s, int rows) {
  EllConfig c;
  c.kind = KernelKind::DenseMma;
  c.tile_rows = rows;
  c.warps = kDenseMmaThreads / kWarp;
  c.transpose_b = !s.b_row_major;
  return c;
}

/// The gather kernels' rule for n > 16: fp16 RowMma (64 columns) when the rows are more than
/// 25 % dense, (k + 1) x 128 B fits and the shape has >= 2 row groups x chunks per SM (1024^3:
/// 57 us at 60 %, RowStaged 63; at 90 % RowStaged wins, 25.9 us vs 29.2: RowMma pads rows to
/// 64-slot blocks and pays more per block), then RowStaged when k x 128 B fits and rows x chunks
/// fill the GPU, else RowTile (global gathers, split rows).
inline EllConfig row_config(const EllShape& s) {
  if (4 * s.width > s.k && row_mma_units(s) >= 2LL * s.sm_count &&
      row_mma_fits(s, row_mma_splits_for(s)))
    return row_mma_config(s, row_mma_splits_for(s));
  if (row_stage_fits(s) && row_staged_busy(s)) return row_staged_config(s);
  EllConfig c;
  c.kind = KernelKind::RowTile;
  c.vn = rowtile_vn_for(s);
  c.col_lanes = rowtile_col_lanes_for(s, c.vn);
  c.splits = rowtile_splits_for(s, c.vn, c.col_lanes);
  c.transpose_b = !s.b_row_major;
  return c;
}

/// THE choice rule. Decode (n <= 16, A's bytes dominate): SlotSplit with B's chunk staged
/// whenever one column of it fits, NT from slot_staged_nt_for (16-byte rows while that leaves
/// at most two chunks), lanes from slot_staged_lanes_for (one pass of the grid); the threads
/// copy B unless the TMA unit's bulk copy applies (slot_bulk_fits; its boxes of 16-32-byte rows
/// were slower everywhere on the decode grid). RowMma on 16 columns is a
/// candidate only: 22.1 us against 19.3 at 4096^2 x 16, 80 %. Above (n > 16): DenseMma (tensor-core GEMM tiles of the
/// densified A; 3xTF32 for fp32) when it fits and its model beats the model of the gather kernel
/// row_config picks, else that gather kernel. (Measured, H100, 60 %: fp32 1024 x 1024 x 16384
/// 823 us dense against RowStaged's 1315; 1024^3 at 30 %: 96 against 148; at 60 % 94 against 91.)
inline EllConfig choose_config(const EllShape& s) {
  if (s.n <= 16) {
    EllConfig c;
    c.kind = KernelKind::SlotSplit;
    const int staged_nt = slot_staged_nt_for(s);
    c.stage_b = staged_nt > 0;
    c.nt = c.stage_b ? staged_nt : slot_nt_for(s.n);
    c.lanes = c.stage_b ? slot_staged_lanes_for(s, c.nt) : slot_lanes_for(s);
    c.bulk_copy = c.stage_b && slot_bulk_fits(s, c.nt, c.col_parts);
    return c;
  }
  const EllConfig row = row_config(s);
  const int rows = dense_mma_rows_for(s);
  const double row_macs = static_cast<double>(s.m) * static_cast<double>(s.width) * static_cast<double>(s.n);
  if (dense_mma_fits(s, rows) &&
      dense_mma_model_us(s, rows) < row_kernel_model_us(s, row.kind, row_macs))
    return dense_mma_config(s, rows);
  return row;
}

/// The candidates spxSpMM_search times: the rule's choice first, then the alternatives that can
/// win on some shapes (other lane splits; the other kernel; the other vector width).
inline std::vector<EllConfig> candidate_configs(const EllShape& s) {
  std::vector<EllConfig> out{choose_config(s)};
  auto add = [&](const EllConfig& c) {
    for (const EllConfig& o : out)
      if (o == c) return;
    out.push_back(c);
  };
  EllConfig slot;
  slot.kind = KernelKind::SlotSplit;
  if (const int staged_nt = slot_staged_nt_for(s); staged_nt > 0 && s.n <= 16) {
    slot.stage_b = true;
    slot.nt = staged_nt;
    slot.bulk_copy = slot_bulk_fits(s, staged_nt, 1);
    for (int lanes : {8, 16, 32}) {
      slot.lanes = lanes;
      add(slot);
    }
    // The rule's chunk copied by the threads instead of the TMA unit.
    if (EllConfig threads = out.front(); threads.bulk_copy) {
      threads.bulk_copy = false;
      add(threads);
    }
    // The other chunk width: the fitting NT when the rule halved it to 16-byte rows, else half
    // the rule's NT (twice the chunks: half the staged bytes per SM, A read twice).
    const int fit_nt = slot_staged_fit_nt_for(s);
    const int other_nt = fit_nt != staged_nt ? fit_nt : staged_nt == 4 ? 1 : staged_nt / 2;
    if (staged_nt > 1 && other_nt >= 1 && (other_nt > staged_nt || other_nt < s.n)) {
      slot.nt = other_nt;
      slot.lanes = slot_staged_lanes_for(s, other_nt);
      slot.bulk_copy = slot_bulk_fits(s, other_nt, 1);
      add(slot);
    }
    slot.bulk_copy = false;
    // Two column parts of the fitting chunk when its rows are two 16-byte halves (1024 threads,
    // every lane half the columns, A read once): measured close to the two chunks, not faster
    // (fp16 4096^2 x 16: 16.1 us against 15.4 at 80 %; fp32 4096^2 x 8: 13.6 against 13.6).
    if (slot_parts_fit(fit_nt, s.value_bytes)) {
      slot.nt = fit_nt;
      slot.col_parts = 2;
      slot.lanes = 32;
      add(slot);
      slot.col_parts = 1;
    }
  }
  slot.stage_b = false;
  slot.nt = slot_nt_for(s.n);
  for (int lanes : kSlotLanes)
    if (s.n <= 16 || lanes >= slot_lanes_for(s)) {
      slot.lanes = lanes;
      add(slot);
    }
  // RowMma with the rule's splits and the neighbours; RowStaged (both block sizes).
  if (s.n > 16) {
    const int sp = row_mma_splits_for(s);
    for (int splits : {sp, sp == 1 ? 2 : sp / 2})
      if (row_mma_fits(s, splits)) add(row_mma_config(s, splits));
  } else {
    const int sp = row_mma16_splits_for(s);
    for (int splits : {sp, sp == 8 ? 4 : sp * 2})
      if (row_mma_fits(s, splits, 16)) add(row_mma_config(s, splits, 16));
  }
  // DenseMma, both tile heights, only where the rule picks it: the plan then keeps a dense copy
  // of A (m x k), which no other plan should pay for (on the paper's grid the best candidate was
  // never DenseMma where the rule did not pick it).
  if (s.width * 10 >= s.k &&
      (s.all_dense_candidates || choose_config(s).kind == KernelKind::DenseMma))
    for (int rows : {dense_mma_rows_for(s), dense_mma_rows_for(s) == 128 ? 64 : 128})
      if (dense_mma_fits(s, rows)) add(dense_mma_config(s, rows));
  if (row_stage_fits(s) && s.n > 8) {
    EllConfig rs = row_staged_config(s);
    add(rs);
    rs.warps = rs.warps == 32 ? 16 : 32;
    if (s.n > 16) add(rs);
  }
  // RowTile: both vector widths with the rule's lanes and splits, then wider / narrower chunks
  // and more / fewer splits around the rule's choice.
  for (int vn : {16 / s.value_bytes, 8 / s.value_bytes}) {
    EllConfig tile;
    tile.kind = KernelKind::RowTile;
    tile.transpose_b = !s.b_row_major;
    tile.vn = vn;
    tile.col_lanes = rowtile_col_lanes_for(s, vn);
    tile.splits = rowtile_splits_for(s, vn, tile.col_lanes);
    add(tile);
    if (s.n <= 16) continue;
    const EllConfig base = tile;
    tile.col_lanes = base.col_lanes == 32 ? 8 : base.col_lanes * 2;
    add(tile);
    tile = base;
    tile.splits = base.splits >= 4 ? base.splits / 2 : base.splits * 2;
    add(tile);
  }
  return out;
}

inline std::string EllConfig::describe() const {
  if (kind == KernelKind::SlotSplit)
    return "slot_split lanes=" + std::to_string(lanes) + " nt=" + std::to_string(nt) +
           (col_parts > 1 ? " parts=" + std::to_string(col_parts) : "") +
           (stage_b ? (bulk_copy ? " B in smem by bulk copy" : " B in smem") : "");
  if (kind == KernelKind::RowMma)
    return "row_mma cols=" + std::to_string(mma_cols) + " splits=" + std::to_string(splits) +
           " B in smem, mma.sync" + (transpose_b ? ", B^T in workspace" : "");
  if (kind == KernelKind::DenseMma)
    return "dense_mma rows=" + std::to_string(tile_rows) + " A densified, mma.sync" +
           (transpose_b ? ", B^T in workspace" : "");
  if (kind == KernelKind::RowStaged)
    return "row_staged warps=" + std::to_string(warps) + " B rows of 128 B in smem" +
           (transpose_b ? ", B^T in workspace" : "");
  return "row_tile vn=" + std::to_string(vn) + " lanes=" + std::to_string(col_lanes) +
         " splits=" + std::to_string(splits) + (transpose_b ? " B^T in workspace" : "");
}

}  // namespace spx::kernels::ell
