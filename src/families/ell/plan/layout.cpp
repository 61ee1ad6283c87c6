#include "families/ell/plan/layout.hpp"

#include <algorithm>
#include <cstddef>
#include <numeric>

#include "formats/structure_checks.hpp"
#include "runtime/error.hpp"
#include "runtime/parallel.hpp"

namespace spx::plan {
std::vector<int32_t> row_lengths(const int32_t* row_ptr, int64_t rows) {
  std::vector<int32_t> len(static_cast<size_t>(rows));
  for (int64_t r = 0; r < rows; ++r) len[r] = row_ptr[r + 1] - row_ptr[r];
  return len;
}

namespace {

std::vector<int32_t> lengths_of(const CsrStructure& csr) {
  return row_lengths(csr.row_ptr.data(), csr.rows);
}

}  // namespace

HostVector<uint16_t> EllLayout::col16() const {
  SPX_EXPECTS(index16, SPX_STATUS_INTERNAL_ERROR, "16-bit ELL indices asked for %lld columns",
              static_cast<long long>(cols));
  HostVector<uint16_t> out(col.size());
  parallel::for_chunks(static_cast<int64_t>(col.size()), int64_t{1} << 16, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) out[i] = static_cast<uint16_t>(col[i]);
  });
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

namespace {

/// Order key inside a set: (c mod 4, c mod 8) of the column's residue (see bank_order_into).
inline int set_key(int32_t col) {
  const int c = col % kEllBankGroups;
  return (c % 4) * kEllBankGroups + c;
}

}  // namespace

void bank_order_into(const int32_t* cols, int64_t len, int32_t* out, std::vector<int32_t>& scratch) {
  constexpr int64_t kBlock = 8 * kEllBankGroups;
  // Residue classes, each in the given (column) order: one array bucketed by residue.
  int64_t count[kEllBankGroups] = {}, first[kEllBankGroups], next[kEllBankGroups] = {};
  for (int64_t j = 0; j < len; ++j) ++count[cols[j] % kEllBankGroups];
  for (int r = 0, at = 0; r < kEllBankGroups; at += static_cast<int>(count[r]), ++r) first[r] = at;
  scratch.resize(static_cast<size_t>(len));
  {
    int64_t fill[kEllBankGroups];
    std::copy(first, first + kEllBankGroups, fill);
    for (int64_t j = 0; j < len; ++j)
      scratch[static_cast<size_t>(fill[cols[j] % kEllBankGroups]++)] = static_cast<int32_t>(j);
  }
  auto left = [&](int r) { return count[r] - next[r]; };
  // A full set costs one wavefront only if it takes one entry of every class (a "rainbow"), else
  // at least two; a set taking at most two of each class costs two. With S sets and class sizes
  // x_r, F rainbows leave x_r - F entries per class for S - F sets of two per class at most, so
  // F <= min x_r and F <= 2 S - max x_r: the first F sets take one per class, the rest up to
  // two (larger classes first), which costs 2 S - F wavefronts against the bound max(S, max x_r).
  int64_t sets = 0, smallest = len, largest = 0;
  for (int64_t b = 0; b * kBlock < len; ++b) sets += std::min<int64_t>(kEllRowAlign, len - b * kBlock);
  for (int r = 0; r < kEllBankGroups; ++r) {
    smallest = std::min<int64_t>(smallest, left(r));
    largest = std::max<int64_t>(largest, left(r));
  }
  const int64_t rainbows = std::max<int64_t>(0, std::min(smallest, 2 * sets - largest));
  // The classes ranked by (entries left descending, residue ascending): the greedy's pick is the
  // first class in this rank under its cap (the class with the most entries left, ties to the
  // lowest residue); a pick moves its class down the rank.
  int rank[kEllBankGroups];
  for (int r = 0; r < kEllBankGroups; ++r) rank[r] = r;
  auto ahead = [&](int x, int y) { return left(x) > left(y) || (left(x) == left(y) && x < y); };
  std::sort(rank, rank + kEllBankGroups, ahead);
  int64_t done = 0;
  for (int64_t b = 0; b * kBlock < len; ++b)
    for (int64_t e = 0; e < kEllRowAlign && b * kBlock + e < len; ++e) {
      int64_t set[kEllBankGroups];
      int size = 0;
      for (int64_t i = 0; i < kEllBankGroups; ++i) {
        const int64_t p = b * kBlock + i * kEllRowAlign + e;
        if (p < len) set[size++] = p;
      }
      if (done < rainbows && size == kEllBankGroups) {
        // A full rainbow: every class has entries left (rainbows <= the smallest class), the
        // greedy takes one of each, and the sort below orders them by residue 0 4 1 5 2 6 3 7;
        // every class loses one entry, so the rank keeps its order.
        constexpr int kRainbowOrder[kEllBankGroups] = {0, 4, 1, 5, 2, 6, 3, 7};
        for (int i = 0; i < kEllBankGroups; ++i) {
          const int res = kRainbowOrder[i];
          out[set[i]] = scratch[static_cast<size_t>(first[res] + next[res]++)];
        }
        ++done;
        continue;
      }
      int taken[kEllBankGroups] = {};
      int32_t entry[kEllBankGroups];
      int filled = 0;
      // Caps per class: 1 for the rainbows, then 2, then whatever is left (never stuck).
      for (int cap = done < rainbows ? 1 : 2; filled < size; ++cap) {
        bool progress = true;
        while (filled < size && progress) {
          progress = false;
          for (int k = 0; k < kEllBankGroups && left(rank[k]) > 0; ++k) {
            const int best = rank[k];
            if (taken[best] >= cap) continue;
            entry[filled++] = scratch[static_cast<size_t>(first[best] + next[best]++)];
            ++taken[best];
            progress = true;
            for (; k + 1 < kEllBankGroups && ahead(rank[k + 1], rank[k]); ++k)
              std::swap(rank[k], rank[k + 1]);
            break;
          }
        }
      }
      // The bulk copy stages 32-byte rows as they are (spmm_slot_staged.cu, gather_contig32): a
      // row's first 16-byte half is in bank group 2 c mod 8, so residues r and r + 4 collide
      // unless their lanes read different halves first, which lanes of different parity do.
      // Sorting the set by (c mod 4, c mod 8) puts r and r + 4 at positions 2 j and 2 j + 1 of a
      // full set; a permutation inside the set keeps its residues mod 8 (what every other kernel
      // reads). A stable insertion sort: at most 8 entries.
      for (int i = 1; i < size; ++i) {
        const int32_t x = entry[i];
        const int key = set_key(cols[x]);
        int j = i;
        for (; j > 0 && set_key(cols[entry[j - 1]]) > key; --j) entry[j] = entry[j - 1];
        entry[j] = x;
      }
      for (int i = 0; i < size; ++i) out[set[i]] = entry[i];
      ++done;
    }
}

