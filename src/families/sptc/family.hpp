// The SpTC reorder family (Jigsaw): any vector-sparse fp16 / bf16 matrix (BCRS with V in
// {1, 2, 4, 8, 16}, CSR as V = 1) reordered on the host so that 2:4 sparse tensor cores apply
// (formats/sptc_reorder: zero-column skipping per BLOCK_TILE, 2:4 grouping of 16-column units
// with retries), stored for the kernel (formats/sptc_storage) and multiplied with mma.sp
// m16n8k32 (kernels/sptc). B and C in either order; C of A's type or 32F; compute 32F.
// Refuses (so that SPX_SPMM_ALG_DEFAULT falls back) repeated columns within a block row.
//
// Every choice (BLOCK_TILE and row order, kernel and configuration, and per call how B is read)
// is made in plan/choice.hpp; the SPX_SPTC_* switches it honours are listed in README.md.
#pragma once

#include "families/family.hpp"
#include "families/sptc/plan/serialize.hpp"

namespace spx::dispatch {

Refusal sptc_can_implement(const SpmmProblem& p);
std::unique_ptr<SpmmKernelPlan> build_sptc_spmm(const SpmmProblem& p, spxPlanInfo_t& info);

/// The plan of a serialized SpTC record (engine/serialize): its storage, the decision made again.
std::unique_ptr<SpmmKernelPlan> load_sptc_spmm(const SpmmProblem& p, const plan::SptcRecord& r);
}  // namespace spx::dispatch
