// The dense route's host side: the roofline model of cuBLAS (families/dense/plan/roofline), the
// route rule (engine/route_rule: which route it picks on representative shapes and densities,
// forced NEVER / ALWAYS / SPX_SPMM_ALG_DENSE honoured), the mapping of C = A * B onto one
// column-major GEMM for every B and C order (checked by emulating cuBLAS's op / ld semantics on
// the CPU) and the densify scatter map.
#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "engine/route_rule.hpp"
#include "families/dense/plan/gemm.hpp"
#include "families/dense/plan/peaks.hpp"
#include "families/dense/plan/roofline.hpp"
#include "families/ell/plan/choice.hpp"
#include "families/ell/plan/predict.hpp"

namespace dp = spx::plan;
using spx::engine::decide_route;
using spx::engine::Route;
using spx::engine::RouteInputs;
using spx::engine::sparse_estimate_us;

namespace {

dp::DeviceRates h100() {
  dp::DeviceRates d;
  d.sm_count = 132;
  d.clock_ghz = 1.98;
  d.bandwidth_gbs = 3350;
  d.cc_major = 9;
  d.cc_minor = 0;
  return d;
}

dp::GemmSize gemm(int64_t m, int64_t k, int64_t n, dp::GemmMath math, int in = 2, int out = 2) {
  dp::GemmSize g;
  g.m = m;
  g.k = k;
  g.n = n;
  g.math = math;
  g.in_bytes = in;
  g.out_bytes = out;
  return g;
}

/// H200: H100's SMs and clock, 3.2 GHz x 6144-bit HBM3e (~4.9 TB/s).
dp::DeviceRates h200() {
  dp::DeviceRates d = h100();
  d.bandwidth_gbs = 2 * 3.2 * 768;
  return d;
}

constexpr double kFixed = dp::dense_peaks::kFixedUs;

/// What engine/route.cpp estimates for an ELL plan on sm_90 (EllSpmm::estimate_us): the family's
/// model of the rule's configuration, fp16 A of uniform rows k / 5 wide (80 %), 16-bit indices.
double ell_f16_us(int64_t m, int64_t k, int64_t n, bool b_row_major) {
  dp::EllInputs s;
  s.m = m;
  s.k = k;
  s.n = n;
  s.width = k / 5;
  s.value_bytes = 2;
  s.b_row_major = b_row_major;
  s.smem_optin = 232448;
  s.code_arch = 90;
  s.nnz = m * s.width;
  s.a_type = s.c_type = SPX_R_16F;
  dp::EllWork w;
  w.nnz = s.nnz;
  w.slots = m * ((s.width + 7) / 8 * 8);
  w.out_bytes = 2;
  return dp::predict_sparse_us(s, dp::choose_config(s), w);
}

/// What engine/route.cpp computes for AUTO under DEFAULT.
struct Auto {
  double sparse_us, dense_us;
  Route route;
};
Auto auto_route(const dp::GemmSize& run, const dp::GemmSize& reference, double speedup,
                double density) {
  const dp::DeviceRates d = h100();
  RouteInputs in;
  in.dense_possible = true;
  in.dense_us = dp::gemm_us(run, d);
  in.sparse_us = sparse_estimate_us(speedup, density, dp::gemm_us(reference, d), kFixed);
  return {in.sparse_us, in.dense_us, decide_route(in)};
}

}  // namespace

TEST_CASE("roofline: peaks follow the device and the math", "[dense][route]") {
  const dp::DeviceRates d = h100();
  const double half = dp::gemm_flops_per_s(dp::GemmMath::Half, d);
  const double tf32 = dp::gemm_flops_per_s(dp::GemmMath::Tf32, d);
  const double fp32 = dp::gemm_flops_per_s(dp::GemmMath::Fp32, d);
  // H100 SXM: ~989 TFLOP/s fp16 peak, ~67 fp32; attainable ~0.63-0.7 of that.
  CHECK(half > 600e12);
  CHECK(half < 800e12);
  CHECK(tf32 == Approx(half / 2));
  CHECK(fp32 > 35e12);
  CHECK(fp32 < 50e12);
  CHECK(dp::gemm_bytes_per_s(d) == Approx(3350e9 * dp::dense_peaks::kBandwidthEfficiency));
  // Half the SMs, half the rate; A100 (sm_80) has half H100's per-SM tensor rate.
  dp::DeviceRates small = d;
  small.sm_count = 66;
  CHECK(dp::gemm_flops_per_s(dp::GemmMath::Half, small) == Approx(half / 2));
  dp::DeviceRates a100 = d;
  a100.cc_major = 8;
  CHECK(dp::gemm_flops_per_s(dp::GemmMath::Half, a100) == Approx(half / 2));
  // Unknown properties fall back to the defaults, never to 0.
  const dp::DeviceRates unknown{};
  CHECK(dp::gemm_flops_per_s(dp::GemmMath::Half, unknown) > 0);
  CHECK(dp::gemm_bytes_per_s(unknown) > 0);
}

