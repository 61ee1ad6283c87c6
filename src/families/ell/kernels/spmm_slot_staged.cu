// SlotSplit with B's k x NT chunk staged in shared memory: the decode kernel (n <= 16).
//
// At n <= 16 the bytes that matter are A's (values + 16-bit indices, 4 B per fp16 slot); B's
// chunk is small and every slot gathers one NT-wide row of it. What this kernel does for that:
//   * persistent blocks (as many as fit on the GPU), each stages B's chunk once; 1024 threads
//     per block where the registers allow, so one pass of the grid covers thousands of rows;
//   * each lane requests its first A slots (16 B vectors of values and of indices) BEFORE the
//     block stages B, and the next pass's first slots before it reduces the current row, so the
//     DRAM latency overlaps the staging and the reductions instead of adding to them;
//   * rows of 16 B or more are staged as planes of 16-byte rows (StagedLayout) and the plan orders each
//     row's slots so that the 8 lanes of a quarter-warp gather 8 rows with distinct columns mod 8
//     (families/ell/plan/layout.hpp, bank order): a 16-byte gather of 8 lanes is then one
//     shared-memory wavefront instead of about 2.7 for random rows;
//   * the G lane sums meet in a reduce-scatter (each shuffle level halves the columns a lane
//     holds): NT/2 + NT/4 + ... shuffles per lane instead of NT per level.
// Rows start 8-slot aligned (the plan's row pitch), so every lane reads whole 16-byte vectors.
#include <type_traits>

#include "device/cp_async.cuh"
#include "device/launch.cuh"
#include "device/mbarrier.cuh"
#include "families/ell/kernels/device.cuh"
#include "families/ell/kernels/slot_staging.cuh"

namespace spx::kernels::ell {
namespace {

using detail::to_float;

/// One lane's 8 slots (values and column indices) as raw 16-byte vectors.
template <class T, class I>
struct RawSlots {
  static constexpr int kValueVecs = static_cast<int>(sizeof(T)) / 2;  // 8 slots: 16 or 32 B
  static constexpr int kIndexVecs = static_cast<int>(sizeof(I)) / 2;
  uint4 v[kValueVecs];
  uint4 c[kIndexVecs];

  __device__ __forceinline__ void load(const T* vals, const I* idx) {
#pragma unroll
    for (int i = 0; i < kValueVecs; ++i) v[i] = __ldg(reinterpret_cast<const uint4*>(vals) + i);
#pragma unroll
    for (int i = 0; i < kIndexVecs; ++i) c[i] = __ldg(reinterpret_cast<const uint4*>(idx) + i);
  }
  __device__ __forceinline__ void unpack(float (&val)[kSlotVector], uint32_t (&col)[kSlotVector]) const {
    if constexpr (sizeof(T) == 2) {
      __half tag[8];
      detail::unpack(v[0], tag, val);
    } else {
      float a[4], b[4];
      detail::unpack(v[0], a);
      detail::unpack(v[1], b);
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        val[i] = a[i];
        val[4 + i] = b[i];
      }
    }
    if constexpr (sizeof(I) == 2) {
      const uint32_t w[4] = {c[0].x, c[0].y, c[0].z, c[0].w};
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        col[2 * i] = w[i] & 0xFFFFu;
        col[2 * i + 1] = w[i] >> 16;
      }
    } else {
      const uint32_t w[8] = {c[0].x, c[0].y, c[0].z, c[0].w, c[1].x, c[1].y, c[1].z, c[1].w};
#pragma unroll
      for (int i = 0; i < 8; ++i) col[i] = w[i];
    }
  }
};

/// acc[j] += v * B[c, n0 + part * NT + j] from the staged chunk (rows of kRowNt columns; bs
/// offset to the lane's part as in load_staged).
template <class T, int NT, int kRowNt>
__device__ __forceinline__ void gather_staged(float (&acc)[NT], const unsigned char* bs,
                                              const StagedLayout<T, kRowNt>& L, float v, uint32_t c) {
  float b[NT];
  load_staged<T, NT, kRowNt>(bs, L, c, b);
#pragma unroll
  for (int j = 0; j < NT; ++j) acc[j] = fmaf(v, b[j], acc[j]);
}

