// Host planning of the NM family (spx::plan nm_layout, families/nm/kernels/config.hpp): index validation,
// stage geometry, the stage-relative rows (ridx) and col_info of packed loads on hand-checked
// cases and on random patterns (every slot must map back to its column of A), metadata overhead
// within 10 % of the values, the packing decision of the Eq. 3 model, and the stream-K schedule
// the tensor-copy kernel runs (families/nm/kernels/stream_k.hpp). The tile choice:
// test_nm_choice.cpp.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "runtime/error.hpp"
#include "require_error.hpp"
#include "families/nm/kernels/config.hpp"
#include "families/nm/kernels/stream_k.hpp"
#include "families/nm/plan/layout.hpp"

namespace plan = spx::plan;
namespace knm = spx::kernels::nm;

namespace {

plan::NmDims dims(int64_t rows, int64_t cols, int64_t n, int64_t m, int64_t l) {
  plan::NmDims d;
  d.rows = rows;
  d.cols = cols;
  d.n = n;
  d.m = m;
  d.l = l;
  return d;
}

/// Random valid indices: per (group, window) n sorted distinct positions of m.
std::vector<int32_t> random_indices(const plan::NmDims& d, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<int32_t> idx(static_cast<size_t>(d.groups() * d.kc()));
  std::vector<int32_t> perm(static_cast<size_t>(d.m));
  for (int64_t g = 0; g < d.groups(); ++g)
    for (int64_t w = 0; w < d.cols / d.m; ++w) {
      for (int64_t i = 0; i < d.m; ++i) perm[i] = static_cast<int32_t>(i);
      for (int64_t i = 0; i < d.n; ++i) std::swap(perm[i], perm[i + rng() % (d.m - i)]);
      std::sort(perm.begin(), perm.begin() + d.n);
      for (int64_t i = 0; i < d.n; ++i) idx[g * d.kc() + w * d.n + i] = perm[i];
    }
  return idx;
}

/// Every real (group, slot) of the layout reads the B row of its column of A.
void check_layout_maps_back(const plan::NmDims& d, const std::vector<int32_t>& idx,
                            const plan::NmStaging& s, const plan::NmIndexLayout& lay) {
  const int64_t kc = d.kc();
  int64_t bad = 0;
  for (int64_t g = 0; g < d.groups(); ++g) {
    const int64_t tile = g * d.l / knm::kPackTileRows;
    for (int64_t u = 0; u < s.kc_pad; ++u) {
      const int64_t st = u / s.w_s;
      const int64_t r = lay.ridx[g * s.kc_pad + u];
      int64_t row = r;  // stage-relative B row
      if (lay.packing) {
        const int64_t list = tile * s.stages + st;
        if (r >= lay.col_count[list]) {
          ++bad;
          continue;
        }
        row = lay.col_info[list * lay.pack_capacity + r];
      }
      const int64_t uu = u < kc ? u : st * s.w_s;  // padding slots repeat the stage's first slot
      const int64_t want = (uu / d.n) * d.m + idx[g * kc + uu];
      bad += (st * s.k_s + row) != want;
    }
  }
  CHECK(bad == 0);
  if (lay.packing) {
    for (int64_t list = 0; list < static_cast<int64_t>(lay.col_count.size()); ++list) {
      const int64_t count = lay.col_count[list];
      REQUIRE(count <= lay.pack_capacity);
      for (int64_t i = 1; i < count; ++i)
        CHECK(lay.col_info[list * lay.pack_capacity + i] > lay.col_info[list * lay.pack_capacity + i - 1]);
    }
  }
}

}  // namespace

