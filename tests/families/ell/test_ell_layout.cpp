// ELL family host planning: the HYB width rule, the plan layout (row-major ELL part + CSR tail,
// slot map, 16-bit indices), the near-uniform rule for CSR inputs, and the configuration rule.
#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>
#include <vector>

#include "families/ell/kernels/config.hpp"
#include "families/ell/plan/predict.hpp"
#include "families/ell/plan/layout.hpp"
#include "formats/to_csr.hpp"

using namespace spx::plan;
namespace ek = spx::kernels::ell;

namespace {

/// CSR structure with the given row lengths; row r's columns are (r + 3 j) % cols, slot = entry.
CsrStructure csr_with_lengths(const std::vector<int32_t>& lengths, int64_t cols) {
  CsrStructure c;
  c.rows = static_cast<int64_t>(lengths.size());
  c.cols = cols;
  c.row_ptr.push_back(0);
  for (size_t r = 0; r < lengths.size(); ++r) {
    for (int32_t j = 0; j < lengths[r]; ++j) c.col_ind.push_back(static_cast<int32_t>((r + 3 * j) % cols));
    c.row_ptr.push_back(static_cast<int32_t>(c.col_ind.size()));
  }
  c.slot.resize(c.col_ind.size());
  std::iota(c.slot.begin(), c.slot.end(), 0);
  return c;
}

/// An H100-like shape of the paper grid: uniform rows of k x (1 - sparsity) slots.
ek::EllShape paper_shape(int64_t m, int64_t k, int64_t n, double sparsity, int value_bytes) {
  ek::EllShape s;
  s.m = m;
  s.k = k;
  s.n = n;
  s.width = static_cast<int64_t>(static_cast<double>(k) * (1.0 - sparsity) + 0.5);
  s.value_bytes = value_bytes;
  s.smem_optin = 232448;
  return s;
}

}  // namespace

TEST_CASE("HYB width: uniform rows keep their width and no padding", "[ell]") {
  const std::vector<int32_t> len(100, 410);
  CHECK(choose_hyb_width(len) == 410);
  CHECK(ell_padding(len, 410) == 0);
  CHECK(choose_hyb_width(std::vector<int32_t>(7, 10)) == 10);
  CHECK(choose_hyb_width(std::vector<int32_t>(5, 0)) == 0);
  CHECK(choose_hyb_width({}) == 0);
}

TEST_CASE("HYB width: a few long rows overflow, padding stays <= 25 %", "[ell]") {
  std::vector<int32_t> len(64, 20);
  len[3] = 200;
  len[40] = 150;
  const int64_t nnz = std::accumulate(len.begin(), len.end(), int64_t{0});
  const int64_t w = choose_hyb_width(len);
  CHECK(w >= 20);
  CHECK(ell_padding(len, w) <= nnz / 4);
  CHECK(ell_padding(len, w + 1) > nnz / 4);  // the largest width within the bound
}

TEST_CASE("HYB width: padding bound holds on ragged rows", "[ell]") {
  std::vector<int32_t> len;
  for (int r = 0; r < 97; ++r) len.push_back((r * 37) % 23 + (r % 5 == 1 ? 0 : 5));
  const int64_t nnz = std::accumulate(len.begin(), len.end(), int64_t{0});
  const int64_t w = choose_hyb_width(len);
  CHECK(static_cast<double>(ell_padding(len, w)) <= 0.25 * static_cast<double>(nnz));
}

