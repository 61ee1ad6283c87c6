// Device helpers shared by the ELL kernels: typed vector loads of A's slots and B's rows
// (fp32 accumulation of fp32 / fp16 data) and the epilogue. Internal to src/kernels/ell.
#pragma once

#include <cuda_fp16.h>

#include <cstdint>

#include "device/elements.cuh"
#include "families/ell/kernels/ell.hpp"

namespace spx::kernels::ell::detail {

__device__ __forceinline__ float to_float(float x) { return x; }
__device__ __forceinline__ float to_float(__half x) { return __half2float(x); }

/// Unpacks 16 B of data into floats / ints.
__device__ __forceinline__ void unpack(const uint4& u, float (&out)[4]) {
  out[0] = __uint_as_float(u.x);
  out[1] = __uint_as_float(u.y);
  out[2] = __uint_as_float(u.z);
  out[3] = __uint_as_float(u.w);
}
__device__ __forceinline__ void unpack(const uint4& u, __half (&)[8], float (&out)[8]) {
  const uint32_t w[4] = {u.x, u.y, u.z, u.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    __half2 h = *reinterpret_cast<const __half2*>(&w[i]);
    const float2 f = __half22float2(h);
    out[2 * i] = f.x;
    out[2 * i + 1] = f.y;
  }
}

/// 8 consecutive slots of values (16 B aligned for fp16, 32 B for fp32), as float.
__device__ __forceinline__ void load_slots(const float* p, float (&v)[8]) {
  float a[4], b[4];
  unpack(__ldg(reinterpret_cast<const uint4*>(p)), a);
  unpack(__ldg(reinterpret_cast<const uint4*>(p) + 1), b);
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    v[i] = a[i];
    v[4 + i] = b[i];
  }
}
__device__ __forceinline__ void load_slots(const __half* p, float (&v)[8]) {
  __half tag[8];
  unpack(__ldg(reinterpret_cast<const uint4*>(p)), tag, v);
}
/// 8 consecutive column indices.
__device__ __forceinline__ void load_slots(const uint16_t* p, int (&c)[8]) {
  const uint4 u = __ldg(reinterpret_cast<const uint4*>(p));
  const uint32_t w[4] = {u.x, u.y, u.z, u.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    c[2 * i] = static_cast<int>(w[i] & 0xFFFFu);
    c[2 * i + 1] = static_cast<int>(w[i] >> 16);
  }
}
__device__ __forceinline__ void load_slots(const int32_t* p, int (&c)[8]) {
  const int4 a = __ldg(reinterpret_cast<const int4*>(p));
  const int4 b = __ldg(reinterpret_cast<const int4*>(p) + 1);
  c[0] = a.x; c[1] = a.y; c[2] = a.z; c[3] = a.w;
  c[4] = b.x; c[5] = b.y; c[6] = b.z; c[7] = b.w;
}

/// N consecutive elements of B's row at p as float, with the widest loads N * sizeof(T) allows
/// (the caller guarantees that alignment).
template <class T, int N>
__device__ __forceinline__ void load_row(const T* p, float (&out)[N]) {
  constexpr int kBytes = N * static_cast<int>(sizeof(T));
  if constexpr (kBytes >= 16) {
    constexpr int kPer = 16 / static_cast<int>(sizeof(T));
#pragma unroll
    for (int q = 0; q < N / kPer; ++q) {
      const uint4 u = __ldg(reinterpret_cast<const uint4*>(p) + q);
      if constexpr (sizeof(T) == 4) {
        float f[4];
        unpack(u, f);
#pragma unroll
        for (int i = 0; i < 4; ++i) out[q * 4 + i] = f[i];
      } else {
        __half tag[8];
        float f[8];
        unpack(u, tag, f);
#pragma unroll
        for (int i = 0; i < 8; ++i) out[q * 8 + i] = f[i];
      }
    }
  } else if constexpr (kBytes == 8) {
    const uint2 u = __ldg(reinterpret_cast<const uint2*>(p));
    if constexpr (sizeof(T) == 4) {
      out[0] = __uint_as_float(u.x);
      out[1] = __uint_as_float(u.y);
    } else {
      const float2 a = __half22float2(*reinterpret_cast<const __half2*>(&u.x));
      const float2 b = __half22float2(*reinterpret_cast<const __half2*>(&u.y));
      out[0] = a.x; out[1] = a.y; out[2] = b.x; out[3] = b.y;
    }
  } else {
#pragma unroll
    for (int i = 0; i < N; ++i) out[i] = to_float(__ldg(p + i));
  }
}

