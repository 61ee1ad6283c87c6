// Value re-packing for analyze / spxPlanUpdateValues, and uniform pruning on the device.
#include <cub/block/block_scan.cuh>

#include "families/ell/kernels/device.cuh"

namespace spx::kernels::ell {
namespace {

constexpr int kPackThreads = 256;

template <class E>
__global__ void __launch_bounds__(kPackThreads) pack_kernel(PackArgs a) {
  const E* src = static_cast<const E*>(a.src);
  E* dst = static_cast<E*>(a.dst);
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < a.count;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int32_t s = a.slot[i];
    dst[i] = s >= 0 ? src[s] : E(0);
  }
}

// ---------------------------------------------------------------- uniform pruning
//
// One block per row. The host algorithm (formats/prune_uniform) keeps, in every row, the entries
// at positions 0 .. ell_width-1 of the row sorted by decreasing magnitude (NaN as +inf, ties by
// lower column): its column-l2 scores never increase along the sorted positions, so the kept
// sorted columns are exactly the first ell_width. Here: a radix select finds the ell_width-th
// largest key T; entries with key > T are kept, and of those equal to T the lowest columns until
// ell_width are reached; a block scan then writes them in column order.

constexpr int kPruneThreads = 256;
using PruneScan = cub::BlockScan<int, kPruneThreads>;

/// Magnitude as an order-preserving integer: |v|'s bits, NaN as +inf (0x7F800000).
__device__ __forceinline__ uint32_t magnitude_bits(float v) {
  return isnan(v) ? 0x7F800000u : (__float_as_uint(v) & 0x7FFFFFFFu);
}

__global__ void __launch_bounds__(kPruneThreads) prune_kernel(PruneArgs a) {
  __shared__ int hist[256];
  __shared__ uint32_t chosen_bin;
  __shared__ int chosen_above;
  __shared__ typename PruneScan::TempStorage scan;
  const int64_t r = blockIdx.x;
  const int tid = threadIdx.x;
  auto at = [&](int64_t c) { return a.dense[a.row_major ? r * a.ld + c : r + c * a.ld]; };

  // Radix select of the ell_width-th largest key, 8 bits at a time from the top.
  uint32_t prefix = 0, mask = 0;
  int remaining = static_cast<int>(a.ell_width);
  for (int shift = 24; shift >= 0; shift -= 8) {
    hist[tid] = 0;  // kPruneThreads == 256 bins
    __syncthreads();
    for (int64_t c = tid; c < a.cols; c += kPruneThreads) {
      const uint32_t key = magnitude_bits(at(c));
      if ((key & mask) == prefix) atomicAdd(&hist[(key >> shift) & 0xFF], 1);
    }
    __syncthreads();
    if (tid == 0) {
      int above = 0, bin = 255;
      for (; bin > 0 && above + hist[bin] < remaining; --bin) above += hist[bin];
      chosen_bin = static_cast<uint32_t>(bin);
      chosen_above = above;
    }
    __syncthreads();
    prefix |= chosen_bin << shift;
    mask |= 0xFFu << shift;
    remaining -= chosen_above;
    __syncthreads();
  }
  // `remaining` entries with key == prefix are kept, the lowest columns first.
  int equal_before = 0, kept_before = 0;
  for (int64_t c0 = 0; c0 < a.cols; c0 += kPruneThreads) {
    const int64_t c = c0 + tid;
    float v = 0.0f;
    uint32_t key = 0;
    if (c < a.cols) {
      v = at(c);
      key = magnitude_bits(v);
    }
    const int eq = c < a.cols && key == prefix ? 1 : 0;
    int eq_rank = 0, eq_total = 0;
    PruneScan(scan).ExclusiveSum(eq, eq_rank, eq_total);
    __syncthreads();
    const int keep = c < a.cols && (key > prefix || (eq && equal_before + eq_rank < remaining)) ? 1 : 0;
    int pos = 0, kept_total = 0;
    PruneScan(scan).ExclusiveSum(keep, pos, kept_total);
    __syncthreads();
    if (keep) {
      const int64_t slot = r + static_cast<int64_t>(kept_before + pos) * a.rows;
      a.col_ind[slot] = static_cast<int32_t>(c);
      a.values[slot] = v;
    }
    equal_before += eq_total;
    kept_before += kept_total;
  }
}

}  // namespace

cudaError_t pack_values(const PackArgs& a, cudaStream_t stream) {
  if (a.count == 0) return cudaSuccess;
  const int64_t blocks = (a.count + kPackThreads - 1) / kPackThreads;
  const unsigned grid = static_cast<unsigned>(blocks < 65535 * 8 ? blocks : 65535 * 8);
  if (a.element_bytes == 2)
    pack_kernel<uint16_t><<<grid, kPackThreads, 0, stream>>>(a);
  else
    pack_kernel<uint32_t><<<grid, kPackThreads, 0, stream>>>(a);
  return cudaGetLastError();
}

cudaError_t pack_values_load() {
  cudaFuncAttributes attr;
  const cudaError_t err = cudaFuncGetAttributes(&attr, pack_kernel<uint16_t>);
  return err != cudaSuccess ? err : cudaFuncGetAttributes(&attr, pack_kernel<uint32_t>);
}

cudaError_t prune_uniform(const PruneArgs& a, cudaStream_t stream) {
  if (a.rows == 0) return cudaSuccess;
  if (a.rows > 0x7FFFFFFF) return cudaErrorInvalidConfiguration;
  prune_kernel<<<static_cast<unsigned>(a.rows), kPruneThreads, 0, stream>>>(a);
  return cudaGetLastError();
}

cudaError_t prune_uniform_load() {
  cudaFuncAttributes attr;
  return cudaFuncGetAttributes(&attr, prune_kernel);
}

}  // namespace spx::kernels::ell
