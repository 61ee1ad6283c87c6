// The SpTC kernels' producer: per k step, the cp.async copies of the gather indices, A's
// compressed tiles, the metadata and the gathered B rows into a pipeline stage, and the
// pipeline's waits. Shared by the mma.sync kernels (spmm_kernel.cuh) and the warpgroup kernel
// (spmm_wgmma.cu); what differs between them is where B's rows land in shared memory, a B
// layout class:
//   * MmaBLayout: 64 rows in MMA order, BN + 8 elements each (a row shifts 4 banks: ldmatrix
//     phases are conflict-free); streaming or resident A; the element-wise gather of an
//     unaligned B;
//   * WgBLayout: the wgmma descriptor's MN-major layouts, 128-byte swizzle (1 KB atoms of 8 k
//     rows x 64 columns, chunk c of row k at slot c ^ (k % 8)) or none (core matrices of 8 k rows
//     x 8 columns).
// A B layout gives the thread's 16-byte column chunk, its kRowsPerThread rows' gather indices
// (kIdxStep apart) and their shared addresses in a stage; the Producer does the rest: the
// indices' loads, the three forms of the B copies (32-bit row offsets, 64-bit ones, the chunk
// that n cuts), A and metadata (streaming), the indices kStages - 1 steps ahead, the cursors.
#pragma once

#include <cstdint>

#include "device/cp_async.cuh"
#include "families/sptc/kernels/config.hpp"
#include "families/sptc/kernels/launch.cuh"

namespace spx::kernels::sptc::detail {

/// A 16-byte cp.async (L2 only) that writes zeros instead when `zero` (the ignore-src form: one
/// predicate, where the src-size form costs the address arithmetic of a byte count).
__device__ __forceinline__ void cp_async16_or_zero(uint32_t dst, const void* src, bool zero) {
  asm volatile(
      "{\n .reg .pred z;\n setp.ne.b32 z, %2, 0;\n"
      " cp.async.cg.shared.global [%0], [%1], 16, z;\n}\n" ::"r"(dst),
      "l"(src), "r"(static_cast<int>(zero))
      : "memory");
}

/// cp.async writes shared memory through the generic proxy, wgmma reads it through the async
/// proxy: each thread fences its completed copies before the barrier that publishes them.
/// (sm_90; only the warpgroup kernel calls it.)
__device__ __forceinline__ void fence_proxy_async_smem() {
  asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");
}

/// The consumer's wait for the oldest step in flight: this thread's copies of it done (kAsync:
/// and fenced for the async proxy), then the barrier that makes everyone's visible and frees the
/// stage the previous step read.
template <bool kAsync = false>
__device__ __forceinline__ void wait_step() {
  cp_async_wait<kStages - 2>();
  if constexpr (kAsync) fence_proxy_async_smem();
  __syncthreads();
}

/// The gather indices of the first kStages - 1 steps into the index ring, synchronously (the
/// only exposed index latency of a streaming kernel), then a barrier.
template <int kThreads>
__device__ __forceinline__ void load_first_indices(const KernelParams& p, int32_t* idx_ring,
                                                   int64_t pair0, int npairs, int steps,
                                                   int tid) {
  for (int e = tid; e < (kStages - 1) * kPairK; e += kThreads) {
    const int q = e / kPairK;
    idx_ring[e] = q < steps ? __ldg(p.gather + (pair0 + q % npairs) * kPairK + e % kPairK) : -1;
  }
  __syncthreads();
}

/// Resident A: the panel's gather indices (waited for: the B copies need them), then its
/// metadata and A, which join step 0's group.
template <int kThreads, int kSlices>
__device__ __forceinline__ void load_resident_panel(const KernelParams& p, int32_t* res_gather,
                                                    uint32_t* res_meta, uint16_t* res_a,
                                                    int64_t pair0, int npairs, int tid) {
  for (int c = tid; c < npairs * (kPairGatherBytes / 16); c += kThreads)
    cp_async16(smem_address(res_gather + c * 4), p.gather + pair0 * kPairK + c * 4, 16);
  cp_async_commit();
  cp_async_wait<0>();
  __syncthreads();
  for (int c = tid; c < npairs * kSlices * (kPairSliceMBytes / 16); c += kThreads)
    cp_async16(smem_address(res_meta + c * 4), p.metadata + pair0 * (kSlices * 32) + c * 4, 16);
  for (int c = tid; c < npairs * kSlices * (kPairSliceABytes / 16); c += kThreads)
    cp_async16(smem_address(res_a + c * 8), p.values + pair0 * (kSlices * 512) + c * 8, 16);
}

/// B of the mma.sync kernel (TileShape<BT, BN>): 64 rows in MMA order, S::kBStride = BN + 8
/// elements each, a stage every kStageStride bytes from `smem`. Thread (row group, chunk) copies
/// the 16-byte chunk `chunk` of kRowsPerThread consecutive rows, so its gather indices are one or
/// two vector loads. The step's indices: the index ring's slot s (streaming) or the resident
/// panel's pair j.
template <class S, int BN, int kStageStride, bool kResident>
struct MmaBLayout {
  static constexpr int kChunksPerRow = BN / 8;
  static constexpr int kRowGroups = S::kThreads / kChunksPerRow;
  static constexpr int kRowsPerThread = kPairK / kRowGroups;
  static constexpr int kIdxStep = 1;
  static_assert(S::kThreads % kChunksPerRow == 0 && kPairK % kRowGroups == 0 &&
                    (kRowsPerThread == 2 || kRowsPerThread % 4 == 0),
                "B copy mapping: 2, 4 or 8 consecutive rows per thread");
  unsigned char* smem;
  const int32_t* indices;  // the index ring (streaming) or the resident gather indices
  int chunk, row_group;

