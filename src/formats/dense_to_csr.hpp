// Dense fp32 -> CSR, keeping every nonzero (NaN counts as nonzero; +0 and -0 are dropped).
#pragma once

#include "formats/dense_view.hpp"
#include "formats/host_formats.hpp"

namespace spx::plan {

/// Columns increase within a row. NOT_SUPPORTED if nnz exceeds the int32 range.
CsrF32 dense_to_csr(const DenseView& a);

}  // namespace spx::plan
