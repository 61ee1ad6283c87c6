// Host planning of the ELL family: any structure (ELL or CSR, through formats/to_csr) becomes
//
//   * an ELL part: `width` slots per row, row-major with a row pitch `stride` = width rounded up
//     to 8 slots (every row starts 16-byte aligned for fp16 values and 16-bit indices, so the
//     kernels read 8 slots with one vector load and never peel a head); a row's real entries
//     first, then padding (value 0, column 0, never used: the kernels stop at row_len[r]);
//   * the real entries of a row in a shared-memory-bank order (`bank_order_row`): every set of
//     slot positions {64 b + 8 i + e : i = 0..7} (what 8 lanes of the decode kernel gather from
//     the staged B at once) holds distinct columns mod 8 wherever the row's columns allow, so
//     those 8 gathers hit 8 different 16-byte bank groups (one shared-memory wavefront);
//   * a CSR tail (HYB) for the entries of rows longer than `width`, stored after the ELL part
//     in the same arrays, row r's at stride * rows + tail_ptr[r] .. tail_ptr[r + 1];
//   * a slot map: for every plan slot, the user's value slot it is copied from (-1 = padding),
//     so spxPlanUpdateValues re-packs values with one gather and no structural work.
//
// HYB rule: `width` is the largest width whose padding, sum over rows of max(0, width - len), is
// at most 25 % of nnz; the entries past it overflow into the tail. A uniform matrix gets its own
// width and no padding at all.
// Index rule: 16-bit column indices when cols <= 65536, else 32-bit.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "formats/to_csr.hpp"
#include "runtime/host_vector.hpp"

namespace spx::plan {

/// Slots allocated past the end of the arrays: a kernel's last 8-slot vector may overrun a row.
constexpr int kEllArrayPad = 8;
/// Row pitch alignment of the ELL part, in slots (16 bytes of fp16 values / 16-bit indices).
constexpr int kEllRowAlign = 8;
/// Residue classes of the bank order: 16-byte bank groups of shared memory (128 B / 16 B).
constexpr int kEllBankGroups = 8;
constexpr double kEllMaxPadding = 0.25;        ///< padding slots / nnz the HYB split allows
constexpr double kEllMaxOverflowCsr = 0.125;   ///< overflow / nnz a CSR input may have

struct EllLayout {
  int64_t rows = 0, cols = 0;
  int64_t width = 0;                ///< ELL slots per row (may be 0: all in the tail)
  int64_t stride = 0;               ///< row pitch of the ELL part: width rounded up to 8
  int64_t nnz = 0;                  ///< entries of the user's matrix (ELL padding excluded)
  int64_t overflow = 0;             ///< entries in the CSR tail
  bool index16 = false;             ///< columns fit 16 bits (cols <= 65536)
  std::vector<int32_t> row_len;     ///< rows: entries of row r in the ELL part
  std::vector<int32_t> tail_ptr;    ///< rows + 1 when overflow > 0, else empty
  HostVector<int32_t> col;          ///< slots() + kEllArrayPad: column of every plan slot
  HostVector<int32_t> src_slot;     ///< same length: the user's value slot, -1 for padding

  int64_t ell_slots() const { return rows * stride; }
  int64_t slots() const { return ell_slots() + overflow; }
  int64_t padding() const { return ell_slots() - (nnz - overflow); }
  /// The columns narrowed to 16 bits (index16 must be true).
  HostVector<uint16_t> col16() const;
};

/// Padding of an ELL part of `width` slots per row over rows of the given lengths.
int64_t ell_padding(const std::vector<int32_t>& row_lengths, int64_t width);

/// The HYB width rule above (0 only for a matrix without entries).
int64_t choose_hyb_width(const std::vector<int32_t>& row_lengths, double max_padding = kEllMaxPadding);

/// Lays out a validated structure; each row's ELL entries in bank order, its overflow by column.
/// Rows are laid out in parallel (runtime/parallel.hpp); the result is the serial one.
EllLayout plan_ell_layout(const CsrStructure& csr);

/// The same layout straight from a user's ELL structure (col_ind rows x ell_width, column-major,
/// -1 = padding): validated as csr_from_ell does (INVALID_VALUE, the same messages), equal to
/// plan_ell_layout(csr_from_ell(...)) without building the CSR copy.
EllLayout plan_ell_layout_ell(int64_t rows, int64_t cols, int64_t ell_width, const int32_t* col_ind);

/// The bank order of one row: given the columns of its `len` ELL entries, returns for every
/// position 0..len-1 which entry goes there, such that each position set
/// {64 b + 8 i + e : i = 0..7} (cut at len) takes as many distinct columns mod 8 as the row
/// allows (greedy: each set takes from the residue classes with the most entries left), and
/// inside a set residues r and r + 4 sit at positions i of different parity where they can
/// (what contiguous 32-byte rows need: bank_wavefronts_contig32).
std::vector<int32_t> bank_order_row(const std::vector<int32_t>& cols);
/// The same into out[0 .. len) (no allocation once `scratch` has grown to len).
void bank_order_into(const int32_t* cols, int64_t len, int32_t* out, std::vector<int32_t>& scratch);

/// 16-byte shared-memory wavefronts the gathers of one row's positions cost: the sum over the
/// position sets of the largest number of equal columns mod 8 (what bank_order_row minimizes;
/// the ideal is ceil(len / 8) per 64 slots). For tests and notes.
int64_t bank_wavefronts(const std::vector<int32_t>& cols_in_position_order);

/// The same for 32-byte rows staged contiguously (the decode kernel's bulk copy): lane i of a
/// set reads 16-byte half (i mod 2) of row c first, in bank group 2 (c mod 4) + (i mod 2); the
/// sum over the sets of the largest number of lanes on one group (the second half's loads cost
/// the same).
int64_t bank_wavefronts_contig32(const std::vector<int32_t>& cols_in_position_order);

/// Whether a CSR input is near-uniform enough for the ELL family: the HYB split (padding
/// <= 25 % of nnz) overflows at most 12.5 % of nnz into the tail. Empty string when yes,
/// else one sentence why not.
std::string ell_near_uniform(const CsrStructure& csr);
/// The row lengths of a CSR row_ptr of `rows` rows.
std::vector<int32_t> row_lengths(const int32_t* row_ptr, int64_t rows);
/// The same from the row lengths alone (what the rule reads).
std::string ell_near_uniform_lengths(const std::vector<int32_t>& row_lengths);

}  // namespace spx::plan
