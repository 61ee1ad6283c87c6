// The SR-BCRS family (quantized SpMM on int8 tensor cores) against the CPU reference: L8-R8,
// L4-R4 and the mixed 8/4-bit pairs, signed and unsigned; the emulated precisions of Magicube's
// Table IV (L16-R16, L16-R8, L16-R4, L12-R4 = 16I A with 12-bit values; 8U / 4U B too) with
// full-range and extreme values; the native int4 path (forced: it is sm_80's rule, slow on
// Hopper); CSR and BCRS with V = 1, 2, 4, 8; B and
// C row- and column-major (B also misaligned, through the workspace copy); outputs 32I (exactly
// equal to the integer reference) and 32F / 16F (alpha the dequantization scale, within the float
// rounding derived below); n and k tails, empty vector-rows, long rows (many pipeline stages),
// alpha / beta (beta = 0 on a NaN-poisoned C), ld padding and bytes after C untouched, device
// pointer mode, spxPlanUpdateValues, DEFAULT choosing the family, refusals and bad arguments.
//
// Tolerance of a dequantized output (float outputs): the int32 sum `acc` is exact (the operands
// are bounded so it cannot overflow); the kernel then rounds three times in fp32: float(acc),
// alpha * that, and fmaf(beta, old, .) (one rounding). With u = 2^-24,
//   |fp32 result - (alpha acc + beta old)| <= 3u (|alpha acc| + |beta old|)   (u^2 terms absorbed)
// and an fp16 output adds its own rounding: 2^-11 relative, or 2^-25 absolute below the normal
// range. That bound is checked element by element, with acc from the integer reference.
#include <catch2/catch.hpp>
#include <cuda_runtime_api.h>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/dtype.hpp"
#include "env_override.hpp"
#include "runner.hpp"
#include "spx_catch.hpp"
#include "srbcrs_grid.hpp"

using namespace spx::test;
namespace ref = spx::ref;

namespace {

struct Case {
  HostSparse A;
  HostDense B, C;
  ref::Scalars s;
  std::string what;
};

struct RunOptions {
  spxSpMMAlg_t alg = SPX_SPMM_ALG_SRBCRS;
  bool device_scalars = false;
  size_t b_offset = 0;          ///< bytes B's data is shifted by from an aligned allocation
  int split = 0;                ///< > 0: SPX_SRBCRS_FORCE_SPLIT
  const char* order = nullptr;  ///< SPX_SRBCRS_FORCE_ORDER
  bool search = false;          ///< spxSpMM_search (on a scratch C) before the checked run
  const char* int4 = nullptr;   ///< SPX_SRBCRS_FORCE_INT4 ("native" / "unpacked")
};

/// RAII setting of the schedule and path overrides analyze reads (unset when not given).
struct ForceSchedule {
  ForceSchedule(int split, const char* order, const char* int4 = nullptr)
      : split_("SPX_SRBCRS_FORCE_SPLIT", split > 0 ? std::to_string(split) : ""),
        order_("SPX_SRBCRS_FORCE_ORDER", order != nullptr ? order : ""),
        int4_("SPX_SRBCRS_FORCE_INT4", int4 != nullptr ? int4 : "") {}

 private:
  EnvOverride split_, order_, int4_;
};

/// Whether a plan for these operand types runs the native int4 path (forced, or sm_80's rule).
bool expect_native(const Case& c, const RunOptions& o) {
  const bool l4r4 = spx::dtype::bits(c.A.type) == 4 && spx::dtype::bits(c.B.type) == 4;
  if (!l4r4 || (o.int4 != nullptr && std::string(o.int4) == "unpacked")) return false;
  if (o.int4 != nullptr && std::string(o.int4) == "native") return true;
  int device = 0, major = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device);
  return major == 8;
}

/// The product with alpha = 1, beta = 0 and a 32I output: the exact int32 sum of every element.
ref::Expected exact_sums(const Case& c) {
  HostDense acc;
  acc.rows = c.C.rows;
  acc.cols = c.C.cols;
  acc.ld = std::max<int64_t>(1, c.C.cols);
  acc.order = SPX_ORDER_ROW;
  acc.type = SPX_R_32I;
  return ref::spmm(c.A, c.B, acc, {1, 0});
}

