// The SR-BCRS family (Magicube): quantized 8- / 4-bit SpMM on int8 tensor cores for BCRS(V) inputs
// with V in {1, 2, 4, 8} and CSR inputs (V = 1); 32I, or 32F / 16F outputs with alpha as the
// dequantization scale. The decisions are in plan/choice (srbcrs::read_overrides, choose,
// b_source), the layout in plan/layout, the kernels in kernels/ (README.md of the family).
#pragma once

#include "families/family.hpp"
#include "families/srbcrs/plan/serialize.hpp"

namespace spx::dispatch {

/// Empty when the SR-BCRS kernels take the problem (plan/choice: srbcrs::refusal).
Refusal srbcrs_can_implement(const SpmmProblem& p);

/// Decides (srbcrs::choose, once), builds the SR-BCRS layout from A's structure (validated) at
/// the decided stride, uploads it, packs the values on the device, preloads the kernels and
/// fills info from the decision.
std::unique_ptr<SpmmKernelPlan> build_srbcrs_spmm(const SpmmProblem& p, spxPlanInfo_t& info);

/// The plan of a serialized SR-BCRS record (engine/serialize): its arrays, the decision made
/// again.
std::unique_ptr<SpmmKernelPlan> load_srbcrs_spmm(const SpmmProblem& p,
                                                 const plan::SrbcrsRecord& r);
}  // namespace spx::dispatch
