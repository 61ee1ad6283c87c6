// The ELL family (uniform sparsity) against the CPU reference: fp32 and fp16 (C 16F and 32F),
// both orders of B and C, n in {1, 7, 8, 16, 33, 130, 1024}, ELL inputs with padding slots,
// near-uniform CSR with skewed rows (HYB overflow), empty rows, alpha / beta (beta = 0 on a
// NaN-poisoned C), device pointer mode, spxPlanUpdateValues, spxSpMM_search, every candidate
// forced (SPX_ELL_FORCE_CANDIDATE), plan info; spxPruneUniform against spxHostPruneUniform.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "env_override.hpp"
#include "runner.hpp"
#include "spx_catch.hpp"

using namespace spx::test;
namespace ref = spx::ref;

#ifndef SPX_TEST_SM90_CODE
#define SPX_TEST_SM90_CODE 0
#endif

namespace {

struct Case {
  HostSparse A;
  HostDense B, C;
  ref::Scalars s;
  std::string what;
};

/// Options of one run of a case.
struct RunOptions {
  int candidate = -1;       ///< >= 0: forced through SPX_ELL_FORCE_CANDIDATE
  bool search = false;      ///< spxSpMM_search before the checked run
  bool device_scalars = false;
  spxSpMMAlg_t alg = SPX_SPMM_ALG_ELL;
};

/// The expectation with DenseMma's rounding bound (tensor-core GEMM tiles of the densified A), in
/// the form ref::tolerance takes: (terms + 2) * 2^-24 * magnitude, so terms -> T(terms) below.
///   Accumulation: each mma adds its products to the fp32 accumulator; tensor cores truncate and
///   align to the largest addend, so one step is taken to err by at most 2^-22 (4 units of 2^-24)
///   of the running magnitude. A step whose products are all zero (zeros of the dense tile) adds
///   exactly 0, so only steps holding a stored entry err.
///   fp16 (one mma per product, products exact in fp32): 4 terms units, T = 4 terms.
///   fp32, 3xTF32: a = a_b + a_s + e_a with a_b = tf32(a), a_s = tf32(a - a_b) (tf32: 11
///   significant bits, round to nearest): |a_s| <= 2^-11 |a| (1 + 2^-11), |e_a| <= 2^-11
///   |a - a_b| <= 2^-22 |a|; likewise b. The mma multiplies tf32 operands exactly (11 x 11 bits
///   fit fp32's 24) and the kernel sums a_s b_b + a_b b_s + a_b b_b; the dropped a_s b_s +
///   a_b e_b + e_a b_b + (smaller) are <= 3.01 * 2^-22 |a b| < 13 * 2^-24 |a b|. Each stored
///   entry enters 3 steps (its three split products): 12 terms units. T = 12 terms + 13.
///   Both: a constant times the fp32 FFMA bound ((terms + 2) units), not TF32's 2^13 times it.
ref::Expected dense_mma_expectation(const ref::Expected& e, bool fp32) {
  ref::Expected w = e;
  for (int32_t& t : w.terms) t = fp32 ? 12 * t + 13 : 4 * t;
  return w;
}

/// Analyzes and runs one case; checks the result, C's guards and the plan info. Returns the info.
spxPlanInfo_t run_case(spxHandle_t h, const Case& c, const ref::Expected& e, const RunOptions& o) {
  const std::string what = c.what + (o.candidate >= 0 ? ", candidate " + std::to_string(o.candidate) : "") +
                           (o.search ? ", searched" : "") + (o.device_scalars ? ", device scalars" : "");
  INFO(what);
  const DeviceSparse A = to_device(c.A);
  const DeviceDense B = to_device(c.B);
  HostDense c_init = c.C;
  guard_padding(c_init);
  if (c.s.beta == 0) poison_dense(c_init);
  DeviceDense C = to_device(c_init, 64);

  spxPlan_t raw = nullptr;
  {
    EnvOverride force("SPX_ELL_FORCE_CANDIDATE", o.candidate >= 0 ? std::to_string(o.candidate) : "");
    REQUIRE_SPX(spxSpMM_analyze(h, A.get(), B.get(), C.get(), SPX_R_32F, o.alg, &raw));
  }
  UniquePlan plan(raw);
  spxPlanInfo_t info{};
  REQUIRE_SPX(spxPlanGetInfo(plan.get(), &info));
  INFO("config: " << info.config);
  CHECK(info.family == SPX_SPMM_ALG_ELL);
  CHECK(info.candidates >= 2);
  CHECK(std::string(info.config).find("overflow") != std::string::npos);
  CHECK(info.predicted_speedup > 0);
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
  if (o.search) {
    // Search overwrites C many times: run it on a scratch C, then check a clean run.
    DeviceDense scratch = to_device(c_init);
    REQUIRE_SPX(spxSpMM_search(h, plan.get(), pa, A.get(), B.get(), pb, scratch.get(), workspace.get()));
    REQUIRE_SPX(spxPlanGetInfo(plan.get(), &info));
    CHECK(info.searched == 1);
  }
  const spxStatus_t st = spxSpMM(h, plan.get(), pa, A.get(), B.get(), pb, C.get(), workspace.get());
  spxSetPointerMode(h, SPX_POINTER_MODE_HOST);
  REQUIRE(st == SPX_STATUS_SUCCESS);
  device_sync();
  const HostDense got = download(C, c_init);
  const bool dense = std::string(info.config).find("dense_mma") != std::string::npos;
  const CheckResult r = check_dense_output(
      got, c_init, dense ? dense_mma_expectation(e, c.A.type == SPX_R_32F) : e);
  INFO(r.report);
  CHECK(r.ok);
  CHECK(C.buf.tail_intact());
  return info;
}

/// Every candidate forced, then the search, on one case.
void run_all_candidates(spxHandle_t h, const Case& c) {
  // DenseMma is listed (and its dense A kept) only where the rule picks it, unless asked.
  EnvOverride dense("SPX_ELL_DENSE_CANDIDATES", "1");
  const ref::Expected e = ref::spmm(c.A, c.B, c.C, c.s);
  REQUIRE(max_abs_expected(e) > 0);
  const spxPlanInfo_t info = run_case(h, c, e, {});
  for (int i = 0; i < info.candidates; ++i) {
    RunOptions o;
    o.candidate = i;
    run_case(h, c, e, o);
  }
}

/// Near-uniform CSR: rows of base +- 1 entries, every 31st row 3x longer (HYB overflow), every
/// 13th row empty; row 2's entries stored in decreasing column order (unsorted input).
HostSparse near_uniform_csr(Rng& rng, int64_t m, int64_t k, int64_t base, const ValueDist& dist) {
  HostSparse s;
  s.format = SPX_FORMAT_CSR;
  s.type = dist.type;
  s.rows = m;
  s.cols = k;
  s.ptr.push_back(0);
  std::vector<int32_t> all(static_cast<size_t>(k));
  for (int64_t r = 0; r < m; ++r) {
    int64_t len = std::min<int64_t>(k, std::max<int64_t>(0, base + r % 3 - 1));
    if (r % 31 == 5) len = std::min<int64_t>(k, 3 * base);
    if (r % 13 == 7) len = 0;
    for (int64_t i = 0; i < k; ++i) all[i] = static_cast<int32_t>(i);
    for (int64_t i = 0; i < len; ++i) std::swap(all[i], all[i + rng.uniform_int(0, k - 1 - i)]);
    std::vector<int32_t> row(all.begin(), all.begin() + len);
    std::sort(row.begin(), row.end());
    if (r == 2) std::reverse(row.begin(), row.end());
    s.idx.insert(s.idx.end(), row.begin(), row.end());
    s.ptr.push_back(static_cast<int32_t>(s.idx.size()));
  }
  s.values = random_values(rng, dist, static_cast<int64_t>(s.idx.size()));
  return s;
}

struct Types {
  spxDataType_t in, out;
};
const Types kTypes[] = {{SPX_R_32F, SPX_R_32F}, {SPX_R_16F, SPX_R_16F}, {SPX_R_16F, SPX_R_32F}};
const double kAlphaBeta[][2] = {{1, 0}, {0.5, -2}, {-1.5, 1}};

Case make_case(Rng& rng, bool csr, int64_t m, int64_t k, int64_t n, int64_t width, Types t,
               spxOrder_t bo, spxOrder_t co, int ab, int64_t ld_pad) {
  Case c;
  const ValueDist dist = operand_dist(t.in, k, t.out);
  c.A = csr ? near_uniform_csr(rng, m, k, width, dist) : random_ell(rng, m, k, width, dist);
  c.B = random_dense(rng, k, n, bo, dist, ld_pad);
  c.C = random_dense(rng, m, n, co, output_dist(t.out), ld_pad);
  c.s = {kAlphaBeta[ab][0], kAlphaBeta[ab][1]};
  c.what = std::string(csr ? "CSR(HYB)" : "ELL") + " " + type_name(t.in) + "->" + type_name(t.out) +
           " " + std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n) + " w=" +
           std::to_string(width) + " B " + order_name(bo) + " C " + order_name(co) + " alpha " +
           std::to_string(c.s.alpha) + " beta " + std::to_string(c.s.beta) + " ld_pad " +
           std::to_string(ld_pad);
  return c;
}

}  // namespace

