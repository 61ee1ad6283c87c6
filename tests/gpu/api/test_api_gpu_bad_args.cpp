// The C API on a real device, bad arguments: a walk over every entry point that needs a handle or
// device data (spxSpMM_search, spxSpMM_analyze, spxSpMM, spxPlanUpdateValues, spxSDDMM_analyze,
// spxSDDMM, and analyze reading bad structure from the device), each asserting the exact status,
// a non-empty message, and that the output was not touched by the rejected call.
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <string>

#include "api_fixtures.hpp"
#include "runner.hpp"
#include "spx_catch.hpp"

using namespace spx::test;
using namespace spx::test::api;
namespace ref = spx::ref;

namespace {

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