TEST_CASE("roofline: fixed cost, compute-bound and bandwidth-bound shapes", "[dense][route]") {
  const dp::DeviceRates d = h100();
  // Tiny: the fixed cost.
  CHECK(dp::gemm_us(gemm(32, 64, 8, dp::GemmMath::Half), d) == Approx(kFixed).margin(0.01));
  // 4096^3 fp16: 137 GFLOP at ~700 TFLOP/s, ~190 us; TF32 twice, pedantic fp32 ~17x.
  const double h = dp::gemm_us(gemm(4096, 4096, 4096, dp::GemmMath::Half), d);
  CHECK(h > 150);
  CHECK(h < 250);
  const double t = dp::gemm_us(gemm(4096, 4096, 4096, dp::GemmMath::Tf32, 4, 4), d);
  const double f = dp::gemm_us(gemm(4096, 4096, 4096, dp::GemmMath::Fp32, 4, 4), d);
  CHECK(t == Approx(kFixed + 2 * (h - kFixed)));
  CHECK(f > 10 * h);
  // n = 1 (a GEMV): bound by A's bytes, 32 MiB at ~3 TB/s, ~11 us.
  const double v = dp::gemm_work_us(gemm(4096, 4096, 1, dp::GemmMath::Half), d);
  CHECK(v == Approx(1e6 * (4096.0 * 4096 + 4096 + 4096) * 2 / dp::gemm_bytes_per_s(d)));
  // More columns never cost less.
  double last = 0;
  for (int64_t n : {1, 8, 64, 256, 1024, 4096}) {
    const double us = dp::gemm_us(gemm(4096, 4096, n, dp::GemmMath::Half), d);
    CHECK(us >= last);
    last = us;
  }
}

TEST_CASE("sparse estimate: the family's speedup, else the 1 % rule", "[dense][route]") {
  const double ref = 105;  // 100 us of work over the fixed 5
  CHECK(sparse_estimate_us(2.0, 0.5, ref, 5) == Approx(55));
  CHECK(sparse_estimate_us(0.5, 0.5, ref, 5) == Approx(205));
  // No model: break-even at 1 % density, slower above, faster below.
  CHECK(sparse_estimate_us(0, 0.01, ref, 5) == Approx(ref));
  CHECK(sparse_estimate_us(0, 0.5, ref, 5) == Approx(5 + 100 * 50));
  CHECK(sparse_estimate_us(0, 0.005, ref, 5) == Approx(55));
  // A reference below the fixed cost has no work to scale.
  CHECK(sparse_estimate_us(0, 0.5, 3, 5) == Approx(5));
}

