// Structure of any user format as CSR, for the fallback plan: one generic kernel runs over a
// CSR copy of every input. Each function validates the structure it reads (throwing
// spx::Error(SPX_STATUS_INVALID_VALUE) with one sentence naming the first bad position and
// value) and records, for every CSR entry, where its value lives in the user's values array,
// so values can be gathered again without redoing the structure (spxPlanUpdateValues).
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/host_vector.hpp"

namespace spx::plan {

struct CsrStructure {
  int64_t rows = 0, cols = 0;
  std::vector<int32_t> row_ptr;  ///< rows + 1
  HostVector<int32_t> col_ind;   ///< one per entry; each row keeps the user's entry order
  HostVector<int64_t> slot;      ///< slot[e] = index of entry e's value in the user's values
};

/// CSR: row_ptr[0] == 0, non-decreasing, row_ptr[rows] == nnz; columns in [0, cols) (unsorted
/// and duplicate columns allowed). slot[e] = e.
CsrStructure csr_from_csr(int64_t rows, int64_t cols, int64_t nnz, const int32_t* row_ptr,
                          const int32_t* col_ind);

/// BCRS(V): block_row_ptr over rows / vec_len vector-rows ending at num_vectors; block_col in
/// [0, cols). Vector j of vector-row b gives one entry in each row b*V + r, slot j*V + r.
CsrStructure csr_from_bcrs(int64_t rows, int64_t cols, int64_t vec_len, int64_t num_vectors,
                           const int32_t* block_row_ptr, const int32_t* block_col);

/// Vector-wise N:M: indices[(rows / l) x kc], kc = cols / m * n, in [0, m) and strictly
/// increasing within each window. Entry (row i, q) is column (q / n) * m + index, slot i*kc + q.
CsrStructure csr_from_nm(int64_t rows, int64_t cols, int64_t n, int64_t m, int64_t l,
                         const int32_t* indices);

/// ELL: col_ind[rows x ell_width] column-major with values in [-1, cols); -1 is padding and
/// gives no entry. Slot j of row i gives slot i + j * rows.
CsrStructure csr_from_ell(int64_t rows, int64_t cols, int64_t ell_width, const int32_t* col_ind);

}  // namespace spx::plan
