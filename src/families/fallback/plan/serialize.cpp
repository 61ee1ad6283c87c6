#include "families/fallback/plan/serialize.hpp"

namespace spx::plan {

void FallbackRecord::validate(const char* what) const {
  using serial::expect;
  using serial::mul;
  expect(rows >= 0 && rows <= INT32_MAX && nnz >= 0 && nnz <= (int64_t{1} << 40), what,
         "fallback size", "is out of range");
  expect(row_ptr.bytes == mul(rows + 1, 4), what, "fallback row_ptr", "does not hold rows + 1 int32");
  expect(col_ind.bytes == mul(nnz, 4) && values.bytes == mul(nnz, 4), what, "fallback col_ind",
         "and values do not hold nnz entries");
  expect(slot.bytes == mul(nnz, 8), what, "fallback slot", "does not hold nnz int64");
}

}  // namespace spx::plan
