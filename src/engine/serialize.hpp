// Saving and loading SpMM plans (spxPlanSerialize / spxPlanDeserialize): a plan becomes the
// record of engine/plan_record.hpp (its device arrays read back on the handle's stream), and a
// parsed record a plan again on the handle's device, with each prepared n's decision made again
// by its family from the stored structure and checked against the stored one.
//
// Another GPU: the header names the compute capability, SM count, device code architecture and
// shared memory per block the decisions were made for. A handle whose device differs in any of
// them gets SPX_STATUS_NOT_SUPPORTED ("analyze again"): the packed layouts themselves depend on
// the device (NM's stage geometry on shared memory, SpTC's block tile on the SM count), so a
// plan is only reused where it was made.
#pragma once

#include <cstddef>
#include <memory>

#include "runtime/objects.hpp"

namespace spx::engine {

/// Bytes spxPlanSerialize writes for this plan (no device work).
size_t serialized_size(const spxPlan& plan);
/// Writes the plan to out[0, capacity); reads its device arrays on h.stream and waits for them.
/// Returns the bytes written.
size_t serialize(const spxContext& h, const spxPlan& plan, void* out, size_t capacity);
/// A plan from serialized bytes, its arrays uploaded on h.stream (done on return).
std::unique_ptr<spxPlan> deserialize(const spxContext& h, const void* bytes, size_t size);

}  // namespace spx::engine
