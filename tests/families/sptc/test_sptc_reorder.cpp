// Host planning of the SpTC family (spx::plan sptc_reorder): every 16 x 32 tile of the reordered
// layout is 2:4, the product through the layout (metadata + value map + both index levels) equals
// the original product exactly (small integer values, accumulated in double), every value slot
// is used once, retries on a matrix that needs them, the bank-conflict preference, zero-column
// skipping and empty panels, every V and BLOCK_TILE with row and column tails, bad structures,
// the BLOCK_TILE choice, and the analyze time of a 4096 x 4096 90 % V = 8 matrix.
#include <algorithm>
#include <array>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "runtime/error.hpp"
#include "require_error.hpp"
#include "families/sptc/plan/reorder.hpp"

namespace plan = spx::plan;

namespace {

/// A BCRS structure with its own arrays.
struct Bcrs {
  int64_t rows = 0, cols = 0, v = 1;
  std::vector<int32_t> ptr, col;
  plan::BcrsView view() const {
    plan::BcrsView s;
    s.rows = rows;
    s.cols = cols;
    s.vec_len = v;
    s.block_row_ptr = ptr.data();
    s.block_col = col.data();
    return s;
  }
};

/// Every column vector present with probability `density`.
Bcrs random_bcrs(int64_t rows, int64_t cols, int64_t v, double density, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::bernoulli_distribution keep(density);
  Bcrs a;
  a.rows = rows;
  a.cols = cols;
  a.v = v;
  a.ptr.push_back(0);
  for (int64_t br = 0; br < rows / v; ++br) {
    for (int64_t c = 0; c < cols; ++c)
      if (keep(rng)) a.col.push_back(static_cast<int32_t>(c));
    a.ptr.push_back(static_cast<int32_t>(a.col.size()));
  }
  return a;
}

/// From a per-block-row list of columns.
Bcrs from_lists(int64_t rows, int64_t cols, int64_t v, const std::vector<std::vector<int32_t>>& l) {
  Bcrs a;
  a.rows = rows;
  a.cols = cols;
  a.v = v;
  a.ptr.push_back(0);
  for (const auto& r : l) {
    a.col.insert(a.col.end(), r.begin(), r.end());
    a.ptr.push_back(static_cast<int32_t>(a.col.size()));
  }
  return a;
}

/// Checks the whole layout against the structure: 2:4 per tile chunk from the index levels alone,
/// metadata / value map agreement, every value slot used once, and the exact product.
void check_layout(const Bcrs& a, const plan::SptcLayout& L, uint64_t seed) {
  const int64_t v = a.v, nvals = static_cast<int64_t>(a.col.size()) * v;
  std::vector<int32_t> slot_col(static_cast<size_t>(nvals)), slot_row(static_cast<size_t>(nvals));
  std::vector<std::vector<int32_t>> dense_slot(static_cast<size_t>(a.rows),
                                               std::vector<int32_t>(a.cols, -1));
  for (int64_t br = 0; br < a.rows / v; ++br)
    for (int32_t i = a.ptr[br]; i < a.ptr[br + 1]; ++i)
      for (int64_t e = 0; e < v; ++e) {
        const int64_t s = i * v + e;
        slot_col[s] = a.col[i];
        slot_row[s] = static_cast<int32_t>(br * v + e);
        dense_slot[br * v + e][a.col[i]] = static_cast<int32_t>(s);
      }
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> small(1, 7);
  std::vector<double> val(static_cast<size_t>(nvals));
  for (auto& x : val) x = small(rng) * (rng() & 1 ? 1.0 : -1.0);
  const int64_t n = 3;
  std::vector<double> b(static_cast<size_t>(a.cols * n));
  for (auto& x : b) x = small(rng) - 4.0;

  std::vector<double> ref(static_cast<size_t>(a.rows * n), 0.0), got(ref.size(), 0.0);
  for (int64_t s = 0; s < nvals; ++s)
    for (int64_t j = 0; j < n; ++j) ref[slot_row[s] * n + j] += val[s] * b[slot_col[s] * n + j];

  REQUIRE(L.panel_k.size() == static_cast<size_t>(L.panels + 1));
  REQUIRE(L.panel_tile.size() == static_cast<size_t>(L.panels + 1));
  REQUIRE(L.metadata.size() == L.value_map.size() / 16);
  std::vector<int> used(static_cast<size_t>(nvals), 0);
  const int64_t slices = L.block_tile / 16;
  for (int64_t p = 0; p < L.panels; ++p) {
    const int64_t k0 = L.panel_k[p], k = L.panel_k[p + 1] - k0;
    REQUIRE(k % 32 == 0);
    const int64_t ktiles = k / 32;
    REQUIRE(L.panel_tile[p + 1] - L.panel_tile[p] == slices * ktiles);
    // block_col_idx is a permutation of each unit.
    for (int64_t u = 0; u < k / 16; ++u) {
      std::array<int, 16> seen{};
      for (int q = 0; q < 16; ++q) ++seen[L.block_col_idx[k0 + 16 * u + q]];
      for (int q = 0; q < 16; ++q) REQUIRE(seen[q] == 1);
    }
    for (int64_t s = 0; s < slices; ++s)
      for (int64_t t = 0; t < ktiles; ++t) {
        const int64_t tile = L.panel_tile[p] + s * ktiles + t;
        const uint32_t* words = &L.metadata[tile * 16];
        const int32_t* vmap = &L.value_map[tile * 256];
        for (int i = 0; i < 16; ++i) {
          const int64_t row = L.original_row(p, s * 16 + i);  // A's row (>= rows: past the end)
          for (int c = 0; c < 8; ++c) {
            auto column_at = [&](int e) {
              const int64_t q = 32 * t + 4 * c + e;
              const int64_t unit = q / 16;
              return L.col_idx[k0 + 16 * unit + L.block_col_idx[k0 + q]];
            };
            int nnz = 0;
            for (int e = 0; e < 4; ++e) {
              const int32_t col = column_at(e);
              if (col >= 0 && row < a.rows && dense_slot[row][col] >= 0) ++nnz;
            }
            REQUIRE(nnz <= 2);  // 2:4 from the index levels alone
            int i0, i1;
            plan::sptc_metadata_pair(words, i, c, &i0, &i1);
            REQUIRE(i0 < i1);
            const int pos[2] = {i0, i1};
            for (int h = 0; h < 2; ++h) {
              const int32_t s_ = vmap[i * 16 + 2 * c + h];
              if (s_ < 0) continue;
              REQUIRE(s_ < nvals);
              const int32_t col = column_at(pos[h]);
              REQUIRE(col == slot_col[s_]);
              REQUIRE(row == slot_row[s_]);
              ++used[s_];
              for (int64_t j = 0; j < n; ++j) got[row * n + j] += val[s_] * b[col * n + j];
            }
          }
        }
      }
  }
  for (int64_t s = 0; s < nvals; ++s) REQUIRE(used[s] == 1);
  for (size_t i = 0; i < ref.size(); ++i) REQUIRE(got[i] == ref[i]);

  // Statistics agree with the arrays.
  CHECK(L.stats.padding_columns ==
        static_cast<int64_t>(std::count(L.col_idx.begin(), L.col_idx.end(), -1)));
  CHECK(L.stats.metadata_bytes == static_cast<int64_t>(L.metadata.size()) * 4);
  CHECK(L.stats.kept_columns + L.stats.columns_skipped == L.panels * a.cols);
}

plan::SptcReorderConfig cfg(int block_tile, int threads = 2) {
  plan::SptcReorderConfig c;
  c.block_tile = block_tile;
  c.threads = threads;
  return c;
}

}  // namespace