TEST_CASE("layout: ELL part row-major with an 8-aligned pitch, tail CSR, slot map", "[ell]") {
  // 4 rows of lengths 3, 3, 0, 9 over 16 columns; unsorted columns in row 0.
  CsrStructure c;
  c.rows = 4;
  c.cols = 16;
  c.row_ptr = {0, 3, 6, 6, 15};
  c.col_ind = {9, 2, 5, 1, 4, 7, 0, 1, 2, 3, 4, 5, 6, 7, 8};
  c.slot = {100, 101, 102, 103, 104, 105, 106, 107, 108, 109, 110, 111, 112, 113, 114};
  const EllLayout l = plan_ell_layout(c);
  // padding(3) = 3 (empty row) <= 0.25 * 15; padding(4) = 1 + 1 + 4 = 6 > 3.75.
  REQUIRE(l.width == 3);
  REQUIRE(l.stride == 8);
  CHECK(l.nnz == 15);
  CHECK(l.overflow == 6);
  CHECK(ell_padding(l.row_len, l.width) == 3);
  CHECK(l.padding() == 4 * 8 - 9);  // the pitch's alignment slots count as padding
  CHECK(l.slots() == 4 * 8 + 6);
  CHECK(l.col.size() == static_cast<size_t>(l.slots() + kEllArrayPad));
  CHECK(l.index16);
  CHECK(l.row_len == std::vector<int32_t>{3, 3, 0, 3});
  // Row 0 holds columns 2 (slot 101), 5 (102), 9 (100), in bank order: every slot keeps its value.
  std::vector<int32_t> row0(l.col.begin(), l.col.begin() + 3);
  std::sort(row0.begin(), row0.end());
  CHECK(row0 == std::vector<int32_t>{2, 5, 9});
  for (int j = 0; j < 3; ++j) CHECK(c.col_ind[l.src_slot[j] - 100] == l.col[j]);
  // Alignment slots and the empty row are padding.
  for (int j = 3; j < 8; ++j) CHECK(l.src_slot[j] == -1);
  for (int j = 0; j < 8; ++j) CHECK(l.src_slot[2 * 8 + j] == -1);
  // Row 3: its 3 lowest columns 0..2 in the ELL part, 3..8 in the tail (by column).
  std::vector<int32_t> row3(l.col.begin() + 24, l.col.begin() + 27);
  std::sort(row3.begin(), row3.end());
  CHECK(row3 == std::vector<int32_t>{0, 1, 2});
  REQUIRE(l.tail_ptr == std::vector<int32_t>{0, 0, 0, 0, 6});
  for (int t = 0; t < 6; ++t) {
    CHECK(l.col[32 + t] == 3 + t);
    CHECK(l.src_slot[32 + t] == 109 + t);
  }
  for (int p = 0; p < kEllArrayPad; ++p) CHECK(l.src_slot[l.slots() + p] == -1);
  CHECK(l.col16()[32] == 3);
}

TEST_CASE("layout: bank order gives 8 lanes' gathers distinct columns mod 8", "[ell]") {
  // A random 410-of-1024 row (the paper's 60 % at k = 1024) and a 205-of-4096 one.
  uint64_t x = 12345;
  auto next = [&] {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<int64_t>(x >> 33);
  };
  for (int64_t k : {1024, 4096}) {
    for (int64_t len : {410, 205, 61}) {
      std::vector<int32_t> all(static_cast<size_t>(k));
      std::iota(all.begin(), all.end(), 0);
      for (int64_t i = 0; i < len; ++i) std::swap(all[i], all[i + next() % (k - i)]);
      std::vector<int32_t> cols(all.begin(), all.begin() + len);
      std::sort(cols.begin(), cols.end());
      const std::vector<int32_t> order = bank_order_row(cols);
      std::vector<int32_t> placed(cols.size());
      std::vector<int> used(cols.size(), 0);
      for (size_t p = 0; p < order.size(); ++p) {
        REQUIRE(order[p] >= 0);
        ++used[order[p]];
        placed[p] = cols[order[p]];
      }
      for (int u : used) CHECK(u == 1);  // a permutation
      // Bound: one wavefront per position set, and at least as many as the largest residue
      // class has entries (a set holds one of them per wavefront). Sorted (random) columns cost
      // far more than the bank order.
      int64_t sets = 0, largest = 0;
      for (int64_t b = 0; b * 64 < len; ++b)
        for (int64_t e = 0; e < 8; ++e) sets += b * 64 + e < len ? 1 : 0;
      for (int r = 0; r < 8; ++r)
        largest = std::max<int64_t>(largest, std::count_if(cols.begin(), cols.end(),
                                                           [&](int32_t c) { return c % 8 == r; }));
      const int64_t bound = std::max(sets, largest);
      const int64_t balanced = bank_wavefronts(placed), sorted = bank_wavefronts(cols);
      INFO("k " << k << " len " << len << ": sets " << sets << ", largest class " << largest
                << ", balanced " << balanced << ", sorted " << sorted);
      CHECK(balanced <= bound + bound / 4);
      CHECK(balanced < sorted);
      // Contiguous 32-byte rows (odd lanes read the second half first): never worse than the
      // planes, where the sets are rainbows exactly one wavefront each.
      const int64_t contig = bank_wavefronts_contig32(placed);
      INFO("contiguous 32-byte rows " << contig);
      CHECK(contig <= balanced);
      CHECK(contig < bank_wavefronts_contig32(cols));
    }
  }
}