TEST_CASE("ELL every candidate, fp32 / fp16, n and orders", "[ell]") {
  UniqueHandle h = make_handle();
  const int64_t ns[] = {1, 7, 8, 16, 33, 130, 1024};
  const spxOrder_t orders[][2] = {{SPX_ORDER_ROW, SPX_ORDER_ROW},
                                  {SPX_ORDER_COL, SPX_ORDER_COL},
                                  {SPX_ORDER_ROW, SPX_ORDER_COL},
                                  {SPX_ORDER_COL, SPX_ORDER_ROW}};
  uint64_t seed = 41000;
  int variant = 0;
  for (const Types& t : kTypes)
    for (int64_t n : ns)
      for (int oi = 0; oi < 4; ++oi) {
        // Rotate the rest so every (n, order) sees ELL and CSR, every alpha/beta and ld pad.
        Rng rng(seed++);
        const bool csr = (variant & 1) == 1;
        const int64_t m = n >= 1024 ? 37 : 67 + 2 * (variant % 5);
        const int64_t k = 129 + 8 * (variant % 7);
        const int64_t width = 11 + 5 * (variant % 9);
        const Case c = make_case(rng, csr, m, k, n, width, t, orders[oi][0], orders[oi][1],
                                 variant % 3, variant % 4 == 3 ? 3 : 0);
        run_all_candidates(h.get(), c);
        ++variant;
      }
}

