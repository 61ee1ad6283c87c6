// SpMM with float inputs (32F, 16F, 16BF; output the input type or 32F) on every format,
// against the CPU reference: odd and tail sizes, both B and C orders, ld padding, three
// alpha/beta pairs (beta = 0 runs on a NaN-poisoned C), and DEFAULT, FALLBACK and the families
// that may take the input forced.
#include <catch2/catch.hpp>
#include <chrono>

#include "runner.hpp"
#include "spx_catch.hpp"

using namespace spx::test;
namespace ref = spx::ref;

namespace {

struct FloatCombo {
  spxDataType_t in, out;
  int variants;  // how many grid points (of 44) this combination runs per format
};

// 32F covers the whole grid; the half types a rotating share of it (salted differently).
const FloatCombo kCombos[] = {{SPX_R_32F, SPX_R_32F, 44},
                              {SPX_R_16F, SPX_R_16F, 22},
                              {SPX_R_16F, SPX_R_32F, 11},
                              {SPX_R_16BF, SPX_R_16BF, 11},
                              {SPX_R_16BF, SPX_R_32F, 11}};

void run_formats(const std::vector<FormatSpec>& formats, uint64_t seed) {
  const auto start = std::chrono::steady_clock::now();
  UniqueHandle h = make_handle();
  RunStats stats;
  for (const FormatSpec& f : formats)
    for (const FloatCombo& c : kCombos) {
      SpmmGrid g;
      g.format = f;
      g.a_type = g.b_type = c.in;
      g.c_type = c.out;
      g.variants = c.variants;
      g.seed = seed++;
      run_spmm_grid(h.get(), g, stats);
    }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  WARN(stats.summary() << " (" << s << " s)");
  stats.check_complete();
}

}  // namespace

TEST_CASE("SpMM float CSR", "[spmm][float]") { run_formats({csr_spec()}, 1000); }

TEST_CASE("SpMM float BCRS V=1/2/4", "[spmm][float]") {
  run_formats({bcrs_spec(1), bcrs_spec(2), bcrs_spec(4)}, 2000);
}

TEST_CASE("SpMM float BCRS V=8/16", "[spmm][float]") {
  run_formats({bcrs_spec(8), bcrs_spec(16)}, 3000);
}

TEST_CASE("SpMM float NM", "[spmm][float]") {
  run_formats({nm_spec(2, 4, 2), nm_spec(1, 4, 4), nm_spec(3, 8, 16), nm_spec(5, 16, 1),
               nm_spec(4, 8, 8)},
              4000);
}

TEST_CASE("SpMM float ELL", "[spmm][float]") { run_formats({ell_spec()}, 5000); }

// Larger problems: several thread blocks in every dimension and a long reduction (split-k).
TEST_CASE("SpMM float multi-tile shapes", "[spmm][float]") {
  UniqueHandle h = make_handle();
  RunStats stats;
  const Shape shapes[] = {{384, 768, 128}, {64, 4096, 64}};
  const FormatSpec formats[] = {csr_spec(), bcrs_spec(8), nm_spec(2, 4, 2), nm_spec(1, 4, 4),
                                ell_spec()};
  const spxDataType_t outs[][2] = {{SPX_R_32F, SPX_R_32F}, {SPX_R_16F, SPX_R_32F},
                                   {SPX_R_16BF, SPX_R_16BF}};
  uint64_t seed = 6000;
  for (const Shape& sh : shapes)
    for (const FormatSpec& f : formats)
      for (const auto& t : outs) {
        Rng rng(seed++);
        SpmmProblem p;
        p.A = random_sparse(rng, f, sh.m, sh.k, operand_dist(t[0], sh.k, t[1]), 0.1);
        p.B = random_dense(rng, sh.k, sh.n, (seed & 1) ? SPX_ORDER_COL : SPX_ORDER_ROW,
                           operand_dist(t[0], sh.k, t[1]));
        p.C = random_dense(rng, sh.m, sh.n, (seed & 2) ? SPX_ORDER_COL : SPX_ORDER_ROW,
                           output_dist(t[1]));
        p.compute = SPX_R_32F;
        p.s = {0.5, -2};
        p.what = "SpMM multi-tile " + f.name() + " A/B " + type_name(t[0]) + " C " +
                 type_name(t[1]) + " " + std::to_string(sh.m) + "x" + std::to_string(sh.k) +
                 "x" + std::to_string(sh.n) + ", seed " + std::to_string(seed - 1);
        check_spmm(h.get(), p, stats);
      }
  WARN(stats.summary());
  stats.check_complete();
}

