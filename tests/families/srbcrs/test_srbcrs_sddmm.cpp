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
#include <cmath>
#include <cstring>
#include <iterator>
#include <string>
#include <vector>

#include "runtime/dtype.hpp"
#include "runner.hpp"
#include "spx_catch.hpp"
#include "srbcrs_grid.hpp"

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

/// The integer pairs and the emulated L16-R16.
const std::vector<TypePair> kPairs = [] {
  std::vector<TypePair> p(std::begin(kIntegerPairs), std::end(kIntegerPairs));
  p.push_back({SPX_R_16I, SPX_R_16I});
  return p;
}();

/// (vector-rows, k, n): k below one mma (32), at a step (64), odd, and many steps; n odd; an odd
/// number of vector-rows (the grid's last block partly empty); rows longer than one 32-slot task.
const Dims kDims[] = {{5, 1, 1},    {7, 33, 7},   {13, 100, 65}, {9, 257, 130},
                      {3, 64, 64},  {17, 40, 300}, {2, 600, 17},  {11, 31, 129}};

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
  // Half the cases pad the pitches to 16 bytes (read in place when A is row-major / B col-major).
  rotating_grid(61000, kPairs, kDims,
                [&](Rng& rng, TypePair tp, const FormatSpec& f, spxDataType_t out, const Dims& d,
                    int64_t pad, int variant) {
                  const spxOrder_t ao = (variant / 2) % 4 == 3 ? SPX_ORDER_COL : SPX_ORDER_ROW;
                  const spxOrder_t bo = (variant / 2) % 4 == 2 ? SPX_ORDER_ROW : SPX_ORDER_COL;
                  run_case(h.get(), make_case(rng, f, tp, out, d, ao, bo, variant, pad));
                });
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

