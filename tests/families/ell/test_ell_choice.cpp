// The ELL family's decision (plan/choice.hpp, plan/call.hpp): the configuration rule on
// representative shapes, the candidates, read_overrides and what each SPX_ELL_* switch changes,
// describe() against what the Decision holds, and the per-call launch choices.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <variant>
#include <vector>

#include "families/ell/plan/call.hpp"
#include "families/ell/plan/choice.hpp"
#include "families/ell/plan/predict.hpp"
#include "families/switches.hpp"

namespace ek = spx::plan;  // the rule; the configuration types come with it (kernels/config.hpp)

namespace {

template <class T>
const T& as(const ek::KernelConfig& c) {
  REQUIRE(std::holds_alternative<T>(c));
  return std::get<T>(c);
}
bool staged(const ek::KernelConfig& c) { return std::holds_alternative<ek::SlotStagedConfig>(c); }
/// NT and lanes of either SlotSplit.
int nt_of(const ek::KernelConfig& c) {
  if (staged(c)) return std::get<ek::SlotStagedConfig>(c).nt;
  return as<ek::SlotSplitConfig>(c).nt;
}
int lanes_of(const ek::KernelConfig& c) {
  if (staged(c)) return std::get<ek::SlotStagedConfig>(c).lanes;
  return as<ek::SlotSplitConfig>(c).lanes;
}

/// An H100-like shape of the paper grid: uniform rows of k x (1 - sparsity) slots.
ek::EllInputs paper_shape(int64_t m, int64_t k, int64_t n, double sparsity, int value_bytes) {
  ek::EllInputs s;
  s.m = m;
  s.k = k;
  s.n = n;
  s.width = static_cast<int64_t>(static_cast<double>(k) * (1.0 - sparsity) + 0.5);
  s.value_bytes = value_bytes;
  s.smem_optin = 232448;
  return s;
}

}  // namespace

TEST_CASE("configuration rule: B is staged in shared memory when its chunk fits", "[ell]") {
  ek::EllInputs s;
  s.m = 4096;
  s.k = 4096;
  s.n = 8;
  s.width = 410;
  s.value_bytes = 2;
  s.smem_optin = 0;  // unknown device: never staged
  CHECK_FALSE(staged(ek::choose_config(s)));
  s.smem_optin = 232448;  // sm_90 opt-in
  ek::KernelConfig c = ek::choose_config(s);
  CHECK(staged(c));  // 4096 x 8 fp16 = 64 KiB
  // The zero row and the bulk copy's mbarrier (16 bytes).
  CHECK(ek::slot_stage_bytes(s.k, nt_of(c), 2) == (4096 + 1) * 8 * 2 + 16);
  {
    // They count: k x 8 fp16 columns filling the opt-in exactly no longer fit, NT 4 does; one
    // row of 16 B less does not fit either (zero row + mbarrier), two rows less do.
    ek::EllInputs edge = s;
    edge.k = 232448 / 16;
    CHECK_FALSE(ek::slot_stage_fits(edge, 8));
    CHECK(ek::slot_staged_fit_nt_for(edge) == 4);
    edge.k -= 1;
    CHECK_FALSE(ek::slot_stage_fits(edge, 8));
    edge.k -= 1;
    CHECK(ek::slot_staged_fit_nt_for(edge) == 8);
  }
  CHECK(nt_of(c) == 8);
  s.k = 11008;
  s.n = 16;  // 11008 x 16 fp16 = 344 KiB does not fit: two chunks of 8 columns (172 KiB)
  c = ek::choose_config(s);
  CHECK(staged(c));
  CHECK(nt_of(c) == 8);
  s.n = 8;
  CHECK(nt_of(ek::choose_config(s)) == 8);
  s.value_bytes = 4;  // fp32: 344 KiB, so chunks of 4 columns
  c = ek::choose_config(s);
  CHECK(staged(c));
  CHECK(nt_of(c) == 4);
  s.k = 1 << 20;  // not even one column fits
  CHECK_FALSE(staged(ek::choose_config(s)));
  s.k = 11008;
  // Both variants are offered to spxSpMM_search when the chunk fits; the staged ones first.
  s.value_bytes = 2;
  const auto cands = ek::candidate_configs(s);
  int n_staged = 0, n_global = 0;
  for (const auto& k : cands)
    if (ek::kind_of(k) == ek::KernelKind::SlotSplit) (staged(k) ? n_staged : n_global)++;
  CHECK(n_staged == 4);  // lanes 8 / 16 / 32 at NT 8, and NT 4 (two chunks)
  CHECK(n_global == 4);
  CHECK(staged(cands[0]));
  CHECK(ek::describe(cands[0]).find("B in smem") != std::string::npos);
}

