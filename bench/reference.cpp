#include "reference.hpp"

#include <cmath>
#include <limits>

#include "check.hpp"

namespace bench {

namespace {

Reference dgemm(const GpuContext& gpu, const std::vector<double>& a, int64_t m, int64_t k,
                const std::vector<float>& b_float, int64_t n) {
  std::vector<double> b(b_float.begin(), b_float.end());
  DeviceBuffer da = DeviceBuffer::from(a), db = DeviceBuffer::from(b);
  DeviceBuffer dc(static_cast<size_t>(m * n) * sizeof(double));
  const double one = 1.0, zero = 0.0;
  CUBLAS_CHECK(cublasSetPointerMode(gpu.cublas(), CUBLAS_POINTER_MODE_HOST));
  CUBLAS_CHECK(cublasDgemm(gpu.cublas(), CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(m),
                           static_cast<int>(n), static_cast<int>(k), &one,
                           static_cast<const double*>(da.get()), static_cast<int>(m),
                           static_cast<const double*>(db.get()), static_cast<int>(k), &zero,
                           static_cast<double*>(dc.get()), static_cast<int>(m)));
  Reference ref;
  ref.m = m;
  ref.n = n;
  ref.k = k;
  ref.c.resize(static_cast<size_t>(m * n));
  dc.download(ref.c.data(), ref.c.size() * sizeof(double));
  return ref;
}

/// max |out - ref| / max |ref| from the two running maxima; +inf for non-finite output.
double ratio(double max_diff, double max_ref, bool finite) {
  if (!finite) return std::numeric_limits<double>::infinity();
  if (max_ref == 0.0) return max_diff == 0.0 ? 0.0 : std::numeric_limits<double>::infinity();
  return max_diff / max_ref;
}

}  // namespace

Reference reference_spmm(const GpuContext& gpu, const HostCsr& a, const std::vector<float>& b,
                         int64_t n) {
  std::vector<double> dense(static_cast<size_t>(a.rows * a.cols), 0.0);
  for (int64_t r = 0; r < a.rows; ++r)
    for (int64_t j = a.row_ptr[r]; j < a.row_ptr[r + 1]; ++j)
      dense[static_cast<size_t>(r + a.col_ind[j] * a.rows)] += a.values[j];
  return dgemm(gpu, dense, a.rows, a.cols, b, n);
}

Reference reference_dense(const GpuContext& gpu, const std::vector<float>& a, int64_t m, int64_t k,
                          const std::vector<float>& b, int64_t n) {
  std::vector<double> dense(a.begin(), a.end());
  return dgemm(gpu, dense, m, k, b, n);
}

double tolerance(ValueType out, int64_t k) {
  const double u32 = std::ldexp(1.0, -24);
  double u_out = u32;
  switch (out) {
    case ValueType::F32: u_out = u32; break;
    case ValueType::F16: u_out = std::ldexp(1.0, -11); break;
    case ValueType::BF16: u_out = std::ldexp(1.0, -8); break;
    default: return 0.0;  // integer outputs are exact
  }
  return 2.0 * u_out + 32.0 * std::sqrt(static_cast<double>(k)) * u32;
}

double max_rel_err_dense(const Reference& ref, const std::vector<double>& out, spxOrder_t order,
                         int64_t ld, double scale) {
  double max_diff = 0.0, max_ref = 0.0;
  bool finite = true;
  for (int64_t c = 0; c < ref.n; ++c)
    for (int64_t r = 0; r < ref.m; ++r) {
      const double v = out[static_cast<size_t>(order == SPX_ORDER_ROW ? r * ld + c : r + c * ld)];
      finite = finite && std::isfinite(v);
      const double e = ref.at(r, c);
      max_diff = std::max(max_diff, std::fabs(v / scale - e));
      max_ref = std::max(max_ref, std::fabs(e));
    }
  return ratio(max_diff, max_ref, finite);
}

double max_rel_err_sparse(const Reference& ref, const SparseOperand& mask,
                          const std::vector<double>& values, double scale) {
  double max_diff = 0.0, max_ref = 0.0;
  bool finite = true;
  for_each_entry(mask, [&](int64_t r, int64_t c, int64_t slot) {
    const double v = values[static_cast<size_t>(slot)];
    finite = finite && std::isfinite(v);
    const double e = ref.at(r, c);
    max_diff = std::max(max_diff, std::fabs(v / scale - e));
    max_ref = std::max(max_ref, std::fabs(e));
  });
  return ratio(max_diff, max_ref, finite);
}

double max_rel_err_csr(const Reference& ref, const HostCsr& mask, const std::vector<double>& values,
                       double scale) {
  double max_diff = 0.0, max_ref = 0.0;
  bool finite = true;
  for (int64_t r = 0; r < mask.rows; ++r)
    for (int64_t j = mask.row_ptr[r]; j < mask.row_ptr[r + 1]; ++j) {
      const double v = values[static_cast<size_t>(j)];
      finite = finite && std::isfinite(v);
      const double e = ref.at(r, mask.col_ind[j]);
      max_diff = std::max(max_diff, std::fabs(v / scale - e));
      max_ref = std::max(max_ref, std::fabs(e));
    }
  return ratio(max_diff, max_ref, finite);
}

}  // namespace bench
