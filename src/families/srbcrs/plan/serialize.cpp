#include "families/srbcrs/plan/serialize.hpp"

#include "runtime/dtype.hpp"

namespace spx::plan {

void SrbcrsRecord::validate(const char* what) const {
  using serial::expect;
  using serial::mul;
  constexpr int64_t kDim = int64_t{1} << 31;
  expect(dtype::is_valid(a_type) && dtype::is_integer(a_type) && a_type != SPX_R_32I, what,
         "SR-BCRS a_type", "is not an integer input type");
  for (const int64_t v : {m, k, vector_rows, slots, stats_vector_rows, stats_num_vectors,
                          stats_slots32, stats_slots64})
    expect(v >= 0 && v <= kDim, what, "SR-BCRS size", "is out of range");
  expect(vec_len >= 1 && vec_len <= 16 && vector_rows * vec_len == m, what, "SR-BCRS vec_len",
         "does not divide the rows into vector rows");
  expect((stride == 32 || stride == 64) && slots % stride == 0, what, "SR-BCRS stride",
         "is not 32 or 64 dividing the slots");
  expect(row_ptr.bytes == mul(2 * vector_rows + 1, 4), what, "SR-BCRS row_ptr",
         "does not hold 2 x vector_rows + 1 int32");
  expect(col.bytes == mul(slots, 4) && vec_map.bytes == mul(slots, 4), what, "SR-BCRS col",
         "and vec_map do not hold one int32 per slot");
  expect(values.bytes == dtype::storage_bytes(a_type, slots * vec_len), what, "SR-BCRS values",
         "does not hold slots x vec_len values of a_type");
}

}  // namespace spx::plan
