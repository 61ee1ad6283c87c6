// The SpTC family's decisions (families/sptc/plan/choice.hpp), on the CPU: the switches parsed
// once (read_overrides), the row order and forced BLOCK_TILE (choose_layout), the kernel rules
// (BN, tiles per block, resident A, the warpgroup kernel, BLOCK_TILE 32 -> 64), the decision on
// representative shapes and devices (choose), every override's effect on it, the plan-info text
// it prints, and the per-call launch (launch_for: B's alignment, the workspace transpose).
#include <catch2/catch.hpp>

#include <string>
#include <variant>

#include "families/sptc/plan/choice.hpp"

namespace ks = spx::kernels::sptc;
namespace sc = spx::plan::sptc;
using spx::dispatch::Switches;
using spx::plan::SptcRowOrder;

namespace {

/// H100 (132 SMs, compute capability 9.0 in a build holding the warpgroup kernel), the DLMC
/// transformer ffn shape 16384 x 512 x 4096 at BLOCK_TILE 128: 128 panels of at most 2 pairs,
/// row-major aligned B, 16F C.
sc::Inputs ffn_h100() {
  sc::Inputs in;
  in.m = 16384;
  in.k = 512;
  in.n = 4096;
  in.sm_count = 132;
  in.wgmma_usable = true;
  in.smem_optin = 232448;
  in.block_tile = 128;
  in.panels = 128;
  in.max_pairs = 2;
  in.tiles = 128 * 8 * 4;
  in.slices = 8;
  in.columns_skipped = 1000;
  in.retries = 3;
  in.padding_columns = 40;
  in.dense_fraction = 0.125;
  return in;
}

/// 4096 x 512 x 512 (transformer attention) at BLOCK_TILE 32 on the same device.
sc::Inputs attention_h100() {
  sc::Inputs in = ffn_h100();
  in.m = 4096;
  in.n = 512;
  in.block_tile = 32;
  in.panels = 128;
  in.max_pairs = 4;
  in.slices = 2;
  return in;
}

const ks::MmaConfig* mma(const sc::SptcConfig& c) { return std::get_if<ks::MmaConfig>(&c); }
const ks::WgmmaConfig* wg(const sc::SptcConfig& c) { return std::get_if<ks::WgmmaConfig>(&c); }

int wgmma_candidates(const sc::Decision& d) {
  int count = 0;
  for (const sc::SptcConfig& c : d.candidates.items()) count += ks::is_wgmma(c) ? 1 : 0;
  return count;
}

sc::Overrides parse(std::initializer_list<std::pair<const char*, const char*>> values) {
  Switches s;
  for (const auto& [name, value] : values) s.set(name, value);
  return sc::read_overrides(s);
}

}  // namespace

