// The dense route (src/families/dense, engine/route.cpp) on a GPU: every float type (fp32
// pedantic and TF32, fp16, bf16, each with C of A's type or fp32), both B orders, both C orders,
// host and device pointer modes, beta 0 (C NaN-poisoned: must not propagate) and beta != 0, on
// CSR, BCRS, NM and ELL inputs forced onto the dense route (SPX_DENSE_ROUTE_ALWAYS and
// SPX_SPMM_ALG_DENSE), checked against the CPU reference; plan info; spxPlanUpdateValues
// re-densifying; what cannot take the dense route; concurrent executes of one dense plan; and AUTO
// routing fp16 N:M 2:4 (4096 x 4096, N = 256, today on the generic fallback kernel) to dense while
// NEVER keeps the sparse family.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "env_override.hpp"
#include "runner.hpp"
#include "runtime/dtype.hpp"
#include "spx_catch.hpp"

using namespace spx::test;
namespace ref = spx::ref;

namespace {

// ---------------------------------------------------------------- options and one problem

/// spxPlanOptions_t, destroyed on scope exit.
struct Options {
  spxPlanOptions_t o = nullptr;
  Options(int32_t route, bool tf32, bool autotune = false) {
    SPX_CHECK_OK(spxCreatePlanOptions(&o));
    const int32_t t = tf32 ? 1 : 0, a = autotune ? 1 : 0;
    SPX_CHECK_OK(spxPlanOptionsSet(o, SPX_PLAN_OPTION_DENSE_ROUTE, &route, sizeof route));
    SPX_CHECK_OK(spxPlanOptionsSet(o, SPX_PLAN_OPTION_ALLOW_TF32, &t, sizeof t));
    SPX_CHECK_OK(spxPlanOptionsSet(o, SPX_PLAN_OPTION_AUTOTUNE, &a, sizeof a));
  }
  ~Options() { spxDestroyPlanOptions(o); }
  Options(const Options&) = delete;
  Options& operator=(const Options&) = delete;
};

std::string text(const char* s, size_t cap) { return std::string(s, strnlen(s, cap)); }
std::string kernel_of(const spxPlanInfo_t& i) { return text(i.kernel, sizeof i.kernel); }
std::string config_of(const spxPlanInfo_t& i) { return text(i.config, sizeof i.config); }

struct Problem {
  HostSparse A;
  HostDense B, C;  ///< C: clean old values (the reference's input)
  DeviceSparse dA;
  DeviceDense dB;
  spxDataType_t compute = SPX_R_32F;
};

Problem make_problem(uint64_t seed, const FormatSpec& f, int64_t m, int64_t k, int64_t n,
                     spxDataType_t in, spxDataType_t out, spxOrder_t bo, spxOrder_t co) {
  Rng rng(seed);
  Problem p;
  p.A = random_sparse(rng, f, m, k, operand_dist(in, k, out));
  p.B = random_dense(rng, k, n, bo, operand_dist(in, k, out), 1);
  p.C = random_dense(rng, m, n, co, output_dist(out), 1);
  p.dA = to_device(p.A);
  p.dB = to_device(p.B);
  p.compute = compute_type_for(in);
  return p;
}

spxStatus_t analyze(spxHandle_t h, const Problem& p, spxSpMMAlg_t alg, const Options& o,
                    const DeviceDense& dC, UniquePlan& plan) {
  spxPlan_t raw = nullptr;
  const spxStatus_t st = spxSpMM_analyzeWithOptions(h, p.dA.get(), p.dB.get(), dC.get(), p.compute,
                                                    alg, o.o, &raw);
  plan.reset(st == SPX_STATUS_SUCCESS ? raw : nullptr);
  return st;
}

/// TF32 rounds A and B to 10-bit mantissas: each product is off by up to ~2^-9 of itself (the
/// bound allows 2^-8 of the sum of |products|; pedantic fp32 is checked at ~k x 2^-24).
CheckResult check_tf32(const HostDense& got, const ref::Expected& e) {
  CheckResult r;
  std::ostringstream os;
  for (int64_t i = 0; i < got.rows; ++i)
    for (int64_t j = 0; j < got.cols; ++j) {
      const size_t x = static_cast<size_t>(i * got.cols + j);
      const double v = spx::dtype::load_double(got.data.data(), got.type, got.linear(i, j));
      const double tol = std::ldexp(e.magnitude[x], -8) + 1e-6;
      if (!(std::fabs(v - e.value[x]) <= tol)) {
        if (r.mismatches++ < 5)
          os << "(" << i << ", " << j << "): got " << v << ", want " << e.value[x] << " +- " << tol
             << "\n";
      }
    }
  r.ok = r.mismatches == 0;
  r.report = os.str();
  return r;
}

// ---------------------------------------------------------------- one forced dense run

struct Run {
  FormatSpec f;
  spxDataType_t in = SPX_R_32F, out = SPX_R_32F;
  bool tf32 = false;
  spxOrder_t bo = SPX_ORDER_ROW, co = SPX_ORDER_ROW;
  bool device_scalars = false;
  double alpha = 1.5, beta = 0;
  bool forced_alg = false;  ///< SPX_SPMM_ALG_DENSE; else DEFAULT with SPX_DENSE_ROUTE_ALWAYS
  int64_t m = 48, k = 40, n = 24;
  uint64_t seed = 1;

