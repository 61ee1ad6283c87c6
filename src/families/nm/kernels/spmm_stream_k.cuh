// Stream-K's meeting of parts (stream_k.hpp: the schedule, and why) for the tensor-copy kernel
// (spmm_bulk.cuh, kStreamK): a segment of a tile that is not the whole tile publishes each warp's
// partial product, and the tile's last part to arrive adds the parts in their order along k. The
// parts meet per warp (every block maps its warps to the same rows and columns), so no
// block-wide barrier is added.
#pragma once

#include <cstdint>

#include "families/nm/kernels/launch.hpp"
#include "families/nm/kernels/stream_k.hpp"

namespace spx::kernels::nm::detail {

__device__ __forceinline__ float4 add4(float4 x, float4 y) {
  return make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
}

/// The thread's outputs as float4 chunks: chunk q is row q / kChunks, columns 4 (q % kChunks)..
template <class T>
__device__ __forceinline__ float4 acc_chunk(const float (&acc)[T::kTM][T::kTN], int q) {
  const int i = q / T::kChunks, c = 4 * (q % T::kChunks);
  return make_float4(acc[i][c], acc[i][c + 1], acc[i][c + 2], acc[i][c + 3]);
}
template <class T>
__device__ __forceinline__ void set_acc_chunk(float (&acc)[T::kTM][T::kTN], int q, float4 v) {
  const int i = q / T::kChunks, c = 4 * (q % T::kChunks);
  acc[i][c] = v.x;
  acc[i][c + 1] = v.y;
  acc[i][c + 2] = v.z;
  acc[i][c + 3] = v.w;
}

/// A partial segment of tile `tile` computed by stream-K block j, in `acc`. The warp writes its
/// part to block j's slot and counts it on the tile's counter for this warp. When it is the last
/// of the tile's parts to arrive, it folds the parts into `acc` in their order along k,
/// ((p0 + p1) + p2) with its own part in its place, so the sum does not depend on the order of
/// arrival, and returns true: the caller stores the tile. Otherwise returns false.
template <class T>
__device__ __forceinline__ bool stream_k_part(const StreamKArgs& sk,
                                              float (&acc)[T::kTM][T::kTN], int64_t tile,
                                              int64_t j) {
  constexpr int kQ = T::kTM * T::kTN / 4;  // float4 chunks per thread
  constexpr int kBatch = kQ / 4;           // chunks folded at once (registers)
  constexpr int64_t kSlotChunks = static_cast<int64_t>(T::kBM) * T::kBN / 4;
  const StreamKSchedule& s = sk.schedule;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  // Chunk q of a thread's part at [slot][q][thread]: a warp's stores and loads are 512
  // contiguous bytes.
  const float4* parts = reinterpret_cast<const float4*>(sk.partials) + threadIdx.x;
  float4* mine =
      reinterpret_cast<float4*>(sk.partials) + threadIdx.x + s.slot(j, tile) * kSlotChunks;
  // Element stores: a 16-byte store straight from the accumulators makes ptxas keep each chunk
  // in four consecutive registers for the whole kernel, and that layout costs the inner loop's
  // FFMA register-bank conflicts (SASS: 3-4x the conflicting operand pairs of spmm_bulk_kernel;
  // H100, 4096^3 at 62.5 %: the kernel 17 % slower per tile).
#pragma unroll
  for (int q = 0; q < kQ; ++q) {
    const float4 v = acc_chunk<T>(acc, q);
    float* out = reinterpret_cast<float*>(mine + q * T::kThreads);
    __stcg(out, v.x);
    __stcg(out + 1, v.y);
    __stcg(out + 2, v.z);
    __stcg(out + 3, v.w);
  }
  // Every lane's stores happen before lane 0's release (the warp barrier orders them, the
  // release is cumulative); its acquire, if it is last, before every lane's loads below.
  __syncwarp();
  unsigned arrived = 0;
  if (lane == 0) {
    uint32_t* counter = sk.counters + (tile - s.dp_tiles) * (T::kThreads / 32) + warp;
    asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;\n"
                 : "=r"(arrived)
                 : "l"(counter)
                 : "memory");
  }
  arrived = __shfl_sync(0xFFFFFFFFu, arrived, 0);
  const int64_t first = s.first_block(tile);
  const int count = static_cast<int>(s.last_block(tile) - first + 1);
  if (static_cast<int>(arrived) != count - 1) return false;
  __syncwarp();
  const int own = static_cast<int>(j - first);
  auto part = [&](int p, int q) {
    return __ldcg(parts + s.slot(first + p, tile) * kSlotChunks + q * T::kThreads);
  };
#pragma unroll
  for (int h = 0; h < kQ; h += kBatch) {
    if (own > 0) {
      // The parts before this one, summed in order, then this one added to them.
      float4 before[kBatch];
#pragma unroll
      for (int q = 0; q < kBatch; ++q) before[q] = part(0, h + q);
      for (int p = 1; p < own; ++p)
#pragma unroll
        for (int q = 0; q < kBatch; ++q) before[q] = add4(before[q], part(p, h + q));
#pragma unroll
      for (int q = 0; q < kBatch; ++q)
        set_acc_chunk<T>(acc, h + q, add4(before[q], acc_chunk<T>(acc, h + q)));
    }
    for (int p = own + 1; p < count; ++p)
#pragma unroll
      for (int q = 0; q < kBatch; ++q)
        set_acc_chunk<T>(acc, h + q, add4(acc_chunk<T>(acc, h + q), part(p, h + q)));
  }
  return true;
}

}  // namespace spx::kernels::nm::detail
