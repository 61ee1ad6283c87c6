// The ordering key pruning ranks values by. NaN ranks as the largest magnitude so that a NaN
// in the weights stays visible after pruning instead of silently disappearing (and so that the
// comparison stays a strict weak ordering for std::sort).
#pragma once

#include <cmath>
#include <limits>

namespace spx::plan {

inline double magnitude_key(double v) {
  return std::isnan(v) ? std::numeric_limits<double>::infinity() : std::fabs(v);
}

/// Square of the magnitude key: the per-element term of an L2 norm used only for ranking.
inline double squared_key(double v) {
  const double k = magnitude_key(v);
  return k * k;
}

}  // namespace spx::plan
