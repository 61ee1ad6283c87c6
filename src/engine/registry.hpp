// The table of kernel families and the choice among them. SPX_SPMM_ALG_DEFAULT takes the first
// family (in the table's order of preference) that can implement the problem, then the generic
// fallback; a forced family that cannot take the problem is SPX_STATUS_NOT_SUPPORTED with the
// family's reason.
#pragma once

#include "families/family.hpp"

namespace spx::dispatch {

/// Builds the kernel plan for an SpMM and fills the family-specific fields of `info`
/// (family, kernel, config, metadata/values bytes, workspace, padded_nnz, split_k, packing).
std::unique_ptr<SpmmKernelPlan> build_spmm(const SpmmProblem& p, spxSpMMAlg_t alg,
                                           spxPlanInfo_t& info);
std::unique_ptr<SddmmKernelPlan> build_sddmm(const SddmmProblem& p, spxSDDMMAlg_t alg,
                                             spxPlanInfo_t& info);

}  // namespace spx::dispatch