TEST_CASE("sptc choice: read_overrides parses every switch once, bad values ignored", "[sptc]") {
  const sc::Overrides none = sc::read_overrides(Switches{});
  CHECK(none.block_tile == 0);
  CHECK(none.cluster == -1);
  CHECK(none.resident == -1);
  CHECK(none.tiles_per_block == 0);
  CHECK(none.wgmma == -1);
  CHECK_FALSE(none.wg_interleave);
  CHECK(none.force_candidate == -1);

  const sc::Overrides all = parse({{"SPX_SPTC_BLOCK_TILE", "64"},
                                   {"SPX_SPTC_CLUSTER", "1"},
                                   {"SPX_SPTC_RESIDENT", "0"},
                                   {"SPX_SPTC_TILES_PER_BLOCK", "3"},
                                   {"SPX_SPTC_WGMMA", "0"},
                                   {"SPX_SPTC_WG_INTERLEAVE", "1"},
                                   {"SPX_SPTC_FORCE_CANDIDATE", "2"}});
  CHECK(all.block_tile == 64);
  CHECK(all.cluster == 1);
  CHECK(all.resident == 0);
  CHECK(all.tiles_per_block == 3);
  CHECK(all.wgmma == 0);
  CHECK(all.wg_interleave);
  CHECK(all.force_candidate == 2);

  const sc::Overrides bad = parse({{"SPX_SPTC_BLOCK_TILE", "48"},
                                   {"SPX_SPTC_CLUSTER", "2"},
                                   {"SPX_SPTC_RESIDENT", "yes"},
                                   {"SPX_SPTC_TILES_PER_BLOCK", "-3"},
                                   {"SPX_SPTC_WGMMA", ""},
                                   {"SPX_SPTC_WG_INTERLEAVE", "0"},
                                   {"SPX_SPTC_FORCE_CANDIDATE", "x"}});
  CHECK(bad.block_tile == 0);
  CHECK(bad.cluster == -1);
  CHECK(bad.resident == -1);
  CHECK(bad.tiles_per_block == 0);
  CHECK(bad.wgmma == -1);
  CHECK_FALSE(bad.wg_interleave);
  CHECK(bad.force_candidate == -1);
  CHECK(parse({{"SPX_SPTC_TILES_PER_BLOCK", "99999999999"}}).tiles_per_block == 0);
}

TEST_CASE("sptc choice: choose_layout's row order and forced BLOCK_TILE", "[sptc]") {
  // Clustering pays only for wide B (n >= 2048) by default.
  CHECK(sc::choose_layout(512, 8, {}).row_order == SptcRowOrder::kIdentity);
  CHECK(sc::choose_layout(4096, 8, {}).row_order == SptcRowOrder::kAuto);
  CHECK(sc::choose_layout(4096, 8, {}).block_tile == 0);
  // SPX_SPTC_CLUSTER forces it either way.
  CHECK(sc::choose_layout(512, 8, parse({{"SPX_SPTC_CLUSTER", "1"}})).row_order ==
        SptcRowOrder::kClustered);
  CHECK(sc::choose_layout(4096, 8, parse({{"SPX_SPTC_CLUSTER", "0"}})).row_order ==
        SptcRowOrder::kIdentity);
  // SPX_SPTC_BLOCK_TILE: any of 16 .. 128, but 128 only with V >= 2 (64 vector rows per panel).
  for (const char* bt : {"16", "32", "64"})
    CHECK(sc::choose_layout(512, 1, parse({{"SPX_SPTC_BLOCK_TILE", bt}})).block_tile ==
          std::stoi(bt));
  CHECK(sc::choose_layout(512, 1, parse({{"SPX_SPTC_BLOCK_TILE", "128"}})).block_tile == 0);
  CHECK(sc::choose_layout(512, 2, parse({{"SPX_SPTC_BLOCK_TILE", "128"}})).block_tile == 128);
}

TEST_CASE("sptc choice: BN and tiles per block keep two waves of resident blocks", "[sptc]") {
  // 16384 x 512 x 4096 at BLOCK_TILE 128 on 132 SMs: two 256-thread blocks of 99 KB per SM (264
  // slots); 128 panels x 32 tiles of BN 128 = 4096 tiles over 2 x 264 blocks: 7 tiles each.
  CHECK(sc::resident_blocks(132, ks::smem_bytes(128, 128), 256) == 264);
  CHECK(sc::tiles_per_block_for(128, 4096, 128, 128, 132) == 7);
  const ks::MmaConfig ffn = sc::choose_config(128, 128, 4096, 132);
  CHECK(ffn.bn == 128);
  CHECK(ffn.tiles_per_block == 7);
  CHECK_FALSE(ffn.resident);
  // 4096 x 512 x 512 at BLOCK_TILE 32: 128 panels x 4 tiles of BN 128 = 512 blocks, fewer than
  // two per slot (3 x 132 of 69 KB), so BN 64: 1024 blocks, under two waves of 4 x 132: one
  // tile per block.
  CHECK(sc::resident_blocks(132, ks::smem_bytes(32, 128), 128) == 396);
  const ks::MmaConfig attention = sc::choose_config(32, 128, 512, 132);
  CHECK(attention.bn == 64);
  CHECK(attention.tiles_per_block == 1);
  // Never more tiles per block than n has, never fewer than one.
  CHECK(sc::tiles_per_block_for(10000, 256, 64, 128, 132) == 2);
  CHECK(sc::tiles_per_block_for(1, 100, 128, 128, 132) == 1);
  // Resident A: only with an aligned B, two or more tiles per block and two blocks per SM.
  CHECK(sc::choose_config(128, 128, 4096, 132, 2, true).resident);
  CHECK_FALSE(sc::choose_config(128, 128, 4096, 132, 2, false).resident);
  CHECK_FALSE(sc::choose_config(128, 128, 4096, 132, 64, true).resident);
}

