// spxSpMM_search: time every configuration the plan's family offers for this problem and keep
// the fastest, like cusparseLtMatmulSearch, then compute the product with it.
#include <cuda_runtime_api.h>

#include "engine/autotune.hpp"
#include "engine/plan.hpp"
#include "runtime/objects.hpp"
#include "api/validate.hpp"

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
    if (C->rows == 0 || C->cols == 0) return;
    spx::device::DeviceGuard on_device(handle->device);
    // Above the largest prepared size (a plan for any n) the product runs in column slices of
    // that size: the search times the first slice, with the decision the slices run.
    const int64_t top = plan->prepared.back().n_hi;
    const spxDnMatDescr b_timed = C->cols > top ? spx::plan::column_slice(*B, 0, top) : *B;
    const spxDnMatDescr c_timed = C->cols > top ? spx::plan::column_slice(*C, 0, top) : *C;
    const spx::dispatch::SpmmCall call{alpha, beta, b_timed, c_timed, workspace,
                                             spx::plan::epilogue_of(*plan)};
    // The timed runs overwrite C; keep its bytes so the final result uses the caller's C.
    const size_t c_bytes = spx::plan::dense_span_bytes(*C);
    spx::device::Buffer saved_c(c_bytes);
    spx::device::check(cudaMemcpyAsync(saved_c.get(), C->values, c_bytes, cudaMemcpyDeviceToDevice,
                                       handle->stream),
                       "saving C before the search");
    // The decision prepared for this n is the one searched (and the one later executes of this
    // n run).
    spx::PreparedN& e = plan->prepared_for(c_timed.cols);
    spx::plan::select_fastest_candidate(*handle, e, call, "spxSpMM_search");
    spx::device::check(cudaMemcpyAsync(C->values, saved_c.get(), c_bytes, cudaMemcpyDeviceToDevice,
                                       handle->stream),
                       "restoring C after the search");
    spx::plan::run_spmm(*handle, *plan, alpha, *B, beta, *C, workspace);
    spx::device::check(cudaStreamSynchronize(handle->stream), "running the chosen candidate");
  });
}
