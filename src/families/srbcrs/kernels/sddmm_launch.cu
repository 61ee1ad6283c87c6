// sddmm(): the one entry the SDDMM plan calls. Puts A and B into the form the kernel reads
// (k-contiguous with 16-byte aligned rows / columns) as the plan decided for this call: in place,
// or copied into the workspace by a tiled transpose; routes the variant to its kernel. It decides
// nothing: it may only refuse what the kernel cannot take.
#include <cstdint>

#include "families/srbcrs/kernels/sddmm.hpp"
#include "families/srbcrs/kernels/sddmm_variants.hpp"

namespace spx::kernels::srbcrs {
namespace detail {
namespace {

constexpr int kCopyTile = 64;  // a 64 x 64 element tile per block
constexpr int kCopyThreads = 256;

/// Raw bits of element (r, c) of a dense operand of `bits` (4-bit: low nibble = lower index).
__device__ __forceinline__ uint32_t raw_element(const DenseView& d, int bits, int64_t r,
                                                int64_t c) {
  const int64_t i = d.order == SPX_ORDER_ROW ? r * d.ld + c : r + c * d.ld;
  const auto* p = static_cast<const uint8_t*>(d.ptr);
  switch (bits) {
    case 4: return (p[i >> 1] >> ((i & 1) * 4)) & 0xFu;
    case 8: return p[i];
    default: return reinterpret_cast<const uint16_t*>(p)[i];
  }
}

/// Tile transpose through shared memory: reads walk the source's storage order (coalesced for
/// either order), writes walk the destination's k-contiguous rows.
__global__ void copy_kmajor_kernel(DenseView src, bool transposed, int64_t outer, int64_t k,
                                   int bits, uint8_t* dst, int64_t pitch) {
  __shared__ uint16_t tile[kCopyTile][kCopyTile + 1];  // [o][kk], raw element bits
  const int64_t kk0 = static_cast<int64_t>(blockIdx.x) * kCopyTile;
  // Which index of (o, kk) is contiguous in the source: its column index when row-major.
  const bool src_row_major = src.order == SPX_ORDER_ROW;
  const bool kk_fast = transposed ? !src_row_major : src_row_major;
  const int row_bytes = kCopyTile * bits / 8;  // bytes of a tile row in the destination
  for (int64_t o0 = static_cast<int64_t>(blockIdx.y) * kCopyTile; o0 < outer;
       o0 += static_cast<int64_t>(gridDim.y) * kCopyTile) {
    for (int i = threadIdx.x; i < kCopyTile * kCopyTile; i += blockDim.x) {
      const int fast = i % kCopyTile, slow = i / kCopyTile;
      const int oo = kk_fast ? slow : fast, kk = kk_fast ? fast : slow;
      const int64_t o = o0 + oo, kx = kk0 + kk;
      uint32_t v = 0;
      if (o < outer && kx < k)
        v = transposed ? raw_element(src, bits, kx, o) : raw_element(src, bits, o, kx);
      tile[oo][kk] = static_cast<uint16_t>(v);
    }
    __syncthreads();
    const int64_t byte0 = kk0 * bits / 8;
    const int64_t k_bytes = (k * bits + 7) / 8;
    for (int i = threadIdx.x; i < kCopyTile * row_bytes; i += blockDim.x) {
      const int oo = i / row_bytes, bb = i % row_bytes;
      const int64_t o = o0 + oo, byte = byte0 + bb;
      if (o >= outer || byte >= k_bytes) continue;
      uint8_t* out = dst + o * pitch + byte;
      if (bits == 8) {
        *out = static_cast<uint8_t>(tile[oo][bb]);
      } else if (bits == 4) {  // elements past k are 0 in the tile
        *out = static_cast<uint8_t>((tile[oo][2 * bb] & 0xF) | ((tile[oo][2 * bb + 1] & 0xF) << 4));
      } else {  // 16-bit: byte bb is the low (even) or high (odd) byte of element bb / 2
        const uint16_t e = tile[oo][bb >> 1];
        *out = static_cast<uint8_t>((bb & 1) ? e >> 8 : e & 0xFF);
      }
    }
    // The row padding up to the pitch is zero: the kernels load whole 16-byte pieces, and the
    // padding was otherwise the workspace's old bytes (masked, but read; compute-sanitizer's
    // initcheck counts such reads).
    if (blockIdx.x == gridDim.x - 1) {
      const int64_t pad = pitch - k_bytes;
      for (int64_t i = threadIdx.x; i < kCopyTile * pad; i += blockDim.x) {
        const int64_t o = o0 + i / pad;
        if (o < outer) dst[o * pitch + k_bytes + i % pad] = 0;
      }
    }
    __syncthreads();
  }
}

}  // namespace

cudaError_t copy_kmajor(const DenseView& src, bool transposed, int64_t outer, int64_t k, int bits,
                        uint8_t* dst, int64_t pitch, cudaStream_t stream) {
  if (outer == 0 || k == 0) return cudaSuccess;
  const int64_t k_tiles = (k + kCopyTile - 1) / kCopyTile;
  const int64_t o_tiles = (outer + kCopyTile - 1) / kCopyTile;
  if (k_tiles > INT32_MAX) return cudaErrorInvalidValue;
  const dim3 grid(static_cast<unsigned>(k_tiles),
                  static_cast<unsigned>(o_tiles < 65535 ? o_tiles : 65535));
  copy_kmajor_kernel<<<grid, kCopyThreads, 0, stream>>>(src, transposed, outer, k, bits, dst,
                                                       pitch);
  return cudaGetLastError();
}

cudaError_t copy_kmajor_load() {
  cudaFuncAttributes attr;
  return cudaFuncGetAttributes(&attr, copy_kmajor_kernel);
}

}  // namespace detail

namespace {

cudaError_t launch(const SddmmVariant& v, const detail::SddmmParams& p, cudaStream_t stream) {
  using namespace detail;
  if (v.a_bits == 8 && v.b_bits == 8) return sddmm_launch_l8r8(v.a_signed, v.b_signed, p, stream);
  if (v.a_bits == 8 && v.b_bits == 4) return sddmm_launch_l8r4(v.a_signed, v.b_signed, p, stream);
  if (v.a_bits == 4 && v.b_bits == 8) return sddmm_launch_l4r8(v.a_signed, v.b_signed, p, stream);
  if (v.a_bits == 4 && v.b_bits == 4) return sddmm_launch_l4r4(v.a_signed, v.b_signed, p, stream);
  if (v.a_bits == 16 && v.b_bits == 16)
    return sddmm_launch_l16r16(v.a_signed, v.b_signed, p, stream);
  return cudaErrorInvalidValue;
}

/// Where the kernel reads one operand, as decided: in place, or a k-contiguous copy in the
/// workspace. k_contiguous: A row-major / B column-major. Returns the refusal or the copy's error.
cudaError_t prepare(const DenseView& d, bool k_contiguous, bool transposed, int64_t outer,
                    int64_t k, int bits, bool in_place, int64_t pitch, void* workspace,
                    int64_t offset, cudaStream_t stream, const uint8_t** base, int64_t* out_pitch) {
  if (pitch <= 0 || pitch % 16 != 0) return cudaErrorInvalidValue;
  *out_pitch = pitch;
  if (in_place) {
    if (!k_contiguous || reinterpret_cast<uintptr_t>(d.ptr) % 16 != 0) return cudaErrorInvalidValue;
    *base = static_cast<const uint8_t*>(d.ptr);
    return cudaSuccess;
  }
  if (workspace == nullptr) return cudaErrorInvalidValue;
  uint8_t* dst = static_cast<uint8_t*>(workspace) + offset;
  *base = dst;
  return detail::copy_kmajor(d, transposed, outer, k, bits, dst, pitch, stream);
}

}  // namespace


cudaError_t sddmm(const SddmmVariant& v, const SddmmArgs& a, cudaStream_t stream) {
  if (a.tasks == 0) return cudaSuccess;
  detail::SddmmParams p;
  p.k = a.k;
  p.vec_len = a.vec_len;
  p.tasks = a.tasks;
  p.task_row = a.task_row;
  p.col = a.col;
  p.vec_map = a.vec_map;
  p.srbcrs_output = a.srbcrs_output;
  p.c_values = a.c_values;
  p.c_type = a.c_type;
  p.scalars = a.scalars;
  if (a.k > 0) {
    // A (m x k) is k-contiguous row-major; B (k x n) column-major, i.e. its transpose row-major.
    cudaError_t err = prepare(a.A, a.A.order == SPX_ORDER_ROW, false, a.m, a.k, v.a_bits,
                              a.a_in_place, a.a_pitch, a.workspace, a.workspace_a_offset, stream,
                              &p.a, &p.a_pitch);
    if (err != cudaSuccess) return err;
    err = prepare(a.B, a.B.order == SPX_ORDER_COL, true, a.n, a.k, v.b_bits, a.b_in_place,
                  a.b_pitch, a.workspace, a.workspace_b_offset, stream, &p.b, &p.b_pitch);
    if (err != cudaSuccess) return err;
  }
  return launch(v, p, stream);
}

cudaError_t sddmm_load(const SddmmVariant& v) {
  using namespace detail;
  cudaError_t err = cudaErrorInvalidValue;
  if (v.a_bits == 8 && v.b_bits == 8) err = sddmm_load_l8r8(v.a_signed, v.b_signed);
  if (v.a_bits == 8 && v.b_bits == 4) err = sddmm_load_l8r4(v.a_signed, v.b_signed);
  if (v.a_bits == 4 && v.b_bits == 8) err = sddmm_load_l4r8(v.a_signed, v.b_signed);
  if (v.a_bits == 4 && v.b_bits == 4) err = sddmm_load_l4r4(v.a_signed, v.b_signed);
  if (v.a_bits == 16 && v.b_bits == 16) err = sddmm_load_l16r16(v.a_signed, v.b_signed);
  if (err == cudaSuccess) err = detail::copy_kmajor_load();
  return err;
}

}  // namespace spx::kernels::srbcrs