TEST_CASE("configuration rule: decode chunks of 16-byte rows, lanes for one pass, staging candidates",
          "[ell]") {
  ek::EllInputs s = paper_shape(4096, 4096, 16, 0.8, 2);
  // fp16 n = 16 at 80 %: NT 16 fits (128 KiB), and its rows have enough slots per staged byte
  // (m x width = 6.2 x k x SMs) to keep it in one chunk of 32-byte rows.
  CHECK(ek::slot_staged_fit_nt_for(s) == 16);
  CHECK(ek::slot_wide_rows_pay(s, 16));
  CHECK(ek::slot_staged_nt_for(s) == 16);
  CHECK(nt_of(ek::choose_config(s)) == 16);
  CHECK(lanes_of(ek::choose_config(s)) == 16);  // 512 threads: 32 rows per block, one pass
  {
    // At 95 % (1.6 x k x SMs) the rows are too short: NT 8 has 16-byte rows and two chunks.
    const ek::EllInputs sparse = paper_shape(4096, 4096, 16, 0.95, 2);
    CHECK_FALSE(ek::slot_wide_rows_pay(sparse, 16));
    CHECK(ek::slot_staged_nt_for(sparse) == 8);
    // fp32 keeps the 16-byte rows (NT 4 at n = 8) whatever the density: not measured otherwise.
    const ek::EllInputs f32 = paper_shape(4096, 4096, 8, 0.8, 4);
    CHECK(ek::slot_staged_fit_nt_for(f32) == 8);
    CHECK(ek::slot_staged_nt_for(f32) == 4);
  }
  auto cands = ek::candidate_configs(s);
  bool nt16 = false, parts = false, nt8 = false;
  for (const auto& c : cands) {
    if (ek::kind_of(c) != ek::KernelKind::SlotSplit || !staged(c)) continue;
    nt16 |= nt_of(c) == 16 && as<ek::SlotStagedConfig>(c).col_parts == 1 && lanes_of(c) == 16;
    parts |= nt_of(c) == 16 && as<ek::SlotStagedConfig>(c).col_parts == 2 && lanes_of(c) == 32;
    nt8 |= nt_of(c) == 8 && as<ek::SlotStagedConfig>(c).col_parts == 1 && lanes_of(c) == 16;  // the two chunks of 16-byte rows
  }
  CHECK(nt16);
  CHECK(parts);
  CHECK(nt8);
  // fp32 n = 16: NT 8 (fits; NT 4 would take four chunks), 512 threads: one pass only at 8 lanes.
  s.value_bytes = 4;
  ek::KernelConfig c = ek::choose_config(s);
  CHECK(nt_of(c) == 8);
  CHECK(lanes_of(c) == 8);
  // fp32 n = 8: NT 4 (two chunks of 16-byte rows), 1024 threads, one pass at 16 lanes.
  s.n = 8;
  c = ek::choose_config(s);
  CHECK(nt_of(c) == 4);
  CHECK(lanes_of(c) == 16);
  // fp32 4096 x 11008 x 16: only NT 4 fits (172 KiB), four chunks: one pass at 8 lanes.
  s.k = 11008;
  s.n = 16;
  c = ek::choose_config(s);
  CHECK(nt_of(c) == 4);
  CHECK(lanes_of(c) == 8);
  CHECK(ek::slot_parts_fit(16, 2));
  CHECK(ek::slot_parts_fit(8, 4));
  CHECK_FALSE(ek::slot_parts_fit(8, 2));
}

