// The SR-BCRS family's decisions (plan/choice.hpp, plan/sddmm.hpp): read_overrides, choose (SpMM
// and SDDMM: refusals, variant, stride, schedule candidates and the one that runs, workspace, the
// plan info text, which spxPlanInfo_t prints verbatim), the per-call B (SpMM) and A / B (SDDMM)
// sources, and the rules' pieces (schedule rule and candidates, pitches, in-place tests).
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "runtime/dtype.hpp"
#include "families/switches.hpp"
#include "families/srbcrs/plan/choice.hpp"
#include "families/srbcrs/plan/layout.hpp"
#include "families/srbcrs/plan/sddmm.hpp"
#include "require_error.hpp"

namespace plan = spx::plan;
namespace ps = spx::plan::srbcrs;
using spx::dispatch::Switches;

namespace {

/// R vector-rows of `per_row` vectors each (columns not needed by the statistics).
struct Rows {
  std::vector<int32_t> ptr;
  plan::BcrsView view(int64_t vec_len, int64_t cols) const {
    plan::BcrsView v;
    v.rows = static_cast<int64_t>(ptr.size() - 1) * vec_len;
    v.cols = cols;
    v.vec_len = vec_len;
    v.block_row_ptr = ptr.data();
    return v;
  }
};
Rows uniform_rows(int64_t vector_rows, int32_t per_row) {
  Rows r;
  for (int64_t i = 0; i <= vector_rows; ++i) r.ptr.push_back(static_cast<int32_t>(i * per_row));
  return r;
}

/// SpMM inputs: V, A rows x cols, B cols x n, int8 by default; statistics from `rows`.
ps::Inputs spmm_inputs(const Rows& rows, int64_t vec_len, int64_t cols, int64_t n) {
  ps::Inputs in;
  in.format = SPX_FORMAT_BCRS;
  in.vec_len = vec_len;
  in.rows = static_cast<int64_t>(rows.ptr.size() - 1) * vec_len;
  in.cols = cols;
  in.n = n;
  in.cc_major = 9;
  in.sm_count = 132;
  in.structure = plan::srbcrs_structure_stats(rows.view(vec_len, cols));
  return in;
}

ps::Decision decide(const ps::Inputs& in, const ps::Overrides& o = {}) {
  INFO(ps::refusal(in));
  REQUIRE(ps::refusal(in).empty());
  return ps::choose(in, o);
}

}  // namespace

