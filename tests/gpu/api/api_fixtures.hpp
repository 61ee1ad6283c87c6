// Fixtures of the C API's GPU suites (tests/gpu/api/test_api_gpu_*.cpp): a small valid SpMM or
// SDDMM problem on the device, analyze / workspace shortcuts, and the check of an SpMM result
// against the CPU reference.
#pragma once

#include <catch2/catch.hpp>
#include <cstdint>
#include <initializer_list>
#include <string>

#include "runner.hpp"
#include "spx_catch.hpp"

namespace spx::test::api {

// ---------------------------------------------------------------- fixtures

// A small valid SpMM problem on the device. C's ld padding holds the guard and its buffer a
// guard zone after the end.
struct Spmm {
  HostSparse A;
  HostDense B, C;
  DeviceSparse dA;
  DeviceDense dB, dC;
  spxDataType_t compute = SPX_R_32F;
};

inline Spmm make_spmm(uint64_t seed, const FormatSpec& f, int64_t m, int64_t k, int64_t n,
                      spxDataType_t in, spxDataType_t out, spxOrder_t b_order = SPX_ORDER_ROW,
                      spxOrder_t c_order = SPX_ORDER_ROW) {
  Rng rng(seed);
  Spmm s;
  s.A = random_sparse(rng, f, m, k, operand_dist(in, k, out));
  s.B = random_dense(rng, k, n, b_order, operand_dist(in, k, out), 1);
  s.C = random_dense(rng, m, n, c_order, output_dist(out), 1);
  guard_padding(s.C);
  s.dA = to_device(s.A);
  s.dB = to_device(s.B);
  s.dC = to_device(s.C, 256);
  s.compute = compute_type_for(in);
  return s;
}

// A small valid SDDMM problem: A m x k, B k x n dense, C m x n sparse.
struct Sddmm {
  HostDense A, B;
  HostSparse C;
  DeviceDense dA, dB;
  DeviceSparse dC;
  spxDataType_t compute = SPX_R_32F;
};

inline Sddmm make_sddmm(uint64_t seed, const FormatSpec& f, int64_t m, int64_t k, int64_t n,
                        spxDataType_t in, spxDataType_t out) {
  Rng rng(seed);
  Sddmm s;
  s.A = random_dense(rng, m, k, SPX_ORDER_ROW, operand_dist(in, k, out));
  s.B = random_dense(rng, k, n, SPX_ORDER_COL, operand_dist(in, k, out));
  s.C = random_sparse(rng, f, m, n, output_dist(out));
  guard_ell_padding(s.C);
  s.dA = to_device(s.A);
  s.dB = to_device(s.B);
  s.dC = to_device(s.C, 256);
  s.compute = compute_type_for(in);
  return s;
}

// One small SpMM input per kernel family, forced to that family (the misuse and concurrency
// suites run every case against each).
struct FamilyCase {
  FormatSpec f;
  spxDataType_t in, out;
  spxSpMMAlg_t alg;
  const char* name;
};

inline const FamilyCase kFamilies[] = {
    {nm_spec(2, 4, 16), SPX_R_32F, SPX_R_32F, SPX_SPMM_ALG_NM, "NM"},
    {ell_spec(), SPX_R_16F, SPX_R_16F, SPX_SPMM_ALG_ELL, "ELL"},
    {bcrs_spec(8), SPX_R_8I, SPX_R_32I, SPX_SPMM_ALG_SRBCRS, "SR-BCRS"},
    {csr_spec(), SPX_R_16F, SPX_R_32F, SPX_SPMM_ALG_SPTC_REORDER, "SpTC"},
    {csr_spec(), SPX_R_32F, SPX_R_32F, SPX_SPMM_ALG_FALLBACK, "fallback"},
};

inline UniquePlan analyze(spxHandle_t h, const Spmm& s, spxSpMMAlg_t alg = SPX_SPMM_ALG_DEFAULT) {
  spxPlan_t p = nullptr;
  REQUIRE_SPX(spxSpMM_analyze(h, s.dA.get(), s.dB.get(), s.dC.get(), s.compute, alg, &p));
  REQUIRE(p != nullptr);
  return UniquePlan(p);
}

/// One int32 analyze option and its value.
struct OptionValue {
  spxPlanOption_t option;
  int32_t value;
};

/// An SpMM plan analyzed with `options` set (each one required to be accepted).
inline UniquePlan analyze_with(spxHandle_t h, const Spmm& s, spxSpMMAlg_t alg,
                               std::initializer_list<OptionValue> options) {
  spxPlanOptions_t o = nullptr;
  REQUIRE_SPX(spxCreatePlanOptions(&o));
  for (const OptionValue& v : options)
    REQUIRE_SPX(spxPlanOptionsSet(o, v.option, &v.value, sizeof v.value));
  spxPlan_t p = nullptr;
  const spxStatus_t st =
      spxSpMM_analyzeWithOptions(h, s.dA.get(), s.dB.get(), s.dC.get(), s.compute, alg, o, &p);
  spxDestroyPlanOptions(o);
  REQUIRE_SPX(st);
  return UniquePlan(p);
}

inline UniquePlan analyze(spxHandle_t h, const Sddmm& s, spxSpMMAlg_t alg = SPX_SPMM_ALG_DEFAULT) {
  spxPlan_t p = nullptr;
  REQUIRE_SPX(spxSDDMM_analyze(h, s.dA.get(), s.dB.get(), s.dC.get(), s.compute, alg, &p));
  REQUIRE(p != nullptr);
  return UniquePlan(p);
}

inline size_t workspace_bytes(spxPlan_t plan) {
  size_t bytes = 0;
  REQUIRE_SPX(spxPlanGetWorkspaceSize(plan, &bytes));
  return bytes;
}

// Checks a downloaded C against the reference of (A, B, c_old, scalars).
inline void check_spmm_result(const HostSparse& A, const HostDense& B, const HostDense& c_old,
                              const ref::Scalars& s, const HostDense& got,
                              const std::string& what) {
  const CheckResult r = check_dense_output(got, c_old, ref::spmm(A, B, c_old, s));
  INFO(what << "\n" << r.report);
  CHECK(r.ok);
}

// Runs `plan` on the fixture's current data with host scalars and checks the result.
inline void run_and_check(spxHandle_t h, spxPlan_t plan, Spmm& s, const ref::Scalars& sc,
                          const HostSparse& a_values, const std::string& what) {
  const HostDense c_old = download(s.dC, s.C);
  const ScalarBytes alpha = make_scalar(sc.alpha, s.C.type), beta = make_scalar(sc.beta, s.C.type);
  DeviceBuffer ws(workspace_bytes(plan));
  REQUIRE_SPX(
      spxSpMM(h, plan, alpha.get(), s.dA.get(), s.dB.get(), beta.get(), s.dC.get(), ws.get()));
  device_sync();
  check_spmm_result(a_values, s.B, c_old, sc, download(s.dC, s.C), what);
  CHECK(s.dC.buf.tail_intact());
}

}  // namespace spx::test::api
