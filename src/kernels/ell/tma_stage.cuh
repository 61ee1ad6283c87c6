// sm_90 tensor copies (TMA) of B's chunk into shared memory for the staged SlotSplit, optionally
// multicast to every block of a thread-block cluster. Internal to src/kernels/ell.
//
// Why. Every persistent block of the decode kernel stages all of B's k x NT chunk: at 4096^2 x 16
// (fp16) that is 128 KB per SM, 17 MB through L2 for 13 MB of A, all SMs asking for the same
// lines at the same time; the staging, not A, set the time at >= 80 % sparsity (README, notes).
// With a cluster of C blocks, block r copies every C-th box of rows and the TMA unit writes it
// into the shared memory of all C blocks: L2 serves each line once per cluster instead of once
// per SM, and no thread spends instructions on the copy.
//
// Layout. The tensor map's swizzle modes reproduce staged_offset's XOR swizzle exactly (32 B
// rows: 16-byte piece bit 4 ^= address bit 7 = (c >> 2) & 1; 64 B rows: bits 4-5 ^= bits 7-8 =
// (c >> 1) & 3; 16 B rows: none), given a base aligned to the swizzle's 1024-byte period.
#pragma once

#include <cuda.h>

#include <cstdint>

#include "kernels/common/cp_async.cuh"

namespace spx::kernels::ell::detail {

/// Alignment of the TMA-staged chunk (the 128-byte swizzle's period; the 32 / 64-byte ones divide it).
constexpr int kTmaStageAlign = 1024;

#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
__device__ __forceinline__ void tma_mbar_init(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
  // The init must be visible to the other blocks' (and the TMA unit's) arrivals.
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}

__device__ __forceinline__ void tma_mbar_expect_tx(uint32_t bar, uint32_t bytes) {
  asm volatile(
      "{\n"
      ".reg .b64 state;\n"
      "mbarrier.arrive.expect_tx.shared::cta.b64 state, [%0], %1;\n"
      "}\n" ::"r"(bar),
      "r"(bytes)
      : "memory");
}

__device__ __forceinline__ void tma_mbar_wait(uint32_t bar, uint32_t parity) {
  asm volatile(
      "{\n"
      ".reg .pred done;\n"
      "WAIT_%=:\n"
      "mbarrier.try_wait.parity.shared::cta.b64 done, [%0], %1;\n"
      "@!done bra WAIT_%=;\n"
      "}\n" ::"r"(bar),
      "r"(parity)
      : "memory");
}

__device__ __forceinline__ uint32_t cluster_rank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;\n" : "=r"(r));
  return r;
}
__device__ __forceinline__ void cluster_arrive() {
  asm volatile("barrier.cluster.arrive.release.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void cluster_wait() {
  asm volatile("barrier.cluster.wait.acquire.aligned;\n" ::: "memory");
}

/// Box (column c0, row c1) of the 2-D map into this block's shared memory at dst.
__device__ __forceinline__ void tma_copy_2d(uint32_t dst, const CUtensorMap* map, int c0, int c1,
                                            uint32_t bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3}], [%4];\n" ::"r"(dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(bar)
      : "memory");
}

/// The same box into the shared memory (same offset) of every block in `mask`, each block's
/// mbarrier at offset `bar` counting the bytes.
__device__ __forceinline__ void tma_copy_2d_multicast(uint32_t dst, const CUtensorMap* map, int c0,
                                                      int c1, uint32_t bar, uint16_t mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      ".multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;\n" ::"r"(dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(bar), "h"(mask)
      : "memory");
}

/// Stages B[:, n0 : n0 + NT] (boxes x box_rows rows of row_bytes; rows past k and columns past n
/// zero-filled by the TMA unit) at `bs` (kTmaStageAlign-aligned), the mbarrier right after it.
/// With cluster > 1 block r of the cluster copies boxes r, r + C, ... to all C blocks. Every
/// thread of the block calls it; it returns when this block's chunk has landed. A cluster then
/// owes one cluster_wait() before any of its blocks exits (tma_stage_finish).
__device__ __forceinline__ void tma_stage(const CUtensorMap* map, int64_t n0, int cluster,
                                          int box_rows, int boxes, int row_bytes,
                                          unsigned char* bs) {
  const uint32_t base = smem_address(bs);
  const uint32_t box_bytes = static_cast<uint32_t>(box_rows) * static_cast<uint32_t>(row_bytes);
  const uint32_t bar = base + box_bytes * static_cast<uint32_t>(boxes);
  if (threadIdx.x == 0) tma_mbar_init(bar, 1);
  if (cluster > 1) {
    // Every block's mbarrier is initialised before any block's multicast can reach it.
    cluster_arrive();
    cluster_wait();
  } else {
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    tma_mbar_expect_tx(bar, box_bytes * static_cast<uint32_t>(boxes));
    const int rank = cluster > 1 ? static_cast<int>(cluster_rank()) : 0;
    const uint16_t mask = static_cast<uint16_t>((1u << cluster) - 1u);
    // Each cluster starts at its own box: all clusters stage the same chunk at once, and starting
    // together they would ask the same L2 lines at the same time (measured: that hot spot made
    // the copies slower than the threads' rotated ones).
    const int clusters = static_cast<int>(gridDim.x) / cluster;
    const int rot = static_cast<int>(blockIdx.x) / cluster * boxes / (clusters > 0 ? clusters : 1);
    for (int i = rank; i < boxes; i += cluster) {
      const int b = i + rot < boxes ? i + rot : i + rot - boxes;
      const uint32_t dst = base + box_bytes * static_cast<uint32_t>(b);
      if (cluster > 1)
        tma_copy_2d_multicast(dst, map, static_cast<int>(n0), b * box_rows, bar, mask);
      else
        tma_copy_2d(dst, map, static_cast<int>(n0), b * box_rows, bar);
    }
  }
  tma_mbar_wait(bar, 0);
  // The copies this block issued into the others' shared memory must land before it exits:
  // arrive now, wait at the end (tma_stage_finish).
  if (cluster > 1) asm volatile("barrier.cluster.arrive.relaxed.aligned;\n" ::: "memory");
}

__device__ __forceinline__ void tma_stage_finish(int cluster) {
  if (cluster > 1) cluster_wait();
}
#endif

}  // namespace spx::kernels::ell::detail
