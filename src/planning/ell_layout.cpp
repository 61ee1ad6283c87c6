#include "planning/ell_layout.hpp"

#include <algorithm>
#include <cstddef>
#include <numeric>

#include "core/error.hpp"

namespace spx::plan {
namespace {

std::vector<int32_t> lengths_of(const CsrStructure& csr) {
  std::vector<int32_t> len(static_cast<size_t>(csr.rows));
  for (int64_t r = 0; r < csr.rows; ++r) len[r] = csr.row_ptr[r + 1] - csr.row_ptr[r];
  return len;
}

}  // namespace

std::vector<uint16_t> EllLayout::col16() const {
  SPX_EXPECTS(index16, SPX_STATUS_INTERNAL_ERROR, "16-bit ELL indices asked for %lld columns",
              static_cast<long long>(cols));
  std::vector<uint16_t> out(col.size());
  for (size_t i = 0; i < col.size(); ++i) out[i] = static_cast<uint16_t>(col[i]);
  return out;
}

int64_t ell_padding(const std::vector<int32_t>& row_lengths, int64_t width) {
  int64_t pad = 0;
  for (int32_t len : row_lengths) pad += std::max<int64_t>(0, width - len);
  return pad;
}

int64_t choose_hyb_width(const std::vector<int32_t>& row_lengths, double max_padding) {
  int64_t nnz = 0, longest = 0;
  for (int32_t len : row_lengths) {
    nnz += len;
    longest = std::max<int64_t>(longest, len);
  }
  if (nnz == 0) return 0;
  // Histogram of lengths; padding(W) = W * #(len < W) - sum(len < W), swept upwards. Padding
  // only grows with W, so the sweep stops at the first width over the bound.
  std::vector<int64_t> count(static_cast<size_t>(longest) + 1, 0);
  for (int32_t len : row_lengths) ++count[len];
  const double bound = max_padding * static_cast<double>(nnz);
  int64_t best = 0, shorter = 0, shorter_sum = 0;
  for (int64_t w = 1; w <= longest; ++w) {
    shorter += count[w - 1];
    shorter_sum += count[w - 1] * (w - 1);
    if (static_cast<double>(w * shorter - shorter_sum) > bound) break;
    best = w;
  }
  return best;
}

EllLayout plan_ell_layout(const CsrStructure& csr) {
  EllLayout out;
  out.rows = csr.rows;
  out.cols = csr.cols;
  out.index16 = csr.cols <= 65536;
  const std::vector<int32_t> len = lengths_of(csr);
  out.width = choose_hyb_width(len);
  out.nnz = static_cast<int64_t>(csr.col_ind.size());
  out.row_len.resize(len.size());
  for (size_t r = 0; r < len.size(); ++r) {
    out.row_len[r] = static_cast<int32_t>(std::min<int64_t>(len[r], out.width));
    out.overflow += len[r] - out.row_len[r];
  }
  out.col.assign(static_cast<size_t>(out.slots() + kEllArrayPad), 0);
  out.src_slot.assign(out.col.size(), -1);
  if (out.overflow > 0) out.tail_ptr.assign(static_cast<size_t>(out.rows) + 1, 0);
  std::vector<int32_t> order;
  int64_t tail = 0;
  for (int64_t r = 0; r < csr.rows; ++r) {
    const int32_t begin = csr.row_ptr[r];
    order.resize(static_cast<size_t>(len[r]));
    std::iota(order.begin(), order.end(), begin);
    std::stable_sort(order.begin(), order.end(),
                     [&](int32_t x, int32_t y) { return csr.col_ind[x] < csr.col_ind[y]; });
    for (int32_t j = 0; j < len[r]; ++j) {
      const int32_t e = order[j];
      const int64_t at = j < out.row_len[r] ? r * out.width + j : out.ell_slots() + tail++;
      out.col[at] = csr.col_ind[e];
      SPX_EXPECTS(csr.slot[e] <= INT32_MAX, SPX_STATUS_INTERNAL_ERROR,
                  "a value slot beyond the ELL plan's 32-bit slot map");
      out.src_slot[at] = static_cast<int32_t>(csr.slot[e]);
    }
    if (!out.tail_ptr.empty()) out.tail_ptr[r + 1] = static_cast<int32_t>(tail);
  }
  return out;
}

std::string ell_near_uniform(const CsrStructure& csr) {
  const std::vector<int32_t> len = lengths_of(csr);
  const int64_t nnz = static_cast<int64_t>(csr.col_ind.size());
  if (nnz == 0) return "the matrix has no entries";
  const int64_t width = choose_hyb_width(len);
  int64_t overflow = 0;
  for (int32_t l : len) overflow += std::max<int64_t>(0, l - width);
  if (static_cast<double>(overflow) > kEllMaxOverflowCsr * static_cast<double>(nnz))
    return strf("the rows are too skewed: %lld of %lld entries would overflow a %lld-slot ELL part "
                "(more than 12.5 %%)",
                static_cast<long long>(overflow), static_cast<long long>(nnz),
                static_cast<long long>(width));
  return {};
}

}  // namespace spx::plan
