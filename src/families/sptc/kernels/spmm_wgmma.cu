// The SpTC SpMM kernel on Hopper's warpgroup MMA: wgmma.mma_async.sp m64nBNk32 (fp16 / bf16,
// fp32 accumulation), A (compressed, 2:4) from registers, B from shared memory through a matrix
// descriptor. Compiled for sm_90a only (sources.cmake builds this file as its own object library
// with CUDA_ARCHITECTURES 90a); the host launches it on compute capability 9.0 only.
//
// Same storage, pipeline and epilogue as spmm_kernel.cuh's streaming kernel (one panel of BT
// rows x tiles_per_block n tiles of BN columns, kStages k steps of 64 gathered B rows in flight,
// the gather indices one further step ahead; the loads are producer.cuh's Producer, with B's
// layout WgBLayout), with these differences:
//   * a warpgroup (4 warps) computes 64 rows x BN with one wgmma per k tile: warp w holds the
//     16-row slice w, and its A fragment (one 16-byte LDS), metadata word (sparsity selector 0
//     / 1 for the pair's two k tiles) and accumulators have exactly the m16n8k32 mma.sp layouts
//     of that slice, so the plan's arrays are read unchanged;
//   * B lands in an MN-major layout the descriptor names instead of padded rows (kSw128):
//       - 128-byte swizzle (default): atoms of 8 k rows x 64 columns (1 KB), atom (k / 8, n / 64)
//         at (k / 8) * kSbo + (n / 64) * 1024, row k % 8 at 128 (k % 8), its 16-byte chunk c at
//         slot c ^ (k % 8). A thread copies one chunk of 2, 4 or 8 consecutive rows (indices in
//         one or two vector loads), a warp two whole rows: 2 full rows of global lines and, for
//         shared memory, every bank group 4 times (no conflicts);
//       - no swizzle (SPX_SPTC_WG_INTERLEAVE=1; the first version, measured slower): core
//         matrices of 8 k rows x 8 columns (128 contiguous bytes); a warp's copies are 8 rows x
//         4 chunks (conflict-free in shared memory, but 8 global lines per instruction);
//   * the MMA is asynchronous: the warps issue the next step's copies while it runs, then wait.
// Why: the mma.sync kernel is issue-bound at 16 warps per SM (README, "Where the time goes"):
// per k step a warp of the BLOCK_TILE 128 kernel spent ~48 instructions on ldmatrix / LDS /
// mma.sp besides the copies; here a warp issues 3 shared loads and 2 wgmma, and the tensor cores
// run at Hopper's wgmma rate (mma.sync reaches about half of it).
#include "families/sptc/kernels/spmm_kernel.cuh"

#if defined(__CUDA_ARCH__) && !defined(__CUDA_ARCH_FEAT_SM90_ALL)
#error "spmm_wgmma.cu uses sm_90a instructions: build it for sm_90a only (sources.cmake)"
#endif

namespace spx::kernels::sptc::detail {

__device__ __forceinline__ void wg_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }
__device__ __forceinline__ void wg_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;\n" ::: "memory");
}
__device__ __forceinline__ void wg_wait_all() {
  asm volatile("wgmma.wait_group.sync.aligned 0;\n" ::: "memory");
}
/// Pins the accumulators in place around the asynchronous MMA (no compiler reordering of their
/// reads or writes across a wgmma fence / wait).
template <int NB>
__device__ __forceinline__ void pin(float (&acc)[NB][4]) {
#pragma unroll
  for (int b = 0; b < NB; ++b)
#pragma unroll
    for (int i = 0; i < 4; ++i) asm volatile("" : "+f"(acc[b][i])::"memory");
}