TEST_CASE("ELL decode staging (rotated copy, half chunks, column parts): k and n tails, every candidate",
          "[ell]") {
  // The staged SlotSplit's B chunk (k = 300, 1000, 4100, each block starting its copy at its own
  // offset) over whole and half-width chunks and two column parts, for every n the decode kernel
  // takes, with m = 97 (fewer rows than one pass) and 389. B row-major with 16-byte rows (every
  // other case one more 16-byte piece of padding), near-uniform CSR (empty rows, HYB overflow)
  // and ELL inputs, C both orders, every alpha / beta. The arithmetic is SlotSplit's (fp32 FFMA per product): the expectation is
  // the reference's FFMA bound.
  UniqueHandle h = make_handle();
  const int64_t ks[] = {300, 1000, 4100};
  const int64_t ns[] = {1, 3, 8, 12, 16};
  uint64_t seed = 47000;
  int variant = 0;
  for (const Types& t : kTypes)
    for (int64_t k : ks)
      for (int64_t n : ns) {
        Rng rng(seed++);
        const int64_t elem = t.in == SPX_R_32F ? 4 : 2;
        const int64_t ld = (n * elem + 15) / 16 * 16 / elem + (variant % 2 == 1 ? 16 / elem : 0);
        const int64_t m = variant % 3 == 0 ? 97 : 389;
        const int64_t width = k / 10 + variant % 7;
        const Case c = make_case(rng, variant % 2 == 0, m, k, n, width, t, SPX_ORDER_ROW,
                                 variant % 4 < 2 ? SPX_ORDER_ROW : SPX_ORDER_COL, variant % 3,
                                 ld - n);
        run_all_candidates(h.get(), c);
        ++variant;
      }
}

TEST_CASE("ELL decode staging with column-major B: register-transposed 16-byte columns; k and n tails",
          "[ell]") {
  // Column-major B (a framework's activations X^T) whose columns are 16-byte aligned is staged
  // in tiles of 16 B x 16 B, transposed in registers, with the last k mod (16 / element) rows
  // copied one by one; columns past n within the chunk are zero. k = 1003 and 4100 leave such a
  // tail, n = 5, 9, 12 and 13 a column tail, ld = k rounded up (+ one more 16-byte piece every
  // other case); the unaligned ld (k + 1) keeps the element copy. Every candidate runs, ELL and
  // near-uniform CSR, C both orders, every alpha / beta; the bound is SlotSplit's FFMA bound.
  UniqueHandle h = make_handle();
  const int64_t ks[] = {300, 1003, 4100};
  uint64_t seed = 47500;
  int variant = 0;
  for (const Types& t : kTypes) {
    const int64_t per = t.in == SPX_R_32F ? 4 : 8;  // elements per 16 bytes
    const int64_t ns[] = {per / 2 + 2, per, per + 1, 12, 13, 16};
    for (int64_t k : ks)
      for (int64_t n : ns) {
        Rng rng(seed++);
        const int64_t aligned_ld = (k + per - 1) / per * per + (variant % 2 == 1 ? per : 0);
        const int64_t ld = variant % 5 == 4 ? k + 1 : aligned_ld;
        const int64_t m = variant % 3 == 0 ? 97 : 389;
        const int64_t width = k / 10 + variant % 7;
        const Case c = make_case(rng, variant % 2 == 0, m, k, n, width, t, SPX_ORDER_COL,
                                 variant % 4 < 2 ? SPX_ORDER_ROW : SPX_ORDER_COL, variant % 3,
                                 ld - k);
        run_all_candidates(h.get(), c);
        ++variant;
      }
  }
}