TEST_CASE("layout: bank order pairs residues r and r + 4 on lanes of different parity", "[ell]") {
  // 64 entries, columns 0..63: eight of every residue mod 8, so every position set
  // {8 i + e : i = 0..7} is a rainbow, and inside it the residues run 0 4 1 5 2 6 3 7: lane i
  // reads 16-byte half (i mod 2) of its 32-byte row first, in bank group 2 (c mod 4) + (i mod 2),
  // i.e. 0 1 2 3 4 5 6 7.
  std::vector<int32_t> cols(64);
  std::iota(cols.begin(), cols.end(), 0);
  const std::vector<int32_t> order = bank_order_row(cols);
  std::vector<int32_t> placed(cols.size());
  for (size_t p = 0; p < order.size(); ++p) placed[p] = cols[order[p]];
  const int expect[8] = {0, 4, 1, 5, 2, 6, 3, 7};
  for (int e = 0; e < 8; ++e)
    for (int i = 0; i < 8; ++i) {
      INFO("set " << e << ", lane " << i);
      CHECK(placed[8 * i + e] % 8 == expect[i]);
    }
  CHECK(bank_wavefronts(placed) == 8);
  CHECK(bank_wavefronts_contig32(placed) == 8);
  // In column order every set is one residue: 8 lanes on one bank group with the planes, 4 on
  // each of two with contiguous rows (the lanes' parities pick the halves).
  CHECK(bank_wavefronts(cols) == 64);
  CHECK(bank_wavefronts_contig32(cols) == 32);
}

TEST_CASE("layout: no tail for uniform rows, 32-bit indices past 65536 columns", "[ell]") {
  const EllLayout a = plan_ell_layout(csr_with_lengths(std::vector<int32_t>(9, 5), 65536));
  CHECK(a.index16);
  CHECK(a.width == 5);
  CHECK(a.overflow == 0);
  CHECK(a.tail_ptr.empty());
  CHECK(ell_padding(a.row_len, a.width) == 0);
  const EllLayout b = plan_ell_layout(csr_with_lengths(std::vector<int32_t>(9, 5), 65537));
  CHECK_FALSE(b.index16);
}

TEST_CASE("layout: every entry appears exactly once", "[ell]") {
  std::vector<int32_t> len;
  for (int r = 0; r < 50; ++r) len.push_back(r % 7 == 0 ? 40 : 8 + r % 3);
  const CsrStructure c = csr_with_lengths(len, 64);
  const EllLayout l = plan_ell_layout(c);
  std::vector<int> seen(c.col_ind.size(), 0);
  for (int64_t s = 0; s < l.slots(); ++s)
    if (l.src_slot[s] >= 0) {
      ++seen[l.src_slot[s]];
      CHECK(l.col[s] == c.col_ind[l.src_slot[s]]);
    }
  for (int v : seen) CHECK(v == 1);
  CHECK(static_cast<double>(ell_padding(l.row_len, l.width)) <= 0.25 * static_cast<double>(l.nnz));
  CHECK(l.stride % kEllRowAlign == 0);
  CHECK(l.stride - l.width < kEllRowAlign);
}

