#include "formats/convert_values.hpp"

#include <cstring>

#include "runtime/dtype.hpp"
#include "runtime/error.hpp"

namespace spx::plan {

void convert_values(int64_t count, const float* src, spxDataType_t type, void* dst) {
  SPX_CHECK_ARG(dtype::is_valid(type), "type (%d) is not a valid spxDataType_t", int(type));
  // Nibble stores keep the neighbouring nibble: start from zeros so the padding nibble is 0.
  if (dtype::bits(type) == 4) std::memset(dst, 0, dtype::storage_bytes(type, count));
  for (int64_t i = 0; i < count; ++i) dtype::store_double(dst, type, i, src[i]);
}

}  // namespace spx::plan
