// Building and running plans. Analyze reads the sparse structure from the device, validates and
// converts it on the host (planning/), and uploads the kernel-ready copy the plan owns.
#pragma once

#include <memory>

#include "api/objects.hpp"

namespace spx::plan {

/// SpMM plan for the generic fallback: A as CSR with values widened, every format accepted.
std::unique_ptr<spxPlan> analyze_spmm(const spxContext& h, const spxSpMatDescr& A,
                                      const spxDnMatDescr& B, const spxDnMatDescr& C,
                                      spxDataType_t compute_type);
/// SDDMM plan: C's pattern as (row, col, slot) entries.
std::unique_ptr<spxPlan> analyze_sddmm(const spxContext& h, const spxDnMatDescr& A,
                                       const spxDnMatDescr& B, const spxSpMatDescr& C,
                                       spxDataType_t compute_type);

/// Re-gathers the plan's copy of A's values from A.values (no structural work).
void update_values(const spxContext& h, spxPlan& plan, const spxSpMatDescr& A);

void execute_spmm(const spxContext& h, const spxPlan& plan, const void* alpha, const spxDnMatDescr& B,
                  const void* beta, const spxDnMatDescr& C);
void execute_sddmm(const spxContext& h, const spxPlan& plan, const void* alpha,
                   const spxDnMatDescr& A, const spxDnMatDescr& B, const void* beta,
                   const spxSpMatDescr& C);

}  // namespace spx::plan