TEST_CASE("sptc reorder: every V and BLOCK_TILE, tails, exact product", "[sptc]") {
  const int64_t vs[] = {1, 2, 4, 8, 16};
  const int bts[] = {16, 32, 64, 128};
  const double densities[] = {0.05, 0.25, 0.6};
  uint64_t seed = 1;
  for (int64_t v : vs)
    for (int bt : bts)
      for (double d : densities) {
        if (bt / v > 64) continue;  // BLOCK_TILE 128 needs V >= 2 (below)
        // rows not a multiple of BLOCK_TILE (when possible), cols not a multiple of 4 or 32
        const int64_t rows = v * (bt / v * 2 + 1 + (v == 16 ? 0 : 1));
        const int64_t cols = 75;
        INFO("V=" << v << " BT=" << bt << " density=" << d);
        const Bcrs a = random_bcrs(rows, cols, v, d, seed++);
        const plan::SptcLayout L = plan::sptc_reorder(a.view(), cfg(bt));
        CHECK(L.block_tile == bt);
        check_layout(a, L, seed);
      }
}

TEST_CASE("sptc reorder: zero columns skipped, empty panels", "[sptc]") {
  // Panel 0 (rows 0..15) uses columns 3, 40, 41; panel 1 is empty; panel 2 uses column 99.
  std::vector<std::vector<int32_t>> lists(48);
  lists[0] = {3, 40};
  lists[7] = {41};
  lists[15] = {3};
  lists[33] = {99};
  const Bcrs a = from_lists(48, 100, 1, lists);
  const plan::SptcLayout L = plan::sptc_reorder(a.view(), cfg(16));
  REQUIRE(L.panels == 3);
  CHECK(L.stats.kept_columns == 4);
  CHECK(L.stats.columns_skipped == 3 * 100 - 4);
  CHECK(L.panel_k[1] - L.panel_k[0] == 32);  // one tile for 3 columns
  CHECK(L.panel_k[2] - L.panel_k[1] == 0);   // empty panel: no k at all
  CHECK(L.panel_tile[2] - L.panel_tile[1] == 0);
  std::vector<int32_t> real;
  for (int64_t k = L.panel_k[0]; k < L.panel_k[1]; ++k)
    if (L.col_idx[k] >= 0) real.push_back(L.col_idx[k]);
  CHECK(real == std::vector<int32_t>{3, 40, 41});
  CHECK(L.stats.retries == 0);
  check_layout(a, L, 7);

  const Bcrs empty = from_lists(64, 50, 1, std::vector<std::vector<int32_t>>(64));
  const plan::SptcLayout E = plan::sptc_reorder(empty.view(), cfg(32));
  CHECK(E.stats.tiles == 0);
  CHECK(E.col_idx.empty());
  check_layout(empty, E, 8);
  const Bcrs none = from_lists(0, 0, 1, {});
  CHECK(plan::sptc_reorder(none.view(), cfg(64)).panels == 0);
}