TEST_CASE("configuration rule: the TMA unit copies one chunk of B's whole rows on sm_90", "[ell]") {
  ek::EllInputs s;
  s.m = 4096;
  s.k = 4096;
  s.n = 16;
  s.width = 820;  // 80 %
  s.value_bytes = 2;
  s.smem_optin = 232448;
  ek::KernelConfig c = ek::choose_config(s);
  REQUIRE(staged(c));
  CHECK(nt_of(c) == 16);  // one chunk of 32-byte rows (slot_wide_rows_pay)
  CHECK_FALSE(as<ek::SlotStagedConfig>(c).bulk_copy);  // before sm_90
  s.code_arch = 90;
  c = ek::choose_config(s);
  CHECK(as<ek::SlotStagedConfig>(c).bulk_copy);
  CHECK(ek::describe(c).find("bulk copy") != std::string::npos);
  // Where the TMA unit copies, one chunk of 32-byte rows also at 95 % (without it two chunks of
  // 16-byte rows: slot_wide_rows_pay fails there), and fp32 x 8 in one chunk of 8 columns.
  auto check_chunks = [](ek::EllInputs shape, int bulk_nt, int threads_nt) {
    CHECK(nt_of(ek::choose_config(shape)) == bulk_nt);
    CHECK(as<ek::SlotStagedConfig>(ek::choose_config(shape)).bulk_copy);
    shape.code_arch = 0;
    CHECK(nt_of(ek::choose_config(shape)) == threads_nt);
  };
  ek::EllInputs sparse = s;
  sparse.width = 205;
  check_chunks(sparse, 16, 8);
  ek::EllInputs f32 = s;
  f32.n = 8;
  f32.value_bytes = 4;
  check_chunks(f32, 8, 4);
  // The threads' copy of the same chunk stays a candidate.
  ek::KernelConfig threads = c;
  std::get<ek::SlotStagedConfig>(threads).bulk_copy = false;
  const std::vector<ek::KernelConfig> cands = ek::candidate_configs(s);
  CHECK(std::find(cands.begin(), cands.end(), threads) != cands.end());
  // Rows of <= 16 B or 32 B, one chunk, one part, row-major B.
  CHECK(ek::slot_bulk_fits(s, 16, 1));
  CHECK_FALSE(ek::slot_bulk_fits(s, 16, 2));
  CHECK_FALSE(ek::slot_bulk_fits(s, 8, 1));  // n = 16 in two chunks of 8
  s.n = 8;
  CHECK(ek::slot_bulk_fits(s, 8, 1));
  s.value_bytes = 4;
  CHECK(ek::slot_bulk_fits(s, 8, 1));    // 32-byte rows
  s.n = 16;
  CHECK_FALSE(ek::slot_bulk_fits(s, 16, 1));  // fp32 x 16: 64-byte rows keep their planes
  s.value_bytes = 2;
  s.n = 8;
  s.b_row_major = false;
  CHECK_FALSE(ek::slot_bulk_fits(s, 8, 1));
  s.b_row_major = true;
  CHECK(ek::slot_bulk_fits(s, 8, 1));
  s.index16 = false;  // 32-bit indices (k > 65536): the bulk-copy kernels take 16-bit ones
  CHECK_FALSE(ek::slot_bulk_fits(s, 8, 1));
}

TEST_CASE("configuration rule: decode shapes split slots, large n tiles rows", "[ell]") {
  ek::EllInputs s;
  s.m = 4096;
  s.k = 4096;
  s.width = 410;
  s.value_bytes = 2;
  for (int64_t n : {1, 7, 8, 16}) {
    s.n = n;
    const ek::KernelConfig c = ek::choose_config(s);
    CHECK(ek::kind_of(c) == ek::KernelKind::SlotSplit);
    CHECK(nt_of(c) >= n);
    CHECK(lanes_of(c) == 32);
  }
  s.n = 1024;
  ek::KernelConfig c = ek::choose_config(s);
  CHECK(ek::kind_of(c) == ek::KernelKind::RowTile);  // unknown shared memory: nothing staged
  CHECK(as<ek::RowTileConfig>(c).vn == 8);
  CHECK_FALSE(ek::transposes_b(c));
  s.smem_optin = 232448;  // 4096 rows x 128 B = 512 KiB do not fit either
  CHECK(ek::kind_of(ek::row_config(s)) == ek::KernelKind::RowTile);
  CHECK(ek::kind_of(ek::choose_config(s)) == ek::KernelKind::DenseMma);  // modelled 235 us against 350
  s.k = 1024;  // 129 rows of 128 B fit: fp16 on tensor cores (the gather kernels' rule)
  c = ek::row_config(s);
  CHECK(ek::kind_of(c) == ek::KernelKind::RowMma);
  CHECK(as<ek::RowMmaConfig>(c).splits == 1);  // 512 row groups x 16 chunks fill 16 warps x 132 SMs
  CHECK(ek::describe(c).find("row_mma") != std::string::npos);
  s.value_bytes = 4;  // fp32: RowStaged, one block of 32 warps per SM (128 KiB of B)
  c = ek::row_config(s);
  CHECK(ek::kind_of(c) == ek::KernelKind::RowStaged);
  CHECK(as<ek::RowStagedConfig>(c).warps == 32);
  CHECK(ek::describe(c).find("row_staged") != std::string::npos);
  s.k = 512;
  CHECK(as<ek::RowStagedConfig>(ek::row_config(s)).warps == 32);  // measured: 32 warps beat 16 at k = 512 too
  s.k = 1024;
  s.m = 128;  // few rows x chunks: RowTile splits the rows over warps instead
  s.n = 128;
  CHECK(ek::kind_of(ek::choose_config(s)) == ek::KernelKind::RowTile);
  s.value_bytes = 2;  // fp16 too: 32 row groups x 2 chunks, under 2 per SM
  CHECK(ek::kind_of(ek::choose_config(s)) == ek::KernelKind::RowTile);
  s.m = 512;  // 64 row groups x 16 chunks: RowMma, two splits
  s.n = 1024;
  c = ek::row_config(s);
  CHECK(ek::kind_of(c) == ek::KernelKind::RowMma);
  CHECK(as<ek::RowMmaConfig>(c).splits == 2);
  CHECK(as<ek::RowMmaConfig>(c).mma_cols == 64);
  s.m = 4096;  // decode, fp16: staged SlotSplit; RowMma on 16 columns among the candidates
  s.k = 4096;
  s.n = 16;  // 90 %: NT 16 (one chunk of 32-byte rows, 512 threads): 4096 rows at 16 lanes
  c = ek::choose_config(s);
  CHECK(ek::kind_of(c) == ek::KernelKind::SlotSplit);
  CHECK(staged(c));
  CHECK(nt_of(c) == 16);
  CHECK(lanes_of(c) == 16);
  s.width = 205;  // 95 %: NT 8 (16-byte rows, 1024 threads, two chunks): 8192 rows x chunks
  c = ek::choose_config(s);
  CHECK(nt_of(c) == 8);
  CHECK(lanes_of(c) == 16);
  s.width = 410;
  bool mma16 = false;
  for (const auto& k : ek::candidate_configs(s))
    mma16 |= std::holds_alternative<ek::RowMmaConfig>(k) && as<ek::RowMmaConfig>(k).mma_cols == 16 &&
             as<ek::RowMmaConfig>(k).splits == 8;
  CHECK(mma16);
  s.n = 8;  // 1024 threads: one pass at 32 lanes
  CHECK(lanes_of(ek::choose_config(s)) == 32);
  s.k = 1024;
  s.n = 1024;
  s.width = 102;  // 90 %: RowStaged beats RowMma (rows padded to 64-slot blocks)
  CHECK(ek::kind_of(ek::row_config(s)) == ek::KernelKind::RowStaged);
  s.width = 410;
  s.n = 1024;
  s.b_row_major = false;
  CHECK(ek::transposes_b(ek::choose_config(s)));
  s.smem_optin = 0;
  s.k = 4096;
  s.n = 33;
  s.value_bytes = 4;
  CHECK(as<ek::RowTileConfig>(ek::choose_config(s)).vn == 2);
  // Candidates: the rule's choice first, all distinct, both kernels offered.
  for (int64_t n : {1, 16, 130, 1024}) {
    s.n = n;
    const auto cands = ek::candidate_configs(s);
    REQUIRE(!cands.empty());
    CHECK(cands[0] == ek::choose_config(s));
    bool slot = false, tile = false;
    for (size_t i = 0; i < cands.size(); ++i) {
      slot |= ek::kind_of(cands[i]) == ek::KernelKind::SlotSplit;
      tile |= ek::kind_of(cands[i]) == ek::KernelKind::RowTile;
      for (size_t j = i + 1; j < cands.size(); ++j) CHECK_FALSE(cands[i] == cands[j]);
    }
    CHECK(slot);
    CHECK(tile);
  }
  // Small m: more lanes per row to fill the SMs.
  s.m = 64;
  s.n = 8;
  s.width = 16;
  CHECK(ek::slot_lanes_for(s) == 32);
}

