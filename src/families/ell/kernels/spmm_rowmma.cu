// RowMma: fp16 SpMM on tensor cores. B's chunk of 16 x kTiles columns (32 x kTiles bytes per
// row) x k is staged in shared memory (plus one zero row at index k), its rows XOR-swizzled in
// 16-byte pieces; a warp computes 8 A rows x 16 kTiles columns with mma.sync m16n8k16 (fp16 in,
// fp32 accumulate) and gathers B's rows with ldmatrix.trans. kTiles = 4 (64 columns) is the
// large-n kernel; kTiles = 1 (16 columns) the decode kernel for 8 < n <= 16, where it needs a
// third of SlotSplit's instructions per slot (and its next 64 slots are requested before the
// current ones are multiplied: A comes from DRAM there).
//
// The product, for 8 rows r_0..r_7 and 16 columns, as one mma (M = columns, K = 16 slots,
// N = the 8 rows):
//   A operand (16 x 16): B^T of 16 gathered rows, i.e. k 0..7 = 8 slots of row r_2j (one position
//     set {64 b + 8 i + e : i} of the plan's bank order) and k 8..15 = the same set of row r_2j+1;
//     ldmatrix.x4.trans loads it, each of its four 8 x 8 matrices = 8 gathered B rows at one
//     16-byte piece. The bank order gives those 8 rows distinct columns mod 8, the swizzle puts
//     piece q of row c in bank group q ^ (c mod 8): one shared-memory wavefront per matrix.
//   B operand (16 x 8): block-diagonal values: column 2j holds row r_2j's 8 values, column 2j + 1
//     row r_2j+1's, every other entry 0.
// So an mma does 16 columns x 16 slots of useful work (1/8 of its MACs) for about 5 instructions,
// against ~90 instructions for the same work with FFMA and fp16 -> fp32 conversions: the kernel
// is bound by shared-memory bandwidth (2 bytes of B per useful MAC) instead of instruction issue.
// `splits` warps cut a row group's slots in parts whose sums meet in shared memory, for shapes
// with few row groups x column chunks.
#include <cuda_fp16.h>

#include "device/cp_async.cuh"
#include "families/ell/kernels/device.cuh"

namespace spx::kernels::ell {
namespace {

constexpr int kGroupRows = 8;  ///< mma N: A rows per warp
constexpr int kBlock = 64;     ///< slots per bank-order block (8 sets of 8)

/// Shape of the kTiles variant: staged row bytes, columns, threads.
template <int kTiles>
struct MmaShape {
  static_assert(kTiles == 1 || kTiles == 4, "16 or 64 columns per warp");
  static constexpr int kRowBytes = 32 * kTiles;
  static constexpr int kCols = 16 * kTiles;
  static constexpr int kPieces = kRowBytes / 16;
  static constexpr int kShift = kPieces == 2 ? 2 : 0;  // log2(8 / pieces)
  static constexpr int kAcc = kTiles * 4;              // fp32 accumulators per thread
  static constexpr int kThreads = kMmaThreads;  // 128 registers: 16 warps per SM
};

__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t addr, uint32_t (&r)[4]) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}