TEST_CASE("SR-BCRS choice: refusals, variant, workspace, B in place", "[srbcrs][choice]") {
  plan::srbcrs::Inputs p;
  p.format = SPX_FORMAT_BCRS;
  p.vec_len = 8;
  p.rows = 64;
  p.cols = 100;
  p.n = 33;
  CHECK(plan::srbcrs::refusal(p).empty());
  const auto refused = [&](plan::srbcrs::Inputs q, const std::string& part) {
    const std::string why = plan::srbcrs::refusal(q);
    INFO(why);
    CHECK(why.find(part) != std::string::npos);
  };
  {
    auto q = p;
    q.format = SPX_FORMAT_NM;
    refused(q, "BCRS(V) or CSR");
    q.format = SPX_FORMAT_ELL;
    refused(q, "BCRS(V) or CSR");
  }
  for (int64_t v : {3, 16}) {
    auto q = p;
    q.vec_len = v;
    refused(q, "V = " + std::to_string(v));
  }
  for (spxDataType_t t : {SPX_R_32F, SPX_R_16F, SPX_R_32I, SPX_R_16BF}) {
    auto q = p;
    q.a_type = t;
    refused(q, "16I, 8I, 8U, 4I or 4U");
    q = p;
    q.b_type = t;
    refused(q, "16I, 8I, 8U, 4I or 4U");
  }
  {
    auto q = p;
    q.compute_type = SPX_R_32F;
    refused(q, "32I");
  }
  for (spxDataType_t t : {SPX_R_16BF, SPX_R_8I}) {
    auto q = p;
    q.c_type = t;
    refused(q, "32I, 32F or 16F");
  }
  {
    auto q = p;
    q.cc_major = 7;
    refused(q, "sm_80");
  }
  {
    auto q = p;
    q.cols = int64_t{1} << 32;
    refused(q, "grid");
  }
  for (spxDataType_t c : {SPX_R_32I, SPX_R_32F, SPX_R_16F}) {
    auto q = p;
    q.c_type = c;
    CHECK(plan::srbcrs::refusal(q).empty());
  }
  {
    auto q = p;
    q.format = SPX_FORMAT_CSR;
    q.vec_len = 1;
    q.a_type = SPX_R_4U;
    q.b_type = SPX_R_8I;
    REQUIRE(plan::srbcrs::refusal(q).empty());
    const plan::SrbcrsChoice c = plan::srbcrs::choose(q, {}).variant;
    CHECK(c.a_bits == 4);
    CHECK(c.b_bits == 8);
    CHECK_FALSE(c.a_signed);
    CHECK(c.b_signed);
    CHECK(c.stride == 32);
    CHECK(c.precision() == "l4r8");
    CHECK(c.kernel_name() == "srbcrs_spmm_l4r8");
  }
  // (n, bits, pitch): 33 4-bit columns are 17 bytes.
  const std::tuple<int, int, int> pitches[] = {{1, 8, 16},  {16, 8, 16}, {17, 8, 32}, {33, 4, 32},
                                               {32, 4, 16}, {8, 16, 16}, {9, 16, 32}};
  for (const auto& [n, bits, pitch] : pitches) CHECK(plan::srbcrs_b_pitch(n, bits) == pitch);
  CHECK(plan::srbcrs_workspace_bytes(10, 17, 8) == 320);
  CHECK(plan::srbcrs_workspace_bytes(0, 17, 8) + plan::srbcrs_workspace_bytes(10, 0, 8) == 0);
  CHECK(plan::srbcrs_b_direct(true, 256, 64, 8));
  CHECK_FALSE(plan::srbcrs_b_direct(false, 256, 64, 8));  // column-major: copied
  CHECK_FALSE(plan::srbcrs_b_direct(true, 257, 64, 8));   // base not 16-byte aligned
  CHECK_FALSE(plan::srbcrs_b_direct(true, 256, 65, 8));   // row pitch not 16-byte aligned
  CHECK(plan::srbcrs_b_direct(true, 256, 32, 4));         // 16 bytes per row
  CHECK_FALSE(plan::srbcrs_b_direct(true, 256, 30, 4));   // 15 bytes per row
}

TEST_CASE("SR-BCRS schedule rule and candidates", "[srbcrs][choice]") {
  // 128 vector-rows x 4 column tiles = 512 warps on 132 SMs (< 16 per SM): split while every
  // warp keeps a stride on average.
  CHECK(plan::srbcrs_schedule(128, 256, 128 * 32 * 5, 132).split == 4);  // 5 strides a row
  CHECK(plan::srbcrs_schedule(128, 256, 128 * 32 * 3, 132).split == 2);  // 3 strides
  CHECK(plan::srbcrs_schedule(128, 256, 128 * 32 * 1, 132).split == 1);  // 1 stride
  CHECK(plan::srbcrs_schedule(128, 256, 0, 132).split == 1);             // no vectors
  // Enough warps already: no split however long the rows.
  CHECK(plan::srbcrs_schedule(2048, 4096, 2048 * 32 * 7, 132).split == 1);
  // 528 tiles: split 2 reaches 1056 < 2112 warps, split 4 reaches 2112 = 16 per SM.
  CHECK(plan::srbcrs_schedule(132, 256, 132 * 32 * 8, 132).split == 4);
  CHECK(plan::srbcrs_schedule(528, 256, 528 * 32 * 8, 132).split == 1);
  CHECK_FALSE(plan::srbcrs_schedule(128, 256, 128 * 32 * 5, 132).tile_major);
  CHECK(plan::srbcrs_schedule(0, 256, 0, 132).split == 1);
  CHECK(plan::srbcrs_schedule(4, 0, 128, 132).split == 1);

  plan::SrbcrsSchedule chosen;
  chosen.split = 2;
  const std::vector<plan::SrbcrsSchedule> all = plan::srbcrs_schedules(chosen);
  REQUIRE(all.size() == 6);
  CHECK(all[0] == chosen);
  for (size_t i = 0; i < all.size(); ++i)
    for (size_t j = i + 1; j < all.size(); ++j) CHECK_FALSE(all[i] == all[j]);
  CHECK(chosen.describe() == "split 2, row order");
}