TEST_CASE("sptc choice: the warpgroup kernel's shapes and its configuration", "[sptc]") {
  // Stages 1 KB aligned (the 128-byte swizzle repeats every 1 KB), plus 1 KB for aligning the
  // base: BLOCK_TILE 128, BN 128 = 3 x 25 KB + indices, epilogue, row map: two blocks per SM;
  // BLOCK_TILE 64, BN 128: three.
  static_assert(ks::WgTileShape<128, 128>::kStageBytes == 25 * 1024, "B 16 + A 8 + M 1 KB");
  static_assert(ks::WgTileShape<64, 128>::kStageBytes % 1024 == 0, "1 KB aligned stages");
  static_assert(ks::WgTileShape<64, 64>::kStageBytes % 1024 == 0, "1 KB aligned stages");
  static_assert(ks::WgTileShape<128, 64>::kStageBytes % 1024 == 0, "1 KB aligned stages");
  CHECK(sc::resident_blocks(132, ks::wgmma_smem_bytes(128, 128), 256) == 264);
  CHECK(sc::resident_blocks(132, ks::wgmma_smem_bytes(64, 128), 128) == 396);
  CHECK(ks::wgmma_smem_bytes(32, 128) == 0);
  CHECK(sc::wgmma_fits(64));
  CHECK(sc::wgmma_fits(128));
  CHECK_FALSE(sc::wgmma_fits(32));
  CHECK_FALSE(sc::wgmma_fits(16));
  // It takes the rule's BN, streams (never resident) and keeps two waves of its own blocks.
  const ks::MmaConfig r = sc::choose_config(128, 128, 4096, 132, 2, true);
  REQUIRE(r.resident);
  const sc::SptcConfig w = sc::with_wgmma(r, 128, 4096, 132);
  REQUIRE(wg(w) != nullptr);
  CHECK(wg(w)->bn == r.bn);
  CHECK(wg(w)->tiles_per_block == 7);
  CHECK_FALSE(wg(w)->interleaved_b);
  CHECK(ks::describe(w) == "BLOCK_TILE 128 BN 128 x7 wgmma.sp stages 3");
  CHECK(ks::describe(r) == "BLOCK_TILE 128 BN 128 x" + std::to_string(r.tiles_per_block) +
                               " resident A stages 3");
  CHECK_FALSE(w == sc::SptcConfig{r});
  // BLOCK_TILE 32 has no warpgroup kernel: unchanged.
  const ks::MmaConfig s32 = sc::choose_config(32, 128, 512, 132);
  CHECK(sc::with_wgmma(s32, 128, 512, 132) == sc::SptcConfig{s32});
  CHECK(sc::wgmma_default(64, 512));
  CHECK_FALSE(sc::wgmma_default(32, 512));
}

