// The fused SpMM epilogue's expectation for the GPU tests: C = act(alpha * scale[i] * (A B)[i, j]
// + bias[i]) + beta * C_old[i, j] in double from the CPU reference's product, with a rounding
// bound derived from the fp32 arithmetic the kernels do, in the form ref::tolerance takes (so
// check_dense_output compares it, padding and guards included).
#pragma once

#include <cmath>
#include <cstdint>
#include <vector>

#include "runner.hpp"
#include "runtime/dtype.hpp"

namespace spx::test::epilogue {

inline double activate(int act, double u) {
  switch (act) {
    case SPX_ACTIVATION_RELU: return u > 0 ? u : 0.0;
    case SPX_ACTIVATION_GELU_TANH:
      return 0.5 * u * (1.0 + std::tanh(0.7978845608028654 * (u + 0.044715 * u * u * u)));
    case SPX_ACTIVATION_SILU: return u / (1.0 + std::exp(-u));
    default: return u;
  }
}

/// Largest |act'(u)|: ReLU 1, GELU (tanh) 1.13, SiLU 1.10; 1.2 covers all three.
constexpr double kLipschitz = 1.2;

inline double unit_of(spxDataType_t t) {
  switch (t) {
    case SPX_R_16F: return std::ldexp(1.0, -11);
    case SPX_R_16BF: return std::ldexp(1.0, -8);
    default: return std::ldexp(1.0, -24);
  }
}

/// The expectation of the epilogue over the reference product p (ref::spmm with beta = 0: value
/// alpha * sum, magnitude |alpha| * sum |a b|, terms). `accum_terms` maps a product's terms to
/// the units of 2^-24 its fp32 accumulation may err by (ELL's and the tensor-core kernels' bound
/// is a constant times the FFMA one: tests/families/ell/test_ell.cpp explains it).
/// The bound of element i, with s the product, u = scale * s + bias, a = act(u):
///   the accumulation  E1 = T * 2^-24 * magnitude (T = accum_terms(terms) + 2);
///   u in fp32         Eu = |scale| E1 + 2^-23 (|scale s| + |bias|) (the product and the sum);
///   the activation    kLipschitz Eu + 2^-20 (|u| + |a|) (tanhf / expf and the few operations
///                     around them, a few units of 2^-24 of their operands);
///   beta * old + a    2^-23 (|a| + |beta old|) (the fma), then one rounding to C's type.
/// `product_unit`: the dense route rounds alpha * A * B to C's type before the epilogue (a
/// 16-bit C: its unit roundoff; else 0), an error of product_unit * |s| in u's input.
/// Returned with terms = 0 and magnitude = bound / 2^-23, so ref::tolerance gives exactly the
/// bound plus the output rounding.
template <class AccumTerms>
ref::Expected expectation(const ref::Expected& p, const HostDense& c_old, double beta, int act,
                          const std::vector<float>* bias, const std::vector<float>* scale,
                          AccumTerms accum_terms, double product_unit = 0.0) {
  ref::Expected e = p;
  const int64_t m = c_old.rows, n = c_old.cols;
  for (int64_t r = 0; r < m; ++r)
    for (int64_t c = 0; c < n; ++c) {
      const int64_t i = r * n + c;
      const double sc = scale ? (*scale)[r] : 1.0, b = bias ? (*bias)[r] : 0.0;
      const double s = p.value[i];
      const double u = sc * s + b, a = activate(act, u);
      const double old = beta != 0.0
                             ? beta * dtype::load_double(c_old.data.data(), c_old.type,
                                                         c_old.linear(r, c))
                             : 0.0;
      const double e1 = (accum_terms(p.terms[i]) + 2) * std::ldexp(1.0, -24) * p.magnitude[i] +
                        product_unit * p.magnitude[i];
      const double eu = std::fabs(sc) * e1 + std::ldexp(1.0, -23) * (std::fabs(sc * s) + std::fabs(b));
      const double ea = kLipschitz * eu + std::ldexp(1.0, -20) * (std::fabs(u) + std::fabs(a));
      const double bound = ea + std::ldexp(1.0, -23) * (std::fabs(a) + std::fabs(old));
      e.value[i] = a + old;
      e.terms[i] = 0;
      e.magnitude[i] = bound / std::ldexp(1.0, -23);
    }
  return e;
}

}  // namespace spx::test::epilogue
