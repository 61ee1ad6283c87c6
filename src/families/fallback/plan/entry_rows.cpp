#include "families/fallback/plan/entry_rows.hpp"

namespace spx::plan {

std::vector<int32_t> entry_rows(const CsrStructure& csr) {
  std::vector<int32_t> rows(csr.col_ind.size());
  for (int64_t r = 0; r < csr.rows; ++r)
    for (int32_t e = csr.row_ptr[r]; e < csr.row_ptr[r + 1]; ++e) rows[e] = static_cast<int32_t>(r);
  return rows;
}

}  // namespace spx::plan
