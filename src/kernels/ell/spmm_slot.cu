// SlotSplit: G lanes per row split the row's ELL slots; each lane keeps NT fp32 accumulators
// (NT output columns); shuffles reduce the G partial sums. For small n (decode): A's slots are
// the bytes that matter and are streamed with 16 B coalesced loads; the split over the ELL
// width keeps every SM busy when m is small. One block column (grid.y) per NT output columns.
//
// Two variants share the row walk (`row_product`): B gathered from global memory (through L1),
// and B's k x NT chunk staged once per block in shared memory, with persistent blocks walking
// the rows (EllConfig::stage_b says why).
#include <type_traits>

#include "kernels/ell/device.cuh"

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

/// NT elements of a staged B row (NT * sizeof(T) bytes, aligned to that size up to 16 B).
template <class T, int NT>
__device__ __forceinline__ void load_staged_row(const T* p, float (&out)[NT]) {
  constexpr int kBytes = NT * static_cast<int>(sizeof(T));
  if constexpr (kBytes >= 16) {
    constexpr int kPer = 16 / static_cast<int>(sizeof(T));
#pragma unroll
    for (int q = 0; q < NT / kPer; ++q) {
      const uint4 u = reinterpret_cast<const uint4*>(p)[q];
      if constexpr (sizeof(T) == 4) {
        float f[4];
        detail::unpack(u, f);
#pragma unroll
        for (int i = 0; i < 4; ++i) out[q * 4 + i] = f[i];
      } else {
        __half tag[8];
        float f[8];
        detail::unpack(u, tag, f);
#pragma unroll
        for (int i = 0; i < 8; ++i) out[q * 8 + i] = f[i];
      }
    }
  } else {
#pragma unroll
    for (int i = 0; i < NT; ++i) out[i] = to_float(p[i]);
  }
}

