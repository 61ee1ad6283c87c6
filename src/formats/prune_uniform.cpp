// Uniform pruning: the algorithm is spelled out in prune_uniform.hpp.
#include "formats/prune_uniform.hpp"

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <vector>

#include "runtime/error.hpp"
#include "formats/magnitude.hpp"

namespace spx::plan {
namespace {

// Step 1 for one row: its columns ordered by decreasing magnitude, lower column first on ties.
void sort_row(const DenseView& a, int64_t r, std::vector<int32_t>* order) {
  std::iota(order->begin(), order->end(), 0);
  std::stable_sort(order->begin(), order->end(), [&](int32_t x, int32_t y) {
    return magnitude_key(a.at(r, x)) > magnitude_key(a.at(r, y));
  });
}

}  // namespace

EllF32 prune_uniform(const DenseView& a, int64_t ell_width) {
  SPX_CHECK_ARG(ell_width >= 1 && ell_width <= a.cols,
                "ell_width (%lld) must be in [1, cols (%lld)]", static_cast<long long>(ell_width),
                static_cast<long long>(a.cols));
  const size_t cols = static_cast<size_t>(a.cols);
  std::vector<int32_t> order(cols);

  // Steps 1 + 2: squared scores (sqrt would not change the ranking) of the sorted columns. The
  // sorted rows are not kept, to stay O(cols) in memory: step 4 sorts each row again.
  std::vector<double> score2(cols, 0.0);
  for (int64_t r = 0; r < a.rows; ++r) {
    sort_row(a, r, &order);
    for (size_t k = 0; k < cols; ++k) score2[k] += squared_key(a.at(r, order[k]));
  }

  // Step 3: the ell_width best sorted columns, highest score first, lower k on ties.
  std::vector<int32_t> rank(cols);
  std::iota(rank.begin(), rank.end(), 0);
  std::stable_sort(rank.begin(), rank.end(),
                   [&](int32_t x, int32_t y) { return score2[x] > score2[y]; });
  std::vector<int32_t> kept(rank.begin(), rank.begin() + ell_width);

  // Step 4: scatter back, columns increasing within each row, column-major ELL.
  EllF32 out;
  out.rows = a.rows;
  out.cols = a.cols;
  out.ell_width = ell_width;
  out.col_ind.resize(static_cast<size_t>(a.rows * ell_width));
  out.values.resize(out.col_ind.size());
  std::vector<int32_t> columns(static_cast<size_t>(ell_width));
  for (int64_t r = 0; r < a.rows; ++r) {
    sort_row(a, r, &order);
    for (int64_t j = 0; j < ell_width; ++j) columns[j] = order[kept[j]];
    std::sort(columns.begin(), columns.end());
    for (int64_t j = 0; j < ell_width; ++j) {
      out.col_ind[r + j * a.rows] = columns[j];
      out.values[r + j * a.rows] = a.at(r, columns[j]);
    }
  }
  return out;
}

}  // namespace spx::plan