/// Checks a downloaded C: 32I exactly; 32F / 16F within the derived bound (file comment). Also
/// that C's ld padding kept its guard bytes. Returns "" when right, else the first problems.
std::string check_output(const Case& c, const HostDense& got, const HostDense& before) {
  const ref::Expected e = ref::spmm(c.A, c.B, c.C, c.s);
  const ref::Expected sums = exact_sums(c);
  const int64_t m = c.C.rows, n = c.C.cols;
  const spxDataType_t t = c.C.type;
  const double u = std::ldexp(1.0, -24);
  const double u_out = t == SPX_R_16F ? std::ldexp(1.0, -11) : t == SPX_R_32F ? u : 0.0;
  const double abs_out = t == SPX_R_16F ? std::ldexp(1.0, -25) : 0.0;
  std::string report;
  int64_t bad = 0;
  for (int64_t r = 0; r < m; ++r)
    for (int64_t col = 0; col < n; ++col) {
      const int64_t i = r * n + col, at = got.linear(r, col);
      bool ok;
      double value, want = e.value[i], tol = 0;
      if (t == SPX_R_32I) {
        const int64_t v = spx::dtype::load_int(got.data.data(), t, at);
        value = static_cast<double>(v);
        ok = v == static_cast<int64_t>(std::llround(want));
      } else {
        value = spx::dtype::load_double(got.data.data(), t, at);
        const double old = c.s.beta != 0 ? spx::dtype::load_double(c.C.data.data(), t, at) : 0.0;
        const double fp32_err =
            3 * u * (std::fabs(c.s.alpha * sums.value[i]) + std::fabs(c.s.beta * old));
        tol = fp32_err + u_out * (std::fabs(want) + fp32_err) + abs_out;
        ok = std::fabs(value - want) <= tol;  // false for NaN (poison)
      }
      if (!ok && ++bad <= 8)
        report += "  C(" + std::to_string(r) + ", " + std::to_string(col) + "): got " +
                  std::to_string(value) + ", expected " + std::to_string(want) + " (tolerance " +
                  std::to_string(tol) + ")\n";
    }
  int64_t clobbered = 0;
  for (int64_t i = 0; i < element_slots(got); ++i) {
    if (is_logical(got, i)) continue;
    const size_t b = element_bytes(t);
    clobbered += std::memcmp(got.data.data() + i * b, before.data.data() + i * b, b) != 0;
  }
  if (bad > 0) report = std::to_string(bad) + " wrong elements:\n" + report;
  if (clobbered > 0) report += std::to_string(clobbered) + " ld padding elements changed\n";
  return report;
}

/// Analyzes and runs one case; checks the result, C's guards and the plan info. Returns the info.
spxPlanInfo_t run_case(spxHandle_t h, const Case& c, const RunOptions& o = {}) {
  INFO(c.what << (o.device_scalars ? ", device scalars" : "")
              << (o.b_offset ? ", B shifted by " + std::to_string(o.b_offset) + " B" : "")
              << (o.split ? ", split " + std::to_string(o.split) : "")
              << (o.order ? std::string(", order ") + o.order : "")
              << (o.search ? ", searched" : "")
              << (o.int4 ? std::string(", int4 ") + o.int4 : ""));
  const DeviceSparse A = to_device(c.A);
  DeviceBuffer b_buf(c.B.data.size() + 16);
  b_buf.upload(c.B.data.data(), c.B.data.size(), o.b_offset);
  const UniqueDnMat B = make_dense_descr(c.B, static_cast<uint8_t*>(b_buf.get()) + o.b_offset);
  HostDense c_init = c.C;
  guard_padding(c_init);
  if (c.s.beta == 0) poison_dense(c_init);
  DeviceDense C = to_device(c_init, 64);

  spxPlan_t raw = nullptr;
  {
    ForceSchedule force(o.split, o.order, o.int4);
    REQUIRE_SPX(spxSpMM_analyze(h, A.get(), B.get(), C.get(), SPX_R_32I, o.alg, &raw));
  }
  UniquePlan plan(raw);
  spxPlanInfo_t info{};
  REQUIRE_SPX(spxPlanGetInfo(plan.get(), &info));
  INFO("kernel " << info.kernel << " [" << info.config << "]");
  CHECK(info.family == SPX_SPMM_ALG_SRBCRS);
  const std::string kernel = info.kernel;
  CHECK(kernel.rfind("srbcrs_spmm_l", 0) == 0);
  const std::string config = info.config;
  const bool native = expect_native(c, o);
  CHECK(config.find(native ? "native int4 m16n8k64 transposed" : "m16n8k32 transposed") !=
        std::string::npos);
  const bool int4 = spx::dtype::bits(c.A.type) == 4 || spx::dtype::bits(c.B.type) == 4;
  CHECK((config.find("int4 unpacked to int8") != std::string::npos) == (int4 && !native));
  CHECK((config.find("A in 2 int8 slices") != std::string::npos) == (c.A.type == SPX_R_16I));
  CHECK((config.find("B in 2 int8 slices") != std::string::npos) == (c.B.type == SPX_R_16I));
  CHECK(config.find(c.B.type == SPX_R_16I ? "warp 32 cols" : "warp 64 cols") != std::string::npos);
  CHECK(info.nnz == c.A.value_slots());
  CHECK(info.padded_nnz >= info.nnz);
  CHECK(info.padded_nnz % (native ? 64 : 32) == 0);
  CHECK(info.values_bytes == spx::dtype::storage_bytes(c.A.type, info.padded_nnz));
  CHECK(info.metadata_bytes > 0);
  CHECK(info.candidates == 6);
  if (o.split > 0) {
    CHECK(info.split_k == o.split);
    CHECK(std::string(info.config).find("split " + std::to_string(o.split)) != std::string::npos);
  }
  if (o.order != nullptr)
    CHECK(std::string(info.config).find(std::string(o.order) + " order") != std::string::npos);
  DeviceBuffer workspace(info.workspace_bytes);

  const ScalarBytes alpha = make_scalar(c.s.alpha, c.C.type),
                    beta = make_scalar(c.s.beta, c.C.type);
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
  if (o.search) {
    // Search overwrites C many times and restores it; run it on a scratch C, check a clean run.
    DeviceDense scratch = to_device(c_init);
    REQUIRE_SPX(
        spxSpMM_search(h, plan.get(), pa, A.get(), B.get(), pb, scratch.get(), workspace.get()));
    REQUIRE_SPX(spxPlanGetInfo(plan.get(), &info));
    CHECK(info.searched == 1);
  }
  const spxStatus_t st = spxSpMM(h, plan.get(), pa, A.get(), B.get(), pb, C.get(), workspace.get());
  spxSetPointerMode(h, SPX_POINTER_MODE_HOST);
  REQUIRE(st == SPX_STATUS_SUCCESS);
  device_sync();
  const HostDense got = download(C, c_init);
  const std::string problems = check_output(c, got, c_init);
  INFO(problems);
  CHECK(problems.empty());
  CHECK(C.buf.tail_intact());
  return info;
}