TEST_CASE("SR-BCRS choice: emulated 16-bit operands and the native int4 path",
          "[srbcrs][choice]") {
  plan::srbcrs::Inputs p;
  p.format = SPX_FORMAT_BCRS;
  p.vec_len = 4;
  p.rows = 64;
  p.cols = 100;
  p.n = 33;
  p.cc_major = 9;
  const auto choose = [](plan::srbcrs::Inputs q, plan::srbcrs::Overrides o = {}) {
    INFO(plan::srbcrs::refusal(q));
    REQUIRE(plan::srbcrs::refusal(q).empty());
    return plan::srbcrs::choose(q, o).variant;
  };
  // L16-Rx for every B; the 12-bit case is a 16I A.
  for (spxDataType_t b : {SPX_R_16I, SPX_R_8I, SPX_R_8U, SPX_R_4I, SPX_R_4U}) {
    auto q = p;
    q.a_type = SPX_R_16I;
    q.b_type = b;
    const plan::SrbcrsChoice c = choose(q);
    CHECK(c.a_bits == 16);
    CHECK(c.a_slices() == 2);
    CHECK(c.b_bits == spx::dtype::bits(b));
    CHECK(c.b_slices() == (b == SPX_R_16I ? 2 : 1));
    CHECK(c.warp_cols == (b == SPX_R_16I ? 32 : 64));
    CHECK(c.stride == 32);
    CHECK_FALSE(c.native_int4);
    CHECK(c.path().find("m16n8k32 transposed, A in 2 int8 slices") == 0);
    CHECK((c.path().find("B in 2 int8 slices") != std::string::npos) == (b == SPX_R_16I));
    CHECK((c.path().find("int4 unpacked to int8") != std::string::npos) ==
          (spx::dtype::bits(b) == 4));
  }
  {
    auto q = p;
    q.a_type = SPX_R_16I;
    q.b_type = SPX_R_8I;
    CHECK(choose(q).precision() == "l16r8");
    CHECK(choose(q).kernel_name() == "srbcrs_spmm_l16r8");
  }
  // 16-bit B only with 16-bit A.
  for (spxDataType_t a : {SPX_R_8I, SPX_R_8U, SPX_R_4I, SPX_R_4U}) {
    auto q = p;
    q.a_type = a;
    q.b_type = SPX_R_16I;
    const std::string why = plan::srbcrs::refusal(q);
    INFO(why);
    CHECK(why.find("only with a 16I A") != std::string::npos);
  }
  // The native int4 path: the rule picks it on 8.x for L4-R4 only; SPX_SRBCRS_FORCE_INT4 forces
  // either.
  CHECK(plan::srbcrs_native_int4_pays(8));
  CHECK_FALSE(plan::srbcrs_native_int4_pays(9));
  CHECK_FALSE(plan::srbcrs_native_int4_pays(10));
  for (int cc : {8, 9})
    for (auto path : {plan::SrbcrsInt4Path::Rule, plan::SrbcrsInt4Path::Native,
                      plan::SrbcrsInt4Path::Unpacked})
      for (spxDataType_t a : {SPX_R_4I, SPX_R_4U, SPX_R_8I})
        for (spxDataType_t b : {SPX_R_4I, SPX_R_4U, SPX_R_8I}) {
          auto q = p;
          q.cc_major = cc;
          q.a_type = a;
          q.b_type = b;
          plan::srbcrs::Overrides o;
          o.int4 = path;
          const plan::SrbcrsChoice c = choose(q, o);
          const bool l4r4 = spx::dtype::bits(a) == 4 && spx::dtype::bits(b) == 4;
          const bool want = l4r4 && (path == plan::SrbcrsInt4Path::Native ||
                                     (path == plan::SrbcrsInt4Path::Rule && cc == 8));
          CHECK(c.native_int4 == want);
          CHECK(c.stride == (want ? 64 : 32));
          CHECK((c.path() == "native int4 m16n8k64 transposed") == want);
        }
  // 16-bit B: copies and pitches in bytes.
  CHECK(plan::srbcrs_workspace_bytes(10, 9, 16) == 320);
  CHECK(plan::srbcrs_b_direct(true, 256, 8, 16));
  CHECK_FALSE(plan::srbcrs_b_direct(true, 256, 12, 16));  // 24-byte rows
  // The schedule counts tiles of the warp's columns and strides of the path.
  CHECK(plan::srbcrs_schedule(128, 256, 128 * 64 * 5, 132, 64, 64).split == 4);  // 5 strides
  CHECK(plan::srbcrs_schedule(128, 256, 128 * 64 * 1, 132, 64, 64).split == 1);  // 1 stride
  // 16-bit B: 128 rows x 8 tiles = 1024 warps; split 2 (2048 < 2112 warps), not 4 with 3
  // strides a row.
  CHECK(plan::srbcrs_schedule(128, 256, 128 * 32 * 3, 132, 32, 32).split == 2);
}

