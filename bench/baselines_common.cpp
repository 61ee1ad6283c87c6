#include <algorithm>
#include <cstdio>
#include <set>

#include "baselines.hpp"
#include "parallel.hpp"

namespace bench {

void note(const std::string& text) {
  static std::set<std::string> seen;
  if (seen.insert(text).second) std::fprintf(stderr, "note: %s\n", text.c_str());
}

InputPlan plan_inputs(const Problem& p, ValueType type) {
  InputPlan plan;
  plan.type = type;
  if (!is_integer(p.a_type)) return plan;  // float cases: same values, rounded if narrower
  const int64_t k = p.spec.k;
  switch (type) {
    case ValueType::I8:
      plan.checkable = p.a_max_abs <= 127 && p.b_max_abs <= 127;
      break;
    case ValueType::F16:
    case ValueType::BF16: {
      plan.scale_a = plan.scale_b = 1.0f / 128.0f;
      const int exact_bits = type == ValueType::F16 ? 11 : 8;
      const int64_t exact = int64_t{1} << exact_bits;
      const double max_out = static_cast<double>(k) * p.a_max_abs * p.b_max_abs / 16384.0;
      plan.checkable = p.a_max_abs <= exact && p.b_max_abs <= exact &&
                       (type == ValueType::BF16 || max_out < 60000.0);
      break;
    }
    default:
      break;  // f32 / i32 hold every case's integers
  }
  return plan;
}

std::vector<float> dense_a_rowmajor(const Problem& p, int64_t ld, float scale) {
  const int64_t m = p.spec.m, k = p.spec.k;
  std::vector<float> a(static_cast<size_t>(m * ld), 0.0f);
  if (p.spec.op == Op::SDDMM) {
    for (int64_t c = 0; c < k; ++c)
      for (int64_t r = 0; r < m; ++r) a[r * ld + c] = p.a[r + c * m] * scale;
  } else {
    const HostCsr& csr = p.sparse.csr;
    parallel_for(m, 256, [&](int64_t r0, int64_t r1) {
      for (int64_t r = r0; r < r1; ++r)
        for (int64_t j = csr.row_ptr[r]; j < csr.row_ptr[r + 1]; ++j)
          a[r * ld + csr.col_ind[j]] += csr.values[j] * scale;
    });
  }
  return a;
}

std::vector<float> b_colmajor(const Problem& p, int64_t ld, float scale) {
  const int64_t k = p.spec.k, n = p.spec.n;
  std::vector<float> b(static_cast<size_t>(ld * n), 0.0f);
  parallel_for(n, 1 + (1 << 16) / std::max<int64_t>(1, k), [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c)
      for (int64_t r = 0; r < k; ++r) b[r + c * ld] = p.b[r + c * k] * scale;
  });
  return b;
}

}  // namespace bench
