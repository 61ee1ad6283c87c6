#include "families/ell/plan/layout.hpp"

#include <algorithm>
#include <cstddef>
#include <numeric>

#include "runtime/error.hpp"

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

namespace {

/// Positions of set (block b, lane step e): {64 b + 8 i + e : i = 0..7} below len.
template <class Fn>
void for_each_position_set(int64_t len, Fn&& fn) {
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

}  // namespace

std::vector<int32_t> bank_order_row(const std::vector<int32_t>& cols) {
  const int64_t len = static_cast<int64_t>(cols.size());
  // Residue classes, each in the given (column) order.
  std::vector<int32_t> cls[kEllBankGroups];
  for (int64_t j = 0; j < len; ++j) cls[cols[j] % kEllBankGroups].push_back(static_cast<int32_t>(j));
  size_t next[kEllBankGroups] = {};
  auto left = [&](int r) { return static_cast<int64_t>(cls[r].size() - next[r]); };
  // A full set costs one wavefront only if it takes one entry of every class (a "rainbow"), else
  // at least two; a set taking at most two of each class costs two. With S sets and class sizes
  // x_r, F rainbows leave x_r - F entries per class for S - F sets of two per class at most, so
  // F <= min x_r and F <= 2 S - max x_r: the first F sets take one per class, the rest up to
  // two (larger classes first), which costs 2 S - F wavefronts against the bound max(S, max x_r).
  int64_t sets = 0, smallest = len, largest = 0;
  for_each_position_set(len, [&](const std::vector<int64_t>&) { ++sets; });
  for (int r = 0; r < kEllBankGroups; ++r) {
    smallest = std::min<int64_t>(smallest, left(r));
    largest = std::max<int64_t>(largest, left(r));
  }
  const int64_t rainbows = std::max<int64_t>(0, std::min(smallest, 2 * sets - largest));
  std::vector<int32_t> out(static_cast<size_t>(len), -1);
  int64_t done = 0;
  for_each_position_set(len, [&](const std::vector<int64_t>& set) {
    int taken[kEllBankGroups] = {};
    size_t filled = 0;
    // Caps per class: 1 for the rainbows, then 2, then whatever is left (never stuck).
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
    // The bulk copy stages 32-byte rows as they are (spmm_slot_staged.cu, gather_contig32): a
    // row's first 16-byte half is in bank group 2 c mod 8, so residues r and r + 4 collide
    // unless their lanes read different halves first, which lanes of different parity do.
    // Sorting the set by (c mod 4, c mod 8) puts r and r + 4 at positions 2 j and 2 j + 1 of a
    // full set; a permutation inside the set keeps its residues mod 8 (what every other kernel
    // reads).
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

namespace {

/// Sum over the position sets of the most lanes on one 16-byte bank group, lane i of a set (its
/// i-th position) reading column c in group `group(c, i)` (0 .. kEllBankGroups - 1).
template <class Group>
int64_t set_wavefronts(const std::vector<int32_t>& cols, Group&& group) {
  int64_t total = 0;
  for_each_position_set(static_cast<int64_t>(cols.size()), [&](const std::vector<int64_t>& set) {
    int count[kEllBankGroups] = {};
    int worst = 0;
    for (size_t i = 0; i < set.size(); ++i)
      worst = std::max(worst, ++count[group(cols[set[i]], static_cast<int>(i))]);
    total += worst;
  });
  return total;
}

}  // namespace

int64_t bank_wavefronts(const std::vector<int32_t>& cols) {
  return set_wavefronts(cols, [](int32_t c, int) { return c % kEllBankGroups; });
}

int64_t bank_wavefronts_contig32(const std::vector<int32_t>& cols) {
  return set_wavefronts(cols, [](int32_t c, int i) { return 2 * (c % 4) + i % 2; });
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
    // The first row_len entries (lowest columns) form the ELL part, in bank order.
    const int32_t kept = out.row_len[r];
    ell_cols.resize(static_cast<size_t>(kept));
    for (int32_t j = 0; j < kept; ++j) ell_cols[j] = csr.col_ind[order[j]];
    const std::vector<int32_t> bank = bank_order_row(ell_cols);
    for (int32_t j = 0; j < len[r]; ++j) {
      const int32_t e = j < kept ? order[bank[j]] : order[j];
      const int64_t at = j < kept ? r * out.stride + j : out.ell_slots() + tail++;
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
