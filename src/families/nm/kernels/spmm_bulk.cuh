// The NM SpMM kernel on sm_90's tensor copies (TMA: cp.async.bulk.tensor) and mbarriers: the
// same tiles, inner kernel and epilogue as spmm_kernel.cuh, with another pipeline. Non-packing
// stages only (a packed stage's B rows are scattered: spmm_kernel.cuh).
//
// Why. In the cp.async kernel every thread issues its share of a stage's 16-byte copies (each
// LDGSTS with its address arithmetic and three never-executed placeholder LDS that ptxas puts in
// front of it) and the whole block meets at a barrier per stage. ncu on H100 (4096^3, 1:4,
// w_s = 20): FFMA was 71 % of the issued instructions (the inner loop alone: 88 %) and in 23 % of
// the cycles no warp could issue. Per-row bulk copies do not help: cp.async.bulk takes uniform
// operands, so a warp issuing one row per lane serializes into ~10 instructions per row.
//
// How. Lane 0 of warp 0 issues a stage as two tensor copies: the A slot rows (box BM x w_s of the
// plan's a_t) and the B rows (box BN x k_s of B, in chunks of at most 256 rows; rows past k and
// columns past n are zero-filled by the TMA unit). The index pairs are a few 4-byte cp.async
// copies of warp 0's lanes, whose completion is attached to the same `full` mbarrier
// (cp.async.mbarrier.arrive.noinc) that counts the tensor copies' bytes (expect_tx). Every
// thread waits on `full` before computing a stage and arrives on the stage's `empty` mbarrier
// after it; warp 0 waits on `empty` only before refilling that buffer, depth - 1 stages ahead.
// No block-wide barrier: a warp that is ahead keeps computing while its data is there. B rows
// are dense in shared memory (BN floats: the tensor copy writes the box as it is).
#pragma once

#include <cuda.h>

#include "device/mbarrier.cuh"
#include "families/nm/kernels/spmm_kernel.cuh"
#include "families/nm/kernels/spmm_stream_k.cuh"

namespace spx::kernels::nm::detail {

/// The mbarrier arrives when every cp.async this thread issued so far has landed (the arrival is
/// part of the barrier's expected count: .noinc).
__device__ __forceinline__ void cp_async_arrive_noinc(unsigned bar) {
  asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];\n" ::"r"(bar) : "memory");
}

/// A 2-D tensor copy (box at column c0, row c1 of the map) into shared memory, counted in bytes
/// on `bar`. The map is a __grid_constant__ kernel parameter (its generic address is passed).
__device__ __forceinline__ void tensor_copy_2d(unsigned dst, const void* map, int c0, int c1,
                                               unsigned bar) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%2, %3}], [%4];\n" ::"r"(dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(c0), "r"(c1), "r"(bar)
      : "memory");
}

/// Streamed B (launch.hpp: StreamedB), the whole producing warp: returns once the chunks of
/// panel `panel` holding B rows up to `last_row` are copied. `*ready` (shared) is the first
/// chunk not yet seen copied; a stale value only re-reads flags that are already set. One
/// round trip reads the flags of 32 chunks (one per lane, one 128-byte line), so once the copy
/// is ahead a tile polls every 32 chunks (1024 rows), not every stage.
__device__ __forceinline__ void wait_streamed_rows(const StreamedB& s, int64_t last_row,
                                                   int panel, volatile int* ready) {
  const int need = static_cast<int>(last_row / kStreamChunkRows);
  int r = *ready;
  if (r > need) return;
  const int lane = threadIdx.x & 31;
  const uint32_t* flags = s.flags + static_cast<int64_t>(panel) * s.chunks;
  for (;;) {
    // Acquire loads: an acquire load invalidates the SM's L1 (CCTL.IVALL), which this kernel
    // does not use, where the fence after relaxed loads waited at gpu scope (MEMBAR.ALL.GPU).
    unsigned done = kStreamFlagDone;
    if (r + lane < s.chunks)
      asm volatile("ld.acquire.gpu.global.u32 %0, [%1];\n"
                   : "=r"(done)
                   : "l"(flags + r + lane)
                   : "memory");
    const unsigned missing = __ballot_sync(0xFFFFFFFFu, done != kStreamFlagDone);
    r += missing != 0u ? __ffs(missing) - 1 : 32;
    if (r > need) break;
    __nanosleep(256);
  }
  if (lane == 0) *ready = r;
  // Every lane that saw a flag acquired it; the tensor copies (async proxy) then read B.
  __syncwarp();
  asm volatile("fence.proxy.async.global;\n" ::: "memory");
}

