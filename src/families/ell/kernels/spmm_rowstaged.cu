// RowStaged: the large-n kernel (n > 16). B's chunk of 128 bytes per row (64 fp16 or 32 fp32
// columns) x k is staged once per block in shared memory; 8 lanes share an A row, each owning
// 16 bytes of the chunk (8 fp16 / 4 fp32 columns), so a warp works on 4 rows at a time.
//
// Why this shape:
//   * every slot of a row is one 16-byte shared-memory load per lane, and the row's 8 lanes read
//     one whole 128-byte B row: a quarter-warp is always one wavefront, whatever the columns
//     (the global-gather RowTile depended on L1 keeping B's chunk, which at 1024 x 256 fp16
//     columns it could not);
//   * the lanes of a row read the row's slots themselves, 8 at a time (16-byte vectors; the 8
//     lanes read the same bytes, one L1 wavefront for the warp's 4 rows): no shuffles, and no
//     cross-lane work at all, so rows of different lengths just run their own loops;
//   * the next 8 slots are requested before the current 8 are applied (two groups in flight).
// Per slot and lane: index unpack + address (2), LDS.128 (1), 8 / 4 fp16 -> fp32 conversions
// (fp16 only), 8 / 4 FFMA: about 2.5 instructions per FMA in fp16, 2 in fp32.
// A column-major B is transposed into the workspace first (spmm_launch.cu) and staged from there.
#include "families/ell/kernels/device.cuh"

