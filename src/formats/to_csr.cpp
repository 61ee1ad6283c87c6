#include "formats/to_csr.hpp"

#include <algorithm>
#include <cstddef>

#include "runtime/error.hpp"
#include "runtime/parallel.hpp"
#include "formats/structure_checks.hpp"

namespace spx::plan {
namespace {

using ll = long long;

void check_shape(int64_t rows, int64_t cols) {
  SPX_CHECK_ARG(rows >= 0 && cols >= 0, "the matrix shape %lld x %lld is negative", ll(rows),
                ll(cols));
}

/// The CSR of `rows` rows of the given lengths, arrays sized (to be filled row by row).
CsrStructure start(int64_t rows, int64_t cols, const std::vector<int32_t>& len) {
  CsrStructure out;
  out.rows = rows;
  out.cols = cols;
  out.row_ptr.resize(static_cast<size_t>(rows) + 1);
  int64_t nnz = 0;
  out.row_ptr[0] = 0;
  for (int64_t r = 0; r < rows; ++r) {
    nnz += len[static_cast<size_t>(r)];
    check_fits_int32("the number of stored entries", nnz);
    out.row_ptr[r + 1] = static_cast<int32_t>(nnz);
  }
  out.col_ind.resize(static_cast<size_t>(nnz));
  out.slot.resize(static_cast<size_t>(nnz));
  return out;
}

/// Rows per chunk of the parallel row loops (each row writes its own entries).
constexpr int64_t kRowGrain = 256;

}  // namespace

CsrStructure csr_from_csr(int64_t rows, int64_t cols, int64_t nnz, const int32_t* row_ptr,
                          const int32_t* col_ind) {
  check_shape(rows, cols);
  SPX_CHECK_ARG(nnz >= 0, "nnz (%lld) must be >= 0", ll(nnz));
  check_row_ptr("row_ptr", rows, row_ptr, nnz);
  check_index_range("col_ind", nnz, col_ind, 0, cols);
  check_fits_int32("the number of stored entries", nnz);
  CsrStructure out;
  out.rows = rows;
  out.cols = cols;
  out.row_ptr.assign(row_ptr, row_ptr + rows + 1);
  out.col_ind.resize(static_cast<size_t>(nnz));
  out.slot.resize(static_cast<size_t>(nnz));
  parallel::for_chunks(nnz, int64_t{1} << 16, [&](int64_t b, int64_t e) {
    std::copy(col_ind + b, col_ind + e, out.col_ind.begin() + b);
    for (int64_t i = b; i < e; ++i) out.slot[static_cast<size_t>(i)] = i;
  });
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
  check_fits_int32("the number of stored entries", num_vectors * vec_len);
  std::vector<int32_t> len(static_cast<size_t>(rows));
  for (int64_t i = 0; i < rows; ++i)
    len[static_cast<size_t>(i)] = block_row_ptr[i / vec_len + 1] - block_row_ptr[i / vec_len];
  CsrStructure out = start(rows, cols, len);
  parallel::for_chunks(rows, kRowGrain, [&](int64_t r0, int64_t r1) {
    for (int64_t i = r0; i < r1; ++i) {
      const int64_t b = i / vec_len, r = i % vec_len;
      int64_t at = out.row_ptr[i];
      for (int64_t j = block_row_ptr[b]; j < block_row_ptr[b + 1]; ++j, ++at) {
        out.col_ind[static_cast<size_t>(at)] = block_col[j];
        out.slot[static_cast<size_t>(at)] = j * vec_len + r;
      }
    }
  });
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
  // In parallel chunks; the lowest chunk's error is the first bad index (runtime/parallel.hpp).
  parallel::for_chunks(count, int64_t{1} << 16, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      SPX_CHECK_ARG(indices[i] >= 0 && indices[i] < m, "indices[%lld] = %d is outside [0, %lld)",
                    ll(i), indices[i], ll(m));
      // i % n == 0 starts a window (kc is a multiple of n, so windows never straddle rows).
      SPX_CHECK_ARG(i % n == 0 || indices[i] > indices[i - 1],
                    "indices[%lld] = %d is not greater than indices[%lld] = %d in the same window",
                    ll(i), indices[i], ll(i - 1), indices[i - 1]);
    }
  });
  check_fits_int32("the number of stored entries", rows * kc);
  CsrStructure out = start(rows, cols, std::vector<int32_t>(static_cast<size_t>(rows),
                                                            static_cast<int32_t>(kc)));
  parallel::for_chunks(rows, kRowGrain, [&](int64_t r0, int64_t r1) {
    for (int64_t i = r0; i < r1; ++i) {
      const int32_t* group = indices + (i / l) * kc;
      for (int64_t q = 0; q < kc; ++q) {
        out.col_ind[static_cast<size_t>(i * kc + q)] = static_cast<int32_t>((q / n) * m + group[q]);
        out.slot[static_cast<size_t>(i * kc + q)] = i * kc + q;
      }
    }
  });
  return out;
}

CsrStructure csr_from_ell(int64_t rows, int64_t cols, int64_t ell_width, const int32_t* col_ind) {
  check_shape(rows, cols);
  SPX_CHECK_ARG(ell_width >= 0, "ell_width (%lld) must be >= 0", ll(ell_width));
  check_index_range("col_ind", rows * ell_width, col_ind, -1, cols);
  // Row lengths, rows in blocks so that the column-major reads run along memory.
  std::vector<int32_t> len(static_cast<size_t>(rows), 0);
  parallel::for_chunks(rows, kRowGrain, [&](int64_t r0, int64_t r1) {
    for (int64_t j = 0; j < ell_width; ++j)
      for (int64_t i = r0; i < r1; ++i) len[static_cast<size_t>(i)] += col_ind[i + j * rows] != -1;
  });
  int64_t real = 0;
  for (int32_t x : len) real += x;
  check_fits_int32("the number of stored entries", real);
  CsrStructure out = start(rows, cols, len);
  parallel::for_chunks(rows, kRowGrain, [&](int64_t r0, int64_t r1) {
    std::vector<int64_t> at(out.row_ptr.begin() + r0, out.row_ptr.begin() + r1);
    for (int64_t j = 0; j < ell_width; ++j)
      for (int64_t i = r0; i < r1; ++i) {
        const int64_t slot = i + j * rows;
        if (col_ind[slot] == -1) continue;
        const size_t e = static_cast<size_t>(at[static_cast<size_t>(i - r0)]++);
        out.col_ind[e] = col_ind[slot];
        out.slot[e] = slot;
      }
  });
  return out;
}

}  // namespace spx::plan