TEST_CASE("near-uniform rule for CSR inputs", "[ell]") {
  CHECK(ell_near_uniform(csr_with_lengths(std::vector<int32_t>(32, 12), 64)).empty());
  std::vector<int32_t> few_long(64, 20);
  few_long[5] = 60;
  CHECK(ell_near_uniform(csr_with_lengths(few_long, 64)).empty());
  std::vector<int32_t> skewed(64, 2);
  for (int r = 0; r < 64; r += 4) skewed[r] = 60;
  CHECK_FALSE(ell_near_uniform(csr_with_lengths(skewed, 64)).empty());
  CHECK_FALSE(ell_near_uniform(csr_with_lengths(std::vector<int32_t>(8, 0), 64)).empty());
}

TEST_CASE("configuration rule: B is staged in shared memory when its chunk fits", "[ell]") {
  ek::EllShape s;
  s.m = 4096;
  s.k = 4096;
  s.n = 8;
  s.width = 410;
  s.value_bytes = 2;
  s.smem_optin = 0;  // unknown device: never staged
  CHECK_FALSE(ek::choose_config(s).stage_b);
  s.smem_optin = 232448;  // sm_90 opt-in
  ek::EllConfig c = ek::choose_config(s);
  CHECK(c.stage_b);  // 4096 x 8 fp16 = 64 KiB
  // The zero row and the bulk copy's mbarrier (16 bytes).
  CHECK(ek::slot_stage_bytes(s.k, c.nt, 2) == (4096 + 1) * 8 * 2 + 16);
  {
    // They count: k x 8 fp16 columns filling the opt-in exactly no longer fit, NT 4 does; one
    // row of 16 B less does not fit either (zero row + mbarrier), two rows less do.
    ek::EllShape edge = s;
    edge.k = 232448 / 16;
    CHECK_FALSE(ek::slot_stage_fits(edge, 8));
    CHECK(ek::slot_staged_fit_nt_for(edge) == 4);
    edge.k -= 1;
    CHECK_FALSE(ek::slot_stage_fits(edge, 8));
    edge.k -= 1;
    CHECK(ek::slot_staged_fit_nt_for(edge) == 8);
  }
  CHECK(c.nt == 8);
  s.k = 11008;
  s.n = 16;  // 11008 x 16 fp16 = 344 KiB does not fit: two chunks of 8 columns (172 KiB)
  c = ek::choose_config(s);
  CHECK(c.stage_b);
  CHECK(c.nt == 8);
  s.n = 8;
  CHECK(ek::choose_config(s).nt == 8);
  s.value_bytes = 4;  // fp32: 344 KiB, so chunks of 4 columns
  c = ek::choose_config(s);
  CHECK(c.stage_b);
  CHECK(c.nt == 4);
  s.k = 1 << 20;  // not even one column fits
  CHECK_FALSE(ek::choose_config(s).stage_b);
  s.k = 11008;
  // Both variants are offered to spxSpMM_search when the chunk fits; the staged ones first.
  s.value_bytes = 2;
  const auto cands = ek::candidate_configs(s);
  int staged = 0, global = 0;
  for (const auto& k : cands)
    if (k.kind == ek::KernelKind::SlotSplit) (k.stage_b ? staged : global)++;
  CHECK(staged == 4);  // lanes 8 / 16 / 32 at NT 8, and NT 4 (two chunks)
  CHECK(global == 4);
  CHECK(cands[0].stage_b);
  CHECK(cands[0].describe().find("B in smem") != std::string::npos);
}

