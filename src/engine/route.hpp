// The route decision, in one place: after the sparse family is chosen and built (registry), the
// plan estimates the sparse and the dense time of the same problem (families/dense/plan/roofline
// for cuBLAS, the family's predicted_speedup or the conservative rule of route_rule.hpp for the
// sparse side; measured with SPX_PLAN_OPTION_AUTOTUNE) and, per SPX_PLAN_OPTION_DENSE_ROUTE and
// the algorithm, runs the sparse family or the dense family (families/dense).
#pragma once

#include "families/family.hpp"
#include "runtime/objects.hpp"

namespace spx::engine {

/// Builds plan.spmm (and plan.sparse_spmm when the dense route runs next to a kept sparse plan),
/// fills plan.info (family fields, candidates, workspace, route, estimates, dense_bytes) and runs
/// SPX_PLAN_OPTION_AUTOTUNE. Throws NOT_SUPPORTED when a forced dense route cannot run.
void build_routed_spmm(const dispatch::SpmmProblem& p, spxSpMMAlg_t alg, spxPlan& plan);

}  // namespace spx::engine
