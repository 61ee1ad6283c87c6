// The fused SpMM epilogue on a device: every family (NM, ELL, SR-BCRS with int8 weights and a
// dequantization scale, SpTC, the fallback) x activation (none, ReLU, GELU tanh, SiLU) x bias
// on / off x scale on / off x beta 0 / non-0, against the double-precision CPU reference, both
// orders, odd m and tail n, n = 1 and n > 16, through one plan for any n (MAX_N = -1: several
// prepared n and column slices); NM's split-K and stream-K paths (the epilogue once, after the
// reduction); the dense cuBLAS route (beta 0 on the host: the GEMM then the epilogue in place;
// other calls: the sparse decision it keeps); spxSpMM_search keeps it; bad pointers are
// INVALID_VALUE; the combinations it cannot take (a 32I C, SPX_SPMM_ALG_DENSE, SDDMM) are
// NOT_SUPPORTED.
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "api_fixtures.hpp"
#include "env_override.hpp"
#include "epilogue_fixtures.hpp"
#include "runner.hpp"
#include "spx_catch.hpp"

using namespace spx::test;
using namespace spx::test::api;
namespace ref = spx::ref;
namespace ep = spx::test::epilogue;

namespace {

struct EpiCase {
  FormatSpec f;
  spxDataType_t in, out;
  spxSpMMAlg_t alg;
  const char* name;
  int64_t m, k;
};

// Odd m where the format allows it (NM groups of 16 rows, BCRS vectors of 8: a tail tile still).
const EpiCase kCases[] = {
    {nm_spec(2, 4, 16), SPX_R_32F, SPX_R_32F, SPX_SPMM_ALG_NM, "NM fp32", 80, 128},
    {ell_spec(), SPX_R_16F, SPX_R_16F, SPX_SPMM_ALG_ELL, "ELL fp16", 101, 96},
    {ell_spec(), SPX_R_32F, SPX_R_32F, SPX_SPMM_ALG_ELL, "ELL fp32", 77, 64},
    {bcrs_spec(8), SPX_R_8I, SPX_R_32F, SPX_SPMM_ALG_SRBCRS, "SR-BCRS int8 -> fp32", 88, 128},
    {bcrs_spec(8), SPX_R_8I, SPX_R_16F, SPX_SPMM_ALG_SRBCRS, "SR-BCRS int8 -> fp16", 72, 64},
    {csr_spec(), SPX_R_16F, SPX_R_32F, SPX_SPMM_ALG_SPTC_REORDER, "SpTC fp16 -> fp32", 101, 96},
    {csr_spec(), SPX_R_16BF, SPX_R_16BF, SPX_SPMM_ALG_SPTC_REORDER, "SpTC bf16", 67, 64},
    {csr_spec(), SPX_R_32F, SPX_R_32F, SPX_SPMM_ALG_FALLBACK, "fallback fp32", 101, 64},
    {csr_spec(), SPX_R_8I, SPX_R_16F, SPX_SPMM_ALG_FALLBACK, "fallback int8 -> fp16", 53, 64},
};

const int kActs[] = {SPX_ACTIVATION_NONE, SPX_ACTIVATION_RELU, SPX_ACTIVATION_GELU_TANH,
                     SPX_ACTIVATION_SILU};

const char* act_name(int a) {
  switch (a) {
    case SPX_ACTIVATION_RELU: return "relu";
    case SPX_ACTIVATION_GELU_TANH: return "gelu_tanh";
    case SPX_ACTIVATION_SILU: return "silu";
    default: return "none";
  }
}

/// Units of 2^-24 of the accumulation's error per product: tensor-core kernels (16-bit and
/// integer inputs) 4 per step, ELL's 3xTF32 dense tiles for fp32 12 per product + 13
/// (tests/families/ell/test_ell.cpp); the integer sums are exact, so their bound is spare.
auto accum_terms_for(spxDataType_t in) {
  return [in](int32_t t) -> double { return in == SPX_R_32F ? 12.0 * t + 13 : 4.0 * t; };
}

UniquePlan analyze_epi(spxHandle_t h, const Spmm& s, spxSpMMAlg_t alg, int32_t act, int32_t bias,
                       int32_t scale, int32_t max_n = -1,
                       int32_t route = SPX_DENSE_ROUTE_AUTO) {
  return analyze_with(h, s, alg,
                      {{SPX_PLAN_OPTION_MAX_N, max_n},
                       {SPX_PLAN_OPTION_DENSE_ROUTE, route},
                       {SPX_PLAN_OPTION_EPILOGUE_ACTIVATION, act},
                       {SPX_PLAN_OPTION_EPILOGUE_BIAS, bias},
                       {SPX_PLAN_OPTION_EPILOGUE_SCALE, scale}});
}

/// Per-row bias in [-1, 1] and scale of either sign: [0.5, 2] for float weights, [2^-9, 2^-5]
/// (a dequantization scale) for integer ones, whose products are large integers.
struct RowVectors {
  std::vector<float> bias, scale;
  DeviceBuffer d_bias, d_scale;
};

RowVectors row_vectors(Rng& rng, int64_t m, bool integer) {
  RowVectors v;
  for (int64_t i = 0; i < m; ++i) {
    v.bias.push_back(static_cast<float>(2.0 * rng.uniform01() - 1.0));
    const double mag = integer ? std::ldexp(1.0 + rng.uniform01(), -9 + static_cast<int>(rng.uniform_int(0, 3)))
                               : 0.5 + 1.5 * rng.uniform01();
    v.scale.push_back(static_cast<float>(rng.chance(0.5) ? mag : -mag));
  }
  v.d_bias = DeviceBuffer::from(v.bias);
  v.d_scale = DeviceBuffer::from(v.scale);
  return v;
}

struct Operands {
  HostDense B, C;
  DeviceDense dB, dC;
};

Operands operands(Rng& rng, const EpiCase& c, int64_t n, spxOrder_t order) {
  Operands o;
  o.B = random_dense(rng, c.k, n, order, operand_dist(c.in, c.k, c.out), 1);
  o.C = random_dense(rng, c.m, n, order, output_dist(c.out), 1);
  guard_padding(o.C);
  o.dB = to_device(o.B);
  o.dC = to_device(o.C, 256);
  return o;
}

/// One spxSpMM_execute checked against the expectation.
void run_checked(spxHandle_t h, spxPlan_t plan, const EpiCase& c, const HostSparse& A,
                 Operands& o, double alpha, double beta, int act, const RowVectors& rv,
                 bool with_bias, bool with_scale, const std::string& what) {
  const HostDense c_old = o.C;
  const ScalarBytes a = make_scalar(alpha, c.out), b = make_scalar(beta, c.out);
  DeviceBuffer ws(workspace_bytes(plan));
  const int64_t n = o.C.cols;
  REQUIRE_SPX(spxSpMM_execute(h, plan, n, a.get(), o.dB.buf.get(), o.B.ld, b.get(),
                              o.dC.buf.get(), o.C.ld, ws.get()));
  device_sync();
  const ref::Expected product = ref::spmm(A, o.B, c_old, {alpha, 0.0});
  const ref::Expected e = ep::expectation(product, c_old, beta, act, with_bias ? &rv.bias : nullptr,
                                          with_scale ? &rv.scale : nullptr, accum_terms_for(c.in));
  const CheckResult r = check_dense_output(download(o.dC, o.C), c_old, e);
  INFO(what << "\n" << r.report);
  CHECK(r.ok);
  CHECK(o.dC.buf.tail_intact());
}

}  // namespace

