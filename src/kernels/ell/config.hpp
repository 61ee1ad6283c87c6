// Tile configurations of the ELL (uniform sparsity) kernels and the rule that picks one from the
// shape. Plain C++ (no CUDA): the plan, the kernels and the CPU tests all include it.
//
// Two kernels share one plan layout (see README.md):
//   SlotSplit  G lanes of a warp per row split the row's ELL slots (8 slots, 16 B of indices, per
//              lane and step); every lane keeps NT fp32 accumulators (NT output columns); the G
//              partial sums are reduced with shuffles. The decode kernel (n <= 16): all SMs busy
//              from the split over the ELL width, A streamed with 16 B coalesced loads.
//   RowTile    CL lanes per row and per CL*VN output columns (32/CL rows per warp); each lane
//              owns VN consecutive columns and gathers B rows (row-major; a column-major B is
//              transposed into the workspace first) with 16 B (or 8 B) loads; the row's slots are
//              loaded CL at a time, coalesced, and broadcast with shuffles. `splits` warps cut a
//              row's ELL width in parts, summed in shared memory. The large-n kernel.
#pragma once

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
/// B's chunk once, so fewer and larger blocks stage it fewer times (16 warps keep enough of A's
/// loads in flight for DRAM at 128 registers per thread).
constexpr int kStagedThreads = 512;
static_assert(kBlockThreads % kWarp == 0, "a block is whole warps");
static_assert(kSlotVector * 2 == 16, "a SlotSplit step reads 16 B of 16-bit indices");

enum class KernelKind { SlotSplit = 0, RowTile = 1 };

/// One kernel configuration: what spxSpMM_search chooses among.
struct EllConfig {
  KernelKind kind = KernelKind::SlotSplit;
  int lanes = 32;      ///< SlotSplit: lanes per row (4, 8, 16, 32)
  int nt = 1;          ///< SlotSplit: output columns per lane and pass over A (1, 4, 8, 16)
  int vn = 4;          ///< RowTile: consecutive output columns per lane (16 B or 8 B of B's row)
  int col_lanes = 32;  ///< RowTile: lanes per row (8, 16, 32); the column chunk is col_lanes * vn
  int splits = 1;      ///< RowTile: warps sharing one row's ELL width (1, 2, 4, 8)
  bool transpose_b = false;  ///< RowTile on a column-major B: B^T copied to the workspace
  /// SlotSplit: B's k x NT chunk is staged in shared memory by persistent blocks. A gather is then
  /// a shared-memory load (about 4-8 wavefronts per warp for 32 random rows) instead of an L1
  /// load of 32 distinct lines (32 wavefronts): at n <= 16 that L1 rate, about one slot per clock
  /// per SM, and not DRAM, is what bounded the global-gather kernel.
  bool stage_b = false;

  bool operator==(const EllConfig& o) const {
    return kind == o.kind && lanes == o.lanes && nt == o.nt && vn == o.vn &&
           col_lanes == o.col_lanes && splits == o.splits && transpose_b == o.transpose_b &&
           stage_b == o.stage_b;
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
};

/// Shared-memory bytes of a staged B chunk (k x nt elements).
inline int64_t slot_stage_bytes(int64_t k, int nt, int value_bytes) {
  return k * nt * value_bytes;
}
/// Whether SlotSplit can stage B's chunk of nt columns in shared memory.
inline bool slot_stage_fits(const EllShape& s, int nt) {
  return s.k > 0 && slot_stage_bytes(s.k, nt, s.value_bytes) <= s.smem_optin;
}

/// Smallest instantiated NT covering n (16 when n > 16: SlotSplit then loops over column chunks).
inline int slot_nt_for(int64_t n) {
  for (int nt : kSlotNts)
    if (n <= nt) return nt;
  return 16;
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
/// part keeps at least 32 slots.
inline int rowtile_splits_for(const EllShape& s, int vn, int cl) {
  const int64_t chunks =
      (s.n + static_cast<int64_t>(cl) * vn - 1) / (static_cast<int64_t>(cl) * vn);
  const int64_t warps = (s.m + kWarp / cl - 1) / (kWarp / cl) * chunks;
  int splits = 1;
  while (splits < 8 && warps * splits < 16LL * s.sm_count && s.width >= 64LL * splits) splits *= 2;
  return splits;
}

/// THE choice rule: SlotSplit for n <= 16 (decode: A's bytes dominate), RowTile above (B's
/// gathers dominate; each lane reads 16 B of a B row per slot).
inline EllConfig choose_config(const EllShape& s) {
  EllConfig c;
  if (s.n <= 16) {
    c.kind = KernelKind::SlotSplit;
    c.nt = slot_nt_for(s.n);
    c.lanes = slot_lanes_for(s);
    c.stage_b = slot_stage_fits(s, c.nt);
  } else {
    c.kind = KernelKind::RowTile;
    c.vn = rowtile_vn_for(s);
    c.col_lanes = rowtile_col_lanes_for(s, c.vn);
    c.splits = rowtile_splits_for(s, c.vn, c.col_lanes);
    c.transpose_b = !s.b_row_major;
  }
  return c;
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
  slot.nt = slot_nt_for(s.n);
  for (int staged : {1, 0}) {
    if (staged && !slot_stage_fits(s, slot.nt)) continue;
    slot.stage_b = staged != 0;
    for (int lanes : kSlotLanes)
      if (s.n <= 16 || lanes >= slot_lanes_for(s)) {
        slot.lanes = lanes;
        add(slot);
      }
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
           (stage_b ? " B in smem" : "");
  return "row_tile vn=" + std::to_string(vn) + " lanes=" + std::to_string(col_lanes) +
         " splits=" + std::to_string(splits) + (transpose_b ? " B^T in workspace" : "");
}

}  // namespace spx::kernels::ell