TEST_CASE("route: AUTO on representative shapes and densities", "[dense][route]") {
  const auto half = [](int64_t m, int64_t k, int64_t n) { return gemm(m, k, n, dp::GemmMath::Half); };
  SECTION("fp16 N:M 2:4 on the fallback (no model), 4096 x 4096, N = 256: dense") {
    const Auto a = auto_route(half(4096, 4096, 256), half(4096, 4096, 256), 0, 0.5);
    CHECK(a.route == Route::Dense);
    CHECK(a.sparse_us > 10 * a.dense_us);
  }
  SECTION("the fallback at 0.5 % density: sparse") {
    CHECK(auto_route(half(4096, 4096, 256), half(4096, 4096, 256), 0, 0.005).route == Route::Sparse);
  }
  SECTION("tiny problems: both launch-bound, a near tie keeps the sparse plan") {
    CHECK(auto_route(half(32, 64, 8), half(32, 64, 8), 0, 0.3).route == Route::Sparse);
    CHECK(auto_route(half(90, 64, 20), half(90, 64, 20), 0, 0.3).route == Route::Sparse);
    CHECK(auto_route(half(256, 256, 64), half(256, 256, 64), 0.3, 0.3).route == Route::Sparse);
  }
  SECTION("a family that predicts a speedup keeps the sparse route; one that predicts a loss does not") {
    CHECK(auto_route(half(4096, 4096, 256), half(4096, 4096, 256), 1.4, 0.05).route == Route::Sparse);
    CHECK(auto_route(half(4096, 4096, 4096), half(4096, 4096, 4096), 0.92, 0.05).route == Route::Sparse);
    CHECK(auto_route(half(4096, 4096, 4096), half(4096, 4096, 4096), 0.5, 0.05).route == Route::Dense);
  }
  SECTION("fp32 N:M 2:4 (NM predicts ~1.9x pedantic SGEMM): sparse, but dense once TF32 is allowed") {
    const dp::GemmSize fp32 = gemm(4096, 4096, 4096, dp::GemmMath::Fp32, 4, 4);
    const dp::GemmSize tf32 = gemm(4096, 4096, 4096, dp::GemmMath::Tf32, 4, 4);
    CHECK(auto_route(fp32, fp32, 1.93, 0.5).route == Route::Sparse);
    CHECK(auto_route(tf32, fp32, 1.93, 0.5).route == Route::Dense);
  }
}

TEST_CASE("route: ELL fp16 80 % on H200, AUTO where the dense copy may be made", "[dense][route]") {
  // The shapes of a 7B model's projections at decode, B column-major as PyTorch passes it. The
  // decision of engine/route.cpp for an n where a dense copy is allowed (the analyzed n, or any
  // n under SPX_DENSE_ROUTE_AUTO_EVERY_N): ELL's own estimate against cuBLAS's roofline, with
  // the margin of route_rule.hpp. Measured on an H200 (kernel us, ELL against HGEMM): 11008 x
  // 4096 x 1 / 8 / 16: 10.5 / 17.9 / 28.4 against 25.5 / ~25 / 26.2; 4096 x 11008: 11.0 / ~17 /
  // 26.2 against 28.7 / ~29 / 29.2; 4096^2 x 256: 160 against 15.2.
  const dp::DeviceRates d = h200();
  auto route = [&](int64_t m, int64_t k, int64_t n) {
    RouteInputs in;
    in.dense_possible = true;
    in.dense_us = dp::gemm_us(gemm(m, k, n, dp::GemmMath::Half), d);
    in.sparse_us = ell_f16_us(m, k, n, false);
    INFO(m << " x " << k << " x " << n << ": ELL " << in.sparse_us << " us, dense "
           << in.dense_us << " us");
    return decide_route(in);
  };
  for (const auto [m, k] : {std::array<int64_t, 2>{4096, 11008}, {11008, 4096}})
    for (int64_t n : {1, 8}) {
      INFO(m << " x " << k << " x " << n);
      CHECK(route(m, k, n) == Route::Sparse);
    }
  CHECK(route(11008, 4096, 16) == Route::Dense);
  CHECK(route(4096, 11008, 16) == Route::Sparse);  // ELL 26.2 against HGEMM 29.2 measured
  CHECK(route(4096, 4096, 16) == Route::Sparse);   // a tie (10.4 against 10.1): keep the plan
  for (const auto [m, k] : {std::array<int64_t, 2>{4096, 4096}, {4096, 11008}, {11008, 4096}}) {
    INFO(m << " x " << k << " x 256");
    CHECK(route(m, k, 256) == Route::Dense);
  }
}

