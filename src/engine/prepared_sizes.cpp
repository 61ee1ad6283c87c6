#include "engine/prepared_sizes.hpp"

#include <algorithm>

#include "runtime/error.hpp"

namespace spx::engine {

int64_t resolve_max_n(int64_t analyzed_n, int32_t option) {
  if (option == 0) return analyzed_n;
  if (option < 0) return -1;
  SPX_CHECK_ARG(option >= analyzed_n,
                "SPX_PLAN_OPTION_MAX_N (%d) is below the n the plan is analyzed with (B and C "
                "have %lld columns)",
                static_cast<int>(option), static_cast<long long>(analyzed_n));
  return option;
}

std::vector<int64_t> prepared_sizes(int64_t analyzed_n, int64_t max_n) {
  const int64_t top = max_n < 0 ? std::max(analyzed_n, kUnboundedPreparedN) : max_n;
  std::vector<int64_t> sizes;
  for (int64_t n = 1; n < top; n *= 2) sizes.push_back(n);
  sizes.push_back(top);
  // Always the analyzed n, 0 included: analyze chooses the family at that entry.
  sizes.push_back(analyzed_n);
  std::sort(sizes.begin(), sizes.end());
  sizes.erase(std::unique(sizes.begin(), sizes.end()), sizes.end());
  return sizes;
}

}  // namespace spx::engine
