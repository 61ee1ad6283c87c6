// The frame shared by the analyze entry points (spxSpMM_analyze*, spxSDDMM_analyze*): the checks
// every analyze makes in the same order, the device switch and the plan hand-over. The operation
// supplies its own shape and type checks and the planner.
#pragma once

#include "runtime/device.hpp"
#include "runtime/objects.hpp"
#include "api/validate.hpp"
#include "runtime/error.hpp"

namespace spx::api {

/// Clears *plan (a failed call never leaves a stale plan behind), checks the handle and the
/// operand and output pointers, runs `check()` (shapes, types), makes the handle's device current
/// and stores `build(options)`'s plan. NULL options = the defaults; `function` names the entry
/// point in error messages and logs.
template <class Check, class Build>
spxStatus_t analyze_entry(const char* function, spxHandle_t handle, const void* A, const void* B,
                          const void* C, spxConstPlanOptions_t options, spxPlan_t* plan,
                          Check&& check, Build&& build) {
  return spx::guard(function, [&] {
    if (plan != nullptr) *plan = nullptr;
    validate::handle(handle);
    validate::not_null(A, "A");
    validate::not_null(B, "B");
    validate::not_null(C, "C");
    validate::not_null(plan, "plan (output pointer)");
    check();
    device::DeviceGuard on_device(handle->device);
    *plan = build(options ? *options : spxPlanOptions::defaults()).release();
  });
}

}  // namespace spx::api
