// The correctness check: cuBLAS on the densified matrix. The reference product is an FP64 GEMM
// (cublasDgemm) of exactly the values every library received, so it is exact for the integer
// cases and within 2^-50 for the floating ones; libspx's error is measured against it as
// max |out - ref| / max |ref|.
#pragma once

#include <cstdint>
#include <vector>

#include "device.hpp"
#include "problem.hpp"
#include "spx/spx.h"
#include "types.hpp"

namespace bench {

/// C = A * B in double, m x n column-major.
struct Reference {
  int64_t m = 0, n = 0, k = 0;
  std::vector<double> c;
  double at(int64_t r, int64_t col) const { return c[static_cast<size_t>(r + col * m)]; }
};

/// SpMM reference: A given as CSR (densified here), B k x n column-major.
Reference reference_spmm(const GpuContext& gpu, const HostCsr& a, const std::vector<float>& b,
                         int64_t n);
/// Dense reference: A m x k column-major (SDDMM samples it at the mask).
Reference reference_dense(const GpuContext& gpu, const std::vector<float>& a, int64_t m, int64_t k,
                          const std::vector<float>& b, int64_t n);

/// Allowed max_rel_err for libspx's output of type `out` after a length-k dot product with fp32
/// accumulation: two output roundings plus 32 sqrt(k) fp32 roundings (a loose statistical bound;
/// indexing bugs give errors of order 1). Integer outputs must be exact: 0.
double tolerance(ValueType out, int64_t k);

/// Allowed error for a baseline's own sanity check: TF32 and fp16 outputs pass, a wrong layout
/// or transpose (errors of order 1) does not.
constexpr double kBaselineTolerance = 2e-2;

/// max |out/scale - ref| / max |ref| over a dense m x n output stored in `order` with `ld`
/// (values already decoded to double). Non-finite output gives +inf.
double max_rel_err_dense(const Reference& ref, const std::vector<double>& out, spxOrder_t order,
                         int64_t ld, double scale = 1.0);

/// The same over the stored entries of a sparse output (SDDMM): value slot -> ref(row, col).
double max_rel_err_sparse(const Reference& ref, const SparseOperand& mask,
                          const std::vector<double>& values, double scale = 1.0);
double max_rel_err_csr(const Reference& ref, const HostCsr& mask, const std::vector<double>& values,
                       double scale = 1.0);

}  // namespace bench
