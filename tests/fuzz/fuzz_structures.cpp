// Fuzz target: validation of user structures and their conversion to CSR (src/formats/to_csr,
// structure_checks, csr_to_ell, dilate). The first byte picks the format: CSR, BCRS(V), vector-wise
// N:M, ELL, then CSR -> ELL and CSR dilation. Each input is also judged by an independent
// validity rule written here from the headers' contracts: the library must accept exactly the
// valid ones (an spx::Error with INVALID_VALUE / NOT_SUPPORTED otherwise), and an accepted
// structure converts to a CSR that re-validates and maps every entry back to its user slot.
#include <algorithm>
#include <cstdint>
#include <utility>
#include <vector>

#include "formats/csr_to_ell.hpp"
#include "formats/dilate.hpp"
#include "formats/structure_checks.hpp"
#include "formats/to_csr.hpp"
#include "fuzz_common.hpp"

namespace {

using spx::plan::CsrStructure;
using namespace spx_fuzz;

constexpr int kMaxRows = 24, kMaxCols = 40, kMaxEntries = 256;

bool row_ptr_ok(const std::vector<int32_t>& ptr, int64_t nnz) {
  if (ptr.empty() || ptr[0] != 0) return false;
  for (size_t i = 1; i < ptr.size(); ++i)
    if (ptr[i] < ptr[i - 1]) return false;
  return nnz < 0 || ptr.back() == nnz;
}

template <class Vector>
bool cols_ok(const Vector& col, int64_t count, int64_t lo, int64_t cols) {
  for (int64_t i = 0; i < count; ++i)
    if (col[static_cast<size_t>(i)] < lo || col[static_cast<size_t>(i)] >= cols) return false;
  return true;
}

/// What every CsrStructure the conversions return satisfies; `values` is the user value count.
void check_csr(const CsrStructure& s, int64_t rows, int64_t cols, int64_t values) {
  FUZZ_CHECK(s.rows == rows && s.cols == cols);
  FUZZ_CHECK(s.row_ptr.size() == static_cast<size_t>(rows) + 1);
  FUZZ_CHECK(s.slot.size() == s.col_ind.size());
  const int64_t nnz = static_cast<int64_t>(s.col_ind.size());
  FUZZ_CHECK(row_ptr_ok(s.row_ptr, nnz));
  FUZZ_CHECK(cols_ok(s.col_ind, nnz, 0, cols));
  std::vector<char> seen(static_cast<size_t>(values), 0);
  for (int64_t slot : s.slot) {
    FUZZ_CHECK(slot >= 0 && slot < values && !seen[static_cast<size_t>(slot)]);
    seen[static_cast<size_t>(slot)] = 1;
  }
  // The library's own checks accept it, and converting it again gives it back.
  const CsrStructure again =
      spx::plan::csr_from_csr(rows, cols, nnz, s.row_ptr.data(), s.col_ind.data());
  FUZZ_CHECK(again.row_ptr == s.row_ptr && again.col_ind == s.col_ind);
}

/// Row of each CSR entry.
std::vector<int64_t> entry_rows(const CsrStructure& s) {
  std::vector<int64_t> row(s.col_ind.size());
  for (int64_t i = 0; i < s.rows; ++i)
    for (int32_t e = s.row_ptr[i]; e < s.row_ptr[i + 1]; ++e) row[static_cast<size_t>(e)] = i;
  return row;
}

void fuzz_csr(FuzzedDataProvider& in) {
  Structure a = decode_structure(in, {1}, kMaxRows, kMaxCols, kMaxEntries, false, true);
  int64_t nnz = a.ptr.back();
  if (in.ConsumeIntegralInRange<int>(0, 7) == 0) nnz = in.ConsumeIntegralInRange<int>(-2, kMaxEntries);
  if (nnz > static_cast<int64_t>(a.col.size())) a.col.resize(static_cast<size_t>(nnz), 0);
  const bool valid = a.rows >= 0 && a.cols >= 0 && nnz >= 0 && row_ptr_ok(a.ptr, nnz) &&
                     cols_ok(a.col, nnz, 0, a.cols);
  CsrStructure s;
  const bool ok = expect_ok_or_error(kArgErrors, [&] {
    s = spx::plan::csr_from_csr(a.rows, a.cols, nnz, a.ptr.data(), a.col.data());
  });
  FUZZ_CHECK(ok == valid);
  if (!ok) return;
  check_csr(s, a.rows, a.cols, nnz);
  for (int64_t e = 0; e < nnz; ++e) FUZZ_CHECK(s.slot[e] == e && s.col_ind[e] == a.col[e]);
}

void fuzz_bcrs(FuzzedDataProvider& in) {
  Structure a = decode_structure(in, {1, 2, 3, 4, 8, 0, -1}, kMaxRows / 2, kMaxCols,
                                 kMaxEntries / 4, false, true);
  int64_t num_vectors = a.ptr.back();
  if (in.ConsumeIntegralInRange<int>(0, 7) == 0)
    num_vectors = in.ConsumeIntegralInRange<int>(-2, kMaxEntries / 4);
  if (num_vectors > static_cast<int64_t>(a.col.size()))
    a.col.resize(static_cast<size_t>(num_vectors), 0);
  const bool valid = a.rows >= 0 && a.cols >= 0 && a.vec_len >= 1 && a.rows % a.vec_len == 0 &&
                     num_vectors >= 0 && row_ptr_ok(a.ptr, num_vectors) &&
                     cols_ok(a.col, num_vectors, 0, a.cols);
  CsrStructure s;
  const bool ok = expect_ok_or_error(kArgErrors, [&] {
    s = spx::plan::csr_from_bcrs(a.rows, a.cols, a.vec_len, num_vectors, a.ptr.data(),
                                 a.col.data());
  });
  FUZZ_CHECK(ok == valid);
  if (!ok) return;
  check_csr(s, a.rows, a.cols, num_vectors * a.vec_len);
  const std::vector<int64_t> row = entry_rows(s);
  for (size_t e = 0; e < s.slot.size(); ++e) {
    const int64_t j = s.slot[e] / a.vec_len, r = s.slot[e] % a.vec_len;
    FUZZ_CHECK(row[e] == (row[e] / a.vec_len) * a.vec_len + r);
    FUZZ_CHECK(j >= a.ptr[row[e] / a.vec_len] && j < a.ptr[row[e] / a.vec_len + 1]);
    FUZZ_CHECK(s.col_ind[e] == a.col[j]);
  }
}

void fuzz_nm(FuzzedDataProvider& in) {
  const int64_t n = in.ConsumeIntegralInRange<int>(-1, 8), m = in.ConsumeIntegralInRange<int>(-1, 8);
  const int64_t l = pick<int64_t>(in, {1, 2, 4, 8, 3, 0, -1});
  int64_t rows = in.ConsumeIntegralInRange<int>(0, kMaxRows);
  int64_t cols = in.ConsumeIntegralInRange<int>(0, kMaxCols);
  if (in.ConsumeBool()) {  // mostly shapes that tile
    if (l >= 1) rows -= rows % l;
    if (m >= 1) cols -= cols % m;
  }
  if (in.ConsumeIntegralInRange<int>(0, 15) == 0) rows = -rows - 1;
  const bool params = n >= 1 && m >= 1 && l >= 1 && n <= m && rows >= 0 && cols % m == 0 &&
                      rows % l == 0;
  std::vector<int32_t> idx;
  bool valid = params;
  if (params) {
    const int64_t kc = cols / m * n, count = rows / l * kc;
    for (int64_t w = 0; w < count / n; ++w) {  // n increasing positions of [0, m) per window
      std::vector<int32_t> pos(static_cast<size_t>(m));
      for (int64_t p = 0; p < m; ++p) pos[p] = static_cast<int32_t>(p);
      for (int64_t p = 0; p < n; ++p)
        std::swap(pos[p], pos[in.ConsumeIntegralInRange<int64_t>(p, m - 1)]);
      std::sort(pos.begin(), pos.begin() + n);
      idx.insert(idx.end(), pos.begin(), pos.begin() + n);
    }
    if (!idx.empty() && in.ConsumeIntegralInRange<int>(0, 3) == 0)
      idx[in.ConsumeIntegralInRange<size_t>(0, idx.size() - 1)] = index_value(in, -1, m);
    for (size_t i = 0; i < idx.size(); ++i)
      valid = valid && idx[i] >= 0 && idx[i] < m && (i % n == 0 || idx[i] > idx[i - 1]);
  }
  CsrStructure s;
  const bool ok = expect_ok_or_error(kArgErrors, [&] {
    s = spx::plan::csr_from_nm(rows, cols, n, m, l, idx.data());
  });
  FUZZ_CHECK(ok == valid);
  if (!ok) return;
  const int64_t kc = cols / m * n;
  check_csr(s, rows, cols, rows * kc);
  for (int64_t i = 0; i < rows; ++i) {
    FUZZ_CHECK(s.row_ptr[i + 1] - s.row_ptr[i] == kc);
    for (int64_t q = 0; q < kc; ++q) {
      const int64_t e = s.row_ptr[i] + q;
      FUZZ_CHECK(s.slot[e] == i * kc + q);
      FUZZ_CHECK(s.col_ind[e] == (q / n) * m + idx[(i / l) * kc + q]);
      FUZZ_CHECK(q == 0 || s.col_ind[e] > s.col_ind[e - 1]);  // increasing within the row
    }
  }
}

void fuzz_ell(FuzzedDataProvider& in) {
  int64_t rows = in.ConsumeIntegralInRange<int>(0, kMaxRows);
  int64_t cols = in.ConsumeIntegralInRange<int>(0, kMaxCols);
  int64_t width = in.ConsumeIntegralInRange<int>(0, 10);
  std::vector<int32_t> col(static_cast<size_t>(rows * width));
  for (auto& c : col) c = in.ConsumeIntegralInRange<int>(0, 3) == 0 ? -1 : index_value(in, -1, static_cast<int32_t>(cols) - 1);
  if (in.ConsumeIntegralInRange<int>(0, 15) == 0) {  // a negative shape or width
    switch (in.ConsumeIntegralInRange<int>(0, 2)) {
      case 0: rows = -1; break;
      case 1: cols = -1; break;
      default: width = -1; break;
    }
  }
  const bool valid = rows >= 0 && cols >= 0 && width >= 0 &&
                     cols_ok(col, rows * width < 0 ? 0 : rows * width, -1, cols);
  CsrStructure s;
  const bool ok = expect_ok_or_error(kArgErrors, [&] {
    s = spx::plan::csr_from_ell(rows, cols, width, col.data());
  });
  FUZZ_CHECK(ok == valid);
  if (!ok) return;
  check_csr(s, rows, cols, rows * width);
  const std::vector<int64_t> row = entry_rows(s);
  int64_t real = 0;
  for (int32_t c : col) real += c != -1;
  FUZZ_CHECK(static_cast<int64_t>(s.col_ind.size()) == real);
  for (size_t e = 0; e < s.slot.size(); ++e) {
    FUZZ_CHECK(s.slot[e] % rows == row[e]);
    FUZZ_CHECK(s.col_ind[e] == col[static_cast<size_t>(s.slot[e])]);
  }
}

void fuzz_csr_to_ell(FuzzedDataProvider& in) {
  Structure a = decode_structure(in, {1}, kMaxRows, kMaxCols, kMaxEntries, false, true);
  a.cols = std::max<int64_t>(a.cols, 0);  // the host API checks cols >= 0 before the call
  std::vector<float> values(a.col.size());
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i) + 0.5f;
  const bool valid = a.cols >= 0 && row_ptr_ok(a.ptr, -1) &&
                     cols_ok(a.col, a.ptr.back(), 0, a.cols);
  spx::plan::EllF32 ell;
  const bool ok = expect_ok_or_error(kArgErrors, [&] {
    ell = spx::plan::csr_to_ell(a.rows, a.cols, a.ptr.data(), a.col.data(), values.data());
  });
  FUZZ_CHECK(ok == valid);
  if (!ok) return;
  int64_t width = 0;
  for (int64_t i = 0; i < a.rows; ++i) width = std::max<int64_t>(width, a.ptr[i + 1] - a.ptr[i]);
  FUZZ_CHECK(ell.rows == a.rows && ell.cols == a.cols && ell.ell_width == width);
  FUZZ_CHECK(ell.col_ind.size() == static_cast<size_t>(a.rows * width));
  FUZZ_CHECK(ell.values.size() == ell.col_ind.size());
  for (int64_t i = 0; i < a.rows; ++i) {
    // The row's entries by increasing column, stable for duplicates, then padding.
    std::vector<std::pair<int32_t, float>> want;
    for (int32_t e = a.ptr[i]; e < a.ptr[i + 1]; ++e) want.emplace_back(a.col[e], values[e]);
    std::stable_sort(want.begin(), want.end(),
                     [](const auto& x, const auto& y) { return x.first < y.first; });
    for (int64_t j = 0; j < width; ++j) {
      const size_t slot = static_cast<size_t>(i + j * a.rows);
      if (j < static_cast<int64_t>(want.size())) {
        FUZZ_CHECK(ell.col_ind[slot] == want[j].first && same_bits(ell.values[slot], want[j].second));
      } else {
        FUZZ_CHECK(ell.col_ind[slot] == -1 && same_bits(ell.values[slot], 0.0f));
      }
    }
  }
  // The result is a valid ELL structure with the same entries.
  const CsrStructure back = spx::plan::csr_from_ell(ell.rows, ell.cols, ell.ell_width, ell.col_ind.data());
  FUZZ_CHECK(static_cast<int64_t>(back.col_ind.size()) == a.ptr.back());
}