  __device__ __forceinline__ MmaBLayout(unsigned char* smem_, const int32_t* indices_, int tid)
      : smem(smem_), indices(indices_), chunk(tid % kChunksPerRow),
        row_group(tid / kChunksPerRow) {}
  __device__ __forceinline__ uint16_t* stage(int s) const {
    return reinterpret_cast<uint16_t*>(smem + s * kStageStride);
  }
  /// The step's 64 gather indices (stage s, pair j).
  __device__ __forceinline__ const int32_t* step_idx(int s, int j) const {
    return kResident ? indices + j * kPairK : indices + s * kPairK;
  }
  /// This thread's first gather index and the shared address of its first row.
  __device__ __forceinline__ const int32_t* idx(int s, int j) const {
    return step_idx(s, j) + row_group * kRowsPerThread;
  }
  __device__ __forceinline__ uint32_t dst(int s) const {
    return smem_address(stage(s) + row_group * kRowsPerThread * S::kBStride + chunk * 8);
  }
  /// Row r of this thread's copies.
  __device__ __forceinline__ uint32_t row_dst(uint32_t dst, int r) const {
    return dst + r * S::kBStride * 2;
  }
  /// The shared address of byte `offset` of stage 0.
  __device__ __forceinline__ uint32_t address(int offset) const {
    return smem_address(smem + offset);
  }
  /// B rows not 16-byte aligned: element by element, the block's threads over the step's rows.
  __device__ __forceinline__ void copy_elements(const KernelParams& p, int s, int j, int64_t n0,
                                                int tid) const {
    const int32_t* idx = step_idx(s, j);
    uint16_t* bs = stage(s);
    for (int e = tid; e < kPairK * BN; e += S::kThreads) {
      const int r = e / BN, c = e % BN;
      const int32_t col = idx[r];
      const int64_t gc = n0 + c;
      bs[r * S::kBStride + c] =
          (col >= 0 && gc < p.n) ? p.b[static_cast<int64_t>(col) * p.ldb + gc] : uint16_t{0};
    }
  }
};

/// B of the warpgroup kernel (WgTileShape<BT, BN>), MN-major as the wgmma descriptor names it,
/// a stage every S::kStageBytes from the 1 KB aligned shared address smem0.
///   * kSw128 (128-byte swizzle): atom (k / 8, n / 64) of 8 k rows x 64 columns (1 KB) at
///     (k / 8) * kSbo + (n / 64) * 1024, row k % 8 at 128 (k % 8), chunk c at slot c ^ (k % 8).
///     Thread (row group rg, chunk) copies chunk `chunk` of the kRowsPerThread consecutive rows
///     from rg * kRowsPerThread (one 8-row atom: its row i lands at 128 i further, slot x ^ i).
///   * no swizzle: core matrices of 8 k rows x 8 columns (128 contiguous bytes), 8-row groups
///     kKGroupBytes apart; thread (rg, chunk, r8) copies the rows 8 (rg + kRowGroups i) + r8,
///     8 rows x 4 chunks per warp instruction.
template <class S, int BN, bool kSw128>
struct WgBLayout {
  static constexpr int kThreads = S::kThreads;
  static constexpr int kChunksPerRow = BN / 8;
  static constexpr int kSbo = (BN / 64) * 1024;  ///< swizzled: the stride of 8-row atoms
  static constexpr int kRowGroups =
      kSw128 ? kThreads / kChunksPerRow : kThreads / (8 * kChunksPerRow);
  static constexpr int kRowsPerThread = kSw128 ? kPairK / kRowGroups : 8 / kRowGroups;
  static_assert(kSw128 ? (kRowsPerThread == 2 || kRowsPerThread == 4 || kRowsPerThread == 8)
                       : (kRowGroups >= 1 && kRowGroups * kRowsPerThread == 8),
                "B copy mapping");
  static constexpr int kRowStep = kSw128 ? 128 : kRowGroups * S::kKGroupBytes;  ///< dst per row
  static constexpr int kIdxStep = kSw128 ? 1 : kRowGroups * 8;  ///< gather index per row
  const uint32_t smem0;
  const int32_t* idx_ring;
  uint32_t b_dst0;  // row i of this thread: b_dst0 + i * kRowStep, slot ^ (i << 4) if swizzled
  int idx_off;      // its first gather index; row i at idx_off + i * kIdxStep
  uint32_t b_xor = 0;
  int chunk;  // its columns

