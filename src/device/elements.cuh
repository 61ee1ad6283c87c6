// Device-side reading and writing of one element of any spxDataType_t, with the type known only
// at run time. Used by the generic fallback kernels, where one kernel serves every type: the
// branch on the type is uniform across a warp, so it costs little next to the memory access.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "device/args.hpp"
#include "device/epilogue.cuh"

namespace spx::kernels {

/// Linear index of element (r, c) of a dense operand.
__device__ __forceinline__ int64_t linear(const DenseView& d, int64_t r, int64_t c) {
  return d.order == SPX_ORDER_ROW ? r * d.ld + c : r + c * d.ld;
}

/// Reads a 4-bit element: two per byte, lower index in the low nibble; signed types sign-extend.
__device__ __forceinline__ int32_t load_nibble(const void* p, int64_t i, bool is_signed) {
  const uint8_t byte = static_cast<const uint8_t*>(p)[i >> 1];
  const int32_t nib = (i & 1) ? (byte >> 4) : (byte & 0xF);
  return is_signed ? ((nib ^ 8) - 8) : nib;
}

/// Element i of an integer array (8I, 4I, 16I, 32I, 8U, 4U) as int32.
__device__ __forceinline__ int32_t load_int(const void* p, spxDataType_t t, int64_t i) {
  switch (t) {
    case SPX_R_8I: return static_cast<const int8_t*>(p)[i];
    case SPX_R_8U: return static_cast<const uint8_t*>(p)[i];
    case SPX_R_16I: return static_cast<const int16_t*>(p)[i];
    case SPX_R_32I: return static_cast<const int32_t*>(p)[i];
    case SPX_R_4I: return load_nibble(p, i, true);
    case SPX_R_4U: return load_nibble(p, i, false);
    default: return 0;
  }
}

/// Element i of a floating-point array (32F, 16F, 16BF) as float (exact for all three).
__device__ __forceinline__ float load_float(const void* p, spxDataType_t t, int64_t i) {
  switch (t) {
    case SPX_R_32F: return static_cast<const float*>(p)[i];
    case SPX_R_16F: return __half2float(static_cast<const __half*>(p)[i]);
    case SPX_R_16BF: return __bfloat162float(static_cast<const __nv_bfloat16*>(p)[i]);
    default: return static_cast<float>(load_int(p, t, i));
  }
}

/// Stores a float into element i of a 32F / 16F / 16BF array, rounding to nearest even.
__device__ __forceinline__ void store_float(void* p, spxDataType_t t, int64_t i, float v) {
  switch (t) {
    case SPX_R_32F: static_cast<float*>(p)[i] = v; break;
    case SPX_R_16F: static_cast<__half*>(p)[i] = __float2half_rn(v); break;
    case SPX_R_16BF: static_cast<__nv_bfloat16*>(p)[i] = __float2bfloat16_rn(v); break;
    default: break;
  }
}

__device__ __forceinline__ float alpha_float(const Scalars& s) {
  return s.alpha_dev ? *static_cast<const float*>(s.alpha_dev) : s.alpha_f;
}
__device__ __forceinline__ float beta_float(const Scalars& s) {
  return s.beta_dev ? *static_cast<const float*>(s.beta_dev) : s.beta_f;
}
__device__ __forceinline__ int32_t alpha_int(const Scalars& s) {
  return s.alpha_dev ? *static_cast<const int32_t*>(s.alpha_dev) : s.alpha_i;
}
__device__ __forceinline__ int32_t beta_int(const Scalars& s) {
  return s.beta_dev ? *static_cast<const int32_t*>(s.beta_dev) : s.beta_i;
}

/// Wrapping int32 arithmetic (two's complement, no undefined overflow): what int32 tensor-core
/// accumulation gives, and what the CPU reference computes in int64 before wrapping.
__device__ __forceinline__ int32_t wrap_add(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) + static_cast<uint32_t>(b));
}
__device__ __forceinline__ int32_t wrap_mul(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) * static_cast<uint32_t>(b));
}

/// Writes the epilogue alpha * acc + beta * old into element i of an output of type t.
/// beta == 0 never reads the old value (so NaN or garbage in C does not propagate).
__device__ __forceinline__ void store_result_float(void* out, spxDataType_t t, int64_t i, float acc,
                                                  const Scalars& s) {
  const float beta = beta_float(s);
  float v = alpha_float(s) * acc;
  if (beta != 0.0f) v = fmaf(beta, load_float(out, t, i), v);
  store_float(out, t, i, v);
}

/// The SpMM store of element i (row `row` of C): act(scale * alpha * acc + bias) + beta * old,
/// the plan's epilogue included (device/epilogue.cuh); the same as store_result_float without one.
__device__ __forceinline__ void store_spmm_float(void* out, spxDataType_t t, int64_t i, int64_t row,
                                                 float acc, const Scalars& s) {
  const float beta = beta_float(s);
  float v = apply_epilogue(s.epilogue, row, alpha_float(s) * acc);
  if (beta != 0.0f) v = fmaf(beta, load_float(out, t, i), v);
  store_float(out, t, i, v);
}

__device__ __forceinline__ void store_result_int(int32_t* out, int64_t i, int32_t acc,
                                                const Scalars& s) {
  const int32_t beta = beta_int(s);
  int32_t v = wrap_mul(alpha_int(s), acc);
  if (beta != 0) v = wrap_add(v, wrap_mul(beta, out[i]));
  out[i] = v;
}

}  // namespace spx::kernels
