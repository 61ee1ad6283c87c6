// Asynchronous global -> shared copies (cp.async, sm_80+) and shared-memory addresses, shared by
// the kernel families. The source size operand zero-fills the rest of the destination, which is
// how the kernels load tiles that run past a matrix edge without branches.
#pragma once

#include <cstdint>

namespace spx::kernels {

/// The 32-bit shared-state-space address of a pointer into shared memory.
__device__ __forceinline__ uint32_t smem_address(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

/// Where a 16-byte copy leaves its line: `L1` (.ca) when neighbouring threads or blocks on the
/// SM read the same bytes soon (gathered rows, indices), `L2Only` (.cg) for streamed tiles.
enum class CpCache { L1, L2Only };

/// 16-byte copy to shared address `dst`; only `src_bytes` (0..16) are read, the rest is zeroed.
template <CpCache kCache = CpCache::L2Only>
__device__ __forceinline__ void cp_async16(uint32_t dst, const void* src, int src_bytes) {
  if constexpr (kCache == CpCache::L1)
    asm volatile("cp.async.ca.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
                 "r"(src_bytes)
                 : "memory");
  else
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src),
                 "r"(src_bytes)
                 : "memory");
}
template <CpCache kCache = CpCache::L2Only>
__device__ __forceinline__ void cp_async16(void* dst, const void* src, int src_bytes) {
  cp_async16<kCache>(smem_address(dst), src, src_bytes);
}

/// A 4-, 8- or 16-byte copy through L1 (.ca; .cg takes 16 bytes only): src_bytes (0..kBytes)
/// are read, the rest of the kBytes is zeroed.
template <int kBytes>
__device__ __forceinline__ void cp_async_ca(void* dst, const void* src, int src_bytes) {
  static_assert(kBytes == 4 || kBytes == 8 || kBytes == 16, "cp.async copies 4, 8 or 16 bytes");
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(smem_address(dst)),
               "l"(src), "n"(kBytes), "r"(src_bytes)
               : "memory");
}
__device__ __forceinline__ void cp_async4(void* dst, const void* src, int src_bytes) {
  cp_async_ca<4>(dst, src, src_bytes);
}

__device__ __forceinline__ void cp_async_commit() {
  asm volatile("cp.async.commit_group;\n" ::: "memory");
}

/// Waits until at most `kPending` of this thread's committed groups are still in flight.
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending) : "memory");
}

}  // namespace spx::kernels
