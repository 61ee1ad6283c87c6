// The ELL family (uniform sparsity, USpMM): fp32 / fp16 ELL inputs, and CSR inputs whose rows are
// near-uniform (HYB: ELL part + small CSR tail). See src/families/ell/README.md.
#pragma once

#include "families/family.hpp"
#include "families/ell/plan/serialize.hpp"

namespace spx::dispatch {

/// Empty when the ELL family takes the problem: A is ELL (fp32 / fp16), or a near-uniform CSR
/// (formats/ell_layout: ell_near_uniform); else one sentence why not.
Refusal ell_can_implement(const SpmmProblem& p);

/// Plans the ELL layout (HYB split, 16-bit indices, value slot map), uploads it and fills info.
std::unique_ptr<SpmmKernelPlan> build_ell_spmm(const SpmmProblem& p, spxPlanInfo_t& info);

/// The plan of a serialized ELL record (engine/serialize): its arrays, the decision made again.
std::unique_ptr<SpmmKernelPlan> load_ell_spmm(const SpmmProblem& p, const plan::EllRecord& r);
}  // namespace spx::dispatch
