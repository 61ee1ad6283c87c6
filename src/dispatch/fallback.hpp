// The generic fallback family: takes every valid input. The structure becomes CSR on the host,
// values are gathered (widened to fp32 / int32) on the device, one simple kernel computes.
#pragma once

#include "dispatch/kernel_plan.hpp"
#include "kernels/common/args.hpp"

namespace spx::dispatch {

std::unique_ptr<SpmmKernelPlan> build_fallback_spmm(const SpmmProblem& p, spxPlanInfo_t& info);
std::unique_ptr<SddmmKernelPlan> build_fallback_sddmm(const SddmmProblem& p, spxPlanInfo_t& info);

/// Kernel arguments shared with the families: the dense view and the scalars as passed.
kernels::DenseView view_of(const spxDnMatDescr& d);
kernels::Scalars scalars_of(const spxContext& h, const void* alpha, const void* beta,
                            bool integer_output);
/// "row" / "col", as the plans' configuration strings name a dense order.
const char* order_name(spxOrder_t o);

}  // namespace spx::dispatch