TEST_CASE("configuration rule: DenseMma where its model beats the gather kernels", "[ell]") {
  // H100 measurements behind the model (spx-bench ell --candidates, 60 % unless noted).
  const auto shape = paper_shape;
  auto kind = [](const ek::EllInputs& s) { return ek::kind_of(ek::choose_config(s)); };
  // fp32: 1024 x 1024 x 16384 760 us dense (128-row tiles) against RowStaged's 1315.
  ek::EllInputs s = shape(1024, 1024, 16384, 0.6, 4);
  CHECK(kind(s) == ek::KernelKind::DenseMma);
  CHECK(as<ek::DenseMmaConfig>(ek::choose_config(s)).tile_rows == 128);
  CHECK(ek::describe(ek::choose_config(s)).find("dense_mma rows=128") != std::string::npos);
  // 1024^3 at 30 %: 97 us against 148; at 80 % RowStaged (52 us against 92).
  CHECK(kind(shape(1024, 1024, 1024, 0.3, 4)) == ek::KernelKind::DenseMma);
  CHECK(as<ek::DenseMmaConfig>(ek::choose_config(shape(1024, 1024, 1024, 0.3, 4))).tile_rows == 64);
  CHECK(kind(shape(1024, 1024, 1024, 0.8, 4)) == ek::KernelKind::RowStaged);
  // Small shapes and small n keep the gather kernels: 256^2 x 1024 and 1024^2 x 256 (15.5
  // RowStaged units per SM) on 16-warp RowStaged blocks (12.3 / 34.5 us against RowTile's 13.4 /
  // 37.2), 1024^2 x 128 (7.8 units per SM) on RowTile.
  CHECK(kind(shape(256, 256, 1024, 0.6, 4)) == ek::KernelKind::RowStaged);
  CHECK(as<ek::RowStagedConfig>(ek::choose_config(shape(256, 256, 1024, 0.6, 4))).warps == 16);
  CHECK(kind(shape(1024, 1024, 256, 0.6, 4)) == ek::KernelKind::RowStaged);
  CHECK(as<ek::RowStagedConfig>(ek::choose_config(shape(1024, 1024, 256, 0.6, 4))).warps == 16);
  CHECK(as<ek::RowStagedConfig>(ek::choose_config(shape(512, 512, 1024, 0.6, 4))).warps == 32);
  CHECK(kind(shape(1024, 1024, 128, 0.6, 4)) == ek::KernelKind::RowTile);
  // fp16: 1024^3 36 us dense against RowMma's 57; at 90 % RowStaged (26 us against 33).
  CHECK(kind(shape(1024, 1024, 1024, 0.6, 2)) == ek::KernelKind::DenseMma);
  CHECK(kind(shape(1024, 1024, 1024, 0.9, 2)) == ek::KernelKind::RowStaged);
  CHECK(kind(shape(1024, 1024, 256, 0.6, 2)) == ek::KernelKind::RowMma);  // 25 us against 35
  // Decode never: n <= 16.
  CHECK(kind(shape(4096, 4096, 16, 0.7, 2)) == ek::KernelKind::SlotSplit);
  // Not without the shared memory, nor with a dense A over the workspace bound.
  s.smem_optin = 48 * 1024;
  CHECK(kind(s) != ek::KernelKind::DenseMma);
  s = shape(16384, 16384, 1024, 0.6, 4);  // 1 GiB of dense fp32
  CHECK_FALSE(ek::dense_mma_fits(s, 64));
  // Candidates list both tile heights where the rule picks DenseMma (the plan then keeps the
  // dense A), none elsewhere: not at 80 % (RowStaged), nor at 95 %.
  auto dense_candidates = [](const ek::EllInputs& x) {
    int dense = 0;
    for (const auto& c : ek::candidate_configs(x)) dense += ek::kind_of(c) == ek::KernelKind::DenseMma;
    return dense;
  };
  CHECK(dense_candidates(shape(1024, 1024, 1024, 0.6, 4)) == 2);
  CHECK(dense_candidates(shape(1024, 1024, 1024, 0.8, 4)) == 0);
  CHECK(dense_candidates(shape(1024, 1024, 1024, 0.95, 4)) == 0);
  // Shared memory and workspace arithmetic the kernels static_assert against.
  CHECK(ek::dense_mma_smem_bytes(128, 4) == 3 * (128 * 40 + 32 * 132) * 4);
  CHECK(ek::dense_mma_smem_bytes(64, 2) == 3 * (64 * 72 + 64 * 136) * 2);
  CHECK(ek::dense_mma_ld(1000, 4) == 1024);
  CHECK(ek::dense_mma_ld(1000, 2) == 1024);
  CHECK(ek::dense_mma_ld(1025, 2) == 1088);
}