  std::string what() const {
    std::ostringstream os;
    os << f.name() << " A " << type_name(in) << " C " << type_name(out) << (tf32 ? " TF32" : "")
       << ", B " << order_name(bo) << ", C " << order_name(co) << ", "
       << (device_scalars ? "device" : "host") << " scalars, alpha " << alpha << " beta " << beta
       << ", " << (forced_alg ? "SPX_SPMM_ALG_DENSE" : "ALWAYS") << ", m " << m << " k " << k
       << " n " << n << ", seed " << seed;
    return os.str();
  }
};

void run_forced(spxHandle_t h, const Run& c) {
  INFO(c.what());
  Problem p = make_problem(c.seed, c.f, c.m, c.k, c.n, c.in, c.out, c.bo, c.co);
  HostDense c_init = p.C;
  guard_padding(c_init);
  if (c.beta == 0) poison_dense(c_init);
  DeviceDense dC = to_device(c_init, 256);

  const Options o(c.forced_alg ? SPX_DENSE_ROUTE_AUTO : SPX_DENSE_ROUTE_ALWAYS, c.tf32);
  UniquePlan plan;
  REQUIRE_SPX(analyze(h, p, c.forced_alg ? SPX_SPMM_ALG_DENSE : SPX_SPMM_ALG_DEFAULT, o, dC, plan));
  spxPlanInfo_t info{};
  REQUIRE_SPX(spxPlanGetInfo(plan.get(), &info));
  CHECK(info.family == SPX_SPMM_ALG_DENSE);
  CHECK(info.route == 1);
  CHECK(kernel_of(info) == "cublas_gemm_ex");
  const std::string cfg = config_of(info);
  CHECK(cfg.find(std::string("B ") + order_name(c.bo)) != std::string::npos);
  CHECK(cfg.find(std::string("C ") + order_name(c.co)) != std::string::npos);
  if (c.in == SPX_R_32F) CHECK(cfg.find(c.tf32 ? "TF32" : "pedantic") != std::string::npos);
  CHECK(info.dense_bytes == static_cast<size_t>(c.m * c.k) * element_bytes(c.in));
  CHECK(info.values_bytes >= info.dense_bytes);
  CHECK(info.dense_estimate_us > 0);
  CHECK(info.workspace_bytes == 0);
  CHECK(info.candidates == 1);

  ScalarBytes alpha = make_scalar(c.alpha, c.out), beta = make_scalar(c.beta, c.out);
  DeviceBuffer d_scalars(16);
  const void* pa = alpha.get();
  const void* pb = beta.get();
  if (c.device_scalars) {
    SPX_CUDA_CHECK(cudaMemcpy(d_scalars.get(), alpha.get(), 4, cudaMemcpyHostToDevice));
    SPX_CUDA_CHECK(cudaMemcpy(static_cast<char*>(d_scalars.get()) + 8, beta.get(), 4,
                              cudaMemcpyHostToDevice));
    pa = d_scalars.get();
    pb = static_cast<const char*>(d_scalars.get()) + 8;
    REQUIRE_SPX(spxSetPointerMode(h, SPX_POINTER_MODE_DEVICE));
  }
  const spxStatus_t st = spxSpMM(h, plan.get(), pa, p.dA.get(), p.dB.get(), pb, dC.get(), nullptr);
  REQUIRE_SPX(spxSetPointerMode(h, SPX_POINTER_MODE_HOST));
  REQUIRE_SPX(st);
  device_sync();
  const HostDense got = download(dC, c_init);
  const ref::Expected e = ref::spmm(p.A, p.B, p.C, {c.alpha, c.beta});
  REQUIRE_FALSE(vacuous_expectation(e));
  const CheckResult strict = check_dense_output(got, c_init, e);
  if (c.tf32) {
    const CheckResult r = check_tf32(got, e);
    INFO(r.report);
    CHECK(r.ok);
    // Only the logical elements may change (ld padding keeps its guard).
    CHECK(strict.clobbered == 0);
  } else {
    INFO(strict.report);
    CHECK(strict.ok);
  }
  CHECK(dC.buf.tail_intact());
}

struct Types {
  spxDataType_t in, out;
  bool tf32;
};
const Types kTypes[] = {{SPX_R_32F, SPX_R_32F, false}, {SPX_R_32F, SPX_R_32F, true},
                        {SPX_R_16F, SPX_R_16F, false}, {SPX_R_16F, SPX_R_32F, false},
                        {SPX_R_16BF, SPX_R_16BF, false}, {SPX_R_16BF, SPX_R_32F, false}};

}  // namespace

