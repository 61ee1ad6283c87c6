// The streamed copy of a column-major B (launch.hpp: StreamedB): row-major chunks of
// kStreamChunkRows rows x one panel of BN columns, written while the tensor-copy product runs,
// one flag per chunk.
//
// Why a kernel of its own, beside the product. The serial copy (aux.cu) costs 0.065 ms at
// 4096^2 before the first tile starts. A copy inside the product's grid (an experiment, H100)
// was correct but slower than the serial copy: its worker blocks took the product's block slots
// and one worker moved only 8 GB/s. Here the copy blocks take no shared memory and few registers,
// so one fits on each SM next to the product's two Wide blocks (224 registers x 128 threads
// each: 8192 registers are left, 128 threads x 64), and the copy needs no slot of the product.
// Measured on H100 (4096^3, column-major): the product runs 25-45 us longer than on a row-major
// B, against 58-66 us for the copy before it; of that, ~6 us is the waiting kernel variant
// itself, ~5 us the second launch and ~15 us the copy's memory traffic next to the first wave
// (src/families/nm/README.md, notes).
//
// Forward progress. The product is launched as this kernel's programmatic dependent: its blocks
// may start once every copy block has executed `griddepcontrol.launch_dependents`, i.e. once every
// copy block is running. A running block finishes whatever the product's blocks do, so the tiles'
// waits end. Without programmatic launch (or where the driver ignores it) the product starts after
// the copy: every flag is already set.
//
// Flags are reset by the block that later sets them, before it lets the product start (the
// workspace is the caller's and holds anything). This kernel is itself launched as a
// programmatic dependent of the work before it (its launch overlaps that work's end) and waits
// for it (`griddepcontrol.wait`) before reading B or touching a flag, so the previous call's
// product is complete by then.
#include <algorithm>

#include "device/launch.cuh"
#include "families/nm/kernels/launch.hpp"