TEST_CASE("predicted speedup: dense wins at large n and moderate sparsity, sparse at decode", "[ell]") {
  // Shapes of the H100 paper grid; the model (predict.hpp) was fitted there.
  auto speedup = [](int64_t m, int64_t k, int64_t n, double sparsity, int value_bytes) {
    const ek::EllInputs s = paper_shape(m, k, n, sparsity, value_bytes);
    ek::EllWork w;
    w.nnz = m * s.width;
    w.slots = m * ((s.width + 7) / 8 * 8);
    w.out_bytes = value_bytes;
    const ek::KernelConfig c = ek::choose_config(s);
    const double sparse = ek::predict_sparse_us(s, c, w), dense = ek::predict_dense_us(s, w.out_bytes);
    CHECK(sparse > 0);
    CHECK(dense > 0);
    return dense / sparse;
  };
  // fp16 1024^3 at 60 %: measured 57 us against HGEMM's 11 (0.19x).
  const double moderate = speedup(1024, 1024, 1024, 0.6, 2);
  CHECK(moderate < 0.4);
  CHECK(moderate > 0.1);
  // fp16 decode 4096 x 11008 x 8 at 90 %: measured 15.2 us against 37 (2.4x).
  const double decode = speedup(4096, 11008, 8, 0.9, 2);
  CHECK(decode > 1.5);
  CHECK(decode < 4.0);
  // fp32 decode 4096^2 x 8 at 90 %: measured 14.5 us against SGEMM's 48.5 (3.3x).
  CHECK(speedup(4096, 4096, 8, 0.9, 4) > 2.0);
  // fp32 1024^3 at 60 %: measured 90 us against SGEMM's 63 (0.7x).
  CHECK(speedup(1024, 1024, 1024, 0.6, 4) < 1.0);
  // fp32 1024 x 1024 x 16384 at 60 %, DenseMma: measured 760 us against SGEMM's 705 (0.93x).
  const double wide = speedup(1024, 1024, 16384, 0.6, 4);
  CHECK(wide > 0.7);
  CHECK(wide < 1.4);
}

