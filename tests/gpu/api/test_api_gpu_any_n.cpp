// The C API on a real device, plans for any n: one analyze (SPX_PLAN_OPTION_MAX_N) serves every
// number of columns through spxSpMM_execute and spxSpMM, in every family, both operand orders,
// odd and tail n, n above the largest prepared size (column slices); the plan holds one copy of A
// whatever n runs; each family's execute captured into a CUDA graph and replayed with new B
// values; spxSpMM_execute's bad arguments.
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "api_fixtures.hpp"
#include "runner.hpp"
#include "spx_catch.hpp"

using namespace spx::test;
using namespace spx::test::api;
namespace ref = spx::ref;

namespace {

constexpr int64_t kM = 96, kK = 128;

/// The families, plus the dense route and DEFAULT's choice on the same CSR input.
struct AnyNCase {
  FamilyCase f;
  bool dense = false;  ///< cuBLAS rounds a 16-bit output twice with beta != 0
};

std::vector<AnyNCase> cases() {
  std::vector<AnyNCase> out;
  for (const FamilyCase& f : kFamilies) out.push_back({f, false});
  out.push_back({{csr_spec(), SPX_R_16F, SPX_R_16F, SPX_SPMM_ALG_DENSE, "dense"}, true});
  out.push_back({{csr_spec(), SPX_R_16BF, SPX_R_16BF, SPX_SPMM_ALG_DEFAULT, "DEFAULT bf16"}, true});
  return out;
}

UniquePlan analyze_any_n(spxHandle_t h, const Spmm& s, spxSpMMAlg_t alg, int32_t max_n,
                         int32_t dense_route = SPX_DENSE_ROUTE_AUTO) {
  return analyze_with(h, s, alg,
                      {{SPX_PLAN_OPTION_MAX_N, max_n}, {SPX_PLAN_OPTION_DENSE_ROUTE, dense_route}});
}

/// B (k x n) and C (m x n) for one execute, on the device (C with a guard zone).
struct Operands {
  HostDense B, C;
  DeviceDense dB, dC;
};

Operands operands(Rng& rng, const FamilyCase& f, int64_t n, spxOrder_t order) {
  Operands o;
  o.B = random_dense(rng, kK, n, order, operand_dist(f.in, kK, f.out), 1);
  o.C = random_dense(rng, kM, n, order, output_dist(f.out), 1);
  guard_padding(o.C);
  o.dB = to_device(o.B);
  o.dC = to_device(o.C, 256);
  return o;
}

void check(const AnyNCase& c, const HostSparse& A, const Operands& o, const HostDense& c_old,
           const ref::Scalars& sc, const std::string& what) {
  const bool twice = c.dense && sc.beta != 0.0 && c.f.out != SPX_R_32F;
  const CheckResult r =
      check_dense_output(download(o.dC, o.C), c_old, ref::spmm(A, o.B, c_old, sc), twice);
  INFO(what << "\n" << r.report);
  CHECK(r.ok);
  CHECK(o.dC.buf.tail_intact());
}

}  // namespace