TEST_CASE("NM indices are validated", "[nm][layout]") {
  const plan::NmDims d = dims(16, 8, 2, 4, 16);  // one group, two windows, kc 4
  const std::vector<int32_t> good = {0, 3, 1, 2};
  CHECK_NOTHROW(plan::validate_nm_indices(d, good.data()));
  require_invalid([&] { plan::validate_nm_indices(d, std::vector<int32_t>{0, 4, 1, 2}.data()); },
                  "outside [0, 4)");
  require_invalid([&] { plan::validate_nm_indices(d, std::vector<int32_t>{0, 3, -1, 2}.data()); },
                  "outside");
  require_invalid([&] { plan::validate_nm_indices(d, std::vector<int32_t>{2, 2, 1, 2}.data()); },
                  "not greater");
  // A new window may restart lower.
  CHECK_NOTHROW(plan::validate_nm_indices(d, std::vector<int32_t>{2, 3, 0, 1}.data()));
  // The message names the first bad index, also past the first window (N = 3: windows of three).
  const plan::NmDims d3 = dims(16, 16, 3, 8, 16);  // one group, two windows, kc 6
  require_invalid(
      [&] { plan::validate_nm_indices(d3, std::vector<int32_t>{0, 4, 7, 1, 5, 5}.data()); },
      "indices[5] = 5 is not greater than indices[4] = 5");
  require_invalid(
      [&] { plan::validate_nm_indices(d3, std::vector<int32_t>{0, 4, 7, 1, 8, 2}.data()); },
      "indices[4] = 8 is outside [0, 8)");
  require_invalid(
      [&] { plan::validate_nm_indices(d3, std::vector<int32_t>{0, 4, 7, 3, 2, 9}.data()); },
      "indices[4] = 2 is not greater than indices[3] = 3");
  CHECK_NOTHROW(plan::validate_nm_indices(d3, std::vector<int32_t>{0, 4, 7, 1, 2, 3}.data()));
}

TEST_CASE("NM stage geometry pads slots and rows", "[nm][layout]") {
  const plan::NmStaging s = plan::nm_staging(dims(48, 72, 3, 8, 16), 2, 128);
  // kc = 72 / 8 * 3 = 27; w_s = 6, k_s = 16, stages = 5, kc_pad = 30.
  CHECK(s.w_s == 6);
  CHECK(s.k_s == 16);
  CHECK(s.stages == 5);
  CHECK(s.kc_pad == 30);
  CHECK(s.rows_pad == 128);
  CHECK(s.groups_pad == 8);
  const plan::NmStaging empty = plan::nm_staging(dims(0, 0, 1, 4, 32), 4, 128);
  CHECK(empty.stages == 0);
  CHECK(empty.rows_pad == 0);
}

TEST_CASE("NM non-packing rows, hand-checked", "[nm][layout]") {
  // 2:4, one group of 16 rows, 4 windows (kc 8); two windows per stage (w_s 4, k_s 8).
  const plan::NmDims d = dims(16, 16, 2, 4, 16);
  const std::vector<int32_t> idx = {0, 2, 1, 3, 0, 1, 2, 3};
  const plan::NmStaging s = plan::nm_staging(d, 2, 128);
  const plan::NmIndexLayout lay = plan::nm_build_layout(d, idx.data(), s, false, 128, 0);
  REQUIRE(lay.ridx.size() == static_cast<size_t>(s.groups_pad * s.kc_pad));
  const std::vector<uint16_t> first(lay.ridx.begin(), lay.ridx.begin() + 8);
  CHECK(first == std::vector<uint16_t>{0, 2, 5, 7, 0, 1, 6, 7});
  CHECK(lay.col_info.empty());
  check_layout_maps_back(d, idx, s, lay);
}

