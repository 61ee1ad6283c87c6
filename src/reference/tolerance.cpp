#include <cmath>

#include "reference/reference.hpp"

namespace spx::ref {
namespace {

// Unit roundoff of the output type: half the distance from 1 to the next representable value.
double unit_roundoff(spxDataType_t t) {
  switch (t) {
    case SPX_R_32F:
      return std::ldexp(1.0, -24);
    case SPX_R_16F:
      return std::ldexp(1.0, -11);
    case SPX_R_16BF:
      return std::ldexp(1.0, -8);
    default:
      return 0.0;  // integer outputs are exact
  }
}

}  // namespace

double tolerance(const Expected& e, int64_t i, spxDataType_t out_type) {
  if (e.exact) return 0.0;
  // fp32 accumulation of `terms` products: each step adds at most 2^-24 relative to the running
  // magnitude; +2 covers the products themselves and the alpha/beta combination.
  return (e.terms[i] + 2) * std::ldexp(1.0, -24) * e.magnitude[i] +
         unit_roundoff(out_type) * std::fabs(e.value[i]);
}

}  // namespace spx::ref