/// spxPlanUpdateValues on case `c` (its values replaced by `new_values` in A's device array):
/// before the update the plan still computes with its own copy of the old values, after it with
/// the new ones. `int4` forces the int4 path at analyze (SPX_SRBCRS_FORCE_INT4; NULL: the rule).
void check_update_values(spxHandle_t h, Case c, std::vector<uint8_t> new_values,
                         const char* int4 = nullptr) {
  INFO(c.what << (int4 ? std::string(" int4 ") + int4 : std::string()));
  DeviceSparse A = to_device(c.A);
  const DeviceDense B = to_device(c.B);
  DeviceDense C = to_device(c.C);
  spxPlan_t raw = nullptr;
  {
    ForceSchedule force(0, nullptr, int4);
    REQUIRE_SPX(spxSpMM_analyze(h, A.get(), B.get(), C.get(), SPX_R_32I, SPX_SPMM_ALG_SRBCRS, &raw));
  }
  UniquePlan plan(raw);
  spxPlanInfo_t info{};
  REQUIRE_SPX(spxPlanGetInfo(plan.get(), &info));
  if (int4 != nullptr)
    CHECK((std::string(info.config).find("native int4") != std::string::npos) ==
          (std::string(int4) == "native"));
  DeviceBuffer ws(info.workspace_bytes);
  const ScalarBytes one = make_scalar(1, SPX_R_32I), zero = make_scalar(0, SPX_R_32I);
  const auto run_and_check = [&](const Case& expect, const char* when) {
    INFO(when);
    REQUIRE_SPX(spxSpMM(h, plan.get(), one.get(), A.get(), B.get(), zero.get(), C.get(), ws.get()));
    device_sync();
    const HostDense got = download(C, expect.C);
    const std::string problems = check_output(expect, got, expect.C);
    INFO(problems);
    CHECK(problems.empty());
  };
  c.s = {1, 0};
  run_and_check(c, "before the update");
  Case changed = c;
  changed.A.values = std::move(new_values);
  A.values.upload(changed.A.values);
  run_and_check(c, "values changed, plan not updated");
  REQUIRE_SPX(spxPlanUpdateValues(h, plan.get(), A.get()));
  run_and_check(changed, "after spxPlanUpdateValues");
}

/// (vector-rows, k, n): n below, at and above the 64-column warp tile; k below one stride of
/// 32, at it, and long enough for many strides (full rows of random_bcrs wrap the stage ring).
const Dims kDims[] = {{5, 1, 1},   {7, 33, 7},    {13, 100, 65}, {9, 257, 130},
                      {3, 64, 64}, {17, 40, 300}, {2, 600, 17},  {11, 32, 128}};


/// ld padding that makes a row-major B's rows 16-byte aligned (the kernel reads it in place;
/// other pitches, and column-major B, go through the workspace copy).
int64_t aligned_b_pad(int64_t n, spxDataType_t b_type) {
  const int64_t per16 = spx::dtype::bits(b_type) == 4 ? 32 : 16;  // elements per 16 bytes
  return round_up(n, per16) - n;
}

/// ld_pad < 0: B's rows padded to 16 bytes (aligned_b_pad), C without padding.
Case make_case(Rng& rng, const FormatSpec& f, TypePair tp, spxDataType_t out, const Dims& d,
               spxOrder_t bo, spxOrder_t co, int ab, int64_t ld_pad, double density = 0.3) {
  Case c;
  const int64_t m = d.vector_rows * f.row_unit();
  const int64_t b_pad = ld_pad < 0 ? aligned_b_pad(d.n, tp.b) : ld_pad;
  ld_pad = std::max<int64_t>(ld_pad, 0);
  c.A = random_sparse(rng, f, m, d.k, operand_dist(tp.a, d.k, out), density);
  c.B = random_dense(rng, d.k, d.n, bo, operand_dist(tp.b, d.k, out), b_pad);
  c.C = random_dense(rng, m, d.n, co, output_dist(out), ld_pad);
  const auto& abs = alpha_betas(out);
  c.s = {abs[ab % abs.size()].alpha, abs[ab % abs.size()].beta};
  c.what = f.name() + " A " + type_name(tp.a) + " B " + type_name(tp.b) + " C " + type_name(out) +
           " " + std::to_string(m) + "x" + std::to_string(d.k) + "x" + std::to_string(d.n) + " B " +
           order_name(bo) + " C " + order_name(co) + " alpha " + std::to_string(c.s.alpha) +
           " beta " + std::to_string(c.s.beta) + " ld_pad B " + std::to_string(b_pad) + " C " +
           std::to_string(ld_pad);
  return c;
}

}  // namespace

TEST_CASE("SR-BCRS every type pair, format and output (rotating shapes, orders, scalars)",
          "[srbcrs]") {
  UniqueHandle h = make_handle();
  // Half the cases pad B's rows to 16 bytes (read in place when row-major).
  rotating_grid(51000, kIntegerPairs, kDims,
                [&](Rng& rng, TypePair tp, const FormatSpec& f, spxDataType_t out, const Dims& d,
                    int64_t pad, int variant) {
                  const spxOrder_t bo = (variant / 2) % 2 ? SPX_ORDER_COL : SPX_ORDER_ROW;
                  const spxOrder_t co = (variant / 4) % 2 ? SPX_ORDER_COL : SPX_ORDER_ROW;
                  run_case(h.get(), make_case(rng, f, tp, out, d, bo, co, variant, pad));
                });
}