TEST_CASE("fused epilogue: every family x activation x bias x scale x beta", "[api][epilogue]") {
  UniqueHandle h = make_handle();
  uint64_t seed = 9100;
  for (const EpiCase& c : kCases) {
    const bool integer = c.in == SPX_R_8I;
    for (const spxOrder_t order : {SPX_ORDER_ROW, SPX_ORDER_COL}) {
      Spmm s = make_spmm(seed++, c.f, c.m, c.k, 16, c.in, c.out, order, order);
      Rng rng(seed++);
      const RowVectors rv = row_vectors(rng, c.m, integer);
      for (const int act : kActs) {
        const std::string base = std::string(c.name) + (order == SPX_ORDER_ROW ? " row" : " col") +
                                 ", act " + act_name(act);
        INFO(base);
        const UniquePlan plan = analyze_epi(h.get(), s, c.alg, act, 1, 1);
        spxPlanInfo_t info{};
        REQUIRE_SPX(spxPlanGetInfo(plan.get(), &info));
        REQUIRE(info.family == c.alg);
        CHECK(info.route == 0);
        int combo = 0;
        // n = 1, odd, 16 (the analyzed n), > 16 and above the largest prepared size (slices).
        for (const int64_t n : {1, 7, 16, 33, 4096 + 5}) {
          for (int bits = 0; bits < 4; ++bits) {
            const bool with_bias = bits & 1, with_scale = bits & 2;
            REQUIRE_SPX(spxPlanSetEpilogue(h.get(), plan.get(), with_bias ? rv.d_bias.get() : nullptr,
                                           with_scale ? rv.d_scale.get() : nullptr));
            const double beta = (combo++ % 2) ? -0.75 : 0.0;
            if (n > 1000 && bits != 3) continue;  // the slices: every part set, one beta
            Operands o = operands(rng, c, n, order);
            run_checked(h.get(), plan.get(), c, s.A, o, 1.25, beta, act, rv, with_bias,
                        with_scale,
                        base + ", n = " + std::to_string(n) + (with_bias ? ", bias" : "") +
                            (with_scale ? ", scale" : "") + ", beta = " + std::to_string(beta));
          }
        }
      }
      // A plan with the activation only (no bias / scale options) and the descriptor path.
      const UniquePlan plain = analyze_epi(h.get(), s, c.alg, SPX_ACTIVATION_SILU, 0, 0, 0);
      const HostDense c_old = download(s.dC, s.C);
      const ScalarBytes a = make_scalar(0.5, c.out), b = make_scalar(2.0, c.out);
      DeviceBuffer ws(workspace_bytes(plain.get()));
      REQUIRE_SPX(spxSpMM(h.get(), plain.get(), a.get(), s.dA.get(), s.dB.get(), b.get(),
                          s.dC.get(), ws.get()));
      device_sync();
      const ref::Expected e = ep::expectation(ref::spmm(s.A, s.B, c_old, {0.5, 0.0}), c_old, 2.0,
                                              SPX_ACTIVATION_SILU, nullptr, nullptr,
                                              accum_terms_for(c.in));
      const CheckResult r = check_dense_output(download(s.dC, s.C), c_old, e);
      INFO(c.name << ": SiLU only, spxSpMM\n" << r.report);
      CHECK(r.ok);
    }
  }
}

