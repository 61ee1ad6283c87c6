// ELL family host planning: the HYB width rule, the plan layout (row-major ELL part + CSR tail,
// slot map, 16-bit indices) and the near-uniform rule for CSR inputs (the configuration rule:
// test_ell_choice.cpp).
#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>
#include <vector>

#include "families/ell/plan/layout.hpp"
#include "formats/to_csr.hpp"

using namespace spx::plan;

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
