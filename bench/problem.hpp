// One case's host data: the sparse operand in the user format libspx receives (built with the
// spxHost* tools: N:M / uniform pruning, DLMC reading and dilation), the same matrix as CSR for
// cuSPARSE and the reference, and the dense operands. All values are random, non-zero and exact
// in their element type; seeds are fixed per case.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "spx/spx.h"
#include "types.hpp"

namespace bench {

struct HostCsr {
  int64_t rows = 0, cols = 0;
  std::vector<int32_t> row_ptr, col_ind;  ///< columns increasing within a row
  std::vector<float> values;
  int64_t nnz() const { return static_cast<int64_t>(col_ind.size()); }
};

/// The sparse matrix in the format handed to libspx, plus the same stored entries as CSR.
struct SparseOperand {
  spxFormat_t format = SPX_FORMAT_CSR;
  ValueType type = ValueType::F32;
  int64_t rows = 0, cols = 0;
  int64_t vec_len = 1;                   ///< BCRS: V
  int64_t nm_n = 0, nm_m = 0, nm_l = 0;  ///< NM: N, M, L
  int64_t ell_width = 0;                 ///< ELL
  std::vector<int32_t> ptr;     ///< CSR row_ptr / BCRS block_row_ptr (empty for NM and ELL)
  std::vector<int32_t> idx;     ///< CSR col_ind / BCRS block_col / NM indices / ELL col_ind
  std::vector<float> values;    ///< the format's value array (exact in `type`)
  HostCsr csr;                  ///< same entries as CSR (ELL padding dropped)

  int64_t value_slots() const { return static_cast<int64_t>(values.size()); }
  std::string describe() const;  ///< "2:4 L=32", "ELL w=410", "BCRS V=8"
};

/// Visits every stored entry as (row, col, slot in `values`); ELL padding is skipped.
void for_each_entry(const SparseOperand& s,
                    const std::function<void(int64_t row, int64_t col, int64_t slot)>& fn);

struct Problem {
  CaseSpec spec;          ///< with m, k, n known (DLMC sizes filled in)
  SparseOperand sparse;   ///< SpMM: A (m x k). SDDMM: the m x n output mask (values all 0)
  std::vector<float> a;   ///< SDDMM only: dense A, m x k column-major
  std::vector<float> b;   ///< dense B, k x n column-major
  ValueType a_type = ValueType::F32;  ///< libspx's A element type (sparse or dense A)
  ValueType b_type = ValueType::F32;
  ValueType c_type = ValueType::F32;  ///< libspx's output element type
  int64_t a_max_abs = 0, b_max_abs = 0;  ///< integer cases: largest |value| (0 for floats)
  double sparsity = 0.0;         ///< the CSV value: requested / folder level, else actual
  double actual_sparsity = 0.0;  ///< 1 - stored / (rows * cols)
};

/// Builds A of a `spx-bench dispatch` point (drawn from d.seed_a: the same A for every n of the
/// point's shape), its CSR and the types (i8: C in i32, values in int8 ranges safe for k); B is
/// left empty for build_dispatch_b. Throws bench::Error as build_problem does.
Problem build_dispatch_a(const DispatchSpec& d);
/// Draws B (k x d.n, from d.seed_b) into p and sets p->spec.n (p from build_dispatch_a).
void build_dispatch_b(const DispatchSpec& d, Problem* p);

/// Builds the host data of one case. Throws bench::Error when the case cannot exist (k not a
/// multiple of M, m not a multiple of V, an unreadable .smtx file, ...).
Problem build_problem(const CaseSpec& spec);

}  // namespace bench
