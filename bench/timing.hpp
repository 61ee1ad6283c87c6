// The timing protocol of docs/benchmark-protocol.md, applied identically to libspx and every baseline:
// warm-up; CUDA events around R back-to-back launches (R chosen so a round lasts >= 2 ms, at
// least 10, unless --reps); the median of 5 rounds; optionally the R launches captured once
// into a CUDA graph and replayed (--graph).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <functional>

namespace bench {

struct TimingConfig {
  int reps = 0;               ///< launches per round; 0 = automatic
  int rounds = 5;
  bool graph = false;
  double min_round_ms = 2.0;  ///< automatic reps: a round lasts at least this long
  int min_reps = 10;
  int max_reps = 20000;       ///< bounds a graph's size for kernels of a few microseconds
};

struct TimingResult {
  double ms = 0.0;  ///< median time of one launch
  int reps = 0;
};

/// Enqueues launch number `i` (0, 1, 2, ...) on the bench stream; it should use rotation slot
/// i % copies. Throws on a failed call.
using Launch = std::function<void(int64_t i)>;

TimingResult time_launches(cudaStream_t stream, const Launch& launch, const TimingConfig& cfg);

/// A cheap estimate for ranking candidate configurations (cuSPARSE algorithms): one warm-up
/// launch, then the mean of `launches` launches.
double screen_launches(cudaStream_t stream, const Launch& launch, int launches);

}  // namespace bench
