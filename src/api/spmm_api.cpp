// SpMM entry points and the plan calls shared with SDDMM (workspace, info, update, destroy).
#include <cuda_runtime_api.h>

#include "api/analyze_entry.hpp"
#include "api/validate.hpp"
#include "engine/prepared.hpp"
#include "engine/plan.hpp"
#include "runtime/dtype.hpp"
#include "runtime/objects.hpp"

namespace {

void check_plan(const spxPlan* plan) {
  spx::validate::not_null(plan, "plan");
}

/// spxSpMM_analyze and spxSpMM_analyzeWithOptions.
spxStatus_t analyze(const char* function, spxHandle_t handle, spxConstSpMatDescr_t A,
                    spxConstDnMatDescr_t B, spxConstDnMatDescr_t C, spxDataType_t compute_type,
                    spxSpMMAlg_t alg, spxConstPlanOptions_t options, spxPlan_t* plan) {
  return spx::api::analyze_entry(
      function, handle, A, B, C, options, plan,
      [&] {
        spx::validate::spmm_shapes(*A, *B, *C);
        spx::validate::product_types(A->type, B->type, C->type, compute_type);
      },
      [&](const spxPlanOptions& opts) {
        return spx::plan::analyze_spmm(*handle, *A, *B, *C, compute_type, alg, opts);
      });
}

/// spxSpMM_execute's B or C as a descriptor: the analyzed rows, type and order, n columns, the
/// caller's pointer and leading dimension (checked like spxCreateDnMat's, naming the operand;
/// `storage` names its lines x ld for the byte-size check).
spxDnMatDescr raw_operand(const spx::DenseSignature& analyzed, int64_t n, const void* values,
                          int64_t ld, const char* name, const char* ld_name, const char* storage) {
  spxDnMatDescr d;
  d.rows = analyzed.rows;
  d.cols = n;
  d.ld = ld;
  d.values = const_cast<void*>(values);
  d.type = analyzed.type;
  d.order = analyzed.order;
  const bool row_major = d.order == SPX_ORDER_ROW;
  const int64_t line = row_major ? n : d.rows;
  const int64_t min_ld = line > 1 ? line : 1;
  SPX_CHECK_ARG(ld >= min_ld,
                "%s (%lld) must be >= %lld for %s, %lld x %lld %s-major as the plan was analyzed",
                ld_name, static_cast<long long>(ld), static_cast<long long>(min_ld), name,
                static_cast<long long>(d.rows), static_cast<long long>(n),
                row_major ? "row" : "column");
  // The kernels address line j at j x ld elements: as spxCreateDnMat, lines x ld must fit.
  spx::validate::fits_bytes(row_major ? d.rows : n, ld, d.type, storage);
  SPX_CHECK_ARG(spx::dtype::bits(d.type) != 4 || ld % 2 == 0,
                "%s (%lld) must be even for %s's 4-bit type", ld_name, static_cast<long long>(ld),
                name);
  SPX_CHECK_ARG(d.rows == 0 || n == 0 || values != nullptr, "%s is NULL for a non-empty product",
                name);
  return d;
}

}  // namespace