TEST_CASE("sptc choice: BLOCK_TILE 32 -> 64 when 64 fits one wave and 32 does not", "[sptc]") {
  // 132 SMs: four 128-thread blocks per SM at BLOCK_TILE 32 and 64 (BN 64): 528 slots.
  REQUIRE(sc::resident_blocks(132, ks::smem_bytes(32, 64), 128) == 528);
  REQUIRE(sc::resident_blocks(132, ks::smem_bytes(64, 64), 128) == 528);
  // 4096 rows x 512: 128 x 8 = 1024 blocks of 32 rows (two waves), 64 x 8 = 512 of 64 (one).
  CHECK(sc::promote_to_block_tile_64(4096, 512, 132));
  CHECK(sc::promote_to_block_tile_64(4096, 320, 132));
  // Narrow or wide B: never (n = 256 keeps the measured rule; wide B has its own cost).
  CHECK_FALSE(sc::promote_to_block_tile_64(4096, 256, 132));
  CHECK_FALSE(sc::promote_to_block_tile_64(4096, 2048, 132));
  // 8192 rows: BLOCK_TILE 64 needs two waves as well; 2048 rows: 32 already fits in one.
  CHECK_FALSE(sc::promote_to_block_tile_64(8192, 512, 132));
  CHECK_FALSE(sc::promote_to_block_tile_64(2048, 512, 132));
  // 1024 columns: 64 x 16 = 1024 blocks of 64 rows, two waves.
  CHECK_FALSE(sc::promote_to_block_tile_64(4096, 1024, 132));
  // Fewer SMs: the same shape needs more waves at 64 too.
  CHECK_FALSE(sc::promote_to_block_tile_64(4096, 512, 108 / 2));
}

