// The SR-BCRS SDDMM (quantized C = alpha * (A * B) .* spy(C) + beta * C on int8 tensor cores)
// against the CPU reference: L8-R8, L4-R4, the mixed 8/4-bit pairs (signed and unsigned) and the
// emulated L16-R16; CSR and BCRS with V = 1, 2, 4, 8; A and B in both orders (row-major A and
// column-major B read in place, the others copied k-contiguous into the workspace), shifted and
// odd-pitch operands; outputs 32I (exactly equal to the wrapping integer reference, extremes
// included) and 32F / 16F (alpha the dequantization scale, within spx::ref::tolerance, which
// covers the kernel's three fp32 roundings: float(acc), alpha * ., fmaf(beta, old, .)); k and n
// odd, k below one mma, one step and many steps; empty vector-rows; alpha / beta with beta = 0 on
// a NaN-poisoned C; bytes after C's values untouched; device pointer mode; DEFAULT choosing the
// family; refusals and bad arguments with exact statuses.
#include <catch2/catch.hpp>
#include <cstring>
#include <string>
#include <vector>

#include "core/dtype.hpp"
#include "runner.hpp"
#include "spx_catch.hpp"

using namespace spx::test;
namespace ref = spx::ref;

namespace {

constexpr size_t kGuard = 256;  // bytes after C's values that must stay untouched

struct Case {
  HostDense A, B;
  HostSparse C;
  ref::Scalars s;
  std::string what;
};

struct RunOptions {
  spxSpMMAlg_t alg = SPX_SPMM_ALG_SRBCRS;
  bool device_scalars = false;
  size_t a_offset = 0, b_offset = 0;  ///< bytes A's / B's data are shifted from an aligned base
};

/// A dense operand uploaded `offset` bytes past an aligned allocation.
struct ShiftedDense {
  DeviceBuffer buf;
  UniqueDnMat descr;
};
ShiftedDense upload_shifted(const HostDense& d, size_t offset) {
  ShiftedDense s;
  s.buf = DeviceBuffer(d.data.size() + 16);
  s.buf.upload(d.data.data(), d.data.size(), offset);
  s.descr = make_dense_descr(d, static_cast<uint8_t*>(s.buf.get()) + offset);
  return s;
}

/// Analyzes and runs one case; checks the result, the guard after C's values, the structure and
/// the plan info. Returns the plan info.
spxPlanInfo_t run_case(spxHandle_t h, const Case& c, const RunOptions& o = {}) {
  INFO(c.what << (o.device_scalars ? ", device scalars" : "")
              << (o.a_offset ? ", A shifted by " + std::to_string(o.a_offset) + " B" : "")
              << (o.b_offset ? ", B shifted by " + std::to_string(o.b_offset) + " B" : ""));
  const ref::Expected e = ref::sddmm(c.A, c.B, c.C, c.s);
  if (c.s.alpha != 0) REQUIRE_FALSE(vacuous_expectation(e));
  const ShiftedDense A = upload_shifted(c.A, o.a_offset);
  const ShiftedDense B = upload_shifted(c.B, o.b_offset);
  HostSparse c_init = c.C;
  if (c.s.beta == 0) poison_sparse_values(c_init);
  DeviceSparse C = to_device(c_init, kGuard);

  spxPlan_t raw = nullptr;
  REQUIRE_SPX(spxSDDMM_analyze(h, A.descr.get(), B.descr.get(), C.get(), SPX_R_32I, o.alg, &raw));
  UniquePlan plan(raw);
  spxPlanInfo_t info{};
  REQUIRE_SPX(spxPlanGetInfo(plan.get(), &info));
  INFO("kernel " << info.kernel << " [" << info.config << "]");
  CHECK(info.family == SPX_SPMM_ALG_SRBCRS);
  const std::string kernel = info.kernel, config = info.config;
  CHECK(kernel.rfind("srbcrs_sddmm_l", 0) == 0);
  CHECK(config.find("m16n8k32 transposed") != std::string::npos);
  const int ab = spx::dtype::bits(c.A.type), bb = spx::dtype::bits(c.B.type);
  CHECK((config.find("int4 unpacked to int8") != std::string::npos) == (ab == 4 || bb == 4));
  CHECK((config.find("16-bit emulated") != std::string::npos) == (ab == 16));
  CHECK(info.nnz == c.C.value_slots());
  CHECK(info.padded_nnz >= info.nnz);
  CHECK(info.padded_nnz % (32 * c.C.vec_len) == 0);
  CHECK(info.candidates == 1);
  size_t ws = 0;
  REQUIRE_SPX(spxPlanGetWorkspaceSize(plan.get(), &ws));
  CHECK(ws == info.workspace_bytes);
  DeviceBuffer workspace(info.workspace_bytes);

  const ScalarBytes alpha = make_scalar(c.s.alpha, c.C.type), beta = make_scalar(c.s.beta, c.C.type);
  DeviceBuffer d_alpha, d_beta;
  const void* pa = alpha.get();
  const void* pb = beta.get();
  if (o.device_scalars) {
    d_alpha = DeviceBuffer(std::vector<uint8_t>(alpha.bytes, alpha.bytes + 4));
    d_beta = DeviceBuffer(std::vector<uint8_t>(beta.bytes, beta.bytes + 4));
    pa = d_alpha.get();
    pb = d_beta.get();
    REQUIRE_SPX(spxSetPointerMode(h, SPX_POINTER_MODE_DEVICE));
  }
  const spxStatus_t st =
      spxSDDMM(h, plan.get(), pa, A.descr.get(), B.descr.get(), pb, C.get(), workspace.get());
  spxSetPointerMode(h, SPX_POINTER_MODE_HOST);
  REQUIRE(st == SPX_STATUS_SUCCESS);
  device_sync();
  const HostSparse got = download_values(C, c_init);
  const CheckResult r = check_sparse_output(got, c_init, e);
  INFO(r.report);
  CHECK(r.ok);
  CHECK(C.values.tail_intact());
  return info;
}

struct TypePair {
  spxDataType_t a, b;
};
// L8-R8 and L4-R4 signed and unsigned, the 8/4-bit mixes, and the emulated L16-R16.
const TypePair kPairs[] = {{SPX_R_8I, SPX_R_8I}, {SPX_R_8U, SPX_R_8U}, {SPX_R_4I, SPX_R_4I},
                           {SPX_R_4U, SPX_R_4U}, {SPX_R_8I, SPX_R_8U}, {SPX_R_8U, SPX_R_8I},
                           {SPX_R_4I, SPX_R_4U}, {SPX_R_4U, SPX_R_4I}, {SPX_R_8I, SPX_R_4I},
                           {SPX_R_4I, SPX_R_8I}, {SPX_R_8U, SPX_R_4U}, {SPX_R_4U, SPX_R_8I},
                           {SPX_R_16I, SPX_R_16I}};
const spxDataType_t kOutputs[] = {SPX_R_32I, SPX_R_32F, SPX_R_16F};

/// (vector-rows, k, n): k below one mma (32), at a step (64), odd, and many steps; n odd; an odd
/// number of vector-rows (the grid's last block partly empty); rows longer than one 32-slot task.
struct Dims {
  int64_t vector_rows, k, n;
};
const Dims kDims[] = {{5, 1, 1},    {7, 33, 7},   {13, 100, 65}, {9, 257, 130},
                      {3, 64, 64},  {17, 40, 300}, {2, 600, 17},  {11, 31, 129}};

FormatSpec format_for(int64_t v) { return v == 0 ? csr_spec() : bcrs_spec(v); }  // 0: CSR

/// a_pad / b_pad: ld padding of A and B (< 0: pitch rounded up to 16 bytes, read in place when
/// the order is k-contiguous).
Case make_case(Rng& rng, const FormatSpec& f, TypePair tp, spxDataType_t out, const Dims& d,
               spxOrder_t ao, spxOrder_t bo, int ab, int64_t pad, double density = 0.3) {
  Case c;
  const int64_t m = d.vector_rows * f.row_unit();
  const auto pad_for = [&](spxDataType_t t, int64_t inner) {
    if (pad >= 0) return pad;  // random_dense rounds a 4-bit ld up to even
    const int64_t per16 = 128 / spx::dtype::bits(t);  // elements per 16 bytes
    return round_up(inner, per16) - inner;
  };
  const ValueDist da = operand_dist(tp.a, d.k, out), db = operand_dist(tp.b, d.k, out);
  // A m x k: its ld covers k when row-major, m when column-major; B k x n: n / k.
  c.A = random_dense(rng, m, d.k, ao, da, pad_for(tp.a, ao == SPX_ORDER_ROW ? d.k : m));
  c.B = random_dense(rng, d.k, d.n, bo, db, pad_for(tp.b, bo == SPX_ORDER_COL ? d.k : d.n));
  c.C = random_sparse(rng, f, m, d.n, output_dist(out), density);  // values: C's old values
  const auto& abs = alpha_betas(out);
  c.s = {abs[ab % abs.size()].alpha, abs[ab % abs.size()].beta};
  c.what = "SDDMM " + f.name() + " A " + type_name(tp.a) + " " + order_name(ao) + " B " +
           type_name(tp.b) + " " + order_name(bo) + " C " + type_name(out) + " " +
           std::to_string(m) + "x" + std::to_string(d.k) + "x" + std::to_string(d.n) + " alpha " +
           std::to_string(c.s.alpha) + " beta " + std::to_string(c.s.beta) + " pad " +
           std::to_string(pad);
  return c;
}

}  // namespace

