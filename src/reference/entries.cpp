// Stored entries of a HostSparse, read straight from each user format (deliberately not through
// src/planning, which the reference is meant to check).
#include <stdexcept>
#include <string>

#include "reference/reference.hpp"

namespace spx::ref {
namespace {

[[noreturn]] void bad(const std::string& what) {
  throw std::invalid_argument("spx::ref: " + what);
}

void need(bool ok, const char* what) {
  if (!ok) bad(what);
}

int64_t nm_kc(const HostSparse& a) {
  return a.cols / a.m * a.n;
}

}  // namespace

int64_t HostSparse::value_slots() const {
  switch (format) {
    case SPX_FORMAT_CSR:
      return ptr.empty() ? 0 : ptr.back();
    case SPX_FORMAT_BCRS:
      return static_cast<int64_t>(idx.size()) * vec_len;
    case SPX_FORMAT_NM:
      return m > 0 ? rows * (cols / m * n) : 0;
    case SPX_FORMAT_ELL:
      return rows * ell_width;
  }
  return 0;
}

std::vector<Entry> entries(const HostSparse& a) {
  std::vector<Entry> out;
  auto push = [&](int64_t row, int64_t col, int64_t slot) {
    need(col >= 0 && col < a.cols, "column index out of range");
    out.push_back(Entry{row, col, slot});
  };
  switch (a.format) {
    case SPX_FORMAT_CSR:
      need(static_cast<int64_t>(a.ptr.size()) == a.rows + 1,
           "CSR row_ptr must have rows + 1 entries");
      for (int64_t r = 0; r < a.rows; ++r) {
        need(a.ptr[r] <= a.ptr[r + 1] && a.ptr[r + 1] <= static_cast<int64_t>(a.idx.size()),
             "CSR row_ptr out of order");
        for (int64_t e = a.ptr[r]; e < a.ptr[r + 1]; ++e) push(r, a.idx[e], e);
      }
      break;
    case SPX_FORMAT_BCRS: {
      need(a.vec_len >= 1 && a.rows % a.vec_len == 0, "BCRS rows must be a multiple of V");
      const int64_t block_rows = a.rows / a.vec_len;
      need(static_cast<int64_t>(a.ptr.size()) == block_rows + 1,
           "BCRS block_row_ptr must have rows / V + 1 entries");
      for (int64_t b = 0; b < block_rows; ++b) {
        need(a.ptr[b] <= a.ptr[b + 1] && a.ptr[b + 1] <= static_cast<int64_t>(a.idx.size()),
             "BCRS block_row_ptr out of order");
        for (int64_t r = 0; r < a.vec_len; ++r) {
          for (int64_t j = a.ptr[b]; j < a.ptr[b + 1]; ++j) {
            push(b * a.vec_len + r, a.idx[j], j * a.vec_len + r);
          }
        }
      }
      break;
    }
    case SPX_FORMAT_NM: {
      need(a.n >= 1 && a.m >= a.n && a.l >= 1 && a.cols % a.m == 0 && a.rows % a.l == 0,
           "NM parameters do not tile the matrix");
      const int64_t kc = nm_kc(a);
      need(static_cast<int64_t>(a.idx.size()) == a.rows / a.l * kc,
           "NM indices must have (rows / L) x kc entries");
      for (int64_t i = 0; i < a.rows; ++i) {
        for (int64_t q = 0; q < kc; ++q) {
          const int64_t pos = a.idx[(i / a.l) * kc + q];
          need(pos >= 0 && pos < a.m, "NM index outside its window");
          push(i, (q / a.n) * a.m + pos, i * kc + q);
        }
      }
      break;
    }
    case SPX_FORMAT_ELL:
      need(static_cast<int64_t>(a.idx.size()) == a.rows * a.ell_width,
           "ELL col_ind must have rows x ell_width entries");
      for (int64_t i = 0; i < a.rows; ++i) {
        for (int64_t j = 0; j < a.ell_width; ++j) {
          const int64_t slot = i + j * a.rows;
          if (a.idx[slot] != -1) push(i, a.idx[slot], slot);
        }
      }
      break;
    default:
      bad("unknown sparse format");
  }
  return out;
}

}  // namespace spx::ref