/// d (64 x N per warpgroup; this warp: its 16 rows, m16n8 blocks) = A (64 x 32, 2:4 compressed in
/// a) * B (32 x N, the descriptor) + (scale_d ? d : 0); metadata e from the lanes the sparsity
/// selector SEL names. B is MN-major (n contiguous within a core matrix row: transpose-b = 1).
template <class T, int N, int SEL>
__device__ __forceinline__ void wgmma_sp(float (&d)[N / 8][4], const uint4& a, uint64_t b_desc,
                                         uint32_t e, int scale_d);

#define SPX_WG_D64 "{" "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31" "}, "
#define SPX_WG_D128 "{" "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, " \
  "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, " \
  "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, " \
  "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63" "}, "
#define SPX_WG_OUT(b) "+f"(d[b][0]), "+f"(d[b][1]), "+f"(d[b][2]), "+f"(d[b][3])
#define SPX_WG_OUT64 SPX_WG_OUT(0), SPX_WG_OUT(1), SPX_WG_OUT(2), SPX_WG_OUT(3), \
  SPX_WG_OUT(4), SPX_WG_OUT(5), SPX_WG_OUT(6), SPX_WG_OUT(7)
#define SPX_WG_OUT128 SPX_WG_OUT64, SPX_WG_OUT(8), SPX_WG_OUT(9), SPX_WG_OUT(10), \
  SPX_WG_OUT(11), SPX_WG_OUT(12), SPX_WG_OUT(13), SPX_WG_OUT(14), SPX_WG_OUT(15)
// Operands after the accumulators: a (4), b_desc, e, scale_d; A0 = the first one's number.
#define SPX_WG_MMA(T, PTX_T, N, SEL, A0, A1, A2, A3, DESC, E, SCALE)                               \
  template <>                                                                                    \
  __device__ __forceinline__ void wgmma_sp<T, N, SEL>(float(&d)[N / 8][4], const uint4& a,        \
                                                      uint64_t b_desc, uint32_t e, int scale_d) { \
    asm volatile("{\n .reg .pred p;\n setp.ne.b32 p, %" SCALE ", 0;\n"                            \
                 " wgmma.mma_async.sp.sync.aligned.m64n" #N "k32.f32." PTX_T "." PTX_T " "        \
                 SPX_WG_D##N "{%" A0 ", %" A1 ", %" A2 ", %" A3 "}, %" DESC ", %" E ", " #SEL     \
                 ", p, 1, 1, 1;\n}\n"                                                            \
                 : SPX_WG_OUT##N                                                                 \
                 : "r"(a.x), "r"(a.y), "r"(a.z), "r"(a.w), "l"(b_desc), "r"(e), "r"(scale_d));    \
  }
SPX_WG_MMA(__half, "f16", 64, 0, "32", "33", "34", "35", "36", "37", "38")
SPX_WG_MMA(__half, "f16", 64, 1, "32", "33", "34", "35", "36", "37", "38")
SPX_WG_MMA(__half, "f16", 128, 0, "64", "65", "66", "67", "68", "69", "70")
SPX_WG_MMA(__half, "f16", 128, 1, "64", "65", "66", "67", "68", "69", "70")
SPX_WG_MMA(__nv_bfloat16, "bf16", 64, 0, "32", "33", "34", "35", "36", "37", "38")
SPX_WG_MMA(__nv_bfloat16, "bf16", 64, 1, "32", "33", "34", "35", "36", "37", "38")
SPX_WG_MMA(__nv_bfloat16, "bf16", 128, 0, "64", "65", "66", "67", "68", "69", "70")
SPX_WG_MMA(__nv_bfloat16, "bf16", 128, 1, "64", "65", "66", "67", "68", "69", "70")
#undef SPX_WG_MMA
#undef SPX_WG_OUT128
#undef SPX_WG_OUT64
#undef SPX_WG_OUT
#undef SPX_WG_D128
#undef SPX_WG_D64

