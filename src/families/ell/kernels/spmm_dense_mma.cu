// DenseMma: SpMM through dense tensor-core tiles, for moderately sparse A and n > 16: fp16 with
// mma.sync m16n8k16 (fp32 accumulate), fp32 with fp32-class accuracy (3xTF32). Every gather-based
// kernel is bound by shared-memory bandwidth at one B element per useful multiply-add (RowStaged
// fp32: ~23 of the 32 MAC/clk/SM that bandwidth allows; RowMma fp16 ~10 TMAC/s).
//
// Why dense tiles: a gathered B element is used by one A row only, so no kernel that multiplies
// slot by slot can reuse it from registers; a tensor-core GEMM tile reuses each B element of its
// shared-memory tile for 128 A rows. Below ~80 % sparsity (at n >= 128) the dense tile does more
// useful work per second even though most of its multiply-adds are by zero. So:
//   1. densify (one warp per row; in analyze and spxPlanUpdateValues, into the plan): the row's
//      ELL slots and HYB tail are summed in fp32 (duplicates allowed) into a dense row, ld = k
//      rounded up to the stage depth (zeros past k). The warp also flags the row when it holds a non-finite value, or (fp16) a
//      duplicate column, whose fp16 sum would round where the sparse kernels do not.
//   2. GEMM: block tile kRows x 128 columns x 128 bytes deep (32 fp32 / 64 fp16), 3-stage
//      cp.async pipeline, 8 warps of (kRows / 2) x 32. fp16: ldmatrix (A) / ldmatrix.trans (B)
//      fragments, one mma m16n8k16 per 16 x 8 x 16. fp32: mma m16n8k8 tf32; each operand x is split
//      into big = tf32(x) and small = tf32(x - big); a*b is taken as a_s*b_b + a_b*b_s + a_b*b_b
//      (the small products first), error <= ~3 * 2^-22 |a b| per product instead of TF32's 2^-11
//      (tests/families/ell/test_ell.cpp derives the tolerance).
// Zeros of A must not meet B's Inf / NaN (a sparse product never multiplies them): a block whose
// B tile holds a non-finite value (fp32: a NaN small part, Inf - Inf; fp16: b * 0 is NaN) or
// whose rows are flagged computes its tile again slot by slot, as the sparse kernels do, before
// writing C.
//
// fp32 fragment loads (k permuted inside each 8-deep step, the same permutation for A and B: lane
// (g, t4) holds k = 2 t4 and 2 t4 + 1 where the mma's layout says t4 and t4 + 4):
//   A: one 8-byte load of row g, k 2 t4..2 t4 + 1 (a0, a2) and of row g + 8 (a1, a3); row pitch
//      40 floats makes a half-warp's 16 loads cover 32 distinct banks;
//   B: two 4-byte loads, rows 2 t4 and 2 t4 + 1, column g; row pitch 132 floats puts the 4 rows
//      of a load in 4 distinct groups of 8 banks.
#include "device/cp_async.cuh"
#include "families/ell/kernels/device.cuh"

