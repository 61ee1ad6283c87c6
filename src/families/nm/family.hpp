// The NM family: vector-wise N:M SpMM on FP32 CUDA cores (the NM-SpMM kernels of kernels/nm).
// Takes fp32 A (format NM with M in {4, 8, 16, 32, 64, 128} and L in {16, 32, 64, 128}), fp32 B
// and C in either order, compute 32F; refuses everything else with one sentence so that
// SPX_SPMM_ALG_DEFAULT falls back to the generic kernel.
//
// Test and tuning overrides, read by analyze (environment):
//   SPX_NM_FORCE_PACKING=0|1        non-packing / packing loads instead of the model's choice
//   SPX_NM_FORCE_TILE=small|medium|large|huge|wide   the tile (ignored when it does not fit)
//   SPX_NM_FORCE_SPLIT=S            split-K into S parts (clamped to the number of stages)
#pragma once

#include "families/family.hpp"

namespace spx::dispatch {

Refusal nm_can_implement(const SpmmProblem& p);
std::unique_ptr<SpmmKernelPlan> build_nm_spmm(const SpmmProblem& p, spxPlanInfo_t& info);

}  // namespace spx::dispatch