TEST_CASE("decode model: fp16 80 % on H200 within 15 % of the measured kernel time", "[ell]") {
  // The decode kernel's model (predict.hpp, slot_staged_f16_us) against the H200 kernel times
  // it was fitted to: fp16, uniform 80 % (width k / 5), the rule's configuration, sm_90 code.
  // Two timings where two were taken (a PyTorch process's kernel time; spx-bench --order col).
  struct Point {
    int64_t m, k, n;
    bool row_major;  // B's order; column-major is what PyTorch passes (the threads copy B)
    double lo_us, hi_us;
  };
  const Point points[] = {
      {4096, 4096, 1, false, 5.3, 5.3},      {4096, 4096, 8, false, 8.8, 8.82},
      {4096, 4096, 16, false, 10.4, 11.8},   {11008, 4096, 1, false, 10.5, 10.5},
      {11008, 4096, 8, false, 17.86, 17.9},  {11008, 4096, 16, false, 28.4, 29.32},
      {4096, 11008, 1, false, 11.0, 11.0},   {4096, 11008, 16, false, 25.87, 26.2},
      {4096, 4096, 8, true, 7.56, 7.6},      {4096, 4096, 16, true, 9.39, 9.4},
      {11008, 4096, 8, true, 16.16, 16.2},   {11008, 4096, 16, true, 27.07, 27.1},
      {4096, 11008, 16, true, 26.0, 26.02},
  };
  auto model = [](const Point& p) {
    ek::EllInputs s = paper_shape(p.m, p.k, p.n, 0.8, 2);
    s.width = p.k / 5;  // as the timed matrices
    s.b_row_major = p.row_major;
    s.code_arch = 90;
    s.nnz = s.m * s.width;
    ek::EllWork w;
    w.nnz = s.nnz;
    w.slots = s.m * ((s.width + 7) / 8 * 8);
    w.out_bytes = 2;
    const ek::KernelConfig c = ek::choose_config(s);
    REQUIRE(staged(c));
    return ek::predict_sparse_us(s, c, w);
  };
  for (const Point& p : points) {
    const double us = model(p);
    INFO(p.m << " x " << p.k << " x " << p.n << (p.row_major ? " row" : " col") << ": model "
              << us << " us, measured " << p.lo_us << " - " << p.hi_us);
    CHECK(us > 0.85 * p.lo_us);
    CHECK(us < 1.15 * p.hi_us);
  }
  // What the route's decision hangs on: at n = 16, 11008 x 4096 (its 11008 rows of 8 lanes fill
  // the grid's second pass a third) is slower than 4096 x 11008 (two chunks, one pass), as
  // measured (28.4 against 26.2 us); the earlier model had them 20.9 / 29.8.
  CHECK(model({11008, 4096, 16, false, 0, 0}) > model({4096, 11008, 16, false, 0, 0}) + 2.0);
  // Time grows about linearly in n: t(16) / t(1) = 1 + 15 c, c ~0.05 (4096^2) to ~0.1.
  const double c_small = (model({4096, 4096, 16, false, 0, 0}) / model({4096, 4096, 1, false, 0, 0}) - 1) / 15;
  const double c_tall = (model({11008, 4096, 16, false, 0, 0}) / model({11008, 4096, 1, false, 0, 0}) - 1) / 15;
  CHECK(c_small > 0.04);
  CHECK(c_small < 0.11);
  CHECK(c_tall > 0.08);
  CHECK(c_tall < 0.14);
}

TEST_CASE("read_overrides: each SPX_ELL_* switch parsed once, bad values ignored", "[ell]") {
  spx::dispatch::Switches none;
  ek::EllOverrides o = ek::read_overrides(none);
  CHECK(o.force_candidate == -1);
  CHECK_FALSE(o.dense_candidates);
  spx::dispatch::Switches sw;
  sw.set("SPX_ELL_FORCE_CANDIDATE", "3");
  sw.set("SPX_ELL_DENSE_CANDIDATES", "1");
  o = ek::read_overrides(sw);
  CHECK(o.force_candidate == 3);
  CHECK(o.dense_candidates);
  sw.set("SPX_ELL_FORCE_CANDIDATE", "three");  // not an integer: as if unset
  sw.set("SPX_ELL_DENSE_CANDIDATES", "yes");   // not 0 / 1: as if unset
  o = ek::read_overrides(sw);
  CHECK(o.force_candidate == -1);
  CHECK_FALSE(o.dense_candidates);
  sw.set("SPX_ELL_DENSE_CANDIDATES", "0");
  CHECK_FALSE(ek::read_overrides(sw).dense_candidates);
  // Switches the family no longer honours change nothing.
  spx::dispatch::Switches old;
  old.set("SPX_ELL_STAGE_BULK", "0");
  old.set("SPX_ELL_PDL", "0");
  ek::EllInputs s = paper_shape(4096, 4096, 16, 0.8, 2);
  s.code_arch = 90;
  const ek::Decision d = ek::choose(s, ek::read_overrides(old));
  CHECK(as<ek::SlotStagedConfig>(d.chosen()).bulk_copy);
  CHECK(d.dependent_launch);
}