TEST_CASE("NM union statistics from a sample of the pack tiles", "[nm][layout]") {
  // 1:8, L 16, 64 pack tiles of 8 groups, random kept positions.
  const plan::NmDims d = dims(64 * 128, 8 * 64, 1, 8, 16);
  std::vector<int32_t> idx(static_cast<size_t>(d.groups() * d.kc()));
  uint64_t x = 12345;
  for (int32_t& v : idx) {
    x = x * 6364136223846793005ull + 1442695040888963407ull;
    v = static_cast<int32_t>((x >> 33) % 8);
  }
  const plan::NmStaging s = plan::nm_staging(d, 8, 128);  // 8 stages
  const plan::NmUnionStats all = plan::nm_union_stats(d, idx.data(), s, 128);
  CHECK(all.sampled_tiles == 64);
  {
    // The same statistics by brute force: per (tile, stage) the sorted set of B rows read and
    // of the 8-row sectors (of the whole B) they fall in.
    double rows_sum = 0, sectors_sum = 0;
    int64_t most = 0;
    for (int64_t t = 0; t < 64; ++t)
      for (int64_t st = 0; st < s.stages; ++st) {
        std::set<int64_t> rows, sectors;
        for (int64_t g = t * 8; g < t * 8 + 8; ++g)
          for (int64_t u = st * s.w_s; u < (st + 1) * s.w_s; ++u) {
            const int64_t row = ((u - st * s.w_s) / d.n) * d.m + idx[g * d.kc() + u];
            rows.insert(row);
            sectors.insert((st * s.k_s + row) / 8);
          }
        rows_sum += static_cast<double>(rows.size());
        sectors_sum += static_cast<double>(sectors.size());
        most = std::max<int64_t>(most, static_cast<int64_t>(rows.size()));
      }
    CHECK(all.mean_rows == Approx(rows_sum / (64.0 * s.stages)));
    CHECK(all.mean_sectors == Approx(sectors_sum / (64.0 * s.stages)));
    CHECK(all.max_rows == most);
  }
  // A budget at least the pair count reads everything: the same numbers.
  const plan::NmUnionStats same = plan::nm_union_stats(d, idx.data(), s, 128, 64 * 8);
  CHECK(same.sampled_tiles == 64);
  CHECK(same.mean_rows == all.mean_rows);
  CHECK(same.max_rows == all.max_rows);
  // 128 pairs: every 4th tile (16 tiles x 8 stages). A stage is 8 windows; per window the 8
  // groups' random picks of 1 of 8 rows cover 8 x (1 - (7/8)^8) = 5.25 distinct rows on average,
  // so a stage's union averages 42; the sample's mean stays within ~2 % of the whole's.
  const plan::NmUnionStats some = plan::nm_union_stats(d, idx.data(), s, 128, 128);
  CHECK(some.sampled_tiles == 16);
  CHECK(all.mean_rows == Approx(42.0).margin(0.5));
  CHECK(some.mean_rows == Approx(all.mean_rows).margin(0.8));
  CHECK(some.max_rows <= all.max_rows);
}

TEST_CASE("NM packing: col_info is the union, indices re-ordered into it", "[nm][layout]") {
  // 1:4, two groups (L 16) in one pack tile, 4 windows, 2 windows per stage (w_s 2, k_s 8).
  const plan::NmDims d = dims(32, 16, 1, 4, 16);
  const std::vector<int32_t> idx = {3, 1, 0, 2,    // group 0: columns 3, 5 | 8, 14
                                    3, 2, 1, 2};   // group 1: columns 3, 6 | 9, 14
  const plan::NmStaging s = plan::nm_staging(d, 2, 128);
  const int64_t cap = knm::pack_capacity(d.l, s.w_s, s.k_s);
  CHECK(cap == 8);  // min(k_s 8, 8 groups per 128-row tile x 2 slots)
  const plan::NmUnionStats st = plan::nm_union_stats(d, idx.data(), s, 128);
  CHECK(st.max_rows == 3);
  CHECK(st.mean_rows == Approx(3.0));
  const plan::NmIndexLayout lay = plan::nm_build_layout(d, idx.data(), s, true, 128, cap);
  REQUIRE(lay.col_count.size() == 2);
  CHECK(lay.col_count[0] == 3);  // stage rows {3, 5, 6}
  CHECK(lay.col_count[1] == 3);  // stage rows {0, 1, 6} (columns 8, 9, 14)
  CHECK(std::vector<uint16_t>(lay.col_info.begin(), lay.col_info.begin() + 3) ==
        std::vector<uint16_t>{3, 5, 6});
  CHECK(std::vector<uint16_t>(lay.col_info.begin() + cap, lay.col_info.begin() + cap + 3) ==
        std::vector<uint16_t>{0, 1, 6});
  const int64_t kp = s.kc_pad;
  CHECK(std::vector<uint16_t>(lay.ridx.begin(), lay.ridx.begin() + 4) ==
        std::vector<uint16_t>{0, 1, 0, 2});
  CHECK(std::vector<uint16_t>(lay.ridx.begin() + kp, lay.ridx.begin() + kp + 4) ==
        std::vector<uint16_t>{0, 2, 1, 2});
  check_layout_maps_back(d, idx, s, lay);
}