TEST_CASE("sptc reorder: retries move the least compatible column out", "[sptc]") {
  // 16 rows x 20 columns, every entry nonzero: a group of 4 holds at most 2 of these columns, so
  // the first unit of 16 must shed 8 columns, which move to the queue's end.
  std::vector<std::vector<int32_t>> lists(16);
  for (auto& l : lists)
    for (int32_t c = 0; c < 20; ++c) l.push_back(c);
  const Bcrs a = from_lists(16, 20, 1, lists);
  plan::SptcReorderConfig plain = cfg(16, 1);
  plain.balance_units = false;  // units filled first-come: the search must shed columns
  const plan::SptcLayout L = plan::sptc_reorder(a.view(), plain);
  INFO("retries " << L.stats.retries << " units " << L.stats.units);
  CHECK(L.stats.retries == 8 + 4);  // unit 0: 16 -> 8; unit 1: 4 + 8 moved = 12 -> 8
  CHECK(L.stats.units == 4);        // 8 + 8 + 4 real columns, padded to two tiles
  CHECK(L.stats.panels_within_cols == 0);
  check_layout(a, L, 9);
  // Balanced filling takes 8 full columns per unit up front: the same layout without retries.
  const plan::SptcLayout B = plan::sptc_reorder(a.view(), cfg(16, 1));
  CHECK(B.stats.retries == 0);
  CHECK(B.stats.units == 4);
  CHECK(B.stats.padding_columns == L.stats.padding_columns);
  check_layout(a, B, 10);

  // No compatible group at all: the tie on compatibility goes to the column with most nonzeros.
  std::array<uint64_t, 16> m{};
  for (int i = 0; i < 16; ++i) m[i] = 0x5555u;  // rows 0, 2, ... nonzero in every column
  m[5] = 0xFFFFu;
  const plan::SptcUnitGrouping g = plan::sptc_group_unit(m, 0xFFFFu, true, 1 << 16);
  CHECK_FALSE(g.found);
  CHECK(g.least_compatible == 5);
}