// ---------------------------------------------------------------- the grid

TEST_CASE("dense route: every float type, order, pointer mode and beta in every format",
          "[dense]") {
  UniqueHandle h = make_handle();
  const FormatSpec formats[] = {csr_spec(), bcrs_spec(4), nm_spec(2, 4, 2), ell_spec()};
  uint64_t seed = 1;
  int runs = 0;
  for (const FormatSpec& f : formats)
    for (const Types& t : kTypes)
      for (spxOrder_t bo : {SPX_ORDER_ROW, SPX_ORDER_COL})
        for (spxOrder_t co : {SPX_ORDER_ROW, SPX_ORDER_COL})
          for (int variant = 0; variant < 4; ++variant) {
            Run c;
            c.f = f;
            c.in = t.in;
            c.out = t.out;
            c.tf32 = t.tf32;
            c.bo = bo;
            c.co = co;
            c.device_scalars = variant % 2 == 1;
            c.beta = variant < 2 ? 0.0 : -0.75;
            c.alpha = variant == 3 ? -1.0 : 1.5;
            c.forced_alg = (seed % 2) == 0;
            c.seed = seed++;
            run_forced(h.get(), c);
            ++runs;
          }
  CHECK(runs == 4 * 6 * 2 * 2 * 4);
}

TEST_CASE("dense route: odd shapes and wide leading dimensions", "[dense]") {
  UniqueHandle h = make_handle();
  struct Shape {
    int64_t m, k, n;
  };
  uint64_t seed = 500;
  for (const Shape s : {Shape{37, 29, 13}, Shape{1, 7, 1}, Shape{5, 130, 3}, Shape{129, 3, 65}})
    for (const Types& t : kTypes) {
      Run c;
      c.f = csr_spec();
      c.in = t.in;
      c.out = t.out;
      c.tf32 = t.tf32;
      c.m = s.m;
      c.k = s.k;
      c.n = s.n;
      c.bo = seed % 2 ? SPX_ORDER_COL : SPX_ORDER_ROW;
      c.co = seed % 3 ? SPX_ORDER_ROW : SPX_ORDER_COL;
      c.beta = seed % 2 ? 0.5 : 0.0;
      c.seed = seed++;
      run_forced(h.get(), c);
    }
}

// ---------------------------------------------------------------- plan info and updates