__device__ __forceinline__ void mma_16816(float (&d)[4], const uint32_t (&a)[4], uint32_t b0,
                                          uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

/// XOR applied to the 16-byte piece index of staged row c: with distinct c mod 8, a fixed piece
/// of 8 rows lands in 8 distinct bank groups (128-byte rows: q ^ c mod 8; 32-byte rows, whose
/// two pieces sit in groups 2 (c mod 4) + q: q ^ bit 2 of c).
template <int kTiles>
__device__ __forceinline__ uint32_t piece_swizzle(uint32_t c) {
  return (c >> MmaShape<kTiles>::kShift) & (MmaShape<kTiles>::kPieces - 1);
}
template <int kTiles>
__device__ __forceinline__ uint32_t piece_offset(uint32_t c, uint32_t q) {
  return c * MmaShape<kTiles>::kRowBytes + ((q ^ piece_swizzle<kTiles>(c)) << 4);
}

/// Column index e (0..7) of 8 16-bit or 32-bit indices held as raw vectors.
template <class I>
struct Index8 {
  static constexpr int kVecs = static_cast<int>(sizeof(I)) / 2;
  uint4 v[kVecs];
  __device__ __forceinline__ void load(const I* p) {
#pragma unroll
    for (int i = 0; i < kVecs; ++i) v[i] = __ldg(reinterpret_cast<const uint4*>(p) + i);
  }
  __device__ __forceinline__ void zero() {
#pragma unroll
    for (int i = 0; i < kVecs; ++i) v[i] = make_uint4(0, 0, 0, 0);
  }
  __device__ __forceinline__ uint32_t get(int e) const {
    const uint32_t w = reinterpret_cast<const uint32_t*>(v)[sizeof(I) == 2 ? e / 2 : e];
    if constexpr (sizeof(I) == 2) return (e & 1) ? (w >> 16) : (w & 0xFFFFu);
    return w;
  }
};

/// One 64-slot block of a warp's 8 rows, as this lane loads it: its values (row r0 + g,
/// positions 16 t4 + 0..15) and, per j, its ldmatrix row's 8 indices.
template <class I>
struct BlockData {
  uint4 va, vb;
  Index8<I> idx[4];
};

template <class I, int kTiles>
__global__ void __launch_bounds__(MmaShape<kTiles>::kThreads, 1)
    row_mma_kernel(SpmmArgs a, const __half* B, int64_t ldb, bool b_vec, int splits_log2) {
  using Shape = MmaShape<kTiles>;
  constexpr int kRowBytes = Shape::kRowBytes, kCols = Shape::kCols, kAcc = Shape::kAcc;
  extern __shared__ __align__(16) unsigned char smem[];
  unsigned char* bs = smem;
  const int64_t n0 = static_cast<int64_t>(blockIdx.y) * kCols;

  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int g = lane >> 2, t4 = lane & 3;   // mma fragment coordinates
  const int mi = lane >> 3, li = lane & 7;  // ldmatrix: matrix and row this lane addresses
  const int splits = 1 << splits_log2;
  const int part = warp & (splits - 1);
  const int slots_per_block = (blockDim.x >> 5) >> splits_log2;  // row groups per block and pass
  const int slot = warp >> splits_log2;
  const __half* values = static_cast<const __half*>(a.values);
  const I* indices = static_cast<const I*>(a.indices);
  const int64_t groups = (a.m + kGroupRows - 1) / kGroupRows;

  // A row group's lengths and the loads of one of its blocks (positions p0 .. p0 + 63).
  struct Lens {
    int v;     // this thread's values row
    int i[4];  // its ldmatrix row per j
  };
  auto lens_of = [&](int64_t group) {
    Lens l{};
    const int64_t r0 = group * kGroupRows;
    const bool live = group < groups;
    l.v = live && r0 + g < a.m ? a.row_len[r0 + g] : 0;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int64_t r = r0 + 2 * j + (mi >> 1);
      l.i[j] = live && r < a.m ? a.row_len[r] : 0;
    }
    return l;
  };
  auto load_block = [&](int64_t group, const Lens& l, int64_t p0, BlockData<I>& d) {
    const int64_t r0 = group * kGroupRows;
    d.va = make_uint4(0, 0, 0, 0);
    d.vb = d.va;
    const int64_t pv = p0 + 16 * t4;
    if (l.v > 0 && pv < a.stride) {
      const __half* src = values + (r0 + g) * a.stride + pv;
      d.va = __ldg(reinterpret_cast<const uint4*>(src));
      if (pv + 8 < a.stride) d.vb = __ldg(reinterpret_cast<const uint4*>(src) + 1);
    }
    const int64_t pi = p0 + 8 * li;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int64_t r = r0 + 2 * j + (mi >> 1);
      if (l.i[j] > 0 && pi < a.stride) d.idx[j].load(indices + r * a.stride + pi);
      else d.idx[j].zero();
    }
  };

  // The first row group's first block is requested before B is staged (decode: A is in DRAM).
  int64_t group = static_cast<int64_t>(blockIdx.x) * slots_per_block + slot;
  Lens lens = lens_of(group);
  BlockData<I> cur;
  load_block(group, lens, static_cast<int64_t>(part) * kBlock, cur);

  // Stage B[:, n0 : n0 + kCols] (zeros past n), swizzled, and the zero row k.
  const int64_t pieces = (a.k + 1) * Shape::kPieces;