TEST_CASE("fused epilogue: NM split-K and stream-K apply it once, after the reduction",
          "[api][epilogue]") {
  UniqueHandle h = make_handle();
  struct Path {
    const char* name;
    const char* split;
    const char* stream_k;
    const char* slots;
    const char* tile;
    int64_t m, k, n, N, M, L;
  };
  const Path paths[] = {
      {"split-K 4", "4", "", "", "", 64, 512, 24, 2, 4, 16},
      {"stream-K", "1", "1", "7", "wide", 608, 2000, 520, 3, 8, 32},
  };
  uint64_t seed = 9300;
  for (const Path& p : paths) {
    EnvOverride s1("SPX_NM_FORCE_SPLIT", p.split);
    EnvOverride s2("SPX_NM_STREAM_K", p.stream_k);
    EnvOverride s3("SPX_NM_STREAM_K_SLOTS", p.slots);
    EnvOverride s4("SPX_NM_FORCE_TILE", p.tile);
    const EpiCase c{nm_spec(p.N, p.M, p.L), SPX_R_32F, SPX_R_32F, SPX_SPMM_ALG_NM, p.name, p.m, p.k};
    for (const spxOrder_t order : {SPX_ORDER_ROW, SPX_ORDER_COL}) {
      Spmm s = make_spmm(seed++, c.f, c.m, c.k, p.n, c.in, c.out, order, order);
      Rng rng(seed++);
      const RowVectors rv = row_vectors(rng, c.m, false);
      const UniquePlan plan = analyze_epi(h.get(), s, c.alg, SPX_ACTIVATION_GELU_TANH, 1, 1, 0,
                                          SPX_DENSE_ROUTE_NEVER);
      spxPlanInfo_t info{};
      REQUIRE_SPX(spxPlanGetInfo(plan.get(), &info));
      const std::string config = info.config;
      INFO(p.name << (order == SPX_ORDER_ROW ? " row" : " col") << ", config " << config);
      if (std::string(p.split) != "1") CHECK(info.split_k == 4);
      REQUIRE_SPX(spxPlanSetEpilogue(h.get(), plan.get(), rv.d_bias.get(), rv.d_scale.get()));
      Operands o;
      o.B = s.B;
      o.C = s.C;
      o.dB = to_device(o.B);
      o.dC = to_device(o.C, 256);
      run_checked(h.get(), plan.get(), c, s.A, o, 1.0, 0.5, SPX_ACTIVATION_GELU_TANH, rv, true,
                  true, std::string(p.name) + ", GELU, bias, scale, beta 0.5");
    }
  }
}

