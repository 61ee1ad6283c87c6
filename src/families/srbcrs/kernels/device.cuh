// Device helpers of the SR-BCRS kernels: shared loads and the int8 mma (cp.async is in
// device/cp_async.cuh; the byte-level mapping, transpose and int4 unpacking in
// lane_map.hpp). Internal to src/kernels/srbcrs.
#pragma once

#include <cstdint>
#include <type_traits>
#include <utility>

#include "device/cp_async.cuh"

namespace spx::kernels::srbcrs::detail {

__device__ __forceinline__ uint32_t lds32(const void* p) {
  return *static_cast<const uint32_t*>(p);
}
__device__ __forceinline__ uint2 lds64(const void* p) {
  return *static_cast<const uint2*>(p);
}

/// D += A * B with mma.sync.aligned.m16n8k32.row.col.s32.{s8|u8}.{s8|u8}.s32 (PTX ISA, "Matrix
/// Fragments for mma.m16n8k32", groupID g = lane / 4, threadID_in_group t = lane % 4):
///   a[0]: row g,     k = 4t .. 4t+3       a[1]: row g + 8, k = 4t .. 4t+3
///   a[2]: row g,     k = 16+4t .. 16+4t+3 a[3]: row g + 8, k = 16+4t .. 16+4t+3
///   b[0]: col g,     k = 4t .. 4t+3       b[1]: col g,     k = 16+4t .. 16+4t+3
///   d[0], d[1]: row g, cols 2t, 2t+1      d[2], d[3]: row g + 8, cols 2t, 2t+1
/// (the lowest byte of a register is the lowest k). Without .satfinite the s32 sums wrap.
template <bool ASigned, bool BSigned>
__device__ __forceinline__ void mma_m16n8k32(int32_t (&d)[4], const uint32_t (&a)[4], uint32_t b0,
                                             uint32_t b1) {
  if constexpr (ASigned && BSigned) {
    asm volatile(
        "mma.sync.aligned.m16n8k32.row.col.s32.s8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  } else if constexpr (ASigned && !BSigned) {
    asm volatile(
        "mma.sync.aligned.m16n8k32.row.col.s32.s8.u8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  } else if constexpr (!ASigned && BSigned) {
    asm volatile(
        "mma.sync.aligned.m16n8k32.row.col.s32.u8.s8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  } else {
    asm volatile(
        "mma.sync.aligned.m16n8k32.row.col.s32.u8.u8.s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
        "{%0,%1,%2,%3};\n"
        : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])
        : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
  }
}

/// D += A * B with mma.sync.aligned.m16n8k64.row.col.s32.{s4|u4}.{s4|u4}.s32 (sm_80's native int4
/// rate; Hopper runs it ~18x slower than m16n8k32 s8). The fragments are those of m16n8k32 with
/// 8 nibbles per register in place of 4 bytes (lowest nibble = lowest k):
///   a[0]: row g,     k = 8t .. 8t+7       a[1]: row g + 8, k = 8t .. 8t+7
///   a[2]: row g,     k = 32+8t .. 32+8t+7 a[3]: row g + 8, k = 32+8t .. 32+8t+7
///   b[0]: col g,     k = 8t .. 8t+7       b[1]: col g,     k = 32+8t .. 32+8t+7
///   d as m16n8k32.
template <bool ASigned, bool BSigned>
__device__ __forceinline__ void mma_m16n8k64(int32_t (&d)[4], const uint32_t (&a)[4], uint32_t b0,
                                             uint32_t b1) {
#define SPX_SRBCRS_MMA_K64(TA, TB)                                                              \
  asm volatile("mma.sync.aligned.m16n8k64.row.col.s32." TA "." TB                              \
               ".s32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%0,%1,%2,%3};\n"                 \
               : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3])                                 \
               : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1))
  if constexpr (ASigned && BSigned) {
    SPX_SRBCRS_MMA_K64("s4", "s4");
  } else if constexpr (ASigned && !BSigned) {
    SPX_SRBCRS_MMA_K64("s4", "u4");
  } else if constexpr (!ASigned && BSigned) {
    SPX_SRBCRS_MMA_K64("u4", "s4");
  } else {
    SPX_SRBCRS_MMA_K64("u4", "u4");
  }
#undef SPX_SRBCRS_MMA_K64
}

/// Calls f(std::integral_constant<int, 0>) .. f(std::integral_constant<int, N - 1>): a loop whose
/// index is a compile-time constant (an mma's operand signedness is part of the instruction).
template <typename F, int... Is>
__device__ __forceinline__ void static_for_impl(F&& f, std::integer_sequence<int, Is...>) {
  (f(std::integral_constant<int, Is>{}), ...);
}
template <int N, typename F>
__device__ __forceinline__ void static_for(F&& f) {
  static_for_impl(f, std::make_integer_sequence<int, N>{});
}

}  // namespace spx::kernels::srbcrs::detail