extern "C" {

spxStatus_t spxSpMM_analyzeWithOptions(spxHandle_t handle, spxConstSpMatDescr_t A,
                                       spxConstDnMatDescr_t B, spxConstDnMatDescr_t C,
                                       spxDataType_t compute_type, spxSpMMAlg_t alg,
                                       spxConstPlanOptions_t options, spxPlan_t* plan) {
  return analyze("spxSpMM_analyzeWithOptions", handle, A, B, C, compute_type, alg, options, plan);
}

spxStatus_t spxSpMM_analyze(spxHandle_t handle, spxConstSpMatDescr_t A, spxConstDnMatDescr_t B,
                            spxConstDnMatDescr_t C, spxDataType_t compute_type, spxSpMMAlg_t alg,
                            spxPlan_t* plan) {
  return analyze("spxSpMM_analyze", handle, A, B, C, compute_type, alg, nullptr, plan);
}

spxStatus_t spxPlanGetWorkspaceSize(const struct spxPlan* plan, size_t* bytes) {
  return spx::guard("spxPlanGetWorkspaceSize", [&] {
    check_plan(plan);
    spx::validate::not_null(bytes, "bytes (output pointer)");
    *bytes = plan->info.workspace_bytes;
  });
}

spxStatus_t spxSpMM(spxHandle_t handle, const struct spxPlan* plan, const void* alpha,
                    spxConstSpMatDescr_t A, spxConstDnMatDescr_t B, const void* beta,
                    spxDnMatDescr_t C, void* workspace) {
  return spx::guard("spxSpMM", [&] {
    spx::validate::handle(handle);
    check_plan(plan);
    spx::validate::execution(*handle, *plan, alpha, beta, workspace);
    spx::validate::not_null(A, "A");
    spx::validate::not_null(B, "B");
    spx::validate::not_null(C, "C");
    spx::validate::matches_plan(*plan, spx::Operation::SpMM, *A, *B, *C);
    if (C->rows == 0 || C->cols == 0) return;
    spx::device::DeviceGuard on_device(handle->device);
    spx::plan::execute_spmm(*handle, *plan, alpha, *B, beta, *C, workspace);
  });
}

spxStatus_t spxSpMM_execute(spxHandle_t handle, const struct spxPlan* plan, int64_t n,
                            const void* alpha, const void* B, int64_t ldb, const void* beta,
                            void* C, int64_t ldc, void* workspace) {
  return spx::guard("spxSpMM_execute", [&] {
    spx::validate::handle(handle);
    check_plan(plan);
    SPX_CHECK_ARG(plan->op == spx::Operation::SpMM,
                  "spxSpMM_execute runs SpMM plans; this plan was analyzed for SDDMM");
    spx::validate::execution(*handle, *plan, alpha, beta, workspace);
    spx::validate::columns_within_bound(*plan, n);
    const spxDnMatDescr b =
        raw_operand(plan->dense_in, n, B, ldb, "B", "ldb", "B's storage (lines x ldb)");
    const spxDnMatDescr c =
        raw_operand(plan->dense_out, n, C, ldc, "C", "ldc", "C's storage (lines x ldc)");
    if (c.rows == 0 || n == 0) return;
    spx::device::DeviceGuard on_device(handle->device);
    spx::plan::execute_spmm(*handle, *plan, alpha, b, beta, c, workspace);
  });
}

spxStatus_t spxPlanUpdateValues(spxHandle_t handle, spxPlan_t plan, spxConstSpMatDescr_t A) {
  return spx::guard("spxPlanUpdateValues", [&] {
    spx::validate::handle(handle);
    check_plan(plan);
    spx::validate::not_null(A, "A");
    SPX_CHECK_ARG(plan->op == spx::Operation::SpMM,
                  "an SDDMM plan keeps no copy of values: there is nothing to update");
    SPX_CHECK_ARG(
        spx::SparseSignature::of(*A) == plan->sparse,
        "A differs in format, shape, nnz or type from the matrix the plan was analyzed for");
    spx::device::DeviceGuard on_device(handle->device);
    spx::plan::update_values(*handle, *plan, *A);
  });
}

spxStatus_t spxPlanGetInfo(const struct spxPlan* plan, spxPlanInfo_t* info) {
  return spx::guard("spxPlanGetInfo", [&] {
    check_plan(plan);
    spx::validate::not_null(info, "info (output pointer)");
    // SpMM: the analyzed n's decision as it stands (spxSpMM_search may have changed it).
    *info = plan->op == spx::Operation::SpMM
                ? spx::engine::info_of(*plan, plan->prepared[plan->analyzed])
                : plan->info;
  });
}

spxStatus_t spxPlanGetInfoForN(const struct spxPlan* plan, int64_t n, spxPlanInfo_t* info) {
  return spx::guard("spxPlanGetInfoForN", [&] {
    check_plan(plan);
    spx::validate::not_null(info, "info (output pointer)");
    SPX_CHECK_ARG(plan->op == spx::Operation::SpMM,
                  "spxPlanGetInfoForN is for SpMM plans; this plan was analyzed for SDDMM");
    SPX_CHECK_ARG(n >= 1, "n (%lld) must be >= 1", static_cast<long long>(n));
    spx::validate::columns_within_bound(*plan, n);
    const int64_t top = plan->prepared.back().n_hi;
    // Above the largest prepared size (any n), slices of that size run.
    *info = spx::engine::info_of(*plan, plan->prepared_for(n <= top ? n : top));
  });
}

spxStatus_t spxPlanDestroy(spxPlan_t plan) {
  return spx::guard("spxPlanDestroy", [&] {
    if (plan == nullptr) return;
    // Work queued with this plan may still read its buffers: they are freed in the order of the
    // library's release stream, after every stream the plan was used on has reached that point.
    // No host wait, nothing else on the device waited for; legal while other streams capture.
    spx::device::DeviceGuard on_device(plan->device);
    spx::device::RelaxedCaptureMode relaxed;
    const cudaStream_t release =
        spx::device::internal_stream(plan->device, spx::device::StreamRole::Release);
    plan->uses.order_after(release);
    spx::device::ReleaseScope in_order(release);
    delete plan;
  });
}

}  // extern "C"
