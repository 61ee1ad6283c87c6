// B's k x NT chunk in shared memory for the staged SlotSplit kernel (spmm_slot_staged.cu, its
// only includer: the anonymous namespace stays one translation unit's): where the chunk sits
// (StagedLayout), the threads' copy and the TMA unit's bulk copy into it, and the gathers of
// its rows.
#pragma once

#include <type_traits>

#include "device/cp_async.cuh"
#include "device/mbarrier.cuh"
#include "families/ell/kernels/device.cuh"

namespace spx::kernels::ell {
namespace {

using detail::to_float;
/// Bytes of one staged B row (NT elements).
template <class T, int NT>
constexpr int staged_row_bytes() {
  return NT * static_cast<int>(sizeof(T));
}

/// Threads per block: 1024 when a lane's registers fit 64 (rows of <= 16 B), else 512
/// (config.hpp's slot_staged_threads, which the rule uses, says the same).
template <class T, int NT>
constexpr int staged_threads() {
  return staged_row_bytes<T, NT>() <= 16 ? kStagedThreads : kStagedThreads / 2;
}

/// Where B's staged chunk (k + 1 rows of kRowNt elements, the last one zero) sits in shared
/// memory. Rows of less than 16 B are packed (row c at c * kRowBytes). Rows of 16 B or more are
/// kPieces planes of 16-byte rows: plane q holds piece q (elements 8 q .. 8 q + 7 in fp16) of every
/// row, `plane` = (k + 1) x 16 bytes apart. For any plane, rows with distinct c mod 8 land in
/// distinct 16-byte bank groups (the plan's bank order gives a quarter-warp 8 such rows: one
/// wavefront), and a piece's address is base + c * 16 (one LEA) plus a plane offset: the XOR
/// swizzle of one 32-byte row it replaced cost ~3 more instructions per slot at NT = 16.
template <class T, int kRowNt>
struct StagedLayout {
  static constexpr int kRowBytes = kRowNt * static_cast<int>(sizeof(T));
  static constexpr int kPieces = kRowBytes >= 16 ? kRowBytes / 16 : 1;
  static_assert(kRowBytes < 16 || kPieces == 1 || kPieces == 2 || kPieces == 4,
                "staged rows of 16, 32 or 64 B");
  uint32_t plane = 0;  ///< bytes between planes: (k + 1) x 16

