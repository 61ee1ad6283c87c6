// The dense family: SpMM as a dense product. The plan densifies A on the device into a copy it
// owns (row-major m x k of A's type) and every execute is one cublasGemmEx (cuBLAS loaded at run
// time: kernels/cublas.hpp). Chosen by the route decision (engine/route.cpp), never by the family
// table: SPX_SPMM_ALG_DENSE, SPX_PLAN_OPTION_DENSE_ROUTE = ALWAYS, or AUTO when the model (or
// the autotune measurement) says dense is faster than the sparse family.
#pragma once

#include "families/dense/plan/roofline.hpp"
#include "families/family.hpp"
#include "families/dense/plan/serialize.hpp"

namespace spx::dispatch {

/// Empty when the dense route can run this problem: A and B 32F / 16F / 16BF, the native values
/// layout, sizes within cuBLAS's int, cuBLAS loadable (and SPX_DENSE_NO_CUBLAS not 1).
Refusal dense_can_implement(const SpmmProblem& p);

/// Whether the dense route runs a call of a plan with a fused epilogue itself: beta given on the
/// host (HOST pointer mode) and 0, so that the GEMM can write alpha A B into C and the epilogue
/// follow in place. The engine runs the other calls on the sparse family's decision for that n.
bool dense_takes_epilogue(const spxContext& h, const void* beta);

/// Builds the dense plan (allocates the dense copy: ALLOC_FAILED with its size when that fails)
/// and fills info's family fields (family DENSE, kernel "cublas_gemm_ex", config, bytes,
/// dense_bytes, route = 1).
std::unique_ptr<SpmmKernelPlan> build_dense_spmm(const SpmmProblem& p, spxPlanInfo_t& info);

/// What the roofline model needs about the problem: the GEMM the dense route runs, with TF32
/// when `tf32` (fp32 inputs only).
plan::GemmSize dense_gemm_size(const SpmmProblem& p, bool tf32);

/// The dense route of a serialized record (engine/serialize): its dense copy of A.
std::unique_ptr<SpmmKernelPlan> load_dense_spmm(const SpmmProblem& p, const plan::DenseRecord& r);
}  // namespace spx::dispatch
