// spmm(): the one entry the plan calls. Puts B into the form the kernel reads as the plan decided
// for this call (in place, or copied into the workspace) and routes the variant to its kernel.
// It decides nothing: it may only refuse what the kernel cannot take.
#include "families/srbcrs/kernels/config.hpp"
#include "families/srbcrs/kernels/srbcrs.hpp"
#include "families/srbcrs/kernels/variants.hpp"

namespace spx::kernels::srbcrs {
namespace {

cudaError_t launch(const Variant& v, const detail::KernelParams& p, cudaStream_t stream) {
  if (v.native_int4) {
    if (v.a_bits == 4 && v.b_bits == 4)
      return detail::launch_l4r4_k64(v.a_signed, v.b_signed, p, stream);
    return cudaErrorInvalidValue;
  }
  if (v.a_bits == 16 && v.b_bits == 8) return detail::launch_l16r8(v.a_signed, v.b_signed, p, stream);
  if (v.a_bits == 16 && v.b_bits == 4) return detail::launch_l16r4(v.a_signed, v.b_signed, p, stream);
  if (v.a_bits == 16 && v.b_bits == 16)
    return detail::launch_l16r16(v.a_signed, v.b_signed, p, stream);
  if (v.a_bits == 8 && v.b_bits == 8) return detail::launch_l8r8(v.a_signed, v.b_signed, p, stream);
  if (v.a_bits == 8 && v.b_bits == 4) return detail::launch_l8r4(v.a_signed, v.b_signed, p, stream);
  if (v.a_bits == 4 && v.b_bits == 8) return detail::launch_l4r8(v.a_signed, v.b_signed, p, stream);
  if (v.a_bits == 4 && v.b_bits == 4) return detail::launch_l4r4(v.a_signed, v.b_signed, p, stream);
  return cudaErrorInvalidValue;
}

}  // namespace

cudaError_t spmm(const Variant& v, const SpmmArgs& a, cudaStream_t stream) {
  if (a.m == 0 || a.n == 0) return cudaSuccess;
  detail::KernelParams p;
  p.m = a.m;
  p.n = a.n;
  const int64_t warp_cols = SpmmTile::warp_cols(v.b_bits);
  p.n_tiles = (a.n + warp_cols - 1) / warp_cols;
  p.vector_rows = a.vector_rows;
  p.vec_len = a.vec_len;
  p.row_ptr = a.row_ptr;
  p.col = a.col;
  p.values = static_cast<const uint8_t*>(a.values);
  p.b_row_bytes = v.b_bits == 4 ? (a.n + 1) / 2 : a.n * (v.b_bits / 8);
  p.C = a.C;
  p.scalars = a.scalars;
  if (a.split != 1 && a.split != 2 && a.split != 4) return cudaErrorInvalidValue;
  p.split = a.split;
  p.tile_major = a.tile_major;
  if (a.k > 0) {
    if (a.b_pitch <= 0 || a.b_pitch % 16 != 0) return cudaErrorInvalidValue;
    p.b_pitch = a.b_pitch;
    if (a.b_in_place) {
      if (a.B.order != SPX_ORDER_ROW || reinterpret_cast<uintptr_t>(a.B.ptr) % 16 != 0)
        return cudaErrorInvalidValue;
      p.b = static_cast<const uint8_t*>(a.B.ptr);
    } else {
      if (a.workspace == nullptr) return cudaErrorInvalidValue;
      p.b = static_cast<const uint8_t*>(a.workspace);
      const cudaError_t err = detail::copy_b(a.B, a.k, a.n, v.b_bits,
                                             static_cast<uint8_t*>(a.workspace), p.b_pitch, stream);
      if (err != cudaSuccess) return err;
    }
  }
  return launch(v, p, stream);
}

cudaError_t spmm_load(const Variant& v) {
  cudaError_t err = cudaErrorInvalidValue;
  if (v.native_int4) {
    if (v.a_bits == 4 && v.b_bits == 4) err = detail::load_l4r4_k64(v.a_signed, v.b_signed);
    if (err == cudaSuccess) err = detail::copy_b_load();
    return err;
  }
  if (v.a_bits == 16 && v.b_bits == 8) err = detail::load_l16r8(v.a_signed, v.b_signed);
  if (v.a_bits == 16 && v.b_bits == 4) err = detail::load_l16r4(v.a_signed, v.b_signed);
  if (v.a_bits == 16 && v.b_bits == 16) err = detail::load_l16r16(v.a_signed, v.b_signed);
  if (v.a_bits == 8 && v.b_bits == 8) err = detail::load_l8r8(v.a_signed, v.b_signed);
  if (v.a_bits == 8 && v.b_bits == 4) err = detail::load_l8r4(v.a_signed, v.b_signed);
  if (v.a_bits == 4 && v.b_bits == 8) err = detail::load_l4r8(v.a_signed, v.b_signed);
  if (v.a_bits == 4 && v.b_bits == 4) err = detail::load_l4r4(v.a_signed, v.b_signed);
  if (err == cudaSuccess) err = detail::copy_b_load();
  return err;
}

}  // namespace spx::kernels::srbcrs