TEST_CASE("ELL decode: B's chunk copied by the TMA unit (sm_90) where it is B's whole rows",
          "[ell]") {
  // One chunk of B's whole rows (row-major, ld == n == the chunk's NT): on sm_90 the plan has
  // the TMA unit copy it (cp.async.bulk, "bulk copy" in the config) and 32-byte rows (fp16
  // n = 16, fp32 n = 8) are staged as they are, odd lanes reading a row's second half first.
  // The threads' copy of the same chunk is a candidate (run_all_candidates forces each). Rows
  // of 2 bytes need k x 2 a multiple of 16 (k = 1000; k = 1004 stays with the threads).
  // Near-uniform CSR (HYB tail: its slots use the same halves) and ELL, C both orders.
  UniqueHandle h = make_handle();
  int device = 0, major = 0;
  REQUIRE(cudaGetDevice(&device) == cudaSuccess);
  REQUIRE(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) == cudaSuccess);
  // The bulk copy is sm_90 code: taken where the library holds code for 90 or later
  // (SPX_TESTS_SM90_CODE, tests/CMakeLists.txt; a build for sm_80 only runs its sm_80 code on
  // an H100).
  const bool bulk_here = major >= 9 && SPX_TEST_SM90_CODE != 0;
  struct Shape {
    Types t;
    int64_t m, k, n, width;
    bool rule_bulk;  // the rule's plan copies by the TMA unit on sm_90 (one chunk of NT = n)
  };
  // The bulk-copied chunk is the rule's wherever it is one chunk of whole rows (fp16 n = 16 and
  // fp32 n = 8 included: one chunk of 32-byte rows); the threads copy the others.
  const Shape shapes[] = {{kTypes[1], 2000, 1000, 16, 200, true}, {kTypes[2], 389, 1000, 16, 200, true},
                          {kTypes[2], 2000, 1000, 16, 203, true}, {kTypes[1], 389, 1000, 8, 100, true},
                          {kTypes[1], 389, 1000, 1, 100, true},   {kTypes[1], 389, 1004, 1, 100, false},
                          {kTypes[0], 389, 1000, 8, 100, true},   {kTypes[0], 2000, 1000, 4, 100, true},
                          {kTypes[0], 389, 1000, 1, 100, true},   {kTypes[0], 389, 1000, 16, 100, false}};
  uint64_t seed = 48000;
  int variant = 0;
  for (const Shape& sh : shapes) {
    Rng rng(seed++);
    const Case c = make_case(rng, variant % 2 == 1, sh.m, sh.k, sh.n, sh.width + variant % 3, sh.t,
                             SPX_ORDER_ROW, variant % 4 < 2 ? SPX_ORDER_ROW : SPX_ORDER_COL,
                             variant % 3, 0);
    const ref::Expected e = ref::spmm(c.A, c.B, c.C, c.s);
    const spxPlanInfo_t info = run_case(h.get(), c, e, {});
    INFO(c.what << "; config: " << info.config);
    CHECK((std::string(info.config).find("bulk copy") != std::string::npos) ==
          (sh.rule_bulk && bulk_here));
    run_all_candidates(h.get(), c);
    ++variant;
  }
}

TEST_CASE("ELL: Inf / NaN in rows of B that A never references stay out of C, every candidate",
          "[ell]") {
  // A sparse product never multiplies B's row c unless an entry of A sits in column c; the dense
  // tiles of DenseMma do (by zero), so its blocks that see a non-finite B value recompute slot by
  // slot; the decode kernels must keep padding slots (column 0 in the plan) away from B. A uses
  // even columns >= 2 only; B's odd rows and row 0 are NaN / +Inf / -Inf.
  UniqueHandle h = make_handle();
  uint64_t seed = 46000;
  for (const Types& t : kTypes)
    for (int64_t n : {8, 16, 33, 130}) {
      // n = 8, 16: the decode kernels, whose padding slots of a row's last step gather a zero
      // row (width 123: rows end mid-vector; the ELL width's last slots are padding).
      Rng rng(seed++);
      const int64_t m = 150, half_k = 300;
      Case c = make_case(rng, false, m, half_k, n, n <= 16 ? 123 : 120, t, SPX_ORDER_ROW,
                         SPX_ORDER_ROW, 1, 0);
      // Columns 2 i + 2: row 0 of B (where the plan's padding slots point) is non-finite too.
      for (int32_t& i : c.A.idx)
        if (i >= 0) i = 2 * i + 2;
      const int64_t k = 2 * half_k + 2;
      c.A.cols = k;
      c.B = random_dense(rng, k, n, n == 33 || n == 8 ? SPX_ORDER_ROW : SPX_ORDER_COL,
                         operand_dist(t.in, k, t.out), 0);
      for (int64_t r = 0; r < k; r += r == 0 ? 1 : 2)
        for (int64_t j = 0; j < n; ++j) {
          const int kind = static_cast<int>((r + j) % 3);
          const float f = kind == 0 ? std::numeric_limits<float>::quiet_NaN()
                                    : (kind == 1 ? 1.0f : -1.0f) * std::numeric_limits<float>::infinity();
          const int64_t at = c.B.linear(r, j);
          if (t.in == SPX_R_32F) {
            std::memcpy(c.B.data.data() + at * 4, &f, 4);
          } else {
            const uint16_t bits = kind == 0 ? 0x7E00 : (kind == 1 ? 0x7C00 : 0xFC00);
            std::memcpy(c.B.data.data() + at * 2, &bits, 2);
          }
        }
      c.what += " (A on even columns >= 2, B's odd rows and row 0 non-finite)";
      run_all_candidates(h.get(), c);
    }
}

