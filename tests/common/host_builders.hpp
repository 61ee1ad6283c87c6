// Host builders of random test matrices, laid out exactly as the device descriptors expect
// (spx::ref::HostSparse / HostDense), plus the poison and guard fills used to catch kernels that
// skip an element, read C when beta == 0, or write outside the logical matrix.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "random.hpp"
#include "reference/reference.hpp"

namespace spx::test {

using ref::HostDense;
using ref::HostSparse;

/// A sparse format with its parameters: CSR, BCRS(V), NM(n, m, l) or ELL.
struct FormatSpec {
  spxFormat_t format = SPX_FORMAT_CSR;
  int64_t vec_len = 1;         ///< BCRS: V
  int64_t n = 0, m = 0, l = 0; ///< NM
  std::string name() const;    ///< "CSR", "BCRS(V=4)", "NM(2:4,l=2)", "ELL"
  int64_t row_unit() const;    ///< rows must be a multiple of this (V, l or 1)
  int64_t col_unit() const;    ///< cols must be a multiple of this (NM: m, else 1)
};

FormatSpec csr_spec();
FormatSpec bcrs_spec(int64_t vec_len);
FormatSpec nm_spec(int64_t n, int64_t m, int64_t l);
FormatSpec ell_spec();

/// The formats every grid test walks: CSR; BCRS V = 1, 2, 4, 8, 16;
/// NM (2,4,2), (1,4,4), (3,8,16), (5,16,1), (4,8,8); ELL.
std::vector<FormatSpec> all_formats();

/// Rounds x >= 0 up to a multiple of unit >= 1 (0 stays 0).
int64_t round_up(int64_t x, int64_t unit);

/// Random CSR, sorted columns. Rows with r % 5 == 1 are empty (when rows >= 3), rows with
/// r % 11 == 3 are full, the rest keep each column with probability `density`. Density 0 gives
/// a matrix without entries; otherwise the matrix holds at least one entry.
HostSparse random_csr(Rng& rng, int64_t rows, int64_t cols, const ValueDist& dist,
                      double density = 0.3);
/// Random BCRS(V) with the same row pattern over vector-rows (empty and full vector-rows).
HostSparse random_bcrs(Rng& rng, int64_t rows, int64_t cols, int64_t vec_len,
                       const ValueDist& dist, double density = 0.3);
/// Random vector-wise N:M: kept positions drawn per (group, window), increasing in a window.
HostSparse random_nm(Rng& rng, int64_t rows, int64_t cols, int64_t n, int64_t m, int64_t l,
                     const ValueDist& dist);
/// Random ELL: width slots per row; rows with r % 5 == 1 fully padded, rows with r % 3 == 0
/// one or two padding slots at the end (col -1). Padded slots hold NaN (float types) or the
/// type's largest value (integers), so a kernel that uses a padded value gets a wrong answer.
HostSparse random_ell(Rng& rng, int64_t rows, int64_t cols, int64_t ell_width,
                      const ValueDist& dist);
/// Any format; for ELL the width is max(1, round(cols * density)) clamped to cols.
HostSparse random_sparse(Rng& rng, const FormatSpec& spec, int64_t rows, int64_t cols,
                         const ValueDist& dist, double density = 0.3);

/// Leading dimension minimum for (rows, cols, order), at least 1.
int64_t min_ld(int64_t rows, int64_t cols, spxOrder_t order);

/// A rows x cols dense matrix of dist.type; ld = min_ld + ld_pad (even for 4-bit types).
/// Logical elements random non-zero; the ld padding holds NaN (float types) or the type's
/// largest value (integers), so a kernel that uses an element of the padding gets a wrong answer.
HostDense random_dense(Rng& rng, int64_t rows, int64_t cols, spxOrder_t order,
                       const ValueDist& dist, int64_t ld_pad = 0);

/// True when linear element index i of `d` is inside the logical rows x cols matrix.
bool is_logical(const HostDense& d, int64_t i);
/// Number of element slots in d's storage (ld * outer dimension).
int64_t element_slots(const HostDense& d);

/// Byte pattern written into the ld padding of outputs and checked unchanged afterwards.
constexpr uint8_t kGuardByte = 0xA5;
/// Fills the ld padding of an output with kGuardByte.
void guard_padding(HostDense& d);

/// Overwrites every logical element of an output with its poison: all-ones bytes (a NaN) for
/// float types, 0x7F7F7F7F for 32I. Used when beta == 0: an element the kernel skips stays
/// poison, and a kernel that reads C (0 * NaN) turns NaN.
void poison_dense(HostDense& d);
/// The same over a sparse output's value slots (ELL padded slots are left as they are).
void poison_sparse_values(HostSparse& s);
/// Fills the value bytes of ELL padded slots with kGuardByte (checked unchanged after SDDMM).
void guard_ell_padding(HostSparse& s);

/// Size in bytes of one element of an output type (outputs are never 4-bit).
size_t element_bytes(spxDataType_t t);

/// Human-readable names for messages.
const char* type_name(spxDataType_t t);
const char* order_name(spxOrder_t o);
const char* alg_name(spxSpMMAlg_t a);

}  // namespace spx::test