TEST_CASE("sptc reorder: balanced unit filling cuts retries and padding", "[sptc]") {
  // V = 8 and BLOCK_TILE 16: two vector rows per panel, so a unit of 16 first-come columns
  // often holds more than 8 of one vector row and must shed them by retries.
  for (double d : {0.05, 0.1, 0.2}) {
    const Bcrs a = random_bcrs(512, 1024, 8, d, 31);
    plan::SptcReorderConfig c = cfg(16);
    c.balance_units = false;
    const plan::SptcLayout off = plan::sptc_reorder(a.view(), c);
    c.balance_units = true;
    const plan::SptcLayout on = plan::sptc_reorder(a.view(), c);
    std::printf("sptc balance V=8 BT=16 density %.2f: retries %lld -> %lld, padding %lld -> %lld, "
                "k %zu -> %zu\n",
                d, static_cast<long long>(off.stats.retries), static_cast<long long>(on.stats.retries),
                static_cast<long long>(off.stats.padding_columns),
                static_cast<long long>(on.stats.padding_columns), off.col_idx.size(),
                on.col_idx.size());
    CHECK(on.stats.retries < off.stats.retries);
    CHECK(on.col_idx.size() <= off.col_idx.size());
    check_layout(a, on, 32);
  }
}

TEST_CASE("sptc reorder: bank-conflict preference", "[sptc]") {
  // Positions 0..7 full, 8..15 empty: every group takes two full columns. The first grouping in
  // search order puts {0, 1, 2, 3, 8, 9, 10, 11} in one half (rows r and r + 8 share banks); the
  // preference must find a half with distinct positions modulo 8.
  std::array<uint64_t, 16> m{};
  for (int i = 0; i < 8; ++i) m[i] = 0xFFFFu;
  const plan::SptcUnitGrouping plain = plan::sptc_group_unit(m, 0xFFFFu, false, 1 << 16);
  const plan::SptcUnitGrouping pref = plan::sptc_group_unit(m, 0xFFFFu, true, 1 << 16);
  REQUIRE(plain.found);
  REQUIRE(pref.found);
  CHECK_FALSE(plain.conflict_free);
  CHECK(pref.conflict_free);
  for (const auto* g : {&plain, &pref}) {
    for (int h = 0; h < 2; ++h) {
      int full = 0;
      for (int e = 0; e < 8; ++e) full += g->order[8 * h + e] < 8 ? 1 : 0;
      CHECK(full == 4);
    }
    std::array<int, 8> res{};
    for (int e = 0; e < 8; ++e) ++res[pref.order[e] % 8];
    for (int r = 0; r < 8; ++r) CHECK(res[r] == 1);
  }

  // On a whole matrix the preference removes conflicts the plain search leaves.
  const Bcrs a = random_bcrs(256, 512, 4, 0.3, 11);
  plan::SptcReorderConfig c = cfg(32);
  c.prefer_conflict_free = false;
  const plan::SptcLayout off = plan::sptc_reorder(a.view(), c);
  c.prefer_conflict_free = true;
  const plan::SptcLayout on = plan::sptc_reorder(a.view(), c);
  std::printf("sptc bank preference: conflicting units %lld of %lld (off) -> %lld of %lld (on)\n",
              static_cast<long long>(off.stats.conflicting_units),
              static_cast<long long>(off.stats.units),
              static_cast<long long>(on.stats.conflicting_units),
              static_cast<long long>(on.stats.units));
  CHECK(off.stats.conflicting_units > 0);
  CHECK(on.stats.conflicting_units < off.stats.conflicting_units);
  check_layout(a, on, 12);
}

