// The C API on a real device, misuse that must give SPX_STATUS_INVALID_VALUE (never a device
// fault, a segmentation fault or a wrong result), for every kernel family: operands that start
// off their element alignment, host memory where the kernels read (B or C switched after
// analyze), alpha / beta in the other pointer mode's memory, a workspace off its alignment.
// After every refusal the same plan must still compute the right product: a device fault would
// have poisoned the context and failed that run.
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "api_fixtures.hpp"
#include "runner.hpp"
#include "spx_catch.hpp"

using namespace spx::test;
using namespace spx::test::api;
namespace ref = spx::ref;

namespace {

void* offset(const void* p, size_t bytes) {
  return static_cast<uint8_t*>(const_cast<void*>(p)) + bytes;
}

int bytes_of(spxDataType_t t) { return t == SPX_R_32F || t == SPX_R_32I ? 4 : t == SPX_R_8I ? 1 : 2; }

/// The last error message contains `part`.
void message_names(const std::string& part) {
  const std::string msg = spxGetLastErrorMessage();
  INFO("message: " << msg);
  CHECK(msg.find(part) != std::string::npos);
}

}  // namespace

TEST_CASE("misuse of pointers and workspace is INVALID_VALUE in every family", "[api][misuse]") {
  UniqueHandle h = make_handle();
  uint64_t seed = 4100;
  for (const FamilyCase& c : kFamilies) {
    INFO(c.name);
    Spmm p = make_spmm(seed++, c.f, 64, 128, 32, c.in, c.out, SPX_ORDER_COL, SPX_ORDER_ROW);
    spxPlan_t raw = nullptr;
    REQUIRE_SPX(spxSpMM_analyze(h.get(), p.dA.get(), p.dB.get(), p.dC.get(), p.compute, c.alg, &raw));
    UniquePlan plan(raw);
    spxPlanInfo_t info;
    REQUIRE_SPX(spxPlanGetInfo(plan.get(), &info));
    CHECK(info.family == c.alg);
    const size_t ws_bytes = workspace_bytes(plan.get());
    DeviceBuffer ws(ws_bytes + 512);
    const ScalarBytes alpha = make_scalar(2.0, c.out), beta = make_scalar(-1.0, c.out);
    const ref::Scalars sc{2.0, -1.0};

    // A's values off their element alignment: refused at analyze.
    if (bytes_of(c.in) > 1) {
      UniqueSpMat bad = make_sparse_descr(p.A, p.dA.ptr.get(), p.dA.idx.get(),
                                          offset(p.dA.values.get(), 1));
      spxPlan_t q = nullptr;
      CHECK_SPX_INVALID(spxSpMM_analyze(h.get(), bad.get(), p.dB.get(), p.dC.get(), p.compute,
                                        c.alg, &q));
      CHECK(q == nullptr);
      message_names("aligned");
      CHECK_SPX_INVALID(spxPlanUpdateValues(h.get(), plan.get(), bad.get()));
    }
    // B and C off their element alignment (one byte), at execute.
    for (int which = 0; which < 2; ++which) {
      const HostDense& like = which == 0 ? p.B : p.C;
      const DeviceDense& d = which == 0 ? p.dB : p.dC;
      if (bytes_of(like.type) == 1) continue;
      UniqueDnMat bad = make_dense_descr(like, offset(d.buf.get(), 1));
      CHECK_SPX_INVALID(spxSpMM(h.get(), plan.get(), alpha.get(), p.dA.get(),
                                which == 0 ? bad.get() : p.dB.get(), beta.get(),
                                which == 0 ? p.dC.get() : bad.get(), ws.get()));
      message_names("aligned");
    }
    // B and C switched to host memory after analyze.
    for (int which = 0; which < 2; ++which) {
      HostDense host_copy = which == 0 ? p.B : p.C;
      UniqueDnMat bad = make_dense_descr(host_copy, host_copy.data.data());
      CHECK_SPX_INVALID(spxSpMM(h.get(), plan.get(), alpha.get(), p.dA.get(),
                                which == 0 ? bad.get() : p.dB.get(), beta.get(),
                                which == 0 ? p.dC.get() : bad.get(), ws.get()));
      message_names("host memory");
    }
    // alpha / beta: device memory in HOST mode, host memory in DEVICE mode.
    {
      DeviceBuffer d_scalars(16);
      d_scalars.upload(alpha.bytes, 8, 0);
      d_scalars.upload(beta.bytes, 8, 8);
      CHECK_SPX_INVALID(spxSpMM(h.get(), plan.get(), d_scalars.get(), p.dA.get(), p.dB.get(),
                                beta.get(), p.dC.get(), ws.get()));
      message_names("pointer mode is HOST");
      CHECK_SPX_INVALID(spxSpMM(h.get(), plan.get(), alpha.get(), p.dA.get(), p.dB.get(),
                                offset(d_scalars.get(), 8), p.dC.get(), ws.get()));
      REQUIRE_SPX(spxSetPointerMode(h.get(), SPX_POINTER_MODE_DEVICE));
      CHECK_SPX_INVALID(spxSpMM(h.get(), plan.get(), alpha.get(), p.dA.get(), p.dB.get(),
                                offset(d_scalars.get(), 8), p.dC.get(), ws.get()));
      message_names("pointer mode is DEVICE");
      REQUIRE_SPX(spxSetPointerMode(h.get(), SPX_POINTER_MODE_HOST));
    }
    // A workspace off its alignment (where the plan needs one).
    if (ws_bytes > 0) {
      CHECK_SPX_INVALID(spxSpMM(h.get(), plan.get(), alpha.get(), p.dA.get(), p.dB.get(),
                                beta.get(), p.dC.get(), offset(ws.get(), 4)));
      message_names("workspace");
    }
    // Nothing ran, nothing was poisoned: the plan still computes the right product.
    const HostDense c_old = download(p.dC, p.C);
    REQUIRE_SPX(spxSpMM(h.get(), plan.get(), alpha.get(), p.dA.get(), p.dB.get(), beta.get(),
                        p.dC.get(), ws.get()));
    device_sync();
    check_spmm_result(p.A, p.B, c_old, sc, download(p.dC, p.C), std::string(c.name) + " after misuse");
    CHECK(p.dC.buf.tail_intact());
  }
}

