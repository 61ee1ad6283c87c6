#include "engine/route.hpp"

#include <cuda_runtime_api.h>

#include "engine/autotune.hpp"
#include "engine/registry.hpp"
#include "engine/route_rule.hpp"
#include "families/dense/family.hpp"
#include "families/dense/plan/peaks.hpp"
#include "runtime/log.hpp"

namespace spx::engine {
namespace {

int attribute(cudaDeviceAttr attr, int device) {
  int v = 0;
  if (cudaDeviceGetAttribute(&v, attr, device) != cudaSuccess) {
    cudaGetLastError();
    return 0;
  }
  return v;
}

/// SM count and clock, memory clock and bus width of the handle's device (0: unknown, the
/// model's defaults).
plan::DeviceRates device_rates(const spxContext& h) {
  plan::DeviceRates d;
  d.sm_count = h.sm_count;
  d.cc_major = h.cc_major;
  d.cc_minor = h.cc_minor;
  d.clock_ghz = attribute(cudaDevAttrClockRate, h.device) / 1e6;  // kHz
  const double mem_khz = attribute(cudaDevAttrMemoryClockRate, h.device);
  const double bus_bits = attribute(cudaDevAttrGlobalMemoryBusWidth, h.device);
  d.bandwidth_gbs = 2.0 * mem_khz * 1e3 * (bus_bits / 8.0) / 1e9;  // double data rate
  return d;
}

double density_of(const spxSpMatDescr& A) {
  const double cells = static_cast<double>(A.rows) * static_cast<double>(A.cols);
  return cells > 0 ? static_cast<double>(A.value_slots()) / cells : 0.0;
}

struct Estimates {
  double sparse_us = 0, dense_us = 0;
};

Estimates estimate(const dispatch::SpmmProblem& p, const spxPlanInfo_t& sparse_info) {
  const plan::DeviceRates rates = device_rates(p.h);
  const bool tf32 = p.options.allow_tf32 == 1;
  Estimates e;
  e.dense_us = plan::gemm_us(dispatch::dense_gemm_size(p, tf32), rates);
  const double reference = plan::gemm_us(dispatch::dense_gemm_size(p, false), rates);
  e.sparse_us = sparse_estimate_us(sparse_info.predicted_speedup, density_of(p.A), reference,
                                   plan::dense_peaks::kFixedUs);
  return e;
}

void record_kernel_plan(spxPlan& plan) {
  plan.info.candidates = plan.spmm->candidate_count();
  plan.info.workspace_bytes = plan.spmm->workspace_bytes();
}

/// The dense plan built next to the sparse one, and the info it runs under.
struct DensePlan {
  std::unique_ptr<dispatch::SpmmKernelPlan> kernel;
  spxPlanInfo_t info{};
};

/// Builds the dense family's plan; its info starts from the sparse plan's (nnz, analyze fields)
/// and counts the device bytes of both plans (the sparse one stays).
DensePlan build_dense(const dispatch::SpmmProblem& p, const spxPlan& plan) {
  DensePlan d;
  d.info = plan.info;
  d.kernel = dispatch::build_dense_spmm(p, d.info);
  if (plan.spmm) {
    d.info.metadata_bytes += plan.info.metadata_bytes;
    d.info.values_bytes += plan.info.values_bytes;
  }
  d.info.predicted_speedup = 1.0;  // it is dense cuBLAS
  d.info.candidates = d.kernel->candidate_count();
  d.info.workspace_bytes = d.kernel->workspace_bytes();
  d.info.searched = 0;
  return d;
}

/// Runs `d` from now on; the sparse family's plan (if any) is kept.
void commit_dense(DensePlan&& d, spxPlan& plan) {
  plan.sparse_spmm = std::move(plan.spmm);
  plan.spmm = std::move(d.kernel);
  plan.info = d.info;
}

/// SPX_PLAN_OPTION_AUTOTUNE under AUTO: times both routes on the analyze stream, keeps the faster.
void measure_routes(const dispatch::SpmmProblem& p, spxPlan& plan) {
  plan::autotune_spmm(p.h, plan, p.B, p.C);
  const double sparse_us = plan::time_spmm_us(p.h, *plan.spmm, p.B, p.C);
  DensePlan d = build_dense(p, plan);
  const double dense_us = plan::time_spmm_us(p.h, *d.kernel, p.B, p.C);
  RouteInputs in;
  in.dense_possible = true;
  in.sparse_us = sparse_us;
  in.dense_us = dense_us;
  in.measured = true;
  log::info("SPX_PLAN_OPTION_AUTOTUNE: sparse %s %.2f us, dense cuBLAS %.2f us", plan.info.kernel,
            sparse_us, dense_us);
  const bool dense = decide_route(in) == Route::Dense;
  if (dense) commit_dense(std::move(d), plan);
  plan.info.sparse_estimate_us = sparse_us;
  plan.info.dense_estimate_us = dense_us;
}

/// SPX_SPMM_ALG_DENSE: the dense family alone.
void build_forced_dense(const dispatch::SpmmProblem& p, spxPlan& plan) {
  SPX_CHECK_ARG(p.options.dense_route != SPX_DENSE_ROUTE_NEVER,
                "alg SPX_SPMM_ALG_DENSE contradicts SPX_PLAN_OPTION_DENSE_ROUTE = "
                "SPX_DENSE_ROUTE_NEVER");
  const dispatch::Refusal why = dispatch::dense_can_implement(p);
  SPX_EXPECTS(why.empty(), SPX_STATUS_NOT_SUPPORTED,
              "the dense route (SPX_SPMM_ALG_DENSE) cannot take this input: %s", why.c_str());
  DensePlan d = build_dense(p, plan);
  commit_dense(std::move(d), plan);
  plan.info.dense_estimate_us = plan::gemm_us(dispatch::dense_gemm_size(p, p.options.allow_tf32 == 1),
                                              device_rates(p.h));
}

}  // namespace

void build_routed_spmm(const dispatch::SpmmProblem& p, spxSpMMAlg_t alg, spxPlan& plan) {
  if (alg == SPX_SPMM_ALG_DENSE) return build_forced_dense(p, plan);
  plan.spmm = dispatch::build_spmm(p, alg, plan.info);
  record_kernel_plan(plan);

  const int32_t option = p.options.dense_route;
  // NEVER does not even load cuBLAS.
  const dispatch::Refusal why =
      option == SPX_DENSE_ROUTE_NEVER ? dispatch::Refusal("SPX_DENSE_ROUTE_NEVER")
                                      : dispatch::dense_can_implement(p);
  RouteInputs in;
  in.option = option;
  in.alg = alg;
  in.dense_possible = why.empty();
  in.empty = p.C.rows == 0 || p.C.cols == 0;
  if (in.dense_possible) {
    const Estimates e = estimate(p, plan.info);
    in.sparse_us = plan.info.sparse_estimate_us = e.sparse_us;
    in.dense_us = plan.info.dense_estimate_us = e.dense_us;
  }
  const bool auto_eligible = option == SPX_DENSE_ROUTE_AUTO && alg == SPX_SPMM_ALG_DEFAULT &&
                             in.dense_possible && !in.empty;
  if (p.options.autotune && auto_eligible) return measure_routes(p, plan);

  if (decide_route(in) == Route::Dense) {
    SPX_EXPECTS(why.empty(), SPX_STATUS_NOT_SUPPORTED,
                "SPX_PLAN_OPTION_DENSE_ROUTE is SPX_DENSE_ROUTE_ALWAYS but the dense route cannot "
                "take this input: %s",
                why.c_str());
    DensePlan d = build_dense(p, plan);
    commit_dense(std::move(d), plan);
    return;
  }
  if (p.options.autotune) plan::autotune_spmm(p.h, plan, p.B, p.C);
}

}  // namespace spx::engine