TEST_CASE("SR-BCRS L8-R8 and L4-R4: every V, both orders of B and C, every output, every shape",
          "[srbcrs]") {
  UniqueHandle h = make_handle();
  uint64_t seed = 52000;
  int variant = 0;
  for (const TypePair& tp : {TypePair{SPX_R_8I, SPX_R_8I}, TypePair{SPX_R_4I, SPX_R_4I}})
    for (int64_t v : {1, 2, 4, 8})
      for (spxDataType_t out : kOutputs)
        for (spxOrder_t bo : {SPX_ORDER_ROW, SPX_ORDER_COL})
          for (spxOrder_t co : {SPX_ORDER_ROW, SPX_ORDER_COL}) {
            Rng rng(seed++);
            const int64_t pad = variant % 3 == 0 ? -1 : (variant % 3 == 1 ? 2 : 0);
            run_case(h.get(), make_case(rng, bcrs_spec(v), tp, out,
                                        kDims[(variant + variant / 4) % 8], bo, co, variant, pad));
            ++variant;
          }
}

TEST_CASE("SR-BCRS every schedule forced (split 1 / 2 / 4, row / tile order), and the search",
          "[srbcrs]") {
  UniqueHandle h = make_handle();
  uint64_t seed = 58000;
  int variant = 0;
  for (const TypePair& tp :
       {TypePair{SPX_R_8I, SPX_R_8I}, TypePair{SPX_R_4U, SPX_R_4I}, TypePair{SPX_R_8U, SPX_R_4I}})
    for (int64_t v : {1, 4, 8})
      for (int split : {1, 2, 4})
        for (const char* order : {"row", "tile"}) {
          Rng rng(seed++);
          // Odd tile counts (a block's last tiles empty), long and empty rows, every output.
          const Dims dims[] = {{7, 300, 130}, {9, 600, 65}, {5, 100, 200}};
          const Dims& d = dims[variant % 3];
          const spxDataType_t out = kOutputs[(variant / 3) % 3];
          const int64_t pad = variant % 2 == 0 ? -1 : 0;
          const spxOrder_t bo = (variant / 2) % 2 ? SPX_ORDER_COL : SPX_ORDER_ROW;
          const spxOrder_t co = (variant / 5) % 2 ? SPX_ORDER_COL : SPX_ORDER_ROW;
          RunOptions o;
          o.split = split;
          o.order = order;
          run_case(h.get(), make_case(rng, bcrs_spec(v), tp, out, d, bo, co, variant, pad), o);
          ++variant;
        }
  for (const TypePair& tp : {TypePair{SPX_R_8I, SPX_R_8I}, TypePair{SPX_R_4I, SPX_R_4I}}) {
    Rng rng(seed++);
    RunOptions o;
    o.search = true;
    run_case(h.get(),
             make_case(rng, bcrs_spec(8), tp, SPX_R_32F, {16, 500, 300}, SPX_ORDER_ROW,
                       SPX_ORDER_ROW, 1, -1),
             o);
  }
}

TEST_CASE("SR-BCRS extremes of every type, exact in int32", "[srbcrs]") {
  UniqueHandle h = make_handle();
  uint64_t seed = 53000;
  for (const TypePair& tp : kIntegerPairs)
    for (int64_t v : {1, 8}) {
      Rng rng(seed++);
      ValueDist da{tp.a}, db{tp.b};
      da.extremes = db.extremes = true;
      Case c;
      const int64_t m = 10 * v, k = 96, n = 70;
      c.A = random_bcrs(rng, m, k, v, da, 0.5);
      c.B = random_dense(rng, k, n, seed % 2 ? SPX_ORDER_COL : SPX_ORDER_ROW, db);
      c.C = random_dense(rng, m, n, SPX_ORDER_ROW, output_dist(SPX_R_32I));
      c.s = {-1, 1};
      c.what = "extremes BCRS(V=" + std::to_string(v) + ") A " + type_name(tp.a) + " B " +
               type_name(tp.b);
      run_case(h.get(), c);
    }
}

TEST_CASE("SR-BCRS empty matrix, empty rows only, and a large multi-tile problem", "[srbcrs]") {
  UniqueHandle h = make_handle();
  Rng rng(54000);
  for (spxDataType_t out : kOutputs) {
    const ValueDist d = operand_dist(SPX_R_8I, 50, out);
    Case c;
    c.A = random_bcrs(rng, 32, 50, 4, d, 0.0);  // no vectors at all: C = beta * C
    REQUIRE(c.A.idx.empty());
    c.B = random_dense(rng, 50, 90, SPX_ORDER_ROW, d);
    c.C = random_dense(rng, 32, 90, SPX_ORDER_ROW, output_dist(out));
    c.s = {out == SPX_R_32I ? 2.0 : 0.5, -2};
    c.what = std::string("no vectors, C ") + type_name(out);
    run_case(h.get(), c);
  }
  for (const TypePair& tp : {TypePair{SPX_R_8I, SPX_R_8I}, TypePair{SPX_R_4U, SPX_R_4I}}) {
    // 2048 x 1024 x 320, V = 8, 10 %: 256 vector-rows x 5 column tiles, ~4 strides per row and
    // 32 strides on the full rows.
    Case c = make_case(rng, bcrs_spec(8), tp, SPX_R_32I, {256, 1024, 320}, SPX_ORDER_ROW,
                       SPX_ORDER_ROW, 0, 0, 0.1);
    run_case(h.get(), c);
  }
}

