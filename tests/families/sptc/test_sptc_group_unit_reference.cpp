// The SpTC unit search as analyze runs it (partners of a group enumerated directly) against
// the search it replaced, kept here verbatim as the reference: the groupings, the pair-check
// counts (where a grouping is found) and the column a failed unit gives back must be identical, so
// the reorder's layout is byte for byte the same. Random units over 1 to 64 vector rows at densities from sparse to
// dense, conflict-free preference on and off, small and large search budgets.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "families/sptc/plan/reorder.hpp"
#include "reference/old_reorder.hpp"



TEST_CASE("unit search: the direct partner enumeration equals the reference", "[sptc][reorder]") {
  std::mt19937_64 rng(42);
  int found = 0, failed = 0;
  for (int iter = 0; iter < 60000; ++iter) {
    const int rows = 1 + static_cast<int>(rng() % 64);
    const double density = std::uniform_real_distribution<double>(0.05, 0.75)(rng);
    const uint64_t row_mask = rows == 64 ? ~0ull : (1ull << rows) - 1;
    std::array<uint64_t, 16> masks{};
    uint32_t real = 0;
    for (int p = 0; p < 16; ++p) {
      if (rng() % 8 == 0) continue;  // a padding position
      real |= 1u << p;
      uint64_t m = 0;
      for (int r = 0; r < rows; ++r)
        if (std::uniform_real_distribution<double>(0, 1)(rng) < density) m |= 1ull << r;
      masks[p] = m & row_mask;
    }
    const bool prefer = iter % 3 != 0;
    const int64_t budget = iter % 5 == 0 ? 7 : 4096;
    const spx::plan::SptcUnitGrouping want = ref::ref_group_unit(masks, real, prefer, budget);
    const spx::plan::SptcUnitGrouping got = spx::plan::sptc_group_unit(masks, real, prefer, budget);
    INFO("iteration " << iter);
    REQUIRE(got.found == want.found);
    REQUIRE(got.conflict_free == want.conflict_free);
    // A unit with no grouping at all skips the all-pairs search, so the pair checks (a
    // diagnostic) agree where a grouping was found.
    if (want.found) REQUIRE(got.pair_checks == want.pair_checks);
    REQUIRE(got.least_compatible == want.least_compatible);
    if (want.found) REQUIRE(got.order == want.order);
    (want.found ? found : failed) += 1;
  }
  CHECK(found > 1000);   // both outcomes are exercised
  CHECK(failed > 1000);
}

namespace {

/// A random BCRS(V) structure: each vector row keeps each column with probability `density`.
struct RandomBcrs {
  int64_t rows = 0, cols = 0, v = 1;
  std::vector<int32_t> ptr{0}, col;
  spx::plan::BcrsView view() const {
    spx::plan::BcrsView b;
    b.rows = rows;
    b.cols = cols;
    b.vec_len = v;
    b.block_row_ptr = ptr.data();
    b.block_col = col.data();
    b.num_vectors = static_cast<int64_t>(col.size());
    return b;
  }
};

RandomBcrs random_bcrs(std::mt19937_64& rng, int64_t rows, int64_t cols, int64_t v, double density) {
  RandomBcrs a;
  a.rows = rows;
  a.cols = cols;
  a.v = v;
  std::uniform_real_distribution<double> u(0, 1);
  for (int64_t br = 0; br < rows / v; ++br) {
    for (int64_t c = 0; c < cols; ++c)
      if (u(rng) < density) a.col.push_back(static_cast<int32_t>(c));
    a.ptr.push_back(static_cast<int32_t>(a.col.size()));
  }
  return a;
}

void require_same(const spx::plan::SptcLayout& x, const spx::plan::SptcLayout& y) {
  REQUIRE(x.block_tile == y.block_tile);
  REQUIRE(x.panels == y.panels);
  REQUIRE(x.row_order == y.row_order);
  REQUIRE(x.panel_k == y.panel_k);
  REQUIRE(x.panel_tile == y.panel_tile);
  REQUIRE(x.col_idx == y.col_idx);
  REQUIRE(x.block_col_idx == y.block_col_idx);
  REQUIRE(x.metadata == y.metadata);
  REQUIRE(x.value_map == y.value_map);
  const spx::plan::SptcReorderStats &s = x.stats, &t = y.stats;
  REQUIRE(s.units == t.units);
  REQUIRE(s.tiles == t.tiles);
  REQUIRE(s.kept_columns == t.kept_columns);
  REQUIRE(s.columns_skipped == t.columns_skipped);
  REQUIRE(s.retries == t.retries);
  REQUIRE(s.padding_columns == t.padding_columns);
  REQUIRE(s.conflicting_units == t.conflicting_units);
  REQUIRE(s.panels_within_cols == t.panels_within_cols);
  REQUIRE(s.metadata_bytes == t.metadata_bytes);
  REQUIRE(s.index_bytes == t.index_bytes);
  REQUIRE(s.cost == t.cost);
}

}  // namespace

TEST_CASE("reorder and BLOCK_TILE choice equal the reference layouts", "[sptc][reorder]") {
  std::mt19937_64 rng(9);
  for (int64_t v : {1, 2, 8, 16})
    for (double density : {0.03, 0.2, 0.5})
      for (auto mode : {spx::plan::SptcRowOrder::kIdentity, spx::plan::SptcRowOrder::kAuto,
                        spx::plan::SptcRowOrder::kClustered}) {
        // Odd shapes: a partial last panel, columns not a multiple of 16.
        const RandomBcrs a = random_bcrs(rng, v * (v == 1 ? 203 : 37), 301, v, density);
        spx::plan::SptcReorderConfig cfg;
        cfg.row_order = mode;
        cfg.threads = 3;
        for (double b_row_cost : {spx::plan::kSptcBRowCost, spx::plan::kSptcBRowCostWide}) {
          INFO("V " << v << ", density " << density << ", row order " << static_cast<int>(mode)
                    << ", b row cost " << b_row_cost);
          std::array<double, spx::plan::kSptcMaxBlockTiles> got_costs{}, want_costs{};
          const spx::plan::SptcLayout got =
              spx::plan::choose_block_tile(a.view(), cfg, b_row_cost, &got_costs);
          const spx::plan::SptcLayout want =
              ref::ref_choose_block_tile(a.view(), cfg, b_row_cost, &want_costs);
          require_same(got, want);
          REQUIRE(got_costs == want_costs);
        }
        cfg.block_tile = v >= 2 ? 128 : 64;
        require_same(spx::plan::sptc_reorder(a.view(), cfg, {}),
                     ref::ref_sptc_reorder(a.view(), cfg, {}));
      }
}