TEST_CASE("SR-BCRS SDDMM every type pair, format and output (rotating shapes, orders, scalars)",
          "[srbcrs][sddmm]") {
  UniqueHandle h = make_handle();
  uint64_t seed = 61000;
  int variant = 0;
  for (const TypePair& tp : kPairs)
    for (int64_t v : {0, 1, 2, 4, 8})
      for (spxDataType_t out : kOutputs)
        for (int rep = 0; rep < 2; ++rep) {
          Rng rng(seed++);
          // Every 64 variants see each of the 8 shapes with each (pad, A order, B order); half of
          // them pad the pitches to 16 bytes (read in place when A is row-major / B col-major).
          const Dims& d = kDims[(variant + variant / 8) % 8];
          const int64_t pad = variant % 2 == 0 ? -1 : (variant % 5 == 2 ? 3 : 0);
          const spxOrder_t ao = (variant / 2) % 4 == 3 ? SPX_ORDER_COL : SPX_ORDER_ROW;
          const spxOrder_t bo = (variant / 2) % 4 == 2 ? SPX_ORDER_ROW : SPX_ORDER_COL;
          run_case(h.get(), make_case(rng, format_for(v), tp, out, d, ao, bo, variant, pad));
          ++variant;
        }
}

TEST_CASE("SR-BCRS SDDMM L8-R8, L4-R4, L16-R16: every V, both orders of A and B, every output",
          "[srbcrs][sddmm]") {
  UniqueHandle h = make_handle();
  uint64_t seed = 62000;
  int variant = 0;
  for (const TypePair& tp : {TypePair{SPX_R_8I, SPX_R_8I}, TypePair{SPX_R_4I, SPX_R_4I},
                             TypePair{SPX_R_16I, SPX_R_16I}})
    for (int64_t v : {1, 2, 4, 8})
      for (spxDataType_t out : kOutputs)
        for (spxOrder_t ao : {SPX_ORDER_ROW, SPX_ORDER_COL})
          for (spxOrder_t bo : {SPX_ORDER_ROW, SPX_ORDER_COL}) {
            Rng rng(seed++);
            const int64_t pad = variant % 3 == 0 ? -1 : (variant % 3 == 1 ? 2 : 0);
            run_case(h.get(), make_case(rng, bcrs_spec(v), tp, out,
                                        kDims[(variant + variant / 4) % 8], ao, bo, variant, pad));
            ++variant;
          }
}