#pragma unroll 8
  for (int64_t i = threadIdx.x; i < pieces; i += blockDim.x) {
    const int64_t r = i / Shape::kPieces;
    const int q = static_cast<int>(i % Shape::kPieces);
    const int64_t c0 = n0 + q * 8;
    uint4 u = make_uint4(0, 0, 0, 0);
    if (r < a.k) {
      if (b_vec && c0 + 8 <= a.n) {
        u = __ldg(reinterpret_cast<const uint4*>(B + r * ldb + c0));
      } else {
        __half e[8];
#pragma unroll
        for (int j = 0; j < 8; ++j) e[j] = c0 + j < a.n ? B[r * ldb + c0 + j] : __float2half(0.0f);
        u = *reinterpret_cast<const uint4*>(e);
      }
    }
    *reinterpret_cast<uint4*>(
        bs + piece_offset<kTiles>(static_cast<uint32_t>(r), static_cast<uint32_t>(q))) = u;
  }
  float* partial = reinterpret_cast<float*>(smem + (a.k + 1) * kRowBytes);  // splits > 1
  __syncthreads();

  const uint32_t bs_addr = smem_address(bs);
  // This lane's ldmatrix piece for tile t: (2 t + (mi & 1)), pre-shifted to bits 4..6.
  uint32_t toff[kTiles];
