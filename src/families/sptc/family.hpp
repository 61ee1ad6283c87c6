// The SpTC reorder family (Jigsaw): any vector-sparse fp16 / bf16 matrix (BCRS with V in
// {1, 2, 4, 8, 16}, CSR as V = 1) reordered on the host so that 2:4 sparse tensor cores apply
// (formats/sptc_reorder: zero-column skipping per BLOCK_TILE, 2:4 grouping of 16-column units
// with retries), stored for the kernel (formats/sptc_storage) and multiplied with mma.sp
// m16n8k32 (kernels/sptc). B and C in either order; C of A's type or 32F; compute 32F.
// Refuses (so that SPX_SPMM_ALG_DEFAULT falls back) repeated columns within a block row.
//
// Test and tuning override, read by analyze (environment):
//   SPX_SPTC_BLOCK_TILE=16|32|64   the reorder's BLOCK_TILE instead of the cost model's choice
//   SPX_SPTC_FORCE_CANDIDATE=i     run candidate i (0: the rule's choice; then BN 128 / 64 with
//                                  the rule's tiles per block and with one)
//   SPX_SPTC_TILES_PER_BLOCK=t     n tiles per block for every candidate
#pragma once

#include "families/family.hpp"

namespace spx::dispatch {

Refusal sptc_can_implement(const SpmmProblem& p);
std::unique_ptr<SpmmKernelPlan> build_sptc_spmm(const SpmmProblem& p, spxPlanInfo_t& info);

}  // namespace spx::dispatch
