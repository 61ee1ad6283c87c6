// Which numbers of columns n an SpMM plan prepares a decision for (SPX_PLAN_OPTION_MAX_N). Plain
// C++: the plan and the CPU tests.
#pragma once

#include <cstdint>
#include <vector>

namespace spx::engine {

/// The largest n prepared when the caller asked for any n (-1): larger n runs in column slices
/// of the largest prepared size, which keeps the workspace bounded (a column-major B's transpose
/// and split partial sums grow with n) while each slice is still a large, efficient product.
constexpr int64_t kUnboundedPreparedN = 4096;

/// The bound an execute checks n against: the analyzed n for option 0, the option's value when
/// positive, -1 (any n) for -1. Throws INVALID_VALUE for a positive bound below the analyzed n.
int64_t resolve_max_n(int64_t analyzed_n, int32_t option);

/// The prepared sizes, ascending and distinct: every power of two below the largest prepared n,
/// the analyzed n and the largest prepared n (the bound, or max(analyzed n, 4096) for any n).
/// An execute with n runs the decision of the smallest prepared size >= n. The analyzed n is
/// always one of them, 0 included (an empty product analyzed with a bound: 0, then the powers
/// of two up to the bound).
std::vector<int64_t> prepared_sizes(int64_t analyzed_n, int64_t max_n);

}  // namespace spx::engine
