// The ELL layout as analyze builds it (parallel rows, the ranked bank-order greedy, the ELL input
// laid out without a CSR copy) against the straightforward serial version it replaced, kept here
// as the reference: the plan arrays must be byte-identical, so the kernels read what they always
// read. Random structures and edge cases (empty rows, short tails, unsorted and repeated columns,
// skewed rows, padding inside ELL rows).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "families/ell/plan/layout.hpp"
#include "formats/to_csr.hpp"
#include "runtime/error.hpp"

using namespace spx::plan;

namespace {

// ---- the reference: the serial layout of libspx before the fast analyze (unchanged logic) ----

template <class Fn>
void ref_position_sets(int64_t len, Fn&& fn) {
  constexpr int64_t kBlock = 8 * kEllBankGroups;
  std::vector<int64_t> set;
  for (int64_t b = 0; b * kBlock < len; ++b)
    for (int64_t e = 0; e < kEllRowAlign; ++e) {
      set.clear();
      for (int64_t i = 0; i < kEllBankGroups; ++i) {
        const int64_t p = b * kBlock + i * kEllRowAlign + e;
        if (p < len) set.push_back(p);
      }
      if (!set.empty()) fn(set);
    }
}

std::vector<int32_t> ref_bank_order(const std::vector<int32_t>& cols) {
  const int64_t len = static_cast<int64_t>(cols.size());
  std::vector<int32_t> cls[kEllBankGroups];
  for (int64_t j = 0; j < len; ++j) cls[cols[j] % kEllBankGroups].push_back(static_cast<int32_t>(j));
  size_t next[kEllBankGroups] = {};
  auto left = [&](int r) { return static_cast<int64_t>(cls[r].size() - next[r]); };
  int64_t sets = 0, smallest = len, largest = 0;
  ref_position_sets(len, [&](const std::vector<int64_t>&) { ++sets; });
  for (int r = 0; r < kEllBankGroups; ++r) {
    smallest = std::min<int64_t>(smallest, left(r));
    largest = std::max<int64_t>(largest, left(r));
  }
  const int64_t rainbows = std::max<int64_t>(0, std::min(smallest, 2 * sets - largest));
  std::vector<int32_t> out(static_cast<size_t>(len), -1);
  int64_t done = 0;
  ref_position_sets(len, [&](const std::vector<int64_t>& set) {
    int taken[kEllBankGroups] = {};
    size_t filled = 0;
    for (int cap = done < rainbows ? 1 : 2; filled < set.size(); ++cap) {
      bool progress = true;
      while (filled < set.size() && progress) {
        progress = false;
        int best = -1;
        for (int r = 0; r < kEllBankGroups; ++r)
          if (taken[r] < cap && left(r) > 0 && (best < 0 || left(r) > left(best))) best = r;
        if (best >= 0) {
          out[set[filled++]] = cls[best][next[best]++];
          ++taken[best];
          progress = true;
        }
      }
    }
    int32_t entry[kEllBankGroups];
    for (size_t i = 0; i < set.size(); ++i) entry[i] = out[set[i]];
    std::stable_sort(entry, entry + set.size(), [&](int32_t x, int32_t y) {
      const int32_t cx = cols[x] % kEllBankGroups, cy = cols[y] % kEllBankGroups;
      return cx % 4 != cy % 4 ? cx % 4 < cy % 4 : cx < cy;
    });
    for (size_t i = 0; i < set.size(); ++i) out[set[i]] = entry[i];
    ++done;
  });
  return out;
}

EllLayout ref_layout(const CsrStructure& csr) {
  EllLayout out;
  out.rows = csr.rows;
  out.cols = csr.cols;
  out.index16 = csr.cols <= 65536;
  std::vector<int32_t> len(static_cast<size_t>(csr.rows));
  for (int64_t r = 0; r < csr.rows; ++r) len[r] = csr.row_ptr[r + 1] - csr.row_ptr[r];
  out.width = choose_hyb_width(len);
  out.stride = (out.width + kEllRowAlign - 1) / kEllRowAlign * kEllRowAlign;
  out.nnz = static_cast<int64_t>(csr.col_ind.size());
  out.row_len.resize(len.size());
  for (size_t r = 0; r < len.size(); ++r) {
    out.row_len[r] = static_cast<int32_t>(std::min<int64_t>(len[r], out.width));
    out.overflow += len[r] - out.row_len[r];
  }
  out.col.assign(static_cast<size_t>(out.slots() + kEllArrayPad), 0);
  out.src_slot.assign(out.col.size(), -1);
  if (out.overflow > 0) out.tail_ptr.assign(static_cast<size_t>(out.rows) + 1, 0);
  std::vector<int32_t> order, ell_cols;
  int64_t tail = 0;
  for (int64_t r = 0; r < csr.rows; ++r) {
    const int32_t begin = csr.row_ptr[r];
    order.resize(static_cast<size_t>(len[r]));
    std::iota(order.begin(), order.end(), begin);
    std::stable_sort(order.begin(), order.end(),
                     [&](int32_t x, int32_t y) { return csr.col_ind[x] < csr.col_ind[y]; });
    const int32_t kept = out.row_len[r];
    ell_cols.resize(static_cast<size_t>(kept));
    for (int32_t j = 0; j < kept; ++j) ell_cols[j] = csr.col_ind[order[j]];
    const std::vector<int32_t> bank = ref_bank_order(ell_cols);
    for (int32_t j = 0; j < len[r]; ++j) {
      const int32_t e = j < kept ? order[bank[j]] : order[j];
      const int64_t at = j < kept ? r * out.stride + j : out.ell_slots() + tail++;
      out.col[at] = csr.col_ind[e];
      out.src_slot[at] = static_cast<int32_t>(csr.slot[e]);
    }
    if (!out.tail_ptr.empty()) out.tail_ptr[r + 1] = static_cast<int32_t>(tail);
  }
  return out;
}

// ---- inputs ----

void require_same(const EllLayout& a, const EllLayout& b) {
  REQUIRE(a.rows == b.rows);
  REQUIRE(a.cols == b.cols);
  REQUIRE(a.width == b.width);
  REQUIRE(a.stride == b.stride);
  REQUIRE(a.nnz == b.nnz);
  REQUIRE(a.overflow == b.overflow);
  REQUIRE(a.index16 == b.index16);
  REQUIRE(a.row_len == b.row_len);
  REQUIRE(a.tail_ptr == b.tail_ptr);
  REQUIRE(a.col == b.col);
  REQUIRE(a.src_slot == b.src_slot);
}

/// Random CSR: row lengths drawn around `mean` (a few long or empty rows), columns in [0, cols)
/// drawn with repeats, unsorted unless `sorted`.
CsrStructure random_csr(std::mt19937& rng, int64_t rows, int64_t cols, int mean, bool sorted) {
  CsrStructure c;
  c.rows = rows;
  c.cols = cols;
  c.row_ptr.push_back(0);
  std::uniform_int_distribution<int> kind(0, 9), col(0, static_cast<int>(cols) - 1);
  for (int64_t r = 0; r < rows; ++r) {
    const int k = kind(rng);
    const int len = k == 0 ? 0 : k == 1 ? 4 * mean + 3 : std::uniform_int_distribution<int>(
                                                             std::max(0, mean - 5), mean + 5)(rng);
    std::vector<int32_t> row(static_cast<size_t>(len));
    for (int32_t& x : row) x = col(rng);
    if (sorted) std::sort(row.begin(), row.end());
    c.col_ind.insert(c.col_ind.end(), row.begin(), row.end());
    c.row_ptr.push_back(static_cast<int32_t>(c.col_ind.size()));
  }
  c.slot.resize(c.col_ind.size());
  std::iota(c.slot.begin(), c.slot.end(), 0);
  std::shuffle(c.slot.begin(), c.slot.end(), rng);  // any slot map must pass through
  return c;
}

}  // namespace