TEST_CASE("SR-BCRS B not 16-byte aligned, device scalars", "[srbcrs]") {
  UniqueHandle h = make_handle();
  uint64_t seed = 55000;
  for (const TypePair& tp :
       {TypePair{SPX_R_8I, SPX_R_8I}, TypePair{SPX_R_4I, SPX_R_4I}, TypePair{SPX_R_8U, SPX_R_4U}})
    for (spxDataType_t out : kOutputs) {
      Rng rng(seed++);
      // Row-major B with an odd ld (8-bit) / a 15-byte pitch (4-bit), then a shifted base.
      Case c =
          make_case(rng, bcrs_spec(4), tp, out, {9, 200, 77}, SPX_ORDER_ROW, SPX_ORDER_ROW, 1, 0);
      c.B = random_dense(rng, 200, 77, SPX_ORDER_ROW, operand_dist(tp.b, 200, out),
                         spx::dtype::bits(tp.b) == 4 ? 1 : 2);
      run_case(h.get(), c);
      RunOptions shifted;
      shifted.b_offset = spx::dtype::bits(tp.b) == 4 ? 2 : 1;
      run_case(h.get(), c, shifted);
      RunOptions dev;
      dev.device_scalars = true;
      run_case(h.get(), c, dev);
    }
}

TEST_CASE("SR-BCRS spxPlanUpdateValues re-packs values; the plan keeps its own copy", "[srbcrs]") {
  UniqueHandle h = make_handle();
  uint64_t seed = 56000;
  for (const TypePair& tp :
       {TypePair{SPX_R_8I, SPX_R_8I}, TypePair{SPX_R_4I, SPX_R_4I}, TypePair{SPX_R_4U, SPX_R_8U}})
    for (int64_t v : {0, 2, 8}) {
      Rng rng(seed++);
      const Case c = make_case(rng, format_for(v), tp, SPX_R_32I, {12, 300, 96}, SPX_ORDER_ROW,
                               SPX_ORDER_ROW, 0, 0);
      check_update_values(h.get(), c,
                          random_values(rng, operand_dist(tp.a, 300, SPX_R_32I), c.A.value_slots()));
    }
}

TEST_CASE("SR-BCRS under DEFAULT, refusals and bad arguments", "[srbcrs]") {
  UniqueHandle h = make_handle();
  Rng rng(57000);
  // DEFAULT takes the family for CSR and BCRS(V <= 8) of 8- / 4-bit integers.
  for (int64_t v : {0, 1, 8}) {
    Case c = make_case(rng, format_for(v), {SPX_R_8I, SPX_R_8I}, SPX_R_32I, {6, 90, 40},
                       SPX_ORDER_ROW, SPX_ORDER_ROW, 1, 0);
    RunOptions o;
    o.alg = SPX_SPMM_ALG_DEFAULT;
    run_case(h.get(), c, o);
  }
  // Refused inputs: DEFAULT runs the fallback, forced SRBCRS is NOT_SUPPORTED with a reason.
  struct Refused {
    FormatSpec f;
    spxDataType_t a, b, out;
  };
  const Refused refused[] = {{bcrs_spec(16), SPX_R_8I, SPX_R_8I, SPX_R_32I},
                             {bcrs_spec(16), SPX_R_16I, SPX_R_8I, SPX_R_32I},
                             {bcrs_spec(4), SPX_R_8I, SPX_R_16I, SPX_R_32I},
                             {csr_spec(), SPX_R_4U, SPX_R_16I, SPX_R_32F},
                             {nm_spec(2, 4, 2), SPX_R_8I, SPX_R_8I, SPX_R_32I}};
  for (const Refused& r : refused) {
    INFO(r.f.name() << " A " << type_name(r.a) << " B " << type_name(r.b));
    const int64_t m = 4 * r.f.row_unit(), k = 64;
    const DeviceSparse A = to_device(random_sparse(rng, r.f, m, k, operand_dist(r.a, k, r.out)));
    const DeviceDense B =
        to_device(random_dense(rng, k, 8, SPX_ORDER_ROW, operand_dist(r.b, k, r.out)));
    const DeviceDense C = to_device(random_dense(rng, m, 8, SPX_ORDER_ROW, output_dist(r.out)));
    spxPlan_t p = nullptr;
    CHECK_SPX_STATUS(
        spxSpMM_analyze(h.get(), A.get(), B.get(), C.get(), SPX_R_32I, SPX_SPMM_ALG_SRBCRS, &p),
        SPX_STATUS_NOT_SUPPORTED);
    CHECK(p == nullptr);
    REQUIRE_SPX(
        spxSpMM_analyze(h.get(), A.get(), B.get(), C.get(), SPX_R_32I, SPX_SPMM_ALG_DEFAULT, &p));
    UniquePlan plan(p);
    spxPlanInfo_t info{};
    REQUIRE_SPX(spxPlanGetInfo(p, &info));
    CHECK(info.family == SPX_SPMM_ALG_FALLBACK);
  }
  // Bad structure is INVALID_VALUE (found in analyze); a NULL workspace the plan needs is
  // INVALID_VALUE and leaves C untouched.
  {
    HostSparse a = random_bcrs(rng, 16, 40, 4, operand_dist(SPX_R_8I, 40, SPX_R_32I));
    a.idx[0] = 40;  // column out of range
    const DeviceSparse A = to_device(a);
    const DeviceDense B =
        to_device(random_dense(rng, 40, 8, SPX_ORDER_ROW, operand_dist(SPX_R_8I, 40, SPX_R_32I)));
    const DeviceDense C =
        to_device(random_dense(rng, 16, 8, SPX_ORDER_ROW, output_dist(SPX_R_32I)));
    spxPlan_t p = nullptr;
    CHECK_SPX_INVALID(
        spxSpMM_analyze(h.get(), A.get(), B.get(), C.get(), SPX_R_32I, SPX_SPMM_ALG_SRBCRS, &p));
  }
  {
    const DeviceSparse A =
        to_device(random_bcrs(rng, 16, 40, 4, operand_dist(SPX_R_8I, 40, SPX_R_32I)));
    const DeviceDense B =
        to_device(random_dense(rng, 40, 8, SPX_ORDER_COL, operand_dist(SPX_R_8I, 40, SPX_R_32I)));
    const HostDense c_host = random_dense(rng, 16, 8, SPX_ORDER_ROW, output_dist(SPX_R_32I));
    DeviceDense C = to_device(c_host);
    spxPlan_t p = nullptr;
    REQUIRE_SPX(
        spxSpMM_analyze(h.get(), A.get(), B.get(), C.get(), SPX_R_32I, SPX_SPMM_ALG_SRBCRS, &p));
    UniquePlan plan(p);
    size_t ws = 0;
    REQUIRE_SPX(spxPlanGetWorkspaceSize(p, &ws));
    CHECK(ws >= 40 * 16);  // column-major B is copied row-major: k rows of >= 16 bytes
    const ScalarBytes one = make_scalar(1, SPX_R_32I), zero = make_scalar(0, SPX_R_32I);
    CHECK_SPX_INVALID(
        spxSpMM(h.get(), p, one.get(), A.get(), B.get(), zero.get(), C.get(), nullptr));
    device_sync();
    CHECK(same_bytes(download(C, c_host), c_host));
  }
}