std::vector<int32_t> bank_order_row(const std::vector<int32_t>& cols) {
  std::vector<int32_t> out(cols.size(), -1), scratch;
  bank_order_into(cols.data(), static_cast<int64_t>(cols.size()), out.data(), scratch);
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

namespace {

/// One row's entries in the user's order (columns and value slots), then the layout's work on
/// it; per worker thread, reused row after row.
struct RowWork {
  std::vector<int32_t> col, order, ell_cols, bank, scratch;
  std::vector<int64_t> slot;
};

/// The layout's numbers from the row lengths: width, stride, row_len, overflow, tail_ptr, and
/// the arrays sized (every slot padding until its row is laid out).
EllLayout start_layout(int64_t rows, int64_t cols, int64_t nnz, const std::vector<int32_t>& len) {
  EllLayout out;
  out.rows = rows;
  out.cols = cols;
  out.index16 = cols <= 65536;
  out.width = choose_hyb_width(len);
  out.stride = (out.width + kEllRowAlign - 1) / kEllRowAlign * kEllRowAlign;
  out.nnz = nnz;
  out.row_len.resize(len.size());
  for (size_t r = 0; r < len.size(); ++r) {
    out.row_len[r] = static_cast<int32_t>(std::min<int64_t>(len[r], out.width));
    out.overflow += len[r] - out.row_len[r];
  }
  // Not zeroed here: lay_out_row writes every slot of its row (padding included) and the tail's,
  // in parallel; the overrun pad is written here.
  out.col.resize(static_cast<size_t>(out.slots() + kEllArrayPad));
  out.src_slot.resize(out.col.size());
  for (int64_t i = out.slots(); i < out.slots() + kEllArrayPad; ++i) {
    out.col[i] = 0;
    out.src_slot[i] = -1;
  }
  if (out.overflow > 0) {
    out.tail_ptr.assign(static_cast<size_t>(rows) + 1, 0);
    for (int64_t r = 0; r < rows; ++r)
      out.tail_ptr[r + 1] = out.tail_ptr[r] + (len[r] - out.row_len[r]);
  }
  return out;
}

/// Lays out row r from w.col / w.slot (its `len` entries in the user's order): by increasing
/// column (stable), the first row_len entries in bank order, the rest into the tail.
void lay_out_row(EllLayout& out, int64_t r, int64_t len, RowWork& w) {
  w.order.resize(static_cast<size_t>(len));
  std::iota(w.order.begin(), w.order.end(), 0);
  if (!std::is_sorted(w.col.begin(), w.col.begin() + len))
    std::stable_sort(w.order.begin(), w.order.end(),
                     [&](int32_t x, int32_t y) { return w.col[x] < w.col[y]; });
  // The first row_len entries (lowest columns) form the ELL part, in bank order.
  const int32_t kept = out.row_len[r];
  w.ell_cols.resize(static_cast<size_t>(kept));
  for (int32_t j = 0; j < kept; ++j) w.ell_cols[j] = w.col[w.order[j]];
  w.bank.resize(static_cast<size_t>(kept));
  bank_order_into(w.ell_cols.data(), kept, w.bank.data(), w.scratch);
  const int64_t tail0 = out.tail_ptr.empty() ? 0 : out.ell_slots() + out.tail_ptr[r] - kept;
  for (int32_t j = 0; j < len; ++j) {
    const int32_t e = j < kept ? w.order[w.bank[j]] : w.order[j];
    const int64_t at = j < kept ? r * out.stride + j : tail0 + j;
    out.col[at] = w.col[e];
    SPX_EXPECTS(w.slot[e] <= INT32_MAX, SPX_STATUS_INTERNAL_ERROR,
                "a value slot beyond the ELL plan's 32-bit slot map");
    out.src_slot[at] = static_cast<int32_t>(w.slot[e]);
  }
  for (int64_t j = kept; j < out.stride; ++j) {  // the row's padding: value 0, column 0
    out.col[r * out.stride + j] = 0;
    out.src_slot[r * out.stride + j] = -1;
  }
}

/// Rows per chunk of the parallel row loops (each row's work is independent).
constexpr int64_t kRowGrain = 64;

}  // namespace

EllLayout plan_ell_layout(const CsrStructure& csr) {
  const std::vector<int32_t> len = lengths_of(csr);
  EllLayout out = start_layout(csr.rows, csr.cols, static_cast<int64_t>(csr.col_ind.size()), len);
  parallel::for_chunks(csr.rows, kRowGrain, [&](int64_t r0, int64_t r1) {
    RowWork w;
    for (int64_t r = r0; r < r1; ++r) {
      const int32_t begin = csr.row_ptr[r];
      w.col.assign(csr.col_ind.begin() + begin, csr.col_ind.begin() + begin + len[r]);
      w.slot.assign(csr.slot.begin() + begin, csr.slot.begin() + begin + len[r]);
      lay_out_row(out, r, len[r], w);
    }
  });
  return out;
}

EllLayout plan_ell_layout_ell(int64_t rows, int64_t cols, int64_t ell_width,
                              const int32_t* col_ind) {
  SPX_CHECK_ARG(rows >= 0 && cols >= 0, "the matrix shape %lld x %lld is negative",
                static_cast<long long>(rows), static_cast<long long>(cols));
  SPX_CHECK_ARG(ell_width >= 0, "ell_width (%lld) must be >= 0", static_cast<long long>(ell_width));
  check_index_range("col_ind", rows * ell_width, col_ind, -1, cols);
  // Row lengths (slots not -1), rows in blocks so that the column-major reads run along memory.
  std::vector<int32_t> len(static_cast<size_t>(rows), 0);
  parallel::for_chunks(rows, kRowGrain, [&](int64_t r0, int64_t r1) {
    for (int64_t j = 0; j < ell_width; ++j) {
      const int32_t* slot = col_ind + j * rows;
      for (int64_t r = r0; r < r1; ++r) len[r] += slot[r] != -1;
    }
  });
  int64_t nnz = 0;
  for (int32_t l : len) nnz += l;
  check_fits_int32("the number of stored entries", nnz);
  EllLayout out = start_layout(rows, cols, nnz, len);
  parallel::for_chunks(rows, kRowGrain, [&](int64_t r0, int64_t r1) {
    // A block of rows is copied row-major first (tile[row][slot]): the column-major slots of
    // 16 neighbouring rows are one 64-byte line.
    constexpr int64_t kBlock = 16;
    std::vector<int32_t> tile(static_cast<size_t>(kBlock * ell_width));
    RowWork w;
    for (int64_t b0 = r0; b0 < r1; b0 += kBlock) {
      const int64_t b1 = std::min(r1, b0 + kBlock);
      for (int64_t j = 0; j < ell_width; ++j)
        for (int64_t r = b0; r < b1; ++r) tile[(r - b0) * ell_width + j] = col_ind[r + j * rows];
      for (int64_t r = b0; r < b1; ++r) {
        w.col.clear();
        w.slot.clear();
        const int32_t* t = tile.data() + (r - b0) * ell_width;  // empty when ell_width is 0
        for (int64_t j = 0; j < ell_width; ++j)
          if (t[j] != -1) {
            w.col.push_back(t[j]);
            w.slot.push_back(r + j * rows);
          }
        lay_out_row(out, r, len[r], w);
      }
    }
  });
  return out;
}

std::string ell_near_uniform_lengths(const std::vector<int32_t>& len) {
  int64_t nnz = 0;
  for (int32_t l : len) nnz += l;
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

std::string ell_near_uniform(const CsrStructure& csr) { return ell_near_uniform_lengths(lengths_of(csr)); }

}  // namespace spx::plan