/// A warp's epilogue for one n tile (its 16 rows x BN): 32 columns at a time through its region
/// and the mma.sync kernel's writer. The part loop is not unrolled (one copy of the writers);
/// static indices keep the accumulators in registers.
template <int BN>
__device__ __forceinline__ void store_wg_tile(const KernelParams& p, float* region,
                                              const float (&acc)[BN / 8][4], const int32_t* rows,
                                              int64_t base, int64_t c0, float alpha, float beta) {
  constexpr int kParts = BN / 32;
  const bool c_row = p.C.order == SPX_ORDER_ROW;
  const bool wide = p.C.type == SPX_R_32F;
  const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
#pragma unroll 1
  for (int part = 0; part < kParts; ++part) {
#pragma unroll
    for (int p2 = 0; p2 < kParts; ++p2) {
      if (p2 != part) continue;
#pragma unroll
      for (int nb = 0; nb < 4; ++nb)
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int r = g + 8 * h, c = nb * 8 + 2 * t;
          const float v0 = acc[p2 * 4 + nb][2 * h], v1 = acc[p2 * 4 + nb][2 * h + 1];
          if (c_row) {
            *reinterpret_cast<float2*>(region + r * 36 + c) = make_float2(v0, v1);
          } else {
            region[c * 18 + r] = v0;
            region[(c + 1) * 18 + r] = v1;
          }
        }
    }
    __syncwarp();
    const int64_t cp = c0 + part * 32;
    if (c_row) {
      if (wide) write_warp_slice<32, true, 4>(p, region, rows, base, cp, alpha, beta);
      else write_warp_slice<32, true, 2>(p, region, rows, base, cp, alpha, beta);
    } else {
      if (wide) write_warp_slice<32, false, 4>(p, region, rows, base, cp, alpha, beta);
      else write_warp_slice<32, false, 2>(p, region, rows, base, cp, alpha, beta);
    }
    __syncwarp();  // the next part overwrites the region
  }
}