TEST_CASE("fused epilogue: the dense route, beta 0 in place, other calls on the sparse decision",
          "[api][epilogue]") {
  UniqueHandle h = make_handle();
  uint64_t seed = 9700;
  for (const spxDataType_t t : {SPX_R_16F, SPX_R_16BF, SPX_R_32F}) {
    for (const spxOrder_t order : {SPX_ORDER_ROW, SPX_ORDER_COL}) {
      const EpiCase c{csr_spec(), t, t, SPX_SPMM_ALG_DEFAULT, "dense route", 75, 96};
      Spmm s = make_spmm(seed++, c.f, c.m, c.k, 16, c.in, c.out, order, order);
      Rng rng(seed++);
      const RowVectors rv = row_vectors(rng, c.m, false);
      for (const int act : kActs) {
        const UniquePlan plan = analyze_epi(h.get(), s, c.alg, act, 1, 1, -1,
                                            SPX_DENSE_ROUTE_ALWAYS);
        REQUIRE_SPX(spxPlanSetEpilogue(h.get(), plan.get(), rv.d_bias.get(), rv.d_scale.get()));
        for (const int64_t n : {1, 16, 37}) {
          spxPlanInfo_t info{};
          REQUIRE_SPX(spxPlanGetInfoForN(plan.get(), n, &info));
          REQUIRE(info.route == 1);
          for (const double beta : {0.0, 0.5}) {
            const std::string what = std::string(type_name(t)) +
                                     (order == SPX_ORDER_ROW ? " row" : " col") + ", act " +
                                     act_name(act) + ", n = " + std::to_string(n) +
                                     ", beta = " + std::to_string(beta);
            INFO(what);
            Operands o = operands(rng, c, n, order);
            const HostDense c_old = o.C;
            const ScalarBytes a = make_scalar(1.25, c.out), b = make_scalar(beta, c.out);
            DeviceBuffer ws(workspace_bytes(plan.get()));
            REQUIRE_SPX(spxSpMM_execute(h.get(), plan.get(), n, a.get(), o.dB.buf.get(), o.B.ld,
                                        b.get(), o.dC.buf.get(), o.C.ld, ws.get()));
            device_sync();
            // beta 0: cuBLAS rounds the product to C's type before the epilogue kernel.
            const double product_unit = beta == 0.0 ? ep::unit_of(t) : 0.0;
            const ref::Expected e =
                ep::expectation(ref::spmm(s.A, o.B, c_old, {1.25, 0.0}), c_old, beta, act,
                                &rv.bias, &rv.scale, accum_terms_for(t), product_unit);
            const CheckResult r = check_dense_output(download(o.dC, o.C), c_old, e);
            INFO(r.report);
            CHECK(r.ok);
            CHECK(o.dC.buf.tail_intact());
          }
        }
      }
    }
  }
}