TEST_CASE("SR-BCRS SDDMM extremes of every type, exact in wrapping int32", "[srbcrs][sddmm]") {
  // The most negative and largest values (16I: -32768 in both slices' products), k long enough
  // that the int32 sums wrap: the result must still equal the reference modulo 2^32.
  UniqueHandle h = make_handle();
  uint64_t seed = 63000;
  for (const TypePair& tp : kPairs)
    for (int64_t v : {1, 8})
      for (int64_t k : {96, 4100}) {
        Rng rng(seed++);
        ValueDist da{tp.a}, db{tp.b};
        da.extremes = db.extremes = true;
        Case c;
        const int64_t m = 6 * v, n = 70;
        c.A = random_dense(rng, m, k, SPX_ORDER_ROW, da, v == 8 ? 16 : 0);
        c.B = random_dense(rng, k, n, SPX_ORDER_COL, db);
        c.C = random_bcrs(rng, m, n, v, output_dist(SPX_R_32I), 0.5);
        c.s = {-1, 1};
        c.what = "extremes BCRS(V=" + std::to_string(v) + ") A " + type_name(tp.a) + " B " +
                 type_name(tp.b) + " k " + std::to_string(k);
        run_case(h.get(), c);
      }
}

TEST_CASE("SR-BCRS SDDMM empty pattern, empty rows only, long rows and a large problem",
          "[srbcrs][sddmm]") {
  UniqueHandle h = make_handle();
  Rng rng(64000);
  for (spxDataType_t out : kOutputs) {
    // No vectors at all: nothing to compute, nothing written.
    Case c = make_case(rng, bcrs_spec(4), {SPX_R_8I, SPX_R_8I}, out, {8, 50, 90}, SPX_ORDER_ROW,
                       SPX_ORDER_COL, 1, -1, 0.0);
    REQUIRE(c.C.idx.empty());
    c.s = {1, 0};
    const DeviceDense A = to_device(c.A), B = to_device(c.B);
    DeviceSparse C = to_device(c.C, kGuard);
    spxPlan_t raw = nullptr;
    REQUIRE_SPX(spxSDDMM_analyze(h.get(), A.get(), B.get(), C.get(), SPX_R_32I,
                                 SPX_SPMM_ALG_SRBCRS, &raw));
    UniquePlan plan(raw);
    size_t ws_bytes = 0;
    REQUIRE_SPX(spxPlanGetWorkspaceSize(plan.get(), &ws_bytes));
    DeviceBuffer ws(ws_bytes);
    const ScalarBytes one = make_scalar(1, out), zero = make_scalar(0, out);
    REQUIRE_SPX(spxSDDMM(h.get(), plan.get(), one.get(), A.get(), B.get(), zero.get(), C.get(),
                         ws.get()));
    device_sync();
    CHECK(C.values.tail_intact());
  }
  for (const TypePair& tp : {TypePair{SPX_R_8I, SPX_R_8I}, TypePair{SPX_R_4U, SPX_R_4I},
                             TypePair{SPX_R_16I, SPX_R_16I}}) {
    // 2048 x 512 x 1000, V = 8, 30 %: 256 vector-rows, rows of up to 1000 vectors (32 tasks),
    // random_bcrs's empty (r % 5 == 1) and full (r % 11 == 3) vector-rows.
    Case c = make_case(rng, bcrs_spec(8), tp, SPX_R_32I, {256, 512, 1000}, SPX_ORDER_ROW,
                       SPX_ORDER_COL, 0, -1, 0.3);
    run_case(h.get(), c);
  }
}

