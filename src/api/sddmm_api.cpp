// SDDMM entry points: C = alpha * (A * B) .* spy(C) + beta * C.
#include "api/analyze_entry.hpp"
#include "runtime/objects.hpp"
#include "engine/plan.hpp"
#include "api/validate.hpp"

namespace {

/// spxSDDMM_analyze and spxSDDMM_analyzeWithOptions.
spxStatus_t analyze(const char* function, spxHandle_t handle, spxConstDnMatDescr_t A,
                    spxConstDnMatDescr_t B, spxConstSpMatDescr_t C, spxDataType_t compute_type,
                    spxSDDMMAlg_t alg, spxConstPlanOptions_t options, spxPlan_t* plan) {
  return spx::api::analyze_entry(
      function, handle, A, B, C, options, plan,
      [&] {
        spx::validate::sddmm_shapes(*A, *B, *C);
        spx::validate::product_types(A->type, B->type, C->type, compute_type);
      },
      [&](const spxPlanOptions& opts) {
        return spx::plan::analyze_sddmm(*handle, *A, *B, *C, compute_type, alg, opts);
      });
}

}  // namespace

extern "C" {

spxStatus_t spxSDDMM_analyzeWithOptions(spxHandle_t handle, spxConstDnMatDescr_t A,
                                        spxConstDnMatDescr_t B, spxConstSpMatDescr_t C,
                                        spxDataType_t compute_type, spxSDDMMAlg_t alg,
                                        spxConstPlanOptions_t options, spxPlan_t* plan) {
  return analyze("spxSDDMM_analyzeWithOptions", handle, A, B, C, compute_type, alg, options, plan);
}

spxStatus_t spxSDDMM_analyze(spxHandle_t handle, spxConstDnMatDescr_t A, spxConstDnMatDescr_t B,
                             spxConstSpMatDescr_t C, spxDataType_t compute_type, spxSDDMMAlg_t alg,
                             spxPlan_t* plan) {
  return analyze("spxSDDMM_analyze", handle, A, B, C, compute_type, alg, nullptr, plan);
}

spxStatus_t spxSDDMM(spxHandle_t handle, const struct spxPlan* plan, const void* alpha,
                     spxConstDnMatDescr_t A, spxConstDnMatDescr_t B, const void* beta,
                     spxSpMatDescr_t C, void* workspace) {
  return spx::guard("spxSDDMM", [&] {
    spx::validate::handle(handle);
    spx::validate::not_null(plan, "plan");
    spx::validate::execution(*handle, *plan, alpha, beta, workspace);
    spx::validate::not_null(A, "A");
    spx::validate::not_null(B, "B");
    spx::validate::not_null(C, "C");
    spx::validate::matches_plan(*plan, spx::Operation::SDDMM, *C, *A, *B);
    SPX_CHECK_ARG(C->value_slots() == 0 || C->values != nullptr, "C's values are NULL");
    spx::device::DeviceGuard on_device(handle->device);
    spx::plan::execute_sddmm(*handle, *plan, alpha, *A, *B, beta, *C, workspace);
  });
}

}  // extern "C"