// ---------------------------------------------------------------------------------------------
// Emulated precisions (Table IV of the Magicube paper) and the native int4 path.

namespace {

// 16-bit A with every B it runs with; "l12" is a 16I A holding 12-bit values (kTwelveBit).
const TypePair kEmulPairs[] = {{SPX_R_16I, SPX_R_16I}, {SPX_R_16I, SPX_R_8I},
                               {SPX_R_16I, SPX_R_8U},  {SPX_R_16I, SPX_R_4I},
                               {SPX_R_16I, SPX_R_4U}};
constexpr int64_t kTwelveBit = 2047;  ///< int_bound of a 12-bit operand in 16I

/// The 16I values the extremes tests draw for a 12-bit operand: the ends of [-2048, 2047].
std::vector<uint8_t> twelve_bit_extremes(Rng& rng, int64_t count) {
  const int64_t choices[6] = {-2048, -2047, -1, 1, 2046, 2047};
  std::vector<uint8_t> bytes(spx::dtype::storage_bytes(SPX_R_16I, count), 0);
  for (int64_t i = 0; i < count; ++i)
    spx::dtype::store_double(bytes.data(), SPX_R_16I, i,
                             static_cast<double>(choices[rng.uniform_int(0, 5)]));
  return bytes;
}

/// Operand distributions of an emulated case: a 32I output is exact modulo 2^32 whatever the
/// sum, so its operands span the whole type (or the 12-bit range); a float output keeps the
/// sums exact in int32 (operand_dist).
ValueDist emul_dist(spxDataType_t type, bool twelve_bit, int64_t k, spxDataType_t out) {
  if (out != SPX_R_32I) {
    ValueDist d = operand_dist(type, k, out);
    if (twelve_bit) d.int_bound = std::min(d.int_bound, kTwelveBit);
    return d;
  }
  ValueDist d{type};
  if (twelve_bit) d.int_bound = kTwelveBit;
  return d;
}

Case make_emul_case(Rng& rng, const FormatSpec& f, TypePair tp, bool twelve_bit,
                    spxDataType_t out, const Dims& d, spxOrder_t bo, spxOrder_t co, int ab,
                    int64_t ld_pad, double density = 0.3) {
  Case c;
  const int64_t m = d.vector_rows * f.row_unit();
  const int64_t b_pad = ld_pad < 0 ? aligned_b_pad(d.n, tp.b) : ld_pad;
  ld_pad = std::max<int64_t>(ld_pad, 0);
  c.A = random_sparse(rng, f, m, d.k, emul_dist(tp.a, twelve_bit, d.k, out), density);
  c.B = random_dense(rng, d.k, d.n, bo, emul_dist(tp.b, false, d.k, out), b_pad);
  c.C = random_dense(rng, m, d.n, co, output_dist(out), ld_pad);
  const auto& abs = alpha_betas(out);
  c.s = {abs[ab % abs.size()].alpha, abs[ab % abs.size()].beta};
  c.what = f.name() + " A " + type_name(tp.a) + (twelve_bit ? " (12-bit values)" : "") + " B " +
           type_name(tp.b) + " C " + type_name(out) + " " + std::to_string(m) + "x" +
           std::to_string(d.k) + "x" + std::to_string(d.n) + " B " + order_name(bo) + " C " +
           order_name(co) + " alpha " + std::to_string(c.s.alpha) + " beta " +
           std::to_string(c.s.beta) + " ld_pad B " + std::to_string(b_pad) + " C " +
           std::to_string(ld_pad);
  return c;
}

}  // namespace

