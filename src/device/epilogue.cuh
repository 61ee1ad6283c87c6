// The SpMM epilogue every family's C store applies (the plan's spxPlanSetEpilogue and
// SPX_PLAN_OPTION_EPILOGUE_ACTIVATION): v = alpha * acc comes in, act(scale[r] * v + bias[r])
// goes out, and the caller adds beta * C[r, c] and rounds once to C's type. All in fp32.
// With no epilogue set (`on` == 0, uniform over the launch) apply() returns v untouched.
#pragma once

#include <cstdint>

#include "device/args.hpp"

namespace spx::kernels {

/// The activation of the epilogue (fp32, accurate tanhf / expf: no fast-math approximations, so
/// the tests' bounds hold on every device).
__device__ __forceinline__ float activate(int32_t act, float u) {
  switch (act) {
    case SPX_ACTIVATION_RELU: return u > 0.0f ? u : 0.0f;
    case SPX_ACTIVATION_GELU_TANH: {
      // 0.5 u (1 + tanh(sqrt(2 / pi) (u + 0.044715 u^3))), PyTorch's gelu(approximate="tanh").
      const float inner = 0.7978845608028654f * fmaf(0.044715f * u, u * u, u);
      return 0.5f * u * (1.0f + tanhf(inner));
    }
    case SPX_ACTIVATION_SILU: return u / (1.0f + expf(-u));
    default: return u;
  }
}

/// The epilogue of output row `row` of C on v = alpha * acc (before beta * C is added).
__device__ __forceinline__ float apply_epilogue(const Epilogue& e, int64_t row, float v) {
  if (!e.on) return v;
  if (e.scale != nullptr) v *= __ldg(e.scale + row);
  if (e.bias != nullptr) v += __ldg(e.bias + row);
  return activate(e.activation, v);
}

}  // namespace spx::kernels