namespace {

/// Options with SPX_PLAN_OPTION_SPARSE_VALUES_LAYOUT set, destroyed on scope exit.
struct LayoutOptions {
  spxPlanOptions_t opts = nullptr;
  explicit LayoutOptions(spxValuesLayout_t layout) {
    SPX_CHECK_OK(spxCreatePlanOptions(&opts));
    const int32_t v = layout;
    SPX_CHECK_OK(spxPlanOptionsSet(opts, SPX_PLAN_OPTION_SPARSE_VALUES_LAYOUT, &v, sizeof v));
  }
  ~LayoutOptions() { spxDestroyPlanOptions(opts); }
  LayoutOptions(const LayoutOptions&) = delete;
  LayoutOptions& operator=(const LayoutOptions&) = delete;
};

/// The SR-BCRS layout of a BCRS / CSR structure, as a caller computes it from the public header:
/// spxHostSrbcrsSlotPtr, then element (s / 32) * 32 V + v * 32 + s % 32 of slot s, row v.
struct SrbcrsMap {
  int64_t V = 1, elements = 0;
  std::vector<int64_t> of_value;  ///< element of C's own value slot e * V + v
  std::vector<uint8_t> padding;   ///< per element: 1 when it is padding
};
SrbcrsMap srbcrs_map(const HostSparse& s) {
  SrbcrsMap m;
  m.V = s.format == SPX_FORMAT_BCRS ? s.vec_len : 1;
  const int64_t vr = s.rows / m.V;
  std::vector<int32_t> slots(static_cast<size_t>(vr) + 1);
  SPX_CHECK_OK(spxHostSrbcrsSlotPtr(vr, s.ptr.data(), m.V, slots.data()));
  m.elements = int64_t{slots[vr]} * m.V;
  m.padding.assign(static_cast<size_t>(m.elements), 1);
  m.of_value.assign(static_cast<size_t>(s.value_slots()), -1);
  for (int64_t i = 0; i < vr; ++i)
    for (int64_t e = s.ptr[i]; e < s.ptr[i + 1]; ++e) {
      const int64_t slot = slots[i] + (e - s.ptr[i]);
      for (int64_t v = 0; v < m.V; ++v) {
        const int64_t el = (slot / 32) * 32 * m.V + v * 32 + slot % 32;
        m.of_value[e * m.V + v] = el;
        m.padding[el] = 0;
      }
    }
  return m;
}

/// Raw bits of element i of a `type` array (4-bit: nibble).
uint32_t raw_bits(const std::vector<uint8_t>& data, spxDataType_t type, int64_t i) {
  if (spx::dtype::bits(type) == 4) return (data[i >> 1] >> ((i & 1) * 4)) & 0xFu;
  const size_t b = static_cast<size_t>(spx::dtype::bits(type) / 8);
  uint32_t x = 0;
  std::memcpy(&x, data.data() + i * b, b);
  return x;
}
void set_raw_bits(std::vector<uint8_t>& data, spxDataType_t type, int64_t i, uint32_t x) {
  if (spx::dtype::bits(type) == 4) {
    uint8_t& byte = data[i >> 1];
    const int shift = static_cast<int>(i & 1) * 4;
    byte = static_cast<uint8_t>((byte & ~(0xF << shift)) | ((x & 0xF) << shift));
    return;
  }
  const size_t b = static_cast<size_t>(spx::dtype::bits(type) / 8);
  std::memcpy(data.data() + i * b, &x, b);
}

/// C's own values scattered into the SR-BCRS layout; padding elements get `pad_bits`.
std::vector<uint8_t> to_srbcrs(const HostSparse& s, const SrbcrsMap& m, uint32_t pad_bits) {
  std::vector<uint8_t> out(spx::dtype::storage_bytes(s.type, m.elements), 0);
  for (int64_t el = 0; el < m.elements; ++el)
    if (m.padding[el]) set_raw_bits(out, s.type, el, pad_bits);
  for (int64_t i = 0; i < s.value_slots(); ++i)
    set_raw_bits(out, s.type, m.of_value[i], raw_bits(s.values, s.type, i));
  return out;
}

/// SDDMM with C's values in the SR-BCRS layout: every value where the layout puts it (exact for
/// 32I, spx::ref::tolerance otherwise), 0 in every padding element (which held poison), nothing
/// written past the array. Returns the downloaded array.
std::vector<uint8_t> run_srbcrs_output(spxHandle_t h, const Case& c, spxSpMMAlg_t alg) {
  INFO(c.what << ", SR-BCRS output, alg " << alg_name(alg));
  const ref::Expected e = ref::sddmm(c.A, c.B, c.C, c.s);
  const SrbcrsMap m = srbcrs_map(c.C);
  HostSparse c_init = c.C;
  if (c.s.beta == 0) poison_sparse_values(c_init);
  const std::vector<uint8_t> before = to_srbcrs(c_init, m, 0x7F7F7F7Fu);
  const DeviceDense A = to_device(c.A), B = to_device(c.B);
  DeviceBuffer ptr = DeviceBuffer::from(c.C.ptr), idx = DeviceBuffer::from(c.C.idx);
  DeviceBuffer values(before, kGuard);
  const UniqueSpMat C = make_sparse_descr(c.C, ptr.get(), idx.get(), values.get());
  const LayoutOptions opts(SPX_VALUES_LAYOUT_SRBCRS);
  spxPlan_t raw = nullptr;
  REQUIRE_SPX(spxSDDMM_analyzeWithOptions(h, A.get(), B.get(), C.get(), SPX_R_32I, alg, opts.opts,
                                          &raw));
  UniquePlan plan(raw);
  spxPlanInfo_t info{};
  REQUIRE_SPX(spxPlanGetInfo(plan.get(), &info));
  INFO("kernel " << info.kernel << " [" << info.config << "]");
  CHECK(info.family == SPX_SPMM_ALG_SRBCRS);
  CHECK(info.padded_nnz == m.elements);
  CHECK(std::string(info.config).find("in SR-BCRS order") != std::string::npos);
  DeviceBuffer ws(info.workspace_bytes);
  const ScalarBytes alpha = make_scalar(c.s.alpha, c.C.type), beta = make_scalar(c.s.beta, c.C.type);
  REQUIRE_SPX(spxSDDMM(h, plan.get(), alpha.get(), A.get(), B.get(), beta.get(), C.get(), ws.get()));
  device_sync();
  const std::vector<uint8_t> got = values.download();
  CHECK(values.tail_intact());
  int64_t bad = 0;
  std::string report;
  const spxDataType_t t = c.C.type;
  for (int64_t i = 0; i < c.C.value_slots(); ++i) {
    const int64_t el = m.of_value[i];
    const double value = spx::dtype::load_double(got.data(), t, el);
    const double tol = ref::tolerance(e, i, t);
    if (!(std::fabs(value - e.value[i]) <= tol) && ++bad <= 5)
      report += "  value " + std::to_string(i) + " at element " + std::to_string(el) + ": got " +
                std::to_string(value) + ", expected " + std::to_string(e.value[i]) + "\n";
  }
  int64_t bad_padding = 0;
  for (int64_t el = 0; el < m.elements; ++el)
    if (m.padding[el] && spx::dtype::load_double(got.data(), t, el) != 0.0) ++bad_padding;
  INFO(bad << " wrong values, " << bad_padding << " padding elements not 0\n" << report);
  CHECK(bad == 0);
  CHECK(bad_padding == 0);
  return got;
}

}  // namespace

