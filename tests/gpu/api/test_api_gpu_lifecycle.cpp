// The C API on a real device, lifecycle: handle creation and destruction, the handle's stream
// (work queued asynchronously on it, one plan run from two handles on two streams), plan reuse
// with new dense data, spxPlanUpdateValues, and plan info / workspace size.
#include <catch2/catch.hpp>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <string>
#include <thread>

#include "api_fixtures.hpp"
#include "runner.hpp"
#include "spx_catch.hpp"

using namespace spx::test;
using namespace spx::test::api;
namespace ref = spx::ref;

// ---------------------------------------------------------------- handle

TEST_CASE("handle lifecycle stream and pointer mode", "[api]") {
  for (int i = 0; i < 3; ++i) {
    spxHandle_t h = nullptr;
    CHECK_SPX_STATUS(spxCreate(&h), SPX_STATUS_SUCCESS);
    REQUIRE(h != nullptr);
    CHECK_SPX_STATUS(spxDestroy(h), SPX_STATUS_SUCCESS);
  }
  CHECK_SPX_STATUS(spxDestroy(nullptr), SPX_STATUS_SUCCESS);
  CHECK_SPX_INVALID(spxCreate(nullptr));

  UniqueHandle h = make_handle();
  UniqueHandle h2 = make_handle();
  CHECK(h.get() != h2.get());

  spxStream_t got = reinterpret_cast<spxStream_t>(0x1);
  CHECK_SPX_STATUS(spxGetStream(h.get(), &got), SPX_STATUS_SUCCESS);
  CHECK(got == nullptr);  // the default stream

  Stream s;
  CHECK_SPX_STATUS(spxSetStream(h.get(), s.spx()), SPX_STATUS_SUCCESS);
  CHECK_SPX_STATUS(spxGetStream(h.get(), &got), SPX_STATUS_SUCCESS);
  CHECK(got == s.spx());
  CHECK_SPX_STATUS(spxGetStream(h2.get(), &got), SPX_STATUS_SUCCESS);
  CHECK(got == nullptr);  // per handle
  CHECK_SPX_STATUS(spxSetStream(h.get(), nullptr), SPX_STATUS_SUCCESS);
  CHECK_SPX_STATUS(spxGetStream(h.get(), &got), SPX_STATUS_SUCCESS);
  CHECK(got == nullptr);

  spxPointerMode_t mode = SPX_POINTER_MODE_DEVICE;
  CHECK_SPX_STATUS(spxGetPointerMode(h.get(), &mode), SPX_STATUS_SUCCESS);
  CHECK(mode == SPX_POINTER_MODE_HOST);
  CHECK_SPX_STATUS(spxSetPointerMode(h.get(), SPX_POINTER_MODE_DEVICE), SPX_STATUS_SUCCESS);
  CHECK_SPX_STATUS(spxGetPointerMode(h.get(), &mode), SPX_STATUS_SUCCESS);
  CHECK(mode == SPX_POINTER_MODE_DEVICE);

  // Bad arguments.
  CHECK_SPX_INVALID(spxSetStream(nullptr, s.spx()));
  CHECK_SPX_INVALID(spxGetStream(nullptr, &got));
  CHECK_SPX_INVALID(spxGetStream(h.get(), nullptr));
  CHECK_SPX_INVALID(spxSetPointerMode(nullptr, SPX_POINTER_MODE_HOST));
  CHECK_SPX_INVALID(spxSetPointerMode(h.get(), static_cast<spxPointerMode_t>(2)));
  CHECK_SPX_INVALID(spxSetPointerMode(h.get(), static_cast<spxPointerMode_t>(-1)));
  CHECK_SPX_INVALID(spxGetPointerMode(nullptr, &mode));
  CHECK_SPX_INVALID(spxGetPointerMode(h.get(), nullptr));
  // A rejected mode leaves the handle as it was.
  CHECK_SPX_STATUS(spxGetPointerMode(h.get(), &mode), SPX_STATUS_SUCCESS);
  CHECK(mode == SPX_POINTER_MODE_DEVICE);
  CHECK_SPX_STATUS(spxSetPointerMode(h.get(), SPX_POINTER_MODE_HOST), SPX_STATUS_SUCCESS);
}