TEST_CASE("fused epilogue: spxSpMM_search keeps it", "[api][epilogue]") {
  UniqueHandle h = make_handle();
  const EpiCase c{ell_spec(), SPX_R_16F, SPX_R_16F, SPX_SPMM_ALG_ELL, "ELL fp16", 96, 128};
  Spmm s = make_spmm(9400, c.f, c.m, c.k, 32, c.in, c.out);
  Rng rng(9401);
  const RowVectors rv = row_vectors(rng, c.m, false);
  const UniquePlan plan = analyze_epi(h.get(), s, c.alg, SPX_ACTIVATION_RELU, 1, 0, 0);
  REQUIRE_SPX(spxPlanSetEpilogue(h.get(), plan.get(), rv.d_bias.get(), nullptr));
  const HostDense c_old = download(s.dC, s.C);
  const ScalarBytes a = make_scalar(1.0, c.out), b = make_scalar(0.5, c.out);
  DeviceBuffer ws(workspace_bytes(plan.get()));
  REQUIRE_SPX(spxSpMM_search(h.get(), plan.get(), a.get(), s.dA.get(), s.dB.get(), b.get(),
                             s.dC.get(), ws.get()));
  const ref::Expected e = ep::expectation(ref::spmm(s.A, s.B, c_old, {1.0, 0.0}), c_old, 0.5,
                                          SPX_ACTIVATION_RELU, &rv.bias, nullptr,
                                          accum_terms_for(c.in));
  const CheckResult r = check_dense_output(download(s.dC, s.C), c_old, e);
  INFO(r.report);
  CHECK(r.ok);
}

TEST_CASE("fused epilogue: bad pointers are INVALID_VALUE and leave the plan unchanged",
          "[api][epilogue]") {
  UniqueHandle h = make_handle();
  const EpiCase c{csr_spec(), SPX_R_32F, SPX_R_32F, SPX_SPMM_ALG_FALLBACK, "fallback", 32, 32};
  Spmm s = make_spmm(9500, c.f, c.m, c.k, 8, c.in, c.out);
  Rng rng(9501);
  const RowVectors rv = row_vectors(rng, c.m, false);
  const UniquePlan plan = analyze_epi(h.get(), s, c.alg, SPX_ACTIVATION_NONE, 1, 1, 0);
  REQUIRE_SPX(spxPlanSetEpilogue(h.get(), plan.get(), rv.d_bias.get(), rv.d_scale.get()));
  std::vector<float> host(c.m, 1.0f);
  const char* dev = static_cast<const char*>(rv.d_bias.get());
  CHECK_SPX_INVALID(spxPlanSetEpilogue(h.get(), plan.get(), host.data(), nullptr));
  CHECK(std::string(spxGetLastErrorMessage()).find("bias") != std::string::npos);
  CHECK_SPX_INVALID(spxPlanSetEpilogue(h.get(), plan.get(), nullptr, host.data()));
  CHECK(std::string(spxGetLastErrorMessage()).find("scale") != std::string::npos);
  CHECK_SPX_INVALID(spxPlanSetEpilogue(h.get(), plan.get(), dev + 2, nullptr));
  CHECK(std::string(spxGetLastErrorMessage()).find("aligned") != std::string::npos);
  CHECK_SPX_INVALID(spxPlanSetEpilogue(nullptr, plan.get(), nullptr, nullptr));
  CHECK_SPX_INVALID(spxPlanSetEpilogue(h.get(), nullptr, nullptr, nullptr));
  // The refused calls changed nothing.
  const void* bias = nullptr;
  const void* scale = nullptr;
  REQUIRE_SPX(spxPlanGetEpilogue(plan.get(), &bias, &scale));
  CHECK(bias == rv.d_bias.get());
  CHECK(scale == rv.d_scale.get());
  // A plan analyzed without the bias / scale options takes neither.
  const UniquePlan relu = analyze_epi(h.get(), s, c.alg, SPX_ACTIVATION_RELU, 0, 0, 0);
  CHECK_SPX_INVALID(spxPlanSetEpilogue(h.get(), relu.get(), rv.d_bias.get(), nullptr));
  CHECK(std::string(spxGetLastErrorMessage()).find("SPX_PLAN_OPTION_EPILOGUE_BIAS") !=
        std::string::npos);
  CHECK_SPX_INVALID(spxPlanSetEpilogue(h.get(), relu.get(), nullptr, rv.d_scale.get()));
  CHECK(std::string(spxGetLastErrorMessage()).find("SPX_PLAN_OPTION_EPILOGUE_SCALE") !=
        std::string::npos);
  REQUIRE_SPX(spxPlanSetEpilogue(h.get(), relu.get(), nullptr, nullptr));
}