TEST_CASE("SR-BCRS SDDMM writing the SR-BCRS values layout", "[srbcrs][sddmm][layout]") {
  UniqueHandle h = make_handle();
  uint64_t seed = 67000;
  int variant = 0;
  for (const TypePair& tp : {TypePair{SPX_R_8I, SPX_R_8I}, TypePair{SPX_R_4I, SPX_R_4I},
                             TypePair{SPX_R_8U, SPX_R_4I}, TypePair{SPX_R_16I, SPX_R_16I}})
    for (int64_t v : {0, 1, 2, 4, 8})
      for (spxDataType_t out : kOutputs) {
        Rng rng(seed++);
        const Dims dims[] = {{7, 33, 70}, {13, 100, 65}, {9, 257, 130}, {3, 64, 40}};
        const spxOrder_t ao = variant % 5 == 4 ? SPX_ORDER_COL : SPX_ORDER_ROW;
        Case c = make_case(rng, format_for(v), tp, out, dims[variant % 4], ao, SPX_ORDER_COL,
                           variant, variant % 2 ? -1 : 0);
        run_srbcrs_output(h.get(), c, variant % 3 == 0 ? SPX_SPMM_ALG_DEFAULT : SPX_SPMM_ALG_SRBCRS);
        ++variant;
      }
}

