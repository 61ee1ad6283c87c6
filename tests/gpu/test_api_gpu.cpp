// The C API on a real device: handle lifecycle, streams, pointer modes, plan reuse,
// spxPlanUpdateValues, plan info, and a bad-argument walk over every entry point that needs a
// handle or device data, each asserting the exact status, a non-empty message, and that the
// output was not touched by the rejected call.
#include <catch2/catch.hpp>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <thread>

#include "runtime/dtype.hpp"
#include "runner.hpp"
#include "spx_catch.hpp"

using namespace spx::test;
namespace ref = spx::ref;

namespace {

// ---------------------------------------------------------------- fixtures

// A small valid SpMM problem on the device. C's ld padding holds the guard and its buffer a
// guard zone after the end.
struct Spmm {
  HostSparse A;
  HostDense B, C;
  DeviceSparse dA;
  DeviceDense dB, dC;
  spxDataType_t compute = SPX_R_32F;
};

Spmm make_spmm(uint64_t seed, const FormatSpec& f, int64_t m, int64_t k, int64_t n,
               spxDataType_t in, spxDataType_t out, spxOrder_t b_order = SPX_ORDER_ROW,
               spxOrder_t c_order = SPX_ORDER_ROW) {
  Rng rng(seed);
  Spmm s;
  s.A = random_sparse(rng, f, m, k, operand_dist(in, k, out));
  s.B = random_dense(rng, k, n, b_order, operand_dist(in, k, out), 1);
  s.C = random_dense(rng, m, n, c_order, output_dist(out), 1);
  guard_padding(s.C);
  s.dA = to_device(s.A);
  s.dB = to_device(s.B);
  s.dC = to_device(s.C, 256);
  s.compute = compute_type_for(in);
  return s;
}

// A small valid SDDMM problem: A m x k, B k x n dense, C m x n sparse.
struct Sddmm {
  HostDense A, B;
  HostSparse C;
  DeviceDense dA, dB;
  DeviceSparse dC;
  spxDataType_t compute = SPX_R_32F;
};

Sddmm make_sddmm(uint64_t seed, const FormatSpec& f, int64_t m, int64_t k, int64_t n,
                 spxDataType_t in, spxDataType_t out) {
  Rng rng(seed);
  Sddmm s;
  s.A = random_dense(rng, m, k, SPX_ORDER_ROW, operand_dist(in, k, out));
  s.B = random_dense(rng, k, n, SPX_ORDER_COL, operand_dist(in, k, out));
  s.C = random_sparse(rng, f, m, n, output_dist(out));
  guard_ell_padding(s.C);
  s.dA = to_device(s.A);
  s.dB = to_device(s.B);
  s.dC = to_device(s.C, 256);
  s.compute = compute_type_for(in);
  return s;
}

UniquePlan analyze(spxHandle_t h, const Spmm& s, spxSpMMAlg_t alg = SPX_SPMM_ALG_DEFAULT) {
  spxPlan_t p = nullptr;
  REQUIRE_SPX(spxSpMM_analyze(h, s.dA.get(), s.dB.get(), s.dC.get(), s.compute, alg, &p));
  REQUIRE(p != nullptr);
  return UniquePlan(p);
}

UniquePlan analyze(spxHandle_t h, const Sddmm& s, spxSpMMAlg_t alg = SPX_SPMM_ALG_DEFAULT) {
  spxPlan_t p = nullptr;
  REQUIRE_SPX(spxSDDMM_analyze(h, s.dA.get(), s.dB.get(), s.dC.get(), s.compute, alg, &p));
  REQUIRE(p != nullptr);
  return UniquePlan(p);
}

size_t workspace_bytes(spxPlan_t plan) {
  size_t bytes = 0;
  REQUIRE_SPX(spxPlanGetWorkspaceSize(plan, &bytes));
  return bytes;
}

// The execute-shaped calls (spxSpMM, spxSpMM_search, spxSDDMM: handle, plan, alpha, X, Y,
// beta, Z, workspace) reject a NULL in each position; the workspace only when the plan needs one.
template <class Call, class X, class Y, class Z>
void check_null_arguments(Call call, spxHandle_t h, spxPlan_t P, const void* a, X x, Y y,
                          const void* b, Z z, void* W, size_t ws_bytes) {
  CHECK_SPX_INVALID(call(nullptr, P, a, x, y, b, z, W));
  CHECK_SPX_INVALID(call(h, nullptr, a, x, y, b, z, W));
  CHECK_SPX_INVALID(call(h, P, nullptr, x, y, b, z, W));
  CHECK_SPX_INVALID(call(h, P, a, nullptr, y, b, z, W));
  CHECK_SPX_INVALID(call(h, P, a, x, nullptr, b, z, W));
  CHECK_SPX_INVALID(call(h, P, a, x, y, nullptr, z, W));
  CHECK_SPX_INVALID(call(h, P, a, x, y, b, nullptr, W));
  if (ws_bytes > 0) CHECK_SPX_INVALID(call(h, P, a, x, y, b, z, nullptr));
}

// Checks a downloaded C against the reference of (A, B, c_old, scalars).
void check_spmm_result(const HostSparse& A, const HostDense& B, const HostDense& c_old,
                       const ref::Scalars& s, const HostDense& got, const std::string& what) {
  const CheckResult r = check_dense_output(got, c_old, ref::spmm(A, B, c_old, s));
  INFO(what << "\n" << r.report);
  CHECK(r.ok);
}

// Runs `plan` on the fixture's current data with host scalars and checks the result.
void run_and_check(spxHandle_t h, spxPlan_t plan, Spmm& s, const ref::Scalars& sc,
                   const HostSparse& a_values, const std::string& what) {
  const HostDense c_old = download(s.dC, s.C);
  const ScalarBytes alpha = make_scalar(sc.alpha, s.C.type), beta = make_scalar(sc.beta, s.C.type);
  DeviceBuffer ws(workspace_bytes(plan));
  REQUIRE_SPX(spxSpMM(h, plan, alpha.get(), s.dA.get(), s.dB.get(), beta.get(), s.dC.get(), ws.get()));
  device_sync();
  check_spmm_result(a_values, s.B, c_old, sc, download(s.dC, s.C), what);
  CHECK(s.dC.buf.tail_intact());
}

// True when the device C holds exactly `expected` (a rejected call must not touch it).
bool untouched(const DeviceDense& d, const HostDense& expected) {
  device_sync();
  return same_bytes(download(d, expected), expected) && d.buf.tail_intact();
}

bool untouched(const DeviceSparse& d, const HostSparse& expected) {
  device_sync();
  return download_values(d, expected).values == expected.values && d.values.tail_intact();
}

// A dense descriptor over `scratch` (big enough for anything these tests describe), so that a
// wrongly accepted descriptor still points at valid memory.
UniqueDnMat dense_descr(const DeviceBuffer& scratch, int64_t rows, int64_t cols, spxDataType_t type,
                        spxOrder_t order = SPX_ORDER_ROW) {
  HostDense d;
  d.rows = rows;
  d.cols = cols;
  d.type = type;
  d.order = order;
  d.ld = round_up(min_ld(rows, cols, order), 2);
  return make_dense_descr(d, scratch.get());
}

// A sparse descriptor of `s`'s structure with another value type, over the same index arrays
// and the same values (or `values`, when the new type is wider than the buffer).
UniqueSpMat retyped(const HostSparse& s, const DeviceSparse& d, spxDataType_t type,
                    void* values = nullptr) {
  HostSparse t = s;
  t.type = type;
  return make_sparse_descr(t, d.ptr.get(), d.idx.get(), values ? values : d.values.get());
}

spxStatus_t try_analyze(spxHandle_t h, spxConstSpMatDescr_t A, spxConstDnMatDescr_t B,
                        spxConstDnMatDescr_t C, spxDataType_t compute, spxSpMMAlg_t alg) {
  spxPlan_t p = nullptr;
  const spxStatus_t st = spxSpMM_analyze(h, A, B, C, compute, alg, &p);
  if (st == SPX_STATUS_SUCCESS) spxPlanDestroy(p);
  return st;
}

spxStatus_t try_analyze_sddmm(spxHandle_t h, spxConstDnMatDescr_t A, spxConstDnMatDescr_t B,
                              spxConstSpMatDescr_t C, spxDataType_t compute, spxSpMMAlg_t alg) {
  spxPlan_t p = nullptr;
  const spxStatus_t st = spxSDDMM_analyze(h, A, B, C, compute, alg, &p);
  if (st == SPX_STATUS_SUCCESS) spxPlanDestroy(p);
  return st;
}

const spxDataType_t kBadType = static_cast<spxDataType_t>(99);
const spxSpMMAlg_t kBadAlg = static_cast<spxSpMMAlg_t>(99);

}  // namespace

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