// Empty dimensions, an A without entries, and explicit zeros among the stored values.
TEST_CASE("SpMM float degenerate shapes and explicit zeros", "[spmm][float]") {
  UniqueHandle h = make_handle();
  RunStats stats;
  const FormatSpec formats[] = {csr_spec(), bcrs_spec(4), nm_spec(2, 4, 2), ell_spec()};
  const Shape shapes[] = {{0, 8, 8}, {8, 0, 8}, {8, 8, 0}, {0, 0, 0}, {8, 16, 1}};
  uint64_t seed = 7000;
  for (const FormatSpec& f : formats)
    for (const Shape& sh : shapes)
      for (double density : {0.3, 0.0}) {
        if (density == 0.0 && (f.format == SPX_FORMAT_NM)) continue;  // NM always stores n of m
        Rng rng(seed++);
        SpmmProblem p;
        p.A = f.format == SPX_FORMAT_ELL && density == 0.0
                  ? random_ell(rng, sh.m, sh.k, 0, operand_dist(SPX_R_32F, sh.k, SPX_R_32F))
                  : random_sparse(rng, f, sh.m, sh.k, operand_dist(SPX_R_32F, sh.k, SPX_R_32F),
                                  density);
        p.B = random_dense(rng, sh.k, sh.n, SPX_ORDER_ROW, operand_dist(SPX_R_32F, sh.k, SPX_R_32F));
        p.C = random_dense(rng, sh.m, sh.n, SPX_ORDER_COL, output_dist(SPX_R_32F));
        p.compute = SPX_R_32F;
        p.s = {-1.5, 1};
        p.what = "SpMM degenerate " + f.name() + " " + std::to_string(sh.m) + "x" +
                 std::to_string(sh.k) + "x" + std::to_string(sh.n) + " density " +
                 std::to_string(density);
        check_spmm(h.get(), p, stats);
        // beta = 0 on the same problem: C poisoned, an all-zero product must still write zeros.
        p.s = {1, 0};
        p.what += " (beta 0)";
        check_spmm(h.get(), p, stats);
      }

  // Explicit zeros: every third stored value is 0 (still counted in nnz).
  for (const FormatSpec& f : formats) {
    Rng rng(seed++);
    SpmmProblem p;
    p.A = random_sparse(rng, f, 32, 64, operand_dist(SPX_R_16F, 64, SPX_R_32F));
    for (int64_t i = 0; i < p.A.value_slots(); i += 3)
      if (f.format != SPX_FORMAT_ELL || p.A.idx[i] >= 0)
        reinterpret_cast<uint16_t*>(p.A.values.data())[i] = 0;  // +0.0 in 16F
    p.B = random_dense(rng, 64, 40, SPX_ORDER_COL, operand_dist(SPX_R_16F, 64, SPX_R_32F), 2);
    p.C = random_dense(rng, 32, 40, SPX_ORDER_ROW, output_dist(SPX_R_32F), 1);
    p.compute = SPX_R_32F;
    p.s = {0.5, -2};
    p.what = "SpMM explicit zeros " + f.name() + " 16F -> 32F";
    check_spmm(h.get(), p, stats);
  }
  WARN(stats.summary());
  stats.check_complete();
}
