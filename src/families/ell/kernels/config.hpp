// Configurations of the ELL (uniform sparsity) kernels: one type per kernel (KernelConfig is the
// variant of them), the instantiated lists, the shared-memory sizes the launchers and the rule
// both need, what run() decides per call (CallLaunch) and what a launcher receives (EllConfig:
// the two together). Plain C++ (no CUDA): the plan
// (families/ell/plan/choice.hpp holds the rule), the kernels and the CPU tests include it.
//
// The kernels share one plan layout (see README.md):
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

#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>

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

/// SlotSplit gathering B from global memory (spmm_slot.cu).
struct SlotSplitConfig {
  int lanes = 32;  ///< lanes per row (4, 8, 16, 32)
  int nt = 1;      ///< output columns per lane and pass over A (1, 4, 8, 16)
  bool operator==(const SlotSplitConfig& o) const { return lanes == o.lanes && nt == o.nt; }
};

/// SlotSplit with B's k x NT chunk staged in shared memory by persistent blocks (the decode
/// kernel, spmm_slot_staged.cu). A gather is then a shared-memory load (about 4-8 wavefronts per
/// warp for 32 random rows) instead of an L1 load of 32 distinct lines (32 wavefronts): at
/// n <= 16 that L1 rate, about one slot per clock per SM, and not DRAM, bounded the global one.
struct SlotStagedConfig {
  int lanes = 32;  ///< lanes per row (8, 16, 32)
  int nt = 1;      ///< columns of the staged chunk (1, 4, 8, 16)
  /// The row's lanes split the chunk's nt columns in this many parts (1, or 2 for chunks of two
  /// 16-byte halves: fp16 nt = 16, fp32 nt = 8), each lane nt / parts accumulators: half the
  /// registers (1024 threads) without staging B twice or reading A twice.
  int col_parts = 1;
  /// sm_90: the TMA unit copies B's chunk (B's whole rows, one contiguous block) with 1-D bulk
  /// copies instead of the threads, on calls where B allows it (plan/call.hpp).
  bool bulk_copy = false;
  bool operator==(const SlotStagedConfig& o) const {
    return lanes == o.lanes && nt == o.nt && col_parts == o.col_parts && bulk_copy == o.bulk_copy;
  }
};

/// RowTile (spmm_rowtile.cu).
struct RowTileConfig {
  int vn = 4;          ///< consecutive output columns per lane (16 B or 8 B of B's row)
  int col_lanes = 32;  ///< lanes per row (8, 16, 32); the column chunk is col_lanes * vn
  int splits = 1;      ///< warps sharing a row's slots (1, 2, 4, 8)
  bool transpose_b = false;  ///< column-major B: B^T copied to the workspace
  bool operator==(const RowTileConfig& o) const {
    return vn == o.vn && col_lanes == o.col_lanes && splits == o.splits &&
           transpose_b == o.transpose_b;
  }
};

/// RowStaged (spmm_rowstaged.cu).
struct RowStagedConfig {
  int warps = 16;  ///< warps per block (16, 32)
  bool transpose_b = false;
  bool operator==(const RowStagedConfig& o) const {
    return warps == o.warps && transpose_b == o.transpose_b;
  }
};

/// RowMma (fp16, spmm_rowmma.cu).
struct RowMmaConfig {
  int mma_cols = 64;  ///< columns per warp and chunk (64: n > 16; 16: decode)
  int warps = 16;     ///< warps per block
  int splits = 1;     ///< warps sharing a row group's slots (1, 2, 4, 8)
  bool transpose_b = false;
  bool operator==(const RowMmaConfig& o) const {
    return mma_cols == o.mma_cols && warps == o.warps && splits == o.splits &&
           transpose_b == o.transpose_b;
  }
};

/// DenseMma (spmm_dense_mma.cu).
struct DenseMmaConfig {
  int tile_rows = 128;  ///< rows per block tile (64, 128)
  int warps = 8;        ///< warps per block
  bool transpose_b = false;
  bool operator==(const DenseMmaConfig& o) const {
    return tile_rows == o.tile_rows && warps == o.warps && transpose_b == o.transpose_b;
  }
};

/// One kernel configuration: what spxSpMM_search chooses among (each kernel its own type).
using KernelConfig = std::variant<SlotSplitConfig, SlotStagedConfig, RowTileConfig, RowStagedConfig,
                               RowMmaConfig, DenseMmaConfig>;

inline KernelKind kind_of(const KernelConfig& c) {
  switch (c.index()) {
    case 0:
    case 1: return KernelKind::SlotSplit;
    case 2: return KernelKind::RowTile;
    case 3: return KernelKind::RowStaged;
    case 4: return KernelKind::RowMma;
    default: return KernelKind::DenseMma;
  }
}

/// Whether the configuration reads B^T from the workspace (the row kernels over a column-major B).
inline bool transposes_b(const KernelConfig& c) {
  if (const auto* x = std::get_if<RowTileConfig>(&c)) return x->transpose_b;
  if (const auto* x = std::get_if<RowStagedConfig>(&c)) return x->transpose_b;
  if (const auto* x = std::get_if<RowMmaConfig>(&c)) return x->transpose_b;
  if (const auto* x = std::get_if<DenseMmaConfig>(&c)) return x->transpose_b;
  return false;
}

