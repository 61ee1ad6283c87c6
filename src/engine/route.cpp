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

/// The sparse side: the family's own model in us where it has one for this device
/// (SpmmKernelPlan::estimate_us), else the dense reference scaled by its predicted_speedup.
Estimates estimate(const dispatch::SpmmProblem& p, const dispatch::SpmmKernelPlan& sparse,
                   double predicted_speedup) {
  const plan::DeviceRates rates = device_rates(p.h);
  const bool tf32 = p.options.allow_tf32 == 1;
  Estimates e;
  e.dense_us = plan::gemm_us(dispatch::dense_gemm_size(p, tf32), rates);
  const double reference = plan::gemm_us(dispatch::dense_gemm_size(p, false), rates);
  const double own = sparse.estimate_us();
  e.sparse_us = own > 0 ? own
                        : sparse_estimate_us(predicted_speedup, density_of(p.A), reference,
                                             plan::dense_peaks::kFixedUs);
  return e;
}

void record_kernel_plan(PreparedN& e) {
  e.info.candidates = e.spmm->candidate_count();
  e.info.workspace_bytes = e.spmm->workspace_bytes();
}

/// The dense route's kernel plan for p: the first one built owns the dense copy of A (the plan's
/// dense source); later ones share it. `info` gets the dense family's fields.
std::shared_ptr<dispatch::SpmmKernelPlan> dense_plan(const dispatch::SpmmProblem& p,
                                                     PlanSources& s, spxPlanInfo_t& info) {
  if (s.dense) return s.dense->for_columns(p, info);
  s.dense = dispatch::build_dense_spmm(p, info);
  return s.dense;
}

/// Makes `e` run the dense route for p; its estimates stay as the caller set them. A plan with a
/// fused epilogue keeps the sparse decision beside it (PreparedN::sparse_for_epilogue).
void take_dense(const dispatch::SpmmProblem& p, PlanSources& s, PreparedN& e) {
  if (p.options.any_epilogue()) e.sparse_for_epilogue = e.spmm;
  spxPlanInfo_t info = e.info;
  e.spmm = dense_plan(p, s, info);
  info.predicted_speedup = 1.0;  // it is dense cuBLAS
  info.searched = 0;
  e.info = info;
  record_kernel_plan(e);
}

/// SPX_PLAN_OPTION_AUTOTUNE under AUTO: times both routes on the analyze stream, keeps the faster.
void measure_routes(const dispatch::SpmmProblem& p, PlanSources& s, PreparedN& e) {
  plan::autotune_spmm(p.h, e, p.B, p.C);
  const double sparse_us = plan::time_spmm_us(p.h, *e.spmm, p.B, p.C);
  spxPlanInfo_t dense_info = e.info;
  const std::shared_ptr<dispatch::SpmmKernelPlan> dense = dense_plan(p, s, dense_info);
  const double dense_us = plan::time_spmm_us(p.h, *dense, p.B, p.C);
  RouteInputs in;
  in.dense_possible = true;
  in.sparse_us = sparse_us;
  in.dense_us = dense_us;
  in.measured = true;
  log::info("SPX_PLAN_OPTION_AUTOTUNE: sparse %s %.2f us, dense cuBLAS %.2f us", e.info.kernel,
            sparse_us, dense_us);
  e.info.sparse_estimate_us = sparse_us;
  e.info.dense_estimate_us = dense_us;
  if (decide_route(in) == Route::Dense) take_dense(p, s, e);
}

/// SPX_SPMM_ALG_DENSE: the dense family alone.
void build_forced_dense(const dispatch::SpmmProblem& p, PlanSources& s, PreparedN& e) {
  SPX_CHECK_ARG(p.options.dense_route != SPX_DENSE_ROUTE_NEVER,
                "alg SPX_SPMM_ALG_DENSE contradicts SPX_PLAN_OPTION_DENSE_ROUTE = "
                "SPX_DENSE_ROUTE_NEVER");
  SPX_EXPECTS(!p.options.any_epilogue(), SPX_STATUS_NOT_SUPPORTED,
              "SPX_SPMM_ALG_DENSE with a fused epilogue (SPX_PLAN_OPTION_EPILOGUE_*): the dense "
              "route runs it only for beta = 0 on the host, and this plan would have no sparse "
              "family's decision for the other calls (use SPX_DENSE_ROUTE_ALWAYS)");
  const dispatch::Refusal why = dispatch::dense_can_implement(p);
  SPX_EXPECTS(why.empty(), SPX_STATUS_NOT_SUPPORTED,
              "the dense route (SPX_SPMM_ALG_DENSE) cannot take this input: %s", why.c_str());
  take_dense(p, s, e);
  e.info.dense_estimate_us =
      plan::gemm_us(dispatch::dense_gemm_size(p, p.options.allow_tf32 == 1), device_rates(p.h));
}

}  // namespace

void route_spmm(const dispatch::SpmmProblem& p, spxSpMMAlg_t alg, PlanSources& s, PreparedN& e,
                bool analyzed_n) {
  if (alg == SPX_SPMM_ALG_DENSE) return build_forced_dense(p, s, e);
  if (s.sparse) {
    e.spmm = s.sparse->for_columns(p, e.info);
  } else {
    s.sparse = dispatch::build_spmm(p, alg, e.info);
    e.spmm = s.sparse;
  }
  record_kernel_plan(e);

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
    const Estimates est = estimate(p, *e.spmm, e.info.predicted_speedup);
    in.sparse_us = e.info.sparse_estimate_us = est.sparse_us;
    in.dense_us = e.info.dense_estimate_us = est.dense_us;
  }
  // Timing needs the caller's B, which has the analyzed n only.
  const bool tune = p.options.autotune && analyzed_n;
  const bool automatic = option == SPX_DENSE_ROUTE_AUTO || option == SPX_DENSE_ROUTE_AUTO_EVERY_N;
  const bool auto_eligible = automatic && alg == SPX_SPMM_ALG_DEFAULT &&
                             in.dense_possible && !in.empty;
  if (tune && auto_eligible) return measure_routes(p, s, e);

  if (decide_route(in) == Route::Dense) {
    // One copy of A per plan whatever n runs: another n takes the dense route only where the
    // analyzed n made the dense copy; elsewhere it stays sparse (analyze at the n where dense
    // wins, or with SPX_DENSE_ROUTE_AUTO_EVERY_N or ALWAYS, to have it).
    if (!analyzed_n && !s.dense && option == SPX_DENSE_ROUTE_AUTO) {
      log::trace("n = %lld: dense cuBLAS estimated faster (%.1f against %.1f us); kept sparse, "
                 "no second copy of A",
                 static_cast<long long>(p.C.cols), in.dense_us, in.sparse_us);
      return;
    }
    SPX_EXPECTS(why.empty(), SPX_STATUS_NOT_SUPPORTED,
                "SPX_PLAN_OPTION_DENSE_ROUTE is SPX_DENSE_ROUTE_ALWAYS but the dense route cannot "
                "take this input: %s",
                why.c_str());
    return take_dense(p, s, e);
  }
  if (tune) plan::autotune_spmm(p.h, e, p.B, p.C);
}

}  // namespace spx::engine