/// Producer (the 32 lanes of warp 0): issues stage `stage` into `sb`, completing on `full`.
/// kStreamed: B is being copied row-major beside the kernel; wait for the stage's rows first.
template <class T, bool kStreamed>
__device__ __forceinline__ void produce_stage(const SpmmArgs& a, const void* map_a,
                                              const void* map_b, const StageBuffer& sb,
                                              unsigned full, int stage, int64_t m0, int64_t n0,
                                              int groups, volatile int* stream_ready) {
  const int lane = threadIdx.x & 31;
  const int w_s = a.w_s, k_s = a.k_s;
  if constexpr (kStreamed) {
    const int64_t last = min(static_cast<int64_t>(stage + 1) * k_s, a.k) - 1;
    wait_streamed_rows(a.streamed, last, static_cast<int>(n0 / T::kBN), stream_ready);
  }
  if (lane == 0) {
    mbar_arrive_expect_tx(full, static_cast<unsigned>(w_s) * T::kBM * 4 +
                                    static_cast<unsigned>(k_s) * T::kBN * 4);
    tensor_copy_2d(smem_address(sb.a), map_a, static_cast<int>(m0), stage * w_s, full);
    const unsigned b_dst = smem_address(sb.b);
    for (int r = 0; r < k_s; r += a.box_rows)
      tensor_copy_2d(b_dst + r * T::kBN * 4, map_b, static_cast<int>(n0), stage * k_s + r, full);
  }
  // Index pairs of the block's groups (4-byte copies: a group's w_s indices are 4-byte aligned).
  // No division: the producer runs on the warp that finished the stage last, and every
  // instruction it spends here delays that warp's next stage (a 64-bit m0 / l and a per-copy
  // i / pairs cost ~400 instructions per stage in the SASS). l is a power of two, m0 < 2^31.
  const int pairs = w_s / 2;
  const unsigned first_group = static_cast<unsigned>(m0) >> (__ffs(a.l) - 1);
  const uint16_t* i_src =
      a.ridx + static_cast<int64_t>(first_group) * a.kc_pad + static_cast<int64_t>(stage) * w_s;
  for (int p = lane; p < pairs; p += 32)
    for (int g = 0; g < groups; ++g)
      cp_async4(sb.idx + g * w_s + 2 * p, i_src + g * a.kc_pad + 2 * p, 4);
  cp_async_arrive_noinc(full);
}

/// The tensor-copy kernels' shared memory (config.hpp's bulk_smem_bytes): `depth` stage buffers,
/// every region 128-byte aligned, then the full / empty mbarriers, the per-buffer counts of warps
/// done and, with a streamed B, the first chunk of the tile's panel not yet seen copied.
template <class T>
struct BulkSmem {
  unsigned char* base;
  int a_bytes, b_bytes, stage_bytes;
  unsigned bars;
  unsigned* done;              ///< warps done with each buffer so far (last-finisher producer)
  volatile int* stream_ready;  ///< streamed B (launch.hpp: StreamedB)

  __device__ __forceinline__ BulkSmem(unsigned char* smem_raw, const SpmmArgs& a, int groups) {
    // Tensor copies write 128-byte aligned shared memory: align the base (the host adds the
    // slack).
    base = smem_raw + ((128u - (smem_address(smem_raw) & 127u)) & 127u);
    a_bytes = (a.w_s * T::kBM * 4 + 127) & ~127;
    b_bytes = (a.k_s * T::kBN * 4 + 127) & ~127;
    const int i_bytes = (groups * a.w_s * 2 + 4 + 127) & ~127;
    stage_bytes = a_bytes + b_bytes + i_bytes;
    bars = smem_address(base + a.depth * stage_bytes);
    done = reinterpret_cast<unsigned*>(base + a.depth * stage_bytes + 16 * kMaxDepth);
    stream_ready = reinterpret_cast<int*>(base + a.depth * stage_bytes + 20 * kMaxDepth);
  }
  __device__ __forceinline__ StageBuffer buffer(int which) const {
    unsigned char* b = base + which * stage_bytes;
    return StageBuffer{reinterpret_cast<float*>(b), reinterpret_cast<float*>(b + a_bytes),
                       reinterpret_cast<uint16_t*>(b + a_bytes + b_bytes), nullptr, nullptr};
  }
  __device__ __forceinline__ unsigned full(int which) const { return bars + 8u * which; }
  __device__ __forceinline__ unsigned empty(int which) const {
    return bars + 8u * (kMaxDepth + which);
  }
  /// Threads 0 .. depth - 1 set up their buffer's barriers, counter and lookahead zeros; the
  /// caller fences the initialization and synchronizes the block.
  __device__ __forceinline__ void init(int depth, int groups, int w_s) const {
    if (threadIdx.x < depth) {
      // The 4 bytes after the last group's indices (read as row 0 by compute_stage's lookahead).
      *reinterpret_cast<uint32_t*>(buffer(threadIdx.x).idx + groups * w_s) = 0u;
      mbar_init(full(threadIdx.x), 33u);  // lane 0's expect_tx + 32 lanes' cp.async arrivals
      mbar_init(empty(threadIdx.x), T::kThreads);
      done[threadIdx.x] = 0u;
    }
    if (threadIdx.x == 0) *stream_ready = 0;
  }
};

