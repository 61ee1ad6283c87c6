// Host-side containers for the sparse formats the planning tools produce (fp32 values; the
// layouts are exactly those of the spxCreate* calls, so they can be copied to the device as is).
#pragma once

#include <cstdint>
#include <vector>

namespace spx::plan {

/// CSR structure without values (what a .smtx file holds).
struct CsrPattern {
  int64_t rows = 0, cols = 0;
  std::vector<int32_t> row_ptr;  ///< rows + 1
  std::vector<int32_t> col_ind;  ///< nnz
};

/// CSR with fp32 values.
struct CsrF32 {
  int64_t rows = 0, cols = 0;
  std::vector<int32_t> row_ptr;  ///< rows + 1
  std::vector<int32_t> col_ind;  ///< nnz
  std::vector<float> values;     ///< nnz
};

/// Vector-sparse BCRS(V): V x 1 column vectors, the V values of a vector contiguous.
struct BcrsF32 {
  int64_t rows = 0, cols = 0, vec_len = 1;
  std::vector<int32_t> block_row_ptr;  ///< rows / vec_len + 1
  std::vector<int32_t> block_col;      ///< num_vectors
  std::vector<float> values;           ///< num_vectors * vec_len
};

/// A BCRS(V) structure in caller-owned host arrays (no values): the input of the families'
/// host planning (SR-BCRS layout, SpTC reorder). CSR is vec_len = 1.
struct BcrsView {
  int64_t rows = 0, cols = 0, vec_len = 1;
  const int32_t* block_row_ptr = nullptr;  ///< rows / vec_len + 1 entries
  const int32_t* block_col = nullptr;      ///< block_row_ptr[rows / vec_len] entries
  int64_t num_vectors = -1;                ///< expected vector count (< 0: not checked)
  /// The arrays' names in validation messages: a CSR input (vec_len 1) names them "row_ptr" and
  /// "col_ind", as the user created them.
  const char* ptr_name = "block_row_ptr";
  const char* col_name = "block_col";
};

/// Vector-wise N:M in the spxCreateNM layout.
struct NmF32 {
  int64_t rows = 0, cols = 0, n = 0, m = 0, l = 0;
  std::vector<float> values;     ///< rows x kc, row-major
  std::vector<int32_t> indices;  ///< (rows / l) x kc, row-major, positions 0..m-1 in the window
  int64_t kc() const { return m > 0 ? cols / m * n : 0; }
};

/// ELL in the spxCreateEll layout: rows x ell_width, column-major, padding col -1 / value 0.
struct EllF32 {
  int64_t rows = 0, cols = 0, ell_width = 0;
  std::vector<int32_t> col_ind;
  std::vector<float> values;
};

}  // namespace spx::plan