  __device__ __forceinline__ explicit StagedLayout(int64_t k)
      : plane(static_cast<uint32_t>((k + 1) * 16)) {}
  /// Byte offset of 16-byte piece q of row c (rows of >= 16 B).
  __device__ __forceinline__ uint32_t piece(uint32_t c, int q) const {
    return static_cast<uint32_t>(q) * plane + c * 16u;
  }
  /// Byte offset of element j of row c.
  __device__ __forceinline__ uint32_t element(uint32_t c, int j) const {
    const int byte = j * static_cast<int>(sizeof(T));
    if constexpr (kRowBytes >= 16)
      return piece(c, byte / 16) + static_cast<uint32_t>(byte % 16);
    else
      return c * kRowBytes + static_cast<uint32_t>(byte);
  }
};

/// The NT elements of staged row c that a lane multiplies, as floats. `bs`: the chunk, offset to
/// the lane's first plane (column part) when the rows are >= 16 B; rows of kRowNt elements.
template <class T, int NT, int kRowNt = NT>
__device__ __forceinline__ void load_staged(const unsigned char* bs, const StagedLayout<T, kRowNt>& L,
                                            uint32_t c, float (&out)[NT]) {
  constexpr int kPartBytes = NT * static_cast<int>(sizeof(T));
  static_assert(kRowNt == NT || kPartBytes >= 16, "column parts of whole 16-byte pieces");
  if constexpr (StagedLayout<T, kRowNt>::kRowBytes >= 16) {
    constexpr int kPer = 16 / static_cast<int>(sizeof(T));
    const unsigned char* row = bs + c * 16u;
#pragma unroll
    for (int q = 0; q < kPartBytes / 16; ++q) {
      const uint4 u = *reinterpret_cast<const uint4*>(row + static_cast<uint32_t>(q) * L.plane);
      if constexpr (sizeof(T) == 4) {
        float f[4];
        detail::unpack(u, f);
#pragma unroll
        for (int i = 0; i < 4; ++i) out[q * kPer + i] = f[i];
      } else {
        __half tag[8];
        float f[8];
        detail::unpack(u, tag, f);
#pragma unroll
        for (int i = 0; i < 8; ++i) out[q * kPer + i] = f[i];
      }
    }
  } else {
    const T* p = reinterpret_cast<const T*>(bs + L.element(c, 0));
#pragma unroll
    for (int i = 0; i < NT; ++i) out[i] = to_float(p[i]);
  }
}

/// Where this block starts its copy of B's chunk of `total` pieces: block b at (61 b mod 128) /
/// 128 of the chunk, wrapping. All SMs stage the same bytes at once, and starting together they
/// would all ask the same L2 lines at the same time (README, SlotSplit staged).
__device__ __forceinline__ int64_t staging_start(int64_t total) {
  return static_cast<int64_t>(blockIdx.x) * 61 % 128 * total / 128;
}

/// 32-bit word i (0 .. 3) of a 16-byte piece.
__device__ __forceinline__ uint32_t word_of(const uint4& u, int i) {
  return i == 0 ? u.x : i == 1 ? u.y : i == 2 ? u.z : u.w;
}

/// Transposes a kPer x kPer tile held as kPer 16-byte column pieces (`in[j]`: rows 0 .. kPer - 1
/// of column j) into kPer row pieces (`out[r]`: columns 0 .. kPer - 1 of row r).
template <class T>
__device__ __forceinline__ void transpose_tile(const uint4 (&in)[16 / sizeof(T)],
                                               uint4 (&out)[16 / sizeof(T)]) {
  constexpr int kPer = 16 / static_cast<int>(sizeof(T));
#pragma unroll
  for (int r = 0; r < kPer; ++r) {
    uint32_t w[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) {
      if constexpr (sizeof(T) == 4) {
        w[i] = word_of(in[i], r);
      } else {  // row r's halves of columns 2i and 2i + 1: one byte permute
        w[i] = __byte_perm(word_of(in[2 * i], r / 2), word_of(in[2 * i + 1], r / 2),
                           r % 2 ? 0x7632 : 0x5410);
      }
    }
    out[r] = make_uint4(w[0], w[1], w[2], w[3]);
  }
}

/// Column-major B with rows of >= 16 B and 16-byte aligned columns: each thread moves tiles of
/// kPer rows x kPer columns (kPer = elements per 16 B): kPer 16-byte loads down the columns, a
/// transpose in registers, kPer 16-byte stores of row pieces. Threads of a warp take
/// consecutive row groups, so each load covers whole 32-byte sectors of a column. The stores
/// would all hit one 16-byte bank group (row pieces are 16 B apart and a group is kPer rows, so
/// every thread's row r lands at the same offset mod 128 B); each thread therefore writes its
/// rows in an order rotated by its group, which spreads a warp's stores over all 8 bank groups.
/// The scalar copy of the same chunk (one element per load, 2-byte stores 16 B apart) made the
/// decode kernel about 3x slower with column-major B than with row-major B.
template <class T, int NT>
__device__ __forceinline__ void stage_b_columns_vec(const T* B, int64_t ld, int64_t k, int64_t n0,
                                                    int ncols, const StagedLayout<T, NT>& L,
                                                    unsigned char* bs) {
  constexpr int kPer = 16 / static_cast<int>(sizeof(T));
  constexpr int kPieces = StagedLayout<T, NT>::kRowBytes / 16;
  static_assert(StagedLayout<T, NT>::kRowBytes >= 16, "rows of whole 16-byte pieces");
  const int groups = static_cast<int>(k / kPer);
  const int total = groups * kPieces;
  for (int t = static_cast<int>(threadIdx.x); t < total; t += static_cast<int>(blockDim.x)) {
    const int g = t / kPieces;
    const int q = t % kPieces;
    uint4 in[kPer];
#pragma unroll
    for (int j = 0; j < kPer; ++j) {
      const int col = q * kPer + j;
      in[j] = col < ncols ? __ldg(reinterpret_cast<const uint4*>(
                                B + (n0 + col) * ld + static_cast<int64_t>(g) * kPer))
                          : make_uint4(0u, 0u, 0u, 0u);
    }
    uint4 out[kPer];
    transpose_tile<T>(in, out);
    // out[s] becomes row (s + rot) mod kPer: a rotation by rot, as shifts by 1, 2, 4.
    const int rot = g % kPer;
#pragma unroll
    for (int b = 1; b < kPer; b <<= 1) {
      if (rot & b) {
        uint4 tmp[kPer];
#pragma unroll
        for (int s = 0; s < kPer; ++s) tmp[s] = out[(s + b) % kPer];
#pragma unroll
        for (int s = 0; s < kPer; ++s) out[s] = tmp[s];
      }
    }
#pragma unroll
    for (int s = 0; s < kPer; ++s) {
      const uint32_t row = static_cast<uint32_t>(g * kPer + (s + rot) % kPer);
      *reinterpret_cast<uint4*>(bs + L.piece(row, q)) = out[s];
    }
  }
  // The last k mod kPer rows, one element at a time.
  const int64_t tail0 = static_cast<int64_t>(groups) * kPer;
  const int tail = static_cast<int>(k - tail0) * NT;
  for (int i = static_cast<int>(threadIdx.x); i < tail; i += static_cast<int>(blockDim.x)) {
    const int64_t c = tail0 + i / NT;
    const int j = i % NT;
    *reinterpret_cast<T*>(bs + L.element(static_cast<uint32_t>(c), j)) =
        j < ncols ? __ldg(B + (n0 + j) * ld + c) : T(0.0f);
  }
}

/// Copies B[:, n0 : n0 + ncols] into shared memory (StagedLayout), zero in the
/// columns past ncols. b_vec: row-major B whose chunk rows are whole aligned 16-byte pieces;
/// b_col_vec: column-major B whose columns are 16-byte aligned, rows of >= 16 B.
/// Returns *len_src (the lane's first row length; 0 when len_src is null), loaded once the copy's
/// first loads are in flight: requested before them, it was spilled at once (64 registers) and
/// the spill store waited a whole L2 round trip before the copy could start (ncu, docs/notes/ell.md note 12).
/// kBatch: pieces per thread in flight (see the loop).
template <class T, int NT, int kBatch>
__device__ __forceinline__ int stage_b_chunk(const SpmmArgs& a, const StagedLayout<T, NT>& L,
                                             int64_t n0, int ncols, bool b_vec, bool b_col_vec,
                                             bool rotate, bool async, unsigned char* bs,
                                             const int* len_src) {
  const T* B = static_cast<const T*>(a.B.ptr);
  const int64_t ld = a.B.ld;
  constexpr int kRowBytes = staged_row_bytes<T, NT>();
  int len = 0;
  if (kRowBytes >= 16 && b_vec) {
    constexpr int kPieces = kRowBytes >= 16 ? kRowBytes / 16 : 1;
    constexpr int kPer = 16 / static_cast<int>(sizeof(T));
    // Pieces fit 32 bits: the chunk fits shared memory.
    const int total = static_cast<int>(a.k) * kPieces;
    const int threads = static_cast<int>(blockDim.x);
    const int rot = rotate ? static_cast<int>(staging_start(total)) : 0;
    auto piece_of = [&](int it, int64_t& src, uint32_t& dst) {
      const int i = it + rot < total ? it + rot : it + rot - total;
      const int c = i / kPieces;
      const int q = i % kPieces;
      src = static_cast<int64_t>(c) * ld + n0 + q * kPer;
      dst = L.piece(static_cast<uint32_t>(c), q);
    };
    if (async) {
      // cp.async: every piece of the thread in flight at once, no registers.
      for (int it = static_cast<int>(threadIdx.x); it < total; it += threads) {
        int64_t src;
        uint32_t dst;
        piece_of(it, src, dst);
        cp_async16(bs + dst, B + src, 16);
      }
      cp_async_commit();
      if (len_src != nullptr) len = *len_src;
      cp_async_wait<0>();
      return len;
    }
    // Loads and stores in batches of kBatch pieces per thread: all loads of a batch in flight
    // before its stores. The plain loop (load, store, load, ...) compiled to one L2 round trip
    // per piece, four in a row per thread at 4096^2 x 16 (ncu: 18 % of the kernel's stall
    // samples on those stores, docs/notes/ell.md note 12).
    bool first_batch = true;
    for (int base = static_cast<int>(threadIdx.x); base < total; base += kBatch * threads) {
      uint4 u[kBatch];
      uint32_t dst[kBatch];
#pragma unroll
      for (int b = 0; b < kBatch; ++b) {
        const int it = base + b * threads;
        if (it < total) {
          int64_t src;
          piece_of(it, src, dst[b]);
          u[b] = __ldg(reinterpret_cast<const uint4*>(B + src));
        }
      }
      if (first_batch && len_src != nullptr) len = *len_src;
      first_batch = false;
#pragma unroll
      for (int b = 0; b < kBatch; ++b)
        if (base + b * threads < total) *reinterpret_cast<uint4*>(bs + dst[b]) = u[b];
    }
    if (first_batch && len_src != nullptr) len = *len_src;
    return len;
  }
  if (len_src != nullptr) len = *len_src;
  if constexpr (kRowBytes >= 16) {
    if (b_col_vec) {
      stage_b_columns_vec<T, NT>(B, ld, a.k, n0, ncols, L, bs);
      return len;
    }
  }
  if (a.B.order == SPX_ORDER_ROW) {
    const int64_t total = a.k * NT;
#pragma unroll 4
    for (int64_t i = threadIdx.x; i < total; i += blockDim.x) {
      const int64_t c = i / NT;
      const int j = static_cast<int>(i % NT);
      *reinterpret_cast<T*>(bs + L.element(static_cast<uint32_t>(c), j)) =
          j < ncols ? __ldg(B + c * ld + n0 + j) : T(0.0f);
    }
  } else {
    // Column-major: consecutive threads read consecutive rows of one column (coalesced).
    for (int j = 0; j < NT; ++j) {
      const T* col = B + (n0 + j) * ld;
#pragma unroll 4
      for (int64_t c = threadIdx.x; c < a.k; c += blockDim.x)
        *reinterpret_cast<T*>(bs + L.element(static_cast<uint32_t>(c), j)) =
            j < ncols ? __ldg(col + c) : T(0.0f);
    }
  }
  return len;
}

/// The bulk copy's layout for rows of 32 B: B's chunk as it is, row c at 32 c. A quarter-warp's
/// 8 lanes gather rows with distinct columns mod 8 (the plan's bank order), but their first
/// halves lie in only 4 distinct 16-byte bank groups (2 c mod 8). So odd lanes read a row's
/// second half first, and the plan puts residues r and r + 4 (mod 8) in lanes of different
/// parity (families/ell/plan/layout.cpp): each of the two loads of the quarter-warp is then one
/// wavefront. `first` = the chunk + 16 x (lane parity), `second_delta` = +16 or -16 bytes;
/// acc[0, NT / 2) takes the half read first, acc[NT / 2, NT) the other (odd lanes swap them
/// back before the reduction: unswap_contig32).
template <class T, int NT>
__device__ __forceinline__ void gather_contig32(float (&acc)[NT], const unsigned char* first,
                                                int second_delta, float v, uint32_t c) {
  static_assert(NT * sizeof(T) == 32, "rows of 32 B");
  constexpr int kHalf = NT / 2;
  const unsigned char* row = first + c * 32u;
  const uint4 u[2] = {*reinterpret_cast<const uint4*>(row),
                      *reinterpret_cast<const uint4*>(row + second_delta)};
  float b[NT];
#pragma unroll
  for (int h = 0; h < 2; ++h) {
    if constexpr (sizeof(T) == 4) {
      float f[4];
      detail::unpack(u[h], f);
#pragma unroll
      for (int i = 0; i < 4; ++i) b[h * kHalf + i] = f[i];
    } else {
      __half tag[8];
      float f[8];
      detail::unpack(u[h], tag, f);
#pragma unroll
      for (int i = 0; i < 8; ++i) b[h * kHalf + i] = f[i];
    }
  }
#pragma unroll
  for (int j = 0; j < NT; ++j) acc[j] = fmaf(v, b[j], acc[j]);
}

/// Odd lanes of gather_contig32 hold the row's second half in acc[0, NT / 2): swap it back.
template <int NT>
__device__ __forceinline__ void unswap_contig32(float (&acc)[NT], bool odd) {
#pragma unroll
  for (int j = 0; j < NT / 2; ++j) {
    const float lo = acc[j], hi = acc[j + NT / 2];
    acc[j] = odd ? hi : lo;
    acc[j + NT / 2] = odd ? lo : hi;
  }
}

/// Byte offset of the bulk copy's mbarrier: after the chunk and the zero row, 8-byte aligned
/// (config.hpp: slot_stage_bytes reserves kSlotStageBarrierBytes for it).
template <int kRowBytes>
__device__ __forceinline__ uint32_t bulk_barrier_offset(int64_t k) {
  return (static_cast<uint32_t>((k + 1) * kRowBytes) + 7u) & ~7u;
}

/// sm_90: thread 0 has the TMA unit copy B's chunk (B's whole rows: `bytes` contiguous bytes at
/// B, a multiple of 16) into shared memory as it is, counted on the mbarrier `bar`; the threads
/// wait for it with mbar_wait(bar, 0). The threads' copy of 128 KB per SM (fp16 4096^2 x 16) was
/// ~1/4 of the decode kernel (docs/notes/ell.md, note 12), its loads and stores through every SM's
/// load/store path; the TMA unit moves the same bytes without them.
__device__ __forceinline__ void stage_b_bulk(const SpmmArgs& a, unsigned char* bs, uint32_t bar,
                                             uint32_t bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if (threadIdx.x != 0) return;
  mbar_init(bar, 1);
  // The barrier's initialization visible to the async proxy (the TMA unit) before its copies.
  asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
  mbar_arrive_expect_tx(bar, bytes);
  // B's chunk goes as pieces of 8 KB, each block starting at its own piece (staging_start).
  constexpr uint32_t kBulkPieceBytes = 8192;
  const uint32_t pieces = (bytes + kBulkPieceBytes - 1) / kBulkPieceBytes;
  const uint32_t start = static_cast<uint32_t>(staging_start(pieces));
  const unsigned char* src = static_cast<const unsigned char*>(a.B.ptr);
  const uint32_t dst = smem_address(bs);
  for (uint32_t i = 0; i < pieces; ++i) {
    const uint32_t piece = start + i < pieces ? start + i : start + i - pieces;
    const uint32_t off = piece * kBulkPieceBytes;
    const uint32_t len = bytes - off < kBulkPieceBytes ? bytes - off : kBulkPieceBytes;
    bulk_copy_to_shared(dst + off, src + off, len, bar);
  }
#else
  (void)a, (void)bs, (void)bar, (void)bytes;
  __trap();  // the host launches the bulk kernels on sm_90 and later only
#endif
}

}  // namespace
}  // namespace spx::kernels::ell
