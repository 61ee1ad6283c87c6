// An SpMM plan's per-n decisions: one analyze builds the sparse family's plan (and its one copy
// of A) at the analyzed n, then derives a decision for every prepared size (prepared_sizes.hpp)
// from it, each routed sparse or dense (route.hpp), and sums what the plan holds.
#pragma once

#include <algorithm>

#include "families/family.hpp"
#include "runtime/objects.hpp"

namespace spx::engine {

/// B and C of n columns in the analyzed types and orders, and the problem over them.
struct ProblemAtN {
  spxDnMatDescr B, C;
  dispatch::SpmmProblem p;

  ProblemAtN(const dispatch::SpmmProblem& base, int64_t n)
      : B(with_columns(base.B, n)), C(with_columns(base.C, n)),
        p{base.h, base.A, B, C, base.compute_type, base.options, base.switches} {}

  /// A row-major operand's rows padded to 8 elements (16-byte rows for 16-bit types): the
  /// decisions assume the aligned rows most callers have; each call still checks its own.
  static spxDnMatDescr with_columns(const spxDnMatDescr& d, int64_t n) {
    spxDnMatDescr out = d;
    out.cols = n;
    out.ld = d.order == SPX_ORDER_ROW ? (std::max<int64_t>(n, 1) + 7) / 8 * 8 : d.ld;
    return out;
  }
};


/// Fills plan.prepared, plan.analyzed, plan.max_n, the sources and plan.info (the analyzed n's
/// decision with the plan's totals: bytes held, the workspace every n needs, max_n and
/// prepared_sizes).
void prepare_spmm(const dispatch::SpmmProblem& p, spxSpMMAlg_t alg, spxPlan& plan);

/// `e`'s info with the plan's totals (what spxPlanGetInfoForN reports).
spxPlanInfo_t info_of(const spxPlan& plan, const PreparedN& e);

}  // namespace spx::engine