TEST_CASE("configuration rule: decode chunks of 16-byte rows, lanes for one pass, staging candidates",
          "[ell]") {
  ek::EllShape s = paper_shape(4096, 4096, 16, 0.8, 2);
  // fp16 n = 16 at 80 %: NT 16 fits (128 KiB), and its rows have enough slots per staged byte
  // (m x width = 6.2 x k x SMs) to keep it in one chunk of 32-byte rows.
  CHECK(ek::slot_staged_fit_nt_for(s) == 16);
  CHECK(ek::slot_wide_rows_pay(s, 16));
  CHECK(ek::slot_staged_nt_for(s) == 16);
  CHECK(ek::choose_config(s).nt == 16);
  CHECK(ek::choose_config(s).lanes == 16);  // 512 threads: 32 rows per block, one pass
  {
    // At 95 % (1.6 x k x SMs) the rows are too short: NT 8 has 16-byte rows and two chunks.
    const ek::EllShape sparse = paper_shape(4096, 4096, 16, 0.95, 2);
    CHECK_FALSE(ek::slot_wide_rows_pay(sparse, 16));
    CHECK(ek::slot_staged_nt_for(sparse) == 8);
    // fp32 keeps the 16-byte rows (NT 4 at n = 8) whatever the density: not measured otherwise.
    const ek::EllShape f32 = paper_shape(4096, 4096, 8, 0.8, 4);
    CHECK(ek::slot_staged_fit_nt_for(f32) == 8);
    CHECK(ek::slot_staged_nt_for(f32) == 4);
  }
  auto cands = ek::candidate_configs(s);
  bool nt16 = false, parts = false, nt8 = false;
  for (const auto& c : cands) {
    if (c.kind != ek::KernelKind::SlotSplit || !c.stage_b) continue;
    nt16 |= c.nt == 16 && c.col_parts == 1 && c.lanes == 16;
    parts |= c.nt == 16 && c.col_parts == 2 && c.lanes == 32;
    nt8 |= c.nt == 8 && c.col_parts == 1 && c.lanes == 16;  // the two chunks of 16-byte rows
  }
  CHECK(nt16);
  CHECK(parts);
  CHECK(nt8);
  // fp32 n = 16: NT 8 (fits; NT 4 would take four chunks), 512 threads: one pass only at 8 lanes.
  s.value_bytes = 4;
  ek::EllConfig c = ek::choose_config(s);
  CHECK(c.nt == 8);
  CHECK(c.lanes == 8);
  // fp32 n = 8: NT 4 (two chunks of 16-byte rows), 1024 threads, one pass at 16 lanes.
  s.n = 8;
  c = ek::choose_config(s);
  CHECK(c.nt == 4);
  CHECK(c.lanes == 16);
  // fp32 4096 x 11008 x 16: only NT 4 fits (172 KiB), four chunks: one pass at 8 lanes.
  s.k = 11008;
  s.n = 16;
  c = ek::choose_config(s);
  CHECK(c.nt == 4);
  CHECK(c.lanes == 8);
  CHECK(ek::slot_parts_fit(16, 2));
  CHECK(ek::slot_parts_fit(8, 4));
  CHECK_FALSE(ek::slot_parts_fit(8, 2));
}

