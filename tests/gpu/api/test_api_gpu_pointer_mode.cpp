// The C API on a real device, pointer modes: alpha and beta read from device memory
// (SPX_POINTER_MODE_DEVICE) for float and integer outputs, new values on every run of one plan.
// (The host mode's scalars, read before spxSpMM returns, are checked with the stream tests.)
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>

#include "api_fixtures.hpp"
#include "runner.hpp"
#include "spx_catch.hpp"

using namespace spx::test;
using namespace spx::test::api;
namespace ref = spx::ref;

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
