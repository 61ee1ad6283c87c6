// The C API on a real device, search and autotune: spxSpMM_search over a plan's candidates, and
// analyze with SPX_PLAN_OPTION_AUTOTUNE (both pointer modes, NULL options, SDDMM options).
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "api_fixtures.hpp"
#include "runner.hpp"
#include "spx_catch.hpp"

using namespace spx::test;
using namespace spx::test::api;
namespace ref = spx::ref;

// spxSpMM_search times the family's configurations and keeps the fastest. The C it leaves is
// the product with the caller's alpha, beta and old C (C is saved and restored around the timed
// runs); the plan keeps its family, workspace and correctness, and says whether it was searched.
TEST_CASE("spxSpMM_search", "[api]") {
  UniqueHandle h = make_handle();
  const FormatSpec formats[] = {csr_spec(), bcrs_spec(4), nm_spec(2, 4, 2), ell_spec()};
  const spxDataType_t types[][2] = {{SPX_R_32F, SPX_R_32F}, {SPX_R_16F, SPX_R_32F},
                                    {SPX_R_8I, SPX_R_32I}};
  uint64_t seed = 560;
  for (const FormatSpec& f : formats)
    for (const auto& t : types) {
      const std::string what = "search " + f.name() + " " + type_name(t[0]) + " -> " + type_name(t[1]);
      Spmm p = make_spmm(seed++, f, 96, 128, 64, t[0], t[1], SPX_ORDER_COL, SPX_ORDER_ROW);
      UniquePlan plan = analyze(h.get(), p);
      spxPlanInfo_t before{};
      REQUIRE_SPX(spxPlanGetInfo(plan.get(), &before));
      DeviceBuffer ws(workspace_bytes(plan.get()));
      const ref::Scalars sc = {2, -1};  // beta != 0: the timed runs must not accumulate into C
      const ScalarBytes alpha = make_scalar(sc.alpha, t[1]), beta = make_scalar(sc.beta, t[1]);
      REQUIRE_SPX(spxSpMM_search(h.get(), plan.get(), alpha.get(), p.dA.get(), p.dB.get(),
                                 beta.get(), p.dC.get(), ws.get()));
      device_sync();
      const HostDense after = download(p.dC, p.C);
      check_spmm_result(p.A, p.B, p.C, sc, after, what + ": C after search");
      CHECK(p.dC.buf.tail_intact());

      spxPlanInfo_t info{};
      REQUIRE_SPX(spxPlanGetInfo(plan.get(), &info));
      INFO(what << ", " << before.candidates << " candidates");
      CHECK(info.family == before.family);
      CHECK(info.candidates == before.candidates);
      CHECK(info.searched == (before.candidates > 1 ? 1 : 0));
      CHECK(info.workspace_bytes == before.workspace_bytes);
      CHECK(strnlen(info.kernel, sizeof info.kernel) > 0);
      run_and_check(h.get(), plan.get(), p,
                    t[1] == SPX_R_32I ? ref::Scalars{-1, 1} : ref::Scalars{0.5, -2}, p.A,
                    what + ": spxSpMM after search");
    }
}

