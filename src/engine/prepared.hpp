// An SpMM plan's per-n decisions: one analyze builds the sparse family's plan (and its one copy
// of A) at the analyzed n, then derives a decision for every prepared size (prepared_sizes.hpp)
// from it, each routed sparse or dense (route.hpp), and sums what the plan holds.
#pragma once

#include "families/family.hpp"
#include "runtime/objects.hpp"

namespace spx::engine {

/// Fills plan.prepared, plan.analyzed, plan.max_n, the sources and plan.info (the analyzed n's
/// decision with the plan's totals: bytes held, the workspace every n needs, max_n and
/// prepared_sizes).
void prepare_spmm(const dispatch::SpmmProblem& p, spxSpMMAlg_t alg, spxPlan& plan);

/// `e`'s info with the plan's totals (what spxPlanGetInfoForN reports).
spxPlanInfo_t info_of(const spxPlan& plan, const PreparedN& e);

}  // namespace spx::engine
