// Plain-data kernel arguments shared by the host launchers and the device code. No device
// functions here, so host C++ (the plan code) can fill them without CUDA compilation.
#pragma once

#include <cstdint>

#include "spx/spx_types.h"

namespace spx::kernels {

/// A dense operand as the kernels see it: element (r, c) at r * ld + c (row) or r + c * ld (col).
struct DenseView {
  void* ptr;
  int64_t ld;
  spxDataType_t type;
  spxOrder_t order;
};

/// The SpMM epilogue on the plan (spxPlanSetEpilogue, SPX_PLAN_OPTION_EPILOGUE_*): every C
/// store computes act(scale[r] * alpha * acc + bias[r]) + beta * C[r, c] in fp32 (r: C's row).
/// bias and scale are fp32 device arrays of C's m rows, or NULL. `on` is 0 when nothing is set:
/// the one uniform test the kernels make then (device/epilogue.cuh).
struct Epilogue {
  const float* bias;
  const float* scale;
  int32_t activation;  ///< a spxActivation_t
  int32_t on;
};

/// alpha and beta as the kernels receive them: by value (host pointer mode) or as device
/// pointers read inside the kernel (device pointer mode). Integer when the output is 32I.
struct Scalars {
  float alpha_f, beta_f;
  int32_t alpha_i, beta_i;
  const void* alpha_dev;  ///< non-NULL in device pointer mode
  const void* beta_dev;
  Epilogue epilogue;  ///< what the C store does after alpha (SpMM; always off for SDDMM)
};

}  // namespace spx::kernels