// SPX_PLAN_OPTION_AUTOTUNE: analyze times the candidates itself (plan info says searched when
// there was a choice), never reads or writes the caller's C (poisoned here), works whatever the
// handle's pointer mode, and the tuned plan computes the right product.
TEST_CASE("analyze with SPX_PLAN_OPTION_AUTOTUNE", "[api]") {
  UniqueHandle h = make_handle();
  spxPlanOptions_t raw = nullptr;
  REQUIRE_SPX(spxCreatePlanOptions(&raw));
  std::unique_ptr<spxPlanOptions, decltype(&spxDestroyPlanOptions)> opts(raw, spxDestroyPlanOptions);
  const int32_t on = 1;
  REQUIRE_SPX(spxPlanOptionsSet(opts.get(), SPX_PLAN_OPTION_AUTOTUNE, &on, sizeof on));
  const FormatSpec formats[] = {csr_spec(), bcrs_spec(8), nm_spec(2, 4, 32), ell_spec()};
  const spxDataType_t types[][2] = {{SPX_R_32F, SPX_R_32F}, {SPX_R_16F, SPX_R_32F},
                                    {SPX_R_8I, SPX_R_32I}};
  uint64_t seed = 575;
  for (const spxPointerMode_t mode : {SPX_POINTER_MODE_HOST, SPX_POINTER_MODE_DEVICE})
    for (const FormatSpec& f : formats)
      for (const auto& t : types) {
        const std::string what = "autotune " + f.name() + " " + type_name(t[0]) + " -> " +
                                 type_name(t[1]) + (mode == SPX_POINTER_MODE_DEVICE ? " (device scalars)" : "");
        INFO(what);
        REQUIRE_SPX(spxSetPointerMode(h.get(), mode));
        Spmm p = make_spmm(seed++, f, 96, 128, 64, t[0], t[1], SPX_ORDER_COL, SPX_ORDER_ROW);
        const std::vector<uint8_t> poison(p.dC.buf.size(), 0xFF);  // NaN / -1 in every element
        p.dC.buf.upload(poison);  // analyze must neither read nor write C
        spxPlan_t raw_plan = nullptr;
        REQUIRE_SPX(spxSpMM_analyzeWithOptions(h.get(), p.dA.get(), p.dB.get(), p.dC.get(), p.compute,
                                               SPX_SPMM_ALG_DEFAULT, opts.get(), &raw_plan));
        UniquePlan plan(raw_plan);
        device_sync();
        CHECK(p.dC.buf.download() == poison);
        spxPlanInfo_t info{};
        REQUIRE_SPX(spxPlanGetInfo(plan.get(), &info));
        INFO(info.candidates << " candidates, config " << info.config);
        CHECK(info.searched == (info.candidates > 1 ? 1 : 0));
        REQUIRE_SPX(spxSetPointerMode(h.get(), SPX_POINTER_MODE_HOST));
        p.dC.buf.upload(p.C.data);
        run_and_check(h.get(), plan.get(), p,
                      t[1] == SPX_R_32I ? ref::Scalars{-1, 1} : ref::Scalars{0.5, -2}, p.A, what);
      }
  // NULL options are the defaults: the same plan as spxSpMM_analyze, not searched.
  Spmm p = make_spmm(590, ell_spec(), 64, 96, 32, SPX_R_32F, SPX_R_32F);
  spxPlan_t raw_plan = nullptr;
  REQUIRE_SPX(spxSpMM_analyzeWithOptions(h.get(), p.dA.get(), p.dB.get(), p.dC.get(), p.compute,
                                         SPX_SPMM_ALG_DEFAULT, nullptr, &raw_plan));
  UniquePlan plan(raw_plan);
  spxPlanInfo_t info{};
  REQUIRE_SPX(spxPlanGetInfo(plan.get(), &info));
  CHECK(info.searched == 0);
  run_and_check(h.get(), plan.get(), p, ref::Scalars{0.5, -2}, p.A, "NULL options");
  // SDDMM takes options too (one configuration: autotune changes nothing).
  Sddmm q = make_sddmm(591, csr_spec(), 32, 48, 40, SPX_R_32F, SPX_R_32F);
  REQUIRE_SPX(spxSDDMM_analyzeWithOptions(h.get(), q.dA.get(), q.dB.get(), q.dC.get(), q.compute,
                                          SPX_SPMM_ALG_DEFAULT, opts.get(), &raw_plan));
  UniquePlan sddmm_plan(raw_plan);
  REQUIRE_SPX(spxPlanGetInfo(sddmm_plan.get(), &info));
  CHECK(info.searched == 0);
  // Bad arguments: the same checks as spxSpMM_analyze, in the same order.
  CHECK_SPX_INVALID(spxSpMM_analyzeWithOptions(nullptr, p.dA.get(), p.dB.get(), p.dC.get(),
                                               p.compute, SPX_SPMM_ALG_DEFAULT, opts.get(), &raw_plan));
  CHECK_SPX_INVALID(spxSpMM_analyzeWithOptions(h.get(), nullptr, p.dB.get(), p.dC.get(), p.compute,
                                               SPX_SPMM_ALG_DEFAULT, opts.get(), &raw_plan));
  CHECK_SPX_INVALID(spxSpMM_analyzeWithOptions(h.get(), p.dA.get(), p.dB.get(), p.dC.get(),
                                               p.compute, SPX_SPMM_ALG_DEFAULT, opts.get(), nullptr));
  CHECK_SPX_INVALID(spxSDDMM_analyzeWithOptions(h.get(), q.dA.get(), nullptr, q.dC.get(), q.compute,
                                                SPX_SPMM_ALG_DEFAULT, opts.get(), &raw_plan));
  CHECK(raw_plan == nullptr);
}
