#include "families/dense/plan/serialize.hpp"

#include "runtime/dtype.hpp"

namespace spx::plan {

void DenseRecord::validate(const char* what) const {
  using serial::expect;
  using serial::mul;
  expect(type == SPX_R_32F || type == SPX_R_16F || type == SPX_R_16BF, what, "dense type",
         "is not 32F, 16F or 16BF");
  expect(rows >= 0 && cols >= 0 && rows <= INT32_MAX && cols <= INT32_MAX, what, "dense shape",
         "is out of range");
  expect(entries >= 0 && static_cast<uint64_t>(entries) <= mul(rows, cols), what,
         "dense entries", "exceed rows x cols");
  expect(pos.bytes == mul(entries, 8) && slot.bytes == mul(entries, 8), what, "dense map",
         "does not hold two int64 per entry");
  expect(dense.bytes == mul(mul(rows, cols), dtype::storage_bytes(type, 1)), what,
         "dense values", "do not hold rows x cols elements");
}

}  // namespace spx::plan