TEST_CASE("sptc choice: the decision on representative shapes and devices", "[sptc]") {
  SECTION("H100, BLOCK_TILE 128, wide B: the warpgroup kernel first, then the mma.sync rule") {
    const sc::Decision d = sc::choose(ffn_h100(), {});
    REQUIRE(wg(d.rule) != nullptr);
    CHECK(wg(d.rule)->bn == 128);
    CHECK(wg(d.rule)->tiles_per_block == 7);
    CHECK(d.candidates.selected() == 0);
    CHECK(d.candidates.chosen() == d.rule);
    // Then the mma.sync rule (resident A: aligned B, 7 tiles per block, 2-pair panels).
    REQUIRE(mma(d.candidates.at(1)) != nullptr);
    CHECK(mma(d.candidates.at(1))->resident);
    CHECK(d.candidates.at(1) == sc::SptcConfig{sc::choose_config(128, 128, 4096, 132, 2, true)});
    // The warpgroup kernel at both BN, the mma.sync streaming kernel at both BN (the rule's
    // tiles per block and one): no duplicates.
    CHECK(wgmma_candidates(d) == 2);
    for (int i = 0; i < d.candidates.count(); ++i)
      for (int j = 0; j < i; ++j) CHECK_FALSE(d.candidates.at(i) == d.candidates.at(j));
    CHECK(d.uses_wgmma());
    CHECK(d.kernel_name() == "sptc_mma_sp_f16");
    CHECK(d.describe() == "BLOCK_TILE 128 BN 128 x7 wgmma.sp stages 3" + d.layout);
  }
  SECTION("compute capability 8.0 (A100, 108 SMs), or a build without sm_90a: mma.sync only") {
    sc::Inputs in = ffn_h100();
    in.wgmma_usable = false;
    in.sm_count = 108;
    const sc::Decision a100 = sc::choose(in, {});
    REQUIRE(mma(a100.rule) != nullptr);
    CHECK(a100.rule == sc::SptcConfig{sc::choose_config(128, 128, 4096, 108, 2, true)});
    CHECK(wgmma_candidates(a100) == 0);
    CHECK_FALSE(a100.uses_wgmma());
  }
  SECTION("BLOCK_TILE 32, mid-width B: BN 64, one tile per block, no warpgroup or resident") {
    const sc::Decision d = sc::choose(attention_h100(), {});
    REQUIRE(mma(d.rule) != nullptr);
    CHECK(mma(d.rule)->bn == 64);
    CHECK(mma(d.rule)->tiles_per_block == 1);
    CHECK_FALSE(mma(d.rule)->resident);
    CHECK(wgmma_candidates(d) == 0);
    // BN 64 x1 (the rule), BN 128 x1 (its tiles per block is 1 too): two candidates.
    CHECK(d.candidates.count() == 2);
    for (const sc::SptcConfig& c : d.candidates.items()) CHECK_FALSE(mma(c)->resident);
    CHECK(d.describe() == "BLOCK_TILE 32 BN 64 x1 stages 3" + d.layout);
  }
  SECTION("n <= 64: BN 64 candidates only") {
    sc::Inputs in = ffn_h100();
    in.n = 48;
    const sc::Decision d = sc::choose(in, {});
    for (const sc::SptcConfig& c : d.candidates.items()) CHECK(ks::bn_of(c) == 64);
    CHECK(wg(d.rule) != nullptr);
  }
  SECTION("an unaligned row-major B at analyze: neither the warpgroup kernel nor resident A") {
    sc::Inputs in = ffn_h100();
    in.b_aligned = false;
    const sc::Decision d = sc::choose(in, {});
    CHECK(wgmma_candidates(d) == 0);
    for (const sc::SptcConfig& c : d.candidates.items()) CHECK_FALSE(mma(c)->resident);
    // SPX_SPTC_RESIDENT=1 cannot name a kernel that would not run.
    const sc::Decision forced = sc::choose(in, parse({{"SPX_SPTC_RESIDENT", "1"}}));
    CHECK_FALSE(mma(forced.rule)->resident);
    CHECK(forced.describe().find("resident A") == std::string::npos);
  }
  SECTION("resident A's shared memory beyond the device's opt-in: no resident candidate") {
    sc::Inputs in = ffn_h100();
    in.wgmma_usable = false;
    in.max_pairs = 12;  // 12 pairs at BLOCK_TILE 128: ~130 KB
    REQUIRE(ks::smem_bytes(128, 128, true, 12) > 101376);
    REQUIRE(ks::smem_bytes(128, 128, true, 12) <= ks::kMaxSmemPerBlock);
    bool resident = false;
    const sc::Decision roomy = sc::choose(in, {});  // kept: the loop walks its candidates
    for (const sc::SptcConfig& c : roomy.candidates.items()) resident = resident || mma(c)->resident;
    CHECK(resident);
    in.smem_optin = 101376;  // 99 KB (sm_86)
    const sc::Decision small = sc::choose(in, {});
    for (const sc::SptcConfig& c : small.candidates.items()) CHECK_FALSE(mma(c)->resident);
  }
}

