#include "formats/check_pattern.hpp"

#include "runtime/error.hpp"

namespace spx::plan {

bool fits_nm(const DenseView& a, int64_t n, int64_t m, int64_t l) {
  SPX_CHECK_ARG(n >= 0 && m >= 1 && l >= 1 && a.cols % m == 0 && a.rows % l == 0,
                "N:M (%lld:%lld, L %lld) does not tile a %lld x %lld matrix",
                static_cast<long long>(n), static_cast<long long>(m), static_cast<long long>(l),
                static_cast<long long>(a.rows), static_cast<long long>(a.cols));
  for (int64_t g = 0; g < a.rows / l; ++g) {
    for (int64_t w = 0; w < a.cols / m; ++w) {
      int64_t used = 0;
      for (int64_t p = 0; p < m; ++p) {
        bool any = false;
        for (int64_t r = 0; r < l && !any; ++r) any = a.at(g * l + r, w * m + p) != 0.0f;
        if (any && ++used > n) return false;
      }
    }
  }
  return true;
}

bool fits_uniform(const DenseView& a, int64_t ell_width) {
  for (int64_t r = 0; r < a.rows; ++r) {
    int64_t count = 0;
    for (int64_t c = 0; c < a.cols; ++c) {
      if (a.at(r, c) != 0.0f && ++count > ell_width) return false;
    }
  }
  return true;
}

}  // namespace spx::plan