TEST_CASE("one plan runs every n through spxSpMM_execute and spxSpMM", "[api][any_n]") {
  UniqueHandle h = make_handle();
  uint64_t seed = 7100;
  for (const AnyNCase& c : cases()) {
    for (const spxOrder_t order : {SPX_ORDER_ROW, SPX_ORDER_COL}) {
      const std::string name = std::string(c.f.name) + (order == SPX_ORDER_ROW ? " row" : " col");
      INFO(name);
      Spmm s = make_spmm(seed++, c.f.f, kM, kK, 16, c.f.in, c.f.out, order, order);
      const UniquePlan plan = analyze_any_n(h.get(), s, c.f.alg, -1);
      spxPlanInfo_t info{};
      REQUIRE_SPX(spxPlanGetInfo(plan.get(), &info));
      CHECK(info.max_n == -1);
      CHECK(info.prepared_sizes > 1);
      const size_t held = info.metadata_bytes + info.values_bytes;
      DeviceBuffer ws(workspace_bytes(plan.get()));
      const ref::Scalars sc = c.f.out == SPX_R_32I ? ref::Scalars{2, -1} : ref::Scalars{1.5, -0.5};
      const ScalarBytes alpha = make_scalar(sc.alpha, c.f.out), beta = make_scalar(sc.beta, c.f.out);
      Rng rng(seed++);
      // Odd, tail and power-of-two n, n between prepared sizes, n above the largest prepared
      // size (4096: two slices and a tail).
      for (const int64_t n : {1, 2, 3, 7, 16, 17, 40, 64, 100, 4096 + 37}) {
        Operands o = operands(rng, c.f, n, order);
        const HostDense c_old = o.C;
        REQUIRE_SPX(spxSpMM_execute(h.get(), plan.get(), n, alpha.get(), o.dB.buf.get(), o.B.ld,
                                    beta.get(), o.dC.buf.get(), o.C.ld, ws.get()));
        device_sync();
        check(c, s.A, o, c_old, sc, name + ", spxSpMM_execute n = " + std::to_string(n));
        spxPlanInfo_t at{};
        REQUIRE_SPX(spxPlanGetInfoForN(plan.get(), n, &at));
        CHECK(at.prepared_sizes == info.prepared_sizes);
        CHECK(std::string(at.kernel).size() > 0);
      }
      // The descriptor path takes any n too.
      for (const int64_t n : {5, 33}) {
        Operands o = operands(rng, c.f, n, order);
        const HostDense c_old = o.C;
        REQUIRE_SPX(spxSpMM(h.get(), plan.get(), alpha.get(), s.dA.get(), o.dB.get(), beta.get(),
                            o.dC.get(), ws.get()));
        device_sync();
        check(c, s.A, o, c_old, sc, name + ", spxSpMM n = " + std::to_string(n));
      }
      // Nothing was allocated per n: the plan holds what analyze made.
      REQUIRE_SPX(spxPlanGetInfo(plan.get(), &info));
      CHECK(info.metadata_bytes + info.values_bytes == held);
    }
  }
}

// B and C of no columns at analyze, with a bound: the analyzed entry is n = 0 (where the family
// is chosen), then 1, 2, 4, 8, 16; every n up to the bound runs its own decision.
TEST_CASE("a plan analyzed with no columns and a bound runs every n", "[api][any_n]") {
  UniqueHandle h = make_handle();
  uint64_t seed = 7400;
  for (const AnyNCase& c : cases()) {
    INFO(c.f.name);
    Spmm s = make_spmm(seed++, c.f.f, kM, kK, 0, c.f.in, c.f.out, SPX_ORDER_COL, SPX_ORDER_COL);
    const UniquePlan plan = analyze_any_n(h.get(), s, c.f.alg, 16);
    spxPlanInfo_t info{};
    REQUIRE_SPX(spxPlanGetInfo(plan.get(), &info));
    CHECK(info.max_n == 16);
    CHECK(info.prepared_sizes == 6);
    DeviceBuffer ws(workspace_bytes(plan.get()));
    const ref::Scalars sc = c.f.out == SPX_R_32I ? ref::Scalars{2, -1} : ref::Scalars{1.5, -0.5};
    const ScalarBytes alpha = make_scalar(sc.alpha, c.f.out), beta = make_scalar(sc.beta, c.f.out);
    Rng rng(seed++);
    for (const int64_t n : {1, 7, 16}) {
      Operands o = operands(rng, c.f, n, SPX_ORDER_COL);
      const HostDense c_old = o.C;
      REQUIRE_SPX(spxSpMM_execute(h.get(), plan.get(), n, alpha.get(), o.dB.buf.get(), o.B.ld,
                                  beta.get(), o.dC.buf.get(), o.C.ld, ws.get()));
      device_sync();
      check(c, s.A, o, c_old, sc, "analyzed n = 0, spxSpMM_execute n = " + std::to_string(n));
    }
  }
}

