// The NM family: vector-wise N:M SpMM on FP32 CUDA cores (the NM-SpMM kernels of kernels/nm).
// Takes fp32 A (format NM with M in {4, 8, 16, 32, 64, 128} and L in {16, 32, 64, 128}), fp32 B
// and C in either order, compute 32F; refuses everything else with one sentence so that
// SPX_SPMM_ALG_DEFAULT falls back to the generic kernel.
//
// Every choice is plan/choice.cpp's (choose); the SPX_NM_* switches it honours are parsed there
// once (read_overrides) and listed in src/families/nm/README.md.
#pragma once

#include "families/family.hpp"
#include "families/nm/plan/serialize.hpp"

namespace spx::dispatch {

Refusal nm_can_implement(const SpmmProblem& p);
std::unique_ptr<SpmmKernelPlan> build_nm_spmm(const SpmmProblem& p, spxPlanInfo_t& info);

/// The plan of a serialized NM record (engine/serialize): its arrays, the decision made again.
std::unique_ptr<SpmmKernelPlan> load_nm_spmm(const SpmmProblem& p, const plan::NmRecord& r);
}  // namespace spx::dispatch
