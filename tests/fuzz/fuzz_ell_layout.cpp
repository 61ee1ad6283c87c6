// Fuzz target: the ELL family's layout planner (src/families/ell/plan/layout). A user structure
// (CSR with unsorted / duplicate columns, or ELL with padding) is validated and converted by
// formats/to_csr, then laid out. Checked: the HYB width rule (the largest width whose padding is
// at most 25 % of nnz), row pitch, row lengths and overflow; every entry of every row appears
// exactly once in the plan (its ELL part or its CSR tail) with its column and its user value
// slot; the ELL part holds each row's lowest columns, the tail the rest in column order; padding
// slots are column 0 / slot -1; bank_order_row is a permutation; 16-bit columns where they fit.
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "families/ell/plan/layout.hpp"
#include "formats/to_csr.hpp"
#include "fuzz_common.hpp"

using namespace spx_fuzz;
using spx::plan::CsrStructure;
using spx::plan::EllLayout;

namespace {

void check_layout(const CsrStructure& s, const EllLayout& L) {
  const int64_t rows = s.rows, nnz = static_cast<int64_t>(s.col_ind.size());
  std::vector<int32_t> len(static_cast<size_t>(rows));
  int64_t longest = 0;
  for (int64_t r = 0; r < rows; ++r) {
    len[r] = s.row_ptr[r + 1] - s.row_ptr[r];
    longest = std::max<int64_t>(longest, len[r]);
  }
  FUZZ_CHECK(L.rows == rows && L.cols == s.cols && L.nnz == nnz);
  FUZZ_CHECK(L.index16 == (s.cols <= 65536));
  // HYB rule: the padding bound holds at `width` and fails one slot wider (padding only grows).
  const double bound = spx::plan::kEllMaxPadding * static_cast<double>(nnz);
  FUZZ_CHECK(L.width >= 0 && L.width <= longest);
  FUZZ_CHECK(static_cast<double>(spx::plan::ell_padding(len, L.width)) <= bound);
  FUZZ_CHECK(nnz == 0 || L.width == longest ||
             static_cast<double>(spx::plan::ell_padding(len, L.width + 1)) > bound);
  FUZZ_CHECK(L.width == spx::plan::choose_hyb_width(len));
  FUZZ_CHECK(L.stride % spx::plan::kEllRowAlign == 0 && L.stride >= L.width &&
             L.stride < L.width + spx::plan::kEllRowAlign);
  FUZZ_CHECK(L.row_len.size() == len.size());
  int64_t overflow = 0;
  for (int64_t r = 0; r < rows; ++r) {
    FUZZ_CHECK(L.row_len[r] == std::min<int64_t>(len[r], L.width));
    overflow += len[r] - L.row_len[r];
  }
  FUZZ_CHECK(L.overflow == overflow);
  FUZZ_CHECK(L.col.size() == static_cast<size_t>(L.slots() + spx::plan::kEllArrayPad));
  FUZZ_CHECK(L.src_slot.size() == L.col.size());
  FUZZ_CHECK(L.tail_ptr.size() == (overflow > 0 ? static_cast<size_t>(rows) + 1 : 0));
  if (overflow > 0) FUZZ_CHECK(L.tail_ptr[0] == 0 && L.tail_ptr[rows] == overflow);

  int64_t padding = 0;
  for (int64_t r = 0; r < rows; ++r) {
    // The row's (column, slot) pairs by increasing column, stable: ELL part = the first row_len.
    std::vector<std::pair<int32_t, int64_t>> want;
    for (int32_t e = s.row_ptr[r]; e < s.row_ptr[r + 1]; ++e) want.emplace_back(s.col_ind[e], s.slot[e]);
    std::stable_sort(want.begin(), want.end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    const int64_t kept = L.row_len[r];
    std::vector<std::pair<int32_t, int64_t>> ell_part;
    for (int64_t j = 0; j < L.stride; ++j) {
      const size_t at = static_cast<size_t>(r * L.stride + j);
      if (j < kept) {
        ell_part.emplace_back(L.col[at], L.src_slot[at]);
      } else {
        FUZZ_CHECK(L.col[at] == 0 && L.src_slot[at] == -1);
        ++padding;
      }
    }
    std::vector<std::pair<int32_t, int64_t>> head(want.begin(), want.begin() + kept);
    std::sort(head.begin(), head.end());
    std::sort(ell_part.begin(), ell_part.end());
    FUZZ_CHECK(head == ell_part);
    if (overflow > 0) {
      FUZZ_CHECK(L.tail_ptr[r + 1] - L.tail_ptr[r] == len[r] - kept);
      for (int64_t t = L.tail_ptr[r]; t < L.tail_ptr[r + 1]; ++t) {
        const size_t at = static_cast<size_t>(L.ell_slots() + t);
        const auto& w = want[static_cast<size_t>(kept + t - L.tail_ptr[r])];
        FUZZ_CHECK(L.col[at] == w.first && L.src_slot[at] == w.second);
      }
    }
  }
  FUZZ_CHECK(L.padding() == padding);
  for (int64_t i = L.slots(); i < static_cast<int64_t>(L.col.size()); ++i)
    FUZZ_CHECK(L.col[i] == 0 && L.src_slot[i] == -1);
  if (L.index16) {
    const auto c16 = L.col16();
    for (size_t i = 0; i < c16.size(); ++i) FUZZ_CHECK(c16[i] == L.col[i]);
  }
  (void)spx::plan::ell_near_uniform(s);
}

void check_bank_order(FuzzedDataProvider& in) {
  std::vector<int32_t> cols(static_cast<size_t>(in.ConsumeIntegralInRange<int>(0, 200)));
  const int32_t hi = pick<int32_t>(in, {7, 15, 63, 1000, INT32_MAX});
  for (auto& c : cols) c = in.ConsumeIntegralInRange<int32_t>(0, hi);
  const std::vector<int32_t> order = spx::plan::bank_order_row(cols);
  FUZZ_CHECK(order.size() == cols.size());
  std::vector<char> seen(cols.size(), 0);
  std::vector<int32_t> placed(cols.size());
  for (size_t p = 0; p < order.size(); ++p) {
    FUZZ_CHECK(order[p] >= 0 && static_cast<size_t>(order[p]) < cols.size() && !seen[order[p]]);
    seen[order[p]] = 1;
    placed[p] = cols[order[p]];
  }
  // Each set of up to 8 positions costs between 1 wavefront and its size.
  const int64_t sets = (static_cast<int64_t>(cols.size()) + 63) / 64 * 8;
  const int64_t w = spx::plan::bank_wavefronts(placed), w32 = spx::plan::bank_wavefronts_contig32(placed);
  FUZZ_CHECK(w >= 0 && w <= static_cast<int64_t>(cols.size()) && w <= sets * 8);
  FUZZ_CHECK(w32 >= 0 && w32 <= static_cast<int64_t>(cols.size()));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  const int mode = in.ConsumeIntegralInRange<int>(0, 3);
  if (mode == 3) {
    check_bank_order(in);
    return 0;
  }
  const int64_t cols = pick<int64_t>(in, {16, 40, 100, 65536, 65537, 1 << 20});
  CsrStructure s;
  if (mode <= 1) {  // CSR: rows of any length (wide rows reach several 64-slot blocks)
    const int64_t rows = in.ConsumeIntegralInRange<int>(0, 48);
    std::vector<int32_t> ptr(1, 0), col;
    const int skew = in.ConsumeIntegralInRange<int>(0, 3);
    for (int64_t r = 0; r < rows; ++r) {
      int len = in.ConsumeIntegralInRange<int>(0, 12);
      if (skew > 0 && in.ConsumeIntegralInRange<int>(0, 7) == 0) len += in.ConsumeIntegralInRange<int>(0, 64 * skew);
      len = std::min<int>(len, 2048 - static_cast<int>(col.size()));
      const int32_t base = in.ConsumeIntegralInRange<int32_t>(0, static_cast<int32_t>(cols) - 1);
      for (int j = 0; j < len; ++j)  // columns near a base (duplicates and every residue mod 8)
        col.push_back(mode == 0 ? in.ConsumeIntegralInRange<int32_t>(0, static_cast<int32_t>(cols) - 1)
                                : static_cast<int32_t>((base + in.ConsumeIntegralInRange<int>(0, 40)) % cols));
      ptr.push_back(static_cast<int32_t>(col.size()));
    }
    s = spx::plan::csr_from_csr(rows, cols, static_cast<int64_t>(col.size()), ptr.data(), col.data());
  } else {  // ELL with padding (-1) anywhere: slots are i + j * rows
    const int64_t rows = in.ConsumeIntegralInRange<int>(0, 32), width = in.ConsumeIntegralInRange<int>(0, 24);
    std::vector<int32_t> col(static_cast<size_t>(rows * width));
    for (auto& c : col)
      c = in.ConsumeIntegralInRange<int>(0, 2) == 0 ? -1 : in.ConsumeIntegralInRange<int32_t>(0, static_cast<int32_t>(cols) - 1);
    s = spx::plan::csr_from_ell(rows, cols, width, col.data());
  }
  check_layout(s, spx::plan::plan_ell_layout(s));
  return 0;
}