// A plan for any n holds exactly what a plan for one n holds (AUTO never makes a dense copy of A
// for an n other than the analyzed one; NEVER: none at all).
TEST_CASE("prepared sizes share one copy of A", "[api][any_n]") {
  UniqueHandle h = make_handle();
  for (const FamilyCase& f : kFamilies) {
    INFO(f.name);
    Spmm s = make_spmm(7200, f.f, kM, kK, 16, f.in, f.out, SPX_ORDER_COL, SPX_ORDER_COL);
    spxPlanInfo_t one{}, any{}, auto_any{};
    const UniquePlan p1 = analyze_any_n(h.get(), s, f.alg, 0, SPX_DENSE_ROUTE_NEVER);
    const UniquePlan pn = analyze_any_n(h.get(), s, f.alg, -1, SPX_DENSE_ROUTE_NEVER);
    const UniquePlan pa = analyze_any_n(h.get(), s, SPX_SPMM_ALG_DEFAULT, -1);
    REQUIRE_SPX(spxPlanGetInfo(pa.get(), &auto_any));
    if (auto_any.route == 0) CHECK(auto_any.dense_bytes == 0);
    REQUIRE_SPX(spxPlanGetInfo(p1.get(), &one));
    REQUIRE_SPX(spxPlanGetInfo(pn.get(), &any));
    CHECK(one.max_n == 16);
    CHECK(one.prepared_sizes == 5);  // 1, 2, 4, 8, 16
    CHECK(any.prepared_sizes == 13);  // 1 ... 4096
    CHECK(any.metadata_bytes == one.metadata_bytes);
    CHECK(any.values_bytes == one.values_bytes);
    CHECK(any.family == one.family);
    CHECK(any.dense_bytes == 0);
  }
}

TEST_CASE("spxSpMM_execute refuses bad arguments", "[api][any_n]") {
  UniqueHandle h = make_handle();
  Spmm s = make_spmm(7300, ell_spec(), kM, kK, 16, SPX_R_16F, SPX_R_16F, SPX_ORDER_COL,
                     SPX_ORDER_COL);
  const UniquePlan plan = analyze_any_n(h.get(), s, SPX_SPMM_ALG_DEFAULT, 0);  // bound 16
  DeviceBuffer ws(workspace_bytes(plan.get()));
  const float one = 1.0f, zero = 0.0f;
  void* B = s.dB.buf.get();
  void* C = s.dC.buf.get();
  const int64_t ldb = s.B.ld, ldc = s.C.ld;
  spxPlan_t p = plan.get();
  CHECK_SPX_INVALID(spxSpMM_execute(h.get(), p, 17, &one, B, ldb, &zero, C, ldc, ws.get()));
  CHECK_SPX_INVALID(spxSpMM_execute(h.get(), p, -1, &one, B, ldb, &zero, C, ldc, ws.get()));
  CHECK_SPX_INVALID(spxSpMM_execute(h.get(), p, 8, &one, B, kK - 1, &zero, C, ldc, ws.get()));
  CHECK_SPX_INVALID(spxSpMM_execute(h.get(), p, 8, &one, B, ldb, &zero, C, kM - 1, ws.get()));
  CHECK_SPX_INVALID(spxSpMM_execute(h.get(), p, 8, &one, nullptr, ldb, &zero, C, ldc, ws.get()));
  // A leading dimension whose last column's byte offset overflows int64 (a fault if accepted).
  const int64_t huge_ld = int64_t{1} << 61;
  CHECK_SPX_INVALID(spxSpMM_execute(h.get(), p, 8, &one, B, huge_ld, &zero, C, ldc, ws.get()));
  CHECK_SPX_INVALID(spxSpMM_execute(h.get(), p, 8, &one, B, ldb, &zero, C, huge_ld, ws.get()));
  CHECK_SPX_INVALID(spxSpMM_execute(h.get(), p, 8, &one, static_cast<char*>(B) + 1, ldb, &zero,
                                    C, ldc, ws.get()));
  std::vector<uint16_t> host_b(static_cast<size_t>(kK * 16));
  CHECK_SPX_INVALID(
      spxSpMM_execute(h.get(), p, 8, &one, host_b.data(), ldb, &zero, C, ldc, ws.get()));
  CHECK_SPX_INVALID(spxSpMM_execute(h.get(), p, 8, nullptr, B, ldb, &zero, C, ldc, ws.get()));
  CHECK_SPX_STATUS(spxSpMM_execute(nullptr, p, 8, &one, B, ldb, &zero, C, ldc, ws.get()),
                   SPX_STATUS_INVALID_VALUE);
  CHECK_SPX_INVALID(spxSpMM_execute(h.get(), nullptr, 8, &one, B, ldb, &zero, C, ldc, ws.get()));
  spxPlanInfo_t info{};
  CHECK_SPX_INVALID(spxPlanGetInfoForN(p, 0, &info));
  CHECK_SPX_INVALID(spxPlanGetInfoForN(p, 17, &info));
  // n = 0 is an empty product: nothing to do, nothing read.
  CHECK_SPX_STATUS(spxSpMM_execute(h.get(), p, 0, &one, B, ldb, &zero, C, ldc, ws.get()),
                   SPX_STATUS_SUCCESS);

  // A bound below the analyzed n, and an SDDMM plan, are refused.
  spxPlanOptions_t o = nullptr;
  REQUIRE_SPX(spxCreatePlanOptions(&o));
  const int32_t low = 8;
  REQUIRE_SPX(spxPlanOptionsSet(o, SPX_PLAN_OPTION_MAX_N, &low, sizeof low));
  spxPlan_t bad = nullptr;
  CHECK_SPX_INVALID(spxSpMM_analyzeWithOptions(h.get(), s.dA.get(), s.dB.get(), s.dC.get(),
                                               s.compute, SPX_SPMM_ALG_DEFAULT, o, &bad));
  CHECK(bad == nullptr);
  const int32_t bad_value = -2;
  CHECK_SPX_INVALID(spxPlanOptionsSet(o, SPX_PLAN_OPTION_MAX_N, &bad_value, sizeof bad_value));
  spxDestroyPlanOptions(o);
  Sddmm d = make_sddmm(7301, csr_spec(), 32, 64, 48, SPX_R_32F, SPX_R_32F);
  const UniquePlan sddmm = analyze(h.get(), d);
  CHECK_SPX_INVALID(spxSpMM_execute(h.get(), sddmm.get(), 8, &one, B, ldb, &zero, C, ldc, nullptr));
}

