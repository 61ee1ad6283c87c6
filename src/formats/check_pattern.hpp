// Pattern checks on dense fp32 matrices: does the matrix already fit a format without pruning?
// A value counts as a nonzero when it compares unequal to 0 (NaN included).
#pragma once

#include <cstdint>

#include "formats/dense_view.hpp"

namespace spx::plan {

/// True when every group of l rows uses at most n distinct columns in every window of m
/// columns (a column is used when any row of the group is nonzero there). Requires n >= 0,
/// m >= 1, l >= 1, cols % m == 0, rows % l == 0 (INVALID_VALUE otherwise).
bool fits_nm(const DenseView& a, int64_t n, int64_t m, int64_t l);

/// True when no row has more than ell_width nonzeros.
bool fits_uniform(const DenseView& a, int64_t ell_width);

}  // namespace spx::plan