#pragma unroll
  for (int t = 0; t < kTiles; ++t) toff[t] = static_cast<uint32_t>(2 * t + (mi & 1)) << 4;
  const uint32_t zero_row = static_cast<uint32_t>(a.k);
  const float alpha = alpha_float(a.scalars), beta = beta_float(a.scalars);
  const int64_t pass = static_cast<int64_t>(gridDim.x) * slots_per_block;

  // Every warp of the block runs the same passes (the split sums meet at __syncthreads).
  for (int64_t base = static_cast<int64_t>(blockIdx.x) * slots_per_block; base < groups;
       base += pass, group += pass) {
    const bool live = group < groups;
    const int64_t r0 = group * kGroupRows;
    const int len_v = lens.v;
    int len_i[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) len_i[j] = lens.i[j];
    const int max_len = __reduce_max_sync(0xffffffffu, len_v);
    const int min_len = __reduce_min_sync(0xffffffffu, len_v);
    const int blocks = (max_len + kBlock - 1) / kBlock;
    float acc[kTiles][4];
#pragma unroll
    for (int t = 0; t < kTiles; ++t)
#pragma unroll
      for (int i = 0; i < 4; ++i) acc[t][i] = 0.0f;

    if (part >= blocks && group + pass < groups) {  // no block here: just request the next group's
      lens = lens_of(group + pass);
      load_block(group + pass, lens, static_cast<int64_t>(part) * kBlock, cur);
    }
    for (int blk = part; blk < blocks; blk += splits) {
      const int64_t p0 = static_cast<int64_t>(blk) * kBlock;
      const int64_t pi = p0 + 8 * li;
      BlockData<I> d = cur;
      // The next block of this group (or the next group's first) while this one is multiplied.
      if (blk + splits < blocks) {
        load_block(group, lens, p0 + static_cast<int64_t>(splits) * kBlock, cur);
      } else if (group + pass < groups) {
        lens = lens_of(group + pass);
        load_block(group + pass, lens, static_cast<int64_t>(part) * kBlock, cur);
      }
      const Index8<I>* idx = d.idx;
      const bool full = p0 + kBlock <= min_len;  // warp-uniform: no slot of the block is padding
      const uint32_t* va32 = reinterpret_cast<const uint32_t*>(&d.va);
      const uint32_t* vb32 = reinterpret_cast<const uint32_t*>(&d.vb);
#pragma unroll
      for (int e = 0; e < 8; ++e) {
        // Slots 2 t4 and 2 t4 + 1 of set e: positions pv + e and pv + 8 + e (halves of va / vb).
        const uint32_t lo = va32[e / 2] >> ((e & 1) * 16);
        const uint32_t hi = vb32[e / 2] >> ((e & 1) * 16);
        const uint32_t pk = (lo & 0xFFFFu) | (hi << 16);
#pragma unroll
        for (int j = 0; j < 4; ++j) {
          uint32_t c = idx[j].get(e);
          if (!full && pi + e >= len_i[j]) c = zero_row;  // padding gathers the zero row
          const uint32_t row_base = bs_addr + c * kRowBytes;
          const uint32_t sw = piece_swizzle<kTiles>(c) << 4;
          const uint32_t b0 = g == 2 * j ? pk : 0u;
          const uint32_t b1 = g == 2 * j + 1 ? pk : 0u;
#pragma unroll
          for (int t = 0; t < kTiles; ++t) {
            uint32_t frag[4];
            ldmatrix_x4_trans(row_base + (toff[t] ^ sw), frag);
            mma_16816(acc[t], frag, b0, b1);
          }
        }
      }
    }

    // Output coordinates of acc[t][i]: row r0 + 2 t4 + (i & 1), column n0 + 16 t + g + 8 (i >> 1).
    if (part == 0 && live && a.tail_ptr != nullptr) {  // HYB overflow of this thread's two rows
      const int64_t tail = a.m * a.stride;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        const int64_t r = r0 + 2 * t4 + h;
        if (r >= a.m) continue;
        for (int q = a.tail_ptr[r]; q < a.tail_ptr[r + 1]; ++q) {
          const float v = __half2float(values[tail + q]);
          const uint32_t c = static_cast<uint32_t>(indices[tail + q]);
#pragma unroll
          for (int t = 0; t < kTiles; ++t)
#pragma unroll
            for (int hi = 0; hi < 2; ++hi) {
              const int col = 16 * t + g + 8 * hi;
              const __half bv = *reinterpret_cast<const __half*>(
                  bs + piece_offset<kTiles>(c, static_cast<uint32_t>(col / 8)) + (col % 8) * 2);
              acc[t][h + 2 * hi] = fmaf(v, __half2float(bv), acc[t][h + 2 * hi]);
            }
        }
      }
    }
    if (splits > 1) {
      float* mine = partial + (static_cast<int64_t>(warp) * 32 + lane) * kAcc;
#pragma unroll
      for (int t = 0; t < kTiles; ++t)
#pragma unroll
        for (int i = 0; i < 4; ++i) mine[t * 4 + i] = acc[t][i];
      __syncthreads();
      if (part == 0)
        for (int p = 1; p < splits; ++p) {
          const float* other = partial + (static_cast<int64_t>(warp + p) * 32 + lane) * kAcc;
#pragma unroll
          for (int t = 0; t < kTiles; ++t)
#pragma unroll
            for (int i = 0; i < 4; ++i) acc[t][i] += other[t * 4 + i];
        }
      __syncthreads();
    }
    if (part != 0 || !live) continue;
#pragma unroll
    for (int t = 0; t < kTiles; ++t)
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const int64_t r = r0 + 2 * t4 + (i & 1);
        const int64_t col = n0 + 16 * t + g + 8 * (i >> 1);
        if (r < a.m && col < a.n) detail::store_out(a.C, a.scalars.epilogue, r, col, acc[t][i], alpha, beta);
      }
  }
}