namespace spx::kernels::ell {
namespace {

using detail::to_float;
template <class T>
__device__ __forceinline__ T from_float(float x);
template <>
__device__ __forceinline__ float from_float<float>(float x) { return x; }
template <>
__device__ __forceinline__ __half from_float<__half>(float x) { return __float2half_rn(x); }

/// Shape of the (element, kRows) variant.
template <class T, int kTileRows>
struct DenseTile {
  static_assert(kTileRows == 64 || kTileRows == 128, "64 or 128 rows per block tile");
  static constexpr int kBytes = static_cast<int>(sizeof(T));
  static constexpr int kRows = kTileRows;
  static constexpr int kCols = kDenseMmaCols;                // 128
  static constexpr int kDepth = dense_mma_depth(kBytes);     // 32 fp32 / 64 fp16
  static constexpr int kStep = kBytes == 4 ? 8 : 16;         // mma K
  static constexpr int kPer16 = 16 / kBytes;                 // elements per 16-byte chunk
  static constexpr int kStages = 3;
  static constexpr int kWarpsM = 2, kWarpsN = 4;
  static constexpr int kThreads = kWarpsM * kWarpsN * kWarp;
  static constexpr int kWarpRows = kRows / kWarpsM;
  static constexpr int kWarpCols = kCols / kWarpsN;
  static constexpr int kMTiles = kWarpRows / 16;
  static constexpr int kNTiles = kWarpCols / 8;
  static constexpr int kAPitch = dense_mma_a_pitch(kBytes);  // elements
  static constexpr int kBPitch = dense_mma_b_pitch(kBytes);
  static constexpr int kAStage = kRows * kAPitch;
  static constexpr int kBStage = kDepth * kBPitch;
  static constexpr int kSmemBytes = kStages * (kAStage + kBStage) * kBytes;
  /// Blocks per SM the registers are sized for (ptxas, sm_90: 100 registers at 64 rows, 128 at
  /// 128 rows, no spills, with the steps of a stage not unrolled; unrolled, ptxas hoists all the
  /// steps' fragments and spills even at 255).
  static constexpr int kMinBlocks = 2;
  static_assert(kThreads == kDenseMmaThreads, "the launcher's block size");
  static_assert(kWarpCols == 32 && kDepth % kStep == 0, "4 n-tiles of 8 per warp");
  static_assert(kBytes == 2 || (kAPitch % 32 == 8 && kBPitch % 32 == 4),
                "fp32: the bank arithmetic above");
  static_assert(kBytes == 4 || ((kAPitch * 2 / 16) % 2 == 1 && (kBPitch * 2 / 16) % 2 == 1),
                "fp16: ldmatrix rows an odd number of 16-byte pieces apart");
  static_assert(kSmemBytes == dense_mma_smem_bytes(kTileRows, kBytes), "config.hpp's size");
};

/// x = big + small (+ a remainder below 2^-22 |x|), both tf32 (round to nearest, ties away).
__device__ __forceinline__ void split_tf32(float x, uint32_t& big, uint32_t& small) {
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(big) : "f"(x));
  const float rest = x - __uint_as_float(big);
  asm("cvt.rna.tf32.f32 %0, %1;\n" : "=r"(small) : "f"(rest));
}

__device__ __forceinline__ void mma_1688(float (&d)[4], const uint32_t (&a)[4], uint32_t b0,
                                         uint32_t b1) {
  asm("mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

__device__ __forceinline__ void mma_16816(float (&d)[4], const uint32_t (&a)[4], uint32_t b0,
                                          uint32_t b1) {
  asm("mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, "
      "{%8, %9}, {%0, %1, %2, %3};\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

__device__ __forceinline__ void ldmatrix_x4(uint32_t addr, uint32_t (&r)[4]) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t addr, uint32_t (&r)[4]) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(addr));
}

/// probe becomes NaN once x is NaN (or +-Inf): x * 0 + probe, kept by the asm from being folded.
__device__ __forceinline__ void probe_finite(float& probe, uint32_t x) {
  asm("fma.rn.f32 %0, %1, 0f00000000, %0;\n" : "+f"(probe) : "f"(__uint_as_float(x)));
}
/// The same for two fp16 values (probe holds two fp16 lanes).
__device__ __forceinline__ void probe_finite_h2(uint32_t& probe, uint32_t x) {
  asm("fma.rn.f16x2 %0, %1, %2, %0;\n" : "+r"(probe) : "r"(x), "r"(0u));
}

constexpr int kDensifyWarps = 8;
/// Shared memory the densify kernel may use for its 8 fp32 row buffers.
constexpr size_t kDensifySmem = 96 * 1024;

/// Step 1: dense rows of A (type T, ld lda, zeros past k) and row_bad[r] = 1 where row r holds a
/// non-finite value or, for fp16, two entries in one column. One warp per row; the row is summed
/// in fp32 in shared memory when 8 rows fit (smem_rows), else in place in global memory.
template <class T, class I>
__global__ void __launch_bounds__(kDensifyWarps * kWarp)
    densify_kernel(SpmmArgs a, T* dense, int64_t lda, int32_t* row_bad, bool smem_rows) {
  extern __shared__ __align__(16) float rows[];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const T* values = static_cast<const T*>(a.values);
  const I* indices = static_cast<const I*>(a.indices);
  const int64_t tail = a.m * a.stride;
  constexpr bool kHalf = sizeof(T) == 2;
  for (int64_t r = static_cast<int64_t>(blockIdx.x) * kDensifyWarps + warp; r < a.m;
       r += static_cast<int64_t>(gridDim.x) * kDensifyWarps) {
    T* out = dense + r * lda;
    float* buf = rows + warp * lda;
    if (smem_rows) {
      for (int64_t c = lane * 4; c < lda; c += 4 * kWarp)
        *reinterpret_cast<float4*>(buf + c) = make_float4(0.f, 0.f, 0.f, 0.f);
    } else {
      for (int64_t c = lane * static_cast<int>(16 / sizeof(T)); c < lda; c += static_cast<int>(16 / sizeof(T)) * kWarp)
        *reinterpret_cast<uint4*>(out + c) = make_uint4(0, 0, 0, 0);
    }
    __syncwarp();
    bool bad = false;
    auto add = [&](T v, uint32_t c) {
      const float f = to_float(v);
      bad |= !isfinite(f);
      if (smem_rows) {
        const float old = atomicAdd(buf + c, f);
        if (kHalf) bad |= old != 0.0f;  // a duplicate: its fp16 sum would be rounded
      } else if constexpr (kHalf) {
        bad |= __half2float(atomicAdd(out + c, v)) != 0.0f;
      } else {
        atomicAdd(out + c, v);
      }
    };
    const int len = a.row_len[r];
    // Four rounds of loads in flight before their atomics (one warp walks the row: latency).
    for (int p0 = 0; p0 < len; p0 += 4 * kWarp) {
      T v[4];
      uint32_t c[4];
#pragma unroll
      for (int u = 0; u < 4; ++u) {
        const int p = p0 + u * kWarp + lane;
        v[u] = p < len ? values[r * a.stride + p] : from_float<T>(0.0f);
        c[u] = p < len ? static_cast<uint32_t>(indices[r * a.stride + p]) : 0u;
      }
#pragma unroll
      for (int u = 0; u < 4; ++u)
        if (p0 + u * kWarp + lane < len) add(v[u], c[u]);
    }
    if (a.tail_ptr != nullptr)
      for (int q = a.tail_ptr[r] + lane; q < a.tail_ptr[r + 1]; q += kWarp)
        add(values[tail + q], static_cast<uint32_t>(indices[tail + q]));
    bad = __any_sync(0xffffffffu, bad);
    __syncwarp();
    if (smem_rows)
      for (int64_t c = lane; c < lda; c += kWarp) out[c] = from_float<T>(buf[c]);
    if (lane == 0) row_bad[r] = bad ? 1 : 0;
    __syncwarp();
  }
}

/// The tile computed slot by slot (the sparse kernels' arithmetic): the path of tiles that meet a
/// non-finite value, so that zeros of A never multiply B's Inf / NaN.
template <class T, class I>
__device__ void sparse_tile(const SpmmArgs& a, const T* B, int64_t ldb, int64_t m0, int64_t n0,
                            int rows, int cols, float alpha, float beta) {
  const T* values = static_cast<const T*>(a.values);
  const I* indices = static_cast<const I*>(a.indices);
  const int64_t tail = a.m * a.stride;
  auto b_at = [&](I c, int64_t col) {
    return to_float(B[static_cast<int64_t>(static_cast<uint32_t>(c)) * ldb + col]);
  };
  for (int i = threadIdx.x; i < rows * cols; i += blockDim.x) {
    const int64_t r = m0 + i / cols, c = n0 + i % cols;
    if (r >= a.m || c >= a.n) continue;
    float acc = 0.0f;
    const int len = a.row_len[r];
    for (int p = 0; p < len; ++p)
      acc = fmaf(to_float(values[r * a.stride + p]), b_at(indices[r * a.stride + p], c), acc);
    if (a.tail_ptr != nullptr)
      for (int q = a.tail_ptr[r]; q < a.tail_ptr[r + 1]; ++q)
        acc = fmaf(to_float(values[tail + q]), b_at(indices[tail + q], c), acc);
    detail::store_out(a.C, a.scalars.epilogue, r, c, acc, alpha, beta);
  }
}

/// Step 2: C tile = alpha * dense(A) tile * B tile + beta * C.
template <class T, int kTileRows, class I>
__global__ void __launch_bounds__(DenseTile<T, kTileRows>::kThreads,
                                  DenseTile<T, kTileRows>::kMinBlocks)
    dense_mma_kernel(SpmmArgs a, const T* A, int64_t lda, const int32_t* row_bad, const T* B,
                     int64_t ldb, bool b_vec) {
  using D = DenseTile<T, kTileRows>;
  constexpr bool kHalf = sizeof(T) == 2;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* as = reinterpret_cast<T*>(smem_raw);
  T* bs = as + D::kStages * D::kAStage;
  const int64_t m0 = static_cast<int64_t>(blockIdx.x) * D::kRows;
  const int64_t n0 = static_cast<int64_t>(blockIdx.y) * D::kCols;
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;
  const int g = lane >> 2, t4 = lane & 3;
  const int wm = warp / D::kWarpsN, wn = warp % D::kWarpsN;

  auto load_stage = [&](int stage, int64_t k0) {
    T* as_s = as + stage * D::kAStage;
    T* bs_s = bs + stage * D::kBStage;
    constexpr int kARowChunks = D::kDepth / D::kPer16;  // 8
    for (int i = tid; i < D::kRows * kARowChunks; i += D::kThreads) {
      const int r = i / kARowChunks, q = i % kARowChunks;
      const int64_t gr = m0 + r;
      const T* src = A + (gr < a.m ? gr : 0) * lda + k0 + q * D::kPer16;
      cp_async16(as_s + r * D::kAPitch + q * D::kPer16, src, gr < a.m ? 16 : 0);
    }
    constexpr int kBRowChunks = D::kCols / D::kPer16;
    for (int i = tid; i < D::kDepth * kBRowChunks; i += D::kThreads) {
      const int r = i / kBRowChunks, q = i % kBRowChunks;
      const int64_t gk = k0 + r, gc = n0 + q * D::kPer16;
      T* dst = bs_s + r * D::kBPitch + q * D::kPer16;
      const bool in = gk < a.k && gc < a.n;
      if (!in || (b_vec && gc + D::kPer16 <= a.n)) {
        cp_async16(dst, in ? B + gk * ldb + gc : B, in ? 16 : 0);
      } else {  // partial 16 bytes at n's edge, or a B without 16-byte rows
#pragma unroll
        for (int j = 0; j < D::kPer16; ++j)
          dst[j] = gc + j < a.n ? B[gk * ldb + gc + j] : from_float<T>(0.0f);
      }
    }
  };

  float acc[D::kMTiles][D::kNTiles][4];
#pragma unroll
  for (int i = 0; i < D::kMTiles; ++i)
#pragma unroll
    for (int j = 0; j < D::kNTiles; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.0f;
  float probe = 0.0f;    // fp32: NaN once a B value was not finite
  uint32_t probe_h = 0;  // fp16: the same, two fp16 lanes

  const int ktiles = static_cast<int>(lda / D::kDepth);
#pragma unroll
  for (int s = 0; s < D::kStages - 1; ++s) {
    if (s < ktiles) load_stage(s, static_cast<int64_t>(s) * D::kDepth);
    cp_async_commit();
  }
  const uint32_t as_addr = smem_address(as);
  const uint32_t bs_addr = smem_address(bs);
  for (int kt = 0; kt < ktiles; ++kt) {
    cp_async_wait<D::kStages - 2>();
    __syncthreads();
    const int next = kt + D::kStages - 1;
    if (next < ktiles) load_stage(next % D::kStages, static_cast<int64_t>(next) * D::kDepth);
    cp_async_commit();
    const int stage = kt % D::kStages;
    if constexpr (!kHalf) {
      const T* as_s = as + stage * D::kAStage;
      const T* bs_s = bs + stage * D::kBStage;
      const int a_row0 = wm * D::kWarpRows + g;
      const int b_col0 = wn * D::kWarpCols + g;
#pragma unroll 1
      for (int kk = 0; kk < D::kDepth; kk += D::kStep) {
        uint32_t bb[D::kNTiles][2], bsm[D::kNTiles][2];
#pragma unroll
        for (int j = 0; j < D::kNTiles; ++j) {
          const float* bp = bs_s + (kk + 2 * t4) * D::kBPitch + b_col0 + j * 8;
          split_tf32(bp[0], bb[j][0], bsm[j][0]);
          split_tf32(bp[D::kBPitch], bb[j][1], bsm[j][1]);
        }
#pragma unroll
        for (int i = 0; i < D::kMTiles; ++i) {
          const float* ap = as_s + (a_row0 + i * 16) * D::kAPitch + kk + 2 * t4;
          const float2 lo = *reinterpret_cast<const float2*>(ap);
          const float2 hi = *reinterpret_cast<const float2*>(ap + 8 * D::kAPitch);
          uint32_t ab[4], asm_[4];
          split_tf32(lo.x, ab[0], asm_[0]);
          split_tf32(hi.x, ab[1], asm_[1]);
          split_tf32(lo.y, ab[2], asm_[2]);
          split_tf32(hi.y, ab[3], asm_[3]);
          // This step's 8 products summed on the tensor core from zero (the small ones first),
          // then added to the accumulator with an fp32 add (round to nearest): the tensor core's
          // truncation then errs relative to one step's products, not the running sum.
          float t[D::kNTiles][4];
#pragma unroll
          for (int j = 0; j < D::kNTiles; ++j) {
#pragma unroll
            for (int e = 0; e < 4; ++e) t[j][e] = 0.0f;
            mma_1688(t[j], asm_, bb[j][0], bb[j][1]);
          }
#pragma unroll
          for (int j = 0; j < D::kNTiles; ++j) mma_1688(t[j], ab, bsm[j][0], bsm[j][1]);
#pragma unroll
          for (int j = 0; j < D::kNTiles; ++j) {
            mma_1688(t[j], ab, bb[j][0], bb[j][1]);
#pragma unroll
            for (int e = 0; e < 4; ++e) acc[i][j][e] += t[j][e];
          }
        }
#pragma unroll
        for (int j = 0; j < D::kNTiles; ++j) {
          probe_finite(probe, bsm[j][0]);
          probe_finite(probe, bsm[j][1]);
        }
      }
    } else {
      // ldmatrix addresses: A rows wm * kWarpRows + 16 i + (lane & 15), k + 8 (lane >> 4);
      // B (k rows) kk + 8 (q & 1) + (lane & 7), columns wn * 32 + 16 jp + 8 (q >> 1), q = lane >> 3.
      const uint32_t a_base =
          as_addr + static_cast<uint32_t>(((stage * D::kAStage) +
                                           (wm * D::kWarpRows + (lane & 15)) * D::kAPitch +
                                           8 * (lane >> 4)) * 2);
      const int q = lane >> 3;
      const uint32_t b_base =
          bs_addr + static_cast<uint32_t>(((stage * D::kBStage) +
                                           (8 * (q & 1) + (lane & 7)) * D::kBPitch +
                                           wn * D::kWarpCols + 8 * (q >> 1)) * 2);
#pragma unroll 2
      for (int kk = 0; kk < D::kDepth; kk += D::kStep) {
        uint32_t b[D::kNTiles][2], af[D::kMTiles][4];
#pragma unroll
        for (int jp = 0; jp < D::kNTiles / 2; ++jp) {
          uint32_t r[4];
          ldmatrix_x4_trans(b_base + static_cast<uint32_t>((kk * D::kBPitch + 16 * jp) * 2), r);
          b[2 * jp][0] = r[0];
          b[2 * jp][1] = r[1];
          b[2 * jp + 1][0] = r[2];
          b[2 * jp + 1][1] = r[3];
        }
#pragma unroll
        for (int i = 0; i < D::kMTiles; ++i)
          ldmatrix_x4(a_base + static_cast<uint32_t>((16 * i * D::kAPitch + kk) * 2), af[i]);
#pragma unroll
        for (int i = 0; i < D::kMTiles; ++i)
#pragma unroll
          for (int j = 0; j < D::kNTiles; ++j) mma_16816(acc[i][j], af[i], b[j][0], b[j][1]);
#pragma unroll
        for (int j = 0; j < D::kNTiles; ++j) {
          probe_finite_h2(probe_h, b[j][0]);
          probe_finite_h2(probe_h, b[j][1]);
        }
      }
    }
  }
  cp_async_wait<0>();

  const float alpha = alpha_float(a.scalars), beta = beta_float(a.scalars);
  bool bad = probe != probe;
  if constexpr (kHalf) {
    const __half2 ph = *reinterpret_cast<const __half2*>(&probe_h);
    bad |= __hisnan(__low2half(ph)) || __hisnan(__high2half(ph));
  }
  if (tid < D::kRows && m0 + tid < a.m) bad |= row_bad[m0 + tid] != 0;
  if (__syncthreads_or(bad)) {
    sparse_tile<T, I>(a, B, ldb, m0, n0, D::kRows, D::kCols, alpha, beta);
    return;
  }
  // acc[i][j][e]: row wm * kWarpRows + 16 i + g + 8 (e >> 1), column wn * 32 + 8 j + 2 t4 + (e & 1).
#pragma unroll
  for (int i = 0; i < D::kMTiles; ++i)
#pragma unroll
    for (int j = 0; j < D::kNTiles; ++j)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int64_t r = m0 + wm * D::kWarpRows + 16 * i + g + 8 * (e >> 1);
        const int64_t c = n0 + wn * D::kWarpCols + 8 * j + 2 * t4 + (e & 1);
        if (r < a.m && c < a.n) detail::store_out(a.C, a.scalars.epilogue, r, c, acc[i][j][e], alpha, beta);
      }
}

template <class T>
const void* densify_of(bool index16) {
  return index16 ? reinterpret_cast<const void*>(densify_kernel<T, uint16_t>)
                 : reinterpret_cast<const void*>(densify_kernel<T, int32_t>);
}
template <class T, int kRows>
const void* gemm_of(bool index16) {
  return index16 ? reinterpret_cast<const void*>(dense_mma_kernel<T, kRows, uint16_t>)
                 : reinterpret_cast<const void*>(dense_mma_kernel<T, kRows, int32_t>);
}

/// Dynamic shared memory of the densify kernel: 8 fp32 rows when they fit, else none.
size_t densify_smem(int64_t lda) {
  const size_t bytes = static_cast<size_t>(kDensifyWarps) * static_cast<size_t>(lda) * 4;
  return bytes <= kDensifySmem ? bytes : 0;
}

template <class T, int kRows>
cudaError_t launch_gemm(const SpmmArgs& a, const T* dense, int64_t lda, const int32_t* bad,
                        const T* b, int64_t ldb, bool b_vec, cudaStream_t stream) {
  using D = DenseTile<T, kRows>;
  const int64_t chunks = (a.n + D::kCols - 1) / D::kCols;
  const int64_t tiles = (a.m + D::kRows - 1) / D::kRows;
  if (chunks > 65535 || tiles > INT32_MAX) return cudaErrorInvalidConfiguration;
  const dim3 grid(static_cast<unsigned>(tiles), static_cast<unsigned>(chunks));
  if (a.index16)
    dense_mma_kernel<T, kRows, uint16_t>
        <<<grid, D::kThreads, D::kSmemBytes, stream>>>(a, dense, lda, bad, b, ldb, b_vec);
  else
    dense_mma_kernel<T, kRows, int32_t>
        <<<grid, D::kThreads, D::kSmemBytes, stream>>>(a, dense, lda, bad, b, ldb, b_vec);
  return cudaGetLastError();
}

template <class T>
cudaError_t densify_typed(const SpmmArgs& a, void* out, cudaStream_t stream) {
  const int64_t lda = dense_mma_ld(a.k, static_cast<int>(sizeof(T)));
  T* dense = static_cast<T*>(out);
  int32_t* bad = reinterpret_cast<int32_t*>(dense + a.m * lda);
  const size_t dsmem = densify_smem(lda);
  int64_t blocks = (a.m + kDensifyWarps - 1) / kDensifyWarps;
  const int64_t most = static_cast<int64_t>(a.sm_count > 0 ? a.sm_count : 1) * 8;
  blocks = blocks > most ? most : blocks;
  if (a.index16)
    densify_kernel<T, uint16_t><<<static_cast<unsigned>(blocks), kDensifyWarps * kWarp, dsmem,
                                  stream>>>(a, dense, lda, bad, dsmem > 0);
  else
    densify_kernel<T, int32_t><<<static_cast<unsigned>(blocks), kDensifyWarps * kWarp, dsmem,
                                 stream>>>(a, dense, lda, bad, dsmem > 0);
  return cudaGetLastError();
}

template <class T>
cudaError_t gemm_typed(const SpmmArgs& a, const DenseMmaConfig& cfg, const CallLaunch& l,
                       const void* b_rows, int64_t ldb, cudaStream_t stream) {
  const int64_t lda = dense_mma_ld(a.k, static_cast<int>(sizeof(T)));
  const T* dense = static_cast<const T*>(a.dense_a);
  const int32_t* bad = reinterpret_cast<const int32_t*>(dense + a.m * lda);
  const T* b = static_cast<const T*>(b_rows);
  const bool b_vec = l.b_vec;
  if (a.k == 0) b = dense;  // no rows of B: every B chunk is zero-filled, never read
  return cfg.tile_rows == 128 ? launch_gemm<T, 128>(a, dense, lda, bad, b, ldb, b_vec, stream)
                              : launch_gemm<T, 64>(a, dense, lda, bad, b, ldb, b_vec, stream);
}

template <class T>
cudaError_t load_typed(bool index16, size_t smem_optin) {
  cudaFuncAttributes attr;
  cudaError_t err = cudaFuncGetAttributes(&attr, densify_of<T>(index16));
  if (err == cudaSuccess && smem_optin >= kDensifySmem)
    err = cudaFuncSetAttribute(densify_of<T>(index16), cudaFuncAttributeMaxDynamicSharedMemorySize,
                               static_cast<int>(kDensifySmem));
  // Only where the device lets a block have that much (the rule checks the same before choosing).
  constexpr int kSmem64 = DenseTile<T, 64>::kSmemBytes, kSmem128 = DenseTile<T, 128>::kSmemBytes;
  if (err == cudaSuccess && smem_optin >= static_cast<size_t>(kSmem64))
    err = cudaFuncSetAttribute(gemm_of<T, 64>(index16), cudaFuncAttributeMaxDynamicSharedMemorySize,
                               kSmem64);
  if (err == cudaSuccess && smem_optin >= static_cast<size_t>(kSmem128))
    err = cudaFuncSetAttribute(gemm_of<T, 128>(index16), cudaFuncAttributeMaxDynamicSharedMemorySize,
                               kSmem128);
  return err;
}

}  // namespace

cudaError_t densify_dense_a(const SpmmArgs& a, void* dense, cudaStream_t stream) {
  if (a.m == 0) return cudaSuccess;
  if (dense == nullptr) return cudaErrorInvalidValue;
  return a.half ? densify_typed<__half>(a, dense, stream) : densify_typed<float>(a, dense, stream);
}

cudaError_t launch_dense_mma(const SpmmArgs& a, const EllConfig& launch, const void* b_rows,
                             int64_t ldb, cudaStream_t stream) {
  const auto* c = std::get_if<DenseMmaConfig>(&launch.kernel);
  if (c == nullptr || a.dense_a == nullptr || a.stride % kSlotVector != 0 ||
      (c->tile_rows != 64 && c->tile_rows != 128))
    return cudaErrorInvalidValue;
  return a.half ? gemm_typed<__half>(a, *c, launch.call, b_rows, ldb, stream)
                : gemm_typed<float>(a, *c, launch.call, b_rows, ldb, stream);
}

cudaError_t load_dense_mma(bool half, bool index16, size_t smem_optin) {
  return half ? load_typed<__half>(index16, smem_optin) : load_typed<float>(index16, smem_optin);
}

}  // namespace spx::kernels::ell
