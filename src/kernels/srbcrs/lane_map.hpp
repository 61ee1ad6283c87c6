// Where every byte goes in the SR-BCRS SpMM kernel: the lane <-> slot <-> shared-memory mapping,
// the 4 x 4 byte transpose and the int4 -> int8 unpacking. Pure integer functions, compiled for the
// device by the kernel and for the host by the CPU test that emulates a warp with them
// (tests/cpu/test_srbcrs_kernel_map.cpp), so the mapping the kernel uses is the one tested.
//
// Notation: lane = 4g + t (g = groupID, t = threadID_in_group of the PTX fragment tables). Load
// position p (0..31) of a stride is the p-th B row the warp gathers (col[] is in load order).
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define SPX_SRBCRS_HD __host__ __device__ __forceinline__
#else
#define SPX_SRBCRS_HD inline
#endif

namespace spx::kernels::srbcrs::map {

/// Shared-memory row of a stage that holds load position p = 8t + j: row 4j + t. The four rows a
/// warp-wide load touches (t = 0..3, same j) are then consecutive.
SPX_SRBCRS_HD constexpr int smem_row_of_position(int p) {
  return 4 * (p & 7) + (p >> 3);
}
/// Its inverse: the load position stored in shared-memory row r.
SPX_SRBCRS_HD constexpr int position_of_smem_row(int r) {
  return 8 * (r & 3) + (r >> 2);
}

/// Bytes of a gathered B row chunk in shared memory: 64 columns of b_bits.
SPX_SRBCRS_HD constexpr int b_row_bytes(int b_bits) {
  return 64 * b_bits / 8;
}

/// The 16-byte chunk slot where chunk c of shared-memory row r is stored. int8 rows (64 B = 16
/// banks) swap chunk pairs when bit 1 of r is set, so rows r and r + 2 of one 8-byte load use
/// different banks; int4 rows (32 B) need no swizzle.
SPX_SRBCRS_HD constexpr int stored_chunk(int r, int c, int b_bits) {
  return b_bits == 8 ? c ^ (((r >> 1) & 1) << 1) : c;
}

/// The stage copy: 16-byte copy number `chunk` (lane + 32 i) of a stage goes to shared-memory row
/// `copy_row` and reads chunk `copy_chunk` of that row's B row (int8: 4 per row, int4: 2).
SPX_SRBCRS_HD constexpr int copy_row(int chunk, int b_bits) {
  return b_bits == 8 ? chunk >> 2 : chunk >> 1;
}
SPX_SRBCRS_HD constexpr int copy_chunk(int chunk, int b_bits) {
  return b_bits == 8 ? chunk & 3 : chunk & 1;
}

/// Byte offset in a stage's B area where lane (g, t) reads load position 8t + j for j = 0: the
/// lane reads 8 (int8) or 4 (int4) bytes, columns 8g .. 8g+7, of shared-memory rows 4j + t; row j
/// is at + j * 4 * b_row_bytes.
SPX_SRBCRS_HD constexpr int lane_b_offset(int g, int t, int b_bits) {
  // Row 4j + t has bit 1 = bit 1 of t; the lane's 8 bytes are chunk g / 2, half g % 2.
  return b_bits == 8 ? t * b_row_bytes(8) + stored_chunk(t, g >> 1, 8) * 16 + (g & 1) * 8
                     : t * b_row_bytes(4) + 4 * g;
}

/// Byte offset in a stage's A area (V rows of 32 slots) of lane (g, t)'s sparse operand: row g,
/// slots 8t .. 8t+7 (int8: 8 bytes; int4: one word of 8 nibbles).
SPX_SRBCRS_HD constexpr int lane_a_offset(int g, int t, int a_bits) {
  return a_bits == 8 ? g * 32 + 8 * t : g * 16 + 4 * t;
}

/// Output column (after 8g) of mma tile i, half h (mma rows g / g + 8) for a lane. int8 B: the
/// lane's 8 bytes n = 8g .. 8g+7 are transposed as two words, byte b of word w is n = 8g + 4w + b,
/// tile i = b, half h = w. int4 B: byte b of the one word holds n = 8g + 2b (low nibble, half 0)
/// and 8g + 2b + 1 (high nibble, half 1), tile i = b.
SPX_SRBCRS_HD constexpr int column_of(int i, int h, int b_bits) {
  return b_bits == 8 ? i + 4 * h : 2 * i + h;
}

/// __byte_perm: byte i of the result is byte (s >> 4i) & 7 of the 8-byte value {y, x}.
SPX_SRBCRS_HD uint32_t byte_perm(uint32_t x, uint32_t y, uint32_t s) {
#if defined(__CUDA_ARCH__)
  return __byte_perm(x, y, s);
#else
  const uint64_t v = (static_cast<uint64_t>(y) << 32) | x;
  uint32_t r = 0;
  for (int i = 0; i < 4; ++i)
    r |= static_cast<uint32_t>((v >> (8 * ((s >> (4 * i)) & 7))) & 0xFF) << (8 * i);
  return r;
#endif
}

/// 4 x 4 byte transpose: r0..r3 are four rows (byte b of r_j = element (j, b)); out[b] gets
/// byte j = element (j, b): four consecutive k values of one column, as the mma wants them.
/// Eight byte permutes (PRMT): pairs first, then pairs of pairs.
SPX_SRBCRS_HD void transpose4x4(uint32_t r0, uint32_t r1, uint32_t r2, uint32_t r3,
                                uint32_t (&out)[4]) {
  const uint32_t u0 = byte_perm(r0, r1, 0x5140);  // r0.b0 r1.b0 r0.b1 r1.b1
  const uint32_t u1 = byte_perm(r0, r1, 0x7362);  // r0.b2 r1.b2 r0.b3 r1.b3
  const uint32_t u2 = byte_perm(r2, r3, 0x5140);  // r2.b0 r3.b0 r2.b1 r3.b1
  const uint32_t u3 = byte_perm(r2, r3, 0x7362);  // r2.b2 r3.b2 r2.b3 r3.b3
  out[0] = byte_perm(u0, u2, 0x5410);             // r0.b0 r1.b0 r2.b0 r3.b0
  out[1] = byte_perm(u0, u2, 0x7632);             // r0.b1 r1.b1 r2.b1 r3.b1
  out[2] = byte_perm(u1, u3, 0x5410);             // r0.b2 r1.b2 r2.b2 r3.b2
  out[3] = byte_perm(u1, u3, 0x7632);             // r0.b3 r1.b3 r2.b3 r3.b3
}

/// int4 -> int8 of the low nibbles of a word's four bytes (packed elements 0, 2, 4, 6) and of
/// the high nibbles (1, 3, 5, 7). Signed: bit 3 of a nibble becomes 0xF0 in its byte (0x08 * 0x1E
/// = 0xF0: each byte's product stays inside the byte, nothing carries into the next).
SPX_SRBCRS_HD uint32_t nibbles_lo(uint32_t w, bool is_signed) {
  uint32_t x = w & 0x0F0F0F0Fu;
  if (is_signed) x |= (w & 0x08080808u) * 0x1Eu;
  return x;
}
SPX_SRBCRS_HD uint32_t nibbles_hi(uint32_t w, bool is_signed) {
  const uint32_t s = w >> 4;
  uint32_t x = s & 0x0F0F0F0Fu;
  if (is_signed) x |= (s & 0x08080808u) * 0x1Eu;
  return x;
}

}  // namespace spx::kernels::srbcrs::map
