#include "formats/csr_to_ell.hpp"

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <vector>

#include "runtime/error.hpp"
#include "formats/structure_checks.hpp"

namespace spx::plan {

EllF32 csr_to_ell(int64_t rows, int64_t cols, const int32_t* row_ptr, const int32_t* col_ind,
                  const float* values) {
  check_row_ptr("row_ptr", rows, row_ptr, -1);
  const int64_t nnz = row_ptr[rows];
  check_index_range("col_ind", nnz, col_ind, 0, cols);
  int64_t width = 0;
  for (int64_t i = 0; i < rows; ++i) width = std::max<int64_t>(width, row_ptr[i + 1] - row_ptr[i]);

  EllF32 out;
  out.rows = rows;
  out.cols = cols;
  out.ell_width = width;
  out.col_ind.assign(static_cast<size_t>(rows * width), -1);
  out.values.assign(out.col_ind.size(), 0.0f);
  std::vector<int32_t> order;
  for (int64_t i = 0; i < rows; ++i) {
    order.resize(static_cast<size_t>(row_ptr[i + 1] - row_ptr[i]));
    std::iota(order.begin(), order.end(), row_ptr[i]);
    std::stable_sort(order.begin(), order.end(),
                     [&](int32_t x, int32_t y) { return col_ind[x] < col_ind[y]; });
    for (size_t j = 0; j < order.size(); ++j) {
      out.col_ind[i + j * rows] = col_ind[order[j]];
      out.values[i + j * rows] = values[order[j]];
    }
  }
  return out;
}

}  // namespace spx::plan
