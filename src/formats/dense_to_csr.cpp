#include "formats/dense_to_csr.hpp"

#include <cstddef>

#include "formats/structure_checks.hpp"

namespace spx::plan {

CsrF32 dense_to_csr(const DenseView& a) {
  CsrF32 out;
  out.rows = a.rows;
  out.cols = a.cols;
  out.row_ptr.reserve(static_cast<size_t>(a.rows) + 1);
  out.row_ptr.push_back(0);
  for (int64_t r = 0; r < a.rows; ++r) {
    for (int64_t c = 0; c < a.cols; ++c) {
      const float v = a.at(r, c);
      if (v != 0.0f) {  // true for NaN too
        out.col_ind.push_back(static_cast<int32_t>(c));
        out.values.push_back(v);
      }
    }
    check_fits_int32("the number of nonzeros", static_cast<int64_t>(out.col_ind.size()));
    out.row_ptr.push_back(static_cast<int32_t>(out.col_ind.size()));
  }
  return out;
}

}  // namespace spx::plan