TEST_CASE("SR-BCRS SpMM reading A's values in the SR-BCRS layout, and the SDDMM -> SpMM chain",
          "[srbcrs][sddmm][layout]") {
  UniqueHandle h = make_handle();
  Rng rng(68000);
  const LayoutOptions opts(SPX_VALUES_LAYOUT_SRBCRS);
  // 16I: the SpMM plan keeps 16-bit values as two byte slices, so the SR-BCRS input is split too.
  for (spxDataType_t at : {SPX_R_8I, SPX_R_4I, SPX_R_8U, SPX_R_16I})
    for (int64_t v : {0, 2, 8}) {
      // A (m x k) in BCRS / CSR with native values; the same values in the SR-BCRS layout.
      const FormatSpec f = format_for(v);
      const int64_t m = 12 * f.row_unit(), k = 300, n = 96;
      HostSparse a = random_sparse(rng, f, m, k, operand_dist(at, k, SPX_R_32I));
      const HostDense b = random_dense(rng, k, n, SPX_ORDER_ROW, operand_dist(SPX_R_8I, k, SPX_R_32I));
      const HostDense c0 = random_dense(rng, m, n, SPX_ORDER_ROW, output_dist(SPX_R_32I));
      INFO("A " << f.name() << " " << type_name(at));
      const SrbcrsMap map = srbcrs_map(a);
      DeviceBuffer ptr = DeviceBuffer::from(a.ptr), idx = DeviceBuffer::from(a.idx);
      DeviceBuffer values(to_srbcrs(a, map, 0));
      const UniqueSpMat A = make_sparse_descr(a, ptr.get(), idx.get(), values.get());
      const DeviceDense B = to_device(b);
      DeviceDense C = to_device(c0);
      spxPlan_t raw = nullptr;
      REQUIRE_SPX(spxSpMM_analyzeWithOptions(h.get(), A.get(), B.get(), C.get(), SPX_R_32I,
                                             SPX_SPMM_ALG_DEFAULT, opts.opts, &raw));
      UniquePlan plan(raw);
      spxPlanInfo_t info{};
      REQUIRE_SPX(spxPlanGetInfo(plan.get(), &info));
      CHECK(info.family == SPX_SPMM_ALG_SRBCRS);
      CHECK(info.padded_nnz == map.elements);
      DeviceBuffer ws(info.workspace_bytes);
      const ScalarBytes one = make_scalar(1, SPX_R_32I), zero = make_scalar(0, SPX_R_32I);
      const auto check = [&](const HostSparse& expect_a, const char* when) {
        INFO(when);
        REQUIRE_SPX(spxSpMM(h.get(), plan.get(), one.get(), A.get(), B.get(), zero.get(), C.get(),
                            ws.get()));
        device_sync();
        const CheckResult r = check_dense_output(download(C, c0), c0, ref::spmm(expect_a, b, c0, {1, 0}));
        INFO(r.report);
        CHECK(r.ok);
      };
      check(a, "analyzed from SR-BCRS values");
      HostSparse changed = a;
      changed.values = random_values(rng, operand_dist(at, k, SPX_R_32I), a.value_slots());
      values.upload(to_srbcrs(changed, map, 0));
      REQUIRE_SPX(spxPlanUpdateValues(h.get(), plan.get(), A.get()));
      check(changed, "after spxPlanUpdateValues");
    }
  // The chain: SDDMM (32I, small values) into the SR-BCRS layout, each element narrowed to int8
  // in place of its position (what a re-quantizing kernel does; padding stays 0), then an SpMM
  // over the same structure reading that array: equal to the reference SpMM of the SDDMM result.
  for (int64_t v : {1, 8}) {
    Case c = make_case(rng, bcrs_spec(v), {SPX_R_8I, SPX_R_8I}, SPX_R_32I, {10, 3, 70},
                       SPX_ORDER_ROW, SPX_ORDER_COL, 0, -1, 0.4);
    for (HostDense* d : {&c.A, &c.B})  // |values| <= 5: three products stay inside int8
      for (int64_t i = 0; i < element_slots(*d); ++i)
        if (is_logical(*d, i)) d->data[i] = static_cast<uint8_t>(static_cast<int8_t>(1 + i % 5));
    c.s = {1, 0};
    const std::vector<uint8_t> s32 = run_srbcrs_output(h.get(), c, SPX_SPMM_ALG_SRBCRS);
    const SrbcrsMap map = srbcrs_map(c.C);
    std::vector<uint8_t> s8(static_cast<size_t>(map.elements));
    for (int64_t el = 0; el < map.elements; ++el) {
      const int64_t x = spx::dtype::load_int(s32.data(), SPX_R_32I, el);
      REQUIRE(x >= -128);
      REQUIRE(x <= 127);
      s8[el] = static_cast<uint8_t>(static_cast<int8_t>(x));
    }
    HostSparse p = c.C;  // the SDDMM result in C's own order, as int8: the SpMM's A
    p.type = SPX_R_8I;
    p.values.assign(static_cast<size_t>(p.value_slots()), 0);
    for (int64_t i = 0; i < p.value_slots(); ++i) p.values[i] = s8[map.of_value[i]];
    const int64_t n2 = 40;
    const HostDense b2 = random_dense(rng, p.cols, n2, SPX_ORDER_ROW, operand_dist(SPX_R_8I, p.cols, SPX_R_32I));
    const HostDense c2 = random_dense(rng, p.rows, n2, SPX_ORDER_ROW, output_dist(SPX_R_32I));
    DeviceBuffer ptr = DeviceBuffer::from(p.ptr), idx = DeviceBuffer::from(p.idx), vals(s8);
    const UniqueSpMat A2 = make_sparse_descr(p, ptr.get(), idx.get(), vals.get());
    const DeviceDense B2 = to_device(b2);
    DeviceDense C2 = to_device(c2);
    spxPlan_t raw = nullptr;
    REQUIRE_SPX(spxSpMM_analyzeWithOptions(h.get(), A2.get(), B2.get(), C2.get(), SPX_R_32I,
                                           SPX_SPMM_ALG_SRBCRS, opts.opts, &raw));
    UniquePlan plan(raw);
    spxPlanInfo_t info{};
    REQUIRE_SPX(spxPlanGetInfo(plan.get(), &info));
    DeviceBuffer ws(info.workspace_bytes);
    const ScalarBytes one = make_scalar(1, SPX_R_32I), zero = make_scalar(0, SPX_R_32I);
    REQUIRE_SPX(spxSpMM(h.get(), plan.get(), one.get(), A2.get(), B2.get(), zero.get(), C2.get(),
                        ws.get()));
    device_sync();
    const CheckResult r = check_dense_output(download(C2, c2), c2, ref::spmm(p, b2, c2, {1, 0}));
    INFO(r.report);
    CHECK(r.ok);
  }
}