TEST_CASE("dense route: ALWAYS keeps the sparse plan, SPX_SPMM_ALG_DENSE builds none",
          "[dense]") {
  UniqueHandle h = make_handle();
  Problem p = make_problem(7, nm_spec(2, 4, 32), 256, 256, 64, SPX_R_32F, SPX_R_32F,
                           SPX_ORDER_ROW, SPX_ORDER_ROW);
  DeviceDense dC = to_device(p.C);
  spxPlanInfo_t never{}, always{}, forced{};
  {
    const Options o(SPX_DENSE_ROUTE_NEVER, false);
    UniquePlan plan;
    REQUIRE_SPX(analyze(h.get(), p, SPX_SPMM_ALG_DEFAULT, o, dC, plan));
    REQUIRE_SPX(spxPlanGetInfo(plan.get(), &never));
  }
  {
    const Options o(SPX_DENSE_ROUTE_ALWAYS, false);
    UniquePlan plan;
    REQUIRE_SPX(analyze(h.get(), p, SPX_SPMM_ALG_DEFAULT, o, dC, plan));
    REQUIRE_SPX(spxPlanGetInfo(plan.get(), &always));
  }
  {
    const Options o(SPX_DENSE_ROUTE_AUTO, false);
    UniquePlan plan;
    REQUIRE_SPX(analyze(h.get(), p, SPX_SPMM_ALG_DENSE, o, dC, plan));
    REQUIRE_SPX(spxPlanGetInfo(plan.get(), &forced));
  }
  CHECK(never.route == 0);
  CHECK(never.family != SPX_SPMM_ALG_DENSE);  // NM (the fp32 2:4 family)
  CHECK(never.dense_bytes == 0);
  CHECK(never.dense_estimate_us == 0);  // NEVER does not model (nor load) cuBLAS

  const size_t dense_bytes = 256 * 256 * 4;
  CHECK(always.route == 1);
  CHECK(always.family == SPX_SPMM_ALG_DENSE);
  CHECK(always.dense_bytes == dense_bytes);
  CHECK(always.values_bytes == never.values_bytes + dense_bytes);  // the NM plan stays
  CHECK(always.metadata_bytes > never.metadata_bytes);
  CHECK(always.sparse_estimate_us > 0);
  CHECK(always.dense_estimate_us > 0);
  CHECK(always.nnz == never.nnz);

  CHECK(forced.route == 1);
  CHECK(forced.family == SPX_SPMM_ALG_DENSE);
  CHECK(forced.dense_bytes == dense_bytes);
  CHECK(forced.values_bytes == dense_bytes);  // no sparse plan
  CHECK(forced.sparse_estimate_us == 0);
  CHECK(forced.dense_estimate_us == Approx(always.dense_estimate_us));
}

TEST_CASE("dense route: spxPlanUpdateValues re-densifies", "[dense]") {
  UniqueHandle h = make_handle();
  for (const FormatSpec& f : {csr_spec(), ell_spec(), bcrs_spec(2)})
    for (const bool forced : {false, true}) {
      INFO(f.name() << (forced ? ", SPX_SPMM_ALG_DENSE" : ", ALWAYS"));
      Problem p = make_problem(11, f, 64, 48, 16, SPX_R_16F, SPX_R_32F, SPX_ORDER_COL,
                               SPX_ORDER_ROW);
      DeviceDense dC = to_device(p.C);
      const Options o(forced ? SPX_DENSE_ROUTE_AUTO : SPX_DENSE_ROUTE_ALWAYS, false);
      UniquePlan plan;
      REQUIRE_SPX(analyze(h.get(), p, forced ? SPX_SPMM_ALG_DENSE : SPX_SPMM_ALG_DEFAULT, o, dC,
                          plan));
      // New values in place (same structure; ELL padding keeps its NaN), then update.
      Rng rng(99);
      HostSparse a2 = p.A;
      const std::vector<uint8_t> fresh =
          random_values(rng, operand_dist(SPX_R_16F, 48, SPX_R_32F), a2.value_slots());
      for (int64_t s = 0; s < a2.value_slots(); ++s) {
        const bool padded = a2.format == SPX_FORMAT_ELL && a2.idx[static_cast<size_t>(s)] < 0;
        if (!padded) std::memcpy(&a2.values[static_cast<size_t>(2 * s)], &fresh[static_cast<size_t>(2 * s)], 2);
      }
      SPX_CUDA_CHECK(cudaMemcpy(p.dA.values.get(), a2.values.data(), a2.values.size(),
                                cudaMemcpyHostToDevice));
      REQUIRE_SPX(spxPlanUpdateValues(h.get(), plan.get(), p.dA.get()));
      const ScalarBytes alpha = make_scalar(1, SPX_R_32F), beta = make_scalar(0, SPX_R_32F);
      REQUIRE_SPX(spxSpMM(h.get(), plan.get(), alpha.get(), p.dA.get(), p.dB.get(), beta.get(),
                          dC.get(), nullptr));
      device_sync();
      const HostDense got = download(dC, p.C);
      const CheckResult r = check_dense_output(got, p.C, ref::spmm(a2, p.B, p.C, {1, 0}));
      INFO(r.report);
      CHECK(r.ok);
      // ... and the old values are gone: the first result differs from A's.
      const CheckResult old = check_dense_output(got, p.C, ref::spmm(p.A, p.B, p.C, {1, 0}));
      CHECK_FALSE(old.ok);
    }
}