TEST_CASE("choose: the rule's choice first and selected, each override as documented", "[ell]") {
  const ek::EllInputs s = paper_shape(1024, 1024, 1024, 0.8, 4);  // RowStaged, no DenseMma
  const ek::Decision d = ek::choose(s, {});
  REQUIRE(d.candidates.count() > 1);
  CHECK(d.rule() == ek::choose_config(s));
  CHECK(d.candidates.items() == ek::candidate_configs(s));
  CHECK(d.candidates.selected() == 0);
  CHECK(d.chosen() == d.rule());
  CHECK_FALSE(d.keeps_dense_a());
  CHECK(d.dense_a_bytes() == 0);
  CHECK_FALSE(d.dependent_launch);  // code_arch 0: no griddepcontrol in the code
  // SPX_ELL_FORCE_CANDIDATE=i: the plan starts on candidate i; out of range: ignored.
  ek::EllOverrides force;
  force.force_candidate = d.candidates.count() - 1;
  const ek::Decision forced = ek::choose(s, force);
  CHECK(forced.candidates.selected() == d.candidates.count() - 1);
  CHECK(forced.chosen() == d.candidates.at(d.candidates.count() - 1));
  CHECK(forced.rule() == d.rule());
  force.force_candidate = d.candidates.count();
  CHECK(ek::choose(s, force).candidates.selected() == 0);
  // SPX_ELL_DENSE_CANDIDATES=1: both DenseMma tile heights join the candidates (A >= 10 %
  // dense), the rule's choice stays first, and the plan keeps the dense A.
  ek::EllOverrides dense;
  dense.dense_candidates = true;
  const ek::Decision with_dense = ek::choose(s, dense);
  int n_dense = 0;
  for (const auto& c : with_dense.candidates.items())
    n_dense += std::holds_alternative<ek::DenseMmaConfig>(c);
  CHECK(n_dense == 2);
  CHECK(with_dense.rule() == d.rule());
  CHECK(with_dense.keeps_dense_a());
  CHECK(with_dense.dense_a_bytes() == ek::dense_mma_a_bytes(1024, 1024, 4));
  // ... not where A is less than 10 % dense.
  CHECK_FALSE(ek::choose(paper_shape(1024, 1024, 1024, 0.95, 4), dense).keeps_dense_a());
  // sm_90 code: the decode kernel launches with programmatic dependent launch.
  ek::EllInputs decode = paper_shape(4096, 4096, 8, 0.9, 2);
  decode.code_arch = 90;
  CHECK(ek::choose(decode, {}).dependent_launch);
}

TEST_CASE("describe: plan info's text is the chosen configuration and the inputs", "[ell]") {
  ek::EllInputs s = paper_shape(4096, 4096, 16, 0.8, 2);
  s.a_type = SPX_R_16F;
  s.c_type = SPX_R_32F;
  s.c_order = SPX_ORDER_COL;
  s.overflow = 12;
  s.code_arch = 90;
  ek::Decision d = ek::choose(s, {});
  const auto& c = as<ek::SlotStagedConfig>(d.chosen());
  CHECK(d.describe() == "slot_split lanes=" + std::to_string(c.lanes) + " nt=16 B in smem by bulk copy" +
                            " (by threads when ld != n or B unaligned)" +
                            "; A 16F ELL w=819 idx16, overflow 12 entries; B row, C 32F col");
  CHECK(d.describe() == d.describe(d.candidates.selected()));
  CHECK(std::string(ek::Decision::kernel()) == "ell_uspmm");
  // Every candidate's text starts with its own configuration; selecting one changes describe().
  for (int i = 0; i < d.candidates.count(); ++i) {
    const std::string text = d.describe(i);
    CHECK(text.rfind(ek::describe(d.candidates.at(i)), 0) == 0);
    CHECK(text.find("; A 16F ELL w=819 idx16") != std::string::npos);
  }
  d.candidates.select(1);
  CHECK(d.describe() == d.describe(1));
  CHECK(d.describe() != d.describe(0));
  // Each kind's words, and the dense A's size where the plan keeps one.
  ek::EllInputs big = paper_shape(1024, 1024, 16384, 0.6, 4);
  big.b_row_major = false;
  big.index16 = false;
  const ek::Decision dm = ek::choose(big, {});
  REQUIRE(std::holds_alternative<ek::DenseMmaConfig>(dm.chosen()));
  CHECK(dm.describe() ==
        "dense_mma rows=128 A densified, mma.sync, B^T in workspace; A 32F ELL w=410 idx32, "
        "overflow 0 entries; B col, C 32F row; dense A for DenseMma kept in the plan (4.0 MiB)");
  ek::RowTileConfig tile;
  tile.vn = 4;
  tile.col_lanes = 16;
  tile.splits = 2;
  CHECK(ek::describe(tile) == "row_tile vn=4 lanes=16 splits=2");
  ek::RowStagedConfig rs;
  rs.warps = 32;
  rs.transpose_b = true;
  CHECK(ek::describe(rs) == "row_staged warps=32 B rows of 128 B in smem, B^T in workspace");
  ek::RowMmaConfig mma;
  mma.splits = 4;
  CHECK(ek::describe(mma) == "row_mma cols=64 splits=4 B in smem, mma.sync");
  ek::SlotSplitConfig global;
  global.lanes = 8;
  global.nt = 4;
  CHECK(ek::describe(global) == "slot_split lanes=8 nt=4");
  ek::SlotStagedConfig parts;
  parts.nt = 16;
  parts.col_parts = 2;
  CHECK(ek::describe(parts) == "slot_split lanes=32 nt=16 parts=2 B in smem");
}