TEST_CASE("SR-BCRS emulated L16-R16, L16-R8, L16-R4, L12-R4: every V, format, output, order",
          "[srbcrs][emulated]") {
  UniqueHandle h = make_handle();
  // Every emulated pair with 16-bit A values, then L12-R4 (12-bit A values) for the 4-bit Bs.
  struct EmulTypes {
    TypePair tp;
    bool twelve_bit;
  };
  std::vector<EmulTypes> types;
  for (const TypePair& tp : kEmulPairs)
    for (bool twelve_bit : {false, true})
      if (!twelve_bit || spx::dtype::bits(tp.b) == 4) types.push_back({tp, twelve_bit});
  rotating_grid(61000, types, kDims,
                [&](Rng& rng, const EmulTypes& t, const FormatSpec& f, spxDataType_t out,
                    const Dims& d, int64_t pad, int variant) {
                  const spxOrder_t bo = (variant / 2) % 2 ? SPX_ORDER_COL : SPX_ORDER_ROW;
                  const spxOrder_t co = (variant / 4) % 2 ? SPX_ORDER_COL : SPX_ORDER_ROW;
                  run_case(h.get(), make_emul_case(rng, f, t.tp, t.twelve_bit, out, d, bo, co,
                                                   variant, pad));
                });
}

TEST_CASE("SR-BCRS emulated: extremes (-32768, 32767, the 12-bit ends), exact in int32",
          "[srbcrs][emulated]") {
  UniqueHandle h = make_handle();
  uint64_t seed = 62000;
  for (const TypePair& tp : kEmulPairs)
    for (bool twelve_bit : {false, true})
      for (int64_t v : {1, 2, 4, 8}) {
        if (twelve_bit && spx::dtype::bits(tp.b) != 4) continue;
        Rng rng(seed++);
        ValueDist da{tp.a}, db{tp.b};
        da.extremes = db.extremes = true;
        Case c;
        const int64_t m = 10 * v, k = 200, n = 70;
        c.A = random_bcrs(rng, m, k, v, da, 0.5);
        if (twelve_bit) c.A.values = twelve_bit_extremes(rng, c.A.value_slots());
        c.B = random_dense(rng, k, n, seed % 2 ? SPX_ORDER_COL : SPX_ORDER_ROW, db);
        c.C = random_dense(rng, m, n, SPX_ORDER_ROW, output_dist(SPX_R_32I));
        c.s = {-1, 1};
        c.what = "extremes BCRS(V=" + std::to_string(v) + ") A " + type_name(tp.a) +
                 (twelve_bit ? " (12-bit)" : "") + " B " + type_name(tp.b);
        run_case(h.get(), c);
      }
  // Only the most negative value in A and B: every product is 2^30, every slice product extreme.
  for (int64_t v : {2, 8}) {
    Rng rng(seed++);
    Case c;
    const int64_t m = 4 * v, k = 64, n = 40;
    c.A = random_bcrs(rng, m, k, v, ValueDist{SPX_R_16I}, 0.5);
    c.B = random_dense(rng, k, n, SPX_ORDER_ROW, ValueDist{SPX_R_16I});
    for (int64_t i = 0; i < c.A.value_slots(); ++i)
      spx::dtype::store_double(c.A.values.data(), SPX_R_16I, i, -32768.0);
    for (int64_t r = 0; r < k; ++r)
      for (int64_t col = 0; col < n; ++col)
        spx::dtype::store_double(c.B.data.data(), SPX_R_16I, c.B.linear(r, col), -32768.0);
    c.C = random_dense(rng, m, n, SPX_ORDER_ROW, output_dist(SPX_R_32I));
    c.s = {1, 0};
    c.what = "all -32768, L16-R16, V=" + std::to_string(v);
    run_case(h.get(), c);
  }
}