/// Sums the partial products of a row's G = 2^lanes_log2 lanes (a reduce-scatter: each level
/// halves the columns a lane holds while columns remain, then plain butterflies) and writes the
/// row's outputs. Every lane of the warp must call it.
template <int NT>
__device__ __forceinline__ void reduce_scatter_store(const SpmmArgs& a, float (&acc)[NT],
                                                     int64_t row, bool active, int sub,
                                                     int lanes_log2, int64_t n0, int ncols) {
  constexpr int kLog2Nt = NT == 1 ? 0 : NT == 4 ? 2 : NT == 8 ? 3 : 4;
  static_assert((1 << kLog2Nt) == NT, "NT is a power of two");
  int col0 = 0, levels = 0;
#pragma unroll
  for (int i = 0; i < kLog2Nt; ++i) {
    if (i < lanes_log2) {
      const int off = 1 << (lanes_log2 - 1 - i);
      const bool upper = (sub & off) != 0;
      constexpr int kFull = NT;
      const int half = kFull >> (i + 1);
      // A constant trip count (NT / 2, guarded): with the bound NT >> (i + 1) nvcc kept the
      // level loops partly rolled, acc dynamically indexed in local memory (64 B at NT = 16).
#pragma unroll
      for (int j = 0; j < NT / 2; ++j) {
        if (j < half) {
          const float send = upper ? acc[j] : acc[j + half];
          const float keep = upper ? acc[j + half] : acc[j];
          acc[j] = keep + __shfl_xor_sync(0xffffffffu, send, off);
        }
      }
      if (upper) col0 += half;
      ++levels;
    }
  }
  for (int off = (1 << lanes_log2) >> (levels + 1); off > 0; off >>= 1)
    acc[0] += __shfl_xor_sync(0xffffffffu, acc[0], off);
  // Lanes whose bits below the last halving are zero write; each holds NT >> levels columns.
  const int low = ((1 << lanes_log2) >> levels) - 1;
  if (!active || (sub & low) != 0) return;
  const float alpha = alpha_float(a.scalars), beta = beta_float(a.scalars);
  const int held = NT >> levels;
  if (held == 1) {  // lanes >= NT (every decode rule case): one column per writing lane
    if (col0 < ncols) detail::store_out(a.C, a.scalars.epilogue, row, n0 + col0, acc[0], alpha, beta);
    return;
  }
#pragma unroll
  for (int j = 0; j < NT; ++j)
    if (j < held && col0 + j < ncols) detail::store_out(a.C, a.scalars.epilogue, row, n0 + col0 + j, acc[j], alpha, beta);
}

/// How a launch stages B (host-chosen; see launch_slot_staged).
struct StageParams {
  int lanes_log2 = 4;
  bool b_vec = false;   ///< threads: 16-byte pieces of row-major B
  bool b_col_vec = false;  ///< threads: 16-byte pieces of column-major B, transposed
  bool rotate = true;   ///< threads: each block starts the copy at its own offset (the launcher
                        ///< always sets it; the unrotated order measured slower)
  bool async = true;    ///< b_vec: the copy by cp.async (else 16-byte loads and stores)
  bool early_a = true;  ///< A's first loads before griddepcontrol.wait (always; after it measured
                        ///< slower)
};