TEST_CASE("decide_call: B's alignment and leading dimension, per call", "[ell]") {
  alignas(64) static unsigned char b[64];
  const void* b16 = b;       // 16-byte aligned
  const void* b2 = b + 2;    // 2-byte aligned only
  void* ws = b + 32;
  ek::EllInputs s = paper_shape(4096, 1000, 16, 0.8, 2);
  s.code_arch = 90;
  ek::SlotStagedConfig st;
  st.nt = 16;
  st.lanes = 16;
  st.bulk_copy = true;
  const ek::EllOccupancy occ{2, 3};
  // ld == n == NT and aligned: the TMA unit copies; per_sm of the bulk-copy kernel.
  auto l = ek::decide_call(st, s, {b16, 16, nullptr}, occ);
  CHECK(l.staged.bulk);
  CHECK(l.per_sm == 3);
  CHECK(l.staged.threads == 512);  // 32-byte rows
  CHECK(l.staged.b_vec);
  CHECK(l.staged.async);  // (threads' copy) whole rows, 31 KiB: cp.async
  {
    ek::EllInputs big = s;  // 128 KiB of whole rows: 16-byte loads and stores
    big.k = 4096;
    CHECK_FALSE(ek::decide_call(st, big, {b16, 16, nullptr}, occ).staged.async);
  }
  // A wider ld: the threads copy (16-byte pieces, no cp.async: the chunk is not contiguous).
  l = ek::decide_call(st, s, {b16, 24, nullptr}, occ);
  CHECK_FALSE(l.staged.bulk);
  CHECK(l.per_sm == 2);
  CHECK(l.staged.b_vec);
  CHECK_FALSE(l.staged.async);
  // Unaligned B: neither the bulk copy nor 16-byte pieces.
  l = ek::decide_call(st, s, {b2, 16, nullptr}, occ);
  CHECK_FALSE(l.staged.bulk);
  CHECK_FALSE(l.staged.b_vec);
  // The configuration without the bulk copy never takes it.
  st.bulk_copy = false;
  CHECK_FALSE(ek::decide_call(st, s, {b16, 16, nullptr}, occ).staged.bulk);
  // The global SlotSplit: vector loads of NT columns where B and its rows are aligned to them.
  ek::SlotSplitConfig g;
  g.nt = 16;
  CHECK(ek::decide_call(g, s, {b16, 16, nullptr}, occ).b_vec);
  CHECK_FALSE(ek::decide_call(g, s, {b16, 20, nullptr}, occ).b_vec);
  CHECK_FALSE(ek::decide_call(g, s, {b2, 16, nullptr}, occ).b_vec);
  // Row kernels: a column-major B is read as B^T from the workspace (rows of bt_ld(n)).
  ek::EllInputs wide = paper_shape(1024, 1024, 100, 0.8, 4);
  wide.b_row_major = false;
  ek::RowStagedConfig rs;
  rs.transpose_b = true;
  l = ek::decide_call(rs, wide, {b2, 1024, ws}, occ);
  CHECK(l.transpose);
  CHECK(l.b_rows == ws);
  CHECK(l.ldb == 104);
  CHECK(l.b_vec);
  CHECK(l.per_sm == 2);
  wide.k = 0;  // no rows of B: nothing to transpose or read
  l = ek::decide_call(rs, wide, {b2, 1024, ws}, occ);
  CHECK_FALSE(l.transpose);
  CHECK(l.b_rows == nullptr);
  // RowTile: loads of vn elements.
  ek::RowTileConfig tile;
  tile.vn = 2;  // 8 bytes of fp32
  wide.b_row_major = true;
  wide.k = 1024;
  CHECK(ek::decide_call(tile, wide, {b + 8, 2, nullptr}, occ).b_vec);
  CHECK_FALSE(ek::decide_call(tile, wide, {b + 4, 2, nullptr}, occ).b_vec);
}