/// The kernel. Block (x, y): panel blocks[x] for the n tiles [y * tpb, (y + 1) * tpb), one
/// stream of k steps (step q = pair q % npairs of tile q / npairs). B must be row-major with
/// 16-byte aligned rows (the caller falls back to the mma.sync kernel otherwise).
template <class T, int BT, int BN, bool kSw128>
__global__ void __launch_bounds__(WgTileShape<BT, BN>::kThreads, BT == 128 ? 2 : 3)
    spmm_wgmma_kernel(const KernelParams p) {
  using S = WgTileShape<BT, BN>;
  constexpr int kThreads = S::kThreads, kNB = S::kNB, kSlices = S::kSlices;
  static_assert(S::kPartN == 32 && 16 * 36 <= S::kWarpEpilogueFloats &&
                    32 * 18 <= S::kWarpEpilogueFloats,
                "store_wg_tile stages 32-column parts");
  extern __shared__ __align__(128) unsigned char smem_raw[];
  // 1 KB aligned base (the swizzle pattern repeats on 1 KB address boundaries).
  unsigned char* const smem =
      smem_raw + ((1024u - (smem_address(smem_raw) & 1023u)) & 1023u);
  const int tid = threadIdx.x, lane = tid & 31, warp = tid >> 5;

  const BlockWork work = block_work<BT, BN>(p);
  const int64_t pair0 = work.pair0;
  const int ktiles = work.ktiles, npairs = work.npairs;
  const int64_t tile0 = work.tile0;
  const int tiles = work.tiles, steps = work.steps;
  const int64_t panel_row0 = work.panel_row0;
  const float alpha = alpha_float(p.scalars), beta = beta_float(p.scalars);

  // Shared memory: kStages x (B | A | M), the index ring, the epilogue regions, the row map.
  constexpr int kRingOffset = kStages * S::kStageBytes;
  constexpr int kEpilogueOffset = kRingOffset + S::kIndexBytes;
  int32_t* const idx_ring = reinterpret_cast<int32_t*>(smem + kRingOffset);
  float* const region =
      reinterpret_cast<float*>(smem + kEpilogueOffset) + warp * S::kWarpEpilogueFloats;
  int32_t* const rows = reinterpret_cast<int32_t*>(smem + kEpilogueOffset + S::kEpilogueBytes);
  const int32_t* const warp_rows = rows + warp * 16;

  float acc[kNB][4];
#pragma unroll
  for (int b = 0; b < kNB; ++b)
#pragma unroll
    for (int i = 0; i < 4; ++i) acc[b][i] = 0.0f;

  fill_row_map<BT, kThreads>(p, panel_row0, rows);

  if (steps == 0) {  // an empty panel: C = beta * C on every tile of the block
    __syncthreads();
    for (int t = 0; t < tiles; ++t)
      store_wg_tile<BN>(p, region, acc, warp_rows, panel_row0, (tile0 + t) * BN, alpha, beta);
    return;
  }

  load_first_indices<kThreads>(p, idx_ring, pair0, npairs, steps, tid);

  // The producer (producer.cuh): B in the descriptor's layout (128-byte swizzle or none).
  using BLayout = WgBLayout<S, BN, kSw128>;
  static_assert(kSlices * 64 % kThreads == 0, "whole A chunks per thread");
  const uint32_t smem0 = smem_address(smem);
  int i_left = steps, i_stage = 0, i_pair = 0, i_tile = 0;  // its cursors
  int x_pair = (kStages - 1) % npairs;
  const uint16_t* chunk_base = p.b;
  int chunk_bytes = 0;
  Producer<S, BN, BLayout, true, false> producer(p, BLayout(smem0, idx_ring, tid), tid, pair0,
                                                 npairs, tile0, idx_ring, i_left, i_stage, i_pair,
                                                 i_tile, x_pair, chunk_base, chunk_bytes);
  producer.prologue();

  // The B descriptor of stage 0, k tile 0 (MN-major): start address >> 4 (bits 0-13), leading
  // byte offset >> 4 (bits 16-29), stride byte offset >> 4 (bits 32-45), layout (bits 62-63).
  // 128-byte swizzle (1): leading = the n direction (64-column atoms, 1 KB apart), stride = the
  // k direction (8-row atoms, kSbo apart); base offset 0 (1 KB aligned). No swizzle (0): leading
  // = the k direction (8-row groups kKGroupBytes apart), stride = the n direction (core matrices
  // 128 bytes apart).
  constexpr uint64_t kLbo = kSw128 ? 1024 : S::kKGroupBytes;
  constexpr int kSbo = BLayout::kSbo;
  constexpr uint64_t kSboField = kSw128 ? kSbo : 128;
  const uint64_t desc0 = static_cast<uint64_t>((smem0 >> 4) & 0x3FFF) | ((kLbo >> 4) << 16) |
                         ((kSboField >> 4) << 32) | (uint64_t{kSw128 ? 1u : 0u} << 62);
  // The pair's second k tile: k rows 32..63 (4 atoms / 4 groups of 8 rows further).
  constexpr int kTileDesc = (kSw128 ? 4 * kSbo : 4 * S::kKGroupBytes) >> 4;

  int j = 0, t = 0, s = 0;  // pair, tile and stage of the step computed
  for (int q = steps; q > 0; --q) {
    // This thread's copies of step q done and visible to the tensor cores' reads (async proxy
    // fence), then everyone's; step q - 1's buffers free (its MMA waited).
    wait_step<true>();

    const unsigned char* st = smem + s * S::kStageBytes;
    const uint16_t* as = reinterpret_cast<const uint16_t*>(st + S::kBBytes) + warp * 512;
    const uint32_t meta =
        reinterpret_cast<const uint32_t*>(st + S::kBBytes + S::kABytes)[warp * 32 + lane];
    const uint4 a0 = *reinterpret_cast<const uint4*>(as + lane * 8);
    const uint4 a1 = *reinterpret_cast<const uint4*>(as + 256 + lane * 8);
    const uint64_t desc = desc0 + static_cast<uint64_t>((s * S::kStageBytes) >> 4);
    const int scale = j == 0 ? 0 : 1;  // a tile's first step overwrites the accumulators
    pin(acc);
    wg_fence();
    wgmma_sp<T, BN, 0>(acc, a0, desc, meta, scale);
    if (2 * j + 1 < ktiles)  // the second k tile (absent: the phantom half of an odd panel)
      wgmma_sp<T, BN, 1>(acc, a1, desc + kTileDesc, meta, 1);
    wg_commit();
    producer.issue();  // step q + kStages - 1, while the tensor cores run
    wg_wait_all();
    pin(acc);

    if (++j == npairs) {  // the tile is complete: the warp writes it, the copies keep flying
      store_wg_tile<BN>(p, region, acc, warp_rows, panel_row0, (tile0 + t) * BN, alpha, beta);
      j = 0;
      ++t;
    }
    if (++s == kStages) s = 0;
  }
  cp_async_wait<0>();  // (only empty groups can be pending here)
}