/// NT: accumulators per lane; kParts: column parts of the staged chunk (kParts x NT columns), the
/// row's lanes split over parts (upper lane bit) as well as slots. kBulk (sm_90, one chunk of B's
/// whole rows): the TMA unit copies the chunk (stage_b_bulk), contiguous rows (gather_contig32
/// for rows of 32 B).
template <class T, class I, int NT, int kParts, bool kBulk = false>
__global__ void __launch_bounds__(staged_threads<T, NT>(), 1)
    slot_split_staged_kernel(SpmmArgs a, StageParams sp) {
  extern __shared__ __align__(16) unsigned char bs[];
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  // Programmatic dependent launch (when the launch allows it; no-ops otherwise): let the next
  // kernel of the stream launch now (its blocks start as ours exit instead of after the launch
  // latency). griddepcontrol.wait (below, before B is read) holds us until the previous kernel
  // of the stream has completed.
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
  const int lanes_log2 = sp.lanes_log2;
  constexpr int kRowNt = NT * kParts;
  // fp16 values with 16-bit indices (the decode cases; NT = 16 at 512 threads, 128 registers):
  // the row loop unrolled by two, padding through the zero row. The wider raw slots of fp32 /
  // 32-bit indices spilled (16-80 B of stack at 64 registers) with that loop: they keep the swap
  // and the slot-by-slot last step.
  constexpr bool kUnrollTwo = sizeof(T) == 2 && sizeof(I) == 2;
  constexpr int kPartLog2 = kParts == 2 ? 1 : 0;
  static_assert(kParts == 1 || kParts == 2, "one or two column parts");
  const int64_t n0 = static_cast<int64_t>(blockIdx.y) * kRowNt;
  const int ncols = static_cast<int>(a.n - n0 < kRowNt ? a.n - n0 : kRowNt);
  // The row's lanes: the upper bit picks the column part (so a quarter-warp is 8 lanes of one
  // part on 8 bank-ordered slots: conflict-free), the rest split the slots.
  const int lanes = 1 << lanes_log2;
  const int slot_lanes_log2 = lanes_log2 - kPartLog2;
  const int slot_lanes = 1 << slot_lanes_log2;
  const int lane_in_row = threadIdx.x & (lanes - 1);
  const int part = kParts == 1 ? 0 : lane_in_row >> slot_lanes_log2;
  const int sub = lane_in_row & (slot_lanes - 1);
  const int64_t rows_per_pass = blockDim.x >> lanes_log2;
  const int64_t pass_stride = static_cast<int64_t>(gridDim.x) * rows_per_pass;
  const int first = sub * kSlotVector, step = slot_lanes * kSlotVector;
  const T* values = static_cast<const T*>(a.values);
  const I* indices = static_cast<const I*>(a.indices);

  // This lane's first two steps (8 slots each) of its first row, requested before B is staged:
  // at decode sizes one pass of the grid covers most rows, so these loads are most of A.
  int64_t row = static_cast<int64_t>(blockIdx.x) * rows_per_pass + (threadIdx.x >> lanes_log2);
  RawSlots<T, I> cur, next;  // steps p and p + step of the row being walked
  // These loads read only the plan's arrays (values, indices, row lengths), so they are issued
  // before griddepcontrol.wait: only analyze and spxPlanUpdateValues write them, by kernels that
  // never trigger a dependent launch early, so they have completed before this grid could launch.
  // B, C and device scalars may be the previous kernel's output: nothing reads them before it.
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if (!sp.early_a) asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
  if (row < a.m) {
    const int64_t at = row * a.stride + first;
    if (first < a.stride) cur.load(values + at, indices + at);
    if (first + step < a.stride) next.load(values + at + step, indices + at + step);
  }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
  const StagedLayout<T, kRowNt> L(a.k);
  constexpr int kRowBytes = StagedLayout<T, kRowNt>::kRowBytes;
  // Rows of 32 B staged as they are (the bulk copy) instead of as two planes.
  constexpr bool kContig32 = kBulk && kRowBytes == 32;
  static_assert(!kBulk || (kParts == 1 && (kRowBytes <= 16 || kRowBytes == 32)),
                "the bulk copy stages one part of contiguous rows");
  // Copy batches: 4 pieces per thread at 1024 threads (64 registers; 16-byte rows, the whole 64
  // KB chunk in one batch); at 512 threads 16 for fp16 (NT 16's 128 KB in one batch, 125
  // registers, no stack) and 8 for fp32 (16 spilled with 32-bit indices).
  constexpr int kBatch = staged_threads<T, NT>() == kStagedThreads ? 4 : sizeof(T) == 2 ? 16 : 8;
  const uint32_t bulk_bar = smem_address(bs) + bulk_barrier_offset<kRowBytes>(a.k);
  if constexpr (kBulk) stage_b_bulk(a, bs, bulk_bar, static_cast<uint32_t>(a.k * kRowBytes));
  int pre_len = kBulk ? (row < a.m ? a.row_len[row] : 0)
                      : stage_b_chunk<T, kRowNt, kBatch>(a, L, n0, ncols, sp.b_vec,
                                                         sp.b_col_vec, sp.rotate, sp.async, bs,
                                                         row < a.m ? a.row_len + row : nullptr);
  // Row k of the staged chunk is zero: where padding slots of a row's last step gather.
  const uint32_t zero_row = static_cast<uint32_t>(a.k);
  for (int j = threadIdx.x; j < kRowNt; j += blockDim.x) {
    if constexpr (kContig32)
      *reinterpret_cast<T*>(bs + zero_row * 32u + j * sizeof(T)) = T(0.0f);
    else
      *reinterpret_cast<T*>(bs + L.element(zero_row, j)) = T(0.0f);
  }
  __syncthreads();
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if constexpr (kBulk) mbar_wait(bulk_bar, 0);  // the TMA unit's bytes have landed
#endif
  // This lane's column part: its first plane (rows of >= 16 B; a part is whole planes).
  const unsigned char* bpart =
      kParts == 1 ? bs : bs + L.piece(0, part * (NT * static_cast<int>(sizeof(T)) / 16));
  // Contiguous 32-byte rows: odd lanes read the second half first (gather_contig32).
  const bool odd_lane = (lane_in_row & 1) != 0;
  const unsigned char* bfirst = bs + (odd_lane ? 16 : 0);
  const int bdelta = odd_lane ? -16 : 16;
  auto gather = [&](float (&acc_)[NT], float v, uint32_t c) {
    if constexpr (kContig32)
      gather_contig32<T, NT>(acc_, bfirst, bdelta, v, c);
    else
      gather_staged<T, NT, kRowNt>(acc_, bpart, L, v, c);
  };

  // Persistent: every thread runs the same passes (the whole warp reaches the shuffles).
  for (int64_t base = static_cast<int64_t>(blockIdx.x) * rows_per_pass; base < a.m;
       base += pass_stride, row += pass_stride) {
    const bool active = row < a.m;
    const int len = active ? pre_len : 0;
    float acc[NT];
#pragma unroll
    for (int j = 0; j < NT; ++j) acc[j] = 0.0f;
    const T* vals = values + row * a.stride;
    const I* idx = indices + row * a.stride;
    if constexpr (kUnrollTwo) {
      // One step: the 8 slots at p, held raw in `raw`, which then takes the slots at p + 2 step
      // (two steps in flight). The row's last, partial step points its padding slots at the
      // staged zero row (k): every step runs the same straight-line gathers, no divergent
      // slot-by-slot path (which ran besides the full one in the warp's last step: ~20 % of the
      // row loop's instructions at 4096^2 x 8, 80 %).
      // The slots two steps ahead of this lane, advanced by a step per step (recomputing
      // row * stride + p cost ~14 instructions of 64-bit arithmetic per step).
      const T* vahead = vals + first + 2 * step;
      const I* iahead = idx + first + 2 * step;
      auto step_at = [&](RawSlots<T, I>& raw, int p) {
        float v[kSlotVector];
        uint32_t c[kSlotVector];
        raw.unpack(v, c);
        if (p + 2 * step < len) raw.load(vahead, iahead);
        vahead += step;
        iahead += step;
        if (p + kSlotVector > len) {
#pragma unroll
          for (int e = 0; e < kSlotVector; ++e)
            if (p + e >= len) c[e] = zero_row;
        }
#pragma unroll
        for (int e = 0; e < kSlotVector; ++e)
          gather(acc, v[e], c[e]);
      };
      // Unrolled by two so cur and next keep their registers (a swap cost ~20 moves per step).
      for (int p = first; p < len; p += 2 * step) {
        step_at(cur, p);
        if (p + step >= len) break;
        step_at(next, p + step);
      }
    } else {
      for (int p = first; p < len; p += step) {
        float v[kSlotVector];
        uint32_t c[kSlotVector];
        cur.unpack(v, c);
        // Two steps in flight: cur's registers take the step after next before the gathers.
        if (p + 2 * step < len) cur.load(vals + p + 2 * step, idx + p + 2 * step);
        if (p + kSlotVector <= len) {
#pragma unroll
          for (int e = 0; e < kSlotVector; ++e)
            gather(acc, v[e], c[e]);
        } else {
#pragma unroll
          for (int e = 0; e < kSlotVector; ++e)
            if (p + e < len) gather(acc, v[e], c[e]);
        }
        const RawSlots<T, I> t = cur;
        cur = next;
        next = t;
      }
    }
    // The next pass's first two steps, requested before this row's overflow and reduction.
    const int64_t next_row = row + pass_stride;
    if (next_row < a.m) {
      pre_len = a.row_len[next_row];
      const int64_t at = next_row * a.stride + first;
      if (first < a.stride) cur.load(values + at, indices + at);
      if (first + step < a.stride) next.load(values + at + step, indices + at + step);
    }
    if (active && a.tail_ptr != nullptr) {  // HYB: this row's overflow, one slot per lane and step
      const int64_t tail = a.m * a.stride;
      const int end = a.tail_ptr[row + 1];
      for (int t = a.tail_ptr[row] + sub; t < end; t += slot_lanes)
        gather(acc, to_float(values[tail + t]), static_cast<uint32_t>(indices[tail + t]));
    }
    if constexpr (kContig32) unswap_contig32<NT>(acc, odd_lane);
    reduce_scatter_store<NT>(a, acc, row, active, sub, slot_lanes_log2, n0 + part * NT,
                             ncols - part * NT);
  }
}