TEST_CASE("NM layouts map every slot back to its column (random patterns)", "[nm][layout]") {
  uint64_t seed = 1;
  for (int64_t m : {4, 8, 16, 32, 64, 128})
    for (int64_t l : {16, 32, 64, 128})
      for (int64_t n : {int64_t{1}, m / 2 + 1, m - 1, m}) {
        if (n < 1 || n > m) continue;
        // rows: two pack tiles, the second partial; cols: a tail stage.
        const int64_t rows = std::max<int64_t>(l, 160 / l * l + l);
        const plan::NmDims d = dims(rows, m * 5, n, m, l);
        const std::vector<int32_t> idx = random_indices(d, seed++);
        for (int64_t windows : {2, 4}) {
          const plan::NmStaging s = plan::nm_staging(d, windows, 128);
          INFO("N:M " << n << ":" << m << " L " << l << " W " << windows);
          check_layout_maps_back(d, idx, s, plan::nm_build_layout(d, idx.data(), s, false, 128, 0));
          const int64_t cap = knm::pack_capacity(l, s.w_s, s.k_s);
          const plan::NmUnionStats st = plan::nm_union_stats(d, idx.data(), s, 128);
          REQUIRE(st.max_rows <= cap);
          CHECK(st.mean_rows <= static_cast<double>(s.k_s));
          CHECK(st.mean_sectors * 8 >= st.mean_rows - 1e-9);
          check_layout_maps_back(d, idx, s, plan::nm_build_layout(d, idx.data(), s, true, 128, cap));
        }
      }
}

TEST_CASE("NM packing with identical group patterns keeps exactly N of M rows", "[nm][layout]") {
  const plan::NmDims d = dims(128, 64, 1, 8, 32);
  std::vector<int32_t> idx(static_cast<size_t>(d.groups() * d.kc()));
  for (size_t i = 0; i < idx.size(); ++i) idx[i] = static_cast<int32_t>((i % d.kc()) % 8);
  const plan::NmStaging s = plan::nm_staging(d, 4, 128);
  const plan::NmUnionStats st = plan::nm_union_stats(d, idx.data(), s, 128);
  CHECK(st.mean_rows == Approx(static_cast<double>(s.w_s)));
}

TEST_CASE("NM metadata stays within 10 % of the values", "[nm][layout]") {
  for (int64_t m : {4, 8, 16, 32, 64, 128})
    for (int64_t l : {16, 32, 64, 128})
      for (int64_t n : {int64_t{1}, m / 2, m}) {
        if (n < 1) continue;
        const plan::NmDims d = dims(4 * 128, m * 8, n, m, l);
        const std::vector<int32_t> idx = random_indices(d, 77);
        const int64_t windows = std::max<int64_t>(1, 64 / n) + (n % 2 == 1 && 64 / n % 2 == 1);
        const plan::NmStaging s = plan::nm_staging(d, windows, 128);
        const double values = 4.0 * static_cast<double>(s.rows_pad * s.kc_pad);
        for (bool packing : {false, true}) {
          const int64_t cap = packing ? knm::pack_capacity(l, s.w_s, s.k_s) : 0;
          const plan::NmIndexLayout lay = plan::nm_build_layout(d, idx.data(), s, packing, 128, cap);
          INFO("N:M " << n << ":" << m << " L " << l << " packing " << packing);
          CHECK(static_cast<double>(plan::nm_metadata_bytes(lay)) <= 0.10 * values);
        }
      }
}