  __device__ __forceinline__ WgBLayout(uint32_t smem0_, const int32_t* idx_ring_, int tid)
      : smem0(smem0_), idx_ring(idx_ring_) {
    chunk = kSw128 ? tid % kChunksPerRow : (tid >> 3) % kChunksPerRow;
    if constexpr (kSw128) {
      const int rg = tid / kChunksPerRow;
      const int row0 = rg * kRowsPerThread;  // k0 = row0 % 8 (+ i, no carry), k1 = row0 / 8
      const int k0 = row0 & 7;
      b_dst0 = smem0 + (row0 >> 3) * kSbo + (chunk >> 3) * 1024 + k0 * 128;
      b_xor = static_cast<uint32_t>(((chunk & 7) ^ k0) << 4);
      idx_off = row0;
    } else {
      const int r8 = tid & 7, rg = tid / (8 * kChunksPerRow);
      b_dst0 = smem0 + rg * S::kKGroupBytes + chunk * 128 + r8 * 16;
      idx_off = rg * 8 + r8;
    }
  }
  __device__ __forceinline__ const int32_t* idx(int s, int) const {
    return idx_ring + s * kPairK + idx_off;
  }
  __device__ __forceinline__ uint32_t dst(int s) const { return b_dst0 + s * S::kStageBytes; }
  __device__ __forceinline__ uint32_t row_dst(uint32_t dst, int i) const {
    return kSw128 ? dst + i * kRowStep + (b_xor ^ static_cast<uint32_t>(i << 4))
                  : dst + i * kRowStep;
  }
  __device__ __forceinline__ uint32_t address(int offset) const { return smem0 + offset; }
};

/// A thread's kR gather indices from idx, kStep apart: one or two vector loads when consecutive.
template <int kR, int kStep>
__device__ __forceinline__ void load_cols(const int32_t* idx, int32_t (&cols)[kR]) {
  if constexpr (kStep == 1 && kR == 2) {
    const int2 v = *reinterpret_cast<const int2*>(idx);
    cols[0] = v.x;
    cols[1] = v.y;
  } else if constexpr (kStep == 1) {
#pragma unroll
    for (int r = 0; r < kR; r += 4) {
      const int4 v = *reinterpret_cast<const int4*>(idx + r);
      cols[r] = v.x;
      cols[r + 1] = v.y;
      cols[r + 2] = v.z;
      cols[r + 3] = v.w;
    }
  } else {
#pragma unroll
    for (int r = 0; r < kR; ++r) cols[r] = idx[r * kStep];
  }
}

/// The producer of one block: S its tile shape (kThreads, kSlices, kBBytes, kABytes,
/// kStageBytes), BN, B layout L, kAligned (cp.async B gather; else L::copy_elements), kResident
/// (the stages carry B only; A, metadata and indices are the block's resident copies).
/// issue() loads the next step's group: its B (streaming: and its A and metadata, plus the
/// gather indices of the step kStages - 1 further). The cursors of the next issue (the step's
/// stage, pair and tile; the pair whose indices it loads) advance by one step per issue, so
/// nothing divides by npairs; i_left counts the steps still to issue (no step index: one
/// register less, which the compiler otherwise spent re-deriving the step count every k step).
/// What issue() changes (the cursors, the B chunk's base and bytes) is the kernel's locals,
/// bound by reference: held as members of the Producer (one aggregate instead of separate
/// variables) they compiled to different SASS (other orders of the loop's phis, +8
/// instructions at BLOCK_TILE 128, BN 128).
template <class S, int BN, class L, bool kAligned, bool kResident>
struct Producer {
  static constexpr int kStageStride = kResident ? S::kBBytes : S::kStageBytes;
  static constexpr int kSlices = S::kSlices, kThreads = S::kThreads;
  static constexpr int kRowsPerThread = L::kRowsPerThread;
  // A of a step: kSlices x 64 16-byte chunks over the block's threads.
  static constexpr int kAChunks = kSlices * 64;
  static constexpr int kAPerThread = (kAChunks + kThreads - 1) / kThreads;

