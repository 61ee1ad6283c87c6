// The SR-BCRS family (Magicube): quantized 8- / 4-bit SpMM on int8 tensor cores for BCRS(V) inputs
// with V in {1, 2, 4, 8} and CSR inputs (V = 1); 32I, or 32F / 16F outputs with alpha as the
// dequantization scale. The host rules are in formats/srbcrs_choice, the layout in
// formats/srbcrs_layout, the kernels in kernels/srbcrs (README there).
#pragma once

#include "families/family.hpp"

namespace spx::dispatch {

/// Empty when the SR-BCRS kernels take the problem (formats/srbcrs_choice: srbcrs_refusal).
Refusal srbcrs_can_implement(const SpmmProblem& p);

/// Builds the SR-BCRS layout from A's structure (validated), uploads it, packs the values on the
/// device, preloads the kernels and fills info.
std::unique_ptr<SpmmKernelPlan> build_srbcrs_spmm(const SpmmProblem& p, spxPlanInfo_t& info);

}  // namespace spx::dispatch