TEST_CASE("sptc reorder: bad structure is INVALID_VALUE", "[sptc]") {
  Bcrs a = random_bcrs(32, 40, 4, 0.3, 13);
  auto run = [](const Bcrs& b, int bt = 32) { (void)plan::sptc_reorder(b.view(), cfg(bt)); };
  require_invalid([&] { run(a, 24); }, "block_tile");
  {
    Bcrs b = a;
    b.v = 3;
    require_invalid([&] { run(b); }, "vec_len");
  }
  {
    Bcrs b = a;
    b.rows = 30;
    require_invalid([&] { run(b); }, "multiple");
  }
  {
    Bcrs b = a;
    b.ptr[0] = 1;
    require_invalid([&] { run(b); }, "block_row_ptr[0]");
  }
  {
    Bcrs b = a;
    b.ptr[3] = b.ptr[2] - 1;
    require_invalid([&] { run(b); }, "block_row_ptr[3] = " + std::to_string(b.ptr[3]) +
                                          " is smaller than block_row_ptr[2]");
  }
  {
    Bcrs b = a;
    b.col[0] = 40;
    require_invalid([&] { run(b); }, "block_col[0] = 40 is outside [0, 40)");
  }
  {
    Bcrs b = from_lists(4, 10, 4, {{2, 2}});
    require_invalid([&] { run(b); }, "strictly increasing");
  }
  {
    Bcrs b = a;
    b.cols = -1;
    require_invalid([&] { run(b); }, "negative");
  }
}

TEST_CASE("sptc reorder: BLOCK_TILE 128 needs V >= 2", "[sptc]") {
  const Bcrs a = random_bcrs(256, 64, 1, 0.1, 3);
  require_invalid([&] { plan::sptc_reorder(a.view(), cfg(128)); }, "more than 64 vectors");
  int tiles[plan::kSptcMaxBlockTiles];
  CHECK(plan::sptc_block_tiles(1, tiles) == 3);
  CHECK(plan::sptc_block_tiles(2, tiles) == 4);
  CHECK(tiles[3] == 128);
}

TEST_CASE("sptc reorder: clustered row order", "[sptc]") {
  // Four column families of 32 columns: block row br draws from family br % 4. In the identity
  // order every panel keeps columns of all four; clustered panels keep one or two (chunks of 64
  // block rows hold 16 rows per family).
  std::mt19937_64 rng(23);
  std::bernoulli_distribution keep(0.4);
  const int64_t v = 4, brows = 200;  // 200 block rows: groups of 32 leave a tail of 8
  std::vector<std::vector<int32_t>> lists(static_cast<size_t>(brows));
  for (int64_t br = 0; br < brows; ++br)
    for (int32_t c = 0; c < 32; ++c)
      if (keep(rng)) lists[static_cast<size_t>(br)].push_back(static_cast<int32_t>(c + (br % 4) * 32));
  const Bcrs a = from_lists(brows * v, 128, v, lists);
  for (int bt : {32, 64, 128}) {
    const std::vector<int32_t> order = plan::sptc_cluster_rows(a.view(), bt / v, 64, 2);
    REQUIRE(order.size() == static_cast<size_t>(brows));
    std::vector<int32_t> sorted = order;
    std::sort(sorted.begin(), sorted.end());
    for (int64_t i = 0; i < brows; ++i) REQUIRE(sorted[static_cast<size_t>(i)] == i);
    const int64_t id = plan::sptc_panel_union_k(a.view(), bt);
    const int64_t cl = plan::sptc_panel_union_k(a.view(), bt, order);
    INFO("BT=" << bt << " identity k " << id << " clustered k " << cl);
    CHECK(cl <= 0.6 * id);
    const plan::SptcLayout L = plan::sptc_reorder(a.view(), cfg(bt), order);
    CHECK(L.row_order == order);
    check_layout(a, L, 29);
  }
  // choose_block_tile takes the clustered order here, and the layout stays exact.
  std::array<double, plan::kSptcMaxBlockTiles> costs{};
  const plan::SptcLayout L = plan::choose_block_tile(a.view(), cfg(32), plan::kSptcBRowCost, &costs);
  CHECK_FALSE(L.row_order.empty());
  check_layout(a, L, 31);
  plan::SptcReorderConfig off = cfg(32);
  off.row_order = plan::SptcRowOrder::kIdentity;
  CHECK(plan::choose_block_tile(a.view(), off).row_order.empty());
  CHECK(plan::sptc_row_order(a.view(), 64, off).empty());
  CHECK(plan::sptc_row_order(a.view(), 64, cfg(64)).size() == static_cast<size_t>(brows));
  // kClustered takes the clustered order whatever it gains; the layout stays exact.
  const Bcrs r = random_bcrs(512, 300, 8, 0.1, 37);
  plan::SptcReorderConfig forced = cfg(64);
  forced.row_order = plan::SptcRowOrder::kClustered;
  const plan::SptcLayout F = plan::choose_block_tile(r.view(), forced);
  CHECK_FALSE(F.row_order.empty());
  check_layout(r, F, 41);
  // Not a permutation: INVALID_VALUE.
  std::vector<int32_t> bad(static_cast<size_t>(brows), 0);
  require_invalid([&] { plan::sptc_reorder(a.view(), cfg(32), bad); }, "not a permutation");
}