TEST_CASE("SR-BCRS structure statistics: slots at both strides", "[srbcrs][choice]") {
  // Vector-rows of 0, 1, 32, 33 and 64 vectors.
  Rows r;
  r.ptr = {0, 0, 1, 33, 66, 130};
  const plan::SrbcrsStructureStats st = plan::srbcrs_structure_stats(r.view(4, 100));
  CHECK(st.vector_rows == 5);
  CHECK(st.num_vectors == 130);
  CHECK(st.slots32 == 0 + 32 + 32 + 64 + 64);
  CHECK(st.slots64 == 0 + 64 + 64 + 64 + 64);
  CHECK((st.slots(32) == st.slots32 && st.slots(64) == st.slots64 && st.slots(16) == 0));
  // The same counts as the layouts built at those strides.
  std::vector<int32_t> cols(130);
  for (int i = 0; i < 130; ++i) cols[i] = i % 100;
  plan::BcrsView v = r.view(4, 100);
  v.block_col = cols.data();
  for (int64_t stride : {32, 64}) {
    plan::SrbcrsConfig cfg;
    cfg.stride = stride;
    cfg.type = SPX_R_4I;
    CHECK(plan::srbcrs_build_structure(v, cfg).slots == st.slots(stride));
  }
  // Bad structure: the build's checks and messages.
  Rows bad;
  bad.ptr = {0, 5, 2};
  require_invalid([&] { plan::srbcrs_structure_stats(bad.view(1, 10)); }, "block_row_ptr");
  require_invalid([&] { plan::srbcrs_structure_stats(bad.view(3, 10)); }, "V = 3");
}

TEST_CASE("SR-BCRS read_overrides: every switch, bad values ignored", "[srbcrs][choice]") {
  const ps::Overrides none = ps::read_overrides(Switches{});
  CHECK((none.split == 0 && none.tile_major == -1 && none.int4 == plan::SrbcrsInt4Path::Rule));
  for (int split : {1, 2, 4}) {
    Switches s;
    s.set("SPX_SRBCRS_FORCE_SPLIT", std::to_string(split));
    CHECK(ps::read_overrides(s).split == split);
  }
  for (const char* bad : {"3", "8", "-2", "two", "0", ""}) {
    Switches s;
    s.set("SPX_SRBCRS_FORCE_SPLIT", bad);
    CHECK(ps::read_overrides(s).split == 0);
  }
  {
    Switches s;
    s.set("SPX_SRBCRS_FORCE_ORDER", "row");
    CHECK(ps::read_overrides(s).tile_major == 0);
    s.set("SPX_SRBCRS_FORCE_ORDER", "tile");
    CHECK(ps::read_overrides(s).tile_major == 1);
    s.set("SPX_SRBCRS_FORCE_ORDER", "diagonal");
    CHECK(ps::read_overrides(s).tile_major == -1);
    s.set("SPX_SRBCRS_FORCE_ORDER", "");
    CHECK(ps::read_overrides(s).tile_major == -1);
  }
  {
    Switches s;
    s.set("SPX_SRBCRS_FORCE_INT4", "native");
    CHECK(ps::read_overrides(s).int4 == plan::SrbcrsInt4Path::Native);
    s.set("SPX_SRBCRS_FORCE_INT4", "unpacked");
    CHECK(ps::read_overrides(s).int4 == plan::SrbcrsInt4Path::Unpacked);
    s.set("SPX_SRBCRS_FORCE_INT4", "Native");
    CHECK(ps::read_overrides(s).int4 == plan::SrbcrsInt4Path::Rule);
  }
  {
    // All three at once, and other families' switches do not leak in.
    Switches s;
    s.set("SPX_SRBCRS_FORCE_SPLIT", "2");
    s.set("SPX_SRBCRS_FORCE_ORDER", "tile");
    s.set("SPX_SRBCRS_FORCE_INT4", "unpacked");
    s.set("SPX_NM_FORCE_CANDIDATE", "1");
    const ps::Overrides o = ps::read_overrides(s);
    CHECK(o.split == 2);
    CHECK(o.tile_major == 1);
    CHECK(o.int4 == plan::SrbcrsInt4Path::Unpacked);
  }
}

