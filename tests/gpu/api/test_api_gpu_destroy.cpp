// The C API on a real device, spxPlanDestroy: it waits for nothing on the host and for nothing
// but the plan's own work on the device. A stream held back by a host function shows both: the
// destroy returns while unrelated work (and even the plan's own queued work) has not run, and the
// plan's queued work still computes the right result afterwards (its buffers are released in
// stream order, after it). Destroying a plan while this thread captures another stream in global
// mode is legal and leaves the capture valid.
#include <catch2/catch.hpp>
#include <atomic>
#include <chrono>
#include <functional>
#include <thread>

#include "api_fixtures.hpp"
#include "runner.hpp"
#include "spx_catch.hpp"

using namespace spx::test;
using namespace spx::test::api;
namespace ref = spx::ref;

namespace {

/// Holds a stream back until `open` is set (a host function the stream must run first).
struct Gate {
  std::atomic<bool> open{false};
  std::atomic<bool> passed{false};
  static void CUDART_CB wait(void* self) {
    auto* g = static_cast<Gate*>(self);
    while (!g->open.load()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    g->passed = true;
  }
};

}  // namespace

TEST_CASE("spxPlanDestroy waits for neither the host nor other streams", "[api][destroy]") {
  Stream s1, s2;
  UniqueHandle h = make_handle();
  REQUIRE_SPX(spxSetStream(h.get(), s1.spx()));
  for (const FormatSpec& f : {csr_spec(), ell_spec(), nm_spec(2, 4, 16), bcrs_spec(8)}) {
    INFO(f.name());
    const bool int8 = f.format == SPX_FORMAT_BCRS;
    Spmm p = make_spmm(4400, f, 64, 128, 32, int8 ? SPX_R_8I : SPX_R_32F,
                       int8 ? SPX_R_32I : SPX_R_32F, SPX_ORDER_COL, SPX_ORDER_ROW);
    spxPlan_t plan = nullptr;
    REQUIRE_SPX(spxSpMM_analyze(h.get(), p.dA.get(), p.dB.get(), p.dC.get(), p.compute,
                                SPX_SPMM_ALG_DEFAULT, &plan));
    DeviceBuffer ws(workspace_bytes(plan));
    const HostDense c_old = download(p.dC, p.C);
    const ScalarBytes alpha = make_scalar(2.0, p.C.type), beta = make_scalar(-1.0, p.C.type);

    // Unrelated work held back on s2, and the plan's execute queued behind a gate on s1.
    Gate other, own;
    REQUIRE(cudaLaunchHostFunc(s2.get(), Gate::wait, &other) == cudaSuccess);
    REQUIRE(cudaLaunchHostFunc(s1.get(), Gate::wait, &own) == cudaSuccess);
    REQUIRE_SPX(spxSpMM(h.get(), plan, alpha.get(), p.dA.get(), p.dB.get(), beta.get(),
                        p.dC.get(), ws.get()));
    CHECK_SPX_STATUS(spxPlanDestroy(plan), SPX_STATUS_SUCCESS);
    // Returned with both gates still closed: it waited for neither stream.
    CHECK_FALSE(other.passed.load());
    CHECK_FALSE(own.passed.load());
    own.open = true;
    other.open = true;
    s1.sync();
    s2.sync();
    device_sync();
    // The execute queued before the destroy ran on the plan's buffers, released only after it.
    check_spmm_result(p.A, p.B, c_old, ref::Scalars{2.0, -1.0}, download(p.dC, p.C),
                      f.name() + ": execute queued before the destroy");
  }
}

TEST_CASE("spxPlanDestroy during a global-mode capture on this thread", "[api][destroy]") {
  UniqueHandle h = make_handle();
  Spmm p = make_spmm(4450, csr_spec(), 48, 64, 16, SPX_R_32F, SPX_R_32F);
  UniquePlan keep = analyze(h.get(), p);
  spxPlan_t doomed = nullptr;
  REQUIRE_SPX(spxSpMM_analyze(h.get(), p.dA.get(), p.dB.get(), p.dC.get(), p.compute,
                              SPX_SPMM_ALG_DEFAULT, &doomed));
  device_sync();
  Stream cap;
  REQUIRE_SPX(spxSetStream(h.get(), cap.spx()));
  DeviceBuffer ws(workspace_bytes(keep.get()));
  const float one = 1.0f, zero = 0.0f;
  // The capture must stay active after each call (an illegal call inside it invalidates it).
  auto capturing = [&cap] {
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    const cudaError_t err = cudaStreamIsCapturing(cap.get(), &status);
    return err == cudaSuccess && status == cudaStreamCaptureStatusActive;
  };
  REQUIRE(cudaStreamBeginCapture(cap.get(), cudaStreamCaptureModeGlobal) == cudaSuccess);
  REQUIRE_SPX(spxSpMM(h.get(), keep.get(), &one, p.dA.get(), p.dB.get(), &zero, p.dC.get(),
                      ws.get()));
  CHECK(capturing());  // after the execute
  CHECK_SPX_STATUS(spxPlanDestroy(doomed), SPX_STATUS_SUCCESS);
  CHECK(capturing());  // after the destroy
  cudaGraph_t graph = nullptr;
  REQUIRE(cudaStreamEndCapture(cap.get(), &graph) == cudaSuccess);  // the capture stayed valid
  REQUIRE(graph != nullptr);
  cudaGraphExec_t exec = nullptr;
  REQUIRE(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
  REQUIRE(cudaGraphLaunch(exec, cap.get()) == cudaSuccess);
  cap.sync();
  check_spmm_result(p.A, p.B, p.C, ref::Scalars{1.0, 0.0}, download(p.dC, p.C),
                    "the captured execute, replayed");
  cudaGraphExecDestroy(exec);
  cudaGraphDestroy(graph);
}

TEST_CASE("which runtime calls a global-mode capture tolerates", "[.diag]") {
  // Diagnostic (hidden tag): each call made by this thread while it captures `cap` in global
  // mode, with its error and whether the capture is still active after it.
  Stream cap, other;
  void* pooled = nullptr;
  REQUIRE(cudaMallocAsync(&pooled, 1024, other.get()) == cudaSuccess);
  other.sync();
  cudaEvent_t before = nullptr;
  REQUIRE(cudaEventCreateWithFlags(&before, cudaEventDisableTiming) == cudaSuccess);
  REQUIRE(cudaEventRecord(before, other.get()) == cudaSuccess);
  struct Step {
    const char* name;
    std::function<cudaError_t()> call;
  };
  cudaEvent_t made = nullptr;
  float host_value = 0;
  cudaPointerAttributes attr{};
  const Step steps[] = {
      {"cudaPointerGetAttributes(host)", [&] { return cudaPointerGetAttributes(&attr, &host_value); }},
      {"cudaPointerGetAttributes(device)", [&] { return cudaPointerGetAttributes(&attr, pooled); }},
      {"cudaGetDevice", [&] { int d; return cudaGetDevice(&d); }},
      {"cudaEventCreateWithFlags", [&] { return cudaEventCreateWithFlags(&made, cudaEventDisableTiming); }},
      {"cudaEventRecord(capturing stream)", [&] { return cudaEventRecord(made, cap.get()); }},
      {"cudaStreamWaitEvent(other, pre-capture event)", [&] { return cudaStreamWaitEvent(other.get(), before, 0); }},
      {"cudaFreeAsync(other)", [&] { return cudaFreeAsync(pooled, other.get()); }},
      {"cudaEventDestroy(pre-capture event)", [&] { return cudaEventDestroy(before); }},
  };
  REQUIRE(cudaStreamBeginCapture(cap.get(), cudaStreamCaptureModeGlobal) == cudaSuccess);
  for (const Step& st : steps) {
    const cudaError_t err = st.call();
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    cudaStreamIsCapturing(cap.get(), &status);
    WARN(st.name << ": " << cudaGetErrorName(err) << ", capture "
                 << (status == cudaStreamCaptureStatusActive ? "active" : "INVALIDATED"));
    cudaGetLastError();
  }
  cudaGraph_t g = nullptr;
  WARN("end capture: " << cudaGetErrorName(cudaStreamEndCapture(cap.get(), &g)));
  if (g) cudaGraphDestroy(g);
  cudaGetLastError();
}