TEST_CASE("NM packing decision follows the arithmetic-intensity model", "[nm][model]") {
  plan::NmStageCostInput in;
  in.bm = 128;
  in.bn = 128;
  // 2:4 (50 %), L 32, non-packing w_s 32 / k_s 64: compute-bound, no packing.
  in.w_s_plain = 32;
  in.k_s_plain = 64;
  in.w_s_packed = 32;
  in.packed_rows = 60;  // 4 groups of 2:4 keep nearly every column
  in.packed_sectors = 8;
  plan::NmPackingDecision d = plan::nm_decide_packing(in);
  CHECK_FALSE(d.packing);
  CHECK(d.ai_plain == Approx(2.0 * 128 * 128 / (4.0 * (128 + 2 * 128))));
  CHECK(d.balance == Approx(256.0 / 28.0));
  // 1:8 (87.5 %), L 32: 8 rows per slot loaded, ~3.3 needed: memory-bound, packing wins.
  in.w_s_plain = 16;
  in.k_s_plain = 128;
  in.w_s_packed = 32;
  in.packed_rows = 3.3 * 32;
  in.packed_sectors = 32;  // every window's sector touched
  d = plan::nm_decide_packing(in);
  CHECK(d.packing);
  CHECK(d.ai_plain < d.balance);
  CHECK(d.ai_packed > d.ai_plain);
  // The same with a column-major B: its element-wise loader also gains from packing.
  in.b_col_major = true;
  d = plan::nm_decide_packing(in);
  CHECK(d.packing);
  // 1:4 (75 %), L 32: 4 rows per slot, still compute-bound on this model.
  in.b_col_major = false;
  in.w_s_plain = 32;
  in.k_s_plain = 128;
  in.packed_rows = 2.7 * 32;
  d = plan::nm_decide_packing(in);
  CHECK_FALSE(d.packing);
  // Only packing fits shared memory.
  in.w_s_plain = 0;
  CHECK(plan::nm_decide_packing(in).packing);
}

TEST_CASE("NM stage depth fits shared memory and keeps w_s even", "[nm][config]") {
  const int64_t optin = 227 * 1024;
  for (int64_t m : {4, 8, 16, 32, 64, 128})
    for (int64_t n : {int64_t{1}, int64_t{3}, m / 2, m})
      for (int64_t l : {16, 128})
        for (bool packing : {false, true}) {
          if (n < 1 || n > m) continue;
          bool any = false;
          for (const knm::TileShape& t : knm::kTiles) {
            const int64_t w = knm::windows_per_stage(t, n, m, l, packing, optin);
            INFO(t.name << " " << n << ":" << m << " L " << l << " packing " << packing);
            if (w == 0) continue;
            any = true;
            CHECK((n * w) % 2 == 0);
            const int64_t rows_s = packing ? knm::pack_capacity(l, n * w, m * w) : m * w;
            CHECK(knm::kernel_smem_bytes(t, n * w, rows_s, knm::groups_per_block(t, l),
                                         packing ? rows_s : 0) <= optin);
          }
          INFO(n << ":" << m << " L " << l << " packing " << packing);
          CHECK(any);  // some tile always has a stage depth on a 227 KiB device
        }
  // 2:4 on the huge tile with two blocks per SM: at least 32 slots per stage.
  const knm::TileShape& huge = knm::tile_shape(knm::TileId::Huge);
  const int64_t budget = knm::two_blocks_budget(optin);
  CHECK(2 * (budget + 1024) <= 228 * 1024);
  const int64_t w = knm::windows_per_stage(huge, 2, 4, 32, false, budget);
  CHECK(2 * w >= 32);
  CHECK(knm::kernel_smem_bytes(huge, 2 * w, 4 * w, 4, 0) <= budget);
  CHECK(knm::kernel_smem_bytes(huge, 2 * (w + 1), 4 * (w + 1), 4, 0) > budget);
}