TEST_CASE("SR-BCRS choose: the rule on representative shapes", "[srbcrs][choice]") {
  SECTION("short grid, long rows (rn50-like): split 4, row order") {
    // 128 vector-rows of V = 8 with 160 vectors (5 strides) each, n = 256: 512 tiles on 132 SMs.
    const ps::Decision d = decide(spmm_inputs(uniform_rows(128, 160), 8, 2048, 256));
    CHECK(d.kernel() == "srbcrs_spmm_l8r8");
    CHECK(d.variant.stride == 32);
    CHECK_FALSE(d.variant.native_int4);
    CHECK(d.slots == 128 * 160);
    CHECK(d.schedules.count() == 6);
    CHECK(d.schedules.selected() == 0);  // the rule's schedule comes first
    CHECK(d.schedule().split == 4);
    CHECK_FALSE(d.schedule().tile_major);
    CHECK(d.workspace_bytes == plan::srbcrs_workspace_bytes(2048, 256, 8));
  }
  SECTION("a wide grid: split 1") {
    const ps::Decision d = decide(spmm_inputs(uniform_rows(2048, 224), 1, 4096, 4096));
    CHECK(d.schedule().split == 1);
    CHECK(d.schedules.selected() == 0);
  }
  SECTION("a device with few SMs: the same shape needs no split") {
    ps::Inputs in = spmm_inputs(uniform_rows(128, 160), 8, 2048, 256);
    in.sm_count = 16;  // 512 tiles >= 16 warps x 16 SMs
    CHECK(decide(in).schedule().split == 1);
  }
  SECTION("one stride per row: no split") {
    CHECK(decide(spmm_inputs(uniform_rows(128, 20), 8, 2048, 256)).schedule().split == 1);
  }
  SECTION("L4-R4: unpacked at stride 32 on sm_90, native at stride 64 on sm_80") {
    ps::Inputs in = spmm_inputs(uniform_rows(128, 160), 4, 2048, 256);
    in.a_type = in.b_type = SPX_R_4I;
    const ps::Decision hopper = decide(in);
    CHECK(hopper.kernel() == "srbcrs_spmm_l4r4");
    CHECK_FALSE(hopper.variant.native_int4);
    CHECK(hopper.slots == 128 * 160);
    CHECK(hopper.schedule().split == 4);  // 5 strides of 32 a row
    in.cc_major = 8;
    const ps::Decision ampere = decide(in);
    CHECK(ampere.variant.native_int4);
    CHECK(ampere.variant.stride == 64);
    CHECK(ampere.slots == 128 * 192);     // 160 vectors pad to 3 strides of 64
    CHECK(ampere.schedule().split == 2);  // 3 strides a row: split 4 would leave warps idle
  }
  SECTION("16-bit B: warps of 32 columns, a larger workspace row") {
    ps::Inputs in = spmm_inputs(uniform_rows(64, 96), 2, 1000, 100);
    in.a_type = in.b_type = SPX_R_16I;
    const ps::Decision d = decide(in);
    CHECK(d.kernel() == "srbcrs_spmm_l16r16");
    CHECK(d.variant.warp_cols == 32);
    CHECK(d.workspace_bytes == 1000 * plan::srbcrs_b_pitch(100, 16));
  }
  SECTION("refused inputs are an internal error") {
    ps::Inputs in = spmm_inputs(uniform_rows(4, 1), 8, 64, 64);
    in.c_type = SPX_R_16BF;
    require_error([&] { ps::choose(in, {}); }, SPX_STATUS_INTERNAL_ERROR, "refused");
  }
}

