// Validation of user-supplied index arrays. Each check throws spx::Error(INVALID_VALUE) with one
// sentence naming the first bad position and its value, so the user can find it in their data.
#pragma once

#include <cstdint>

namespace spx::plan {

/// row_ptr[0] == 0, non-decreasing, and row_ptr[rows] == nnz when nnz >= 0 (nnz < 0: unchecked).
/// `name` is the array's name in messages ("row_ptr", "block_row_ptr").
void check_row_ptr(const char* name, int64_t rows, const int32_t* row_ptr, int64_t nnz);

/// Every idx[i], i < count, lies in [lo, hi).
void check_index_range(const char* name, int64_t count, const int32_t* idx, int64_t lo, int64_t hi);

/// Throws NOT_SUPPORTED when `count` entries do not fit the int32 indices of the formats.
void check_fits_int32(const char* what, int64_t count);

}  // namespace spx::plan