/// The row walk shared by both variants: this lane's share of row `row` (its ELL slots, then its
/// HYB overflow), every (value, column) handed to `gather`.
template <class T, class I, class Gather>
__device__ __forceinline__ void row_product(const SpmmArgs& a, int64_t row, int sub, int lanes,
                                            Gather&& gather) {
  const T* values = static_cast<const T*>(a.values);
  const I* indices = static_cast<const I*>(a.indices);
  const int len = a.row_len[row];
  const int64_t start = row * a.width;
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
    const int64_t base = a.m * a.width;
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
      detail::store_out(a.C, row, n0 + j, acc[j], alpha, beta);
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

__device__ __forceinline__ void prefetch_l2(const void* p) {
  asm volatile("prefetch.global.L2 [%0];" ::"l"(p));
}

/// Copies B[:, n0 : n0 + ncols] into bs[k][NT] (row r at r * NT), zero in the columns past ncols,
/// so the gathers need no column guard. `b_vec`: row-major B whose chunk rows can be read as
/// whole NT * sizeof(T)-byte vectors (ncols == NT and aligned).
template <class T, int NT>
__device__ __forceinline__ void stage_b_chunk(const SpmmArgs& a, int64_t n0, int ncols, bool b_vec,
                                              T* bs) {
  const T* B = static_cast<const T*>(a.B.ptr);
  const int64_t ld = a.B.ld;
  constexpr int kBytes = NT * static_cast<int>(sizeof(T));
  if (b_vec && kBytes >= 4) {
    // One row of the chunk per thread and step, copied as 16 / 8 / 4-byte words.
    using Word = typename std::conditional<
        kBytes >= 16, uint4, typename std::conditional<kBytes == 8, uint2, uint32_t>::type>::type;
    constexpr int kWords =
        kBytes / static_cast<int>(sizeof(Word)) > 0 ? kBytes / static_cast<int>(sizeof(Word)) : 1;
#pragma unroll 4
    for (int64_t r = threadIdx.x; r < a.k; r += blockDim.x) {
      const Word* src = reinterpret_cast<const Word*>(B + r * ld + n0);
      Word* dst = reinterpret_cast<Word*>(bs + r * NT);
#pragma unroll
      for (int w = 0; w < kWords; ++w) dst[w] = __ldg(src + w);
    }
  } else if (a.B.order == SPX_ORDER_ROW) {
    const int64_t total = a.k * NT;
#pragma unroll 4
    for (int64_t i = threadIdx.x; i < total; i += blockDim.x) {
      const int64_t r = i / NT;
      const int j = static_cast<int>(i % NT);
      bs[i] = j < ncols ? __ldg(B + r * ld + n0 + j) : T(0.0f);
    }
  } else {
    // Column-major: consecutive threads read consecutive rows of one column (coalesced).
    for (int j = 0; j < NT; ++j) {
      const T* col = B + (n0 + j) * ld;
#pragma unroll 4
      for (int64_t r = threadIdx.x; r < a.k; r += blockDim.x)
        bs[r * NT + j] = j < ncols ? __ldg(col + r) : T(0.0f);
    }
  }
}

template <class T, class I, int NT>
__global__ void __launch_bounds__(kStagedThreads)
    slot_split_staged_kernel(SpmmArgs a, int lanes_log2, bool b_vec) {
  extern __shared__ __align__(16) unsigned char smem[];
  T* bs = reinterpret_cast<T*>(smem);
  const int64_t n0 = static_cast<int64_t>(blockIdx.y) * NT;
  const int ncols = static_cast<int>(a.n - n0 < NT ? a.n - n0 : NT);
  const int lanes = 1 << lanes_log2;
  const int sub = threadIdx.x & (lanes - 1);
  const int64_t rows_per_pass = kStagedThreads >> lanes_log2;
  {
    // Start the first pass's A loads towards L2 before staging B: at decode sizes a block makes
    // one or two passes, so staging and A's DRAM latency would otherwise add up.
    const int64_t row =
        static_cast<int64_t>(blockIdx.x) * rows_per_pass + (threadIdx.x >> lanes_log2);
    if (row < a.m) {
      const int64_t first = row * a.width + static_cast<int64_t>(sub) * kSlotVector;
      if (first < (row + 1) * a.width) {
        prefetch_l2(static_cast<const T*>(a.values) + first);
        prefetch_l2(static_cast<const I*>(a.indices) + first);
      }
    }
  }
  stage_b_chunk<T, NT>(a, n0, ncols, b_vec, bs);
  __syncthreads();

  // Persistent: the block walks rows_per_pass rows at a time; every thread runs the same number
  // of passes, so the whole warp reaches the shuffles of reduce_and_store together.
  for (int64_t base = static_cast<int64_t>(blockIdx.x) * rows_per_pass; base < a.m;
       base += static_cast<int64_t>(gridDim.x) * rows_per_pass) {
    const int64_t row = base + (threadIdx.x >> lanes_log2);
    const bool active = row < a.m;
    float acc[NT];
#pragma unroll
    for (int j = 0; j < NT; ++j) acc[j] = 0.0f;
    if (active)
      row_product<T, I>(a, row, sub, lanes, [&](float v, int c) {
        float b[NT];
        load_staged_row<T, NT>(bs + static_cast<int64_t>(c) * NT, b);
#pragma unroll
        for (int j = 0; j < NT; ++j) acc[j] = fmaf(v, b[j], acc[j]);
      });
    reduce_and_store<NT>(a, acc, row, active, sub, lanes, n0, ncols);
  }
}

using Fn = void (*)(SpmmArgs, int, bool);

template <class T, class I>
struct SlotKernels {
  template <int NT>
  static Fn get(bool staged) {
    return staged ? slot_split_staged_kernel<T, I, NT> : slot_split_kernel<T, I, NT>;
  }
  static Fn pick(int nt, bool staged) {
    switch (nt) {
      case 1:
        return get<1>(staged);
      case 4:
        return get<4>(staged);
      case 8:
        return get<8>(staged);
      default:
        return get<16>(staged);
    }
  }
  static cudaError_t load(size_t smem_optin) {
    cudaFuncAttributes attr;
    for (int nt : kSlotNts) {
      cudaError_t err = cudaFuncGetAttributes(&attr, pick(nt, false));
      if (err == cudaSuccess && smem_optin > 0)
        err = cudaFuncSetAttribute(pick(nt, true), cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   static_cast<int>(smem_optin));
      if (err != cudaSuccess) return err;
    }
    return cudaSuccess;
  }
};

Fn pick(bool half, bool index16, int nt, bool staged) {
  if (half)
    return index16 ? SlotKernels<__half, uint16_t>::pick(nt, staged)
                   : SlotKernels<__half, int32_t>::pick(nt, staged);
  return index16 ? SlotKernels<float, uint16_t>::pick(nt, staged)
                 : SlotKernels<float, int32_t>::pick(nt, staged);
}

bool aligned(const void* p, int bytes) {
  return reinterpret_cast<uintptr_t>(p) % bytes == 0;
}

}  // namespace

