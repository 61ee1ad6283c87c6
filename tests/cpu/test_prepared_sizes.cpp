// The sizes an SpMM plan prepares a decision for (SPX_PLAN_OPTION_MAX_N) and the bound an execute
// checks n against (engine/prepared_sizes.hpp).
#include <catch2/catch.hpp>

#include <vector>

#include "engine/prepared_sizes.hpp"
#include "runtime/error.hpp"

using spx::engine::prepared_sizes;
using spx::engine::resolve_max_n;
using Sizes = std::vector<int64_t>;

TEST_CASE("the bound: the analyzed n, a larger bound, or any n", "[prepared]") {
  CHECK(resolve_max_n(16, 0) == 16);
  CHECK(resolve_max_n(16, -1) == -1);
  CHECK(resolve_max_n(16, 16) == 16);
  CHECK(resolve_max_n(16, 300) == 300);
  CHECK(resolve_max_n(0, 0) == 0);
  try {
    resolve_max_n(16, 8);
    FAIL("a bound below the analyzed n was accepted");
  } catch (const spx::Error& e) {
    CHECK(e.status() == SPX_STATUS_INVALID_VALUE);
    CHECK(std::string(e.what()).find("below the n the plan is analyzed with") != std::string::npos);
  }
}

TEST_CASE("powers of two up to the bound, the analyzed n and the bound", "[prepared]") {
  CHECK(prepared_sizes(1, 1) == Sizes{1});
  CHECK(prepared_sizes(16, 16) == Sizes{1, 2, 4, 8, 16});
  CHECK(prepared_sizes(300, 300) == Sizes{1, 2, 4, 8, 16, 32, 64, 128, 256, 300});
  CHECK(prepared_sizes(3, 100) == Sizes{1, 2, 3, 4, 8, 16, 32, 64, 100});
  CHECK(prepared_sizes(0, 0) == Sizes{0});
  // Analyzed with no columns and a bound: the analyzed entry is n = 0 (analyze's), then the
  // powers of two.
  CHECK(prepared_sizes(0, 4) == Sizes{0, 1, 2, 4});
  CHECK(prepared_sizes(0, -1).front() == 0);
  CHECK(prepared_sizes(0, -1).back() == 4096);
}

TEST_CASE("any n prepares up to max(analyzed n, 4096); larger n runs in slices", "[prepared]") {
  const Sizes s = prepared_sizes(1, -1);
  REQUIRE(s.size() == 13);
  CHECK(s.front() == 1);
  CHECK(s.back() == spx::engine::kUnboundedPreparedN);
  const Sizes big = prepared_sizes(6000, -1);
  CHECK(big.back() == 6000);
  CHECK(big[big.size() - 2] == 4096);
  // Ascending and distinct: an execute takes the first size >= n.
  for (size_t i = 1; i < big.size(); ++i) CHECK(big[i - 1] < big[i]);
}
