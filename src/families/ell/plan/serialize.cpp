#include "families/ell/plan/serialize.hpp"

namespace spx::plan {

void EllRecord::validate(const char* what) const {
  using serial::expect;
  using serial::mul;
  constexpr int64_t kDim = int64_t{1} << 31;
  for (const int64_t v : {rows, cols, width, nnz, overflow, stride, slots, alloc_slots})
    expect(v >= 0 && v <= kDim * 64, what, "ELL size", "is out of range");
  expect(rows <= kDim && cols <= kDim && width <= stride && stride % 8 == 0, what, "ELL shape",
         "is not an ELL layout (width <= stride, stride a multiple of 8)");
  expect(static_cast<uint64_t>(slots) == mul(rows, stride) + overflow && alloc_slots >= slots &&
             overflow <= nnz,
         what, "ELL slots", "do not add up (rows x stride + overflow <= alloc_slots)");
  expect(values.bytes == mul(alloc_slots, half ? 2 : 4), what, "ELL values",
         "does not hold alloc_slots values");
  expect(indices.bytes == mul(alloc_slots, index16 ? 2 : 4), what, "ELL indices",
         "does not hold alloc_slots indices");
  expect(slot_map.bytes == mul(alloc_slots, 4), what, "ELL slot_map",
         "does not hold alloc_slots entries");
  expect(row_len.bytes == mul(rows, 4), what, "ELL row_len", "does not hold one int32 per row");
  expect(tail_ptr.bytes == (overflow > 0 ? mul(rows + 1, 4) : 0), what, "ELL tail_ptr",
         "does not hold rows + 1 int32 (or nothing without overflow)");
}

}  // namespace spx::plan
