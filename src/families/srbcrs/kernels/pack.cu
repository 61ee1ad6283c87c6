// The SR-BCRS family's data movers: the value re-packing into the stride-major layout (analyze,
// spxPlanUpdateValues) and the copy of B into a row-major, 16-byte aligned array (column-major
// or unaligned B). Neither is on the product's inner path; both are simple and memory-bound.
#include <cstdint>

#include "families/srbcrs/kernels/config.hpp"
#include "families/srbcrs/kernels/lane_map.hpp"
#include "families/srbcrs/kernels/srbcrs.hpp"
#include "families/srbcrs/kernels/variants.hpp"

namespace spx::kernels::srbcrs {
namespace {

constexpr int kThreads = 256;

unsigned grid_for(int64_t items) {
  const int64_t blocks = (items + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 65535 * 16 ? blocks : 65535 * 16);  // grid-stride beyond
}

__device__ __forceinline__ uint32_t load_nibble(const uint8_t* p, int64_t i) {
  return (p[i >> 1] >> ((i & 1) * 4)) & 0xFu;
}

/// User element of layout element e (stride-major: stride e / (S V), then row v, then slot).
__device__ __forceinline__ int64_t user_element(const PackArgs& a, int64_t e) {
  const int64_t S = a.stride;
  const int64_t per_stride = S * a.vec_len;
  const int64_t stride = e / per_stride;
  const int64_t rem = e - stride * per_stride;
  const int64_t v = rem / S, s = rem - v * S;
  const int32_t user = a.vec_map[stride * S + s];
  if (user < 0) return -1;
  return a.src_srbcrs ? e : static_cast<int64_t>(user) * a.vec_len + v;
}

/// 16-bit values, byte b of the sliced layout: stride, then slice, then (row v, slot) as above.
__device__ __forceinline__ uint8_t sliced_byte(const PackArgs& a, int64_t b) {
  const int64_t per_slice = a.stride * a.vec_len;
  const int64_t stride = b / (2 * per_slice);
  const int64_t rem = b - stride * 2 * per_slice;
  const int slice = rem >= per_slice ? 1 : 0;
  const int64_t u = user_element(a, stride * per_slice + rem - slice * per_slice);
  if (u < 0) return 0;
  const auto* src = static_cast<const uint8_t*>(a.src);
  const uint32_t value = uint32_t{src[2 * u]} | (uint32_t{src[2 * u + 1]} << 8);
  return map::slice_byte(value, slice);
}

/// One thread per output byte (4-bit: two elements of the same row of a stride; 16-bit: one
/// slice of one element).
__global__ void pack_values_kernel(PackArgs a) {
  const auto* src = static_cast<const uint8_t*>(a.src);
  auto* dst = static_cast<uint8_t*>(a.dst);
  const int64_t elements = a.slots * a.vec_len;
  const int64_t bytes = a.bits == 4 ? elements / 2 : elements * (a.bits / 8);  // slots: even
  for (int64_t b = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; b < bytes;
       b += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    if (a.bits == 16) {
      dst[b] = sliced_byte(a, b);
    } else if (a.bits == 8) {
      const int64_t u = user_element(a, b);
      dst[b] = u < 0 ? 0 : src[u];
    } else {
      const int64_t u0 = user_element(a, 2 * b), u1 = user_element(a, 2 * b + 1);
      const uint32_t lo = u0 < 0 ? 0 : load_nibble(src, u0);
      const uint32_t hi = u1 < 0 ? 0 : load_nibble(src, u1);
      dst[b] = static_cast<uint8_t>(lo | (hi << 4));
    }
  }
}

constexpr int kTile = 64;  // B copy: a 64 x 64 element tile per block

/// Raw bits of element (r, c) of B.
__device__ __forceinline__ uint32_t b_element(const DenseView& B, int bits, int64_t r, int64_t c) {
  const int64_t i = B.order == SPX_ORDER_ROW ? r * B.ld + c : r + c * B.ld;
  const auto* p = static_cast<const uint8_t*>(B.ptr);
  if (bits == 16) return static_cast<const uint16_t*>(B.ptr)[i];
  return bits == 8 ? p[i] : load_nibble(p, i);
}

/// Tile transpose through shared memory: reads walk B's storage order (coalesced for either
/// order), writes walk the destination rows. Handles any ld and base alignment.
__global__ void copy_b_kernel(DenseView B, int64_t k, int64_t n, int bits, uint8_t* dst,
                              int64_t pitch) {
  __shared__ uint16_t tile[kTile][kTile + 2];  // [row][column], raw element bits
  const int64_t c0 = static_cast<int64_t>(blockIdx.x) * kTile;
  const bool col_major = B.order == SPX_ORDER_COL;
  for (int64_t r0 = static_cast<int64_t>(blockIdx.y) * kTile; r0 < k;
       r0 += static_cast<int64_t>(gridDim.y) * kTile) {
    for (int i = threadIdx.x; i < kTile * kTile; i += blockDim.x) {
      // Column-major: consecutive threads take consecutive rows (contiguous in B), else columns.
      const int fast = i % kTile, slow = i / kTile;
      const int rr = col_major ? fast : slow, cc = col_major ? slow : fast;
      const int64_t r = r0 + rr, c = c0 + cc;
      tile[rr][cc] = (r < k && c < n) ? static_cast<uint16_t>(b_element(B, bits, r, c)) : 0;
    }
    __syncthreads();
    const int tile_bytes = kTile * bits / 8;
    const int64_t byte0 = c0 * bits / 8;
    for (int i = threadIdx.x; i < kTile * tile_bytes; i += blockDim.x) {
      const int rr = i / tile_bytes, bb = i % tile_bytes;
      const int64_t r = r0 + rr, byte = byte0 + bb;
      // The row's padding up to the 16-byte pitch is written too (zeros: the tile holds 0 past
      // n), since the kernel loads whole 16-byte pieces of a row.
      if (r >= k || byte >= pitch) continue;
      uint8_t out;
      if (bits == 16)
        out = map::slice_byte(tile[rr][bb / 2], bb % 2);  // little endian: low byte first
      else if (bits == 8)
        out = static_cast<uint8_t>(tile[rr][bb]);
      else
        out = static_cast<uint8_t>((tile[rr][2 * bb] & 0xF) | ((tile[rr][2 * bb + 1] & 0xF) << 4));
      dst[r * pitch + byte] = out;
    }
    __syncthreads();
  }
}

}  // namespace

cudaError_t pack_values(const PackArgs& a, cudaStream_t stream) {
  if (a.stride <= 0 || a.slots % a.stride != 0) return cudaErrorInvalidValue;
  const int64_t elements = a.slots * a.vec_len;
  const int64_t bytes = a.bits == 4 ? elements / 2 : elements * (a.bits / 8);
  if (bytes == 0) return cudaSuccess;
  pack_values_kernel<<<grid_for(bytes), kThreads, 0, stream>>>(a);
  return cudaGetLastError();
}

cudaError_t pack_values_load() {
  cudaFuncAttributes attr;
  return cudaFuncGetAttributes(&attr, pack_values_kernel);
}

namespace detail {

cudaError_t copy_b(const DenseView& B, int64_t k, int64_t n, int bits, uint8_t* dst, int64_t pitch,
                   cudaStream_t stream) {
  if (k == 0 || n == 0) return cudaSuccess;
  const int64_t col_tiles = (n + kTile - 1) / kTile, row_tiles = (k + kTile - 1) / kTile;
  if (col_tiles > INT32_MAX) return cudaErrorInvalidValue;
  const dim3 grid(static_cast<unsigned>(col_tiles),
                  static_cast<unsigned>(row_tiles < 65535 ? row_tiles : 65535));
  copy_b_kernel<<<grid, kThreads, 0, stream>>>(B, k, n, bits, dst, pitch);
  return cudaGetLastError();
}

cudaError_t copy_b_load() {
  cudaFuncAttributes attr;
  return cudaFuncGetAttributes(&attr, copy_b_kernel);
}

}  // namespace detail
}  // namespace spx::kernels::srbcrs
