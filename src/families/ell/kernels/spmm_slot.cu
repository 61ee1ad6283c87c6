// SlotSplit with B gathered from global memory (through L1): G lanes per row split the row's
// ELL slots; each lane keeps NT fp32 accumulators (NT output columns); shuffles reduce the G
// partial sums. One block column (grid.y) per NT output columns. The variant with B staged in
// shared memory (the decode kernel the rule picks) is in spmm_slot_staged.cu.
#include "families/ell/kernels/device.cuh"

namespace spx::kernels::ell {
namespace {

using detail::load_row;
using detail::load_slots;
using detail::to_float;

/// acc[j] += v * B[c, n0 + j] for the ncols columns left in this chunk.
template <class T, int NT>
__device__ __forceinline__ void gather_fma(float (&acc)[NT], float v, int c, const T* B, int64_t ld,
                                           int64_t n0, int ncols, bool b_row, bool b_vec) {
  if (b_row) {
    const T* p = B + static_cast<int64_t>(c) * ld + n0;
    if (b_vec) {
      float b[NT];
      load_row<T, NT>(p, b);
#pragma unroll
      for (int j = 0; j < NT; ++j) acc[j] = fmaf(v, b[j], acc[j]);
    } else {
#pragma unroll
      for (int j = 0; j < NT; ++j)
        if (j < ncols) acc[j] = fmaf(v, to_float(__ldg(p + j)), acc[j]);
    }
  } else {
    const T* p = B + c + n0 * ld;
#pragma unroll
    for (int j = 0; j < NT; ++j)
      if (j < ncols) acc[j] = fmaf(v, to_float(__ldg(p + j * ld)), acc[j]);
  }
}

/// The row walk: this lane's share of row `row` (its ELL slots, then its
/// HYB overflow), every (value, column) handed to `gather`.
template <class T, class I, class Gather>
__device__ __forceinline__ void row_product(const SpmmArgs& a, int64_t row, int sub, int lanes,
                                            Gather&& gather) {
  const T* values = static_cast<const T*>(a.values);
  const I* indices = static_cast<const I*>(a.indices);
  const int len = a.row_len[row];
  const int64_t start = row * a.stride;
  const T* vals = values + start;
  const I* idx = indices + start;
  // Rows start anywhere (no alignment padding in the plan): the slots before the first
  // 8-aligned one are taken one per lane, the rest 8 per lane with 16 B loads.
  const int head = static_cast<int>((kSlotVector - start % kSlotVector) % kSlotVector);
  for (int q = sub; q < head && q < len; q += lanes)
    gather(to_float(vals[q]), static_cast<int>(idx[q]));
  // Two steps per iteration: both steps' A loads are in flight before the gathers start.
  const int stride = lanes * kSlotVector;
  for (int p = head + sub * kSlotVector; p < len; p += 2 * stride) {
    const int p2 = p + stride;
    float v[2][kSlotVector];
    int c[2][kSlotVector];
    load_slots(vals + p, v[0]);
    load_slots(idx + p, c[0]);
    if (p2 < len) {
      load_slots(vals + p2, v[1]);
      load_slots(idx + p2, c[1]);
    }
#pragma unroll
    for (int e = 0; e < kSlotVector; ++e)
      if (p + e < len) gather(v[0][e], c[0][e]);
    if (p2 < len) {
#pragma unroll
      for (int e = 0; e < kSlotVector; ++e)
        if (p2 + e < len) gather(v[1][e], c[1][e]);
    }
  }
  if (a.tail_ptr != nullptr) {  // HYB: this row's overflow, one slot per lane and step
    const int64_t base = a.m * a.stride;
    const int end = a.tail_ptr[row + 1];
    for (int t = a.tail_ptr[row] + sub; t < end; t += lanes)
      gather(to_float(values[base + t]), static_cast<int>(indices[base + t]));
  }
}

/// Sums the partial products of a row's `lanes` lanes and writes its ncols outputs (lane j of
/// the group writes column j). Every lane of the warp must call it.
template <int NT>
__device__ __forceinline__ void reduce_and_store(const SpmmArgs& a, float (&acc)[NT], int64_t row,
                                                 bool active, int sub, int lanes, int64_t n0,
                                                 int ncols) {
  for (int off = lanes >> 1; off > 0; off >>= 1)
#pragma unroll
    for (int j = 0; j < NT; ++j) acc[j] += __shfl_xor_sync(0xffffffffu, acc[j], off);
  if (!active) return;
  const float alpha = alpha_float(a.scalars), beta = beta_float(a.scalars);
#pragma unroll
  for (int j = 0; j < NT; ++j)
    if ((j & (lanes - 1)) == sub && j < ncols)
      detail::store_out(a.C, a.scalars.epilogue, row, n0 + j, acc[j], alpha, beta);
}

template <class T, class I, int NT>
__global__ void __launch_bounds__(kBlockThreads)
    slot_split_kernel(SpmmArgs a, int lanes_log2, bool b_vec) {
  const int lanes = 1 << lanes_log2;
  const int sub = threadIdx.x & (lanes - 1);
  const int64_t row =
      (static_cast<int64_t>(blockIdx.x) * kBlockThreads + threadIdx.x) >> lanes_log2;
  const int64_t n0 = static_cast<int64_t>(blockIdx.y) * NT;
  const int ncols = static_cast<int>(a.n - n0 < NT ? a.n - n0 : NT);
  const bool active = row < a.m;
  const T* B = static_cast<const T*>(a.B.ptr);
  const bool b_row = a.B.order == SPX_ORDER_ROW;

  float acc[NT];
#pragma unroll
  for (int j = 0; j < NT; ++j) acc[j] = 0.0f;
  if (active)
    row_product<T, I>(a, row, sub, lanes, [&](float v, int c) {
      gather_fma<T, NT>(acc, v, c, B, a.B.ld, n0, ncols, b_row, b_vec);
    });
  reduce_and_store<NT>(a, acc, row, active, sub, lanes, n0, ncols);
}

using Fn = void (*)(SpmmArgs, int, bool);

template <class T, class I>
Fn pick_nt(int nt) {
  switch (nt) {
    case 1: return slot_split_kernel<T, I, 1>;
    case 4: return slot_split_kernel<T, I, 4>;
    case 8: return slot_split_kernel<T, I, 8>;
    default: return slot_split_kernel<T, I, 16>;
  }
}

Fn pick(bool half, bool index16, int nt) {
  if (half) return index16 ? pick_nt<__half, uint16_t>(nt) : pick_nt<__half, int32_t>(nt);
  return index16 ? pick_nt<float, uint16_t>(nt) : pick_nt<float, int32_t>(nt);
}

}  // namespace

cudaError_t launch_slot_split(const SpmmArgs& a, const EllConfig& launch, cudaStream_t stream) {
  const auto* c = std::get_if<SlotSplitConfig>(&launch.kernel);
  if (c == nullptr) return cudaErrorInvalidValue;
  const SlotSplitConfig& cfg = *c;
  const CallLaunch& l = launch.call;
  int lanes_log2 = 0;
  while ((1 << lanes_log2) < cfg.lanes) ++lanes_log2;
  if ((1 << lanes_log2) != cfg.lanes || lanes_log2 > 5) return cudaErrorInvalidValue;
  // l.b_vec: vector loads of B's rows (plan/call.hpp checked B's alignment for them).
  const unsigned chunks = static_cast<unsigned>((a.n + cfg.nt - 1) / cfg.nt);
  const int64_t threads = a.m << lanes_log2;
  const dim3 grid(static_cast<unsigned>((threads + kBlockThreads - 1) / kBlockThreads), chunks);
  pick(a.half, a.index16, cfg.nt)<<<grid, kBlockThreads, 0, stream>>>(a, lanes_log2, l.b_vec);
  return cudaGetLastError();
}

cudaError_t load_slot_split(bool half, bool index16, size_t smem_optin) {
  cudaFuncAttributes attr;
  for (int nt : kSlotNts) {
    const cudaError_t err = cudaFuncGetAttributes(&attr, pick(half, index16, nt));
    if (err != cudaSuccess) return err;
  }
  return load_slot_staged(half, index16, smem_optin);
}

}  // namespace spx::kernels::ell
