// The checks on operands that need the driver (memory kinds) or concern where data starts
// (alignment): run at analyze, at execute and at value updates, before any kernel sees a pointer.
// A failure is SPX_STATUS_INVALID_VALUE with a sentence naming the operand, never a device fault.
#pragma once

#include "runtime/objects.hpp"

namespace spx::engine {

/// Bytes the workspace passed to an execute must be aligned to (cudaMalloc's 256 always are).
constexpr size_t kWorkspaceAlignment = 256;

/// alpha and beta where the handle's pointer mode says: host-readable in HOST mode (not plain
/// device memory), device-readable in DEVICE mode (device, managed or pinned host memory).
void check_scalars(const spxContext& h, const void* alpha, const void* beta);

/// A non-empty dense operand's values: device-readable and aligned to its element size.
void check_dense(const spxDnMatDescr& d, const char* name);

/// A sparse operand's arrays: values aligned to their element size and device-readable, index
/// and pointer arrays 4-byte aligned (int32).
void check_sparse(const spxSpMatDescr& s, const char* name);

/// An epilogue array (spxPlanSetEpilogue's bias or scale: fp32 per row of C): device-readable and
/// 4-byte aligned. NULL passes (no array).
void check_epilogue_array(const void* p, const char* name);

/// The workspace, when the plan needs one: aligned to kWorkspaceAlignment.
void check_workspace(const spxPlan& plan, const void* workspace);

}  // namespace spx::engine