template <class T, int BT, int BN>
cudaError_t launch_wg(const KernelParams& p, int64_t panels, bool interleave,
                      cudaStream_t stream) {
  const int64_t n_tiles = (p.n + BN - 1) / BN;
  const dim3 grid(static_cast<unsigned>(panels),
                  static_cast<unsigned>((n_tiles + p.tiles_per_block - 1) / p.tiles_per_block));
  constexpr int threads = WgTileShape<BT, BN>::kThreads, smem = WgTileShape<BT, BN>::kSmemBytes;
  if (interleave)
    spmm_wgmma_kernel<T, BT, BN, false><<<grid, threads, smem, stream>>>(p);
  else
    spmm_wgmma_kernel<T, BT, BN, true><<<grid, threads, smem, stream>>>(p);
  return cudaGetLastError();
}

template <class T, int BT>
cudaError_t launch_wgmma(const KernelParams& p, int64_t panels, int bn, bool interleave,
                         cudaStream_t stream) {
  if (bn == 128) return launch_wg<T, BT, 128>(p, panels, interleave, stream);
  if (bn == 64) return launch_wg<T, BT, 64>(p, panels, interleave, stream);
  return cudaErrorInvalidValue;
}

template <class T, int BT, int BN, bool kSw128>
cudaError_t load_wg() {
  return cudaFuncSetAttribute(spmm_wgmma_kernel<T, BT, BN, kSw128>,
                              cudaFuncAttributeMaxDynamicSharedMemorySize,
                              WgTileShape<BT, BN>::kSmemBytes);
}

template <class T, int BT>
cudaError_t load_wgmma() {
  cudaError_t err = load_wg<T, BT, 128, true>();
  if (err == cudaSuccess) err = load_wg<T, BT, 64, true>();
  if (err == cudaSuccess) err = load_wg<T, BT, 128, false>();
  if (err == cudaSuccess) err = load_wg<T, BT, 64, false>();
  return err;
}

template cudaError_t launch_wgmma<__half, 64>(const KernelParams&, int64_t, int, bool, cudaStream_t);
template cudaError_t launch_wgmma<__half, 128>(const KernelParams&, int64_t, int, bool, cudaStream_t);
template cudaError_t launch_wgmma<__nv_bfloat16, 64>(const KernelParams&, int64_t, int, bool,
                                                     cudaStream_t);
template cudaError_t launch_wgmma<__nv_bfloat16, 128>(const KernelParams&, int64_t, int, bool,
                                                      cudaStream_t);
template cudaError_t load_wgmma<__half, 64>();
template cudaError_t load_wgmma<__half, 128>();
template cudaError_t load_wgmma<__nv_bfloat16, 64>();
template cudaError_t load_wgmma<__nv_bfloat16, 128>();

}  // namespace spx::kernels::sptc::detail