template <int kTiles>
const void* kernel_of(bool index16) {
  return index16 ? reinterpret_cast<const void*>(row_mma_kernel<uint16_t, kTiles>)
                 : reinterpret_cast<const void*>(row_mma_kernel<int32_t, kTiles>);
}

template <int kTiles>
cudaError_t launch_tiles(const SpmmArgs& a, const RowMmaConfig& cfg, const CallLaunch& l,
                         const void* b_rows, int64_t ldb, cudaStream_t stream) {
  using Shape = MmaShape<kTiles>;
  int splits_log2 = 0;
  while ((1 << splits_log2) < cfg.splits) ++splits_log2;
  const int threads = cfg.warps * 32;
  if (!a.half || a.stride % kSlotVector != 0 || (1 << splits_log2) != cfg.splits ||
      threads > Shape::kThreads || cfg.warps % cfg.splits != 0)
    return cudaErrorInvalidValue;
  const bool b_vec = l.b_vec;
  const int64_t chunks = (a.n + Shape::kCols - 1) / Shape::kCols;
  if (chunks > 65535) return cudaErrorInvalidConfiguration;
  const size_t smem =
      static_cast<size_t>(row_mma_smem_bytes(a.k, cfg.warps, cfg.splits, Shape::kCols));
  const int per_sm = l.per_sm;
  if (per_sm < 1) return cudaErrorInvalidConfiguration;
  const int64_t groups = (a.m + kGroupRows - 1) / kGroupRows;
  const int64_t per_block = cfg.warps / cfg.splits;
  const int64_t needed = (groups + per_block - 1) / per_block;
  int64_t bx = static_cast<int64_t>(per_sm) * (a.sm_count > 0 ? a.sm_count : 1) / chunks;
  bx = bx < 1 ? 1 : (bx > needed ? needed : bx);
  const dim3 grid(static_cast<unsigned>(bx), static_cast<unsigned>(chunks));
  const __half* b = static_cast<const __half*>(b_rows);
  if (a.index16)
    row_mma_kernel<uint16_t, kTiles><<<grid, threads, smem, stream>>>(a, b, ldb, b_vec, splits_log2);
  else
    row_mma_kernel<int32_t, kTiles><<<grid, threads, smem, stream>>>(a, b, ldb, b_vec, splits_log2);
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_row_mma(const SpmmArgs& a, const EllConfig& launch, const void* b_rows, int64_t ldb,
                           cudaStream_t stream) {
  const auto* c = std::get_if<RowMmaConfig>(&launch.kernel);
  if (c == nullptr) return cudaErrorInvalidValue;
  if (c->mma_cols == 16) return launch_tiles<1>(a, *c, launch.call, b_rows, ldb, stream);
  if (c->mma_cols == 64) return launch_tiles<4>(a, *c, launch.call, b_rows, ldb, stream);
  return cudaErrorInvalidValue;
}

int row_mma_occupancy(const RowMmaConfig& cfg, bool index16, int64_t k) {
  const int threads = cfg.warps * 32;
  if (cfg.mma_cols != 16 && cfg.mma_cols != 64) return 0;
  const int cols = cfg.mma_cols;
  const void* fn = cols == 16 ? kernel_of<1>(index16) : kernel_of<4>(index16);
  return detail::occupancy(
      fn, threads, static_cast<size_t>(row_mma_smem_bytes(k, cfg.warps, cfg.splits, cols)));
}

cudaError_t load_row_mma(bool half, bool index16, size_t smem_optin) {
  if (!half) return cudaSuccess;
  for (const void* fn : {kernel_of<1>(index16), kernel_of<4>(index16)})
    if (const cudaError_t err = detail::load_kernel(fn, smem_optin); err != cudaSuccess) return err;
  return cudaSuccess;
}

}  // namespace spx::kernels::ell
