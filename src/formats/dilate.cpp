#include "formats/dilate.hpp"

#include <cstddef>

#include "formats/structure_checks.hpp"

namespace spx::plan {

CsrPattern dilate_csr(int64_t rows, int64_t cols, const int32_t* row_ptr, const int32_t* col_ind,
                      int64_t vec_len) {
  check_row_ptr("row_ptr", rows, row_ptr, -1);
  const int64_t nnz = row_ptr[rows];
  check_index_range("col_ind", nnz, col_ind, 0, cols);
  check_fits_int32("rows * vec_len", rows * vec_len);
  check_fits_int32("nnz * vec_len", nnz * vec_len);

  CsrPattern out;
  out.rows = rows * vec_len;
  out.cols = cols;
  out.row_ptr.reserve(static_cast<size_t>(out.rows) + 1);
  out.col_ind.reserve(static_cast<size_t>(nnz * vec_len));
  out.row_ptr.push_back(0);
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t r = 0; r < vec_len; ++r) {
      out.col_ind.insert(out.col_ind.end(), col_ind + row_ptr[i], col_ind + row_ptr[i + 1]);
      out.row_ptr.push_back(static_cast<int32_t>(out.col_ind.size()));
    }
  }
  return out;
}

}  // namespace spx::plan