TEST_CASE("SR-BCRS SDDMM operands not 16-byte aligned, device scalars", "[srbcrs][sddmm]") {
  UniqueHandle h = make_handle();
  uint64_t seed = 65000;
  for (const TypePair& tp : {TypePair{SPX_R_8I, SPX_R_8I}, TypePair{SPX_R_4I, SPX_R_4I},
                             TypePair{SPX_R_8U, SPX_R_4U}, TypePair{SPX_R_16I, SPX_R_16I}})
    for (spxDataType_t out : kOutputs) {
      Rng rng(seed++);
      // k-contiguous orders with an odd pitch (through the copy), then aligned pitches with a
      // shifted base, then device scalars.
      Case c = make_case(rng, bcrs_spec(4), tp, out, {9, 200, 77}, SPX_ORDER_ROW, SPX_ORDER_COL,
                         1, spx::dtype::bits(tp.a) == 4 ? 2 : 1);
      run_case(h.get(), c);
      Case aligned = make_case(rng, bcrs_spec(2), tp, out, {9, 200, 77}, SPX_ORDER_ROW,
                               SPX_ORDER_COL, 2, -1);
      RunOptions shifted;
      shifted.a_offset = spx::dtype::bits(tp.a) == 16 ? 2 : 1;
      shifted.b_offset = 8;
      run_case(h.get(), aligned, shifted);
      RunOptions dev;
      dev.device_scalars = true;
      run_case(h.get(), aligned, dev);
    }
}