TEST_CASE("route: forced routes, forced families and what AUTO cannot use", "[dense][route]") {
  RouteInputs slow_dense;  // sparse clearly faster
  slow_dense.dense_possible = true;
  slow_dense.sparse_us = 10;
  slow_dense.dense_us = 100;
  RouteInputs fast_dense = slow_dense;  // dense clearly faster
  fast_dense.sparse_us = 100;
  fast_dense.dense_us = 10;
  CHECK(decide_route(slow_dense) == Route::Sparse);
  CHECK(decide_route(fast_dense) == Route::Dense);

  RouteInputs in = fast_dense;
  in.option = SPX_DENSE_ROUTE_NEVER;
  CHECK(decide_route(in) == Route::Sparse);
  in = slow_dense;
  in.option = SPX_DENSE_ROUTE_ALWAYS;
  CHECK(decide_route(in) == Route::Dense);
  in = slow_dense;
  in.alg = SPX_SPMM_ALG_DENSE;
  CHECK(decide_route(in) == Route::Dense);
  // ALWAYS answers Dense even where dense cannot run: the caller reports NOT_SUPPORTED.
  in.option = SPX_DENSE_ROUTE_ALWAYS;
  in.alg = SPX_SPMM_ALG_DEFAULT;
  in.dense_possible = false;
  CHECK(decide_route(in) == Route::Dense);
  // AUTO with a forced sparse family runs that family.
  for (spxSpMMAlg_t alg : {SPX_SPMM_ALG_NM, SPX_SPMM_ALG_ELL, SPX_SPMM_ALG_SPTC_REORDER,
                           SPX_SPMM_ALG_FALLBACK}) {
    in = fast_dense;
    in.alg = alg;
    CHECK(decide_route(in) == Route::Sparse);
  }
  in = fast_dense;
  in.dense_possible = false;  // integer types, no cuBLAS
  CHECK(decide_route(in) == Route::Sparse);
  in = fast_dense;
  in.empty = true;
  CHECK(decide_route(in) == Route::Sparse);
  // The margin: 10 % and 2 us.
  in = fast_dense;
  in.sparse_us = 10.5;
  in.dense_us = 10;
  CHECK(decide_route(in) == Route::Sparse);
  in.sparse_us = 11.6;
  in.dense_us = 10;
  CHECK(decide_route(in) == Route::Sparse);  // 16 % but 1.6 us
  in.sparse_us = 12.2;
  CHECK(decide_route(in) == Route::Dense);
  // Measured (AUTOTUNE): the faster, no margin.
  in.measured = true;
  in.sparse_us = 10.1;
  in.dense_us = 10;
  CHECK(decide_route(in) == Route::Dense);
  in.sparse_us = 9.9;
  CHECK(decide_route(in) == Route::Sparse);
}

// ---------------------------------------------------------------- the GEMM mapping

namespace {

/// Element (r, c) of a column-major matrix with leading dimension ld, op applied.
double at(const std::vector<double>& x, int64_t ld, bool trans, int64_t r, int64_t c) {
  return trans ? x[c + r * ld] : x[r + c * ld];
}

/// cuBLAS's C = op(first) op(second) + 0 * C, all column-major, as the plan calls it.
void emulate(const dp::GemmLayout& g, const std::vector<double>& first, int64_t ld_first,
             const std::vector<double>& second, int64_t ld_second, std::vector<double>& c,
             int64_t ldc) {
  for (int64_t i = 0; i < g.m; ++i)
    for (int64_t j = 0; j < g.n; ++j) {
      double s = 0;
      for (int64_t p = 0; p < g.k; ++p)
        s += at(first, ld_first, g.trans_first, i, p) * at(second, ld_second, g.trans_second, p, j);
      c[i + j * ldc] = s;
    }
}

}  // namespace

