#include "engine/prepared.hpp"

#include <algorithm>

#include "engine/prepared_sizes.hpp"
#include "engine/route.hpp"
#include "runtime/elapsed.hpp"
#include "runtime/log.hpp"

namespace spx::engine {
void prepare_spmm(const dispatch::SpmmProblem& p, spxSpMMAlg_t alg, spxPlan& plan) {
  const int64_t analyzed_n = p.C.cols;
  plan.max_n = resolve_max_n(analyzed_n, p.options.max_n);
  const std::vector<int64_t> sizes = prepared_sizes(analyzed_n, plan.max_n);
  PlanSources sources;
  plan.prepared.assign(sizes.size(), PreparedN{});
  plan.analyzed = static_cast<size_t>(
      std::find(sizes.begin(), sizes.end(), analyzed_n) - sizes.begin());
  // The analyzed n first: the family is chosen, A packed and the caller's B may be timed there.
  PreparedN& first = plan.prepared[plan.analyzed];
  first.n_hi = analyzed_n;
  first.info = plan.info;
  const auto start = Clock::now();
  route_spmm(p, alg, sources, first, true);
  const double ms_first = ms_since(start);
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (i == plan.analyzed) continue;
    PreparedN& e = plan.prepared[i];
    e.n_hi = sizes[i];
    e.info = plan.info;
    e.info.columns_skipped = first.info.columns_skipped;  // A's reorder, shared by every n
    e.info.reorder_retries = first.info.reorder_retries;
    const ProblemAtN at(p, sizes[i]);
    route_spmm(at.p, alg, sources, e, false);
  }
  plan.sparse_source = sources.sparse;
  plan.dense_source = sources.dense;
  plan.info = info_of(plan, first);
  log::trace("spxSpMM_analyze: analyzed n %.2f ms, %zu other prepared sizes %.2f ms", ms_first,
             sizes.size() - 1, ms_since(start) - ms_first);
  if (sizes.size() > 1)
    log::info("spxSpMM_analyze: %zu prepared sizes up to n = %lld, %zu bytes held", sizes.size(),
              static_cast<long long>(sizes.back()),
              plan.info.metadata_bytes + plan.info.values_bytes);
}

spxPlanInfo_t info_of(const spxPlan& plan, const PreparedN& e) {
  spxPlanInfo_t info = e.info;
  dispatch::SpmmKernelPlan::Held sparse, dense;
  if (plan.sparse_source) sparse = plan.sparse_source->held();
  if (plan.dense_source) dense = plan.dense_source->held();
  info.metadata_bytes = sparse.metadata + dense.metadata;
  info.values_bytes = sparse.values + dense.values;
  info.dense_bytes = dense.values;
  size_t workspace = 0;
  for (const PreparedN& q : plan.prepared) {
    workspace = std::max(workspace, q.spmm->workspace_bytes());
    if (q.sparse_for_epilogue)
      workspace = std::max(workspace, q.sparse_for_epilogue->workspace_bytes());
  }
  info.workspace_bytes = workspace;
  info.max_n = plan.max_n;
  info.prepared_sizes = static_cast<int64_t>(plan.prepared.size());
  info.analyze_ms = plan.info.analyze_ms;  // the plan's analyze, whatever n is asked about
  return info;
}

}  // namespace spx::engine
