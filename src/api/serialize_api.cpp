// Saving and loading plans: spxPlanGetSerializedSize, spxPlanSerialize, spxPlanDeserialize
// (engine/serialize.hpp has the design, engine/plan_record.hpp the byte format).
#include "api/validate.hpp"
#include "engine/serialize.hpp"
#include "runtime/objects.hpp"

extern "C" {

spxStatus_t spxPlanGetSerializedSize(spxHandle_t handle, const struct spxPlan* plan,
                                     size_t* bytes) {
  return spx::guard("spxPlanGetSerializedSize", [&] {
    spx::validate::handle(handle);
    spx::validate::not_null(plan, "plan");
    spx::validate::not_null(bytes, "bytes (output pointer)");
    *bytes = spx::engine::serialized_size(*plan);
  });
}

spxStatus_t spxPlanSerialize(spxHandle_t handle, const struct spxPlan* plan, void* buffer,
                             size_t buffer_size) {
  return spx::guard("spxPlanSerialize", [&] {
    spx::validate::handle(handle);
    spx::validate::not_null(plan, "plan");
    spx::validate::not_null(buffer, "buffer");
    SPX_CHECK_ARG(plan->device == handle->device,
                  "the plan lives on device %d, the handle on device %d", plan->device,
                  handle->device);
    spx::device::DeviceGuard on_device(handle->device);
    spx::engine::serialize(*handle, *plan, buffer, buffer_size);
  });
}

spxStatus_t spxPlanDeserialize(spxHandle_t handle, const void* bytes, size_t size,
                               spxPlan_t* plan) {
  return spx::guard("spxPlanDeserialize", [&] {
    spx::validate::handle(handle);
    spx::validate::not_null(plan, "plan (output pointer)");
    *plan = nullptr;
    spx::validate::not_null(bytes, "bytes");
    spx::device::DeviceGuard on_device(handle->device);
    *plan = spx::engine::deserialize(*handle, bytes, size).release();
  });
}

}  // extern "C"
