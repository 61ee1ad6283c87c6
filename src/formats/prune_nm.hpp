// Magnitude pruning of a dense fp32 matrix to vector-wise N:M (the NM-SpMM format): rows are
// grouped in vectors of l rows; in every window of m consecutive columns the group keeps the
// same n columns for all its rows.
#pragma once

#include <cstdint>

#include "formats/dense_view.hpp"
#include "formats/host_formats.hpp"

namespace spx::plan {

/// For each (group, window) keeps the n columns whose L2 norm over the group's l rows is the
/// largest; equal norms keep the lower column; NaN ranks above every number. Kept positions are
/// stored increasing within their window; values of the kept columns are copied as they are
/// (zeros included). Requires 1 <= n <= m, l >= 1, cols % m == 0, rows % l == 0
/// (INVALID_VALUE otherwise).
NmF32 prune_nm(const DenseView& a, int64_t n, int64_t m, int64_t l);

}  // namespace spx::plan