TEST_CASE("NM tensor-copy stages: dense rows, 128-byte regions, depth", "[nm][config]") {
  const int64_t optin = 227 * 1024;
  const int64_t budget = knm::two_blocks_budget(optin);
  const knm::TileShape& huge = knm::tile_shape(knm::TileId::Huge);
  // Every region is 128-byte aligned and B rows are BN floats (no padding).
  CHECK(knm::bulk_stage_bytes(huge, 36, 72, 4) ==
        knm::align128(36 * 128 * 4) + knm::align128(72 * 128 * 4) + knm::align128(4 * 36 * 2 + 4));
  CHECK(knm::bulk_smem_bytes(huge, 36, 72, 4, 3) ==
        3 * knm::bulk_stage_bytes(huge, 36, 72, 4) + knm::kBarrierBytes + 128);
  // The deepest bulk stage that fits, for 2:4, 3:8, 1:4 and 1:8 at depth 2 and 3 (the measured
  // H100 staging: w_s 36 / 30 / 22 / 12 at depth 2).
  const int64_t patterns[][3] = {{2, 4, 36}, {3, 8, 30}, {1, 4, 22}, {1, 8, 12}};
  for (const auto& p : patterns)
    for (int depth : {2, 3}) {
      INFO(p[0] << ":" << p[1] << " depth " << depth);
      const int64_t w = knm::windows_per_stage(huge, p[0], p[1], 32, false, budget, depth, true);
      REQUIRE(w > 0);
      CHECK((p[0] * w) % 2 == 0);
      CHECK(knm::bulk_smem_bytes(huge, p[0] * w, p[1] * w, 4, depth) <= budget);
      const int64_t step = p[0] % 2 == 0 ? 1 : 2;
      CHECK(knm::bulk_smem_bytes(huge, p[0] * (w + step), p[1] * (w + step), 4, depth) > budget);
      if (depth == 2) CHECK(p[0] * w == p[2]);
      // The bulk stage never needs more shared memory than the cp.async stage of the same depth
      // holds with its padded rows, so the cp.async kernel stays a valid fallback.
      CHECK(knm::kernel_smem_bytes(huge, p[0] * w, p[1] * w, 4, 0, depth) <= optin);
    }
}

TEST_CASE("NM stream-K: when the last wave is shared out", "[nm][stream-k]") {
  // H100 / H200 Wide: 264 slots. 4096^3: 1024 tiles = 3 waves + 232 tiles (32 slots idle).
  knm::StreamKSchedule s = knm::plan_stream_k(1024, 52, 264);
  REQUIRE(s.on());
  CHECK(s.dp_tiles == 792);
  CHECK(s.blocks == 264);
  CHECK(s.grid() == 792 + 264);
  CHECK(s.region_tiles() == 232);
  // Whole waves, or a last wave at least 9/10 full: off.
  CHECK_FALSE(knm::plan_stream_k(1056, 52, 264).on());
  CHECK_FALSE(knm::plan_stream_k(264 + 250, 52, 264).on());
  CHECK(knm::plan_stream_k(264 + 237, 52, 264).on());
  // Too few stages per tile, too few tiles (split-K's case), one slot: off.
  CHECK_FALSE(knm::plan_stream_k(1024, knm::kStreamKMinStages - 1, 264).on());
  CHECK_FALSE(knm::plan_stream_k(100, 52, 264).on());
  CHECK_FALSE(knm::plan_stream_k(5, 52, 1).on());
  CHECK(knm::plan_stream_k(5, 52, 1).grid() == 5);
  // Fewer tiles than slots but at least half: every tile shared out.
  s = knm::plan_stream_k(200, 52, 264);
  REQUIRE(s.on());
  CHECK(s.dp_tiles == 0);
  // A short tail goes with the last full wave: 2 waves + 10 tiles -> 264 + 10 tiles shared.
  s = knm::plan_stream_k(538, 52, 264);
  REQUIRE(s.on());
  CHECK(s.dp_tiles == 264);
  CHECK(s.region_tiles() == 274);
  CHECK(s.blocks == 2 * 264);
  // Units past 31 bits: off.
  CHECK_FALSE(knm::plan_stream_k(int64_t{1} << 24, 1000, 264).on());
}

