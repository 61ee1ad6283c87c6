// CPU reference for SpMM and SDDMM in every format and data type. Single-threaded, simple
// loops straight over each user format (no conversion through the planning code, so it checks
// that code independently). Floats accumulate in double, integers exactly in int64.
// Used by the tests and the examples; not on any hot path.
#pragma once

#include <cstdint>
#include <vector>

#include "spx/spx_types.h"

namespace spx::ref {

/// A dense matrix in host memory, laid out exactly as the device descriptor would see it.
struct HostDense {
  int64_t rows = 0, cols = 0, ld = 0;
  spxOrder_t order = SPX_ORDER_ROW;
  spxDataType_t type = SPX_R_32F;
  std::vector<uint8_t> data;  ///< storage_bytes(type, ld * (order == ROW ? rows : cols))

  int64_t linear(int64_t r, int64_t c) const { return order == SPX_ORDER_ROW ? r * ld + c : r + c * ld; }
};

/// A sparse matrix in host memory in one of the four user formats (same arrays as the device).
struct HostSparse {
  spxFormat_t format = SPX_FORMAT_CSR;
  spxDataType_t type = SPX_R_32F;
  int64_t rows = 0, cols = 0;
  int64_t vec_len = 1;            ///< BCRS: V
  int64_t n = 0, m = 0, l = 0;    ///< NM: N, M, L
  int64_t ell_width = 0;          ///< ELL
  std::vector<int32_t> ptr;       ///< CSR row_ptr / BCRS block_row_ptr (empty for NM, ELL)
  std::vector<int32_t> idx;       ///< CSR col_ind / BCRS block_col / NM indices / ELL col_ind
  std::vector<uint8_t> values;    ///< raw values of `type` (4-bit packed)

  /// Number of stored value slots (CSR nnz, BCRS nb*V, NM rows*kc, ELL rows*ell_width).
  int64_t value_slots() const;
};

/// alpha and beta as the library reads them: float, or int32 when the output type is 32I.
struct Scalars {
  double alpha = 1.0, beta = 0.0;
};

/// Expected output of an operation, element by element (dense outputs: row-major m x n index
/// r * n + c; SDDMM: one entry per stored value slot of C, in C's value order; ELL padding
/// slots and their expectations are left unchanged/unchecked: `checked` is 0 for them).
struct Expected {
  std::vector<double> value;      ///< alpha * sum(a*b) + beta * c in double / exact for ints
  std::vector<double> magnitude;  ///< |alpha| * sum|a*b| + |beta * c|: scale for rounding bounds
  std::vector<int32_t> terms;     ///< number of products summed into the element
  std::vector<uint8_t> checked;   ///< 1 where the element is part of the output
  bool exact = false;             ///< integer output (32I): must match bit for bit
};

/// The stored entries of A as (row, col, slot) triplets; padded ELL slots are omitted.
struct Entry {
  int64_t row, col, slot;
};
std::vector<Entry> entries(const HostSparse& A);

/// C = alpha * A * B + beta * C. C supplies shape, type, order and (when beta != 0) old values.
/// Integer inputs: sum exact in int64; a 32I output is alpha*sum + beta*c wrapped to int32 as
/// int32 arithmetic would; float outputs of integer inputs are alpha * double(sum) + beta * c.
Expected spmm(const HostSparse& A, const HostDense& B, const HostDense& C, const Scalars& s);

/// C = alpha * (A * B) .* spy(C) + beta * C over C's stored slots.
Expected sddmm(const HostDense& A, const HostDense& B, const HostSparse& C, const Scalars& s);

/// Rounding bound for one element computed with fp32 accumulation over `terms` products and
/// rounded to `out_type`: (terms + 2) * 2^-24 * magnitude + unit roundoff of out_type * |value|.
/// 0 for exact (integer) outputs.
double tolerance(const Expected& e, int64_t i, spxDataType_t out_type);

}  // namespace spx::ref
