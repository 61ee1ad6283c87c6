// The C API on a real device, concurrency: 8 threads x 50 calls of one plan, (a) all on one
// shared handle and (b) each on its own handle and stream, in every kernel family. Every
// thread writes its own C (beta = 0, so the result does not depend on how often it ran) and
// must get exactly the bytes one thread gets alone: a plan and a handle hold no per-call state.
#include <catch2/catch.hpp>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "api_fixtures.hpp"
#include "runner.hpp"
#include "spx_catch.hpp"

using namespace spx::test;
using namespace spx::test::api;

namespace {

constexpr int kThreads = 8;
constexpr int kCalls = 50;

/// What one thread owns: its C, its workspace, and (own-handle mode) its handle and stream.
struct Worker {
  DeviceBuffer c, ws;
  UniqueDnMat c_descr;
  std::vector<uint8_t> result;
  std::string error;
};

std::vector<uint8_t> bytes_of(const DeviceBuffer& b) {
  std::vector<uint8_t> host(b.size());
  REQUIRE(cudaMemcpy(host.data(), b.get(), host.size(), cudaMemcpyDeviceToHost) == cudaSuccess);
  return host;
}

}  // namespace

TEST_CASE("8 threads share a plan, on one handle or their own: results bit-identical",
          "[api][concurrency]") {
  uint64_t seed = 4300;
  for (const FamilyCase& fc : kFamilies) {
    for (const bool shared_handle : {true, false}) {
      INFO(fc.name << (shared_handle ? ", one shared handle" : ", a handle and stream per thread"));
      UniqueHandle h = make_handle();
      // Column-major B: the families that stage it need a workspace, shared state to get wrong.
      Spmm p = make_spmm(seed++, fc.f, 96, 128, 40, fc.in, fc.out, SPX_ORDER_COL, SPX_ORDER_ROW);
      spxPlan_t raw = nullptr;
      REQUIRE_SPX(spxSpMM_analyze(h.get(), p.dA.get(), p.dB.get(), p.dC.get(), p.compute, fc.alg,
                                  &raw));
      UniquePlan plan(raw);
      const size_t ws_bytes = workspace_bytes(plan.get());
      const ScalarBytes alpha = make_scalar(2.0, fc.out), beta = make_scalar(0.0, fc.out);

      // One thread alone: the reference bytes.
      const size_t c_bytes = p.C.data.size();
      DeviceBuffer c_ref(c_bytes), ws_ref(ws_bytes);
      REQUIRE(cudaMemset(c_ref.get(), 0xEE, c_bytes) == cudaSuccess);  // as the threads' (ld padding)
      UniqueDnMat c_ref_descr = make_dense_descr(p.C, c_ref.get());
      REQUIRE_SPX(spxSpMM(h.get(), plan.get(), alpha.get(), p.dA.get(), p.dB.get(), beta.get(),
                          c_ref_descr.get(), ws_ref.get()));
      device_sync();
      const std::vector<uint8_t> expected = bytes_of(c_ref);

      std::vector<std::unique_ptr<Worker>> workers;
      for (int t = 0; t < kThreads; ++t) {
        auto w = std::make_unique<Worker>();
        w->c = DeviceBuffer(c_bytes);
        w->ws = DeviceBuffer(ws_bytes);
        REQUIRE(cudaMemset(w->c.get(), 0xEE, c_bytes) == cudaSuccess);
        w->c_descr = make_dense_descr(p.C, w->c.get());
        workers.push_back(std::move(w));
      }
      std::atomic<int> ready{0};
      std::vector<std::thread> threads;
      for (int t = 0; t < kThreads; ++t) {
        threads.emplace_back([&, t] {
          Worker& w = *workers[static_cast<size_t>(t)];
          spxHandle_t handle = h.get();
          spxHandle_t own = nullptr;
          cudaStream_t stream = nullptr;
          if (!shared_handle) {
            if (spxCreate(&own) != SPX_STATUS_SUCCESS ||
                cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess ||
                spxSetStream(own, reinterpret_cast<spxStream_t>(stream)) != SPX_STATUS_SUCCESS) {
              w.error = "could not create the thread's handle and stream";
              ++ready;
              return;
            }
            handle = own;
          }
          ++ready;
          while (ready.load() < kThreads) std::this_thread::yield();  // start together
          for (int i = 0; i < kCalls && w.error.empty(); ++i) {
            const spxStatus_t st = spxSpMM(handle, plan.get(), alpha.get(), p.dA.get(),
                                           p.dB.get(), beta.get(), w.c_descr.get(), w.ws.get());
            if (st != SPX_STATUS_SUCCESS)
              w.error = std::string("call ") + std::to_string(i) + ": " +
                        spxGetStatusName(st) + ": " + spxGetLastErrorMessage();
          }
          if (stream != nullptr && cudaStreamSynchronize(stream) != cudaSuccess)
            w.error += " (stream synchronize failed)";
          if (own != nullptr) spxDestroy(own);
          if (stream != nullptr) cudaStreamDestroy(stream);
        });
      }
      for (std::thread& th : threads) th.join();
      device_sync();
      for (int t = 0; t < kThreads; ++t) {
        Worker& w = *workers[static_cast<size_t>(t)];
        INFO("thread " << t);
        CHECK(w.error.empty());
        if (!w.error.empty()) WARN(w.error);
        CHECK(bytes_of(w.c) == expected);
      }
    }
  }
}