/// kStreamed: a column-major B is copied row-major beside this kernel (StreamedB); a separate
/// instantiation, so that the plain kernel keeps its registers.
/// kStreamK: the grid runs a stream-K schedule (a.stream_k, stream_k.hpp; 1-D grid, last-finisher
/// producer only): a block computes at most two segments, the rest of one tile's stages and the
/// start of the next tile's, with the same stage loop; a segment that is not a whole tile meets
/// its other parts in stream_k_part (spmm_stream_k.cuh). The stage loop is this kernel's own
/// rather than a loop over (tile, stage) units: ptxas lays out the accumulators of the inner loop
/// by the code around it, and the variants with a loop of their own ran 3-17 % slower per tile
/// (H100, 4096^3); this one runs 2 % slower (stream_k.hpp: kStreamKTileCost).
template <class T, bool kStreamed, bool kStreamK = false>
__global__ void __launch_bounds__(T::kThreads, T::kMinBlocks)
    spmm_bulk_kernel(const SpmmArgs a, const __grid_constant__ CUtensorMap map_a,
                     const __grid_constant__ CUtensorMap map_b) {
  static_assert(!(kStreamed && kStreamK), "stream-K reads a row-major B (launch.hpp)");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  extern __shared__ __align__(128) unsigned char smem_raw[];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int ty = (warp / T::kWarpsX) * T::kWarpRows + lane / T::kWarpCols;
  const int tx = (warp % T::kWarpsX) * T::kWarpCols + lane % T::kWarpCols;
  int64_t m0 = static_cast<int64_t>(blockIdx.x) * T::kBM;
  int64_t n0 = static_cast<int64_t>(blockIdx.y) * T::kBN;
  const int groups = T::kBM >= a.l ? static_cast<int>(T::kBM / a.l) : 1;
  const int group = static_cast<int>((ty * T::kTM) / a.l);

  const BulkSmem<T> sm(smem_raw, a, groups);
  const int depth = a.depth;
  auto buffer = [&](int which) { return sm.buffer(which); };
  auto full = [&](int which) { return sm.full(which); };
  auto empty = [&](int which) { return sm.empty(which); };
  unsigned* done = sm.done;
  volatile int* stream_ready = sm.stream_ready;

  sm.init(depth, groups, a.w_s);
  // The next call's copy (this kernel's programmatic dependent) may launch once every block has
  // started; it waits for this grid to complete before it touches memory.
  if constexpr (kStreamed) asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  __syncthreads();

  int s_begin = blockIdx.z * a.stages_per_split;
  int s_end = min(a.stages, s_begin + a.stages_per_split);
  // Stream-K: this segment's tile, and the stages [0, next_end) of the tile after it that the
  // block computes next (none when next_end <= 0).
  int tile = 0, next_end = 0;
  if constexpr (kStreamK) {
    const StreamKSchedule& sk = a.stream_k.schedule;
    const int st = a.stages;
    const bool whole_tile = blockIdx.x < sk.dp_tiles;
    const int u0 = whole_tile ? static_cast<int>(blockIdx.x) * st
                              : static_cast<int>(sk.first_unit(blockIdx.x - sk.dp_tiles));
    const int u1 =
        whole_tile ? u0 + st : static_cast<int>(sk.first_unit(blockIdx.x - sk.dp_tiles + 1));
    tile = u0 / st;
    s_begin = u0 - tile * st;
    s_end = min(st, u1 - tile * st);
    next_end = u1 - (tile + 1) * st;
    const int mt = static_cast<int>(a.stream_k.m_tiles);
    m0 = static_cast<int64_t>(tile % mt) * T::kBM;
    n0 = static_cast<int64_t>(tile / mt) * T::kBN;
  }

  float acc[T::kTM][T::kTN];
#pragma unroll
  for (int i = 0; i < T::kTM; ++i)
#pragma unroll
    for (int j = 0; j < T::kTN; ++j) acc[i][j] = 0.0f;

  if (a.producer_last) {
    // The warp that finishes a stage last refills its buffer with the stage `depth` later, at
    // once: no warp waits for a free buffer, and the copies start as early as they can.
    constexpr unsigned kWarps = T::kThreads / 32;
    int cur = 0;
    unsigned phase = 0;
    for (;;) {  // stream-K: the block's segments; otherwise once
      if (warp == 0)
        for (int i = 0; i < depth && s_begin + i < s_end; ++i) {
          const int b = kStreamK ? (cur + i) % depth : i;
          produce_stage<T, kStreamed>(a, &map_a, &map_b, buffer(b), full(b), s_begin + i, m0,
                                      n0, groups, stream_ready);
        }
      for (int s = s_begin; s < s_end; ++s) {
        mbar_wait(full(cur), phase);
        // The warp counts itself done with the buffer inside compute_stage, before its last
        // slot's FFMA: every lane's last shared load has returned by then (the hook's operand is
        // computed from the loaded values, and the warp issues it for all lanes at once), so no
        // fence; the count's latency hides behind that slot. The refilling warp fences below.
        uint32_t ticket = 0;
        const unsigned count_at = smem_address(done + cur);
        compute_stage<T, T::kBN>(buffer(cur), a.w_s, ty, tx, group, acc, [&](uint32_t zero) {
          if (lane == 0)
            asm volatile("atom.shared.add.u32 %0, [%1], %2;\n"
                         : "=r"(ticket)
                         : "r"(count_at), "r"(1u + zero)
                         : "memory");
        });
        const unsigned last =
            __shfl_sync(0xFFFFFFFFu, ticket % kWarps == kWarps - 1 ? 1u : 0u, 0);
        if (last && s + depth < s_end) {
          __threadfence_block();
          asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
          produce_stage<T, kStreamed>(a, &map_a, &map_b, buffer(cur), full(cur), s + depth, m0,
                                      n0, groups, stream_ready);
        }
        if (++cur == depth) {
          cur = 0;
          phase ^= 1u;
        }
      }
      if constexpr (!kStreamK) {
        store_tile<T>(a, acc, m0 + ty * T::kTM, n0 + tx * 4);
        return;
      } else {
        const StreamKSchedule& sk = a.stream_k.schedule;
        if ((s_begin == 0 && s_end == a.stages) ||
            stream_k_part<T>(a.stream_k, acc, tile, blockIdx.x - sk.dp_tiles))
          store_tile<T>(a, acc, m0 + ty * T::kTM, n0 + tx * 4);
        if (next_end <= 0) return;
        // The next tile's first stages: every warp is done with every buffer before warp 0
        // refills them (the pipeline restarts once per stream-K block).
        ++tile;
        const int mt = static_cast<int>(a.stream_k.m_tiles);
        __syncthreads();
        m0 = static_cast<int64_t>(tile % mt) * T::kBM;
        n0 = static_cast<int64_t>(tile / mt) * T::kBN;
        s_begin = 0;
        s_end = next_end;
        next_end = 0;
#pragma unroll
        for (int i = 0; i < T::kTM; ++i)
#pragma unroll
          for (int j = 0; j < T::kTN; ++j) acc[i][j] = 0.0f;
      }
    }
  }
  if constexpr (kStreamK) return;  // stream-K plans use the last-finisher producer only

  const int ahead = depth - 1;
  if (warp == 0)
    for (int i = 0; i < ahead && s_begin + i < s_end; ++i)
      produce_stage<T, kStreamed>(a, &map_a, &map_b, buffer(i), full(i), s_begin + i, m0, n0,
                                    groups, stream_ready);

  int cur = 0;
  unsigned phase = 0;  // parity of the current use of buffer `cur`
  for (int s = s_begin; s < s_end; ++s) {
    const StageBuffer here = buffer(cur);
    if (warp == 0 && s + ahead < s_end) {
      // Refill the buffer of stage s - 1 (a fresh one for the first stage) with stage s + ahead,
      // once every thread is done with stage s - 1.
      const int local = s - s_begin;
      const int fill = cur == 0 ? depth - 1 : cur - 1;
      if (local >= 1) mbar_wait(empty(fill), static_cast<unsigned>(((local - 1) / depth) & 1));
      produce_stage<T, kStreamed>(a, &map_a, &map_b, buffer(fill), full(fill), s + ahead, m0,
                                  n0, groups, stream_ready);
    }
    mbar_wait(full(cur), phase);
    compute_stage<T, T::kBN>(here, a.w_s, ty, tx, group, acc);
    mbar_arrive(empty(cur));
    if (++cur == depth) {
      cur = 0;
      phase ^= 1u;
    }
  }

  store_tile<T>(a, acc, m0 + ty * T::kTM, n0 + tx * 4);
#endif
}

/// Shared memory of a bulk launch (config.hpp: bulk_smem_bytes).
template <class T>
int64_t bulk_smem_bytes(const SpmmArgs& a) {
  const TileShape t{TileId::Huge, "", T::kBM, T::kBN, T::kTM, T::kTN, T::kThreads, 1.0};
  return nm::bulk_smem_bytes(t, a.w_s, a.k_s, groups_per_block(t, a.l), a.depth);
}

}  // namespace spx::kernels::nm::detail
