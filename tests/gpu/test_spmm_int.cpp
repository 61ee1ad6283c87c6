// SpMM with integer inputs (8I, 4I, 16I, 8U, 4U, and mixed A/B types) accumulating in int32,
// with 32I outputs (exact, integer alpha/beta) and 32F / 16F outputs (alpha as the
// dequantization scale), on every format, against the CPU reference.
#include <catch2/catch.hpp>
#include <chrono>

#include "runtime/dtype.hpp"
#include "runner.hpp"
#include "spx_catch.hpp"

using namespace spx::test;
namespace ref = spx::ref;

namespace {

const spxDataType_t kSameTypes[] = {SPX_R_8I, SPX_R_4I, SPX_R_16I, SPX_R_8U, SPX_R_4U};

// A x B pairs of different types: the emulated SR-BCRS combinations (L16-R8, L16-R4, L8-R4),
// their mirror images, and signed/unsigned mixes.
const spxDataType_t kMixedTypes[][2] = {
    {SPX_R_16I, SPX_R_8I}, {SPX_R_16I, SPX_R_4I}, {SPX_R_8I, SPX_R_4I}, {SPX_R_8I, SPX_R_16I},
    {SPX_R_4I, SPX_R_8I},  {SPX_R_8U, SPX_R_8I},  {SPX_R_8I, SPX_R_8U}, {SPX_R_4U, SPX_R_4I},
    {SPX_R_4I, SPX_R_4U},  {SPX_R_16I, SPX_R_4U}};

const spxDataType_t kOutputs[] = {SPX_R_32I, SPX_R_32F, SPX_R_16F};

void run_formats(const std::vector<FormatSpec>& formats, bool mixed, int mixed_variants,
                 uint64_t seed) {
  const auto start = std::chrono::steady_clock::now();
  UniqueHandle h = make_handle();
  RunStats stats;
  for (const FormatSpec& f : formats) {
    for (spxDataType_t t : kSameTypes)
      for (spxDataType_t out : kOutputs) {
        SpmmGrid g;
        g.format = f;
        g.a_type = g.b_type = t;
        g.c_type = out;
        g.variants = out == SPX_R_32I ? 8 : 4;
        g.seed = seed++;
        run_spmm_grid(h.get(), g, stats);
      }
    if (!mixed) continue;
    for (const auto& ab : kMixedTypes)
      for (spxDataType_t out : kOutputs) {
        SpmmGrid g;
        g.format = f;
        g.a_type = ab[0];
        g.b_type = ab[1];
        g.c_type = out;
        g.variants = mixed_variants;
        g.seed = seed++;
        run_spmm_grid(h.get(), g, stats);
      }
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  WARN(stats.summary() << " (" << s << " s)");
  stats.check_complete();
}

}  // namespace

TEST_CASE("SpMM int CSR", "[spmm][int]") { run_formats({csr_spec()}, true, 3, 11000); }

TEST_CASE("SpMM int BCRS V=1/2/4", "[spmm][int]") {
  run_formats({bcrs_spec(1), bcrs_spec(2), bcrs_spec(4)}, true, 3, 12000);
}

TEST_CASE("SpMM int BCRS V=8/16", "[spmm][int]") {
  run_formats({bcrs_spec(8), bcrs_spec(16)}, true, 3, 13000);
}

TEST_CASE("SpMM int NM", "[spmm][int]") {
  run_formats({nm_spec(2, 4, 2), nm_spec(1, 4, 4), nm_spec(3, 8, 16), nm_spec(5, 16, 1),
               nm_spec(4, 8, 8)},
              true, 1, 14000);
}

TEST_CASE("SpMM int ELL", "[spmm][int]") { run_formats({ell_spec()}, true, 1, 15000); }

// Only the extremes of each type (min, min+1, -1, 1, max-1, max), with k small enough that
// int32 accumulation cannot overflow: catches sign errors in the slices of emulated types
// (the top slice signed, the others unsigned) that small random values never reach.
TEST_CASE("SpMM int extreme values", "[spmm][int]") {
  UniqueHandle h = make_handle();
  RunStats stats;
  std::vector<std::array<spxDataType_t, 2>> pairs;
  for (spxDataType_t t : kSameTypes) pairs.push_back({t, t});
  for (const auto& ab : kMixedTypes) pairs.push_back({ab[0], ab[1]});
  const FormatSpec formats[] = {csr_spec(), bcrs_spec(4), bcrs_spec(8), nm_spec(2, 4, 2),
                                ell_spec()};
  uint64_t seed = 16000;
  for (const auto& ab : pairs)
    for (const FormatSpec& f : formats)
      for (spxDataType_t out : {SPX_R_32I, SPX_R_32F}) {
        const auto mag = [](spxDataType_t t) {
          return std::max(spx::dtype::int_max(t), -spx::dtype::int_min(t));
        };
        // |alpha| <= 2 times k products of the largest magnitudes stays below 2^30.
        const int64_t k_limit = std::max<int64_t>(1, (int64_t{1} << 29) / (mag(ab[0]) * mag(ab[1])));
        const int64_t k = round_up(std::min<int64_t>(k_limit, 96), f.col_unit());
        if (k > k_limit) continue;  // the format's window does not fit (16I x 16I with NM)
        const int64_t m = round_up(40, f.row_unit()), n = 33;
        Rng rng(seed++);
        ValueDist da{ab[0]}, db{ab[1]};
        da.extremes = db.extremes = true;
        SpmmProblem p;
        p.A = random_sparse(rng, f, m, k, da, 0.5);
        p.B = random_dense(rng, k, n, (seed & 1) ? SPX_ORDER_COL : SPX_ORDER_ROW, db);
        p.C = random_dense(rng, m, n, SPX_ORDER_ROW, output_dist(out));
        p.compute = SPX_R_32I;
        p.s = out == SPX_R_32I ? ref::Scalars{-1, 1} : ref::Scalars{0.5, -2};
        p.what = "SpMM extremes " + f.name() + " A " + type_name(ab[0]) + " B " +
                 type_name(ab[1]) + " C " + type_name(out) + " k " + std::to_string(k) +
                 ", seed " + std::to_string(seed - 1);
        check_spmm(h.get(), p, stats);
      }
  WARN(stats.summary());
  stats.check_complete();
}

// A long reduction and several tiles in each dimension (split-k and multi-block paths).
TEST_CASE("SpMM int multi-tile shapes", "[spmm][int]") {
  UniqueHandle h = make_handle();
  RunStats stats;
  const Shape shapes[] = {{256, 1024, 128}, {64, 4096, 64}};
  const FormatSpec formats[] = {csr_spec(), bcrs_spec(4), bcrs_spec(8), nm_spec(2, 4, 2)};
  const spxDataType_t types[][3] = {{SPX_R_8I, SPX_R_8I, SPX_R_32I},
                                    {SPX_R_4I, SPX_R_4I, SPX_R_32I},
                                    {SPX_R_16I, SPX_R_8I, SPX_R_32F},
                                    {SPX_R_8I, SPX_R_4I, SPX_R_16F}};
  uint64_t seed = 17000;
  for (const Shape& sh : shapes)
    for (const FormatSpec& f : formats)
      for (const auto& t : types) {
        Rng rng(seed++);
        SpmmProblem p;
        p.A = random_sparse(rng, f, sh.m, sh.k, operand_dist(t[0], sh.k, t[2]), 0.1);
        p.B = random_dense(rng, sh.k, sh.n, (seed & 1) ? SPX_ORDER_COL : SPX_ORDER_ROW,
                           operand_dist(t[1], sh.k, t[2]));
        p.C = random_dense(rng, sh.m, sh.n, SPX_ORDER_ROW, output_dist(t[2]));
        p.compute = SPX_R_32I;
        p.s = t[2] == SPX_R_32I ? ref::Scalars{2, -2} : ref::Scalars{0.5, -2};
        p.what = "SpMM int multi-tile " + f.name() + " A " + type_name(t[0]) + " B " +
                 type_name(t[1]) + " C " + type_name(t[2]) + " " + std::to_string(sh.m) + "x" +
                 std::to_string(sh.k) + "x" + std::to_string(sh.n) + ", seed " +
                 std::to_string(seed - 1);
        check_spmm(h.get(), p, stats);
      }
  WARN(stats.summary());
  stats.check_complete();
}