TEST_CASE("SR-BCRS choose: each override changes the decision as documented",
          "[srbcrs][choice]") {
  const ps::Inputs in = spmm_inputs(uniform_rows(128, 160), 8, 2048, 256);  // rule: split 4, row
  const ps::Decision rule = decide(in);
  for (int split : {1, 2, 4})
    for (int tile_major : {-1, 0, 1}) {
      ps::Overrides o;
      o.split = split;
      o.tile_major = tile_major;
      const ps::Decision d = decide(in, o);
      INFO("split " << split << ", tile_major " << tile_major);
      // The candidate list is the rule's whatever is forced; only the selection moves.
      CHECK(d.schedules.items() == rule.schedules.items());
      CHECK(d.schedule().split == split);
      CHECK(d.schedule().tile_major == (tile_major == 1));
      CHECK(d.variant.precision() == rule.variant.precision());
    }
  {
    ps::Overrides o;
    o.tile_major = 1;  // the order alone: the rule's split
    const ps::Decision d = decide(in, o);
    CHECK(d.schedule().split == 4);
    CHECK(d.schedule().tile_major);
    CHECK(d.describe().find("split 4, tile order") != std::string::npos);
  }
  // FORCE_INT4 on L4-R4 only: native on sm_90, unpacked on sm_80; no effect on other types.
  ps::Inputs l4r4 = in;
  l4r4.a_type = SPX_R_4U;
  l4r4.b_type = SPX_R_4I;
  ps::Overrides native;
  native.int4 = plan::SrbcrsInt4Path::Native;
  ps::Overrides unpacked;
  unpacked.int4 = plan::SrbcrsInt4Path::Unpacked;
  const ps::Decision forced = decide(l4r4, native);
  CHECK((forced.variant.native_int4 && forced.variant.stride == 64));
  CHECK(forced.slots == l4r4.structure.slots64);
  l4r4.cc_major = 8;
  const ps::Decision back = decide(l4r4, unpacked);
  CHECK((!back.variant.native_int4 && back.variant.stride == 32));
  CHECK_FALSE(decide(in, native).variant.native_int4);  // L8-R8
  // Native int4 cannot read A's values in the SR-BCRS layout (stride 32).
  l4r4.a_values_srbcrs = true;
  require_error([&] { ps::choose(l4r4, {}); }, SPX_STATUS_NOT_SUPPORTED, "SR-BCRS layout");
  CHECK_FALSE(decide(l4r4, unpacked).variant.native_int4);
}