  const KernelParams& p;
  const L b;
  const int tid, npairs;
  const int64_t tile0;
  int &i_left, &i_stage, &i_pair, &i_tile;
  int& x_pair;
  // This thread's B chunk in the issue cursor's n tile (aligned path): where its column starts
  // in B's row 0 and how many bytes of it lie inside n (0 past n: the copies then read nothing,
  // their address stays inside B). Recomputed when the cursor enters a new tile.
  const uint16_t*& chunk_base;
  int& chunk_bytes;
  // This thread's sources and destinations of the A / metadata / index copies at pair 0 and
  // stage 0 (a step adds its pair's and stage's offsets: no per-step 64-bit thread arithmetic).
  const uint16_t* const a_src0;
  const uint32_t* const m_src0;
  const int32_t* const x_src0;
  const uint32_t a_dst0, m_dst0, x_dst0;
  const uint32_t ldb_bytes;  // used when p.b_off32

  /// idx_ring: the streaming kernel's index ring (its slot s: step s's indices); then the
  /// cursors, initialized by the kernel: i_left = steps, i_stage = i_pair = i_tile = 0,
  /// x_pair = (kStages - 1) % npairs, chunk_base = p.b, chunk_bytes = 0.
  __device__ __forceinline__ Producer(const KernelParams& p_, const L& b_, int tid_,
                                      int64_t pair0, int npairs_, int64_t tile0_,
                                      const int32_t* idx_ring, int& i_left_, int& i_stage_,
                                      int& i_pair_, int& i_tile_, int& x_pair_,
                                      const uint16_t*& chunk_base_, int& chunk_bytes_)
      : p(p_), b(b_), tid(tid_), npairs(npairs_), tile0(tile0_), i_left(i_left_),
        i_stage(i_stage_), i_pair(i_pair_), i_tile(i_tile_), x_pair(x_pair_),
        chunk_base(chunk_base_), chunk_bytes(chunk_bytes_),
        a_src0(p_.values + pair0 * (kSlices * 512) + tid_ * 8),
        m_src0(p_.metadata + pair0 * (kSlices * 32) + tid_ * 4),
        x_src0(p_.gather + pair0 * kPairK + tid_ * 4),
        a_dst0(b_.address(S::kBBytes) + tid_ * 16),
        m_dst0(b_.address(S::kBBytes + S::kABytes) + tid_ * 16),
        x_dst0(smem_address(idx_ring) + tid_ * 16), ldb_bytes(static_cast<uint32_t>(p_.ldb) * 2) {
    if constexpr (kAligned) enter_tile();
  }

  __device__ __forceinline__ void enter_tile() {
    const int64_t chunk_col = (tile0 + i_tile) * BN + b.chunk * 8;
    chunk_bytes = chunk_col >= p.n ? 0
                  : (p.n - chunk_col >= 8 ? 16 : static_cast<int>(p.n - chunk_col) * 2);
    chunk_base = chunk_bytes > 0 ? p.b + chunk_col : p.b;
  }