cudaError_t launch_slot_split(const SpmmArgs& a, const EllConfig& cfg, cudaStream_t stream) {
  const int elem = a.half ? 2 : 4;
  int lanes_log2 = 0;
  while ((1 << lanes_log2) < cfg.lanes) ++lanes_log2;
  // Vector loads of B's rows need every row start (and the chunk offsets) aligned to the load.
  const int vb = detail::row_load_bytes(cfg.nt, elem);
  const bool b_vec = a.B.order == SPX_ORDER_ROW && a.n % cfg.nt == 0 && aligned(a.B.ptr, vb) &&
                     (a.B.ld * elem) % vb == 0;
  const unsigned chunks = static_cast<unsigned>((a.n + cfg.nt - 1) / cfg.nt);
  const Fn fn = pick(a.half, a.index16, cfg.nt, cfg.stage_b);
  if (!cfg.stage_b) {
    const int64_t threads = a.m << lanes_log2;
    const dim3 grid(static_cast<unsigned>((threads + kBlockThreads - 1) / kBlockThreads), chunks);
    fn<<<grid, kBlockThreads, 0, stream>>>(a, lanes_log2, b_vec);
    return cudaGetLastError();
  }
  // Staged: as many blocks as fit on the GPU at once (each stages B once), no more than rows need.
  const size_t smem = static_cast<size_t>(slot_stage_bytes(a.k, cfg.nt, elem));
  int per_sm = 0;
  cudaError_t err =
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, fn, kStagedThreads, smem);
  if (err != cudaSuccess) return err;
  if (per_sm < 1) return cudaErrorInvalidConfiguration;
  const int64_t rows_per_pass = kStagedThreads >> lanes_log2;
  const int64_t row_blocks = (a.m + rows_per_pass - 1) / rows_per_pass;
  int64_t blocks = static_cast<int64_t>(per_sm) * (a.sm_count > 0 ? a.sm_count : 1) / chunks;
  blocks = blocks < 1 ? 1 : (blocks > row_blocks ? row_blocks : blocks);
  fn<<<dim3(static_cast<unsigned>(blocks), chunks), kStagedThreads, smem, stream>>>(a, lanes_log2,
                                                                                    b_vec);
  return cudaGetLastError();
}

cudaError_t load_slot_split(bool half, bool index16, size_t smem_optin) {
  if (half)
    return index16 ? SlotKernels<__half, uint16_t>::load(smem_optin)
                   : SlotKernels<__half, int32_t>::load(smem_optin);
  return index16 ? SlotKernels<float, uint16_t>::load(smem_optin)
                 : SlotKernels<float, int32_t>::load(smem_optin);
}

}  // namespace spx::kernels::ell