TEST_CASE("ELL HYB: skewed CSR under DEFAULT takes the ELL family with bounded padding", "[ell]") {
  UniqueHandle h = make_handle();
  for (const Types& t : kTypes) {
    Rng rng(42000 + static_cast<uint64_t>(t.in) * 7 + static_cast<uint64_t>(t.out));
    const Case c = make_case(rng, true, 300, 512, 16, 40, t, SPX_ORDER_ROW, SPX_ORDER_ROW, 1, 0);
    const ref::Expected e = ref::spmm(c.A, c.B, c.C, c.s);
    RunOptions o;
    o.alg = SPX_SPMM_ALG_DEFAULT;
    const spxPlanInfo_t info = run_case(h.get(), c, e, o);
    const int64_t nnz = static_cast<int64_t>(c.A.idx.size());
    CHECK(info.nnz == nnz);
    CHECK(info.padded_nnz >= nnz);
    // padded_nnz = ELL slots + overflow; its padding is bounded by 25 % of nnz, plus the row
    // pitch's alignment to 8 slots (at most 7 per row).
    CHECK(static_cast<double>(info.padded_nnz - nnz) <=
          0.25 * static_cast<double>(nnz) + 7.0 * static_cast<double>(c.A.rows));
    CHECK(std::string(info.config).find("overflow 0 entries") == std::string::npos);
  }
}

TEST_CASE("ELL refusals: bfloat16 and skewed CSR stay on the fallback", "[ell]") {
  UniqueHandle h = make_handle();
  Rng rng(43000);
  // bfloat16: forced ELL is NOT_SUPPORTED, DEFAULT runs the fallback.
  {
    const ValueDist d = operand_dist(SPX_R_16BF, 64, SPX_R_16BF);
    const HostSparse a = random_ell(rng, 32, 64, 8, d);
    const DeviceSparse A = to_device(a);
    const DeviceDense B = to_device(random_dense(rng, 64, 8, SPX_ORDER_ROW, d));
    const DeviceDense C = to_device(random_dense(rng, 32, 8, SPX_ORDER_ROW, output_dist(SPX_R_16BF)));
    spxPlan_t p = nullptr;
    CHECK_SPX_STATUS(spxSpMM_analyze(h.get(), A.get(), B.get(), C.get(), SPX_R_32F, SPX_SPMM_ALG_ELL, &p),
                     SPX_STATUS_NOT_SUPPORTED);
  }
  // Half the rows empty, the others long: no HYB split bounds the padding and the overflow.
  {
    const ValueDist d = operand_dist(SPX_R_32F, 128, SPX_R_32F);
    HostSparse a = random_csr(rng, 64, 128, d, 0.5);
    a.ptr.assign(1, 0);
    a.idx.clear();
    for (int r = 0; r < 64; ++r) {
      if (r % 4 == 0)
        for (int j = 0; j < 100; ++j) a.idx.push_back(j);
      a.ptr.push_back(static_cast<int32_t>(a.idx.size()));
    }
    a.values = random_values(rng, d, static_cast<int64_t>(a.idx.size()));
    const DeviceSparse A = to_device(a);
    const DeviceDense B = to_device(random_dense(rng, 128, 8, SPX_ORDER_ROW, d));
    const DeviceDense C = to_device(random_dense(rng, 64, 8, SPX_ORDER_ROW, output_dist(SPX_R_32F)));
    spxPlan_t p = nullptr;
    CHECK_SPX_STATUS(spxSpMM_analyze(h.get(), A.get(), B.get(), C.get(), SPX_R_32F, SPX_SPMM_ALG_ELL, &p),
                     SPX_STATUS_NOT_SUPPORTED);
    REQUIRE_SPX(spxSpMM_analyze(h.get(), A.get(), B.get(), C.get(), SPX_R_32F, SPX_SPMM_ALG_DEFAULT, &p));
    UniquePlan plan(p);
    spxPlanInfo_t info{};
    REQUIRE_SPX(spxPlanGetInfo(p, &info));
    CHECK(info.family == SPX_SPMM_ALG_FALLBACK);
  }
}