TEST_CASE("sptc reorder: BLOCK_TILE choice by cost", "[sptc]") {
  for (double d : {0.02, 0.1, 0.4}) {
    const Bcrs a = random_bcrs(512, 384, 8, d, 17);
    std::array<double, plan::kSptcMaxBlockTiles> costs{};
    const plan::SptcLayout L =
        plan::choose_block_tile(a.view(), cfg(32), plan::kSptcBRowCost, &costs);
    const double best = *std::min_element(costs.begin(), costs.end());  // V = 8: all 4 tried
    CHECK(L.stats.cost == best);
    std::printf("sptc choose: density %.2f costs %.0f %.0f %.0f %.0f -> BLOCK_TILE %lld%s\n", d,
                costs[0], costs[1], costs[2], costs[3], static_cast<long long>(L.block_tile),
                L.row_order.empty() ? "" : " (clustered rows)");
    check_layout(a, L, 18);
  }
}

TEST_CASE("sptc reorder: analyze time 4096 x 4096, 90 %, V = 8", "[sptc]") {
  const Bcrs a = random_bcrs(4096, 4096, 8, 0.10, 19);
  for (int bt : {16, 32, 64, 128}) {
    const plan::SptcLayout L = plan::sptc_reorder(a.view(), cfg(bt, 0));
    std::printf("sptc 4096^2 90%% V=8 BLOCK_TILE %d: %.3f s, units %lld, retries %lld, padding %lld,"
                " skipped %lld, conflicting units %lld, within-cols panels %lld/%lld\n",
                bt, L.stats.seconds, static_cast<long long>(L.stats.units),
                static_cast<long long>(L.stats.retries),
                static_cast<long long>(L.stats.padding_columns),
                static_cast<long long>(L.stats.columns_skipped),
                static_cast<long long>(L.stats.conflicting_units),
                static_cast<long long>(L.stats.panels_within_cols),
                static_cast<long long>(L.panels));
    CHECK(L.stats.seconds < 5.0);
  }
  const auto t0 = std::chrono::steady_clock::now();
  const plan::SptcLayout L = plan::choose_block_tile(a.view(), cfg(32, 0));
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("sptc 4096^2 90%% V=8 choose_block_tile (clustering, reorders by bound): %.3f s -> "
              "BLOCK_TILE %lld%s\n",
              s, static_cast<long long>(L.block_tile), L.row_order.empty() ? "" : " clustered");
  CHECK(s < 15.0);
}