using Fn = void (*)(SpmmArgs, StageParams);

/// The instantiations: NT in kSlotNts with one part; two parts of the 32-byte staged rows (fp16
/// chunks of 16 columns, 8 per lane; fp32 chunks of 8, 4 per lane).
template <class T, class I>
struct StagedKernels {
  static constexpr int kPartNt = 16 / static_cast<int>(sizeof(T));  // 16 B of columns per part
  /// nt: columns of the chunk; parts: 1, or 2 when nt == 2 * kPartNt (else nullptr).
  static Fn pick(int nt, int parts) {
    if (parts == 2) return nt == 2 * kPartNt ? slot_split_staged_kernel<T, I, kPartNt, 2> : nullptr;
    switch (nt) {
      case 1: return slot_split_staged_kernel<T, I, 1, 1>;
      case 4: return slot_split_staged_kernel<T, I, 4, 1>;
      case 8: return slot_split_staged_kernel<T, I, 8, 1>;
      default: return slot_split_staged_kernel<T, I, 16, 1>;
    }
  }
  /// The bulk-copy kernel of one chunk of nt columns (16-bit indices; rows of <= 16 or 32 B),
  /// else nullptr.
  static Fn pick_bulk(int nt) {
    if constexpr (std::is_same_v<I, uint16_t>) {
      switch (nt) {
        case 1: return slot_split_staged_kernel<T, I, 1, 1, true>;
        case 4: return slot_split_staged_kernel<T, I, 4, 1, true>;
        case 8: return slot_split_staged_kernel<T, I, 8, 1, true>;
        case 16:
          if constexpr (sizeof(T) == 2) return slot_split_staged_kernel<T, I, 16, 1, true>;
          return nullptr;
        default: return nullptr;
      }
    }
    return nullptr;
  }
  static int threads(int nt, int parts) {
    switch (nt / parts) {
      case 1: return staged_threads<T, 1>();
      case 4: return staged_threads<T, 4>();
      case 8: return staged_threads<T, 8>();
      default: return staged_threads<T, 16>();
    }
  }
  static cudaError_t load(size_t smem_optin) {
    for (int nt : kSlotNts)
      if (const cudaError_t err =
              detail::load_kernel(reinterpret_cast<const void*>(pick(nt, 1)), smem_optin);
          err != cudaSuccess)
        return err;
    for (int nt : kSlotNts)
      if (const Fn fn = pick_bulk(nt); fn != nullptr)
        if (const cudaError_t err = detail::load_kernel(reinterpret_cast<const void*>(fn), smem_optin);
            err != cudaSuccess)
          return err;
    return detail::load_kernel(reinterpret_cast<const void*>(pick(2 * kPartNt, 2)), smem_optin);
  }
};

}  // namespace