TEST_CASE("sptc choice: each override changes the decision as documented", "[sptc]") {
  SECTION("SPX_SPTC_RESIDENT=1: resident A is the rule's choice, ahead of the warpgroup kernel") {
    sc::Inputs in = ffn_h100();
    in.n = 256;  // the rule streams (two tiles of BN 128 over few panels: one tile per block)
    in.block_tile = 64;
    in.panels = 256;
    const sc::Decision plain = sc::choose(in, {});
    const sc::Decision d = sc::choose(in, parse({{"SPX_SPTC_RESIDENT", "1"}}));
    REQUIRE(mma(d.rule) != nullptr);
    CHECK(mma(d.rule)->resident);
    CHECK(mma(d.rule)->bn == 128);
    CHECK(d.candidates.chosen() == d.rule);
    CHECK(d.describe().find("resident A") != std::string::npos);
    CHECK(wgmma_candidates(d) == 2);  // still candidates
    CHECK(wg(plain.rule) != nullptr);
  }
  SECTION("SPX_SPTC_RESIDENT=0: the rule's resident A streams instead") {
    sc::Inputs in = ffn_h100();
    in.wgmma_usable = false;
    REQUIRE(mma(sc::choose(in, {}).rule)->resident);
    const sc::Decision d = sc::choose(in, parse({{"SPX_SPTC_RESIDENT", "0"}}));
    CHECK_FALSE(mma(d.rule)->resident);
    CHECK(mma(d.rule)->tiles_per_block == 7);
  }
  SECTION("SPX_SPTC_WGMMA=0 / 1") {
    const sc::Decision off = sc::choose(ffn_h100(), parse({{"SPX_SPTC_WGMMA", "0"}}));
    CHECK(wgmma_candidates(off) == 0);
    CHECK(mma(off.rule) != nullptr);
    CHECK(off.describe().find("wgmma.sp") == std::string::npos);
    sc::Inputs in = ffn_h100();
    in.block_tile = 64;
    const sc::Decision on = sc::choose(in, parse({{"SPX_SPTC_WGMMA", "1"}}));
    CHECK(wg(on.rule) != nullptr);
    // Where it cannot run, 1 changes nothing.
    CHECK(wgmma_candidates(sc::choose(attention_h100(), parse({{"SPX_SPTC_WGMMA", "1"}}))) == 0);
  }
  SECTION("SPX_SPTC_TILES_PER_BLOCK=t: every candidate") {
    const sc::Decision d = sc::choose(ffn_h100(), parse({{"SPX_SPTC_TILES_PER_BLOCK", "3"}}));
    for (int i = 0; i < d.candidates.count(); ++i) {
      CHECK(ks::tiles_per_block_of(d.candidates.at(i)) == 3);
      CHECK(d.describe(i).find(" x3 ") != std::string::npos);
    }
    CHECK(ks::tiles_per_block_of(d.rule) == 7);  // the rule's own choice, before the override
  }
  SECTION("SPX_SPTC_WG_INTERLEAVE=1: the warpgroup candidates stage B without swizzle") {
    const sc::Decision d = sc::choose(ffn_h100(), parse({{"SPX_SPTC_WG_INTERLEAVE", "1"}}));
    CHECK(wgmma_candidates(d) == 2);
    for (const sc::SptcConfig& c : d.candidates.items())
      if (wg(c) != nullptr) CHECK(wg(c)->interleaved_b);
    CHECK(d.describe().find("wgmma.sp interleaved B") != std::string::npos);
    CHECK(sc::choose(ffn_h100(), {}).describe().find("interleaved B") == std::string::npos);
  }
  SECTION("SPX_SPTC_FORCE_CANDIDATE=i: the plan starts on candidate i; out of range ignored") {
    const sc::Decision d = sc::choose(ffn_h100(), parse({{"SPX_SPTC_FORCE_CANDIDATE", "2"}}));
    CHECK(d.candidates.selected() == 2);
    CHECK(d.describe() == d.describe(2));
    CHECK(d.describe() != d.describe(0));
    const sc::Overrides far = parse({{"SPX_SPTC_FORCE_CANDIDATE", "99"}});
    CHECK(sc::choose(ffn_h100(), far).candidates.selected() == 0);
  }
}

TEST_CASE("sptc choice: describe() is what the decision holds", "[sptc]") {
  sc::Inputs in = ffn_h100();
  in.clustered = true;
  in.c_type = SPX_R_32F;
  in.c_order = SPX_ORDER_COL;
  in.bf16 = true;
  sc::Decision d = sc::choose(in, {});
  // 4096 tiles over 8 slices: 512 k tiles.
  CHECK(d.layout ==
        "; clustered rows, k tiles 512, skipped 1000, retries 3, pad 40; 12.5% of dense; B row, "
        "C 32F col");
  CHECK(d.kernel_name() == "sptc_mma_sp_bf16");
  for (int i = 0; i < d.candidates.count(); ++i)
    CHECK(d.describe(i) == ks::describe(d.candidates.at(i)) + d.layout);
  d.candidates.select(d.candidates.count() - 1);
  CHECK(d.describe() == d.describe(d.candidates.count() - 1));
  in.clustered = false;
  in.b_order = SPX_ORDER_COL;
  CHECK(sc::choose(in, {}).layout.rfind("; k tiles 512, ", 0) == 0);
  CHECK(sc::choose(in, {}).layout.find("B col, C 32F col") != std::string::npos);
}