// ---------------------------------------------------------------- what the route refuses

TEST_CASE("dense route: refusals and contradictions", "[dense]") {
  UniqueHandle h = make_handle();
  SECTION("integer inputs: forced dense is NOT_SUPPORTED, AUTO keeps the sparse family") {
    Problem p = make_problem(3, csr_spec(), 32, 64, 16, SPX_R_8I, SPX_R_32I, SPX_ORDER_ROW,
                             SPX_ORDER_ROW);
    DeviceDense dC = to_device(p.C);
    UniquePlan plan;
    const Options always(SPX_DENSE_ROUTE_ALWAYS, false), autos(SPX_DENSE_ROUTE_AUTO, false);
    CHECK_SPX_STATUS(analyze(h.get(), p, SPX_SPMM_ALG_DENSE, autos, dC, plan),
                     SPX_STATUS_NOT_SUPPORTED);
    CHECK(std::string(spxGetLastErrorMessage()).find("32F, 16F and 16BF") != std::string::npos);
    CHECK(plan == nullptr);
    CHECK_SPX_STATUS(analyze(h.get(), p, SPX_SPMM_ALG_DEFAULT, always, dC, plan),
                     SPX_STATUS_NOT_SUPPORTED);
    CHECK(std::string(spxGetLastErrorMessage()).find("SPX_DENSE_ROUTE_ALWAYS") != std::string::npos);
    REQUIRE_SPX(analyze(h.get(), p, SPX_SPMM_ALG_DEFAULT, autos, dC, plan));
    spxPlanInfo_t info{};
    REQUIRE_SPX(spxPlanGetInfo(plan.get(), &info));
    CHECK(info.route == 0);
    CHECK(info.family != SPX_SPMM_ALG_DENSE);
  }
  SECTION("cuBLAS unavailable (SPX_DENSE_NO_CUBLAS=1): forced is NOT_SUPPORTED naming it, AUTO is silent") {
    EnvOverride no_cublas("SPX_DENSE_NO_CUBLAS", "1");
    Problem p = make_problem(4, nm_spec(2, 4, 2), 64, 64, 16, SPX_R_16F, SPX_R_16F, SPX_ORDER_ROW,
                             SPX_ORDER_ROW);
    DeviceDense dC = to_device(p.C);
    UniquePlan plan;
    const Options always(SPX_DENSE_ROUTE_ALWAYS, false), autos(SPX_DENSE_ROUTE_AUTO, false);
    CHECK_SPX_STATUS(analyze(h.get(), p, SPX_SPMM_ALG_DENSE, autos, dC, plan),
                     SPX_STATUS_NOT_SUPPORTED);
    CHECK(std::string(spxGetLastErrorMessage()).find("libcublas") != std::string::npos);
    CHECK_SPX_STATUS(analyze(h.get(), p, SPX_SPMM_ALG_DEFAULT, always, dC, plan),
                     SPX_STATUS_NOT_SUPPORTED);
    CHECK(std::string(spxGetLastErrorMessage()).find("libcublas") != std::string::npos);
    REQUIRE_SPX(analyze(h.get(), p, SPX_SPMM_ALG_DEFAULT, autos, dC, plan));
    spxPlanInfo_t info{};
    REQUIRE_SPX(spxPlanGetInfo(plan.get(), &info));
    CHECK(info.route == 0);
    CHECK(info.dense_estimate_us == 0);
  }
  SECTION("SPX_SPMM_ALG_DENSE with NEVER is INVALID_VALUE; SDDMM has no dense route") {
    Problem p = make_problem(5, csr_spec(), 32, 32, 8, SPX_R_32F, SPX_R_32F, SPX_ORDER_ROW,
                             SPX_ORDER_ROW);
    DeviceDense dC = to_device(p.C);
    UniquePlan plan;
    const Options never(SPX_DENSE_ROUTE_NEVER, false);
    CHECK_SPX_INVALID(analyze(h.get(), p, SPX_SPMM_ALG_DENSE, never, dC, plan));
    CHECK(std::string(spxGetLastErrorMessage()).find("NEVER") != std::string::npos);
    // SDDMM: C = (A * B) .* spy(S) with A 32 x 32, B 32 x 8 dense and the mask S 32 x 8.
    Rng rng(6);
    const HostDense a = random_dense(rng, 32, 32, SPX_ORDER_ROW, operand_dist(SPX_R_32F, 32, SPX_R_32F));
    const HostDense b = random_dense(rng, 32, 8, SPX_ORDER_ROW, operand_dist(SPX_R_32F, 32, SPX_R_32F));
    const HostSparse s = random_csr(rng, 32, 8, output_dist(SPX_R_32F));
    const DeviceDense da = to_device(a), db = to_device(b);
    const DeviceSparse ds = to_device(s);
    spxPlan_t raw = nullptr;
    CHECK_SPX_STATUS(spxSDDMM_analyze(h.get(), da.get(), db.get(), ds.get(), SPX_R_32F,
                                      SPX_SPMM_ALG_DENSE, &raw),
                     SPX_STATUS_NOT_SUPPORTED);
    CHECK(raw == nullptr);
  }
}

