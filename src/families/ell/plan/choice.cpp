#include "families/ell/plan/choice.hpp"

#include <algorithm>

#include "runtime/dtype.hpp"
#include "runtime/error.hpp"
#include "runtime/log.hpp"

namespace spx::plan {

EllOverrides read_overrides(const dispatch::Switches& switches) {
  EllOverrides o;
  // An index checked against the candidate count by choose(); not an integer: ignored (logged).
  o.force_candidate = switches.integer("SPX_ELL_FORCE_CANDIDATE", -1);
  o.dense_candidates = switches.flag("SPX_ELL_DENSE_CANDIDATES") == 1;
  return o;
}

/// The gather kernels' rule for n > 16: fp16 RowMma (64 columns) when the rows are more than
/// 25 % dense, (k + 1) x 128 B fits and the shape has >= 2 row groups x chunks per SM (1024^3:
/// 57 us at 60 %, RowStaged 63; at 90 % RowStaged wins, 25.9 us vs 29.2: RowMma pads rows to
/// 64-slot blocks and pays more per block), then RowStaged when k x 128 B fits and rows x chunks
/// fill the GPU, else RowTile (global gathers, split rows).
KernelConfig row_config(const EllInputs& s) {
  if (4 * s.width > s.k && row_mma_units(s) >= 2LL * s.sm_count &&
      row_mma_fits(s, row_mma_splits_for(s)))
    return row_mma_config(s, row_mma_splits_for(s));
  if (row_stage_fits(s) && row_staged_busy(s)) return row_staged_config(s);
  RowTileConfig c;
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
/// were slower everywhere on the decode grid); without staging, SlotSplit gathering B from
/// global memory. RowMma on 16 columns is a candidate only: 22.1 us against 19.3 at 4096^2 x 16,
/// 80 %. Above (n > 16): DenseMma (tensor-core GEMM tiles of the densified A; 3xTF32 for fp32)
/// when it fits and its model beats the model of the gather kernel row_config picks, else that
/// gather kernel. (Measured, H100, 60 %: fp32 1024 x 1024 x 16384 823 us dense against
/// RowStaged's 1315; 1024^3 at 30 %: 96 against 148; at 60 % 94 against 91.)
KernelConfig choose_config(const EllInputs& s) {
  if (s.n <= 16) {
    if (const int staged_nt = slot_staged_nt_for(s); staged_nt > 0) {
      SlotStagedConfig c;
      c.nt = staged_nt;
      c.lanes = slot_staged_lanes_for(s, c.nt);
      c.bulk_copy = slot_bulk_fits(s, c.nt, c.col_parts);
      return c;
    }
    SlotSplitConfig c;
    c.nt = slot_nt_for(s.n);
    c.lanes = slot_lanes_for(s);
    return c;
  }
  const KernelConfig row = row_config(s);
  const int rows = dense_mma_rows_for(s);
  const double row_macs =
      static_cast<double>(s.m) * static_cast<double>(s.width) * static_cast<double>(s.n);
  if (dense_mma_fits(s, rows) &&
      dense_mma_model_us(s, rows) < row_kernel_model_us(s, kind_of(row), row_macs))
    return dense_mma_config(s, rows);
  return row;
}

/// The candidates spxSpMM_search times: the rule's choice first, then the alternatives that can
/// win on some shapes (other lane splits; the other kernel; the other vector width).
std::vector<KernelConfig> candidate_configs(const EllInputs& s, bool dense_candidates) {
  const KernelConfig rule = choose_config(s);
  std::vector<KernelConfig> out{rule};
  auto add = [&](const KernelConfig& c) {
    if (std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  };
  if (const int staged_nt = slot_staged_nt_for(s); staged_nt > 0 && s.n <= 16) {
    SlotStagedConfig slot;
    slot.nt = staged_nt;
    slot.bulk_copy = slot_bulk_fits(s, staged_nt, 1);
    for (int lanes : {8, 16, 32}) {
      slot.lanes = lanes;
      add(slot);
    }
    // The rule's chunk copied by the threads instead of the TMA unit.
    if (const auto* r = std::get_if<SlotStagedConfig>(&rule); r != nullptr && r->bulk_copy) {
      SlotStagedConfig threads = *r;
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
    }
  }
  SlotSplitConfig global;
  global.nt = slot_nt_for(s.n);
  for (int lanes : kSlotLanes)
    if (s.n <= 16 || lanes >= slot_lanes_for(s)) {
      global.lanes = lanes;
      add(global);
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
  // never DenseMma where the rule did not pick it); SPX_ELL_DENSE_CANDIDATES lists it wherever
  // A is at least 10 % dense.
  if (s.width * 10 >= s.k &&
      (dense_candidates || std::holds_alternative<DenseMmaConfig>(rule)))
    for (int rows : {dense_mma_rows_for(s), dense_mma_rows_for(s) == 128 ? 64 : 128})
      if (dense_mma_fits(s, rows)) add(dense_mma_config(s, rows));
  if (row_stage_fits(s) && s.n > 8) {
    RowStagedConfig rs = row_staged_config(s);
    add(rs);
    rs.warps = rs.warps == 32 ? 16 : 32;
    if (s.n > 16) add(rs);
  }
  // RowTile: both vector widths with the rule's lanes and splits, then wider / narrower chunks
  // and more / fewer splits around the rule's choice.
  for (int vn : {16 / s.value_bytes, 8 / s.value_bytes}) {
    RowTileConfig tile;
    tile.transpose_b = !s.b_row_major;
    tile.vn = vn;
    tile.col_lanes = rowtile_col_lanes_for(s, vn);
    tile.splits = rowtile_splits_for(s, vn, tile.col_lanes);
    add(tile);
    if (s.n <= 16) continue;
    const RowTileConfig base = tile;
    tile.col_lanes = base.col_lanes == 32 ? 8 : base.col_lanes * 2;
    add(tile);
    tile = base;
    tile.splits = base.splits >= 4 ? base.splits / 2 : base.splits * 2;
    add(tile);
  }
  return out;
}

Decision choose(const EllInputs& inputs, const EllOverrides& overrides) {
  Decision d;
  d.inputs = inputs;
  d.overrides = overrides;
  for (const KernelConfig& c : candidate_configs(inputs, overrides.dense_candidates))
    d.candidates.add(c);
  if (overrides.force_candidate >= 0 && overrides.force_candidate < d.candidates.count())
    d.candidates.select(static_cast<int>(overrides.force_candidate));
  else if (overrides.force_candidate != -1)
    log::info("SPX_ELL_FORCE_CANDIDATE=%lld ignored: not in 0..%d",
              static_cast<long long>(overrides.force_candidate), d.candidates.count() - 1);
  // griddepcontrol.wait is in sm_90 code only: without it an early start would race.
  d.dependent_launch = inputs.code_arch >= 90;
  return d;
}

bool Decision::keeps_dense_a() const {
  for (const KernelConfig& c : candidates.items())
    if (std::holds_alternative<DenseMmaConfig>(c)) return true;
  return false;
}

int64_t Decision::dense_a_bytes() const {
  return keeps_dense_a() ? dense_mma_a_bytes(inputs.m, inputs.k, inputs.value_bytes) : 0;
}

size_t Decision::workspace_bytes() const {
  size_t bytes = 0;
  for (const KernelConfig& c : candidates.items())
    bytes = std::max(bytes, kernels::ell::workspace_bytes(c, inputs.k, inputs.n,
                                                          inputs.value_bytes == 2));
  return bytes;
}

std::string Decision::describe(int candidate) const {
  const EllInputs& s = inputs;
  auto order = [](bool row) { return row ? "row" : "col"; };
  std::string out =
      kernels::ell::describe(candidates.at(candidate)) +
      strf("; A %s ELL w=%lld idx%d, overflow %lld entries; B %s, C %s %s", dtype::name(s.a_type),
           static_cast<long long>(s.width), s.index16 ? 16 : 32,
           static_cast<long long>(s.overflow), order(s.b_row_major), dtype::name(s.c_type),
           order(s.c_order == SPX_ORDER_ROW));
  if (dense_a_bytes() > 0)
    out += strf("; dense A for DenseMma kept in the plan (%.1f MiB)",
                static_cast<double>(dense_a_bytes()) / (1 << 20));
  return out;
}

}  // namespace spx::plan