void fuzz_dilate(FuzzedDataProvider& in) {
  Structure a = decode_structure(in, {1}, kMaxRows, kMaxCols, kMaxEntries / 2, false, true);
  a.cols = std::max<int64_t>(a.cols, 0);  // the host API checks cols >= 0 and vec_len >= 1
  const int64_t v = in.ConsumeIntegralInRange<int>(1, 8);
  const bool valid = a.cols >= 0 && row_ptr_ok(a.ptr, -1) &&
                     cols_ok(a.col, a.ptr.back(), 0, a.cols);
  spx::plan::CsrPattern d;
  const bool ok = expect_ok_or_error(kArgErrors, [&] {
    d = spx::plan::dilate_csr(a.rows, a.cols, a.ptr.data(), a.col.data(), v);
  });
  FUZZ_CHECK(ok == valid);
  if (!ok) return;
  FUZZ_CHECK(d.rows == a.rows * v && d.cols == a.cols);
  FUZZ_CHECK(d.row_ptr.size() == static_cast<size_t>(d.rows) + 1);
  FUZZ_CHECK(row_ptr_ok(d.row_ptr, static_cast<int64_t>(d.col_ind.size())));
  for (int64_t i = 0; i < d.rows; ++i) {
    const int64_t src = i / v;
    FUZZ_CHECK(d.row_ptr[i + 1] - d.row_ptr[i] == a.ptr[src + 1] - a.ptr[src]);
    FUZZ_CHECK(std::equal(a.col.begin() + a.ptr[src], a.col.begin() + a.ptr[src + 1],
                          d.col_ind.begin() + d.row_ptr[i]));
  }
}

