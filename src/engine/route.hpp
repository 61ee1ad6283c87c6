// The route decision, in one place: for one n, after the sparse family is chosen and built
// (registry) or derived for that n from the plan's sparse source, the plan estimates the sparse
// and the dense time of the same problem (families/dense/plan/roofline for cuBLAS; for the sparse
// side the family's own estimate in us where it has one (ELL on sm_90), else its
// predicted_speedup or the conservative rule of route_rule.hpp; measured
// with SPX_PLAN_OPTION_AUTOTUNE at the analyzed n) and, per SPX_PLAN_OPTION_DENSE_ROUTE and the
// algorithm, runs the sparse family or the dense family (families/dense).
#pragma once

#include <memory>

#include "families/family.hpp"
#include "runtime/objects.hpp"

namespace spx::engine {

/// The kernel plans every prepared n derives from (for_columns): they own the copies of A.
struct PlanSources {
  std::shared_ptr<dispatch::SpmmKernelPlan> sparse, dense;
};

/// Sets e.spmm for problem p (its n columns) and fills e.info (family fields, candidates,
/// workspace, route, estimates); the first call (no sources yet) builds the sources, later ones
/// derive from them. `analyzed_n`: p holds the caller's B and C (SPX_PLAN_OPTION_AUTOTUNE may
/// time them). Throws NOT_SUPPORTED when a forced dense route cannot run.
void route_spmm(const dispatch::SpmmProblem& p, spxSpMMAlg_t alg, PlanSources& s, PreparedN& e,
                bool analyzed_n);

}  // namespace spx::engine