TEST_CASE("configuration rule: the TMA unit copies one chunk of B's whole rows on sm_90", "[ell]") {
  ek::EllShape s;
  s.m = 4096;
  s.k = 4096;
  s.n = 16;
  s.width = 820;  // 80 %
  s.value_bytes = 2;
  s.smem_optin = 232448;
  ek::EllConfig c = ek::choose_config(s);
  REQUIRE(c.stage_b);
  CHECK(c.nt == 16);  // one chunk of 32-byte rows (slot_wide_rows_pay)
  CHECK_FALSE(c.bulk_copy);  // before sm_90
  s.bulk_copy = true;
  c = ek::choose_config(s);
  CHECK(c.bulk_copy);
  CHECK(c.describe().find("bulk copy") != std::string::npos);
  // Where the TMA unit copies, one chunk of 32-byte rows also at 95 % (without it two chunks of
  // 16-byte rows: slot_wide_rows_pay fails there), and fp32 x 8 in one chunk of 8 columns.
  auto check_chunks = [](ek::EllShape shape, int bulk_nt, int threads_nt) {
    CHECK(ek::choose_config(shape).nt == bulk_nt);
    CHECK(ek::choose_config(shape).bulk_copy);
    shape.bulk_copy = false;
    CHECK(ek::choose_config(shape).nt == threads_nt);
  };
  ek::EllShape sparse = s;
  sparse.width = 205;
  check_chunks(sparse, 16, 8);
  ek::EllShape f32 = s;
  f32.n = 8;
  f32.value_bytes = 4;
  check_chunks(f32, 8, 4);
  // The threads' copy of the same chunk stays a candidate.
  ek::EllConfig threads = c;
  threads.bulk_copy = false;
  const std::vector<ek::EllConfig> cands = ek::candidate_configs(s);
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
  ek::EllShape s;
  s.m = 4096;
  s.k = 4096;
  s.width = 410;
  s.value_bytes = 2;
  for (int64_t n : {1, 7, 8, 16}) {
    s.n = n;
    const ek::EllConfig c = ek::choose_config(s);
    CHECK(c.kind == ek::KernelKind::SlotSplit);
    CHECK(c.nt >= n);
    CHECK(c.lanes == 32);
  }
  s.n = 1024;
  ek::EllConfig c = ek::choose_config(s);
  CHECK(c.kind == ek::KernelKind::RowTile);  // unknown shared memory: nothing staged
  CHECK(c.vn == 8);
  CHECK_FALSE(c.transpose_b);
  s.smem_optin = 232448;  // 4096 rows x 128 B = 512 KiB do not fit either
  CHECK(ek::row_config(s).kind == ek::KernelKind::RowTile);
  CHECK(ek::choose_config(s).kind == ek::KernelKind::DenseMma);  // modelled 235 us against 350
  s.k = 1024;  // 129 rows of 128 B fit: fp16 on tensor cores (the gather kernels' rule)
  c = ek::row_config(s);
  CHECK(c.kind == ek::KernelKind::RowMma);
  CHECK(c.splits == 1);  // 512 row groups x 16 chunks fill 16 warps x 132 SMs
  CHECK(c.describe().find("row_mma") != std::string::npos);
  s.value_bytes = 4;  // fp32: RowStaged, one block of 32 warps per SM (128 KiB of B)
  c = ek::row_config(s);
  CHECK(c.kind == ek::KernelKind::RowStaged);
  CHECK(c.warps == 32);
  CHECK(c.describe().find("row_staged") != std::string::npos);
  s.k = 512;
  CHECK(ek::row_config(s).warps == 32);  // measured: 32 warps beat 16 at k = 512 too
  s.k = 1024;
  s.m = 128;  // few rows x chunks: RowTile splits the rows over warps instead
  s.n = 128;
  CHECK(ek::choose_config(s).kind == ek::KernelKind::RowTile);
  s.value_bytes = 2;  // fp16 too: 32 row groups x 2 chunks, under 2 per SM
  CHECK(ek::choose_config(s).kind == ek::KernelKind::RowTile);
  s.m = 512;  // 64 row groups x 16 chunks: RowMma, two splits
  s.n = 1024;
  c = ek::row_config(s);
  CHECK(c.kind == ek::KernelKind::RowMma);
  CHECK(c.splits == 2);
  CHECK(c.mma_cols == 64);
  s.m = 4096;  // decode, fp16: staged SlotSplit; RowMma on 16 columns among the candidates
  s.k = 4096;
  s.n = 16;  // 90 %: NT 16 (one chunk of 32-byte rows, 512 threads): 4096 rows at 16 lanes
  c = ek::choose_config(s);
  CHECK(c.kind == ek::KernelKind::SlotSplit);
  CHECK(c.stage_b);
  CHECK(c.nt == 16);
  CHECK(c.lanes == 16);
  s.width = 205;  // 95 %: NT 8 (16-byte rows, 1024 threads, two chunks): 8192 rows x chunks
  c = ek::choose_config(s);
  CHECK(c.nt == 8);
  CHECK(c.lanes == 16);
  s.width = 410;
  bool mma16 = false;
  for (const auto& k : ek::candidate_configs(s))
    mma16 |= k.kind == ek::KernelKind::RowMma && k.mma_cols == 16 && k.splits == 8;
  CHECK(mma16);
  s.n = 8;  // 1024 threads: one pass at 32 lanes
  CHECK(ek::choose_config(s).lanes == 32);
  s.k = 1024;
  s.n = 1024;
  s.width = 102;  // 90 %: RowStaged beats RowMma (rows padded to 64-slot blocks)
  CHECK(ek::row_config(s).kind == ek::KernelKind::RowStaged);
  s.width = 410;
  s.n = 1024;
  s.b_row_major = false;
  CHECK(ek::choose_config(s).transpose_b);
  s.smem_optin = 0;
  s.k = 4096;
  s.n = 33;
  s.value_bytes = 4;
  CHECK(ek::choose_config(s).vn == 2);
  // Candidates: the rule's choice first, all distinct, both kernels offered.
  for (int64_t n : {1, 16, 130, 1024}) {
    s.n = n;
    const auto cands = ek::candidate_configs(s);
    REQUIRE(!cands.empty());
    CHECK(cands[0] == ek::choose_config(s));
    bool slot = false, tile = false;
    for (size_t i = 0; i < cands.size(); ++i) {
      slot |= cands[i].kind == ek::KernelKind::SlotSplit;
      tile |= cands[i].kind == ek::KernelKind::RowTile;
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
  auto kind = [](const ek::EllShape& s) { return ek::choose_config(s).kind; };
  // fp32: 1024 x 1024 x 16384 760 us dense (128-row tiles) against RowStaged's 1315.
  ek::EllShape s = shape(1024, 1024, 16384, 0.6, 4);
  CHECK(kind(s) == ek::KernelKind::DenseMma);
  CHECK(ek::choose_config(s).tile_rows == 128);
  CHECK(ek::choose_config(s).describe().find("dense_mma rows=128") != std::string::npos);
  // 1024^3 at 30 %: 97 us against 148; at 80 % RowStaged (52 us against 92).
  CHECK(kind(shape(1024, 1024, 1024, 0.3, 4)) == ek::KernelKind::DenseMma);
  CHECK(ek::choose_config(shape(1024, 1024, 1024, 0.3, 4)).tile_rows == 64);
  CHECK(kind(shape(1024, 1024, 1024, 0.8, 4)) == ek::KernelKind::RowStaged);
  // Small shapes and small n keep the gather kernels: 256^2 x 1024 and 1024^2 x 256 (15.5
  // RowStaged units per SM) on 16-warp RowStaged blocks (12.3 / 34.5 us against RowTile's 13.4 /
  // 37.2), 1024^2 x 128 (7.8 units per SM) on RowTile.
  CHECK(kind(shape(256, 256, 1024, 0.6, 4)) == ek::KernelKind::RowStaged);
  CHECK(ek::choose_config(shape(256, 256, 1024, 0.6, 4)).warps == 16);
  CHECK(kind(shape(1024, 1024, 256, 0.6, 4)) == ek::KernelKind::RowStaged);
  CHECK(ek::choose_config(shape(1024, 1024, 256, 0.6, 4)).warps == 16);
  CHECK(ek::choose_config(shape(512, 512, 1024, 0.6, 4)).warps == 32);
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
  auto dense_candidates = [](const ek::EllShape& x) {
    int dense = 0;
    for (const auto& c : ek::candidate_configs(x)) dense += c.kind == ek::KernelKind::DenseMma;
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
    const ek::EllShape s = paper_shape(m, k, n, sparsity, value_bytes);
    ek::EllWork w;
    w.nnz = m * s.width;
    w.slots = m * ((s.width + 7) / 8 * 8);
    w.out_bytes = value_bytes;
    const ek::EllConfig c = ek::choose_config(s);
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
