// The generic fallback family: takes every valid input. The structure becomes CSR on the host,
// values are gathered (widened to fp32 / int32) on the device, one simple kernel computes.
#pragma once

#include "families/family.hpp"
#include "families/fallback/plan/serialize.hpp"

namespace spx::dispatch {

std::unique_ptr<SpmmKernelPlan> build_fallback_spmm(const SpmmProblem& p, spxPlanInfo_t& info);
std::unique_ptr<SddmmKernelPlan> build_fallback_sddmm(const SddmmProblem& p, spxPlanInfo_t& info);

/// The fallback plan of a serialized record (engine/serialize).
std::unique_ptr<SpmmKernelPlan> load_fallback_spmm(const SpmmProblem& p,
                                                   const plan::FallbackRecord& r);
}  // namespace spx::dispatch
