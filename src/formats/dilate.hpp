// Dilation of a CSR structure to V x 1 vectors (how DLMC matrices are turned into
// vector-sparse ones): row i becomes rows i*V .. i*V+V-1, each with row i's columns.
#pragma once

#include <cstdint>

#include "formats/host_formats.hpp"

namespace spx::plan {

/// The (rows * vec_len) x cols CSR structure. row_ptr and the column range [0, cols) are
/// validated (INVALID_VALUE).
CsrPattern dilate_csr(int64_t rows, int64_t cols, const int32_t* row_ptr, const int32_t* col_ind,
                      int64_t vec_len);

}  // namespace spx::plan
