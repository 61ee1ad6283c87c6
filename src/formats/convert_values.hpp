// fp32 values -> any element type, as the library's kernels will read them.
#pragma once

#include <cstdint>

#include "spx/spx_types.h"

namespace spx::plan {

/// Writes count values to dst (storage_bytes(type, count) bytes, all of them written: the
/// unused high nibble of an odd-length 4-bit array is 0). 16F/16BF round to nearest even;
/// integer types round to nearest (ties to even) and saturate, NaN -> 0. INVALID_VALUE for an
/// invalid type.
void convert_values(int64_t count, const float* src, spxDataType_t type, void* dst);

}  // namespace spx::plan
