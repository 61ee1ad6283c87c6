// The sparse structures the analyze-time tools (spx-analyze-bench on the GPU, spx-analyze-host
// on the CPU) analyze: one per family input, built on the host from a fixed seed so both tools
// and every run see the same matrices. Host C++ only (no CUDA).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace bench::analyze {

/// The family inputs of the analyze table.
enum class Input {
  NmF32,        ///< vector-wise N:M (M = 32, L = 32), fp32
  EllF16,       ///< ELL, fp16, the same number of entries in every row
  EllF32,       ///< the same, fp32
  SrbcrsBcrs,   ///< int8 BCRS, V = 8
  SrbcrsCsr,    ///< int8 CSR
  SptcBcrs,     ///< fp16 BCRS, V = 8
  SptcCsr,      ///< fp16 CSR
};
constexpr int kInputCount = 7;
const char* input_name(Input in);

/// One structure as spxCreate{Csr,Bcrs,NM,Ell} take it (host arrays, int32).
struct Structure {
  Input input = Input::NmF32;
  int64_t rows = 0, cols = 0;
  int64_t vec_len = 1;           ///< BCRS V (1 for CSR)
  int64_t n = 0, m = 0, l = 0;   ///< N:M
  int64_t ell_width = 0;         ///< ELL slots per row
  int64_t entries = 0;           ///< CSR nnz, BCRS vectors, N:M indices, ELL slots
  std::vector<int32_t> ptr;      ///< CSR row_ptr / BCRS block_row_ptr (empty for NM, ELL)
  std::vector<int32_t> idx;      ///< col_ind / block_col / N:M indices / ELL col_ind
  double sparsity = 0;           ///< the structure's own share of zeros
  int64_t value_slots() const;   ///< values the descriptor's array holds
};

/// A rows x cols structure of `input` with about `sparsity` zeros (N:M: N = round((1 - s) M)).
/// Random rows (Bernoulli per position, or a fixed count per row for ELL), seeded from `seed`.
Structure make_structure(Input input, int64_t rows, int64_t cols, double sparsity,
                         uint64_t seed = 1);

}  // namespace bench::analyze