// ---------------------------------------------------------------- threads

TEST_CASE("dense route: one plan executed by 4 threads at once", "[dense]") {
  UniqueHandle h = make_handle();
  Problem p = make_problem(21, csr_spec(), 96, 80, 32, SPX_R_16F, SPX_R_32F, SPX_ORDER_ROW,
                           SPX_ORDER_COL);
  DeviceDense dC0 = to_device(p.C);
  const Options o(SPX_DENSE_ROUTE_ALWAYS, false);
  UniquePlan plan;
  REQUIRE_SPX(analyze(h.get(), p, SPX_SPMM_ALG_DEFAULT, o, dC0, plan));
  const ref::Expected e = ref::spmm(p.A, p.B, p.C, {2, 0});
  constexpr int kThreads = 4, kCalls = 20;
  std::vector<DeviceDense> outs;
  for (int t = 0; t < kThreads; ++t) outs.push_back(to_device(p.C));
  std::vector<int> failures(kThreads, 0);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      spxHandle_t th = nullptr;
      cudaStream_t stream = nullptr;
      if (spxCreate(&th) != SPX_STATUS_SUCCESS ||
          cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) {
        failures[t] = -1;
        return;
      }
      spxSetStream(th, reinterpret_cast<spxStream_t>(stream));
      const float alpha = 2, beta = 0;
      for (int i = 0; i < kCalls; ++i)
        if (spxSpMM(th, plan.get(), &alpha, p.dA.get(), p.dB.get(), &beta, outs[t].get(),
                    nullptr) != SPX_STATUS_SUCCESS)
          ++failures[t];
      if (cudaStreamSynchronize(stream) != cudaSuccess) ++failures[t];
      cudaStreamDestroy(stream);
      spxDestroy(th);
    });
  for (std::thread& t : threads) t.join();
  for (int t = 0; t < kThreads; ++t) {
    INFO("thread " << t);
    CHECK(failures[t] == 0);
    const CheckResult r = check_dense_output(download(outs[t], p.C), p.C, e);
    INFO(r.report);
    CHECK(r.ok);
  }
}

// ---------------------------------------------------------------- AUTO and NEVER

