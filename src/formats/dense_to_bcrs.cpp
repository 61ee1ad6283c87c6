#include "formats/dense_to_bcrs.hpp"

#include <cstddef>

#include "runtime/error.hpp"
#include "formats/structure_checks.hpp"

namespace spx::plan {

BcrsF32 dense_to_bcrs(const DenseView& a, int64_t vec_len) {
  SPX_CHECK_ARG(vec_len >= 1 && a.rows % vec_len == 0,
                "rows (%lld) must be a multiple of vec_len (%lld)", static_cast<long long>(a.rows),
                static_cast<long long>(vec_len));
  BcrsF32 out;
  out.rows = a.rows;
  out.cols = a.cols;
  out.vec_len = vec_len;
  const int64_t block_rows = a.rows / vec_len;
  out.block_row_ptr.reserve(static_cast<size_t>(block_rows) + 1);
  out.block_row_ptr.push_back(0);
  for (int64_t b = 0; b < block_rows; ++b) {
    for (int64_t c = 0; c < a.cols; ++c) {
      bool any = false;
      for (int64_t r = 0; r < vec_len && !any; ++r) any = a.at(b * vec_len + r, c) != 0.0f;
      if (!any) continue;
      out.block_col.push_back(static_cast<int32_t>(c));
      for (int64_t r = 0; r < vec_len; ++r) out.values.push_back(a.at(b * vec_len + r, c));
    }
    check_fits_int32("the number of stored values", static_cast<int64_t>(out.values.size()));
    out.block_row_ptr.push_back(static_cast<int32_t>(out.block_col.size()));
  }
  return out;
}

}  // namespace spx::plan
