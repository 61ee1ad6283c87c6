// spxSpMM_search: time every configuration the plan's family offers for this problem and keep
// the fastest, like cusparseLtMatmulSearch. Family-independent: families only expose
// candidate_count / select / describe.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "api/objects.hpp"
#include "api/plan.hpp"
#include "api/validate.hpp"
#include "core/dtype.hpp"
#include "core/log.hpp"
#include "dispatch/kernel_plan.hpp"

namespace {

/// Events destroyed on every path (search may throw between creation and use).
struct EventPair {
  cudaEvent_t start = nullptr, stop = nullptr;
  EventPair() {
    spx::device::check(cudaEventCreate(&start), "creating a timing event");
    spx::device::check(cudaEventCreate(&stop), "creating a timing event");
  }
  ~EventPair() {
    if (start) cudaEventDestroy(start);
    if (stop) cudaEventDestroy(stop);
  }
};

/// Median time in ms of `reps` back-to-back runs of the selected candidate, over 3 rounds.
float time_candidate(const spxContext& h, const spxPlan& plan, const spx::dispatch::SpmmCall& call) {
  constexpr int kRounds = 3, kReps = 5;
  EventPair ev;
  plan.spmm->run(h, call);  // warm-up (and the kernel's first load)
  std::vector<float> rounds;
  for (int r = 0; r < kRounds; ++r) {
    spx::device::check(cudaEventRecord(ev.start, h.stream), "recording a timing event");
    for (int i = 0; i < kReps; ++i) plan.spmm->run(h, call);
    spx::device::check(cudaEventRecord(ev.stop, h.stream), "recording a timing event");
    spx::device::check(cudaEventSynchronize(ev.stop), "timing a candidate");
    float ms = 0;
    spx::device::check(cudaEventElapsedTime(&ms, ev.start, ev.stop), "timing a candidate");
    rounds.push_back(ms / kReps);
  }
  std::sort(rounds.begin(), rounds.end());
  return rounds[rounds.size() / 2];
}

}  // namespace

extern "C" spxStatus_t spxSpMM_search(spxHandle_t handle, spxPlan_t plan, const void* alpha,
                                      spxConstSpMatDescr_t A, spxConstDnMatDescr_t B,
                                      const void* beta, spxDnMatDescr_t C, void* workspace) {
  return spx::guard("spxSpMM_search", [&] {
    spx::validate::handle(handle);
    spx::validate::not_null(plan, "plan");
    spx::validate::execution(*handle, *plan, alpha, beta, workspace);
    spx::validate::not_null(A, "A");
    spx::validate::not_null(B, "B");
    spx::validate::not_null(C, "C");
    spx::validate::matches_plan(*plan, spx::Operation::SpMM, *A, *B, *C);
    spx::dispatch::SpmmKernelPlan& k = *plan->spmm;
    if (C->rows == 0 || C->cols == 0) return;
    spx::device::DeviceGuard on_device(handle->device);
    const spx::dispatch::SpmmCall call{alpha, beta, *B, *C, workspace};
    // The timed runs overwrite C; keep its bytes so the final result uses the caller's C.
    const int64_t lines = C->order == SPX_ORDER_ROW ? C->rows : C->cols;
    const int64_t line_len = C->order == SPX_ORDER_ROW ? C->cols : C->rows;
    const size_t c_bytes = spx::dtype::storage_bytes(C->type, (lines - 1) * C->ld + line_len);
    spx::device::Buffer saved_c(c_bytes);
    spx::device::check(cudaMemcpyAsync(saved_c.get(), C->values, c_bytes, cudaMemcpyDeviceToDevice,
                                       handle->stream),
                       "saving C before the search");
    const int count = k.candidate_count();
    int best = k.selected();
    float best_ms = -1;
    for (int c = 0; count > 1 && c < count; ++c) {
      k.select(c);
      const float ms = time_candidate(*handle, *plan, call);
      spx::log::info("spxSpMM_search: candidate %d (%s): %.4f ms", c, k.describe(c).c_str(), ms);
      if (best_ms < 0 || ms < best_ms) {
        best_ms = ms;
        best = c;
      }
    }
    k.select(best);
    spx::device::check(cudaMemcpyAsync(C->values, saved_c.get(), c_bytes, cudaMemcpyDeviceToDevice,
                                       handle->stream),
                       "restoring C after the search");
    plan->spmm->run(*handle, call);
    spx::device::check(cudaStreamSynchronize(handle->stream), "running the chosen candidate");
    if (count > 1) {
      std::snprintf(plan->info.config, sizeof(plan->info.config), "%s", k.describe(best).c_str());
      plan->info.searched = 1;
    }
  });
}
