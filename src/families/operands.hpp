// The dense operands and scalars of a call as every family's kernels take them.
#pragma once

#include "device/args.hpp"
#include "families/family.hpp"
#include "runtime/objects.hpp"

namespace spx::dispatch {

/// The dense view of a descriptor (pointer, leading dimension, type, order).
kernels::DenseView view_of(const spxDnMatDescr& d);
/// alpha and beta as passed: read now in host pointer mode (the call may return before the
/// kernel runs), passed through as device pointers in device pointer mode.
kernels::Scalars scalars_of(const spxContext& h, const void* alpha, const void* beta,
                            bool integer_output);
/// scalars_of for an SpMM call, with the call's epilogue (device/epilogue.cuh).
kernels::Scalars spmm_scalars_of(const spxContext& h, const SpmmCall& call, bool integer_output);
/// "row" / "col", as the plans' configuration strings name a dense order.
const char* order_name(spxOrder_t o);

}  // namespace spx::dispatch
