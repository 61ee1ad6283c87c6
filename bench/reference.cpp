#include "reference.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <thread>
#include <vector>

#include "check.hpp"
#include "parallel.hpp"

namespace bench {

namespace {

Reference dgemm(const GpuContext& gpu, const std::vector<double>& a, int64_t m, int64_t k,
                const std::vector<float>& b_float, int64_t n) {
  std::vector<double> b(b_float.size());
  parallel_for(static_cast<int64_t>(b.size()), 1 << 20, [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) b[i] = b_float[i];
  });
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
  parallel_for(a.rows, 256, [&](int64_t r0, int64_t r1) {  // threads own disjoint rows
    for (int64_t r = r0; r < r1; ++r)
      for (int64_t j = a.row_ptr[r]; j < a.row_ptr[r + 1]; ++j)
        dense[static_cast<size_t>(r + a.col_ind[j] * a.rows)] += a.values[j];
  });
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
  // 64 x 64 blocks (the reference is column-major: a row-major output would otherwise be walked
  // with a stride of ld), column blocks spread over threads: n = 4096 outputs hold 10^7 - 10^9
  // elements, seconds per check on one core.
  constexpr int64_t kBlock = 64;
  const int64_t col_blocks = (ref.n + kBlock - 1) / kBlock;
  struct Part {
    double max_diff = 0.0, max_ref = 0.0;
    bool finite = true;
  };
  const int64_t elems = ref.m * ref.n;
  const int threads = static_cast<int>(std::max<int64_t>(
      1, std::min<int64_t>({static_cast<int64_t>(std::thread::hardware_concurrency()), col_blocks,
                            elems / (1 << 20) + 1})));
  std::vector<Part> parts(static_cast<size_t>(threads));
  auto work = [&](int t) {
    Part& p = parts[static_cast<size_t>(t)];
    for (int64_t cb = t; cb < col_blocks; cb += threads)
      for (int64_t r0 = 0; r0 < ref.m; r0 += kBlock)
        for (int64_t c = cb * kBlock; c < std::min(ref.n, (cb + 1) * kBlock); ++c)
          for (int64_t r = r0; r < std::min(ref.m, r0 + kBlock); ++r) {
            const double v = out[static_cast<size_t>(order == SPX_ORDER_ROW ? r * ld + c : r + c * ld)];
            p.finite = p.finite && std::isfinite(v);
            const double e = ref.at(r, c);
            p.max_diff = std::max(p.max_diff, std::fabs(v / scale - e));
            p.max_ref = std::max(p.max_ref, std::fabs(e));
          }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work, t);
  work(0);
  for (auto& th : pool) th.join();
  Part all;
  for (const Part& p : parts) {
    all.max_diff = std::max(all.max_diff, p.max_diff);
    all.max_ref = std::max(all.max_ref, p.max_ref);
    all.finite = all.finite && p.finite;
  }
  return ratio(all.max_diff, all.max_ref, all.finite);
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