void fuzz_checks(FuzzedDataProvider& in) {
  // The checks themselves on raw arrays: they accept exactly what the rules say.
  const int64_t rows = in.ConsumeIntegralInRange<int>(0, kMaxRows);
  std::vector<int32_t> ptr(static_cast<size_t>(rows) + 1);
  for (auto& p : ptr) p = index_value(in, 0, 12);
  const int64_t nnz = in.ConsumeBool() ? -1 : int64_t{ptr.back()} + in.ConsumeIntegralInRange<int>(-1, 1);
  bool ok = expect_ok_or_error({SPX_STATUS_INVALID_VALUE},
                               [&] { spx::plan::check_row_ptr("row_ptr", rows, ptr.data(), nnz); });
  FUZZ_CHECK(ok == row_ptr_ok(ptr, nnz));
  const int32_t lo = index_value(in, -2, 4), hi = index_value(in, -2, 16);
  std::vector<int32_t> idx(static_cast<size_t>(in.ConsumeIntegralInRange<int>(0, 32)));
  for (auto& i : idx) i = index_value(in, -3, 20);
  ok = expect_ok_or_error({SPX_STATUS_INVALID_VALUE}, [&] {
    spx::plan::check_index_range("idx", static_cast<int64_t>(idx.size()), idx.data(), lo, hi);
  });
  FUZZ_CHECK(ok == cols_ok(idx, static_cast<int64_t>(idx.size()), lo, hi));
  const int64_t count = in.ConsumeIntegral<int64_t>();
  ok = expect_ok_or_error({SPX_STATUS_NOT_SUPPORTED},
                          [&] { spx::plan::check_fits_int32("count", count); });
  FUZZ_CHECK(ok == (count <= INT32_MAX));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  switch (in.ConsumeIntegralInRange<int>(0, 6)) {
    case 0: fuzz_csr(in); break;
    case 1: fuzz_bcrs(in); break;
    case 2: fuzz_nm(in); break;
    case 3: fuzz_ell(in); break;
    case 4: fuzz_csr_to_ell(in); break;
    case 5: fuzz_dilate(in); break;
    default: fuzz_checks(in); break;
  }
  return 0;
}
