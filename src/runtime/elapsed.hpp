// Host wall-clock intervals of analyze (plan info's analyze_ms, the families' trace logs).
#pragma once

#include <chrono>

namespace spx {

using Clock = std::chrono::steady_clock;

/// Milliseconds from `start` to now.
inline double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

}  // namespace spx