TEST_CASE("SR-BCRS describe: the plan info text, verbatim, of what the decision holds",
          "[srbcrs][choice]") {
  ps::Inputs in = spmm_inputs(uniform_rows(128, 160), 8, 2048, 256);
  ps::Decision d = decide(in);
  CHECK(d.kernel() == "srbcrs_spmm_l8r8");
  CHECK(d.describe() ==
        "l8r8 m16n8k32 transposed (V=8 on n8); stride 32, warp 64 cols, 4 stages; B row (in "
        "place if 16 B aligned); C 32I row; split 4, row order");
  // Every candidate names its own schedule; describe() is the selected one.
  for (int c = 0; c < d.schedules.count(); ++c) {
    const std::string text = d.describe(c);
    const std::string sched = d.schedules.at(c).describe();
    CHECK((text.size() > sched.size() && text.substr(text.size() - sched.size()) == sched));
  }
  d.schedules.select(4);
  CHECK(d.describe() == d.describe(4));
  require_error([&] { d.schedules.select(6); }, SPX_STATUS_INTERNAL_ERROR, "SR-BCRS candidate 6");

  in.b_order = SPX_ORDER_COL;
  in.c_order = SPX_ORDER_COL;
  in.c_type = SPX_R_16F;
  in.a_type = SPX_R_16I;
  in.b_type = SPX_R_4U;
  in.a_values_srbcrs = true;
  CHECK(decide(in).kernel() == "srbcrs_spmm_l16r4");
  CHECK(decide(in).describe() ==
        "l16r4 m16n8k32 transposed, A in 2 int8 slices, int4 unpacked to int8 (V=8 on n8); "
        "stride 32, warp 64 cols, 4 stages; B col (copied); C 16F col; A's values in SR-BCRS "
        "order; split 4, row order");

  ps::Inputs l4 = spmm_inputs(uniform_rows(128, 160), 2, 2048, 256);
  l4.a_type = l4.b_type = SPX_R_4I;
  l4.c_type = SPX_R_32F;
  ps::Overrides native;
  native.int4 = plan::SrbcrsInt4Path::Native;
  native.split = 1;
  native.tile_major = 1;
  CHECK(decide(l4, native).describe() ==
        "l4r4 native int4 m16n8k64 transposed (V=2 on n8); stride 64, warp 64 cols, 4 stages; B "
        "row (in place if 16 B aligned); C 32F row; split 1, tile order");

  ps::Inputs wide = spmm_inputs(uniform_rows(8, 40), 1, 500, 40);
  wide.format = SPX_FORMAT_CSR;
  wide.a_type = wide.b_type = SPX_R_16I;
  const ps::Decision w = decide(wide);
  CHECK(w.describe().find("B in 2 int8 slices") != std::string::npos);
  CHECK(w.describe().find("warp 32 cols") != std::string::npos);
  CHECK(w.describe().size() < 256);  // fits spxPlanInfo_t::config
}

TEST_CASE("SR-BCRS b_source: where B is read, decided per call", "[srbcrs][choice]") {
  ps::Inputs in = spmm_inputs(uniform_rows(4, 40), 8, 100, 33);
  const ps::Decision d8 = decide(in);
  // Row-major, 16-byte aligned base and pitch: in place, B's own pitch.
  ps::BSource s = ps::b_source(d8, SPX_ORDER_ROW, 0x1000, 64, 33);
  CHECK(s.in_place);
  CHECK(s.pitch == 64);
  // The same plan, another call: a shifted base or an odd ld is copied at the copy's pitch.
  s = ps::b_source(d8, SPX_ORDER_ROW, 0x1004, 64, 33);
  CHECK_FALSE(s.in_place);
  CHECK(s.pitch == plan::srbcrs_b_pitch(33, 8));
  s = ps::b_source(d8, SPX_ORDER_ROW, 0x1000, 40, 33);
  CHECK_FALSE(s.in_place);
  CHECK(s.pitch == 48);
  CHECK_FALSE(ps::b_source(d8, SPX_ORDER_COL, 0x1000, 128, 33).in_place);
  // 4-bit B: pitch in bytes is ld / 2; 16-bit: 2 ld.
  in.b_type = SPX_R_4U;
  s = ps::b_source(decide(in), SPX_ORDER_ROW, 0x1000, 64, 33);
  CHECK(s.in_place);
  CHECK(s.pitch == 32);
  s = ps::b_source(decide(in), SPX_ORDER_ROW, 0x1000, 48, 33);  // 24-byte rows
  CHECK_FALSE(s.in_place);
  CHECK(s.pitch == 32);  // 17 bytes rounded up
  in.a_type = in.b_type = SPX_R_16I;
  s = ps::b_source(decide(in), SPX_ORDER_ROW, 0x1000, 40, 33);
  CHECK(s.in_place);
  CHECK(s.pitch == 80);
  // Whatever is copied fits the workspace the decision reserves.
  for (spxDataType_t t : {SPX_R_8I, SPX_R_4I, SPX_R_16I}) {
    ps::Inputs q = in;
    q.a_type = t == SPX_R_16I ? SPX_R_16I : SPX_R_8I;
    q.b_type = t;
    const ps::Decision d = decide(q);
    const ps::BSource c = ps::b_source(d, SPX_ORDER_COL, 0x1000, 100, q.n);
    CHECK(c.pitch * q.cols <= d.workspace_bytes);
  }
}