namespace {

/// Rows `rows` of A * B in double (and the sums of |products|), to check a large product on a
/// few rows without the whole CPU reference.
struct RowsExpected {
  std::vector<int64_t> rows;
  std::vector<double> want, mag;  ///< [row index][column]
};

RowsExpected expect_rows(const Problem& p, const std::vector<int64_t>& rows) {
  RowsExpected e;
  e.rows = rows;
  const size_t n = static_cast<size_t>(p.B.cols);
  e.want.assign(rows.size() * n, 0.0);
  e.mag.assign(rows.size() * n, 0.0);
  const std::vector<ref::Entry> all = ref::entries(p.A);
  for (const ref::Entry& en : all)
    for (size_t r = 0; r < rows.size(); ++r) {
      if (en.row != rows[r]) continue;
      const double a = spx::dtype::load_double(p.A.values.data(), p.A.type, en.slot);
      for (size_t j = 0; j < n; ++j) {
        const double prod =
            a * spx::dtype::load_double(p.B.data.data(), p.B.type,
                                        p.B.linear(en.col, static_cast<int64_t>(j)));
        e.want[r * n + j] += prod;
        e.mag[r * n + j] += std::fabs(prod);
      }
    }
  return e;
}

/// C's rows against `e` (fp16 output: fp32 accumulation plus one rounding to fp16).
void check_rows(const RowsExpected& e, const HostDense& got) {
  const size_t n = static_cast<size_t>(got.cols);
  int64_t bad = 0;
  std::ostringstream os;
  for (size_t r = 0; r < e.rows.size(); ++r)
    for (size_t j = 0; j < n; ++j) {
      const double want = e.want[r * n + j];
      const double v = spx::dtype::load_double(got.data.data(), got.type,
                                               got.linear(e.rows[r], static_cast<int64_t>(j)));
      const double tol = std::ldexp(std::fabs(want), -10) + std::ldexp(e.mag[r * n + j], -14) + 1e-6;
      if (!(std::fabs(v - want) <= tol) && bad++ < 5)
        os << "(" << e.rows[r] << ", " << j << "): got " << v << ", want " << want << "\n";
    }
  INFO(os.str());
  CHECK(bad == 0);
}

}  // namespace

TEST_CASE("dense route: AUTO takes dense for fp16 N:M 2:4 4096 x 4096, N = 256; NEVER keeps sparse",
          "[dense][route]") {
  UniqueHandle h = make_handle();
  const int64_t m = 4096, k = 4096, n = 256;
  Problem p = make_problem(42, nm_spec(2, 4, 32), m, k, n, SPX_R_16F, SPX_R_16F, SPX_ORDER_ROW,
                           SPX_ORDER_ROW);
  DeviceDense dC = to_device(p.C);
  const ScalarBytes alpha = make_scalar(1, SPX_R_16F), beta = make_scalar(0, SPX_R_16F);
  const RowsExpected expected = expect_rows(p, {0, 1, 2, 31, 32, 2047, m - 2, m - 1});
  struct Want {
    int32_t route_option;
    bool autotune;
    int32_t route;
  };
  for (const Want w : {Want{SPX_DENSE_ROUTE_AUTO, false, 1}, Want{SPX_DENSE_ROUTE_AUTO, true, 1},
                       Want{SPX_DENSE_ROUTE_NEVER, false, 0}}) {
    INFO("option " << w.route_option << (w.autotune ? " with AUTOTUNE" : ""));
    const Options o(w.route_option, false, w.autotune);
    UniquePlan plan;
    REQUIRE_SPX(analyze(h.get(), p, SPX_SPMM_ALG_DEFAULT, o, dC, plan));
    spxPlanInfo_t info{};
    REQUIRE_SPX(spxPlanGetInfo(plan.get(), &info));
    INFO("kernel " << kernel_of(info) << " [" << config_of(info) << "], sparse "
                   << info.sparse_estimate_us << " us, dense " << info.dense_estimate_us << " us");
    CHECK(info.route == w.route);
    if (w.route == 1) {
      CHECK(info.family == SPX_SPMM_ALG_DENSE);
      CHECK(kernel_of(info) == "cublas_gemm_ex");
      CHECK(config_of(info).find("HGEMM") != std::string::npos);
      CHECK(info.dense_bytes == static_cast<size_t>(m * k * 2));
      CHECK(info.dense_estimate_us > 0);
      CHECK(info.dense_estimate_us < info.sparse_estimate_us);
    } else {
      CHECK(info.family == SPX_SPMM_ALG_FALLBACK);
      CHECK(info.dense_bytes == 0);
    }
    REQUIRE_SPX(spxSpMM(h.get(), plan.get(), alpha.get(), p.dA.get(), p.dB.get(), beta.get(),
                        dC.get(), nullptr));
    device_sync();
    const HostDense got = download(dC, p.C);
    check_rows(expected, got);
  }
}