TEST_CASE("every family's execute replays from a CUDA graph with new B values",
          "[api][any_n][graph]") {
  Stream stream;
  UniqueHandle h = make_handle();
  REQUIRE_SPX(spxSetStream(h.get(), stream.spx()));
  uint64_t seed = 7400;
  for (const AnyNCase& c : cases()) {
    INFO(c.f.name);
    const ref::Scalars sc = c.f.out == SPX_R_32I ? ref::Scalars{2, 1} : ref::Scalars{2.0, 0.5};
    Spmm s = make_spmm(seed++, c.f.f, kM, kK, 32, c.f.in, c.f.out, SPX_ORDER_COL, SPX_ORDER_COL);
    const UniquePlan plan = analyze_any_n(h.get(), s, c.f.alg, -1);
    DeviceBuffer ws(workspace_bytes(plan.get()));
    const ScalarBytes alpha = make_scalar(sc.alpha, c.f.out), beta = make_scalar(sc.beta, c.f.out);
    Rng rng(seed++);
    const int64_t n = 24;
    Operands o = operands(rng, c.f, n, SPX_ORDER_COL);
    const HostDense c_start = o.C;

    cudaGraph_t graph = nullptr;
    REQUIRE(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeGlobal) == cudaSuccess);
    const spxStatus_t st =
        spxSpMM_execute(h.get(), plan.get(), n, alpha.get(), o.dB.buf.get(), o.B.ld, beta.get(),
                        o.dC.buf.get(), o.C.ld, ws.get());
    REQUIRE(cudaStreamEndCapture(stream.get(), &graph) == cudaSuccess);
    REQUIRE_SPX(st);
    cudaGraphExec_t exec = nullptr;
    REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
    for (int replay = 0; replay < 3; ++replay) {
      INFO("replay " << replay);
      // New B values in the captured buffer; C back to its start.
      o.B = random_dense(rng, kK, n, SPX_ORDER_COL, operand_dist(c.f.in, kK, c.f.out), 1);
      o.dB.buf.upload(o.B.data.data(), o.B.data.size());
      o.dC.buf.upload(c_start.data.data(), c_start.data.size());
      REQUIRE(cudaGraphLaunch(exec, stream.get()) == cudaSuccess);
      stream.sync();
      check(c, s.A, o, c_start, sc, std::string(c.f.name) + " graph replay");
    }
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
  }
}
