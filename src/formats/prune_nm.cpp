#include "formats/prune_nm.hpp"

#include <algorithm>
#include <cstddef>
#include <numeric>
#include <vector>

#include "runtime/error.hpp"
#include "formats/magnitude.hpp"

namespace spx::plan {

NmF32 prune_nm(const DenseView& a, int64_t n, int64_t m, int64_t l) {
  SPX_CHECK_ARG(n >= 1 && m >= 1 && l >= 1, "N (%lld), M (%lld) and L (%lld) must be positive",
                static_cast<long long>(n), static_cast<long long>(m), static_cast<long long>(l));
  SPX_CHECK_ARG(n <= m, "N (%lld) must be <= M (%lld)", static_cast<long long>(n),
                static_cast<long long>(m));
  SPX_CHECK_ARG(a.cols % m == 0, "cols (%lld) must be a multiple of M (%lld)",
                static_cast<long long>(a.cols), static_cast<long long>(m));
  SPX_CHECK_ARG(a.rows % l == 0, "rows (%lld) must be a multiple of L (%lld)",
                static_cast<long long>(a.rows), static_cast<long long>(l));

  NmF32 out;
  out.rows = a.rows;
  out.cols = a.cols;
  out.n = n;
  out.m = m;
  out.l = l;
  const int64_t kc = out.kc();
  const int64_t windows = a.cols / m;
  out.values.resize(static_cast<size_t>(a.rows * kc));
  out.indices.resize(static_cast<size_t>(a.rows / l * kc));

  std::vector<double> norm2(static_cast<size_t>(m));  // squared norms: same order as norms
  std::vector<int32_t> order(static_cast<size_t>(m));
  for (int64_t g = 0; g < a.rows / l; ++g) {
    for (int64_t w = 0; w < windows; ++w) {
      for (int64_t p = 0; p < m; ++p) {
        double sum = 0.0;
        for (int64_t r = 0; r < l; ++r) sum += squared_key(a.at(g * l + r, w * m + p));
        norm2[p] = sum;
      }
      std::iota(order.begin(), order.end(), 0);
      // Largest norm first; among equal norms the lower position, which the stable sort keeps.
      std::stable_sort(order.begin(), order.end(),
                       [&](int32_t x, int32_t y) { return norm2[x] > norm2[y]; });
      std::sort(order.begin(), order.begin() + n);
      for (int64_t q = 0; q < n; ++q) {
        const int64_t slot = w * n + q;
        const int64_t col = w * m + order[q];
        out.indices[g * kc + slot] = order[q];
        for (int64_t r = 0; r < l; ++r) {
          out.values[(g * l + r) * kc + slot] = a.at(g * l + r, col);
        }
      }
    }
  }
  return out;
}

}  // namespace spx::plan