TEST_CASE("SR-BCRS values layout: who cannot take it says so", "[srbcrs][sddmm][layout]") {
  UniqueHandle h = make_handle();
  Rng rng(69000);
  const LayoutOptions srbcrs(SPX_VALUES_LAYOUT_SRBCRS), native(SPX_VALUES_LAYOUT_NATIVE);
  struct Input {
    FormatSpec f;
    spxDataType_t ab, out, compute;
    spxSpMMAlg_t alg;
  };
  // Float inputs (no SR-BCRS kernel), an ELL / NM pattern, V = 16, or another forced family.
  const Input inputs[] = {{bcrs_spec(4), SPX_R_16F, SPX_R_16F, SPX_R_32F, SPX_SPMM_ALG_DEFAULT},
                          {ell_spec(), SPX_R_8I, SPX_R_32I, SPX_R_32I, SPX_SPMM_ALG_DEFAULT},
                          {nm_spec(2, 4, 2), SPX_R_8I, SPX_R_32I, SPX_R_32I, SPX_SPMM_ALG_DEFAULT},
                          {bcrs_spec(16), SPX_R_8I, SPX_R_32I, SPX_R_32I, SPX_SPMM_ALG_DEFAULT},
                          {bcrs_spec(4), SPX_R_8I, SPX_R_32I, SPX_R_32I, SPX_SPMM_ALG_FALLBACK}};
  for (const Input& in : inputs) {
    INFO(in.f.name() << " " << type_name(in.ab) << " alg " << alg_name(in.alg));
    const int64_t m = 4 * in.f.row_unit(), k = 64, n = 16 * in.f.col_unit();
    const DeviceDense A = to_device(random_dense(rng, m, k, SPX_ORDER_ROW, operand_dist(in.ab, k, in.out)));
    const DeviceDense B = to_device(random_dense(rng, k, n, SPX_ORDER_COL, operand_dist(in.ab, k, in.out)));
    const DeviceSparse C = to_device(random_sparse(rng, in.f, m, n, output_dist(in.out)));
    spxPlan_t raw = nullptr;
    CHECK_SPX_STATUS(spxSDDMM_analyzeWithOptions(h.get(), A.get(), B.get(), C.get(), in.compute,
                                                 in.alg, srbcrs.opts, &raw),
                     SPX_STATUS_NOT_SUPPORTED);
    CHECK(raw == nullptr);
    // The same input with the native layout (or no options) is fine.
    REQUIRE_SPX(spxSDDMM_analyzeWithOptions(h.get(), A.get(), B.get(), C.get(), in.compute, in.alg,
                                            native.opts, &raw));
    spxPlanDestroy(raw);
    REQUIRE_SPX(spxSDDMM_analyzeWithOptions(h.get(), A.get(), B.get(), C.get(), in.compute, in.alg,
                                            nullptr, &raw));
    spxPlanDestroy(raw);
  }
  // SpMM: an NM A, or a forced NM family, with the SR-BCRS layout.
  {
    const FormatSpec f = nm_spec(2, 4, 2);
    const DeviceSparse A = to_device(random_sparse(rng, f, 8, 64, operand_dist(SPX_R_32F, 64, SPX_R_32F)));
    const DeviceDense B = to_device(random_dense(rng, 64, 16, SPX_ORDER_ROW, operand_dist(SPX_R_32F, 64, SPX_R_32F)));
    const DeviceDense C = to_device(random_dense(rng, 8, 16, SPX_ORDER_ROW, output_dist(SPX_R_32F)));
    for (spxSpMMAlg_t alg : {SPX_SPMM_ALG_DEFAULT, SPX_SPMM_ALG_NM}) {
      spxPlan_t raw = nullptr;
      CHECK_SPX_STATUS(spxSpMM_analyzeWithOptions(h.get(), A.get(), B.get(), C.get(), SPX_R_32F,
                                                  alg, srbcrs.opts, &raw),
                       SPX_STATUS_NOT_SUPPORTED);
      CHECK(raw == nullptr);
    }
  }
}