TEST_CASE("fused epilogue: the combinations it cannot take are NOT_SUPPORTED", "[api][epilogue]") {
  UniqueHandle h = make_handle();
  auto analyze_status = [&](const Spmm& s, spxSpMMAlg_t alg, int32_t act, int32_t route) {
    spxPlanOptions_t o = nullptr;
    REQUIRE_SPX(spxCreatePlanOptions(&o));
    REQUIRE_SPX(spxPlanOptionsSet(o, SPX_PLAN_OPTION_EPILOGUE_ACTIVATION, &act, sizeof act));
    REQUIRE_SPX(spxPlanOptionsSet(o, SPX_PLAN_OPTION_DENSE_ROUTE, &route, sizeof route));
    spxPlan_t p = nullptr;
    const spxStatus_t st =
        spxSpMM_analyzeWithOptions(h.get(), s.dA.get(), s.dB.get(), s.dC.get(), s.compute, alg, o, &p);
    spxDestroyPlanOptions(o);
    spxPlanDestroy(p);
    return st;
  };
  // An integer C: the epilogue computes in fp32.
  Spmm si = make_spmm(9600, bcrs_spec(8), 32, 64, 8, SPX_R_8I, SPX_R_32I);
  CHECK_SPX_STATUS(analyze_status(si, SPX_SPMM_ALG_DEFAULT, SPX_ACTIVATION_RELU, SPX_DENSE_ROUTE_AUTO),
                   SPX_STATUS_NOT_SUPPORTED);
  CHECK(std::string(spxGetLastErrorMessage()).find("32I") != std::string::npos);
  // SPX_SPMM_ALG_DENSE keeps no sparse decision for the calls the dense route cannot take.
  Spmm sf = make_spmm(9601, csr_spec(), 64, 64, 64, SPX_R_16F, SPX_R_16F);
  CHECK_SPX_STATUS(
      analyze_status(sf, SPX_SPMM_ALG_DENSE, SPX_ACTIVATION_GELU_TANH, SPX_DENSE_ROUTE_AUTO),
      SPX_STATUS_NOT_SUPPORTED);
  CHECK(std::string(spxGetLastErrorMessage()).find("epilogue") != std::string::npos);
  // SDDMM plans take no epilogue.
  Sddmm sd = make_sddmm(9603, csr_spec(), 32, 16, 32, SPX_R_32F, SPX_R_32F);
  spxPlanOptions_t o = nullptr;
  REQUIRE_SPX(spxCreatePlanOptions(&o));
  const int32_t on = 1;
  REQUIRE_SPX(spxPlanOptionsSet(o, SPX_PLAN_OPTION_EPILOGUE_BIAS, &on, sizeof on));
  spxPlan_t p = nullptr;
  CHECK_SPX_STATUS(spxSDDMM_analyzeWithOptions(h.get(), sd.dA.get(), sd.dB.get(), sd.dC.get(),
                                               sd.compute, SPX_SPMM_ALG_DEFAULT, o, &p),
                   SPX_STATUS_NOT_SUPPORTED);
  CHECK(p == nullptr);
  spxDestroyPlanOptions(o);
  const UniquePlan sddmm = analyze(h.get(), sd);
  CHECK_SPX_INVALID(spxPlanSetEpilogue(h.get(), sddmm.get(), nullptr, nullptr));
}