TEST_CASE("ELL device pointer mode, search, empty and wide shapes", "[ell]") {
  UniqueHandle h = make_handle();
  uint64_t seed = 44000;
  for (const Types& t : kTypes) {
    for (int64_t n : {8, 130}) {
      Rng rng(seed++);
      const Case c = make_case(rng, false, 90, 200, n, 30, t, SPX_ORDER_COL, SPX_ORDER_ROW, 1, 0);
      const ref::Expected e = ref::spmm(c.A, c.B, c.C, c.s);
      RunOptions o;
      o.device_scalars = true;
      run_case(h.get(), c, e, o);
      // Search with beta = 0 (search overwrites C), results equal to the unsearched plan's.
      Rng rng2(seed++);
      const Case z = make_case(rng2, true, 90, 200, n, 30, t, SPX_ORDER_ROW, SPX_ORDER_COL, 0, 0);
      const ref::Expected ez = ref::spmm(z.A, z.B, z.C, z.s);
      RunOptions s;
      s.search = true;
      run_case(h.get(), z, ez, s);
      run_case(h.get(), z, ez, {});
    }
  }
  // 32-bit indices (k > 65536), a decode-sized shape, and a single row.
  {
    Rng rng(seed++);
    run_all_candidates(h.get(), make_case(rng, false, 40, 70001, 7, 25, kTypes[1], SPX_ORDER_ROW,
                                          SPX_ORDER_ROW, 1, 0));
  }
  {
    Rng rng(seed++);
    const Case c = make_case(rng, false, 2048, 1024, 16, 100, kTypes[1], SPX_ORDER_COL,
                             SPX_ORDER_COL, 0, 0);
    run_case(h.get(), c, ref::spmm(c.A, c.B, c.C, c.s), {});
  }
  {
    Rng rng(seed++);
    run_all_candidates(h.get(), make_case(rng, false, 1, 50, 33, 50, kTypes[0], SPX_ORDER_ROW,
                                          SPX_ORDER_ROW, 2, 0));
  }
  // fp32 at 40-60 % density (DenseMma among the candidates, both tile heights): several 32-deep
  // stages and block tiles, tails in m, k and n, B with 16-byte rows and without (ld pad 3), the
  // HYB tail (CSR), column-major B through the workspace.
  {
    Rng rng(seed++);
    run_all_candidates(h.get(), make_case(rng, false, 300, 1000, 260, 400, kTypes[0], SPX_ORDER_COL,
                                          SPX_ORDER_ROW, 1, 0));
  }
  {
    Rng rng(seed++);
    run_all_candidates(h.get(), make_case(rng, true, 257, 777, 129, 300, kTypes[0], SPX_ORDER_ROW,
                                          SPX_ORDER_COL, 2, 3));
  }
}

TEST_CASE("ELL spxPlanUpdateValues re-densifies DenseMma's dense A", "[ell]") {
  // DenseMma multiplies the plan's dense copy of A: new values must reach it too.
  UniqueHandle h = make_handle();
  EnvOverride dense("SPX_ELL_DENSE_CANDIDATES", "1");
  uint64_t seed = 47000;
  int dense_runs = 0;
  for (const Types& t : kTypes) {
    Rng rng(seed++);
    const Case c = make_case(rng, false, 130, 300, 70, 120, t, SPX_ORDER_ROW, SPX_ORDER_ROW, 1, 0);
    INFO(c.what);
    DeviceSparse A = to_device(c.A);
    const DeviceDense B = to_device(c.B);
    spxPlanInfo_t first{};
    {
      spxPlan_t raw = nullptr;
      REQUIRE_SPX(spxSpMM_analyze(h.get(), A.get(), B.get(), to_device(c.C).get(), SPX_R_32F,
                                  SPX_SPMM_ALG_ELL, &raw));
      UniquePlan plan(raw);
      REQUIRE_SPX(spxPlanGetInfo(plan.get(), &first));
    }
    for (int i = 0; i < first.candidates; ++i) {
      EnvOverride force("SPX_ELL_FORCE_CANDIDATE", std::to_string(i));
      DeviceSparse Ai = to_device(c.A);
      DeviceDense C = to_device(c.C);
      spxPlan_t raw = nullptr;
      REQUIRE_SPX(spxSpMM_analyze(h.get(), Ai.get(), B.get(), C.get(), SPX_R_32F, SPX_SPMM_ALG_ELL,
                                  &raw));
      UniquePlan plan(raw);
      spxPlanInfo_t info{};
      REQUIRE_SPX(spxPlanGetInfo(plan.get(), &info));
      if (std::string(info.config).find("dense_mma") == std::string::npos) continue;
      ++dense_runs;
      HostSparse a2 = c.A;
      const std::vector<uint8_t> fresh =
          random_values(rng, operand_dist(t.in, 300, t.out), a2.value_slots());
      const size_t eb = t.in == SPX_R_16F ? 2 : 4;
      for (int64_t j = 0; j < a2.value_slots(); ++j)
        if (a2.idx[j] >= 0) std::memcpy(&a2.values[j * eb], &fresh[j * eb], eb);
      Ai.values.upload(a2.values);
      REQUIRE_SPX(spxPlanUpdateValues(h.get(), plan.get(), Ai.get()));
      const ScalarBytes alpha = make_scalar(c.s.alpha, c.C.type), beta = make_scalar(c.s.beta, c.C.type);
      DeviceBuffer ws(info.workspace_bytes);
      REQUIRE_SPX(spxSpMM(h.get(), plan.get(), alpha.get(), Ai.get(), B.get(), beta.get(), C.get(),
                          ws.get()));
      device_sync();
      const ref::Expected e = ref::spmm(a2, c.B, c.C, c.s);
      const CheckResult r = check_dense_output(download(C, c.C), c.C,
                                               dense_mma_expectation(e, t.in == SPX_R_32F));
      INFO("candidate " << i << ": " << info.config << "\n" << r.report);
      CHECK(r.ok);
    }
  }
  CHECK(dense_runs >= 2 * static_cast<int>(sizeof(kTypes) / sizeof(kTypes[0])));
}

