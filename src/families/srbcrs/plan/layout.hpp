// Host planning of the SR-BCRS family (plain C++, no CUDA): the Strided Row-major BCRS layout of
// Magicube (Li et al., SC'22, Sec. III-A and Fig. 2) built from a user BCRS(V) structure, with the
// int4 column-index shuffle (the idea of the paper's Fig. 7, adapted to unpacking int4 to int8 in
// registers), the value map that lets spxPlanUpdateValues re-pack values without redoing the
// structure, and the statistics the plan reports.
//
// Layout (S = stride, V = vector length, R = rows / V vector-rows). Units are "slots": one slot
// holds one V x 1 vector (or padding).
//   * Every vector-row owns ceil(nv / S) whole strides of S slots, nv = its vector count; rows
//   follow
//     each other in order, so every row starts on a multiple of S.
//   * row_ptr has 2R + 1 entries:
//       row_ptr[2i]     = first slot of vector-row i                     (a multiple of S)
//       row_ptr[2i + 1] = end of its full strides = row_ptr[2i] + floor(nv / S) * S
//                         (= start of its padded last stride when nv % S != 0)
//       row_ptr[2i + 2] = first slot of row i + 1 = end of row i's padded region
//     so row i has a padded last stride iff row_ptr[2i + 2] > row_ptr[2i + 1] (then exactly S
//     slots of which nv % S are real), and row_ptr[2R] is the total slot count. An empty row has
//     row_ptr[2i] == row_ptr[2i + 1] == row_ptr[2i + 2].
//   * Inside a row the vectors keep the user's order (slot row_ptr[2i] + j holds the row's j-th
//     vector); padding slots fill the tail of the last stride.
//   * values: stride g (slots gS .. gS + S - 1) is a contiguous V x S row-major block of elements:
//       element index  g * S * V + v * S + s   = row v of the vector in slot gS + s.
//     This is the paper's "row-major inside a stride". Each row v of a stride is S contiguous
//     k-values, which is the k-contiguous column of the mma B operand when the kernel computes
//     C^T = B^T A^T (sm_90: m16n8k32, the sparse side on n = 8 >= V) and the k-contiguous row of
//     the mma A operand in the paper's non-transposed m8n8k16. Padding elements are 0.
//     8-bit: one byte per element; 16-bit: two bytes, little endian; 4-bit: two per byte, low
//     nibble = even element (the dtype.hpp convention), so one row of a stride is S / 2 bytes and
//     32-bit word w of that row holds slots 8w .. 8w + 7 (nibble q = slot 8w + q).
//     Values are raw bits of the user's type: signed and unsigned types share one layout.
//   * col (slots entries, int32): the column of A (row of B) of each slot, in the order the kernel
//     LOADS B rows ("load position"), padding = kSrbcrsPadCol (-1).
//       8- and 16-bit: load position = slot (no shuffle).
//       4-bit: inside each aligned group of 8 slots,
//         col[8w + p] = column of slot 8w + kSrbcrsShuffle[p],  kSrbcrsShuffle = {0,2,4,6,1,3,5,7}.
//     Why: the kernel unpacks a 32-bit word of 8 int4 values (slots 8w + q at nibble q) to int8
//     with
//       lo = w & 0x0F0F0F0F          -> bytes 0..3 = slots 0, 2, 4, 6
//       hi = (w >> 4) & 0x0F0F0F0F   -> bytes 0..3 = slots 1, 3, 5, 7
//     (plus a sign extension per byte for signed int4), and uses lo as k = 8w + 0..3 and hi as
//     k = 8w + 4..7: k position p holds slot kSrbcrsShuffle[p]. Loading B rows in col[] order
//     puts row col[8w + p] at k position p, so both mma operands agree on every k without any
//     nibble shuffling of A. The B side keeps its k order after the byte transpose + the same
//     lo/hi mask (the n = 2j / 2j + 1 nibble pair of a byte splits into two int8 columns), so this
//     one permutation is all that is needed. It is also exactly the permutation of Fig. 7 for
//     the native int4 path (sm_80): there B's transposed nibbles come out in k order
//     0,4,1,5,2,6,3,7 of the load positions, and with col[] shuffled as above nibble q holds slot
//     q, matching A's natural nibble order. One layout serves both int4 paths.
//   * vec_map (slots entries, natural slot order, not shuffled): index of the user vector (its
//     position in block_col) stored in the slot, -1 for padding. The user value slot of element
//     (slot, v) is vec_map[slot] * V + v. Host-only: it is the cached piece spxPlanUpdateValues
//     needs to re-pack new values (srbcrs_repack_values).
//
// Strides the kernels use (srbcrs_stride_for): 32 for every type on every architecture: int8
// feeds mma.sync m16n8k32 s8 (~1,265 TOP/s on an H200; the paper's m8n8k16 would use 16, at 472),
// int4 is unpacked to int8 in registers and fed to the same mma (native int4 m16n8k64 runs at 68
// TOP/s on Hopper), int16 is emulated on two int8 mma of k = 32 (the kernel reads its values as
// two int8 slices: srbcrs_sliced_values). The native int4 path of sm_80 (L4-R4 on m16n8k64) uses
// kSrbcrsNativeInt4Stride = 64: two halves of 32 load positions, the same int4 shuffle per group
// of 8. Any stride that is a positive multiple of 8 up to 256 is accepted.
#pragma once

