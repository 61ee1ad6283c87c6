#include "formats/to_csr.hpp"

#include <cstddef>

#include "runtime/error.hpp"
#include "formats/structure_checks.hpp"

namespace spx::plan {
namespace {

using ll = long long;

void check_shape(int64_t rows, int64_t cols) {
  SPX_CHECK_ARG(rows >= 0 && cols >= 0, "the matrix shape %lld x %lld is negative", ll(rows),
                ll(cols));
}

CsrStructure start(int64_t rows, int64_t cols, int64_t nnz) {
  check_fits_int32("the number of stored entries", nnz);
  CsrStructure out;
  out.rows = rows;
  out.cols = cols;
  out.row_ptr.reserve(static_cast<size_t>(rows) + 1);
  out.row_ptr.push_back(0);
  out.col_ind.reserve(static_cast<size_t>(nnz));
  out.slot.reserve(static_cast<size_t>(nnz));
  return out;
}

void add(CsrStructure* out, int64_t col, int64_t slot) {
  out->col_ind.push_back(static_cast<int32_t>(col));
  out->slot.push_back(slot);
}

void end_row(CsrStructure* out) {
  out->row_ptr.push_back(static_cast<int32_t>(out->col_ind.size()));
}

}  // namespace

CsrStructure csr_from_csr(int64_t rows, int64_t cols, int64_t nnz, const int32_t* row_ptr,
                          const int32_t* col_ind) {
  check_shape(rows, cols);
  SPX_CHECK_ARG(nnz >= 0, "nnz (%lld) must be >= 0", ll(nnz));
  check_row_ptr("row_ptr", rows, row_ptr, nnz);
  check_index_range("col_ind", nnz, col_ind, 0, cols);
  CsrStructure out = start(rows, cols, nnz);
  out.row_ptr.assign(row_ptr, row_ptr + rows + 1);
  out.col_ind.assign(col_ind, col_ind + nnz);
  for (int64_t e = 0; e < nnz; ++e) out.slot.push_back(e);
  return out;
}

CsrStructure csr_from_bcrs(int64_t rows, int64_t cols, int64_t vec_len, int64_t num_vectors,
                           const int32_t* block_row_ptr, const int32_t* block_col) {
  check_shape(rows, cols);
  SPX_CHECK_ARG(vec_len >= 1, "vec_len (%lld) must be positive", ll(vec_len));
  SPX_CHECK_ARG(rows % vec_len == 0, "rows (%lld) must be a multiple of vec_len (%lld)", ll(rows),
                ll(vec_len));
  SPX_CHECK_ARG(num_vectors >= 0, "num_vectors (%lld) must be >= 0", ll(num_vectors));
  const int64_t block_rows = rows / vec_len;
  check_row_ptr("block_row_ptr", block_rows, block_row_ptr, num_vectors);
  check_index_range("block_col", num_vectors, block_col, 0, cols);
  CsrStructure out = start(rows, cols, num_vectors * vec_len);
  for (int64_t b = 0; b < block_rows; ++b) {
    for (int64_t r = 0; r < vec_len; ++r) {
      for (int64_t j = block_row_ptr[b]; j < block_row_ptr[b + 1]; ++j) {
        add(&out, block_col[j], j * vec_len + r);
      }
      end_row(&out);
    }
  }
  return out;
}

CsrStructure csr_from_nm(int64_t rows, int64_t cols, int64_t n, int64_t m, int64_t l,
                         const int32_t* indices) {
  check_shape(rows, cols);
  SPX_CHECK_ARG(n >= 1 && m >= 1 && l >= 1, "N (%lld), M (%lld) and L (%lld) must be positive",
                ll(n), ll(m), ll(l));
  SPX_CHECK_ARG(n <= m, "N (%lld) must be <= M (%lld)", ll(n), ll(m));
  SPX_CHECK_ARG(cols % m == 0, "cols (%lld) must be a multiple of M (%lld)", ll(cols), ll(m));
  SPX_CHECK_ARG(rows % l == 0, "rows (%lld) must be a multiple of L (%lld)", ll(rows), ll(l));
  const int64_t kc = cols / m * n;
  const int64_t count = rows / l * kc;
  for (int64_t i = 0; i < count; ++i) {
    SPX_CHECK_ARG(indices[i] >= 0 && indices[i] < m, "indices[%lld] = %d is outside [0, %lld)",
                  ll(i), indices[i], ll(m));
    // i % n == 0 starts a window (kc is a multiple of n, so windows never straddle rows).
    SPX_CHECK_ARG(i % n == 0 || indices[i] > indices[i - 1],
                  "indices[%lld] = %d is not greater than indices[%lld] = %d in the same window",
                  ll(i), indices[i], ll(i - 1), indices[i - 1]);
  }
  CsrStructure out = start(rows, cols, rows * kc);
  for (int64_t i = 0; i < rows; ++i) {
    const int32_t* group = indices + (i / l) * kc;
    for (int64_t q = 0; q < kc; ++q) add(&out, (q / n) * m + group[q], i * kc + q);
    end_row(&out);
  }
  return out;
}

CsrStructure csr_from_ell(int64_t rows, int64_t cols, int64_t ell_width, const int32_t* col_ind) {
  check_shape(rows, cols);
  SPX_CHECK_ARG(ell_width >= 0, "ell_width (%lld) must be >= 0", ll(ell_width));
  check_index_range("col_ind", rows * ell_width, col_ind, -1, cols);
  int64_t real = 0;
  for (int64_t s = 0; s < rows * ell_width; ++s) real += col_ind[s] != -1;
  CsrStructure out = start(rows, cols, real);
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < ell_width; ++j) {
      const int64_t slot = i + j * rows;
      if (col_ind[slot] != -1) add(&out, col_ind[slot], slot);
    }
    end_row(&out);
  }
  return out;
}

}  // namespace spx::plan