TEST_CASE("SR-BCRS SDDMM under DEFAULT, refusals and bad arguments", "[srbcrs][sddmm]") {
  UniqueHandle h = make_handle();
  Rng rng(66000);
  // DEFAULT takes the family for CSR and BCRS(V <= 8) of 8- / 4-bit and 16I-16I integers.
  for (int64_t v : {0, 1, 8})
    for (const TypePair& tp : {TypePair{SPX_R_8I, SPX_R_8I}, TypePair{SPX_R_16I, SPX_R_16I}}) {
      Case c = make_case(rng, format_for(v), tp, SPX_R_32I, {6, 90, 40}, SPX_ORDER_ROW,
                         SPX_ORDER_COL, 1, 0);
      RunOptions o;
      o.alg = SPX_SPMM_ALG_DEFAULT;
      run_case(h.get(), c, o);
    }
  // Refused inputs: DEFAULT runs the fallback (and is right), forced SRBCRS is NOT_SUPPORTED.
  struct Refused {
    FormatSpec f;
    spxDataType_t a, b, out;
  };
  const Refused refused[] = {{bcrs_spec(16), SPX_R_8I, SPX_R_8I, SPX_R_32I},
                             {bcrs_spec(4), SPX_R_16I, SPX_R_8I, SPX_R_32I},
                             {csr_spec(), SPX_R_8I, SPX_R_16I, SPX_R_32F},
                             {nm_spec(2, 4, 2), SPX_R_8I, SPX_R_8I, SPX_R_32I},
                             {ell_spec(), SPX_R_4I, SPX_R_4I, SPX_R_16F}};
  for (const Refused& r : refused) {
    INFO(r.f.name() << " A " << type_name(r.a) << " B " << type_name(r.b));
    SddmmProblem p;
    const int64_t m = 4 * r.f.row_unit(), k = 64, n = 2 * r.f.col_unit() * 8;
    p.A = random_dense(rng, m, k, SPX_ORDER_ROW, operand_dist(r.a, k, r.out));
    p.B = random_dense(rng, k, n, SPX_ORDER_COL, operand_dist(r.b, k, r.out));
    p.C = random_sparse(rng, r.f, m, n, output_dist(r.out));
    p.compute = SPX_R_32I;
    p.s = {1, 0};
    p.what = "refused";
    const DeviceDense A = to_device(p.A), B = to_device(p.B);
    const DeviceSparse C = to_device(p.C);
    spxPlan_t raw = nullptr;
    CHECK_SPX_STATUS(spxSDDMM_analyze(h.get(), A.get(), B.get(), C.get(), SPX_R_32I,
                                      SPX_SPMM_ALG_SRBCRS, &raw),
                     SPX_STATUS_NOT_SUPPORTED);
    CHECK(raw == nullptr);
    RunStats stats;
    CHECK(run_sddmm(h.get(), p, ref::sddmm(p.A, p.B, p.C, p.s), {SPX_SPMM_ALG_DEFAULT}, stats) ==
          0);
    CHECK(stats.kernels.count("fallback_sddmm") == 1);
  }
  // A float compute type for integer inputs is INVALID_VALUE before any family is asked.
  {
    Case c = make_case(rng, bcrs_spec(2), {SPX_R_8I, SPX_R_8I}, SPX_R_32F, {4, 32, 16},
                       SPX_ORDER_ROW, SPX_ORDER_COL, 0, 0);
    const DeviceDense A = to_device(c.A), B = to_device(c.B);
    const DeviceSparse C = to_device(c.C);
    spxPlan_t raw = nullptr;
    CHECK_SPX_INVALID(spxSDDMM_analyze(h.get(), A.get(), B.get(), C.get(), SPX_R_32F,
                                       SPX_SPMM_ALG_SRBCRS, &raw));
    CHECK(raw == nullptr);
  }
  // BCRS rows must be a multiple of V (spxCreateBcrs).
  {
    spxSpMatDescr_t d = nullptr;
    int32_t dummy = 0;
    CHECK_SPX_INVALID(spxCreateBcrs(&d, 10, 16, 4, 0, &dummy, &dummy, &dummy, SPX_R_32I));
  }
  // Bad structure is INVALID_VALUE (found in analyze).
  {
    Case c = make_case(rng, bcrs_spec(4), {SPX_R_8I, SPX_R_8I}, SPX_R_32I, {4, 40, 16},
                       SPX_ORDER_ROW, SPX_ORDER_COL, 0, 0, 0.5);
    REQUIRE_FALSE(c.C.idx.empty());
    c.C.idx[0] = 16;  // column out of range
    const DeviceDense A = to_device(c.A), B = to_device(c.B);
    const DeviceSparse C = to_device(c.C);
    spxPlan_t raw = nullptr;
    CHECK_SPX_INVALID(spxSDDMM_analyze(h.get(), A.get(), B.get(), C.get(), SPX_R_32I,
                                       SPX_SPMM_ALG_SRBCRS, &raw));
    CHECK(raw == nullptr);
  }
  // A NULL workspace the plan needs, and a plan run with other shapes, are INVALID_VALUE and
  // leave C untouched.
  {
    Case c = make_case(rng, bcrs_spec(4), {SPX_R_8I, SPX_R_8I}, SPX_R_32I, {4, 40, 16},
                       SPX_ORDER_COL, SPX_ORDER_COL, 0, 0, 0.5);
    const DeviceDense A = to_device(c.A), B = to_device(c.B);
    DeviceSparse C = to_device(c.C);
    spxPlan_t raw = nullptr;
    REQUIRE_SPX(spxSDDMM_analyze(h.get(), A.get(), B.get(), C.get(), SPX_R_32I,
                                 SPX_SPMM_ALG_SRBCRS, &raw));
    UniquePlan plan(raw);
    size_t ws = 0;
    REQUIRE_SPX(spxPlanGetWorkspaceSize(plan.get(), &ws));
    CHECK(ws >= 16 * 48);  // copies of A (16 rows) and B (16 columns) of 48-byte pitch
    const ScalarBytes one = make_scalar(1, SPX_R_32I), zero = make_scalar(0, SPX_R_32I);
    CHECK_SPX_INVALID(
        spxSDDMM(h.get(), plan.get(), one.get(), A.get(), B.get(), zero.get(), C.get(), nullptr));
    const HostDense wider = random_dense(rng, 40, 17, SPX_ORDER_COL, operand_dist(SPX_R_8I, 40, SPX_R_32I));
    const DeviceDense B2 = to_device(wider);
    DeviceBuffer wsb(ws);
    CHECK_SPX_INVALID(spxSDDMM(h.get(), plan.get(), one.get(), A.get(), B2.get(), zero.get(),
                               C.get(), wsb.get()));
    device_sync();
    CHECK(download_values(C, c.C).values == c.C.values);
  }
}