  /// The B rows of step (stage s, pair j): this thread's chunk of its kRowsPerThread rows.
  __device__ __forceinline__ void copy_b(int s, int j) {
    const int32_t* idx = b.idx(s, j);
    int32_t cols[kRowsPerThread];
    load_cols<kRowsPerThread, L::kIdxStep>(idx, cols);
    const uint32_t dst = b.dst(s);
    const uint64_t ldb = static_cast<uint64_t>(p.ldb);
    if ((chunk_bytes == 16 || chunk_bytes == 0) && p.b_off32) {
      // Whole chunks, every row within 4 GiB of B: a 32-bit byte offset per row (one IMAD)
      // on the chunk's 64-bit base instead of a 64-bit product per row.
      const unsigned char* base = reinterpret_cast<const unsigned char*>(chunk_base);
#pragma unroll
      for (int r = 0; r < kRowsPerThread; ++r) {
        const int32_t col = cols[r];
        const uint32_t off = static_cast<uint32_t>(col >= 0 ? col : 0) * ldb_bytes;
        cp_async16_or_zero(b.row_dst(dst, r), base + off, col < 0 || chunk_bytes == 0);
      }
    } else if (chunk_bytes == 16 || chunk_bytes == 0) {  // whole chunks (n % 8 == 0)
#pragma unroll
      for (int r = 0; r < kRowsPerThread; ++r) {
        const int32_t col = cols[r];
        const uint64_t row = static_cast<uint32_t>(col >= 0 ? col : 0);  // -1: zero-filled
        cp_async16_or_zero(b.row_dst(dst, r), chunk_base + row * ldb,
                           col < 0 || chunk_bytes == 0);
      }
    } else {  // the chunk that n cuts
#pragma unroll
      for (int r = 0; r < kRowsPerThread; ++r) {
        const int32_t col = cols[r];
        const uint64_t row = static_cast<uint32_t>(col >= 0 ? col : 0);
        cp_async16(b.row_dst(dst, r), chunk_base + row * ldb, col >= 0 ? chunk_bytes : 0);
      }
    }
  }

  __device__ __forceinline__ void issue() {
    if (i_left > 0) {
      const int s = i_stage;
      const int j = i_pair;
      if constexpr (kAligned) copy_b(s, j);
      else b.copy_elements(p, s, j, (tile0 + i_tile) * BN, tid);
      if constexpr (!kResident) {
        const uint16_t* a_src = a_src0 + j * (kSlices * 512);
        const uint32_t a_dst = a_dst0 + s * kStageStride;
#pragma unroll
        for (int i = 0; i < kAPerThread; ++i) {
          if (kAChunks % kThreads == 0 || tid + i * kThreads < kAChunks)
            cp_async16(a_dst + i * kThreads * 16, a_src + i * kThreads * 8, 16);
        }
        if (tid < kSlices * 8)
          cp_async16(m_dst0 + s * kStageStride, m_src0 + j * (kSlices * 32), 16);
      }
    }
    if constexpr (!kResident) {
      // The indices of the step kStages - 1 further: its ring slot is the one before i_stage.
      if (i_left > kStages - 1 && tid < kPairK / 4)
        cp_async16(x_dst0 + (i_stage == 0 ? kStages - 1 : i_stage - 1) * (kPairK * 4),
                   x_src0 + x_pair * kPairK, 16);
    }
    cp_async_commit();
    --i_left;
    if (++i_stage == kStages) i_stage = 0;
    if (++i_pair == npairs) {
      i_pair = 0;
      ++i_tile;
      if constexpr (kAligned) enter_tile();
    }
    if (++x_pair == npairs) x_pair = 0;
  }

  /// Steps 0 .. kStages - 2. Streaming: a barrier between issues, since the next issue
  /// overwrites the index slot the previous one read.
  __device__ __forceinline__ void prologue() {
#pragma unroll
    for (int q = 0; q < kStages - 1; ++q) {
      issue();
      if constexpr (!kResident) __syncthreads();
    }
  }
};

}  // namespace spx::kernels::sptc::detail
