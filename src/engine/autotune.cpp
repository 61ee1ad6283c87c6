#include "engine/autotune.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "runtime/dtype.hpp"
#include "runtime/log.hpp"

namespace spx::plan {
namespace {

/// Events destroyed on every path (timing may throw between creation and use).
struct EventPair {
  cudaEvent_t start = nullptr, stop = nullptr;
  EventPair() {
    device::check(cudaEventCreate(&start), "creating a timing event");
    device::check(cudaEventCreate(&stop), "creating a timing event");
  }
  ~EventPair() {
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
  }
  EventPair(const EventPair&) = delete;
  EventPair& operator=(const EventPair&) = delete;
};

/// Median time in ms of `reps` back-to-back runs of the selected candidate, over 3 rounds.
float time_selected(const spxContext& h, const dispatch::SpmmKernelPlan& k,
                    const dispatch::SpmmCall& call) {
  constexpr int kRounds = 3, kReps = 5;
  EventPair ev;
  k.run(h, call);  // warm-up (and the kernel's first load)
  std::vector<float> rounds;
  for (int r = 0; r < kRounds; ++r) {
    device::check(cudaEventRecord(ev.start, h.stream), "recording a timing event");
    for (int i = 0; i < kReps; ++i) k.run(h, call);
    device::check(cudaEventRecord(ev.stop, h.stream), "recording a timing event");
    device::check(cudaEventSynchronize(ev.stop), "timing a candidate");
    float ms = 0;
    device::check(cudaEventElapsedTime(&ms, ev.start, ev.stop), "timing a candidate");
    rounds.push_back(ms / kReps);
  }
  std::sort(rounds.begin(), rounds.end());
  return rounds[rounds.size() / 2];
}

}  // namespace

size_t dense_span_bytes(const spxDnMatDescr& d) {
  const int64_t lines = d.order == SPX_ORDER_ROW ? d.rows : d.cols;
  const int64_t line_len = d.order == SPX_ORDER_ROW ? d.cols : d.rows;
  if (lines == 0 || line_len == 0) return 0;
  return dtype::storage_bytes(d.type, (lines - 1) * d.ld + line_len);
}

void select_fastest_candidate(const spxContext& h, PreparedN& e, const dispatch::SpmmCall& call,
                              const char* who) {
  dispatch::SpmmKernelPlan& k = *e.spmm;
  const int count = k.candidate_count();
  if (count <= 1) return;
  int best = k.selected();
  float best_ms = -1;
  for (int c = 0; c < count; ++c) {
    k.select(c);
    const float ms = time_selected(h, k, call);
    log::info("%s: candidate %d (%s): %.4f ms", who, c, k.describe(c).c_str(), ms);
    if (best_ms < 0 || ms < best_ms) {
      best_ms = ms;
      best = c;
    }
  }
  k.select(best);
  std::snprintf(e.info.config, sizeof(e.info.config), "%s", k.describe(best).c_str());
  e.info.searched = 1;
}

namespace {

/// Unit scalars as host values whatever the handle's pointer mode (int32 for a 32I output), a
/// scratch C and a workspace: what analyze-time timing runs with.
struct ScratchCall {
  spxContext host_scalars;
  const float one_f = 1.0f, zero_f = 0.0f;
  const int32_t one_i = 1, zero_i = 0;
  device::Buffer scratch_c, workspace;
  spxDnMatDescr c_scratch;

  ScratchCall(const spxContext& h, const spxDnMatDescr& C, size_t workspace_bytes)
      : host_scalars(h), scratch_c(dense_span_bytes(C)), workspace(workspace_bytes), c_scratch(C) {
    host_scalars.pointer_mode = SPX_POINTER_MODE_HOST;
    c_scratch.values = scratch_c.get();
  }
  dispatch::SpmmCall call(const spxDnMatDescr& B) const {
    const bool int_out = c_scratch.type == SPX_R_32I;
    const void* alpha = int_out ? static_cast<const void*>(&one_i) : &one_f;
    const void* beta = int_out ? static_cast<const void*>(&zero_i) : &zero_f;
    return {alpha, beta, B, c_scratch, workspace.get(), {}};
  }
};

}  // namespace

void autotune_spmm(const spxContext& h, PreparedN& e, const spxDnMatDescr& B,
                   const spxDnMatDescr& C) {
  if (e.spmm->candidate_count() <= 1 || C.rows == 0 || C.cols == 0) return;
  const ScratchCall s(h, C, e.spmm->workspace_bytes());
  select_fastest_candidate(s.host_scalars, e, s.call(B), "SPX_PLAN_OPTION_AUTOTUNE");
  // The buffers are freed on return: nothing queued may still use them.
  device::check(cudaStreamSynchronize(h.stream), "finishing the autotune runs");
}

double time_spmm_us(const spxContext& h, const dispatch::SpmmKernelPlan& k, const spxDnMatDescr& B,
                    const spxDnMatDescr& C) {
  const ScratchCall s(h, C, k.workspace_bytes());
  const float ms = time_selected(s.host_scalars, k, s.call(B));
  device::check(cudaStreamSynchronize(h.stream), "finishing the timing runs");
  return 1000.0 * static_cast<double>(ms);
}

}  // namespace spx::plan