TEST_CASE("NM stream-K is used where it pays for its slower tiles", "[nm][stream-k]") {
  // 4096^3: 3.88 waves -> 3.88 x 1.02 + 0.06 = 4.02 waves, not faster than 4.
  CHECK_FALSE(knm::stream_k_pays(knm::plan_stream_k(1024, 52, 264), 264, 1.05));
  // 1.33 waves (5632 x 1024 output): 1.42 against 2.
  CHECK(knm::stream_k_pays(knm::plan_stream_k(352, 52, 264), 264, 1.10));
  // 3.15 waves (6656 x 2048): 3.27 against 4 -> 1.22x.
  const knm::StreamKSchedule s = knm::plan_stream_k(832, 83, 264);
  CHECK(knm::stream_k_pays(s, 264, 1.10));
  CHECK_FALSE(knm::stream_k_pays(s, 264, 1.25));
  // No schedule, nothing to pay for.
  CHECK_FALSE(knm::stream_k_pays(knm::plan_stream_k(1056, 52, 264), 264, 1.0));
}

TEST_CASE("NM stream-K schedule covers every unit once, in at most three parts per tile",
          "[nm][stream-k]") {
  std::mt19937_64 rng(7);
  int checked = 0;
  for (int trial = 0; trial < 3000; ++trial) {
    const int64_t slots = 2 + static_cast<int64_t>(rng() % 300);
    const int64_t tiles = 1 + static_cast<int64_t>(rng() % (4 * slots));
    const int64_t stages = knm::kStreamKMinStages + static_cast<int64_t>(rng() % 100);
    const knm::StreamKSchedule s = knm::plan_stream_k(tiles, stages, slots);
    if (!s.on()) continue;
    ++checked;
    INFO("tiles " << tiles << " stages " << stages << " slots " << slots);
    REQUIRE(s.blocks % slots == 0);
    REQUIRE(s.blocks <= 2 * slots);
    REQUIRE(s.dp_tiles >= 0);
    REQUIRE(s.dp_tiles < tiles);
    REQUIRE(s.first_unit(0) == s.dp_tiles * stages);
    REQUIRE(s.first_unit(s.blocks) == tiles * stages);
    std::set<int64_t> slots_used;
    for (int64_t j = 0; j < s.blocks; ++j) {
      const int64_t b = s.first_unit(j), e = s.first_unit(j + 1);
      // Every range is half a tile to a tile: at most two segments per block (the kernel's
      // assumption), at most three parts per tile.
      REQUIRE(2 * (e - b) >= stages - 1);
      REQUIRE(e - b <= stages);
      REQUIRE((e - 1) / stages - b / stages <= 1);
      int partial = 0;
      for (int64_t u = b; u < e;) {
        const int64_t t = u / stages, seg_end = std::min(e, (t + 1) * stages);
        REQUIRE(s.block_of(u) == j);
        REQUIRE(s.block_of(seg_end - 1) == j);
        const bool whole = u == t * stages && seg_end == (t + 1) * stages;
        if (!whole) {
          ++partial;
          const int64_t first = s.first_block(t), last = s.last_block(t);
          REQUIRE(first <= j);
          REQUIRE(j <= last);
          REQUIRE(last - first + 1 >= 2);
          REQUIRE(last - first + 1 <= 3);
          const int64_t slot = s.slot(j, t);
          REQUIRE(slot >= 0);
          REQUIRE(slot < s.slots());
          REQUIRE(slots_used.insert(slot).second);  // one slot per partial segment
        } else {
          REQUIRE(s.first_block(t) == j);
          REQUIRE(s.last_block(t) == j);
        }
        u = seg_end;
      }
      REQUIRE(partial <= 2);
    }
    // The parts of every shared tile are its blocks first_block .. last_block, in order along k.
    for (int64_t t = s.dp_tiles; t < tiles; ++t) {
      int64_t covered = t * stages;
      for (int64_t j = s.first_block(t); j <= s.last_block(t); ++j) {
        const int64_t b = std::max(s.first_unit(j), t * stages);
        REQUIRE(b == covered);
        covered = std::min(s.first_unit(j + 1), (t + 1) * stages);
      }
      REQUIRE(covered == (t + 1) * stages);
    }
  }
  CHECK(checked > 500);
}