TEST_CASE("bank order: the ranked greedy equals the reference", "[ell][layout]") {
  std::mt19937 rng(7);
  std::vector<int> lens(301);
  std::iota(lens.begin(), lens.end(), 0);
  lens.insert(lens.end(), {1000, 2047, 2048, 2053, 4095});  // long rows: many full rainbows
  for (int len : lens)
    for (int range : {1, 3, 8, 13, 64, 4096}) {
      std::vector<int32_t> cols(static_cast<size_t>(len));
      std::uniform_int_distribution<int> col(0, range - 1);
      for (int32_t& c : cols) c = col(rng);
      if (len % 3 == 0) std::sort(cols.begin(), cols.end());
      INFO("len " << len << ", range " << range);
      REQUIRE(bank_order_row(cols) == ref_bank_order(cols));
    }
}

TEST_CASE("layout from CSR equals the serial reference", "[ell][layout]") {
  std::mt19937 rng(11);
  for (int64_t rows : {0, 1, 7, 63, 64, 65, 1000, 4099})
    for (int mean : {0, 1, 9, 40, 130})
      for (bool sorted : {false, true}) {
        const int64_t cols = mean > 100 ? 70000 : 517;  // 32-bit and 16-bit indices
        const CsrStructure c = random_csr(rng, rows, cols, mean, sorted);
        INFO(rows << " rows, mean " << mean << (sorted ? ", sorted" : ", unsorted"));
        require_same(plan_ell_layout(c), ref_layout(c));
      }
}

