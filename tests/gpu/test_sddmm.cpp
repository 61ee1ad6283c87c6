// SDDMM, C = alpha * (A * B) .* spy(C) + beta * C, with C's pattern in every sparse format
// (ELL padding skipped and left untouched), float and integer types, both orders of A and B,
// odd and tail sizes, against the CPU reference.
#include <catch2/catch.hpp>
#include <chrono>

#include "runner.hpp"
#include "spx_catch.hpp"

using namespace spx::test;
namespace ref = spx::ref;

namespace {

struct Combo {
  spxDataType_t a, b, c;
  int variants;
};

const Combo kFloat[] = {{SPX_R_32F, SPX_R_32F, SPX_R_32F, 44},
                        {SPX_R_16F, SPX_R_16F, SPX_R_16F, 16},
                        {SPX_R_16F, SPX_R_16F, SPX_R_32F, 8},
                        {SPX_R_16BF, SPX_R_16BF, SPX_R_16BF, 8},
                        {SPX_R_16BF, SPX_R_16BF, SPX_R_32F, 8}};

const Combo kInt[] = {{SPX_R_8I, SPX_R_8I, SPX_R_32I, 12},  {SPX_R_8I, SPX_R_8I, SPX_R_32F, 4},
                      {SPX_R_8I, SPX_R_8I, SPX_R_16F, 4},   {SPX_R_4I, SPX_R_4I, SPX_R_32I, 8},
                      {SPX_R_4I, SPX_R_4I, SPX_R_16F, 3},   {SPX_R_16I, SPX_R_16I, SPX_R_32I, 4},
                      {SPX_R_8U, SPX_R_8U, SPX_R_32I, 4},   {SPX_R_4U, SPX_R_4U, SPX_R_32F, 3},
                      {SPX_R_16I, SPX_R_8I, SPX_R_32I, 3},  {SPX_R_16I, SPX_R_4I, SPX_R_32F, 3},
                      {SPX_R_8I, SPX_R_4I, SPX_R_32I, 3},   {SPX_R_4I, SPX_R_8U, SPX_R_32I, 2}};

template <size_t N>
void run_formats(const std::vector<FormatSpec>& formats, const Combo (&combos)[N], uint64_t seed) {
  const auto start = std::chrono::steady_clock::now();
  UniqueHandle h = make_handle();
  RunStats stats;
  for (const FormatSpec& f : formats)
    for (const Combo& c : combos) {
      SddmmGrid g;
      g.format = f;
      g.a_type = c.a;
      g.b_type = c.b;
      g.c_type = c.c;
      g.variants = c.variants;
      g.seed = seed++;
      run_sddmm_grid(h.get(), g, stats);
    }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  WARN(stats.summary() << " (" << s << " s)");
  stats.check_complete();
}

const std::vector<FormatSpec> kBcrs = {bcrs_spec(1), bcrs_spec(2), bcrs_spec(4), bcrs_spec(8),
                                       bcrs_spec(16)};
const std::vector<FormatSpec> kNM = {nm_spec(2, 4, 2), nm_spec(1, 4, 4), nm_spec(3, 8, 16),
                                     nm_spec(5, 16, 1), nm_spec(4, 8, 8)};

}  // namespace

TEST_CASE("SDDMM float CSR", "[sddmm][float]") { run_formats({csr_spec()}, kFloat, 21000); }
TEST_CASE("SDDMM float BCRS", "[sddmm][float]") { run_formats(kBcrs, kFloat, 22000); }
TEST_CASE("SDDMM float NM", "[sddmm][float]") { run_formats(kNM, kFloat, 23000); }
TEST_CASE("SDDMM float ELL", "[sddmm][float]") { run_formats({ell_spec()}, kFloat, 24000); }