/// Bytes of the widest load load_row<T, N> issues (the alignment B must have for it).
constexpr int row_load_bytes(int n, int elem) { return n * elem >= 16 ? 16 : n * elem; }

/// epilogue(alpha * acc) + beta * C[r, c] into C (fp32 or fp16), with the plan's fused epilogue
/// of row r (device/epilogue.cuh; nothing when off); beta == 0 never reads C.
__device__ __forceinline__ void store_out(const DenseView& C, const Epilogue& ep, int64_t r,
                                          int64_t c, float acc, float alpha, float beta) {
  const int64_t i = linear(C, r, c);
  float v = apply_epilogue(ep, r, alpha * acc);
  if (C.type == SPX_R_32F) {
    float* p = static_cast<float*>(C.ptr);
    if (beta != 0.0f) v = fmaf(beta, p[i], v);
    p[i] = v;
  } else {
    __half* p = static_cast<__half*>(C.ptr);
    if (beta != 0.0f) v = fmaf(beta, __half2float(p[i]), v);
    p[i] = __float2half_rn(v);
  }
}

}  // namespace spx::kernels::ell::detail

namespace spx::kernels::ell {

namespace detail {
/// Blocks of `kernel` that fit on one SM with this block size and dynamic shared memory (the
/// occupancy query; 0 when it fails). Asked at analyze (resident_blocks in ell.hpp), never
/// per launch.
int occupancy(const void* kernel, int threads, size_t smem);
/// Loads `kernel` now (cudaFuncGetAttributes; otherwise its module loads lazily, on the first
/// execute) and, when `smem_optin` > 0, lets it use that many bytes of dynamic shared memory.
cudaError_t load_kernel(const void* kernel, size_t smem_optin);
}  // namespace detail

// Per-kernel launchers (spmm_slot*.cu, spmm_row*.cu), dispatched by spmm() in spmm_launch.cu:
// each takes its kernel's configuration in cfg.kernel (another kind: refused) and the call's
// choices in cfg.call, launches, or refuses with a cudaError. b_rows / ldb: B's rows as the row
// kernels read them (cfg.call's: the user's B, or B^T in the workspace).
cudaError_t launch_slot_split(const SpmmArgs& a, const EllConfig& cfg, cudaStream_t stream);
cudaError_t load_slot_split(bool half, bool index16, size_t smem_optin);
cudaError_t launch_slot_staged(const SpmmArgs& a, const EllConfig& cfg, cudaStream_t stream);
cudaError_t load_slot_staged(bool half, bool index16, size_t smem_optin);
int slot_staged_occupancy(const SlotStagedConfig& cfg, bool half, bool index16, int64_t k,
                          bool bulk);
cudaError_t launch_row_staged(const SpmmArgs& a, const EllConfig& cfg, const void* b_rows,
                              int64_t ldb, cudaStream_t stream);
cudaError_t load_row_staged(bool half, bool index16, size_t smem_optin);
int row_staged_occupancy(const RowStagedConfig& cfg, bool half, bool index16, int64_t k);
cudaError_t launch_row_mma(const SpmmArgs& a, const EllConfig& cfg, const void* b_rows, int64_t ldb,
                           cudaStream_t stream);
cudaError_t load_row_mma(bool half, bool index16, size_t smem_optin);
int row_mma_occupancy(const RowMmaConfig& cfg, bool index16, int64_t k);
/// DenseMma: the tensor-core GEMM of the plan's dense A (a.dense_a, densify_dense_a) with B.
cudaError_t launch_dense_mma(const SpmmArgs& a, const EllConfig& cfg, const void* b_rows,
                             int64_t ldb, cudaStream_t stream);
cudaError_t load_dense_mma(bool half, bool index16, size_t smem_optin);
cudaError_t launch_row_tile(const SpmmArgs& a, const EllConfig& cfg, const void* b_rows,
                            int64_t ldb, cudaStream_t stream);
cudaError_t load_row_tile(bool half, bool index16);
cudaError_t launch_transpose(const DenseView& B, int64_t k, int64_t n, bool half, void* out,
                             int64_t ld_out, cudaStream_t stream);
cudaError_t load_transpose(bool half);

}  // namespace spx::kernels::ell
