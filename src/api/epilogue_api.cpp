// The fused SpMM epilogue's arrays on a plan (spxPlanSetEpilogue / spxPlanGetEpilogue). The
// activation, and whether the plan takes a bias and a scale, are analyze options
// (SPX_PLAN_OPTION_EPILOGUE_*): they decide the route. The arrays change here, between executes,
// without re-analyzing (a layer's bias or quantization scale).
#include "api/validate.hpp"
#include "engine/operand_checks.hpp"
#include "runtime/device.hpp"
#include "runtime/objects.hpp"

namespace {

/// The pointer `p` for an epilogue array the plan was (`declared`) or was not analyzed to take.
void check_array(const void* p, bool declared, const char* name, const char* option) {
  if (p == nullptr) return;
  SPX_CHECK_ARG(declared, "%s (%p) was given but the plan was analyzed without %s = 1", name, p,
                option);
  spx::engine::check_epilogue_array(p, name);
}

}  // namespace

extern "C" {

spxStatus_t spxPlanSetEpilogue(spxHandle_t handle, spxPlan_t plan, const void* bias,
                               const void* scale) {
  return spx::guard("spxPlanSetEpilogue", [&] {
    spx::validate::handle(handle);
    spx::validate::not_null(plan, "plan");
    SPX_CHECK_ARG(plan->op == spx::Operation::SpMM,
                  "an SDDMM plan has no fused epilogue (it is an SpMM plan's)");
    spx::device::DeviceGuard on_device(handle->device);
    check_array(bias, plan->options.epilogue_bias == 1, "bias", "SPX_PLAN_OPTION_EPILOGUE_BIAS");
    check_array(scale, plan->options.epilogue_scale == 1, "scale",
                "SPX_PLAN_OPTION_EPILOGUE_SCALE");
    // Both checked before either changes: a refused call leaves the plan as it was.
    plan->epilogue.bias = static_cast<const float*>(bias);
    plan->epilogue.scale = static_cast<const float*>(scale);
  });
}

spxStatus_t spxPlanGetEpilogue(const struct spxPlan* plan, const void** bias, const void** scale) {
  return spx::guard("spxPlanGetEpilogue", [&] {
    spx::validate::not_null(plan, "plan");
    if (bias != nullptr) *bias = plan->epilogue.bias;
    if (scale != nullptr) *scale = plan->epilogue.scale;
  });
}

}  // extern "C"
