// Where every byte goes in the SR-BCRS SpMM kernel: the lane <-> slot <-> shared-memory mapping,
// the 4 x 4 byte transpose, the int4 -> int8 unpacking, the int16 -> two int8 slices split and the
// native int4 nibble merge. Pure integer functions, compiled for the
// device by the kernel and for the host by the CPU test that emulates a warp with them
// (tests/families/srbcrs/test_srbcrs_kernel_map.cpp), so the mapping the kernel uses is the one tested.
//
// Notation: lane = 4g + t (g = groupID, t = threadID_in_group of the PTX fragment tables). Load
// position p (0..31, or 0..63 on the native int4 path) of a stride is the p-th B row the warp
// gathers (col[] is in load order). A stride of 64 is two halves of 32 positions, each laid out
// like a stride of 32 (half h holds mma k = 32h .. 32h + 31).
#pragma once

#include <cstdint>

#if defined(__CUDACC__)
#define SPX_SRBCRS_HD __host__ __device__ __forceinline__
#else
#define SPX_SRBCRS_HD inline
#endif

namespace spx::kernels::srbcrs::map {

/// Shared-memory row of a stage that holds load position p = 32h + 8t + j: row 32h + 4j + t. The
/// four rows a warp-wide load touches (t = 0..3, same h and j) are then consecutive.
SPX_SRBCRS_HD constexpr int smem_row_of_position(int p) {
  return (p & ~31) + 4 * (p & 7) + ((p >> 3) & 3);
}
/// Its inverse: the load position stored in shared-memory row r.
SPX_SRBCRS_HD constexpr int position_of_smem_row(int r) {
  return (r & ~31) + 8 * (r & 3) + ((r >> 2) & 7);
}

/// Bytes of a gathered B row chunk in shared memory: 64 int8 columns, 64 int4 or 32 int16.
SPX_SRBCRS_HD constexpr int b_row_bytes(int b_bits) {
  return b_bits == 4 ? 32 : 64;
}

/// The 16-byte chunk slot where chunk c of shared-memory row r is stored. 64-byte rows (int8,
/// int16; 16 banks) swap chunk pairs when bit 1 of r is set, so rows r and r + 2 of one 8-byte
/// load use different banks; int4 rows (32 B) need no swizzle.
SPX_SRBCRS_HD constexpr int stored_chunk(int r, int c, int b_bits) {
  return b_bits != 4 ? c ^ (((r >> 1) & 1) << 1) : c;
}

/// The stage copy: 16-byte copy number `chunk` (lane + 32 i) of a stage goes to shared-memory row
/// `copy_row` and reads chunk `copy_chunk` of that row's B row (64-byte rows: 4, int4: 2).
SPX_SRBCRS_HD constexpr int copy_row(int chunk, int b_bits) {
  return b_bits != 4 ? chunk >> 2 : chunk >> 1;
}
SPX_SRBCRS_HD constexpr int copy_chunk(int chunk, int b_bits) {
  return b_bits != 4 ? chunk & 3 : chunk & 1;
}

/// Byte offset in a stage's B area where lane (g, t) reads load position 8t + j for j = 0: the
/// lane reads 8 bytes (int8: columns 8g .. 8g+7; int16: 4g .. 4g+3) or 4 bytes (int4: columns
/// 8g .. 8g+7) of shared-memory rows 4j + t; row j is at + j * 4 * b_row_bytes (and the second
/// half of a stride of 64 at + 32 * b_row_bytes).
SPX_SRBCRS_HD constexpr int lane_b_offset(int g, int t, int b_bits) {
  // Row 4j + t has bit 1 = bit 1 of t; the lane's 8 bytes are chunk g / 2, half g % 2.
  return b_bits != 4 ? t * b_row_bytes(8) + stored_chunk(t, g >> 1, 8) * 16 + (g & 1) * 8
                     : t * b_row_bytes(4) + 4 * g;
}

/// Byte offset in a stage's A area (V rows of 32 slots) of lane (g, t)'s sparse operand: row g,
/// slots 8t .. 8t+7 (int8: 8 bytes; int4: one word of 8 nibbles).
SPX_SRBCRS_HD constexpr int lane_a_offset(int g, int t, int a_bits) {
  return a_bits == 8 ? g * 32 + 8 * t : g * 16 + 4 * t;
}

/// 16-bit A: the stage holds slice s (0 = low bytes, 1 = high bytes) as V rows of 32 bytes after
/// slice s - 1; lane (g, t) reads row g, slots 8t .. 8t+7 of slice s.
SPX_SRBCRS_HD constexpr int lane_a_slice_offset(int g, int t, int vec_len, int slice) {
  return slice * vec_len * 32 + g * 32 + 8 * t;
}

/// Native int4 (stride 64, rows of 32 bytes = 64 nibbles): lane (g, t)'s sparse operand is row g,
/// words t (slots 8t .. 8t+7: mma k = 8t ..) and t + 4 (k = 32 + 8t ..); this is the first.
SPX_SRBCRS_HD constexpr int lane_a_offset_k64(int g, int t) {
  return g * 32 + 4 * t;
}

/// Output column (after the lane's first column) of mma tile i, half h (mma rows g / g + 8). int8
/// B: the lane's 8 bytes n = 8g .. 8g+7 are transposed as two words, byte b of word w is
/// n = 8g + 4w + b, tile i = b, half h = w. int4 B: byte b of the one word holds n = 8g + 2b (low
/// nibble, half 0) and 8g + 2b + 1 (high nibble, half 1), tile i = b. int16 B: the lane's 8 bytes
/// are columns 4g .. 4g+3, two bytes each; byte b of word w is column 4g + 2w + b / 2, slice b % 2,
/// tile i = b, half h = w.
SPX_SRBCRS_HD constexpr int column_of(int i, int h, int b_bits) {
  return b_bits == 8 ? i + 4 * h : b_bits == 4 ? 2 * i + h : (i >> 1) + 2 * h;
}

/// int16 B: the slice of B every row of mma tile i holds (0 = low bytes, unsigned; 1 = high
/// bytes, signed); 8- and 4-bit B are one slice.
SPX_SRBCRS_HD constexpr int b_slice_of_tile(int i, int b_bits) {
  return b_bits == 16 ? (i & 1) : 0;
}

/// Slice s of a 16-bit value v (raw bits): a = 256 * hi + lo with hi = the high byte read as
/// int8 (signed) and lo = the low byte read as uint8 (unsigned), exactly, for every int16 a. The
/// partial products are combined as lo_product + (hi_product << 8) in wrapping int32.
SPX_SRBCRS_HD constexpr uint8_t slice_byte(uint32_t v, int slice) {
  return static_cast<uint8_t>((v >> (8 * slice)) & 0xFFu);
}
SPX_SRBCRS_HD constexpr bool slice_signed(int slice, int slices) {
  return slice == slices - 1;
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

/// Native int4: t0 = transpose4x4 of B rows 0..3 (of a lane's 8 load positions), t1 of rows 4..7,
/// so byte b of each holds columns 2b (low nibble) and 2b + 1 (high nibble) of four rows. The
/// merges give one word per column with nibble 2j = row j and nibble 2j + 1 = row 4 + j: mma k
/// order 0, 4, 1, 5, 2, 6, 3, 7 of the load positions, which the plan's int4 index shuffle turns
/// into slots 0 .. 7 (A's natural nibble order). Column 2b:
SPX_SRBCRS_HD uint32_t merge_nibbles_even(uint32_t t0, uint32_t t1) {
  return (t0 & 0x0F0F0F0Fu) | ((t1 & 0x0F0F0F0Fu) << 4);
}
/// ... and column 2b + 1.
SPX_SRBCRS_HD uint32_t merge_nibbles_odd(uint32_t t0, uint32_t t1) {
  return ((t0 >> 4) & 0x0F0F0F0Fu) | (t1 & 0xF0F0F0F0u);
}

}  // namespace spx::kernels::srbcrs::map
