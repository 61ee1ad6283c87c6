// The SDDMM kernel's register-level k order (host + device): a lane's 16 k positions of a step
// as raw words, and the two int8 mma registers (k-quads) each mma of the step takes from them,
// for 8- and 4-bit operands and for the 8-bit slices of 16-bit ones. The CPU test
// (tests/families/srbcrs/test_srbcrs_sddmm_plan.cpp) checks that A and B put the same k positions in the
// same register bytes for every bit pair, so the mma sums exactly the dot product.
#pragma once

#include <cstdint>

#include "families/srbcrs/kernels/lane_map.hpp"

namespace spx::kernels::srbcrs::map {

/// 16 consecutive k positions of one operand row / column, raw: Bits / 2 words (8-bit: 16 B,
/// 4-bit: 8 B, 16-bit: 32 B), lowest position in the lowest byte / nibble / half-word.
template <int Bits>
struct Raw {
  uint32_t w[Bits / 2];
};

/// The two mma registers (k-quads) of mma h (positions 8h .. 8h+7) of an 8- or 4-bit fragment,
/// as int8 bytes, in the order `Interleaved` = (0, 2, 4, 6 | 1, 3, 5, 7) or natural (0..3 | 4..7).
template <int Bits, bool Signed, bool Interleaved>
SPX_SRBCRS_HD void quads(const Raw<Bits>& r, int h, uint32_t& q0, uint32_t& q1) {
  if constexpr (Bits == 8) {
    if constexpr (Interleaved) {
      q0 = byte_perm(r.w[2 * h], r.w[2 * h + 1], 0x6420);
      q1 = byte_perm(r.w[2 * h], r.w[2 * h + 1], 0x7531);
    } else {
      q0 = r.w[2 * h];
      q1 = r.w[2 * h + 1];
    }
  } else {
    const uint32_t lo = nibbles_lo(r.w[h], Signed);  // positions 0, 2, 4, 6
    const uint32_t hi = nibbles_hi(r.w[h], Signed);  // positions 1, 3, 5, 7
    if constexpr (Interleaved) {
      q0 = lo;
      q1 = hi;
    } else {
      q0 = byte_perm(lo, hi, 0x5140);  // positions 0, 1, 2, 3
      q1 = byte_perm(lo, hi, 0x7362);  // positions 4, 5, 6, 7
    }
  }
}

/// The 8-bit slices of mma h of a 16-bit fragment (natural order): hi[] the signed high bytes,
/// lo[] the unsigned low bytes, x = 256 * hi + lo.
SPX_SRBCRS_HD void slices16(const Raw<16>& r, int h, uint32_t (&hi)[2], uint32_t (&lo)[2]) {
  for (int q = 0; q < 2; ++q) {
    const uint32_t w0 = r.w[4 * h + 2 * q], w1 = r.w[4 * h + 2 * q + 1];  // positions 4q .. 4q+3
    lo[q] = byte_perm(w0, w1, 0x6420);
    hi[q] = byte_perm(w0, w1, 0x7531);
  }
}

}  // namespace spx::kernels::srbcrs::map