TEST_CASE("SR-BCRS SDDMM choose: variant, output order, workspace and describe",
          "[srbcrs][choice][sddmm]") {
  ps::SddmmInputs in;
  in.format = SPX_FORMAT_BCRS;
  in.vec_len = 8;
  in.m = 64;
  in.k = 256;
  in.n = 128;
  in.num_vectors = 100;
  const auto decide_sddmm = [](const ps::SddmmInputs& q) {
    INFO(ps::refusal(q));
    REQUIRE(ps::refusal(q).empty());
    return ps::choose(q, {});
  };
  ps::SddmmDecision d = decide_sddmm(in);
  CHECK(d.kernel() == "srbcrs_sddmm_l8r8");
  CHECK(d.output == plan::ValuesLayout::Format);
  const plan::SrbcrsSddmmWorkspace w = plan::srbcrs_sddmm_workspace(64, 256, 128, 8, 8);
  CHECK(d.workspace.a_offset == w.a_offset);
  CHECK(d.workspace.b_offset == w.b_offset);
  CHECK(d.workspace.bytes == w.bytes);
  CHECK(d.describe() ==
        "l8r8 m16n8k32 transposed (B cols on m16, V=8 rows of A on n8); 32 slots per warp, k "
        "step 64; A row, B col; C 32I in its own order");

  in.a_type = SPX_R_4U;
  in.b_order = SPX_ORDER_ROW;
  in.c_type = SPX_R_16F;
  in.output = plan::ValuesLayout::Srbcrs;
  d = decide_sddmm(in);
  CHECK(d.kernel() == "srbcrs_sddmm_l4r8");
  CHECK(d.output == plan::ValuesLayout::Srbcrs);
  CHECK(d.workspace.bytes == plan::srbcrs_sddmm_workspace(64, 256, 128, 4, 8).bytes);
  CHECK(d.describe() ==
        "l4r8 m16n8k32 transposed (B cols on m16, V=8 rows of A on n8), int4 unpacked to int8; "
        "32 slots per warp, k step 64; A row, B row (copied k-contiguous); C 16F in SR-BCRS "
        "order");

  in.a_type = in.b_type = SPX_R_16I;
  in.a_order = SPX_ORDER_COL;
  in.b_order = SPX_ORDER_COL;
  in.vec_len = 1;
  in.format = SPX_FORMAT_CSR;
  in.output = plan::ValuesLayout::Format;
  d = decide_sddmm(in);
  CHECK(d.kernel() == "srbcrs_sddmm_l16r16");
  CHECK(d.describe() ==
        "l16r16 m16n8k32 transposed (B cols on m16, V=1 rows of A on n8), 16-bit emulated by "
        "8-bit slices; 32 slots per warp, k step 64; A col, B col (copied k-contiguous); C 16F "
        "in its own order");
}

TEST_CASE("SR-BCRS sddmm_operand: where A and B are read, decided per call",
          "[srbcrs][choice][sddmm]") {
  // k-contiguous, 16-byte aligned base and pitch: in place at the operand's own pitch.
  ps::OperandSource s = ps::sddmm_operand(true, 0x1000, 256, 200, 8);
  CHECK(s.in_place);
  CHECK(s.pitch == 256);
  CHECK(ps::sddmm_operand(true, 0x1000, 256, 200, 4).pitch == 128);
  CHECK(ps::sddmm_operand(true, 0x1000, 256, 200, 16).pitch == 512);
  // Otherwise a copy at the k pitch (k elements rounded up to 16 bytes).
  s = ps::sddmm_operand(false, 0x1000, 256, 200, 8);
  CHECK_FALSE(s.in_place);
  CHECK(s.pitch == plan::srbcrs_sddmm_pitch(200, 8));
  s = ps::sddmm_operand(true, 0x1008, 256, 200, 8);
  CHECK_FALSE(s.in_place);
  CHECK(s.pitch == 208);
  CHECK_FALSE(ps::sddmm_operand(true, 0x1000, 250, 200, 8).in_place);
  s = ps::sddmm_operand(true, 0x1000, 250, 201, 4);
  CHECK_FALSE(s.in_place);
  CHECK(s.pitch == 112);  // 101 bytes
}
