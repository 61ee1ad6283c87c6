// CSR (fp32 values) -> ELL with padding: ell_width is the longest row; a shorter row's unused
// slots get column -1 and value 0.
#pragma once

#include <cstdint>

#include "formats/host_formats.hpp"

namespace spx::plan {

/// row_ptr is validated and columns must lie in [0, cols) (INVALID_VALUE). Each row's entries
/// are stored in increasing column order (stable for duplicates), as spxCreateEll requires.
EllF32 csr_to_ell(int64_t rows, int64_t cols, const int32_t* row_ptr, const int32_t* col_ind,
                  const float* values);

}  // namespace spx::plan