namespace spx::kernels::nm {
namespace {

constexpr int kCopyThreads = 128;  // 4 warps; each moves two units of 32 rows x 16 columns at once
static_assert(kCopyThreads / 32 == kStreamFlagDone, "a chunk's flag counts the block's warps");
constexpr int kUnitRows = 32, kUnitCols = 16;
static_assert(kStreamChunkRows == kUnitRows, "a chunk is one unit high");

struct ItemPos {
  int chunk, panel;
};

/// Item `item` in the order the product's tiles need B: panels in groups of those whose tiles
/// start together (panel_group), chunk by chunk inside a group.
__device__ __forceinline__ ItemPos item_position(const StreamedB& s, int item) {
  const int per_group = s.panel_group * s.chunks;
  const int grp = item / per_group, rem = item - grp * per_group;
  const int first_panel = grp * s.panel_group;
  const int width = min(s.panel_group, s.panels - first_panel);
  return {rem / width, first_panel + rem % width};
}

/// One lane's 4 x 4 block of a unit: 8 lanes read 128 contiguous bytes of a column (16-byte
/// loads along k); after the 4 x 4 exchange in registers 4 lanes write 64 contiguous bytes of a
/// row: whole sectors both ways, no shared memory. Loads and stores are split so that a warp
/// can have two units' loads in flight.
struct UnitBlock {
  float4 col[4];  // columns c .. c + 3, rows r .. r + 3 each
};

__device__ __forceinline__ void load_unit(const StreamedB& s, int64_t k, int64_t n, int64_t r,
                                          int64_t c, bool vec, UnitBlock& b) {
  if (vec && r + 4 <= k && c + 4 <= n) {
    const float* src = s.src + c * s.ld_src + r;
#pragma unroll
    for (int j = 0; j < 4; ++j)
      b.col[j] = __ldg(reinterpret_cast<const float4*>(src + j * s.ld_src));
    return;
  }
  // Edges (k or n tails, an unaligned source): element loads, zeros past k and n.
#pragma unroll
  for (int j = 0; j < 4; ++j) {
    float v[4] = {0.0f, 0.0f, 0.0f, 0.0f};
    if (c + j < n)
#pragma unroll
      for (int e = 0; e < 4; ++e)
        if (r + e < k) v[e] = __ldg(s.src + (c + j) * s.ld_src + r + e);
    b.col[j] = make_float4(v[0], v[1], v[2], v[3]);
  }
}

/// Rows r .. r + 3 (those below k) of columns c .. c + 3. Columns n .. ld_staged - 1 (n rounded
/// up to 4) are padding: written as zeros, never read.
__device__ __forceinline__ void store_unit(const StreamedB& s, int64_t k, int64_t r, int64_t c,
                                           const UnitBlock& b) {
  float* dst = s.staged + r * s.ld_staged + c;
  if (r < k) *reinterpret_cast<float4*>(dst) = make_float4(b.col[0].x, b.col[1].x, b.col[2].x, b.col[3].x);
  if (r + 1 < k)
    *reinterpret_cast<float4*>(dst + s.ld_staged) =
        make_float4(b.col[0].y, b.col[1].y, b.col[2].y, b.col[3].y);
  if (r + 2 < k)
    *reinterpret_cast<float4*>(dst + 2 * s.ld_staged) =
        make_float4(b.col[0].z, b.col[1].z, b.col[2].z, b.col[3].z);
  if (r + 3 < k)
    *reinterpret_cast<float4*>(dst + 3 * s.ld_staged) =
        make_float4(b.col[0].w, b.col[1].w, b.col[2].w, b.col[3].w);
}

// At most 64 registers (launch bounds: 8 blocks of 128 threads), so that the copy block fits in
// the 8192+ registers the product's two Wide blocks leave free on an SM. An item of the Wide
// tile (32 x 128) is two units per warp, both in flight.
__global__ void __launch_bounds__(kCopyThreads, 8)
    stream_b_kernel(StreamedB s, int64_t k, int64_t n, int bn) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  // Launched as a programmatic dependent of whatever precedes it (its launch overlaps that
  // work's end): nothing is read or written before that work is complete and visible.
  asm volatile("griddepcontrol.wait;\n" ::: "memory");
#endif
  const int items = s.chunks * s.panels;
  for (int item = blockIdx.x + static_cast<int>(gridDim.x) * threadIdx.x; item < items;
       item += static_cast<int>(gridDim.x) * kCopyThreads) {
    const ItemPos p = item_position(s, item);
    s.flags[static_cast<int64_t>(p.panel) * s.chunks + p.chunk] = 0u;
  }
  __threadfence();
  __syncthreads();
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;\n" ::: "memory");
#endif
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  const int kq = lane & 7, cq = lane >> 3;  // rows 4 kq .. 4 kq + 3, columns 4 cq .. 4 cq + 3
  const bool vec = s.ld_src % 4 == 0 && reinterpret_cast<uintptr_t>(s.src) % 16 == 0;
  constexpr int kWarps = kCopyThreads / 32;
  const int units = bn / kUnitCols;  // per item, over the block's warps, two at a time
  for (int item = blockIdx.x; item < items; item += static_cast<int>(gridDim.x)) {
    const ItemPos p = item_position(s, item);
    const int64_t r = static_cast<int64_t>(p.chunk) * kUnitRows + 4 * kq;
    for (int u = warp; u < units; u += 2 * kWarps) {
      const int64_t c0 = static_cast<int64_t>(p.panel) * bn + u * kUnitCols + 4 * cq;
      const int64_t c1 = c0 + kWarps * kUnitCols;
      const bool has0 = c0 < n, has1 = u + kWarps < units && c1 < n;
      UnitBlock b0, b1;
      if (has0) load_unit(s, k, n, r, c0, vec, b0);
      if (has1) load_unit(s, k, n, r, c1, vec, b1);
      if (has0) store_unit(s, k, r, c0, b0);
      if (has1) store_unit(s, k, r, c1, b1);
    }
    // The chunk is complete once every thread's stores are visible at gpu scope, to the tensor
    // copies too (the async proxy), before its flag is raised.
    __threadfence();
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("fence.proxy.async.global;\n" ::: "memory");
#endif
    // Each warp counts its part done; the chunk is copied when all kStreamFlagDone warps have
    // (no block barrier: a warp goes on to its next item while the others finish).
    __syncwarp();
    if (lane == 0) {
      uint32_t* flag = s.flags + static_cast<int64_t>(p.panel) * s.chunks + p.chunk;
      asm volatile("red.release.gpu.global.add.u32 [%0], %1;\n" ::"l"(flag), "r"(1u) : "memory");
    }
  }
}

}  // namespace

// (The parameter list, a non-const StreamedB& and two int64_t after bn, is the one this first
// external function of the file has always had: nvcc derives the unique name of the file's
// anonymous namespace, and so the copy kernel's symbol, from that function's mangled name.)
cudaError_t stream_b_launch(StreamedB& s, int64_t k, int64_t n, int64_t bn, int64_t grid_x,
                            int64_t copy_grid, cudaStream_t stream) {
  // The plan decided the geometry (plan/choice.cpp): chunks and panels of this shape, the panel
  // groups, the copy's grid (one block per SM at most); `s` is launched as it is.
  if (bn % kUnitCols != 0 || s.copy_blocks <= 0 || copy_grid <= 0 || copy_grid > s.copy_blocks ||
      grid_x <= 0 || s.chunks != static_cast<int>((k + kStreamChunkRows - 1) / kStreamChunkRows) ||
      s.panels != static_cast<int>((n + bn - 1) / bn) || s.panel_group < 1 ||
      s.panel_group > s.panels)
    return cudaErrorInvalidValue;
  return launch_programmatic(stream_b_kernel, dim3(static_cast<unsigned>(copy_grid)),
                             dim3(kCopyThreads), 0, stream, s, k, n, static_cast<int>(bn));
}

cudaError_t stream_b_load() {
  cudaFuncAttributes attr;
  cudaError_t err = cudaFuncGetAttributes(&attr, stream_b_kernel);
  // Prefer the full shared-memory carveout like the product: an SM configured for less shared
  // memory by this kernel (which needs none) could not take the product's blocks until it
  // drained.
  if (err == cudaSuccess)
    err = cudaFuncSetAttribute(stream_b_kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                               cudaSharedmemCarveoutMaxShared);
  return err;
}

}  // namespace spx::kernels::nm
