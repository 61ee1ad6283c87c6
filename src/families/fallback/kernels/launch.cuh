// Launch geometry shared by the fallback kernels: a 1-D grid-stride loop over `count` items.
#pragma once

#include <cstdint>

namespace spx::kernels::fallback {

constexpr int kThreads = 256;

inline unsigned grid_for(int64_t count) {
  // Enough blocks to cover the work, capped: the grid-stride loops cover the rest.
  const int64_t blocks = (count + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 65535 * 8 ? blocks : 65535 * 8);
}

}  // namespace spx::kernels::fallback
