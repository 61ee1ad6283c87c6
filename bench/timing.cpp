#include "timing.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "check.hpp"

namespace bench {

namespace {

/// CUDA events that are destroyed whatever happens.
struct EventPair {
  cudaEvent_t start = nullptr, stop = nullptr;
  EventPair() {
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
  }
  ~EventPair() {
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
  }
  float elapsed_ms() const {
    CUDA_CHECK(cudaEventSynchronize(stop));
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    return ms;
  }
};

struct Graph {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  ~Graph() {
    if (exec) cudaGraphExecDestroy(exec);
    if (graph) cudaGraphDestroy(graph);
  }
};

/// Captures `reps` launches, starting at launch number `first`, into one executable graph.
void capture(cudaStream_t stream, const Launch& launch, int64_t first, int reps, Graph* g) {
  CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
  try {
    for (int i = 0; i < reps; ++i) launch(first + i);
  } catch (...) {
    cudaGraph_t broken = nullptr;
    cudaStreamEndCapture(stream, &broken);  // leave the stream usable
    if (broken) cudaGraphDestroy(broken);
    throw;
  }
  cudaError_t err = cudaStreamEndCapture(stream, &g->graph);
  if (err != cudaSuccess)
    throw Error(strf("CUDA graph capture failed (%s): a call in the timed launch is not "
                     "capturable (a synchronization or an allocation?)",
                     cudaGetErrorString(err)));
  CUDA_CHECK(cudaGraphInstantiate(&g->exec, g->graph, 0));
}

}  // namespace

double screen_launches(cudaStream_t stream, const Launch& launch, int launches) {
  EventPair ev;
  launch(0);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  CUDA_CHECK(cudaEventRecord(ev.start, stream));
  for (int i = 0; i < launches; ++i) launch(1 + i);
  CUDA_CHECK(cudaEventRecord(ev.stop, stream));
  return ev.elapsed_ms() / std::max(1, launches);
}

TimingResult time_launches(cudaStream_t stream, const Launch& launch, const TimingConfig& cfg) {
  EventPair ev;
  int64_t next = 0;  // launch counter: every launch uses the next rotation slot

  // Warm-up: first-launch costs (module loading, cuBLAS heuristics, cold TLBs) stay out.
  for (int i = 0; i < 3; ++i) launch(next++);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  CUDA_CHECK(cudaGetLastError());

  int reps = cfg.reps;
  if (reps <= 0) {
    CUDA_CHECK(cudaEventRecord(ev.start, stream));
    const int probe = 5;
    for (int i = 0; i < probe; ++i) launch(next++);
    CUDA_CHECK(cudaEventRecord(ev.stop, stream));
    double per_launch = std::max(1e-4, static_cast<double>(ev.elapsed_ms()) / probe);
    reps = static_cast<int>(std::ceil(cfg.min_round_ms / per_launch));
    reps = std::min(cfg.max_reps, std::max(cfg.min_reps, reps));
  }

  std::vector<double> samples;
  if (cfg.graph) {
    Graph g;
    capture(stream, launch, next, reps, &g);
    CUDA_CHECK(cudaGraphLaunch(g.exec, stream));  // warm the graph itself
    CUDA_CHECK(cudaStreamSynchronize(stream));
    for (int r = 0; r < cfg.rounds; ++r) {
      CUDA_CHECK(cudaEventRecord(ev.start, stream));
      CUDA_CHECK(cudaGraphLaunch(g.exec, stream));
      CUDA_CHECK(cudaEventRecord(ev.stop, stream));
      samples.push_back(ev.elapsed_ms() / reps);
    }
  } else {
    for (int r = 0; r < cfg.rounds; ++r) {
      CUDA_CHECK(cudaEventRecord(ev.start, stream));
      for (int i = 0; i < reps; ++i) launch(next++);
      CUDA_CHECK(cudaEventRecord(ev.stop, stream));
      samples.push_back(ev.elapsed_ms() / reps);
    }
  }
  CUDA_CHECK(cudaGetLastError());
  std::sort(samples.begin(), samples.end());
  TimingResult res;
  res.ms = samples[samples.size() / 2];
  res.reps = reps;
  return res;
}

}  // namespace bench