TEST_CASE("ELL spxPlanUpdateValues re-packs values without re-analysis", "[ell]") {
  UniqueHandle h = make_handle();
  uint64_t seed = 45000;
  for (const Types& t : kTypes)
    for (bool csr : {false, true}) {
      Rng rng(seed++);
      Case c = make_case(rng, csr, 70, 150, 16, 20, t, SPX_ORDER_ROW, SPX_ORDER_ROW, 1, 0);
      INFO(c.what);
      DeviceSparse A = to_device(c.A);
      const DeviceDense B = to_device(c.B);
      DeviceDense C = to_device(c.C);
      spxPlan_t raw = nullptr;
      REQUIRE_SPX(spxSpMM_analyze(h.get(), A.get(), B.get(), C.get(), SPX_R_32F, SPX_SPMM_ALG_ELL, &raw));
      UniquePlan plan(raw);
      // New values in the same device array (ELL padded slots keep their garbage).
      HostSparse a2 = c.A;
      const std::vector<uint8_t> fresh =
          random_values(rng, operand_dist(t.in, 150, t.out), a2.value_slots());
      const size_t eb = t.in == SPX_R_16F ? 2 : 4;
      for (int64_t i = 0; i < a2.value_slots(); ++i)
        if (a2.format != SPX_FORMAT_ELL || a2.idx[i] >= 0)
          std::memcpy(&a2.values[i * eb], &fresh[i * eb], eb);
      A.values.upload(a2.values);
      REQUIRE_SPX(spxPlanUpdateValues(h.get(), plan.get(), A.get()));
      const ScalarBytes alpha = make_scalar(c.s.alpha, c.C.type), beta = make_scalar(c.s.beta, c.C.type);
      spxPlanInfo_t info{};
      REQUIRE_SPX(spxPlanGetInfo(plan.get(), &info));
      DeviceBuffer ws(info.workspace_bytes);
      REQUIRE_SPX(spxSpMM(h.get(), plan.get(), alpha.get(), A.get(), B.get(), beta.get(), C.get(), ws.get()));
      device_sync();
      const ref::Expected e = ref::spmm(a2, c.B, c.C, c.s);
      const CheckResult r = check_dense_output(download(C, c.C), c.C, e);
      INFO(r.report);
      CHECK(r.ok);
    }
}

