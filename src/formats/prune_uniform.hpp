// Pruning of a dense fp32 matrix to uniform sparsity (every row keeps the same number of
// entries), after the column l2 aggregation of "Uniform Sparsity in Deep Neural Networks":
//
//   1. Sort.      Order each row's entries by decreasing magnitude (equal magnitudes: lower
//                 column first; NaN ranks above every number). Position k of row i is now the
//                 row's k-th largest entry; the positions form "sorted columns" 0 .. cols-1,
//                 each holding exactly one entry of every row.
//   2. Aggregate. Score sorted column k by the l2 norm of its entries over all rows:
//                 score[k] = sqrt(sum_i |a(i, sorted_i[k])|^2).
//   3. Threshold. Keep the ell_width sorted columns with the highest score (equal scores: the
//                 lower k), drop the others. Dropping whole sorted columns removes the same
//                 number of entries from every row, which is what makes the result uniform.
//                 The paper derives the cut from a network-wide magnitude threshold; here the
//                 caller gives the count, ell_width, directly.
//   4. Scatter.   Each row's kept entries go back to their original columns, stored in
//                 increasing column order in the ELL slots 0 .. ell_width-1 of the row.
//
// Because step 1 sorts every row in decreasing order, score[k] never increases with k, so step 3
// keeps k = 0 .. ell_width-1: each row keeps its ell_width largest-magnitude entries. The steps
// are still carried out literally so the code reads as the algorithm it implements.
// Rows with fewer than ell_width nonzeros keep some zeros as real (explicit-zero) entries: every
// row has exactly ell_width stored columns and the result has no padding.
#pragma once

#include <cstdint>

#include "formats/dense_view.hpp"
#include "formats/host_formats.hpp"

namespace spx::plan {

/// Requires 1 <= ell_width <= cols (INVALID_VALUE otherwise). Output in the spxCreateEll layout.
EllF32 prune_uniform(const DenseView& a, int64_t ell_width);

}  // namespace spx::plan