TEST_CASE("SR-BCRS emulated: schedules, misaligned and column-major 16-bit B, device scalars, "
          "a large multi-tile problem",
          "[srbcrs][emulated]") {
  UniqueHandle h = make_handle();
  uint64_t seed = 63000;
  int variant = 0;
  for (const TypePair& tp : {kEmulPairs[0], kEmulPairs[1], kEmulPairs[4]})
    for (int64_t v : {1, 4, 8})
      for (int split : {1, 2, 4}) {
        Rng rng(seed++);
        const Dims dims[] = {{7, 300, 130}, {9, 600, 65}, {5, 100, 200}};
        const Dims& d = dims[variant % 3];
        const spxDataType_t out = kOutputs[(variant / 3) % 3];
        RunOptions o;
        o.split = split;
        o.order = variant % 2 ? "tile" : "row";
        run_case(h.get(),
                 make_emul_case(rng, bcrs_spec(v), tp, false, out, d,
                                (variant / 2) % 2 ? SPX_ORDER_COL : SPX_ORDER_ROW,
                                (variant / 5) % 2 ? SPX_ORDER_COL : SPX_ORDER_ROW, variant,
                                variant % 2 == 0 ? -1 : 0),
                 o);
        ++variant;
      }
  // Row-major 16-bit B with 2-byte-aligned rows (odd ld) and a base shifted by 2 bytes: both go
  // through the workspace copy; device scalars.
  for (spxDataType_t out : kOutputs) {
    Rng rng(seed++);
    Case c = make_emul_case(rng, bcrs_spec(4), kEmulPairs[0], false, out, {9, 200, 77},
                            SPX_ORDER_ROW, SPX_ORDER_ROW, 1, 0);
    c.B = random_dense(rng, 200, 77, SPX_ORDER_ROW, emul_dist(SPX_R_16I, false, 200, out), 2);
    run_case(h.get(), c);
    RunOptions shifted;
    shifted.b_offset = 2;
    run_case(h.get(), c, shifted);
    RunOptions dev;
    dev.device_scalars = true;
    run_case(h.get(), c, dev);
  }
  // 2048 x 1024 x 320, V = 8, 10 %: many tiles, long rows; and the search over schedules.
  for (const TypePair& tp : {kEmulPairs[0], kEmulPairs[1], kEmulPairs[3]}) {
    Rng rng(seed++);
    run_case(h.get(), make_emul_case(rng, bcrs_spec(8), tp, false, SPX_R_32I, {256, 1024, 320},
                                     SPX_ORDER_ROW, SPX_ORDER_ROW, 0, 0, 0.1));
    RunOptions o;
    o.search = true;
    run_case(h.get(),
             make_emul_case(rng, bcrs_spec(8), tp, false, SPX_R_32F, {16, 500, 300},
                            SPX_ORDER_ROW, SPX_ORDER_ROW, 1, -1),
             o);
  }
  // DEFAULT takes 16I A (L16-Rx) on the family.
  for (const TypePair& tp : kEmulPairs) {
    Rng rng(seed++);
    RunOptions o;
    o.alg = SPX_SPMM_ALG_DEFAULT;
    run_case(h.get(),
             make_emul_case(rng, bcrs_spec(8), tp, false, SPX_R_32I, {6, 90, 40}, SPX_ORDER_ROW,
                            SPX_ORDER_ROW, 1, 0),
             o);
  }
}

TEST_CASE("SR-BCRS native int4 (m16n8k64, forced): every signedness, V, output, order, tail",
          "[srbcrs][native_int4]") {
  // The rule picks this path on sm_80 only; SPX_SRBCRS_FORCE_INT4=native runs it anywhere (on
  // Hopper at 68 TOP/s: the sizes stay small).
  UniqueHandle h = make_handle();
  uint64_t seed = 64000;
  int variant = 0;
  const TypePair pairs[] = {{SPX_R_4I, SPX_R_4I}, {SPX_R_4U, SPX_R_4U}, {SPX_R_4I, SPX_R_4U},
                            {SPX_R_4U, SPX_R_4I}};
  for (const TypePair& tp : pairs)
    for (int64_t v : {0, 1, 2, 4, 8})
      for (spxDataType_t out : kOutputs) {
        Rng rng(seed++);
        const Dims& d = kDims[(variant + variant / 8) % 8];
        const int64_t pad = variant % 2 == 0 ? -1 : (variant % 5 == 2 ? 4 : 0);
        const spxOrder_t bo = (variant / 2) % 2 ? SPX_ORDER_COL : SPX_ORDER_ROW;
        const spxOrder_t co = (variant / 4) % 2 ? SPX_ORDER_COL : SPX_ORDER_ROW;
        RunOptions o;
        o.int4 = "native";
        run_case(h.get(), make_case(rng, format_for(v), tp, out, d, bo, co, variant, pad), o);
        ++variant;
      }
  // Extremes (-8, 7; 0 .. 15), exact in int32; every schedule; the override back to unpacking.
  for (const TypePair& tp : pairs)
    for (int64_t v : {1, 8}) {
      Rng rng(seed++);
      ValueDist da{tp.a}, db{tp.b};
      da.extremes = db.extremes = true;
      Case c;
      const int64_t m = 6 * v, k = 300, n = 70;
      c.A = random_bcrs(rng, m, k, v, da, 0.5);
      c.B = random_dense(rng, k, n, SPX_ORDER_ROW, db);
      c.C = random_dense(rng, m, n, SPX_ORDER_ROW, output_dist(SPX_R_32I));
      c.s = {-1, 1};
      c.what = "native int4 extremes V=" + std::to_string(v) + " A " + type_name(tp.a) + " B " +
               type_name(tp.b);
      for (int split : {1, 2, 4}) {
        RunOptions o;
        o.int4 = "native";
        o.split = split;
        o.order = split == 2 ? "tile" : "row";
        run_case(h.get(), c, o);
      }
      RunOptions unpacked;
      unpacked.int4 = "unpacked";
      run_case(h.get(), c, unpacked);
    }
}

TEST_CASE("SR-BCRS emulated and native int4: spxPlanUpdateValues re-packs (and re-slices) values",
          "[srbcrs][emulated][native_int4]") {
  UniqueHandle h = make_handle();
  uint64_t seed = 65000;
  struct Update {
    TypePair tp;
    const char* int4;
  };
  const Update updates[] = {{kEmulPairs[0], nullptr},
                            {kEmulPairs[1], nullptr},
                            {kEmulPairs[4], nullptr},
                            {{SPX_R_4I, SPX_R_4U}, "native"}};
  for (const Update& u : updates)
    for (int64_t v : {0, 2, 8}) {
      Rng rng(seed++);
      const Case c = make_emul_case(rng, format_for(v), u.tp, false, SPX_R_32I, {12, 300, 96},
                                    SPX_ORDER_ROW, SPX_ORDER_ROW, 0, 0);
      check_update_values(
          h.get(), c, random_values(rng, emul_dist(u.tp.a, false, 300, SPX_R_32I), c.A.value_slots()),
          u.int4);
    }
}
