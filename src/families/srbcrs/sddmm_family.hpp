// The SR-BCRS family's SDDMM (Magicube, Sec. IV-C): C = alpha * (A * B) .* spy(C) + beta * C with
// C's pattern in BCRS(V) (V in {1, 2, 4, 8}) or CSR, A and B 8- / 4-bit integers in any mix or
// both 16I (emulated with 8-bit slices), on int8 tensor cores; 32I, or 32F / 16F with alpha as the
// dequantization scale. The decisions are in plan/sddmm (srbcrs::choose, sddmm_operand), the
// kernels in kernels/ (README.md of the family, "SDDMM").
#pragma once

#include "families/family.hpp"

namespace spx::dispatch {

/// Empty when the SR-BCRS SDDMM kernels take the problem (plan/sddmm: srbcrs::refusal).
Refusal srbcrs_sddmm_can_implement(const SddmmProblem& p);

/// Builds the task list and output map from C's structure (validated), uploads them, preloads
/// the kernels and fills info.
std::unique_ptr<SddmmKernelPlan> build_srbcrs_sddmm(const SddmmProblem& p, spxPlanInfo_t& info);

}  // namespace spx::dispatch