namespace {

/// A dense matrix with many equal magnitudes (ties), signed zeros, an infinity and a NaN.
std::vector<float> prune_input(Rng& rng, int64_t count) {
  std::vector<float> d(static_cast<size_t>(count));
  for (auto& v : d) {
    const int64_t q = rng.uniform_int(0, 9);
    v = static_cast<float>(q) * 0.25f * (rng.chance(0.5) ? -1.0f : 1.0f);
  }
  if (count > 7) {
    d[3] = std::numeric_limits<float>::quiet_NaN();
    d[5] = std::numeric_limits<float>::infinity();
    d[7] = -0.0f;
  }
  return d;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace

TEST_CASE("spxPruneUniform matches spxHostPruneUniform bit for bit", "[ell][prune]") {
  UniqueHandle h = make_handle();
  struct P {
    int64_t rows, cols, width, ld_pad;
    spxOrder_t order;
  };
  const P cases[] = {{13, 40, 7, 0, SPX_ORDER_ROW}, {13, 40, 7, 3, SPX_ORDER_COL},
                     {64, 300, 120, 0, SPX_ORDER_ROW}, {5, 1000, 1, 1, SPX_ORDER_COL},
                     {3, 9, 9, 0, SPX_ORDER_ROW},    {100, 513, 256, 0, SPX_ORDER_COL}};
  uint64_t seed = 46000;
  for (const P& p : cases) {
    Rng rng(seed++);
    const int64_t ld = (p.order == SPX_ORDER_ROW ? p.cols : p.rows) + p.ld_pad;
    const int64_t lines = p.order == SPX_ORDER_ROW ? p.rows : p.cols;
    const std::vector<float> dense = prune_input(rng, ld * lines);
    INFO(p.rows << "x" << p.cols << " width " << p.width << " " << order_name(p.order));
    const int64_t slots = p.rows * p.width;
    std::vector<int32_t> hcol(static_cast<size_t>(slots));
    std::vector<float> hval(static_cast<size_t>(slots));
    REQUIRE_SPX(spxHostPruneUniform(p.rows, p.cols, dense.data(), ld, p.order, p.width, hcol.data(),
                                    hval.data()));
    const DeviceBuffer d = DeviceBuffer::from(dense);
    DeviceBuffer dcol(slots * 4), dval(slots * 4);
    REQUIRE_SPX(spxPruneUniform(h.get(), p.rows, p.cols, d.get(), ld, p.order, SPX_R_32F, p.width,
                                dcol.get(), dval.get()));
    device_sync();
    std::vector<int32_t> gcol(static_cast<size_t>(slots));
    std::vector<float> gval(static_cast<size_t>(slots));
    dcol.download(gcol.data(), slots * 4);
    dval.download(gval.data(), slots * 4);
    CHECK(gcol == hcol);
    CHECK(same_bits(gval, hval));
  }
}

TEST_CASE("spxPruneUniform bad arguments", "[ell][prune]") {
  UniqueHandle h = make_handle();
  const std::vector<float> host(16, 1.0f);
  const DeviceBuffer d = DeviceBuffer::from(host);
  DeviceBuffer col(64), val(64);
  void* c = col.get();
  void* v = val.get();
  const spxOrder_t row = SPX_ORDER_ROW;
  CHECK_SPX_INVALID(spxPruneUniform(nullptr, 4, 4, d.get(), 4, row, SPX_R_32F, 2, c, v));
  CHECK_SPX_INVALID(spxPruneUniform(h.get(), -1, 4, d.get(), 4, row, SPX_R_32F, 2, c, v));
  CHECK_SPX_INVALID(spxPruneUniform(h.get(), 4, -1, d.get(), 4, row, SPX_R_32F, 2, c, v));
  CHECK_SPX_INVALID(spxPruneUniform(h.get(), 4, 4, d.get(), 4, static_cast<spxOrder_t>(7), SPX_R_32F, 2, c, v));
  CHECK_SPX_INVALID(spxPruneUniform(h.get(), 4, 4, d.get(), 4, row, static_cast<spxDataType_t>(99), 2, c, v));
  CHECK_SPX_STATUS(spxPruneUniform(h.get(), 4, 4, d.get(), 4, row, SPX_R_16F, 2, c, v),
                   SPX_STATUS_NOT_SUPPORTED);
  CHECK_SPX_INVALID(spxPruneUniform(h.get(), 4, 4, d.get(), 3, row, SPX_R_32F, 2, c, v));
  CHECK_SPX_INVALID(spxPruneUniform(h.get(), 4, 4, nullptr, 4, row, SPX_R_32F, 2, c, v));
  CHECK_SPX_INVALID(spxPruneUniform(h.get(), 4, 4, d.get(), 4, row, SPX_R_32F, 0, c, v));
  CHECK_SPX_INVALID(spxPruneUniform(h.get(), 4, 4, d.get(), 4, row, SPX_R_32F, 5, c, v));
  CHECK_SPX_INVALID(spxPruneUniform(h.get(), 4, 4, d.get(), 4, row, SPX_R_32F, 2, nullptr, v));
  CHECK_SPX_INVALID(spxPruneUniform(h.get(), 4, 4, d.get(), 4, row, SPX_R_32F, 2, c, nullptr));
  CHECK_SPX_INVALID(spxPruneUniform(h.get(), 4, 4, host.data(), 4, row, SPX_R_32F, 2, c, v));
  CHECK_SPX_STATUS(spxPruneUniform(h.get(), 0, 4, nullptr, 4, row, SPX_R_32F, 2, nullptr, nullptr),
                   SPX_STATUS_SUCCESS);
}