namespace {

/// The kernel a configuration launches (`bulk`: its bulk-copy instantiation), nullptr where
/// none is instantiated, and its threads per block.
Fn kernel_of(const SlotStagedConfig& cfg, bool half, bool index16, bool bulk, int& threads) {
  const int parts = cfg.col_parts;
  if (half) {
    threads = StagedKernels<__half, uint16_t>::threads(cfg.nt, parts);
    return bulk ? (index16 ? StagedKernels<__half, uint16_t>::pick_bulk(cfg.nt) : nullptr)
           : index16 ? StagedKernels<__half, uint16_t>::pick(cfg.nt, parts)
                     : StagedKernels<__half, int32_t>::pick(cfg.nt, parts);
  }
  threads = StagedKernels<float, uint16_t>::threads(cfg.nt, parts);
  return bulk ? (index16 ? StagedKernels<float, uint16_t>::pick_bulk(cfg.nt) : nullptr)
         : index16 ? StagedKernels<float, uint16_t>::pick(cfg.nt, parts)
                   : StagedKernels<float, int32_t>::pick(cfg.nt, parts);
}

}  // namespace

cudaError_t launch_slot_staged(const SpmmArgs& a, const EllConfig& launch, cudaStream_t stream) {
  const auto* c = std::get_if<SlotStagedConfig>(&launch.kernel);
  if (c == nullptr) return cudaErrorInvalidValue;
  const SlotStagedConfig& cfg = *c;
  const CallLaunch& l = launch.call;
  const int elem = a.half ? 2 : 4;
  StageParams sp;
  sp.lanes_log2 = 0;
  while ((1 << sp.lanes_log2) < cfg.lanes) ++sp.lanes_log2;
  if (a.stride % kSlotVector != 0) return cudaErrorInvalidValue;  // rows must start 8-aligned
  // How B's chunk is copied on this call: plan/call.hpp (staged_copy).
  sp.b_vec = l.staged.b_vec;
  sp.b_col_vec = l.staged.b_col_vec;
  sp.rotate = true;
  sp.early_a = true;
  sp.async = l.staged.async;
  const unsigned chunks = static_cast<unsigned>((a.n + cfg.nt - 1) / cfg.nt);
  int threads = 0;
  const Fn fn = kernel_of(cfg, a.half, a.index16, l.staged.bulk, threads);
  if (fn == nullptr || cfg.lanes < 2 * cfg.col_parts || threads != l.staged.threads)
    return cudaErrorInvalidValue;
  const size_t smem = static_cast<size_t>(slot_stage_bytes(a.k, cfg.nt, elem));
  const int64_t rows_per_pass = threads >> sp.lanes_log2;
  const int64_t row_blocks = (a.m + rows_per_pass - 1) / rows_per_pass;
  // As many blocks as fit on the GPU at once (each stages B once), no more than rows need.
  if (l.per_sm < 1) return cudaErrorInvalidConfiguration;
  int64_t blocks = static_cast<int64_t>(l.per_sm) * (a.sm_count > 0 ? a.sm_count : 1) / chunks;
  blocks = blocks < 1 ? 1 : (blocks > row_blocks ? row_blocks : blocks);
  const dim3 grid(static_cast<unsigned>(blocks), chunks, 1);
  if (a.dependent_launch)
    return launch_programmatic(fn, grid, dim3(static_cast<unsigned>(threads), 1, 1), smem, stream,
                               a, sp);
  fn<<<grid, threads, smem, stream>>>(a, sp);
  return cudaGetLastError();
}

int slot_staged_occupancy(const SlotStagedConfig& cfg, bool half, bool index16, int64_t k,
                          bool bulk) {
  int threads = 0;
  const Fn fn = kernel_of(cfg, half, index16, bulk, threads);
  if (fn == nullptr) return 0;
  const size_t smem = static_cast<size_t>(slot_stage_bytes(k, cfg.nt, half ? 2 : 4));
  return detail::occupancy(reinterpret_cast<const void*>(fn), threads, smem);
}

cudaError_t load_slot_staged(bool half, bool index16, size_t smem_optin) {
  if (half)
    return index16 ? StagedKernels<__half, uint16_t>::load(smem_optin)
                   : StagedKernels<__half, int32_t>::load(smem_optin);
  return index16 ? StagedKernels<float, uint16_t>::load(smem_optin)
                 : StagedKernels<float, int32_t>::load(smem_optin);
}

}  // namespace spx::kernels::ell