TEST_CASE("sptc choice: launch_for decides per call how B is read", "[sptc]") {
  const sc::Decision d = sc::choose(ffn_h100(), {});
  const sc::SptcConfig w = d.rule;
  const sc::SptcConfig r = d.candidates.at(1);  // mma.sync, resident A
  REQUIRE(mma(r) != nullptr);
  REQUIRE(mma(r)->resident);
  sc::CallB b;
  b.address = 0x10000;
  b.ld = 4096;
  b.k = 512;
  b.n = 4096;
  // Aligned row-major B: the decided kernels as they are, the user's B in place.
  ks::SptcLaunch l = sc::launch_for(w, 2, b);
  CHECK(l.kernel == w);
  CHECK(l.b.source == ks::BSource::kUser);
  CHECK(l.b.ldb == 4096);
  CHECK(l.b.aligned);
  CHECK(l.b.off32);
  l = sc::launch_for(r, 2, b);
  CHECK(l.kernel == r);
  CHECK(l.resident_smem == ks::smem_bytes(128, 128, true, 2));
  // Unaligned (ld % 8 != 0 or the pointer): the mma.sync streaming kernel, same BN and tiles.
  for (auto [address, ld] : {std::pair<uintptr_t, int64_t>{0x10000, 4100}, {0x10002, 4096}}) {
    b.address = address;
    b.ld = ld;
    l = sc::launch_for(w, 2, b);
    REQUIRE(mma(l.kernel) != nullptr);
    CHECK_FALSE(l.b.aligned);
    CHECK(mma(l.kernel)->bn == wg(w)->bn);
    CHECK(mma(l.kernel)->tiles_per_block == wg(w)->tiles_per_block);
    CHECK_FALSE(mma(l.kernel)->resident);
    l = sc::launch_for(r, 2, b);
    CHECK_FALSE(mma(l.kernel)->resident);
    CHECK(l.resident_smem == 0);
  }
  // Column-major B: transposed into the workspace at ld = n rounded up to 8.
  b.row_major = false;
  b.n = 4093;
  b.ld = 512;
  b.workspace = 0x20000;
  l = sc::launch_for(w, 2, b);
  CHECK(l.b.source == ks::BSource::kWorkspace);
  CHECK(l.b.ldb == 4096);
  CHECK(l.b.aligned);
  CHECK(l.kernel == w);
  CHECK(sc::workspace_bytes(512, 4093, SPX_ORDER_COL) == size_t{512} * 4096 * 2);
  CHECK(sc::workspace_bytes(512, 4093, SPX_ORDER_ROW) == 0);
  // k = 0: nothing to read (the kernel writes beta * C).
  b.k = 0;
  l = sc::launch_for(w, 2, b);
  CHECK(l.b.source == ks::BSource::kNone);
  CHECK_FALSE(l.b.aligned);
  // B beyond 4 GiB of its base: 64-bit row offsets.
  b.row_major = true;
  b.address = 0x10000;
  b.ld = 4096;
  b.k = int64_t{1} << 20;
  CHECK_FALSE(sc::launch_for(w, 2, b).b.off32);
  // b_aligned at analyze: column-major is always aligned (the workspace).
  CHECK(sc::b_aligned(false, 0x3, 5));
  CHECK(sc::b_aligned(true, 0x10, 8));
  CHECK_FALSE(sc::b_aligned(true, 0x10, 9));
  CHECK_FALSE(sc::b_aligned(true, 0x8, 8));
}