/// The configuration as plan info prints it (spxPlanInfo_t::config starts with it).
inline std::string describe(const KernelConfig& cfg) {
  auto i = [](int v) { return std::to_string(v); };
  if (const auto* c = std::get_if<SlotSplitConfig>(&cfg))
    return "slot_split lanes=" + i(c->lanes) + " nt=" + i(c->nt);
  if (const auto* c = std::get_if<SlotStagedConfig>(&cfg))
    return "slot_split lanes=" + i(c->lanes) + " nt=" + i(c->nt) +
           (c->col_parts > 1 ? " parts=" + i(c->col_parts) : "") +
           (c->bulk_copy ? " B in smem by bulk copy (by threads when ld != n or B unaligned)"
                         : " B in smem");
  if (const auto* c = std::get_if<RowMmaConfig>(&cfg))
    return "row_mma cols=" + i(c->mma_cols) + " splits=" + i(c->splits) + " B in smem, mma.sync" +
           (c->transpose_b ? ", B^T in workspace" : "");
  if (const auto* c = std::get_if<DenseMmaConfig>(&cfg))
    return "dense_mma rows=" + i(c->tile_rows) + " A densified, mma.sync" +
           (c->transpose_b ? ", B^T in workspace" : "");
  if (const auto* c = std::get_if<RowStagedConfig>(&cfg))
    return "row_staged warps=" + i(c->warps) + " B rows of 128 B in smem" +
           (c->transpose_b ? ", B^T in workspace" : "");
  const auto& c = std::get<RowTileConfig>(cfg);
  return "row_tile vn=" + i(c.vn) + " lanes=" + i(c.col_lanes) + " splits=" + i(c.splits) +
         (c.transpose_b ? " B^T in workspace" : "");
}

/// Compile-time lists the kernels are instantiated for (the launcher static_asserts against them).
constexpr int kSlotNts[] = {1, 4, 8, 16};
constexpr int kSlotLanes[] = {4, 8, 16, 32};

/// After the staged chunk: the mbarrier that counts the bulk copy's bytes (8-byte aligned).
constexpr int64_t kSlotStageBarrierBytes = 16;
/// Shared-memory bytes of a staged B chunk (k x nt elements), one zero row (k), where the
/// padding slots of a row's last step gather, and the bulk copy's mbarrier.
inline int64_t slot_stage_bytes(int64_t k, int nt, int value_bytes) {
  return (k + 1) * nt * value_bytes + kSlotStageBarrierBytes;
}
/// Threads per block of the staged SlotSplit: 1024 when B's staged rows are <= 16 bytes (64
/// registers suffice), else 512 (slot_staging.cuh's staged_threads, the kernels' launch bounds,
/// says the same).
inline int slot_staged_threads(int nt, int value_bytes, int parts = 1) {
  return nt / parts * value_bytes <= 16 ? kStagedThreads : kStagedThreads / 2;
}
/// Shared-memory bytes of RowStaged's chunk (k rows of 128 B).
inline int64_t row_stage_bytes(int64_t k) { return k * kRowStagedRowBytes; }
/// Shared-memory bytes of RowMma with `cols` columns per chunk (fp16): k + 1 staged rows (the
/// last one zero, for padding slots) and, with splits, each thread's cols / 4 partial sums.
inline int64_t row_mma_smem_bytes(int64_t k, int warps, int splits, int cols) {
  return (k + 1) * cols * 2 + (splits > 1 ? int64_t{warps} * kWarp * (cols / 4) * 4 : 0);
}
/// Warps per block of RowMma: 16 (128 registers; 64 would spill: the next block's loads are
/// held while the current one is multiplied).
inline int row_mma_warps(int) { return kMmaThreads / kWarp; }

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

/// Row stride of B^T in the workspace: n rounded up so every row starts 16 B aligned.
inline int64_t bt_ld(int64_t n) { return (n + 7) / 8 * 8; }
/// Workspace bytes a configuration needs (B^T for a column-major B).
inline size_t workspace_bytes(const KernelConfig& cfg, int64_t k, int64_t n, bool half) {
  if (!transposes_b(cfg)) return 0;
  return static_cast<size_t>(k) * static_cast<size_t>(bt_ld(n)) * (half ? 2 : 4);
}

/// How the staged SlotSplit copies B's chunk on one call (plan/call.hpp decides).
struct StagedCopy {
  bool bulk = false;   ///< the TMA unit's bulk copy (the configuration's bulk_copy, B allowing)
  bool b_vec = false;  ///< threads: 16-byte pieces of row-major B
  bool b_col_vec = false;  ///< threads: 16-byte pieces of column-major B, transposed in registers
  bool async = false;  ///< threads, b_vec: the copy by cp.async (else 16-byte loads and stores)
  int threads = 0;     ///< threads per block (the kernel's launch bounds)
};

/// What run() decides per call (plan/call.hpp: pointers and leading dimensions may change
/// between calls) and hands the launcher with the configuration; a launcher only refuses.
struct CallLaunch {
  /// B as the kernel reads it: the user's B, or B^T in the workspace (`transpose`: written there
  /// first), with its leading dimension.
  const void* b_rows = nullptr;
  int64_t ldb = 0;
  bool transpose = false;
  /// Vector loads of B's rows (the row kernels' and the global SlotSplit's; their alignment).
  bool b_vec = false;
  /// Blocks of the launched kernel resident per SM (persistent grids: the staged SlotSplit,
  /// RowStaged, RowMma), queried once at analyze (kernels/ell.hpp: resident_blocks).
  int per_sm = 0;
  StagedCopy staged{};  ///< the staged SlotSplit only
};

/// What a launcher receives: the decided configuration of its kernel (the plan's Decision) and
/// this call's choices (plan/call.hpp). A launcher launches it or refuses it; it decides nothing.
/// (The name stays EllConfig, and each launcher keeps its parameter list, because nvcc names a
/// .cu file's anonymous namespace, and so every kernel symbol in it, after the file's first
/// external definition: the launcher. Renaming them would rename the kernels.)
struct EllConfig {
  KernelConfig kernel;
  CallLaunch call;
};

}  // namespace spx::kernels::ell
