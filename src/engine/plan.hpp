// Building and running plans: the family-independent part. Analyze times itself, lets
// families/ choose and build the family's kernel plan, and records what the user can query.
#pragma once

#include <memory>

#include "device/args.hpp"
#include "runtime/objects.hpp"

namespace spx::plan {

std::unique_ptr<spxPlan> analyze_spmm(const spxContext& h, const spxSpMatDescr& A,
                                      const spxDnMatDescr& B, const spxDnMatDescr& C,
                                      spxDataType_t compute_type, spxSpMMAlg_t alg,
                                      const spxPlanOptions& options);
std::unique_ptr<spxPlan> analyze_sddmm(const spxContext& h, const spxDnMatDescr& A,
                                       const spxDnMatDescr& B, const spxSpMatDescr& C,
                                       spxDataType_t compute_type, spxSDDMMAlg_t alg,
                                       const spxPlanOptions& options);

void update_values(const spxContext& h, spxPlan& plan, const spxSpMatDescr& A);

void execute_spmm(const spxContext& h, const spxPlan& plan, const void* alpha,
                  const spxDnMatDescr& B, const void* beta, const spxDnMatDescr& C,
                  void* workspace);
/// A view of columns [first, first + n) of d (how an n above the largest prepared size runs): an
/// offset of `first` elements along a row-major row, `first` lines of a column-major d.
spxDnMatDescr column_slice(const spxDnMatDescr& d, int64_t first, int64_t n);

/// The plan's fused epilogue as the kernels take it (every SpMM run passes it on).
kernels::Epilogue epilogue_of(const spxPlan& plan);

/// execute_spmm without the operand checks (spxSpMM_execute checked them already): the prepared
/// decision for C's n columns runs (column slices of the largest prepared size above it).
void run_spmm(const spxContext& h, const spxPlan& plan, const void* alpha, const spxDnMatDescr& B,
              const void* beta, const spxDnMatDescr& C, void* workspace);
void execute_sddmm(const spxContext& h, const spxPlan& plan, const void* alpha,
                   const spxDnMatDescr& A, const spxDnMatDescr& B, const void* beta,
                   const spxSpMatDescr& C, void* workspace);

}  // namespace spx::plan