TEST_CASE("GEMM mapping: every B and C order gives A * B", "[dense][gemm]") {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  for (const auto [m, k, n] : {std::array<int64_t, 3>{5, 7, 3}, {1, 4, 6}, {8, 1, 2}, {3, 3, 1}})
    for (spxOrder_t bo : {SPX_ORDER_ROW, SPX_ORDER_COL})
      for (spxOrder_t co : {SPX_ORDER_ROW, SPX_ORDER_COL}) {
        const int64_t pad = 2;
        std::vector<double> a(static_cast<size_t>(m * k));  // row-major, ld k
        for (double& x : a) x = u(rng);
        const int64_t ldb = (bo == SPX_ORDER_ROW ? n : k) + pad;
        std::vector<double> b(static_cast<size_t>(ldb * (bo == SPX_ORDER_ROW ? k : n)));
        for (double& x : b) x = u(rng);
        const auto b_at = [&](int64_t r, int64_t c) {
          return bo == SPX_ORDER_ROW ? b[r * ldb + c] : b[r + c * ldb];
        };
        const int64_t ldc = (co == SPX_ORDER_ROW ? n : m) + pad;
        std::vector<double> c(static_cast<size_t>(ldc * (co == SPX_ORDER_ROW ? m : n)), 0.0);

        const dp::GemmLayout g = dp::gemm_layout(m, k, n, bo, co);
        CHECK(g.lda == k);
        if (g.first_is_a)
          emulate(g, a, g.lda, b, ldb, c, ldc);
        else
          emulate(g, b, ldb, a, g.lda, c, ldc);
        for (int64_t i = 0; i < m; ++i)
          for (int64_t j = 0; j < n; ++j) {
            double want = 0;
            for (int64_t p = 0; p < k; ++p) want += a[i * k + p] * b_at(p, j);
            const double got = co == SPX_ORDER_ROW ? c[i * ldc + j] : c[i + j * ldc];
            INFO("m " << m << " k " << k << " n " << n << " B " << bo << " C " << co << " ops "
                      << g.ops() << " at (" << i << ", " << j << ")");
            CHECK(got == Approx(want).margin(1e-12));
          }
      }
}

TEST_CASE("GEMM mapping: ops, operand order and the plan-info text", "[dense][gemm]") {
  const dp::GemmLayout cc = dp::gemm_layout(64, 32, 16, SPX_ORDER_COL, SPX_ORDER_COL);
  CHECK(cc.first_is_a);
  CHECK(cc.ops() == "TN");
  CHECK((cc.m == 64 && cc.n == 16 && cc.k == 32));
  CHECK(dp::gemm_layout(64, 32, 16, SPX_ORDER_ROW, SPX_ORDER_COL).ops() == "TT");
  const dp::GemmLayout rr = dp::gemm_layout(64, 32, 16, SPX_ORDER_ROW, SPX_ORDER_ROW);
  CHECK_FALSE(rr.first_is_a);
  CHECK(rr.ops() == "NN");
  CHECK((rr.m == 16 && rr.n == 64 && rr.k == 32));
  CHECK(dp::gemm_layout(64, 32, 16, SPX_ORDER_COL, SPX_ORDER_ROW).ops() == "TN");
  CHECK(dp::gemm_layout(4, 0, 4, SPX_ORDER_COL, SPX_ORDER_COL).lda == 1);

  CHECK(dp::describe_gemm(cc, SPX_R_32F, SPX_R_32F, false, SPX_ORDER_COL, SPX_ORDER_COL) ==
        "SGEMM TN fp32, pedantic fp32 compute, B col, C col (A dense row-major)");
  CHECK(dp::describe_gemm(cc, SPX_R_32F, SPX_R_32F, true, SPX_ORDER_COL, SPX_ORDER_COL) ==
        "SGEMM TN fp32, TF32 tensor-core compute, B col, C col (A dense row-major)");
  CHECK(dp::describe_gemm(rr, SPX_R_16F, SPX_R_16F, false, SPX_ORDER_ROW, SPX_ORDER_ROW) ==
        "HGEMM NN fp16, fp32 compute, B row, C row (A dense row-major)");
  CHECK(dp::describe_gemm(rr, SPX_R_16BF, SPX_R_32F, false, SPX_ORDER_ROW, SPX_ORDER_ROW) ==
        "BF16 GEMM NN bf16 -> fp32, fp32 compute, B row, C row (A dense row-major)");
  CHECK(dp::fits_cublas_int(2147483647));
  CHECK_FALSE(dp::fits_cublas_int(2147483648LL));
}

TEST_CASE("densify map: one dense element per stored entry, user slots kept", "[dense][gemm]") {
  spx::plan::CsrStructure csr;
  csr.rows = 3;
  csr.cols = 5;
  csr.row_ptr = {0, 2, 2, 5};
  csr.col_ind = {4, 1, 3, 0, 3};  // unsorted, a duplicate column in row 2
  csr.slot = {10, 11, 12, 13, 14};
  const dp::DensifyMap d = dp::densify_map(csr, 5);
  CHECK(d.pos == std::vector<int64_t>{4, 1, 13, 10, 13});
  CHECK(d.slot == csr.slot);
  const dp::DensifyMap empty = dp::densify_map(spx::plan::CsrStructure{}, 5);
  CHECK(empty.pos.empty());
}