#include <cstdint>
#include <vector>

#include "formats/host_formats.hpp"
#include "spx/spx_types.h"

#include "runtime/host_vector.hpp"

namespace spx::plan {

/// Column index of padding slots. The kernel may clamp it to row 0 (the A values of the slot are
/// zero, so the product contributes nothing) to avoid a branch.
inline constexpr int32_t kSrbcrsPadCol = -1;

/// 4-bit layouts: load position p of a group of 8 slots reads the B row of slot kSrbcrsShuffle[p].
inline constexpr int kSrbcrsShuffle[8] = {0, 2, 4, 6, 1, 3, 5, 7};
/// The inverse: slot q of a group of 8 is at load position kSrbcrsUnshuffle[q].
inline constexpr int kSrbcrsUnshuffle[8] = {0, 4, 1, 5, 2, 6, 3, 7};

/// The stride of the native int4 path (mma.sync m16n8k64: k = 64).
inline constexpr int64_t kSrbcrsNativeInt4Stride = 64;

/// What the layout is built for.
struct SrbcrsConfig {
  int64_t stride = 32;            ///< S: slots per stride = mma reduction size k (multiple of 8)
  spxDataType_t type = SPX_R_8I;  ///< value type: 8I, 8U, 4I, 4U or 16I (4-bit: shuffled cols)
  /// Whether srbcrs_build_structure sizes the host `values` (zeros): the plan packs its values on
  /// the device and needs none.
  bool host_values = true;
};

/// The stride the sm_<sm> kernels use for `type` (see the file comment).
int64_t srbcrs_stride_for(spxDataType_t type, int sm);

/// INVALID_VALUE unless the type is 8I/8U/4I/4U/16I and the stride a multiple of 8 in [8, 256].
void validate_srbcrs_config(const SrbcrsConfig& cfg);

/// The plan's SR-BCRS arrays (see the file comment for their exact meaning).
struct SrbcrsLayout {
  int64_t rows = 0, cols = 0, vec_len = 1, stride = 0;
  spxDataType_t type = SPX_R_8I;
  int bits = 8;                  ///< 4, 8 or 16
  bool shuffled = false;         ///< col[] in the int4 load order (bits == 4)
  int64_t vector_rows = 0;       ///< R = rows / V
  int64_t num_vectors = 0;       ///< real vectors (the user's block_col length)
  int64_t slots = 0;             ///< row_ptr[2R]: real + padding slots, a multiple of stride
  int64_t padding_slots = 0;     ///< slots - num_vectors
  std::vector<int32_t> row_ptr;  ///< 2R + 1 (device)
  HostVector<int32_t> col;       ///< slots, load order, kSrbcrsPadCol for padding (device)
  HostVector<int32_t> vec_map;   ///< slots, natural order: user vector index or -1 (host only)
  std::vector<uint8_t> values;   ///< storage_bytes(type, slots * V), stride-major (device)