namespace spx::kernels::ell {
namespace {

using detail::to_float;

constexpr int kRowBytes = 128;          ///< staged bytes per B row
constexpr int kLanesPerRow = 8;         ///< lanes sharing an A row (8 x 16 B = one B row)
constexpr int kRowsPerWarp = kWarp / kLanesPerRow;
static_assert(kLanesPerRow * 16 == kRowBytes, "a row's lanes cover one staged B row");

/// 8 slots of values and column indices, raw.
template <class T, class I>
struct Slots8 {
  static constexpr int kValueVecs = static_cast<int>(sizeof(T)) / 2;
  static constexpr int kIndexVecs = static_cast<int>(sizeof(I)) / 2;
  uint4 v[kValueVecs];
  uint4 c[kIndexVecs];
  __device__ __forceinline__ void load(const T* vals, const I* idx) {
#pragma unroll
    for (int i = 0; i < kValueVecs; ++i) v[i] = __ldg(reinterpret_cast<const uint4*>(vals) + i);
#pragma unroll
    for (int i = 0; i < kIndexVecs; ++i) c[i] = __ldg(reinterpret_cast<const uint4*>(idx) + i);
  }
  __device__ __forceinline__ float value(int e) const {
    const uint32_t w = reinterpret_cast<const uint32_t*>(v)[sizeof(T) == 2 ? e / 2 : e];
    if constexpr (sizeof(T) == 2) {
      const __half2 h = *reinterpret_cast<const __half2*>(&w);
      return (e & 1) ? __high2float(h) : __low2float(h);
    } else {
      return __uint_as_float(w);
    }
  }
  __device__ __forceinline__ uint32_t column(int e) const {
    const uint32_t w = reinterpret_cast<const uint32_t*>(c)[sizeof(I) == 2 ? e / 2 : e];
    if constexpr (sizeof(I) == 2) return (e & 1) ? (w >> 16) : (w & 0xFFFFu);
    return w;
  }
};

/// acc += v * (this lane's 16 bytes of staged B row c).
template <class T>
__device__ __forceinline__ void apply(float (&acc)[16 / sizeof(T)], const unsigned char* lane_base,
                                      float v, uint32_t c) {
  const uint4 u = *reinterpret_cast<const uint4*>(lane_base + c * kRowBytes);
  constexpr int kVn = 16 / static_cast<int>(sizeof(T));
  float b[kVn];
  if constexpr (sizeof(T) == 4) {
    detail::unpack(u, b);
  } else {
    __half tag[8];
    detail::unpack(u, tag, b);
  }
#pragma unroll
  for (int j = 0; j < kVn; ++j) acc[j] = fmaf(v, b[j], acc[j]);
}

template <class T, class I>
__global__ void __launch_bounds__(kRowStagedMaxThreads, 1)
    row_staged_kernel(SpmmArgs a, const T* B, int64_t ldb, bool b_vec) {
  extern __shared__ __align__(16) unsigned char bs[];
  constexpr int kVn = 16 / static_cast<int>(sizeof(T));  // columns per lane
  constexpr int kCols = kRowBytes / static_cast<int>(sizeof(T));
  const int64_t n0 = static_cast<int64_t>(blockIdx.y) * kCols;

  // Stage B[:, n0 : n0 + kCols] (zeros past n) as k rows of 128 bytes.
  const int64_t pieces = a.k * kLanesPerRow;
#pragma unroll 4
  for (int64_t i = threadIdx.x; i < pieces; i += blockDim.x) {
    const int64_t r = i / kLanesPerRow;
    const int64_t c0 = n0 + (i % kLanesPerRow) * kVn;
    uint4 u;
    if (b_vec && c0 + kVn <= a.n) {
      u = __ldg(reinterpret_cast<const uint4*>(B + r * ldb + c0));
    } else {
      T e[kVn];
#pragma unroll
      for (int j = 0; j < kVn; ++j) e[j] = c0 + j < a.n ? B[r * ldb + c0 + j] : T(0.0f);
      u = *reinterpret_cast<const uint4*>(e);
    }
    reinterpret_cast<uint4*>(bs)[i] = u;
  }
  __syncthreads();

  const int lane = threadIdx.x & (kWarp - 1);
  const int q = lane & (kLanesPerRow - 1);
  const unsigned char* lane_base = bs + q * 16;
  const int64_t col = n0 + q * kVn;  // this lane's first output column
  const int warps = blockDim.x / kWarp;
  const int64_t warp_id = static_cast<int64_t>(blockIdx.x) * warps + threadIdx.x / kWarp;
  const int64_t warp_stride = static_cast<int64_t>(gridDim.x) * warps;
  const T* values = static_cast<const T*>(a.values);
  const I* indices = static_cast<const I*>(a.indices);
  const float alpha = alpha_float(a.scalars), beta = beta_float(a.scalars);

  for (int64_t group = warp_id; group * kRowsPerWarp < a.m; group += warp_stride) {
    const int64_t row = group * kRowsPerWarp + lane / kLanesPerRow;
    if (row >= a.m) continue;  // no cross-lane work: lanes leave freely
    const int len = a.row_len[row];
    const T* vals = values + row * a.stride;
    const I* idx = indices + row * a.stride;
    float acc[kVn];
#pragma unroll
    for (int j = 0; j < kVn; ++j) acc[j] = 0.0f;
    Slots8<T, I> cur, next;
    if (len > 0) cur.load(vals, idx);
    for (int p = 0; p < len; p += kSlotVector) {
      if (p + kSlotVector < len) next.load(vals + p + kSlotVector, idx + p + kSlotVector);
      if (p + kSlotVector <= len) {
#pragma unroll
        for (int e = 0; e < kSlotVector; ++e) apply<T>(acc, lane_base, cur.value(e), cur.column(e));
      } else {
#pragma unroll
        for (int e = 0; e < kSlotVector; ++e)
          if (p + e < len) apply<T>(acc, lane_base, cur.value(e), cur.column(e));
      }
      cur = next;
    }
    if (a.tail_ptr != nullptr) {  // HYB overflow of this row
      const int64_t tail = a.m * a.stride;
      for (int t = a.tail_ptr[row]; t < a.tail_ptr[row + 1]; ++t)
        apply<T>(acc, lane_base, to_float(values[tail + t]), static_cast<uint32_t>(indices[tail + t]));
    }
#pragma unroll
    for (int j = 0; j < kVn; ++j)
      if (col + j < a.n) detail::store_out(a.C, a.scalars.epilogue, row, col + j, acc[j], alpha, beta);
  }
}

template <class T, class I>
void launch_typed(const SpmmArgs& a, const void* b, int64_t ldb, bool b_vec, dim3 grid, int threads,
                  size_t smem, cudaStream_t stream) {
  row_staged_kernel<T, I><<<grid, threads, smem, stream>>>(a, static_cast<const T*>(b), ldb, b_vec);
}

const void* kernel_of(bool half, bool index16) {
  if (half)
    return index16 ? reinterpret_cast<const void*>(row_staged_kernel<__half, uint16_t>)
                   : reinterpret_cast<const void*>(row_staged_kernel<__half, int32_t>);
  return index16 ? reinterpret_cast<const void*>(row_staged_kernel<float, uint16_t>)
                 : reinterpret_cast<const void*>(row_staged_kernel<float, int32_t>);
}

}  // namespace

cudaError_t launch_row_staged(const SpmmArgs& a, const EllConfig& launch, const void* b_rows,
                              int64_t ldb, cudaStream_t stream) {
  const auto* c = std::get_if<RowStagedConfig>(&launch.kernel);
  if (c == nullptr) return cudaErrorInvalidValue;
  const RowStagedConfig& cfg = *c;
  const CallLaunch& l = launch.call;
  const int elem = a.half ? 2 : 4;
  if (a.stride % kSlotVector != 0 || cfg.warps < 1 || cfg.warps * kWarp > kRowStagedMaxThreads)
    return cudaErrorInvalidValue;
  const bool b_vec = l.b_vec;
  const int64_t cols = kRowBytes / elem;
  const int64_t chunks = (a.n + cols - 1) / cols;
  if (chunks > 65535) return cudaErrorInvalidConfiguration;
  const int threads = cfg.warps * kWarp;
  const size_t smem = static_cast<size_t>(row_stage_bytes(a.k));
  const int per_sm = l.per_sm;
  if (per_sm < 1) return cudaErrorInvalidConfiguration;
  // Persistent: as many blocks as fit at once, spread over the column chunks, no more than the
  // row groups need.
  const int64_t groups = (a.m + kRowsPerWarp - 1) / kRowsPerWarp;
  const int64_t needed = (groups + cfg.warps - 1) / cfg.warps;
  int64_t bx = static_cast<int64_t>(per_sm) * (a.sm_count > 0 ? a.sm_count : 1) / chunks;
  bx = bx < 1 ? 1 : (bx > needed ? needed : bx);
  const dim3 grid(static_cast<unsigned>(bx), static_cast<unsigned>(chunks));
  if (a.half) {
    if (a.index16) launch_typed<__half, uint16_t>(a, b_rows, ldb, b_vec, grid, threads, smem, stream);
    else launch_typed<__half, int32_t>(a, b_rows, ldb, b_vec, grid, threads, smem, stream);
  } else {
    if (a.index16) launch_typed<float, uint16_t>(a, b_rows, ldb, b_vec, grid, threads, smem, stream);
    else launch_typed<float, int32_t>(a, b_rows, ldb, b_vec, grid, threads, smem, stream);
  }
  return cudaGetLastError();
}

int row_staged_occupancy(const RowStagedConfig& cfg, bool half, bool index16, int64_t k) {
  return detail::occupancy(kernel_of(half, index16), cfg.warps * kWarp,
                           static_cast<size_t>(row_stage_bytes(k)));
}

cudaError_t load_row_staged(bool half, bool index16, size_t smem_optin) {
  return detail::load_kernel(kernel_of(half, index16), smem_optin);
}

}  // namespace spx::kernels::ell
