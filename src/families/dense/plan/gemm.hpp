// How the dense route maps C = A * B onto one column-major cuBLAS GEMM, and where each stored
// entry of A lands in the plan's dense copy. Plain C++ (the CPU tests include it).
//
// The plan keeps A row-major (m x k, ld k): as cuBLAS sees it, a column-major k x m matrix, so
// A is always the "T" operand of C = A * B and the "N" operand of C^T = B^T * A^T.
//   C column-major: cuBLAS computes C (m x n)   = op(A) op(B),  op(A) = T, op(B) = N for B col, T for B row.
//   C row-major:    cuBLAS computes C^T (n x m) = op(B) op(A),  op(B) = N for B row, T for B col, op(A) = N.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "formats/to_csr.hpp"
#include "spx/spx_types.h"

namespace spx::plan {

/// One cublasGemmEx call: the operands in cuBLAS's order ("first" x "second"), their ops, sizes.
struct GemmLayout {
  bool first_is_a = true;      ///< false: first is B, second is A (C row-major)
  bool trans_first = false;    ///< CUBLAS_OP_T on the first operand
  bool trans_second = false;   ///< CUBLAS_OP_T on the second operand
  int64_t m = 0, n = 0, k = 0; ///< cuBLAS's m, n, k
  int64_t lda = 1;             ///< ld of the plan's dense copy of A: max(1, k)
  /// "TN", "NT", ...: the ops of (first, second), as cuBLAS names a GEMM.
  std::string ops() const;
};

/// The call for A (m x k) times B (k x n, b_order) into C (c_order).
GemmLayout gemm_layout(int64_t m, int64_t k, int64_t n, spxOrder_t b_order, spxOrder_t c_order);

/// spxPlanInfo_t::config of the dense route, e.g.
/// "HGEMM TN fp16, fp32 compute, B row, C row" or "SGEMM TN fp32, pedantic fp32 compute, ...".
std::string describe_gemm(const GemmLayout& g, spxDataType_t ab_type, spxDataType_t c_type,
                          bool tf32, spxOrder_t b_order, spxOrder_t c_order);

/// The device arrays of the densify scatter: entry e of the CSR structure adds the user's value
/// slot[e] into element pos[e] = row * k + col of the dense copy (duplicates add up).
struct DensifyMap {
  HostVector<int64_t> pos, slot;
};
DensifyMap densify_map(const CsrStructure& csr, int64_t k);

/// Whether a dimension or leading dimension fits cuBLAS's 32-bit int arguments.
bool fits_cublas_int(int64_t v);

}  // namespace spx::plan
