// Host planning of the ELL family: any structure (ELL or CSR, through planning/to_csr) becomes
//
//   * an ELL part: `width` slots per row, row-major, row r at r * width; a row's real entries
//     first (increasing column), then padding (value 0, column 0, never used: the kernels stop at
//     row_len[r]). No alignment padding: the kernels peel the unaligned head of a row;
//   * a CSR tail (HYB) for the entries of rows longer than `width`, stored after the ELL part
//     in the same arrays, row r's at width * rows + tail_ptr[r] .. tail_ptr[r + 1];
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

#include "planning/to_csr.hpp"

namespace spx::plan {

/// Slots allocated past the end of the arrays: a kernel's last 8-slot vector may overrun a row.
constexpr int kEllArrayPad = 8;
constexpr double kEllMaxPadding = 0.25;        ///< padding slots / nnz the HYB split allows
constexpr double kEllMaxOverflowCsr = 0.125;   ///< overflow / nnz a CSR input may have

struct EllLayout {
  int64_t rows = 0, cols = 0;
  int64_t width = 0;                ///< ELL slots per row (may be 0: all in the tail)
  int64_t nnz = 0;                  ///< entries of the user's matrix (ELL padding excluded)
  int64_t overflow = 0;             ///< entries in the CSR tail
  bool index16 = false;             ///< columns fit 16 bits (cols <= 65536)
  std::vector<int32_t> row_len;     ///< rows: entries of row r in the ELL part
  std::vector<int32_t> tail_ptr;    ///< rows + 1 when overflow > 0, else empty
  std::vector<int32_t> col;         ///< slots() + kEllArrayPad: column of every plan slot
  std::vector<int32_t> src_slot;    ///< same length: the user's value slot, -1 for padding

  int64_t ell_slots() const { return rows * width; }
  int64_t slots() const { return ell_slots() + overflow; }
  int64_t padding() const { return ell_slots() - (nnz - overflow); }
  /// The columns narrowed to 16 bits (index16 must be true).
  std::vector<uint16_t> col16() const;
};

/// Padding of an ELL part of `width` slots per row over rows of the given lengths.
int64_t ell_padding(const std::vector<int32_t>& row_lengths, int64_t width);

/// The HYB width rule above (0 only for a matrix without entries).
int64_t choose_hyb_width(const std::vector<int32_t>& row_lengths, double max_padding = kEllMaxPadding);

/// Lays out a validated structure; each row's entries are ordered by column (stable).
EllLayout plan_ell_layout(const CsrStructure& csr);

/// Whether a CSR input is near-uniform enough for the ELL family: the HYB split (padding
/// <= 25 % of nnz) overflows at most 12.5 % of nnz into the tail. Empty string when yes,
/// else one sentence why not.
std::string ell_near_uniform(const CsrStructure& csr);

}  // namespace spx::plan