TEST_CASE("alpha and beta in device memory", "[api]") {
  const spxDataType_t cases[][2] = {{SPX_R_32F, SPX_R_32F}, {SPX_R_16F, SPX_R_16F},
                                    {SPX_R_8I, SPX_R_32I}, {SPX_R_8I, SPX_R_32F}};
  uint64_t seed = 200;
  for (const auto& t : cases) {
    UniqueHandle h = make_handle();
    Spmm p = make_spmm(seed++, csr_spec(), 40, 72, 24, t[0], t[1], SPX_ORDER_COL, SPX_ORDER_ROW);
    REQUIRE_SPX(spxSetPointerMode(h.get(), SPX_POINTER_MODE_DEVICE));
    UniquePlan plan = analyze(h.get(), p);
    DeviceBuffer ws(workspace_bytes(plan.get()));
    const bool i32 = t[1] == SPX_R_32I;
    for (const ref::Scalars sc : {i32 ? ref::Scalars{2, -1} : ref::Scalars{0.5, -2},
                                  i32 ? ref::Scalars{-1, 1} : ref::Scalars{-1.5, 1}}) {
      // alpha at offset 0, beta at offset 8 of one device buffer; new values each run, the
      // same plan: the kernel must read them at run time.
      DeviceBuffer scalars(16);
      scalars.upload(make_scalar(sc.alpha, t[1]).bytes, 8, 0);
      scalars.upload(make_scalar(sc.beta, t[1]).bytes, 8, 8);
      const void* d_alpha = scalars.get();
      const void* d_beta = static_cast<const uint8_t*>(scalars.get()) + 8;
      const HostDense c_old = download(p.dC, p.C);
      REQUIRE_SPX(spxSpMM(h.get(), plan.get(), d_alpha, p.dA.get(), p.dB.get(), d_beta, p.dC.get(),
                          ws.get()));
      device_sync();
      check_spmm_result(p.A, p.B, c_old, sc, download(p.dC, p.C),
                        std::string("device scalars, A/B ") + type_name(t[0]) + " C " +
                            type_name(t[1]) + ", alpha " + std::to_string(sc.alpha));
    }
  }
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
    for (int64_t r : info.reserved) CHECK(r == 0);

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

// spxSpMM_search times the family's configurations and keeps the fastest. The C it leaves is
// the product with the caller's alpha, beta and old C (C is saved and restored around the timed
// runs); the plan keeps its family, workspace and correctness, and says whether it was searched.
TEST_CASE("spxSpMM_search", "[api]") {
  UniqueHandle h = make_handle();
  const FormatSpec formats[] = {csr_spec(), bcrs_spec(4), nm_spec(2, 4, 2), ell_spec()};
  const spxDataType_t types[][2] = {{SPX_R_32F, SPX_R_32F}, {SPX_R_16F, SPX_R_32F},
                                    {SPX_R_8I, SPX_R_32I}};
  uint64_t seed = 560;
  for (const FormatSpec& f : formats)
    for (const auto& t : types) {
      const std::string what = "search " + f.name() + " " + type_name(t[0]) + " -> " + type_name(t[1]);
      Spmm p = make_spmm(seed++, f, 96, 128, 64, t[0], t[1], SPX_ORDER_COL, SPX_ORDER_ROW);
      UniquePlan plan = analyze(h.get(), p);
      spxPlanInfo_t before{};
      REQUIRE_SPX(spxPlanGetInfo(plan.get(), &before));
      DeviceBuffer ws(workspace_bytes(plan.get()));
      const ref::Scalars sc = {2, -1};  // beta != 0: the timed runs must not accumulate into C
      const ScalarBytes alpha = make_scalar(sc.alpha, t[1]), beta = make_scalar(sc.beta, t[1]);
      REQUIRE_SPX(spxSpMM_search(h.get(), plan.get(), alpha.get(), p.dA.get(), p.dB.get(),
                                 beta.get(), p.dC.get(), ws.get()));
      device_sync();
      const HostDense after = download(p.dC, p.C);
      check_spmm_result(p.A, p.B, p.C, sc, after, what + ": C after search");
      CHECK(p.dC.buf.tail_intact());

      spxPlanInfo_t info{};
      REQUIRE_SPX(spxPlanGetInfo(plan.get(), &info));
      INFO(what << ", " << before.candidates << " candidates");
      CHECK(info.family == before.family);
      CHECK(info.candidates == before.candidates);
      CHECK(info.searched == (before.candidates > 1 ? 1 : 0));
      CHECK(info.workspace_bytes == before.workspace_bytes);
      CHECK(strnlen(info.kernel, sizeof info.kernel) > 0);
      run_and_check(h.get(), plan.get(), p,
                    t[1] == SPX_R_32I ? ref::Scalars{-1, 1} : ref::Scalars{0.5, -2}, p.A,
                    what + ": spxSpMM after search");
    }
}

// SPX_PLAN_OPTION_AUTOTUNE: analyze times the candidates itself (plan info says searched when
// there was a choice), never reads or writes the caller's C (poisoned here), works whatever the
// handle's pointer mode, and the tuned plan computes the right product.
TEST_CASE("analyze with SPX_PLAN_OPTION_AUTOTUNE", "[api]") {
  UniqueHandle h = make_handle();
  spxPlanOptions_t raw = nullptr;
  REQUIRE_SPX(spxCreatePlanOptions(&raw));
  std::unique_ptr<spxPlanOptions, decltype(&spxDestroyPlanOptions)> opts(raw, spxDestroyPlanOptions);
  const int32_t on = 1;
  REQUIRE_SPX(spxPlanOptionsSet(opts.get(), SPX_PLAN_OPTION_AUTOTUNE, &on, sizeof on));
  const FormatSpec formats[] = {csr_spec(), bcrs_spec(8), nm_spec(2, 4, 32), ell_spec()};
  const spxDataType_t types[][2] = {{SPX_R_32F, SPX_R_32F}, {SPX_R_16F, SPX_R_32F},
                                    {SPX_R_8I, SPX_R_32I}};
  uint64_t seed = 575;
  for (const spxPointerMode_t mode : {SPX_POINTER_MODE_HOST, SPX_POINTER_MODE_DEVICE})
    for (const FormatSpec& f : formats)
      for (const auto& t : types) {
        const std::string what = "autotune " + f.name() + " " + type_name(t[0]) + " -> " +
                                 type_name(t[1]) + (mode == SPX_POINTER_MODE_DEVICE ? " (device scalars)" : "");
        INFO(what);
        REQUIRE_SPX(spxSetPointerMode(h.get(), mode));
        Spmm p = make_spmm(seed++, f, 96, 128, 64, t[0], t[1], SPX_ORDER_COL, SPX_ORDER_ROW);
        const std::vector<uint8_t> poison(p.dC.buf.size(), 0xFF);  // NaN / -1 in every element
        p.dC.buf.upload(poison);  // analyze must neither read nor write C
        spxPlan_t raw_plan = nullptr;
        REQUIRE_SPX(spxSpMM_analyzeWithOptions(h.get(), p.dA.get(), p.dB.get(), p.dC.get(), p.compute,
                                               SPX_SPMM_ALG_DEFAULT, opts.get(), &raw_plan));
        UniquePlan plan(raw_plan);
        device_sync();
        CHECK(p.dC.buf.download() == poison);
        spxPlanInfo_t info{};
        REQUIRE_SPX(spxPlanGetInfo(plan.get(), &info));
        INFO(info.candidates << " candidates, config " << info.config);
        CHECK(info.searched == (info.candidates > 1 ? 1 : 0));
        REQUIRE_SPX(spxSetPointerMode(h.get(), SPX_POINTER_MODE_HOST));
        p.dC.buf.upload(p.C.data);
        run_and_check(h.get(), plan.get(), p,
                      t[1] == SPX_R_32I ? ref::Scalars{-1, 1} : ref::Scalars{0.5, -2}, p.A, what);
      }
  // NULL options are the defaults: the same plan as spxSpMM_analyze, not searched.
  Spmm p = make_spmm(590, ell_spec(), 64, 96, 32, SPX_R_32F, SPX_R_32F);
  spxPlan_t raw_plan = nullptr;
  REQUIRE_SPX(spxSpMM_analyzeWithOptions(h.get(), p.dA.get(), p.dB.get(), p.dC.get(), p.compute,
                                         SPX_SPMM_ALG_DEFAULT, nullptr, &raw_plan));
  UniquePlan plan(raw_plan);
  spxPlanInfo_t info{};
  REQUIRE_SPX(spxPlanGetInfo(plan.get(), &info));
  CHECK(info.searched == 0);
  run_and_check(h.get(), plan.get(), p, ref::Scalars{0.5, -2}, p.A, "NULL options");
  // SDDMM takes options too (one configuration: autotune changes nothing).
  Sddmm q = make_sddmm(591, csr_spec(), 32, 48, 40, SPX_R_32F, SPX_R_32F);
  REQUIRE_SPX(spxSDDMM_analyzeWithOptions(h.get(), q.dA.get(), q.dB.get(), q.dC.get(), q.compute,
                                          SPX_SPMM_ALG_DEFAULT, opts.get(), &raw_plan));
  UniquePlan sddmm_plan(raw_plan);
  REQUIRE_SPX(spxPlanGetInfo(sddmm_plan.get(), &info));
  CHECK(info.searched == 0);
  // Bad arguments: the same checks as spxSpMM_analyze, in the same order.
  CHECK_SPX_INVALID(spxSpMM_analyzeWithOptions(nullptr, p.dA.get(), p.dB.get(), p.dC.get(),
                                               p.compute, SPX_SPMM_ALG_DEFAULT, opts.get(), &raw_plan));
  CHECK_SPX_INVALID(spxSpMM_analyzeWithOptions(h.get(), nullptr, p.dB.get(), p.dC.get(), p.compute,
                                               SPX_SPMM_ALG_DEFAULT, opts.get(), &raw_plan));
  CHECK_SPX_INVALID(spxSpMM_analyzeWithOptions(h.get(), p.dA.get(), p.dB.get(), p.dC.get(),
                                               p.compute, SPX_SPMM_ALG_DEFAULT, opts.get(), nullptr));
  CHECK_SPX_INVALID(spxSDDMM_analyzeWithOptions(h.get(), q.dA.get(), nullptr, q.dC.get(), q.compute,
                                                SPX_SPMM_ALG_DEFAULT, opts.get(), &raw_plan));
  CHECK(raw_plan == nullptr);
}

TEST_CASE("spxSpMM_search bad arguments", "[api][bad]") {
  UniqueHandle h = make_handle();
  Spmm p = make_spmm(570, csr_spec(), 16, 32, 8, SPX_R_32F, SPX_R_32F);
  UniquePlan plan = analyze(h.get(), p);
  const size_t ws_bytes = workspace_bytes(plan.get());
  DeviceBuffer ws(ws_bytes);
  const DeviceBuffer scratch(1 << 20);
  const ScalarBytes alpha = make_scalar(0.5, SPX_R_32F), beta = make_scalar(-2, SPX_R_32F);
  const void* a = alpha.get();
  const void* b = beta.get();
  const auto P = plan.get();
  const auto A = p.dA.get();
  const auto B = p.dB.get();
  const auto C = p.dC.get();
  void* W = ws.get();

  check_null_arguments(spxSpMM_search, h.get(), P, a, A, B, b, C, W, ws_bytes);
  {
    Rng rng(571);
    const DeviceSparse other = to_device(random_csr(rng, 32, 32, operand_dist(SPX_R_32F, 32, SPX_R_32F)));
    CHECK_SPX_INVALID(spxSpMM_search(h.get(), P, a, other.get(), B, b, C, W));
  }
  CHECK_SPX_INVALID(spxSpMM_search(h.get(), P, a, A,
                                   dense_descr(scratch, 32, 8, SPX_R_32F, SPX_ORDER_COL).get(), b, C, W));
  CHECK_SPX_INVALID(spxSpMM_search(h.get(), P, a, A, B, b,
                                   dense_descr(scratch, 16, 8, SPX_R_16F).get(), W));
  {
    Sddmm sd = make_sddmm(572, csr_spec(), 16, 32, 8, SPX_R_32F, SPX_R_32F);
    UniquePlan sddmm_plan = analyze(h.get(), sd);
    DeviceBuffer ws2(workspace_bytes(sddmm_plan.get()) + 256);
    CHECK_SPX_INVALID(spxSpMM_search(h.get(), sddmm_plan.get(), a, A, B, b, C, ws2.get()));
  }
  CHECK(untouched(p.dC, p.C));
  spxPlanInfo_t info{};
  REQUIRE_SPX(spxPlanGetInfo(P, &info));
  CHECK(info.searched == 0);  // rejected calls did not search
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

// ---------------------------------------------------------------- bad arguments: SpMM

TEST_CASE("spxSpMM_analyze bad arguments", "[api][bad]") {
  UniqueHandle h = make_handle();
  Spmm p = make_spmm(700, csr_spec(), 16, 32, 8, SPX_R_32F, SPX_R_32F);
  Spmm q = make_spmm(701, csr_spec(), 16, 32, 8, SPX_R_8I, SPX_R_32I);
  const DeviceBuffer scratch(1 << 20);
  const auto A = p.dA.get();
  const auto B = p.dB.get();
  const auto C = p.dC.get();
  const auto F32 = SPX_R_32F;
  const auto DEF = SPX_SPMM_ALG_DEFAULT;
  spxPlan_t plan = nullptr;

  // Null handle, descriptors, output.
  CHECK_SPX_INVALID(try_analyze(nullptr, A, B, C, F32, DEF));
  CHECK_SPX_INVALID(try_analyze(h.get(), nullptr, B, C, F32, DEF));
  CHECK_SPX_INVALID(try_analyze(h.get(), A, nullptr, C, F32, DEF));
  CHECK_SPX_INVALID(try_analyze(h.get(), A, B, nullptr, F32, DEF));
  CHECK_SPX_INVALID(spxSpMM_analyze(h.get(), A, B, C, F32, DEF, nullptr));

  // Compute type and algorithm enums.
  CHECK_SPX_INVALID(try_analyze(h.get(), A, B, C, kBadType, DEF));
  CHECK_SPX_INVALID(try_analyze(h.get(), A, B, C, SPX_R_32I, DEF));  // float inputs
  CHECK_SPX_INVALID(try_analyze(h.get(), A, B, C, SPX_R_16F, DEF));
  CHECK_SPX_INVALID(try_analyze(h.get(), q.dA.get(), q.dB.get(), q.dC.get(), SPX_R_32F, DEF));  // ints
  CHECK_SPX_INVALID(try_analyze(h.get(), A, B, C, F32, kBadAlg));
  CHECK_SPX_INVALID(try_analyze(h.get(), A, B, C, F32, static_cast<spxSpMMAlg_t>(-1)));

  // Shapes: A 16 x 32, B 32 x 8, C 16 x 8.
  CHECK_SPX_INVALID(try_analyze(h.get(), A, dense_descr(scratch, 33, 8, F32).get(), C, F32, DEF));
  CHECK_SPX_INVALID(try_analyze(h.get(), A, dense_descr(scratch, 31, 8, F32).get(), C, F32, DEF));
  CHECK_SPX_INVALID(try_analyze(h.get(), A, dense_descr(scratch, 32, 9, F32).get(), C, F32, DEF));
  CHECK_SPX_INVALID(try_analyze(h.get(), A, B, dense_descr(scratch, 17, 8, F32).get(), F32, DEF));
  CHECK_SPX_INVALID(try_analyze(h.get(), A, B, dense_descr(scratch, 16, 9, F32).get(), F32, DEF));
  CHECK_SPX_INVALID(try_analyze(h.get(), A, dense_descr(scratch, 8, 32, F32).get(), C, F32, DEF));

  // Types. A and B of different families (float / integer) are INVALID_VALUE; a combination
  // of one family outside the table of spx.h (float A != B, an output other than the input
  // type or 32F, integer outputs other than 32I / 32F / 16F, 32I as an input) is NOT_SUPPORTED.
  const auto NS = SPX_STATUS_NOT_SUPPORTED;
  CHECK_SPX_INVALID(try_analyze(h.get(), A, dense_descr(scratch, 32, 8, SPX_R_8I).get(), C, F32, DEF));
  CHECK_SPX_STATUS(try_analyze(h.get(), A, dense_descr(scratch, 32, 8, SPX_R_16F).get(), C, F32, DEF), NS);
  CHECK_SPX_STATUS(try_analyze(h.get(), A, B, dense_descr(scratch, 16, 8, SPX_R_16F).get(), F32, DEF), NS);
  CHECK_SPX_STATUS(try_analyze(h.get(), A, B, dense_descr(scratch, 16, 8, SPX_R_16BF).get(), F32, DEF), NS);
  CHECK_SPX_STATUS(try_analyze(h.get(), A, B, dense_descr(scratch, 16, 8, SPX_R_32I).get(), F32, DEF), NS);
  {
    const UniqueSpMat a16 = retyped(p.A, p.dA, SPX_R_16F);
    CHECK_SPX_STATUS(try_analyze(h.get(), a16.get(), dense_descr(scratch, 32, 8, SPX_R_16BF).get(),
                                 C, F32, DEF), NS);
    CHECK_SPX_STATUS(try_analyze(h.get(), a16.get(), dense_descr(scratch, 32, 8, SPX_R_16F).get(),
                                 dense_descr(scratch, 16, 8, SPX_R_16BF).get(), F32, DEF), NS);
  }
  const auto qA = q.dA.get();
  const auto qB = q.dB.get();
  const auto qC = q.dC.get();
  const auto I32 = SPX_R_32I;
  CHECK_SPX_INVALID(try_analyze(h.get(), qA, B, qC, I32, DEF));  // int A, float B
  CHECK_SPX_INVALID(try_analyze(h.get(), A, qB, qC, I32, DEF));  // float A, int B
  CHECK_SPX_INVALID(try_analyze(h.get(), qA, B, qC, F32, DEF));
  CHECK_SPX_STATUS(try_analyze(h.get(), qA, qB, dense_descr(scratch, 16, 8, SPX_R_8I).get(), I32, DEF), NS);
  CHECK_SPX_STATUS(try_analyze(h.get(), qA, qB, dense_descr(scratch, 16, 8, SPX_R_16BF).get(), I32, DEF), NS);
  CHECK_SPX_STATUS(try_analyze(h.get(), qA, dense_descr(scratch, 32, 8, SPX_R_32I).get(), qC, I32, DEF), NS);
  {
    // 32I is not a sparse input type (values over the scratch buffer: 32I is wider than 8I).
    const UniqueSpMat a32i = retyped(q.A, q.dA, SPX_R_32I, scratch.get());
    CHECK_SPX_STATUS(try_analyze(h.get(), a32i.get(), qB, qC, I32, DEF), NS);
  }
  // A 4-bit output is not a type combination but an impossible output: INVALID_VALUE.
  CHECK_SPX_INVALID(try_analyze(h.get(), qA, qB, dense_descr(scratch, 16, 8, SPX_R_4I).get(), I32, DEF));

  // Nothing of the above touched C, and a valid call still works and clears the message.
  CHECK(untouched(p.dC, p.C));
  CHECK_SPX_STATUS(spxSpMM_analyze(h.get(), A, B, C, F32, DEF, &plan), SPX_STATUS_SUCCESS);
  CHECK_SPX_STATUS(spxPlanDestroy(plan), SPX_STATUS_SUCCESS);
}

TEST_CASE("forced family that cannot take the input", "[api][bad]") {
  UniqueHandle h = make_handle();
  Spmm f32 = make_spmm(800, csr_spec(), 16, 32, 8, SPX_R_32F, SPX_R_32F);
  Spmm i8 = make_spmm(801, csr_spec(), 16, 32, 8, SPX_R_8I, SPX_R_32I);
  Spmm nm8 = make_spmm(802, nm_spec(2, 4, 2), 16, 32, 8, SPX_R_8I, SPX_R_32I);
  const auto run = [&](const Spmm& s, spxSpMMAlg_t alg) {
    return try_analyze(h.get(), s.dA.get(), s.dB.get(), s.dC.get(), s.compute, alg);
  };
  // SR-BCRS is integer-only; ELL and NM take floats; SpTC reorder takes 16F / 16BF.
  CHECK_SPX_STATUS(run(f32, SPX_SPMM_ALG_SRBCRS), SPX_STATUS_NOT_SUPPORTED);
  CHECK_SPX_STATUS(run(i8, SPX_SPMM_ALG_ELL), SPX_STATUS_NOT_SUPPORTED);
  CHECK_SPX_STATUS(run(i8, SPX_SPMM_ALG_SPTC_REORDER), SPX_STATUS_NOT_SUPPORTED);
  CHECK_SPX_STATUS(run(nm8, SPX_SPMM_ALG_NM), SPX_STATUS_NOT_SUPPORTED);
  // The fallback takes every valid input.
  CHECK_SPX_STATUS(run(f32, SPX_SPMM_ALG_FALLBACK), SPX_STATUS_SUCCESS);
  CHECK_SPX_STATUS(run(i8, SPX_SPMM_ALG_FALLBACK), SPX_STATUS_SUCCESS);
  CHECK_SPX_STATUS(run(nm8, SPX_SPMM_ALG_FALLBACK), SPX_STATUS_SUCCESS);

  Sddmm sd = make_sddmm(803, csr_spec(), 16, 32, 8, SPX_R_32F, SPX_R_32F);
  CHECK_SPX_STATUS(try_analyze_sddmm(h.get(), sd.dA.get(), sd.dB.get(), sd.dC.get(), sd.compute,
                                     SPX_SPMM_ALG_SRBCRS),
                   SPX_STATUS_NOT_SUPPORTED);
  CHECK_SPX_STATUS(try_analyze_sddmm(h.get(), sd.dA.get(), sd.dB.get(), sd.dC.get(), sd.compute,
                                     SPX_SPMM_ALG_FALLBACK),
                   SPX_STATUS_SUCCESS);
}

TEST_CASE("spxSpMM bad arguments", "[api][bad]") {
  UniqueHandle h = make_handle();
  Spmm p = make_spmm(900, csr_spec(), 16, 32, 8, SPX_R_32F, SPX_R_32F);
  UniquePlan plan = analyze(h.get(), p);
  const size_t ws_bytes = workspace_bytes(plan.get());
  DeviceBuffer ws(ws_bytes);
  const DeviceBuffer scratch(1 << 20);
  const ScalarBytes alpha = make_scalar(0.5, SPX_R_32F), beta = make_scalar(-2, SPX_R_32F);
  const void* a = alpha.get();
  const void* b = beta.get();
  const auto P = plan.get();
  const auto A = p.dA.get();
  const auto B = p.dB.get();
  const auto C = p.dC.get();
  void* W = ws.get();

  check_null_arguments(spxSpMM, h.get(), P, a, A, B, b, C, W, ws_bytes);
  CHECK(untouched(p.dC, p.C));

  // A that is not the analyzed matrix: other shape, type or format.
  {
    Rng rng(901);
    const HostSparse A2 = random_csr(rng, 32, 32, operand_dist(SPX_R_32F, 32, SPX_R_32F));
    const DeviceSparse dA2 = to_device(A2);
    CHECK_SPX_INVALID(spxSpMM(h.get(), P, a, dA2.get(), B, b, C, W));
    const HostSparse A3 = random_csr(rng, 16, 64, operand_dist(SPX_R_32F, 64, SPX_R_32F));
    const DeviceSparse dA3 = to_device(A3);
    CHECK_SPX_INVALID(spxSpMM(h.get(), P, a, dA3.get(), B, b, C, W));
    const UniqueSpMat a16 = retyped(p.A, p.dA, SPX_R_16F);
    CHECK_SPX_INVALID(spxSpMM(h.get(), P, a, a16.get(), B, b, C, W));
    const HostSparse A4 = random_bcrs(rng, 16, 32, 1, operand_dist(SPX_R_32F, 32, SPX_R_32F));
    const DeviceSparse dA4 = to_device(A4);
    CHECK_SPX_INVALID(spxSpMM(h.get(), P, a, dA4.get(), B, b, C, W));
  }
  CHECK(untouched(p.dC, p.C));

  // B and C must keep the shapes, types and orders given to analyze.
  CHECK_SPX_INVALID(spxSpMM(h.get(), P, a, A, dense_descr(scratch, 33, 8, SPX_R_32F).get(), b, C, W));
  CHECK_SPX_INVALID(spxSpMM(h.get(), P, a, A, dense_descr(scratch, 32, 9, SPX_R_32F).get(), b, C, W));
  CHECK_SPX_INVALID(spxSpMM(h.get(), P, a, A,
                            dense_descr(scratch, 32, 8, SPX_R_32F, SPX_ORDER_COL).get(), b, C, W));
  CHECK_SPX_INVALID(spxSpMM(h.get(), P, a, A, dense_descr(scratch, 32, 8, SPX_R_16F).get(), b, C, W));
  CHECK(untouched(p.dC, p.C));
  {
    HostDense other = p.C;  // a second C buffer, same bytes, to see it stays untouched too
    const DeviceDense dOther = to_device(other, 256);
    const auto try_c = [&](int64_t rows, int64_t cols, spxDataType_t t, spxOrder_t o) {
      HostDense d;
      d.rows = rows;
      d.cols = cols;
      d.type = t;
      d.order = o;
      d.ld = min_ld(rows, cols, o);
      const UniqueDnMat descr = make_dense_descr(d, dOther.buf.get());
      return spxSpMM(h.get(), P, a, A, B, b, descr.get(), W);
    };
    CHECK_SPX_INVALID(try_c(17, 8, SPX_R_32F, SPX_ORDER_ROW));
    CHECK_SPX_INVALID(try_c(16, 9, SPX_R_32F, SPX_ORDER_ROW));
    CHECK_SPX_INVALID(try_c(15, 8, SPX_R_32F, SPX_ORDER_ROW));
    CHECK_SPX_INVALID(try_c(16, 8, SPX_R_32F, SPX_ORDER_COL));
    CHECK_SPX_INVALID(try_c(16, 8, SPX_R_16F, SPX_ORDER_ROW));
    CHECK(untouched(dOther, other));
  }

  // An SDDMM plan is not an SpMM plan.
  {
    Sddmm sd = make_sddmm(902, csr_spec(), 16, 32, 8, SPX_R_32F, SPX_R_32F);
    UniquePlan sddmm_plan = analyze(h.get(), sd);
    DeviceBuffer ws2(workspace_bytes(sddmm_plan.get()) + 256);
    CHECK_SPX_INVALID(spxSpMM(h.get(), sddmm_plan.get(), a, A, B, b, C, ws2.get()));
  }
  CHECK(untouched(p.dC, p.C));

  // After all that, the same call with the right arguments works.
  CHECK_SPX_STATUS(spxSpMM(h.get(), P, a, A, B, b, C, W), SPX_STATUS_SUCCESS);
  device_sync();
  check_spmm_result(p.A, p.B, p.C, {0.5, -2}, download(p.dC, p.C), "valid call after rejected ones");
}

TEST_CASE("spxPlanUpdateValues bad arguments", "[api][bad]") {
  UniqueHandle h = make_handle();
  Spmm p = make_spmm(1000, bcrs_spec(2), 16, 32, 8, SPX_R_32F, SPX_R_32F);
  UniquePlan plan = analyze(h.get(), p);
  CHECK_SPX_INVALID(spxPlanUpdateValues(nullptr, plan.get(), p.dA.get()));
  CHECK_SPX_INVALID(spxPlanUpdateValues(h.get(), nullptr, p.dA.get()));
  CHECK_SPX_INVALID(spxPlanUpdateValues(h.get(), plan.get(), nullptr));
  Rng rng(1001);
  const HostSparse other_shape = random_bcrs(rng, 32, 32, 2, operand_dist(SPX_R_32F, 32, SPX_R_32F));
  const DeviceSparse d1 = to_device(other_shape);
  CHECK_SPX_INVALID(spxPlanUpdateValues(h.get(), plan.get(), d1.get()));
  const HostSparse other_format = random_csr(rng, 16, 32, operand_dist(SPX_R_32F, 32, SPX_R_32F));
  const DeviceSparse d2 = to_device(other_format);
  CHECK_SPX_INVALID(spxPlanUpdateValues(h.get(), plan.get(), d2.get()));
  const UniqueSpMat other_type = retyped(p.A, p.dA, SPX_R_16F);
  CHECK_SPX_INVALID(spxPlanUpdateValues(h.get(), plan.get(), other_type.get()));
  {
    // An SDDMM plan keeps no values to update.
    Sddmm sd = make_sddmm(1002, csr_spec(), 16, 32, 8, SPX_R_32F, SPX_R_32F);
    UniquePlan sddmm_plan = analyze(h.get(), sd);
    CHECK_SPX_INVALID(spxPlanUpdateValues(h.get(), sddmm_plan.get(), sd.dC.get()));
    CHECK(untouched(sd.dC, sd.C));
  }
  // The plan is intact: it still computes with the analyzed values.
  run_and_check(h.get(), plan.get(), p, {1, 0}, p.A, "after rejected updates");
}

// ---------------------------------------------------------------- bad arguments: SDDMM

TEST_CASE("spxSDDMM_analyze bad arguments", "[api][bad]") {
  UniqueHandle h = make_handle();
  // A 16 x 32, B 32 x 8, C 16 x 8.
  Sddmm s = make_sddmm(1100, csr_spec(), 16, 32, 8, SPX_R_32F, SPX_R_32F);
  Sddmm q = make_sddmm(1101, csr_spec(), 16, 32, 8, SPX_R_8I, SPX_R_32I);
  const DeviceBuffer scratch(1 << 20);
  const auto A = s.dA.get();
  const auto B = s.dB.get();
  const auto C = s.dC.get();
  const auto F32 = SPX_R_32F;
  const auto DEF = SPX_SPMM_ALG_DEFAULT;

  CHECK_SPX_INVALID(try_analyze_sddmm(nullptr, A, B, C, F32, DEF));
  CHECK_SPX_INVALID(try_analyze_sddmm(h.get(), nullptr, B, C, F32, DEF));
  CHECK_SPX_INVALID(try_analyze_sddmm(h.get(), A, nullptr, C, F32, DEF));
  CHECK_SPX_INVALID(try_analyze_sddmm(h.get(), A, B, nullptr, F32, DEF));
  CHECK_SPX_INVALID(spxSDDMM_analyze(h.get(), A, B, C, F32, DEF, nullptr));
  CHECK_SPX_INVALID(try_analyze_sddmm(h.get(), A, B, C, kBadType, DEF));
  CHECK_SPX_INVALID(try_analyze_sddmm(h.get(), A, B, C, SPX_R_32I, DEF));
  CHECK_SPX_INVALID(try_analyze_sddmm(h.get(), q.dA.get(), q.dB.get(), q.dC.get(), SPX_R_32F, DEF));
  CHECK_SPX_INVALID(try_analyze_sddmm(h.get(), A, B, C, F32, kBadAlg));

  // Shapes.
  CHECK_SPX_INVALID(try_analyze_sddmm(h.get(), dense_descr(scratch, 16, 31, F32).get(), B, C, F32, DEF));
  CHECK_SPX_INVALID(try_analyze_sddmm(h.get(), dense_descr(scratch, 17, 32, F32).get(), B, C, F32, DEF));
  CHECK_SPX_INVALID(try_analyze_sddmm(h.get(), A, dense_descr(scratch, 33, 8, F32).get(), C, F32, DEF));
  CHECK_SPX_INVALID(try_analyze_sddmm(h.get(), A, dense_descr(scratch, 32, 9, F32).get(), C, F32, DEF));
  {
    Rng rng(1102);
    const DeviceSparse c2 = to_device(random_csr(rng, 16, 16, output_dist(SPX_R_32F)));
    CHECK_SPX_INVALID(try_analyze_sddmm(h.get(), A, B, c2.get(), F32, DEF));
    const DeviceSparse c3 = to_device(random_csr(rng, 8, 8, output_dist(SPX_R_32F)));
    CHECK_SPX_INVALID(try_analyze_sddmm(h.get(), A, B, c3.get(), F32, DEF));
  }

  // Types: different families INVALID_VALUE, combinations outside the table NOT_SUPPORTED,
  // a 4-bit output INVALID_VALUE.
  const auto NS = SPX_STATUS_NOT_SUPPORTED;
  CHECK_SPX_INVALID(try_analyze_sddmm(h.get(), A, dense_descr(scratch, 32, 8, SPX_R_8I).get(), C, F32, DEF));
  CHECK_SPX_INVALID(try_analyze_sddmm(h.get(), q.dA.get(), B, q.dC.get(), SPX_R_32I, DEF));
  CHECK_SPX_STATUS(try_analyze_sddmm(h.get(), dense_descr(scratch, 16, 32, SPX_R_16F).get(), B, C, F32, DEF), NS);
  {
    const UniqueSpMat c16 = retyped(s.C, s.dC, SPX_R_16F);  // 32F inputs need a 32F output
    CHECK_SPX_STATUS(try_analyze_sddmm(h.get(), A, B, c16.get(), F32, DEF), NS);
    const UniqueSpMat c32i = retyped(s.C, s.dC, SPX_R_32I);
    CHECK_SPX_STATUS(try_analyze_sddmm(h.get(), A, B, c32i.get(), F32, DEF), NS);
    const UniqueSpMat c8 = retyped(q.C, q.dC, SPX_R_8I);  // integer inputs: 32I / 32F / 16F
    CHECK_SPX_STATUS(try_analyze_sddmm(h.get(), q.dA.get(), q.dB.get(), c8.get(), SPX_R_32I, DEF), NS);
    const UniqueSpMat c4 = retyped(q.C, q.dC, SPX_R_4I);
    CHECK_SPX_INVALID(try_analyze_sddmm(h.get(), q.dA.get(), q.dB.get(), c4.get(), SPX_R_32I, DEF));
  }

  CHECK(untouched(s.dC, s.C));
  CHECK_SPX_STATUS(try_analyze_sddmm(h.get(), A, B, C, F32, DEF), SPX_STATUS_SUCCESS);
}

TEST_CASE("spxSDDMM bad arguments", "[api][bad]") {
  UniqueHandle h = make_handle();
  Sddmm s = make_sddmm(1200, csr_spec(), 16, 32, 8, SPX_R_32F, SPX_R_32F);
  UniquePlan plan = analyze(h.get(), s);
  const size_t ws_bytes = workspace_bytes(plan.get());
  DeviceBuffer ws(ws_bytes);
  const DeviceBuffer scratch(1 << 20);
  const ScalarBytes alpha = make_scalar(0.5, SPX_R_32F), beta = make_scalar(-2, SPX_R_32F);
  const void* a = alpha.get();
  const void* b = beta.get();
  const auto P = plan.get();
  const auto A = s.dA.get();
  const auto B = s.dB.get();
  const auto C = s.dC.get();
  void* W = ws.get();

  check_null_arguments(spxSDDMM, h.get(), P, a, A, B, b, C, W, ws_bytes);
  CHECK(untouched(s.dC, s.C));

  // A and B keep the analyzed shapes / types / orders.
  CHECK_SPX_INVALID(spxSDDMM(h.get(), P, a, dense_descr(scratch, 16, 31, SPX_R_32F).get(), B, b, C, W));
  CHECK_SPX_INVALID(spxSDDMM(h.get(), P, a, dense_descr(scratch, 16, 32, SPX_R_16F).get(), B, b, C, W));
  CHECK_SPX_INVALID(spxSDDMM(h.get(), P, a, dense_descr(scratch, 16, 32, SPX_R_32F, SPX_ORDER_COL).get(),
                             B, b, C, W));
  CHECK_SPX_INVALID(spxSDDMM(h.get(), P, a, A, dense_descr(scratch, 32, 9, SPX_R_32F).get(), b, C, W));
  CHECK_SPX_INVALID(spxSDDMM(h.get(), P, a, A, dense_descr(scratch, 32, 8, SPX_R_32F, SPX_ORDER_ROW).get(),
                             b, C, W));  // analyzed with B column-major
  CHECK(untouched(s.dC, s.C));

  // C must have the analyzed structure: another shape, another nnz, another type.
  {
    Rng rng(1201);
    HostSparse c2 = random_csr(rng, 16, 16, output_dist(SPX_R_32F));
    const DeviceSparse d2 = to_device(c2, 256);
    CHECK_SPX_INVALID(spxSDDMM(h.get(), P, a, A, B, b, d2.get(), W));
    CHECK(untouched(d2, c2));
    HostSparse c3 = random_csr(rng, 16, 8, output_dist(SPX_R_32F), 0.9);
    if (c3.idx.size() != s.C.idx.size()) {
      const DeviceSparse d3 = to_device(c3, 256);
      CHECK_SPX_INVALID(spxSDDMM(h.get(), P, a, A, B, b, d3.get(), W));
      CHECK(untouched(d3, c3));
    }
    const UniqueSpMat c16 = retyped(s.C, s.dC, SPX_R_16F);
    CHECK_SPX_INVALID(spxSDDMM(h.get(), P, a, A, B, b, c16.get(), W));
  }
  CHECK(untouched(s.dC, s.C));

  // An SpMM plan is not an SDDMM plan.
  {
    Spmm p = make_spmm(1202, csr_spec(), 16, 32, 8, SPX_R_32F, SPX_R_32F);
    UniquePlan spmm_plan = analyze(h.get(), p);
    DeviceBuffer ws2(workspace_bytes(spmm_plan.get()) + 256);
    CHECK_SPX_INVALID(spxSDDMM(h.get(), spmm_plan.get(), a, A, B, b, C, ws2.get()));
  }
  CHECK(untouched(s.dC, s.C));

  // The valid call.
  CHECK_SPX_STATUS(spxSDDMM(h.get(), P, a, A, B, b, C, W), SPX_STATUS_SUCCESS);
  device_sync();
  const HostSparse got = download_values(s.dC, s.C);
  const CheckResult r = check_sparse_output(got, s.C, ref::sddmm(s.A, s.B, s.C, {0.5, -2}));
  INFO(r.report);
  CHECK(r.ok);
}

// ---------------------------------------------------------------- bad device data

// Analyze reads the sparse structure from the device and must reject out-of-range indices,
// decreasing row pointers and malformed N:M positions with INVALID_VALUE, both for SpMM's A and
// for SDDMM's C.
TEST_CASE("analyze rejects bad structure in device data", "[api][bad]") {
  UniqueHandle h = make_handle();
  struct Tamper {
    const char* what;
    FormatSpec f;
    void (*edit)(HostSparse&);
  };
  const Tamper cases[] = {
      {"CSR column == cols", csr_spec(), [](HostSparse& s) { s.idx[s.idx.size() / 2] = static_cast<int32_t>(s.cols); }},
      {"CSR column -1", csr_spec(), [](HostSparse& s) { s.idx[0] = -1; }},
      {"CSR column huge", csr_spec(), [](HostSparse& s) { s.idx.back() = 1 << 30; }},
      {"CSR decreasing row_ptr", csr_spec(),
       [](HostSparse& s) {
         const size_t r = s.ptr.size() / 2;
         s.ptr[r] = s.ptr[r + 1] + 1;
       }},
      {"CSR row_ptr[0] != 0", csr_spec(), [](HostSparse& s) { s.ptr[0] = 1; }},
      {"CSR row_ptr[rows] > nnz", csr_spec(), [](HostSparse& s) { s.ptr.back() += 1; }},
      {"BCRS block column == cols", bcrs_spec(2), [](HostSparse& s) { s.idx[0] = static_cast<int32_t>(s.cols); }},
      {"BCRS block column -1", bcrs_spec(2), [](HostSparse& s) { s.idx.back() = -1; }},
      {"BCRS decreasing block_row_ptr", bcrs_spec(2),
       [](HostSparse& s) {
         const size_t r = s.ptr.size() / 2;
         s.ptr[r] = s.ptr[r + 1] + 1;
       }},
      {"NM index == m", nm_spec(2, 4, 2), [](HostSparse& s) { s.idx[1] = static_cast<int32_t>(s.m); }},
      {"NM index -1", nm_spec(2, 4, 2), [](HostSparse& s) { s.idx[2] = -1; }},
      {"NM repeated index in a window", nm_spec(2, 4, 2), [](HostSparse& s) { s.idx[1] = s.idx[0]; }},
      {"NM decreasing indices in a window", nm_spec(2, 4, 2),
       [](HostSparse& s) { std::swap(s.idx[4], s.idx[5]); }},
      {"ELL column == cols", ell_spec(), [](HostSparse& s) { s.idx[0] = static_cast<int32_t>(s.cols); }},
      {"ELL column -2", ell_spec(), [](HostSparse& s) { s.idx[0] = -2; }},
  };
  uint64_t seed = 1300;
  for (const Tamper& t : cases) {
    INFO(t.what);
    // SpMM: A 16 x 32 (with a non-empty middle row so the row_ptr edits bite).
    Rng rng(seed++);
    HostSparse A = random_sparse(rng, t.f, 16, 32, operand_dist(SPX_R_32F, 32, SPX_R_32F), 0.5);
    t.edit(A);
    const DeviceSparse dA = to_device(A);
    const HostDense B = random_dense(rng, 32, 8, SPX_ORDER_ROW, operand_dist(SPX_R_32F, 32, SPX_R_32F));
    HostDense C = random_dense(rng, 16, 8, SPX_ORDER_ROW, output_dist(SPX_R_32F));
    const DeviceDense dB = to_device(B), dC = to_device(C, 256);
    CHECK_SPX_INVALID(try_analyze(h.get(), dA.get(), dB.get(), dC.get(), SPX_R_32F, SPX_SPMM_ALG_DEFAULT));
    CHECK_SPX_INVALID(try_analyze(h.get(), dA.get(), dB.get(), dC.get(), SPX_R_32F, SPX_SPMM_ALG_FALLBACK));
    CHECK(untouched(dC, C));

    // SDDMM: the same structure as C (16 x 32), A 16 x 8, B 8 x 32.
    HostSparse Cs = A;
    const HostDense As = random_dense(rng, 16, 8, SPX_ORDER_ROW, operand_dist(SPX_R_32F, 8, SPX_R_32F));
    const HostDense Bs = random_dense(rng, 8, 32, SPX_ORDER_COL, operand_dist(SPX_R_32F, 8, SPX_R_32F));
    const DeviceDense dAs = to_device(As), dBs = to_device(Bs);
    const DeviceSparse dCs = to_device(Cs, 256);
    CHECK_SPX_INVALID(try_analyze_sddmm(h.get(), dAs.get(), dBs.get(), dCs.get(), SPX_R_32F,
                                        SPX_SPMM_ALG_DEFAULT));
    CHECK(untouched(dCs, Cs));
  }
  // The handle is still usable afterwards.
  Spmm ok = make_spmm(1399, csr_spec(), 16, 32, 8, SPX_R_32F, SPX_R_32F);
  UniquePlan plan = analyze(h.get(), ok);
  run_and_check(h.get(), plan.get(), ok, {1, 0}, ok.A, "after rejected structures");
}