TEST_CASE("SDDMM int CSR", "[sddmm][int]") { run_formats({csr_spec()}, kInt, 25000); }
TEST_CASE("SDDMM int BCRS", "[sddmm][int]") { run_formats(kBcrs, kInt, 26000); }
TEST_CASE("SDDMM int NM", "[sddmm][int]") { run_formats(kNM, kInt, 27000); }
TEST_CASE("SDDMM int ELL", "[sddmm][int]") { run_formats({ell_spec()}, kInt, 28000); }

// Degenerate problems: k = 0 (C = beta * C on the pattern), an empty pattern, empty dimensions.
TEST_CASE("SDDMM degenerate shapes", "[sddmm]") {
  UniqueHandle h = make_handle();
  RunStats stats;
  const FormatSpec formats[] = {csr_spec(), bcrs_spec(4), nm_spec(2, 4, 2), ell_spec()};
  const Shape shapes[] = {{8, 0, 8}, {0, 8, 8}, {8, 8, 0}, {8, 16, 8}};
  uint64_t seed = 29000;
  for (const FormatSpec& f : formats)
    for (const Shape& sh : shapes)
      for (double density : {0.3, 0.0}) {
        if (density == 0.0 && f.format == SPX_FORMAT_NM) continue;
        Rng rng(seed++);
        SddmmProblem p;
        p.A = random_dense(rng, sh.m, sh.k, SPX_ORDER_ROW, operand_dist(SPX_R_32F, sh.k, SPX_R_32F));
        p.B = random_dense(rng, sh.k, sh.n, SPX_ORDER_COL, operand_dist(SPX_R_32F, sh.k, SPX_R_32F));
        p.C = f.format == SPX_FORMAT_ELL && density == 0.0
                  ? random_ell(rng, sh.m, sh.n, 0, output_dist(SPX_R_32F))
                  : random_sparse(rng, f, sh.m, sh.n, output_dist(SPX_R_32F), density);
        p.compute = SPX_R_32F;
        p.s = {0.5, -2};
        p.what = "SDDMM degenerate " + f.name() + " " + std::to_string(sh.m) + "x" +
                 std::to_string(sh.k) + "x" + std::to_string(sh.n) + " density " +
                 std::to_string(density);
        check_sddmm(h.get(), p, stats);
        p.s = {1, 0};
        p.what += " (beta 0)";
        check_sddmm(h.get(), p, stats);
      }
  WARN(stats.summary());
  stats.check_complete();
}

// A long reduction (k = 1024) and a few hundred rows.
TEST_CASE("SDDMM multi-tile shapes", "[sddmm]") {
  UniqueHandle h = make_handle();
  RunStats stats;
  const FormatSpec formats[] = {csr_spec(), bcrs_spec(8), nm_spec(1, 4, 4), ell_spec()};
  const spxDataType_t types[][2] = {{SPX_R_32F, SPX_R_32F}, {SPX_R_16F, SPX_R_32F},
                                    {SPX_R_8I, SPX_R_32I}};
  uint64_t seed = 30000;
  for (const FormatSpec& f : formats)
    for (const auto& t : types) {
      const int64_t m = 256, k = 1024, n = 192;
      Rng rng(seed++);
      SddmmProblem p;
      p.A = random_dense(rng, m, k, SPX_ORDER_ROW, operand_dist(t[0], k, t[1]));
      p.B = random_dense(rng, k, n, SPX_ORDER_COL, operand_dist(t[0], k, t[1]));
      p.C = random_sparse(rng, f, m, n, output_dist(t[1]), 0.05);
      p.compute = t[1] == SPX_R_32I ? SPX_R_32I : SPX_R_32F;
      p.s = t[1] == SPX_R_32I ? ref::Scalars{2, -2} : ref::Scalars{0.5, -2};
      p.what = "SDDMM multi-tile " + f.name() + " " + type_name(t[0]) + " -> " + type_name(t[1]);
      check_sddmm(h.get(), p, stats);
    }
  WARN(stats.summary());
  stats.check_complete();
}