TEST_CASE("layout from ELL input equals the reference over its CSR copy", "[ell][layout]") {
  std::mt19937 rng(5);
  for (int64_t rows : {1, 15, 16, 17, 300, 2053})
    for (int64_t width : {0, 1, 5, 64, 77}) {
      const int64_t cols = 1000;
      std::vector<int32_t> col_ind(static_cast<size_t>(rows * width));
      std::uniform_int_distribution<int> col(0, static_cast<int>(cols) - 1), pad(0, 5);
      for (int64_t r = 0; r < rows; ++r) {
        // Sorted real slots with padding, then some rows shuffled (the format asks for
        // increasing columns; the layout sorts whatever it gets) and some rows empty.
        std::vector<int32_t> row(static_cast<size_t>(width));
        for (int32_t& x : row) x = pad(rng) == 0 ? -1 : col(rng);
        if (r % 7 == 3) std::fill(row.begin(), row.end(), -1);
        if (r % 2 == 0) std::sort(row.begin(), row.end());
        for (int64_t j = 0; j < width; ++j) col_ind[static_cast<size_t>(r + j * rows)] = row[j];
      }
      INFO(rows << " x " << width);
      require_same(plan_ell_layout_ell(rows, cols, width, col_ind.data()),
                   ref_layout(csr_from_ell(rows, cols, width, col_ind.data())));
    }
  SECTION("no rows") { require_same(plan_ell_layout_ell(0, 9, 4, nullptr), ref_layout(csr_from_ell(0, 9, 4, nullptr))); }
}

TEST_CASE("layout from ELL input: bad indices give csr_from_ell's message", "[ell][layout]") {
  const int64_t rows = 300000, width = 2;  // several parallel chunks; two bad slots
  std::vector<int32_t> col_ind(static_cast<size_t>(rows * width), 1);
  col_ind[250001] = 77;
  col_ind[400003] = -2;
  std::string want, got;
  try {
    csr_from_ell(rows, 50, width, col_ind.data());
  } catch (const spx::Error& e) {
    want = e.what();
  }
  try {
    plan_ell_layout_ell(rows, 50, width, col_ind.data());
  } catch (const spx::Error& e) {
    got = e.what();
  }
  REQUIRE(!want.empty());
  CHECK(got == want);
  CHECK(got.find("col_ind[250001] = 77") != std::string::npos);
}
