// The NM family's one decision (families/nm/plan/choice.hpp), on the CPU: read_overrides parses
// every SPX_NM* switch the family honours (and ignores what does not parse); choose() picks the
// rule's kernel, tile, split, packing and B handling on representative shapes of an H100 (sm_90
// code, tensor copies) and an A100 (sm_80); each override changes the decision as the README
// documents; describe() says what the decision holds; config_for_call falls back to the cp.async
// kernel only where a call's B cannot be read by the tensor copies; the workspace covers every
// candidate; and choose_tile, the tile / split rule inside choose().
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <string>
#include <variant>
#include <vector>

#include "families/nm/plan/choice.hpp"
#include "families/switches.hpp"

namespace plan = spx::plan;
namespace pnm = spx::plan::nm;
namespace knm = spx::kernels::nm;
using spx::dispatch::Switches;

namespace {

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

enum class Gpu { H100, A100 };

/// A problem m x k (A, N:M in groups of L) times k x n on a device, with its indices.
struct Problem {
  pnm::Inputs in;
  std::vector<int32_t> idx;

  Problem(int64_t m, int64_t k, int64_t n, int64_t N, int64_t M, int64_t L, Gpu gpu = Gpu::H100,
          bool b_col = false, bool c_col = true) {
    in.dims.rows = m;
    in.dims.cols = k;
    in.dims.n = N;
    in.dims.m = M;
    in.dims.l = L;
    in.n_cols = n;
    in.b_col_major = b_col;
    in.c_col_major = c_col;
    in.b_ld = b_col ? k : n;
    in.b_aligned = true;
    if (gpu == Gpu::H100) {
      in.sm_count = 132;
      in.code_arch = 90;
      in.smem_optin = 227 * 1024;
      in.tensor_maps = true;
    } else {
      in.sm_count = 108;
      in.code_arch = 80;
      in.smem_optin = 163 * 1024;
      in.tensor_maps = false;
    }
    // Two stream-K blocks of the Wide tile per SM (H100, measured), none elsewhere.
    in.stream_k_blocks_per_sm = [](knm::TileId tile, int64_t) {
      return knm::has_stream_k_kernel(knm::tile_shape(tile)) ? 2 : 0;
    };
    idx = random_indices(in.dims, 7);
    in.indices = idx.data();
  }
  pnm::Decision choose(const pnm::Overrides& ov = {}) const { return pnm::choose(in, ov); }
};

bool has(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

template <class Loop>
bool is(const knm::SpmmConfig& c) {
  return std::holds_alternative<Loop>(c.loop);
}

pnm::Overrides overrides_of(std::initializer_list<std::pair<const char*, const char*>> vars) {
  Switches s;
  for (const auto& v : vars) s.set(v.first, v.second);
  return pnm::read_overrides(s);
}

/// describe(i) names exactly what candidate i holds.
void check_describe(const pnm::Decision& d) {
  for (int i = 0; i < d.candidates.count(); ++i) {
    const knm::SpmmConfig& c = d.candidates.at(i).config;
    const std::string text = d.describe(i);
    INFO("candidate " << i << ": " << text);
    CHECK(has(text, std::string("tile ") + knm::tile_shape(c.tile).name + " "));
    CHECK(has(text, "split-K " + std::to_string(knm::split_of(c)) + ";"));
    CHECK(has(text, knm::tensor_copies(c) ? "loads tma" : "loads cp.async"));
    CHECK(has(text, d.packing ? "packing on" : "packing off"));
    CHECK(has(text,
              "w_s " + std::to_string(d.staging.w_s) + " k_s " + std::to_string(d.staging.k_s)));
    CHECK(has(text, "depth " + std::to_string(d.depth)));
    if (const auto* sk = std::get_if<knm::StreamKLoop>(&c.loop))
      CHECK(has(text, "stream-K " + std::to_string(sk->schedule.blocks) + ";"));
    else
      CHECK(has(text, "stream-K off"));
    if (!d.b_col_major)
      CHECK(has(text, "B row C"));
    else if (is<knm::StreamedBLoop>(c))
      CHECK(has(text, "B col (staged row-major, streamed)"));
    else if (knm::staged_b(c))
      CHECK(has(text, "B col (staged row-major) C"));
    else
      CHECK(has(text, "B col C"));
    CHECK(has(text, d.c_col_major ? " C col;" : " C row;"));
  }
  CHECK(d.describe() == d.describe(d.candidates.selected()));
}

}  // namespace

TEST_CASE("NM read_overrides parses every switch once", "[nm][choice]") {
  const pnm::Overrides none = overrides_of({});
  CHECK(none.force_packing == -1);
  CHECK(none.force_tile == -1);
  CHECK(none.force_split == 0);
  CHECK(none.stage_b);
  CHECK(none.stream_b);
  CHECK(none.stream_k == -1);
  CHECK(none.stream_k_slots == 0);
  CHECK(none.producer_last);

  const pnm::Overrides all = overrides_of({{"SPX_NM_FORCE_PACKING", "1"},
                                           {"SPX_NM_FORCE_TILE", "medium"},
                                           {"SPX_NM_FORCE_SPLIT", "3"},
                                           {"SPX_NM_STAGE_B", "0"},
                                           {"SPX_NM_STREAM_B", "0"},
                                           {"SPX_NM_STREAM_K", "1"},
                                           {"SPX_NM_STREAM_K_SLOTS", "7"},
                                           {"SPX_NM_PRODUCER", "0"}});
  CHECK(all.force_packing == 1);
  CHECK(all.force_tile == static_cast<int>(knm::TileId::Medium));
  CHECK(all.force_split == 3);
  CHECK_FALSE(all.stage_b);
  CHECK_FALSE(all.stream_b);
  CHECK(all.stream_k == 1);
  CHECK(all.stream_k_slots == 7);
  CHECK_FALSE(all.producer_last);

  // Values that do not parse, or are out of range, are ignored (or clamped: split at most 64).
  const pnm::Overrides bad = overrides_of({{"SPX_NM_FORCE_PACKING", "2"},
                                           {"SPX_NM_FORCE_TILE", "enormous"},
                                           {"SPX_NM_FORCE_SPLIT", "1000"},
                                           {"SPX_NM_STAGE_B", "yes"},
                                           {"SPX_NM_STREAM_K", "x"},
                                           {"SPX_NM_STREAM_K_SLOTS", "1"}});
  CHECK(bad.force_packing == -1);
  CHECK(bad.force_tile == -1);
  CHECK(bad.force_split == 64);
  CHECK(bad.stage_b);
  CHECK(bad.stream_k == -1);
  CHECK(bad.stream_k_slots == 0);
  // Switches the family dropped are not read (the rule's defaults stay).
  const pnm::Overrides dropped = overrides_of({{"SPX_NM_DEPTH", "3"}, {"SPX_NM_BULK", "0"}});
  const pnm::Decision d = Problem(1024, 1024, 1024, 2, 4, 32).choose(dropped);
  CHECK(d.depth == 2);
  CHECK(knm::tensor_copies(d.chosen()));
}

TEST_CASE("NM choice on representative shapes", "[nm][choice]") {
  SECTION("H100, 4096^3 2:4, row-major B: Wide tile on the tensor-copy kernel") {
    const pnm::Decision d = Problem(4096, 4096, 4096, 2, 4, 32).choose();
    CHECK(d.chosen().tile == knm::TileId::Wide);
    CHECK(is<knm::BulkLoop>(d.chosen()));
    CHECK(knm::split_of(d.chosen()) == 1);
    CHECK_FALSE(d.packing);
    CHECK(d.depth == 2);
    CHECK(d.staging.w_s == 36);  // README: w_s 36 at 2:4 on H100
    // 3.88 waves of 264 slots: stream-K does not pay (stream_k.hpp), so none is a candidate.
    for (const pnm::Candidate& c : d.candidates.items())
      CHECK_FALSE(is<knm::StreamKLoop>(c.config));
    CHECK(d.predicted_speedup > 1.0);
    check_describe(d);
  }
  SECTION("H100, 4096^3 2:4, column-major B: the copy of B streamed beside the Wide tile") {
    const pnm::Decision d = Problem(4096, 4096, 4096, 2, 4, 32, Gpu::H100, true).choose();
    CHECK(d.chosen().tile == knm::TileId::Wide);
    CHECK(is<knm::StreamedBLoop>(d.chosen()));
    // Then the copy before the kernel, and the direct column-major loader, for the search.
    CHECK(is<knm::BulkLoop>(d.candidates.at(1).config));
    CHECK(knm::staged_b(d.candidates.at(1).config));
    bool direct = false;
    for (const pnm::Candidate& c : d.candidates.items())
      direct = direct || (!knm::staged_b(c.config) && is<knm::CpAsyncLoop>(c.config));
    CHECK(direct);
    check_describe(d);
  }
  SECTION("A100, 4096^3 2:4: Huge tile on the cp.async kernel") {
    const pnm::Decision d = Problem(4096, 4096, 4096, 2, 4, 32, Gpu::A100).choose();
    CHECK(d.chosen().tile == knm::TileId::Huge);
    CHECK(is<knm::CpAsyncLoop>(d.chosen()));
    for (const pnm::Candidate& c : d.candidates.items()) CHECK_FALSE(knm::tensor_copies(c.config));
    check_describe(d);
  }
  SECTION("1:8 packs on the cp.async kernel, not on the tensor-copy kernel") {
    CHECK(Problem(2048, 4096, 2048, 1, 8, 32, Gpu::A100).choose().packing);
    CHECK_FALSE(Problem(2048, 4096, 2048, 1, 8, 32, Gpu::H100).choose().packing);
    // A packed plan runs only the cp.async kernel.
    const pnm::Decision d = Problem(2048, 4096, 2048, 1, 16, 32, Gpu::H100).choose();
    CHECK(d.packing);
    for (const pnm::Candidate& c : d.candidates.items()) CHECK(is<knm::CpAsyncLoop>(c.config));
    check_describe(d);
  }
  SECTION("a small output with a long reduction splits K") {
    const pnm::Decision d = Problem(128, 16384, 64, 2, 4, 32).choose();
    CHECK(knm::split_of(d.chosen()) > 1);
    // The same tile without split-K is a candidate.
    bool unsplit = false;
    for (const pnm::Candidate& c : d.candidates.items())
      unsplit = unsplit || (c.config.tile == d.chosen().tile && knm::split_of(c.config) == 1);
    CHECK(unsplit);
    CHECK(d.workspace_bytes() >= int64_t{knm::split_of(d.chosen())} * 128 * 64 * 4);
    check_describe(d);
  }
  SECTION("B the tensor copies cannot read at analyze: the cp.async kernel") {
    Problem ld(1024, 1024, 1022, 2, 4, 32);  // ld 1022: rows not 16-byte multiples
    CHECK(is<knm::CpAsyncLoop>(ld.choose().chosen()));
    Problem off(1024, 1024, 1024, 2, 4, 32);
    off.in.b_aligned = false;
    CHECK(is<knm::CpAsyncLoop>(off.choose().chosen()));
    Problem no_encoder(1024, 1024, 1024, 2, 4, 32);
    no_encoder.in.tensor_maps = false;
    CHECK(is<knm::CpAsyncLoop>(no_encoder.choose().chosen()));
    Problem sm80_code(1024, 1024, 1024, 2, 4, 32);
    sm80_code.in.code_arch = 80;  // sm_80 code JIT-compiled on an H100
    CHECK(is<knm::CpAsyncLoop>(sm80_code.choose().chosen()));
  }
  SECTION("any_stage_fits needs a stage in shared memory") {
    Problem p(1024, 1024, 1024, 2, 4, 32);
    CHECK(pnm::any_stage_fits(p.in));
    p.in.smem_optin = 1024;  // not even the Small tile's two stages of one window pair
    CHECK_FALSE(pnm::any_stage_fits(p.in));
  }
}

TEST_CASE("NM each override changes the decision as documented", "[nm][choice]") {
  const Problem row(4096, 4096, 4096, 2, 4, 32);
  const Problem col(4096, 4096, 4096, 2, 4, 32, Gpu::H100, true);
  SECTION("SPX_NM_FORCE_PACKING") {
    const Problem p(2048, 4096, 2048, 1, 8, 32, Gpu::A100);
    CHECK(p.choose().packing);
    CHECK_FALSE(p.choose(overrides_of({{"SPX_NM_FORCE_PACKING", "0"}})).packing);
    CHECK(row.choose(overrides_of({{"SPX_NM_FORCE_PACKING", "1"}})).packing);
    CHECK(row.choose(overrides_of({{"SPX_NM_FORCE_PACKING", "1"}})).packing_forced);
  }
  SECTION("SPX_NM_FORCE_TILE") {
    for (const knm::TileShape& t : knm::kTiles) {
      const pnm::Decision d = row.choose(overrides_of({{"SPX_NM_FORCE_TILE", t.name}}));
      CHECK(d.chosen().tile == t.id);
      check_describe(d);
    }
  }
  SECTION("SPX_NM_FORCE_SPLIT") {
    const pnm::Decision d = row.choose(overrides_of({{"SPX_NM_FORCE_SPLIT", "3"}}));
    CHECK(knm::split_of(d.chosen()) == 3);
    CHECK(d.workspace_bytes() >= int64_t{3} * 4096 * 4096 * 4);
    check_describe(d);
  }
  SECTION("SPX_NM_STAGE_B=0: the direct column-major loader") {
    const pnm::Decision d = col.choose(overrides_of({{"SPX_NM_STAGE_B", "0"}}));
    CHECK(is<knm::CpAsyncLoop>(d.chosen()));
    CHECK_FALSE(knm::staged_b(d.chosen()));
    for (const pnm::Candidate& c : d.candidates.items()) CHECK_FALSE(knm::staged_b(c.config));
    CHECK(d.workspace_bytes() == 0);
    check_describe(d);
  }
  SECTION("SPX_NM_STREAM_B=0: the copy of B before the kernel") {
    const pnm::Decision d = col.choose(overrides_of({{"SPX_NM_STREAM_B", "0"}}));
    CHECK(is<knm::BulkLoop>(d.chosen()));
    CHECK(knm::staged_b(d.chosen()));
    for (const pnm::Candidate& c : d.candidates.items())
      CHECK_FALSE(is<knm::StreamedBLoop>(c.config));
    check_describe(d);
  }
  SECTION("SPX_NM_STREAM_K and SPX_NM_STREAM_K_SLOTS") {
    // 25 Wide tiles on 7 slots: 21 whole, 4 shared over 7 blocks (tests/gpu/test_nm.cpp's case).
    const Problem p(608, 2000, 520, 3, 8, 32);
    // (The rule splits K for 25 tiles on 132 SMs; stream-K is for one block per tile.)
    const pnm::Decision forced = p.choose(overrides_of({{"SPX_NM_STREAM_K", "1"},
                                                        {"SPX_NM_STREAM_K_SLOTS", "7"},
                                                        {"SPX_NM_FORCE_TILE", "wide"},
                                                        {"SPX_NM_FORCE_SPLIT", "1"}}));
    REQUIRE(is<knm::StreamKLoop>(forced.chosen()));
    const auto& sk = std::get<knm::StreamKLoop>(forced.chosen().loop);
    CHECK(sk.schedule.tiles == 25);
    CHECK(sk.schedule.dp_tiles == 21);
    CHECK(sk.schedule.blocks == 7);
    CHECK(sk.m_tiles == 5);
    CHECK(sk.ws.partials >= 0);
    CHECK(sk.ws.counters > sk.ws.partials);
    // One block per tile stays a candidate.
    CHECK(is<knm::BulkLoop>(forced.candidates.at(1).config));
    check_describe(forced);
    // SPX_NM_STREAM_K=0: no stream-K configuration at all.
    const pnm::Decision off = p.choose(overrides_of({{"SPX_NM_STREAM_K", "0"},
                                                     {"SPX_NM_STREAM_K_SLOTS", "7"},
                                                     {"SPX_NM_FORCE_TILE", "wide"},
                                                     {"SPX_NM_FORCE_SPLIT", "1"}}));
    for (const pnm::Candidate& c : off.candidates.items())
      CHECK_FALSE(is<knm::StreamKLoop>(c.config));
    // 25 tiles on 26 slots: a nearly full last wave, no schedule even when forced.
    const pnm::Decision full = p.choose(overrides_of({{"SPX_NM_STREAM_K", "1"},
                                                      {"SPX_NM_STREAM_K_SLOTS", "26"},
                                                      {"SPX_NM_FORCE_TILE", "wide"},
                                                      {"SPX_NM_FORCE_SPLIT", "1"}}));
    CHECK(is<knm::BulkLoop>(full.chosen()));
  }
  SECTION("SPX_NM_PRODUCER=0: warp 0 produces, and no stream-K") {
    const pnm::Decision d = Problem(608, 2000, 520, 3, 8, 32)
                                .choose(overrides_of({{"SPX_NM_PRODUCER", "0"},
                                                      {"SPX_NM_STREAM_K", "1"},
                                                      {"SPX_NM_STREAM_K_SLOTS", "7"},
                                                      {"SPX_NM_FORCE_TILE", "wide"},
                                                      {"SPX_NM_FORCE_SPLIT", "1"}}));
    REQUIRE(is<knm::BulkLoop>(d.chosen()));
    CHECK_FALSE(std::get<knm::BulkLoop>(d.chosen().loop).producer_last);
    for (const pnm::Candidate& c : d.candidates.items())
      CHECK_FALSE(is<knm::StreamKLoop>(c.config));
  }
}

TEST_CASE("NM per-call choice: the cp.async kernel only for a B the copies cannot read",
          "[nm][choice]") {
  const pnm::Decision row = Problem(1024, 1024, 1024, 2, 4, 32).choose();
  const pnm::Candidate& c = row.candidates.chosen();
  REQUIRE(is<knm::BulkLoop>(c.config));
  // The fallback: the same tile and split on the cp.async kernel.
  REQUIRE(is<knm::CpAsyncLoop>(c.fallback));
  CHECK(c.fallback.tile == c.config.tile);
  CHECK(knm::split_of(c.fallback) == knm::split_of(c.config));
  pnm::CallB b;
  b.ld = 1024;
  b.address = 0x10000;
  CHECK(&pnm::config_for_call(c, b) == &c.config);
  b.address = 0x10004;  // 4 bytes off 16-byte alignment
  CHECK(&pnm::config_for_call(c, b) == &c.fallback);
  b.address = 0x10000;
  b.ld = 1030;  // rows not 16-byte multiples
  CHECK(&pnm::config_for_call(c, b) == &c.fallback);

  // A column-major B is read as its row-major copy in the workspace: the workspace's address
  // counts, not B's.
  const pnm::Decision col = Problem(4096, 4096, 4096, 2, 4, 32, Gpu::H100, true).choose();
  const pnm::Candidate& s = col.candidates.chosen();
  REQUIRE(is<knm::StreamedBLoop>(s.config));
  CHECK(is<knm::CpAsyncLoop>(s.fallback));
  CHECK(knm::staged_b(s.fallback));
  b.ld = 4093;
  b.address = 0x10004;
  b.workspace = 0x20000;
  CHECK(&pnm::config_for_call(s, b) == &s.config);
  b.workspace = 0x20008;
  CHECK(&pnm::config_for_call(s, b) == &s.fallback);
  CHECK(col.workspace_bytes() >= knm::workspace_of(s.fallback).total);

  // A cp.async configuration runs whatever the call's B.
  const pnm::Decision a100 = Problem(1024, 1024, 1024, 2, 4, 32, Gpu::A100).choose();
  b.ld = 1023;
  CHECK(&pnm::config_for_call(a100.candidates.chosen(), b) == &a100.candidates.chosen().config);
}

TEST_CASE("NM streamed copy geometry and workspace layout", "[nm][choice]") {
  const pnm::Decision d = Problem(4096, 384, 1290, 2, 4, 32, Gpu::H100, true)
                              .choose(overrides_of({{"SPX_NM_FORCE_TILE", "wide"}}));
  REQUIRE(is<knm::StreamedBLoop>(d.chosen()));
  const auto& s = std::get<knm::StreamedBLoop>(d.chosen().loop);
  CHECK(s.chunks == 12);        // 384 rows / 32
  CHECK(s.panels == 11);        // 1290 columns / 128
  CHECK(s.copy_blocks == 132);  // one per SM
  CHECK(s.copy_grid == 132);
  CHECK(s.panel_group == 9);  // 264 resident tiles over 32 row tiles
  CHECK(s.box_rows > 0);
  CHECK(d.staging.k_s % s.box_rows == 0);
  CHECK(s.ws.staged_b == 0);
  CHECK(s.ws.flags == knm::staged_b_bytes(384, 1290));
  CHECK(s.ws.total == s.ws.flags + knm::streamed_flag_bytes(384, 1290, 128));
  CHECK(d.workspace_bytes() >= s.ws.total);
}

TEST_CASE("NM tile choice by shape", "[nm][config]") {
  const bool all[knm::kTileCount] = {true, true, true, true, true};
  pnm::TileChoice c = pnm::choose_tile(4096, 4096, 128, 132, all);
  CHECK(knm::tile_shape(c.tile).bm == 128);
  CHECK(knm::tile_shape(c.tile).bn == 128);
  CHECK(c.split == 1);
  // A small output with a long reduction: split-K.
  c = pnm::choose_tile(64, 64, 64, 132, all);
  CHECK(c.split > 1);
  CHECK(c.split <= 16);
  // Few stages: no split.
  c = pnm::choose_tile(64, 64, 2, 132, all);
  CHECK(c.split == 1);
  // Only the small tile fits.
  const bool small_only[knm::kTileCount] = {true, false, false, false, false};
  CHECK(pnm::choose_tile(4096, 4096, 128, 132, small_only).tile == knm::TileId::Small);
  // 128 x 128 tiles: Huge on the cp.async kernel, Wide (8 x 16 threads) on sm_90's tensor-copy
  // kernel; Huge again where Wide does not fit.
  CHECK(pnm::choose_tile(4096, 4096, 128, 132, all, false).tile == knm::TileId::Huge);
  CHECK(pnm::choose_tile(4096, 4096, 128, 132, all, true).tile == knm::TileId::Wide);
  const bool no_wide[knm::kTileCount] = {true, true, true, true, false};
  CHECK(pnm::choose_tile(4096, 4096, 128, 132, no_wide, true).tile == knm::TileId::Huge);
  // Small outputs keep the small tiles' utilization on either kernel.
  CHECK(pnm::choose_tile(256, 256, 128, 132, all, true).tile ==
        pnm::choose_tile(256, 256, 128, 132, all, false).tile);
}