TEST_CASE("B and C one element past a 16-byte boundary compute right in every family",
          "[api][misuse]") {
  // Element-aligned views (a tensor's slice starting at an odd element) are valid operands: the
  // kernels' vector loads must not assume more than the element alignment.
  UniqueHandle h = make_handle();
  uint64_t seed = 4150;
  for (const FamilyCase& c : kFamilies) {
    for (const spxOrder_t b_order : {SPX_ORDER_ROW, SPX_ORDER_COL}) {
      INFO(c.name << ", B " << (b_order == SPX_ORDER_ROW ? "row" : "column") << "-major");
      Spmm p = make_spmm(seed++, c.f, 64, 128, 32, c.in, c.out, b_order, SPX_ORDER_ROW);
      spxPlan_t raw = nullptr;
      REQUIRE_SPX(
          spxSpMM_analyze(h.get(), p.dA.get(), p.dB.get(), p.dC.get(), p.compute, c.alg, &raw));
      UniquePlan plan(raw);
      // Copies of B and C placed one element into fresh buffers.
      const size_t b_shift = static_cast<size_t>(bytes_of(p.B.type));
      const size_t c_shift = static_cast<size_t>(bytes_of(p.C.type));
      DeviceBuffer b_buf(p.B.data.size() + 64), c_buf(p.C.data.size() + 64);
      b_buf.upload(p.B.data.data(), p.B.data.size(), b_shift);
      c_buf.upload(p.C.data.data(), p.C.data.size(), c_shift);
      UniqueDnMat b_view = make_dense_descr(p.B, offset(b_buf.get(), b_shift));
      UniqueDnMat c_view = make_dense_descr(p.C, offset(c_buf.get(), c_shift));
      DeviceBuffer ws(workspace_bytes(plan.get()));
      const ScalarBytes alpha = make_scalar(2.0, c.out), beta = make_scalar(-1.0, c.out);
      REQUIRE_SPX(spxSpMM(h.get(), plan.get(), alpha.get(), p.dA.get(), b_view.get(), beta.get(),
                          c_view.get(), ws.get()));
      device_sync();
      HostDense got = p.C;
      REQUIRE(cudaMemcpy(got.data.data(), offset(c_buf.get(), c_shift), got.data.size(),
                         cudaMemcpyDeviceToHost) == cudaSuccess);
      check_spmm_result(p.A, p.B, p.C, ref::Scalars{2.0, -1.0}, got,
                        std::string(c.name) + " with B and C one element off");
    }
  }
}

TEST_CASE("an SDDMM output in host memory or off its alignment is INVALID_VALUE", "[api][misuse]") {
  UniqueHandle h = make_handle();
  Sddmm s = make_sddmm(4200, csr_spec(), 32, 48, 40, SPX_R_32F, SPX_R_32F);
  UniquePlan plan = analyze(h.get(), s);
  DeviceBuffer ws(workspace_bytes(plan.get()));
  const float one = 1.0f, zero = 0.0f;
  UniqueSpMat misaligned = make_sparse_descr(s.C, s.dC.ptr.get(), s.dC.idx.get(),
                                             offset(s.dC.values.get(), 2));
  CHECK_SPX_INVALID(spxSDDMM(h.get(), plan.get(), &one, s.dA.get(), s.dB.get(), &zero,
                             misaligned.get(), ws.get()));
  message_names("aligned");
  std::vector<uint8_t> host_values = s.C.values;
  UniqueSpMat on_host = make_sparse_descr(s.C, s.dC.ptr.get(), s.dC.idx.get(), host_values.data());
  CHECK_SPX_INVALID(spxSDDMM(h.get(), plan.get(), &one, s.dA.get(), s.dB.get(), &zero,
                             on_host.get(), ws.get()));
  message_names("host memory");
  REQUIRE_SPX(spxSDDMM(h.get(), plan.get(), &one, s.dA.get(), s.dB.get(), &zero, s.dC.get(),
                       ws.get()));
  device_sync();
}