  int64_t elements() const { return slots * vec_len; }
  int64_t padding_elements() const { return padding_slots * vec_len; }
  /// Device bytes of the index arrays (row_ptr + col).
  int64_t metadata_bytes() const;
  /// Device bytes of the values.
  int64_t value_bytes() const;
};

/// Element index of row v of the vector in `slot` (see "values" in the file comment).
inline int64_t srbcrs_element(const SrbcrsLayout& l, int64_t slot, int64_t v) {
  return (slot / l.stride) * l.stride * l.vec_len + v * l.stride + slot % l.stride;
}

/// Load position of `slot` in col[] (identity unless shuffled).
inline int64_t srbcrs_load_position(const SrbcrsLayout& l, int64_t slot) {
  return l.shuffled ? (slot & ~int64_t{7}) + kSrbcrsUnshuffle[slot & 7] : slot;
}

/// Slot whose B row is loaded at load position `pos` (identity unless shuffled).
inline int64_t srbcrs_slot_at(const SrbcrsLayout& l, int64_t pos) {
  return l.shuffled ? (pos & ~int64_t{7}) + kSrbcrsShuffle[pos & 7] : pos;
}

/// What the kernel choice needs of a structure before the layout is built (its stride depends on
/// the choice): vector-rows, vectors, and the layout's slot count at either stride it may take.
struct SrbcrsStructureStats {
  int64_t vector_rows = 0;  ///< R = rows / V
  int64_t num_vectors = 0;  ///< real vectors
  int64_t slots32 = 0;      ///< slots of the layout at stride 32
  int64_t slots64 = 0;      ///< slots at stride 64 (kSrbcrsNativeInt4Stride)
  /// The slot count at `stride` (32 or 64; 0 otherwise).
  int64_t slots(int64_t stride) const {
    return stride == 32 ? slots32 : stride == kSrbcrsNativeInt4Stride ? slots64 : 0;
  }
};

/// Validates V, the shape and block_row_ptr as srbcrs_build_structure does (INVALID_VALUE; the
/// columns are checked by the build) and counts the statistics.
SrbcrsStructureStats srbcrs_structure_stats(const BcrsView& a);

/// Validates the structure and config (INVALID_VALUE; NOT_SUPPORTED when the slot count exceeds
/// int32) and builds row_ptr, col, vec_map and the statistics. values is zero-filled (all padding).
SrbcrsLayout srbcrs_build_structure(const BcrsView& a, const SrbcrsConfig& cfg);

/// Re-packs the user's BCRS values (raw bytes of `user_type`, num_vectors * V elements, 4-bit
/// packed two per byte low nibble first) into layout.values through vec_map. user_type must have
/// the layout's bit width (raw bits are moved: 8I and 8U, 4I and 4U are interchangeable);
/// INVALID_VALUE otherwise. Padding elements are written 0. No structure is recomputed.
void srbcrs_repack_values(SrbcrsLayout& layout, const void* user_values, spxDataType_t user_type);

/// srbcrs_build_structure followed by srbcrs_repack_values(values, cfg.type).
SrbcrsLayout srbcrs_build(const BcrsView& a, const SrbcrsConfig& cfg, const void* user_values);

/// Element `e` of the layout's values as an exact integer of layout.type (signed or unsigned).
int64_t srbcrs_value(const SrbcrsLayout& l, int64_t e);

/// 16-bit layouts: the bytes the kernel reads (what the device packing writes): per stride, slice
/// 0 (the low byte of every element, read as uint8) then slice 1 (the high byte, read as int8),
/// each V rows of `stride` bytes in the order of the 16-bit values. Value = 256 * hi + lo exactly.
/// INVALID_VALUE for other layouts.
std::vector<uint8_t> srbcrs_sliced_values(const SrbcrsLayout& l);

}  // namespace spx::plan