// spxSpMM queues work on the handle's stream and returns: hold the stream with a host function,
// call spxSpMM, and C must still be untouched until the stream is released. Host alpha/beta are
// read before the call returns, so changing them afterwards must not matter.
namespace {
struct Gate {
  std::atomic<bool> open{false};
};
void CUDART_CB hold_stream(void* arg) {
  auto* gate = static_cast<Gate*>(arg);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (!gate->open.load() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}
}  // namespace

TEST_CASE("SpMM runs asynchronously on the handle's stream", "[api]") {
  UniqueHandle h = make_handle();
  Stream s;
  REQUIRE_SPX(spxSetStream(h.get(), s.spx()));
  Spmm p = make_spmm(101, csr_spec(), 64, 96, 48, SPX_R_32F, SPX_R_32F);
  UniquePlan plan = analyze(h.get(), p);
  DeviceBuffer ws(workspace_bytes(plan.get()));
  // Everything that may synchronize implicitly (pinned allocation, stream creation) happens
  // before the stream is held.
  void* pinned = nullptr;
  SPX_CUDA_CHECK(cudaMallocHost(&pinned, p.C.data.size()));
  const std::unique_ptr<void, cudaError_t (*)(void*)> pinned_owner(pinned, cudaFreeHost);
  Stream other;
  s.sync();

  Gate gate;
  SPX_CUDA_CHECK(cudaLaunchHostFunc(s.get(), hold_stream, &gate));
  float alpha = 0.5f, beta = -2.0f;
  const auto t0 = std::chrono::steady_clock::now();
  const spxStatus_t st =
      spxSpMM(h.get(), plan.get(), &alpha, p.dA.get(), p.dB.get(), &beta, p.dC.get(), ws.get());
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  alpha = 100.0f;  // host scalars: must have been read already
  beta = 100.0f;

  // Read C through another stream (into pinned memory, so the copy is truly asynchronous)
  // while the handle's stream is still held.
  const cudaError_t copy_err = cudaMemcpyAsync(pinned, p.dC.buf.get(), p.C.data.size(),
                                               cudaMemcpyDeviceToHost, other.get());
  const cudaError_t sync_err = cudaStreamSynchronize(other.get());
  const std::vector<uint8_t> during(static_cast<uint8_t*>(pinned),
                                    static_cast<uint8_t*>(pinned) + p.C.data.size());
  gate.open = true;
  s.sync();
  SPX_CUDA_CHECK(copy_err);
  SPX_CUDA_CHECK(sync_err);

  REQUIRE(st == SPX_STATUS_SUCCESS);
  INFO("spxSpMM took " << secs << " s while its stream was held");
  CHECK(secs < 4.0);  // it queued the work instead of waiting for the stream
  CHECK(during == p.C.data);  // nothing ran before the stream was released
  check_spmm_result(p.A, p.B, p.C, {0.5, -2}, download(p.dC, p.C), "SpMM on a user stream");
}

TEST_CASE("plan reuse with new B and C data", "[api]") {
  UniqueHandle h = make_handle();
  Spmm p = make_spmm(300, csr_spec(), 48, 64, 40, SPX_R_32F, SPX_R_32F, SPX_ORDER_ROW, SPX_ORDER_COL);
  UniquePlan plan = analyze(h.get(), p);
  run_and_check(h.get(), plan.get(), p, {0.5, -2}, p.A, "first run");
  const HostDense first_c = download(p.dC, p.C);

  Rng rng(301);
  // New buffers behind the same descriptors (spxDnMatSetValues).
  const HostDense B2 = random_dense(rng, 64, 40, SPX_ORDER_ROW, operand_dist(SPX_R_32F, 64, SPX_R_32F), 1);
  HostDense C2 = random_dense(rng, 48, 40, SPX_ORDER_COL, output_dist(SPX_R_32F), 1);
  guard_padding(C2);
  DeviceBuffer b2(B2.data), c2(C2.data, 256);
  REQUIRE_SPX(spxDnMatSetValues(p.dB.get(), b2.get()));
  REQUIRE_SPX(spxDnMatSetValues(p.dC.get(), c2.get()));
  void* values = nullptr;
  REQUIRE_SPX(spxDnMatGet(p.dC.get(), nullptr, nullptr, nullptr, &values, nullptr, nullptr));
  CHECK(values == c2.get());
  {
    DeviceBuffer ws(workspace_bytes(plan.get()));
    const ScalarBytes alpha = make_scalar(-1.5, SPX_R_32F), beta = make_scalar(1, SPX_R_32F);
    REQUIRE_SPX(spxSpMM(h.get(), plan.get(), alpha.get(), p.dA.get(), p.dB.get(), beta.get(),
                        p.dC.get(), ws.get()));
    device_sync();
    HostDense got = C2;
    c2.download(got.data.data(), got.data.size());
    check_spmm_result(p.A, B2, C2, {-1.5, 1}, got, "after spxDnMatSetValues");
    CHECK(c2.tail_intact());
    HostDense old = p.C;
    p.dC.buf.download(old.data.data(), old.data.size());
    CHECK(same_bytes(old, first_c));  // the old buffer was not written again
  }
  // Brand-new descriptors of the same shapes, types and orders.
  {
    const HostDense B3 = random_dense(rng, 64, 40, SPX_ORDER_ROW, operand_dist(SPX_R_32F, 64, SPX_R_32F));
    HostDense C3 = random_dense(rng, 48, 40, SPX_ORDER_COL, output_dist(SPX_R_32F), 2);
    guard_padding(C3);
    const DeviceDense dB3 = to_device(B3);
    const DeviceDense dC3 = to_device(C3, 256);
    DeviceBuffer ws(workspace_bytes(plan.get()));
    const ScalarBytes alpha = make_scalar(1, SPX_R_32F), beta = make_scalar(0, SPX_R_32F);
    REQUIRE_SPX(spxSpMM(h.get(), plan.get(), alpha.get(), p.dA.get(), dB3.get(), beta.get(),
                        dC3.get(), ws.get()));
    device_sync();
    check_spmm_result(p.A, B3, C3, {1, 0}, download(dC3, C3), "new descriptors (other ld)");
    CHECK(dC3.buf.tail_intact());
  }
  // Back to the original buffers: the same plan still runs on them.
  REQUIRE_SPX(spxDnMatSetValues(p.dB.get(), p.dB.buf.get()));
  REQUIRE_SPX(spxDnMatSetValues(p.dC.get(), p.dC.buf.get()));
  run_and_check(h.get(), plan.get(), p, {0.5, 0}, p.A, "after other descriptors");
}

TEST_CASE("spxPlanUpdateValues", "[api]") {
  const FormatSpec formats[] = {csr_spec(), bcrs_spec(4), nm_spec(2, 4, 2), ell_spec()};
  const spxDataType_t types[][2] = {{SPX_R_32F, SPX_R_32F}, {SPX_R_16F, SPX_R_16F},
                                    {SPX_R_8I, SPX_R_32I}};
  UniqueHandle h = make_handle();
  uint64_t seed = 400;
  for (const FormatSpec& f : formats)
    for (const auto& t : types) {
      const std::string what = f.name() + " " + type_name(t[0]) + " -> " + type_name(t[1]);
      Spmm p = make_spmm(seed++, f, 32, 64, 24, t[0], t[1]);
      UniquePlan plan = analyze(h.get(), p);
      const ref::Scalars sc = {1, 0};
      run_and_check(h.get(), plan.get(), p, sc, p.A, what + ": values 1");

      Rng rng(seed * 7);
      const ValueDist dist = operand_dist(t[0], 64, t[1]);
      HostSparse v2 = p.A;
      v2.values = random_values(rng, dist, p.A.value_slots());
      // Same pointer, new contents: without spxPlanUpdateValues the plan keeps its copy.
      p.dA.values.upload(v2.values);
      run_and_check(h.get(), plan.get(), p, sc, p.A, what + ": values changed, plan not updated");
      REQUIRE_SPX(spxPlanUpdateValues(h.get(), plan.get(), p.dA.get()));
      run_and_check(h.get(), plan.get(), p, sc, v2, what + ": values 2 after spxPlanUpdateValues");

      // New pointer through spxSpMatSetValues, then update.
      HostSparse v3 = p.A;
      v3.values = random_values(rng, dist, p.A.value_slots());
      DeviceBuffer values3(v3.values);
      REQUIRE_SPX(spxSpMatSetValues(p.dA.get(), values3.get()));
      REQUIRE_SPX(spxPlanUpdateValues(h.get(), plan.get(), p.dA.get()));
      run_and_check(h.get(), plan.get(), p, {2, 0}, v3, what + ": values 3 (new pointer)");
    }
}

TEST_CASE("plan info and workspace size", "[api]") {
  struct Case {
    FormatSpec f;
    spxDataType_t in, out;
    spxSpMMAlg_t alg;
  };
  const Case cases[] = {
      {csr_spec(), SPX_R_32F, SPX_R_32F, SPX_SPMM_ALG_DEFAULT},
      {csr_spec(), SPX_R_32F, SPX_R_32F, SPX_SPMM_ALG_FALLBACK},
      {csr_spec(), SPX_R_16F, SPX_R_32F, SPX_SPMM_ALG_SPTC_REORDER},
      {bcrs_spec(4), SPX_R_16F, SPX_R_16F, SPX_SPMM_ALG_DEFAULT},
      {bcrs_spec(8), SPX_R_8I, SPX_R_32I, SPX_SPMM_ALG_SRBCRS},
      {nm_spec(2, 4, 2), SPX_R_32F, SPX_R_32F, SPX_SPMM_ALG_DEFAULT},
      {nm_spec(2, 4, 2), SPX_R_32F, SPX_R_32F, SPX_SPMM_ALG_NM},
      {ell_spec(), SPX_R_32F, SPX_R_32F, SPX_SPMM_ALG_DEFAULT},
      {ell_spec(), SPX_R_16F, SPX_R_16F, SPX_SPMM_ALG_ELL},
      {csr_spec(), SPX_R_8I, SPX_R_32F, SPX_SPMM_ALG_DEFAULT},
  };
  UniqueHandle h = make_handle();
  uint64_t seed = 500;
  for (const Case& c : cases) {
    const std::string what = c.f.name() + " " + type_name(c.in) + " -> " + type_name(c.out) +
                             ", alg " + alg_name(c.alg);
    INFO(what);
    Spmm p = make_spmm(seed++, c.f, 64, 128, 32, c.in, c.out);
    spxPlan_t raw = nullptr;
    const spxStatus_t st =
        spxSpMM_analyze(h.get(), p.dA.get(), p.dB.get(), p.dC.get(), p.compute, c.alg, &raw);
    if (st == SPX_STATUS_NOT_SUPPORTED && c.alg != SPX_SPMM_ALG_DEFAULT &&
        c.alg != SPX_SPMM_ALG_FALLBACK) {
      WARN(what << ": NOT_SUPPORTED");
      continue;
    }
    REQUIRE(st == SPX_STATUS_SUCCESS);
    UniquePlan plan(raw);

    spxPlanInfo_t info;
    std::memset(&info, 0xCD, sizeof info);  // every field must be written
    CHECK_SPX_STATUS(spxPlanGetInfo(plan.get(), &info), SPX_STATUS_SUCCESS);
    size_t ws = 12345;
    CHECK_SPX_STATUS(spxPlanGetWorkspaceSize(plan.get(), &ws), SPX_STATUS_SUCCESS);
    CHECK(ws == info.workspace_bytes);

    CHECK(info.family != SPX_SPMM_ALG_DEFAULT);
    CHECK(static_cast<int>(info.family) >= 1);
    CHECK(static_cast<int>(info.family) <= 5);
    if (c.alg != SPX_SPMM_ALG_DEFAULT) CHECK(info.family == c.alg);
    const size_t klen = strnlen(info.kernel, sizeof info.kernel);
    CHECK(klen > 0);
    CHECK(klen < sizeof info.kernel);
    CHECK(strnlen(info.config, sizeof info.config) < sizeof info.config);

    int64_t rows = 0, cols = 0, nnz = 0;
    REQUIRE_SPX(spxSpMatGetSize(p.dA.get(), &rows, &cols, &nnz));
    const int64_t entries = static_cast<int64_t>(ref::entries(p.A).size());
    if (c.f.format == SPX_FORMAT_ELL) {
      // ELL: the header leaves open whether padded slots count; anything in between is sane.
      CHECK(info.nnz >= entries);
      CHECK(info.nnz <= nnz);
    } else {
      CHECK(info.nnz == nnz);
    }
    CHECK(info.padded_nnz >= entries);
    CHECK(info.values_bytes > 0);
    CHECK(info.values_bytes + info.metadata_bytes > 0);
    CHECK(info.values_bytes < (size_t{1} << 32));    // not garbage
    CHECK(info.metadata_bytes < (size_t{1} << 32));
    CHECK(std::isfinite(info.analyze_ms));
    CHECK(info.analyze_ms >= 0);
    CHECK(info.columns_skipped >= 0);
    CHECK(info.reorder_retries >= 0);
    CHECK(info.split_k >= 1);
    CHECK((info.packing == 0 || info.packing == 1));
    CHECK(info.candidates >= 1);
    CHECK(info.searched == 0);  // not searched yet
    CHECK(std::isfinite(info.predicted_speedup));
    CHECK(info.predicted_speedup >= 0);
    CHECK(info.max_n == p.C.cols);  // the analyzed n is the bound by default
    CHECK(info.prepared_sizes >= 1);

    // The plan runs with exactly that workspace.
    const ref::Scalars sc = c.out == SPX_R_32I ? ref::Scalars{2, -2} : ref::Scalars{0.5, -2};
    run_and_check(h.get(), plan.get(), p, sc, p.A, what);
  }

  // SDDMM plans report too.
  Sddmm q = make_sddmm(550, csr_spec(), 32, 48, 40, SPX_R_32F, SPX_R_32F);
  UniquePlan plan = analyze(h.get(), q);
  spxPlanInfo_t info{};
  CHECK_SPX_STATUS(spxPlanGetInfo(plan.get(), &info), SPX_STATUS_SUCCESS);
  CHECK(info.family != SPX_SPMM_ALG_DEFAULT);
  CHECK(strnlen(info.kernel, sizeof info.kernel) > 0);
  CHECK(info.nnz == static_cast<int64_t>(q.C.idx.size()));
  size_t ws = 0;
  CHECK_SPX_STATUS(spxPlanGetWorkspaceSize(plan.get(), &ws), SPX_STATUS_SUCCESS);
  CHECK(ws == info.workspace_bytes);

  // Bad arguments of the plan getters.
  CHECK_SPX_INVALID(spxPlanGetInfo(nullptr, &info));
  CHECK_SPX_INVALID(spxPlanGetInfo(plan.get(), nullptr));
  CHECK_SPX_INVALID(spxPlanGetWorkspaceSize(nullptr, &ws));
  CHECK_SPX_INVALID(spxPlanGetWorkspaceSize(plan.get(), nullptr));
  CHECK_SPX_STATUS(spxPlanDestroy(nullptr), SPX_STATUS_SUCCESS);
}

TEST_CASE("one plan executed from two handles on two streams", "[api]") {
  UniqueHandle h1 = make_handle(), h2 = make_handle();
  Stream s1, s2;
  REQUIRE_SPX(spxSetStream(h1.get(), s1.spx()));
  REQUIRE_SPX(spxSetStream(h2.get(), s2.spx()));
  Spmm p = make_spmm(600, bcrs_spec(4), 128, 256, 64, SPX_R_16F, SPX_R_32F);
  UniquePlan plan = analyze(h1.get(), p);
  s1.sync();
  const HostDense C2 = p.C;
  DeviceDense dC2 = to_device(C2, 256);
  DeviceBuffer ws1(workspace_bytes(plan.get())), ws2(workspace_bytes(plan.get()));
  const ScalarBytes a1 = make_scalar(0.5, SPX_R_32F), b1 = make_scalar(-2, SPX_R_32F);
  const ScalarBytes a2 = make_scalar(-1.5, SPX_R_32F), b2 = make_scalar(1, SPX_R_32F);
  for (int rep = 0; rep < 2; ++rep) {
    // Restore both outputs, then queue the two runs back to back on different streams.
    p.dC.buf.upload(p.C.data);
    dC2.buf.upload(C2.data);
    REQUIRE_SPX(spxSpMM(h1.get(), plan.get(), a1.get(), p.dA.get(), p.dB.get(), b1.get(),
                        p.dC.get(), ws1.get()));
    REQUIRE_SPX(spxSpMM(h2.get(), plan.get(), a2.get(), p.dA.get(), p.dB.get(), b2.get(),
                        dC2.get(), ws2.get()));
    s1.sync();
    s2.sync();
    device_sync();
    check_spmm_result(p.A, p.B, p.C, {0.5, -2}, download(p.dC, p.C), "handle 1");
    check_spmm_result(p.A, p.B, C2, {-1.5, 1}, download(dC2, C2), "handle 2");
  }
}
