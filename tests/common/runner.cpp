#include "runner.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <numeric>
#include <sstream>

#include "runtime/dtype.hpp"

namespace spx::test {

namespace {

constexpr size_t kTailGuard = 256;  // bytes after every output buffer that must stay untouched

std::string kernel_name(const spxPlanInfo_t& info) {
  return std::string(info.kernel, strnlen(info.kernel, sizeof info.kernel));
}

std::string config_name(const spxPlanInfo_t& info) {
  return std::string(info.config, strnlen(info.config, sizeof info.config));
}

// Reads the message first: whether other libspx calls (even spxGetStatusName) keep it is not
// something the tests should depend on.
std::string status_text(spxStatus_t st) {
  const std::string message = spxGetLastErrorMessage();
  return std::string(spxGetStatusName(st)) + " (\"" + message + "\")";
}

bool is_forced(spxSpMMAlg_t alg) {
  return alg != SPX_SPMM_ALG_DEFAULT && alg != SPX_SPMM_ALG_FALLBACK;
}

// Plan info every executed plan must satisfy; returns a description of what is wrong ("" if ok).
std::string check_info(spxPlan_t plan, spxSpMMAlg_t alg, const spxPlanInfo_t& info) {
  std::ostringstream os;
  size_t ws = 0;
  if (spxPlanGetWorkspaceSize(plan, &ws) != SPX_STATUS_SUCCESS) os << "GetWorkspaceSize failed; ";
  if (ws != info.workspace_bytes) os << "workspace " << ws << " != info " << info.workspace_bytes << "; ";
  if (info.family == SPX_SPMM_ALG_DEFAULT || static_cast<int>(info.family) > SPX_SPMM_ALG_DENSE)
    os << "info.family " << static_cast<int>(info.family) << " is not a family; ";
  if (alg != SPX_SPMM_ALG_DEFAULT && info.family != alg)
    os << "forced " << alg_name(alg) << " but info.family is " << alg_name(info.family) << "; ";
  if ((info.family == SPX_SPMM_ALG_DENSE) != (info.route == 1))
    os << "info.route " << info.route << " does not match family " << alg_name(info.family) << "; ";
  if (info.route == 1 && info.dense_bytes == 0 && info.padded_nnz > 0) os << "dense route without dense_bytes; ";
  if (strnlen(info.kernel, sizeof info.kernel) == 0) os << "empty kernel name; ";
  if (strnlen(info.kernel, sizeof info.kernel) == sizeof info.kernel) os << "kernel not NUL-terminated; ";
  if (strnlen(info.config, sizeof info.config) == sizeof info.config) os << "config not NUL-terminated; ";
  return os.str();
}

void record_not_supported(spxSpMMAlg_t alg, RunStats& stats) {
  ++stats.not_supported[static_cast<size_t>(alg)];
}

}  // namespace

std::string RunStats::summary() const {
  std::ostringstream os;
  os << problems << " problems; runs per alg:";
  for (int a = 0; a < static_cast<int>(ran.size()); ++a)
    if (ran[a] + not_supported[a] > 0) {
      os << " " << alg_name(static_cast<spxSpMMAlg_t>(a)) << " " << ran[a];
      if (not_supported[a] > 0) os << " (+" << not_supported[a] << " NOT_SUPPORTED)";
    }
  os << "; kernels:";
  for (const auto& [name, count] : kernels) os << " " << name << " x" << count;
  os << "; failed runs: " << failed;
  return os.str();
}

void RunStats::check_complete() const {
  int64_t runs = 0;
  for (int64_t r : ran) runs += r;
  CHECK(runs > 0);
  CHECK(failed == 0);
}

// ---------------------------------------------------------------- one run, either operation

namespace {

// What analyze answered: true when there is a plan to run. A forced family's NOT_SUPPORTED (which
// must carry a message) is counted, not failed; any other failure fails the run.
bool analyzed(spxStatus_t st, spxSpMMAlg_t alg, const std::string& what, const char* call,
              RunStats& stats, int& failed) {
  if (st == SPX_STATUS_NOT_SUPPORTED && is_forced(alg)) {
    if (std::strlen(spxGetLastErrorMessage()) == 0)
      FAIL_CHECK(what << ": NOT_SUPPORTED without a message");
    record_not_supported(alg, stats);
    return false;
  }
  if (st != SPX_STATUS_SUCCESS) {
    FAIL_CHECK(what << ": " << call << " returned " << status_text(st));
    ++failed, ++stats.failed;
    return false;
  }
  return true;
}

// Fills `info` and returns what is wrong with it ("" when nothing).
std::string read_info(spxPlan_t plan, spxSpMMAlg_t alg, spxPlanInfo_t& info) {
  std::string problems;
  if (spxPlanGetInfo(plan, &info) != SPX_STATUS_SUCCESS) problems += "spxPlanGetInfo failed; ";
  return problems + check_info(plan, alg, info);
}

// Counts the run and fails it, naming the plan's choice, when the result or a side check is wrong.
void record_run(const spxPlanInfo_t& info, spxSpMMAlg_t alg, const std::string& what,
                const CheckResult& r, const std::string& problems, RunStats& stats, int& failed) {
  ++stats.ran[static_cast<size_t>(alg)];
  ++stats.kernels[kernel_name(info)];
  if (!r.ok || !problems.empty()) {
    FAIL_CHECK(what << "\n  plan: family " << alg_name(info.family) << ", kernel \""
                    << kernel_name(info) << "\", config \"" << config_name(info) << "\"\n  "
                    << problems << "\n"
                    << r.report);
    ++failed, ++stats.failed;
  }
}

}  // namespace

// ---------------------------------------------------------------- SpMM

int run_spmm(spxHandle_t h, const SpmmProblem& p, const ref::Expected& expected,
             const std::vector<spxSpMMAlg_t>& algs, RunStats& stats) {
  ++stats.problems;
  const DeviceSparse A = to_device(p.A);
  const DeviceDense B = to_device(p.B);
  HostDense c_init = p.C;
  guard_padding(c_init);
  if (p.s.beta == 0) poison_dense(c_init);
  const ScalarBytes alpha = make_scalar(p.s.alpha, p.C.type);
  const ScalarBytes beta = make_scalar(p.s.beta, p.C.type);

  int failed = 0;
  for (spxSpMMAlg_t alg : algs) {
    if (stats.failed >= kMaxFailuresPerTest) break;
    const std::string what = p.what + ", alg " + alg_name(alg);
    DeviceDense C = to_device(c_init, kTailGuard);

    spxPlan_t raw = nullptr;
    const spxStatus_t st = spxSpMM_analyze(h, A.get(), B.get(), C.get(), p.compute, alg, &raw);
    UniquePlan plan(st == SPX_STATUS_SUCCESS ? raw : nullptr);
    if (!analyzed(st, alg, what, "spxSpMM_analyze", stats, failed)) continue;
    spxPlanInfo_t info{};
    std::string problems = read_info(plan.get(), alg, info);

    DeviceBuffer workspace(info.workspace_bytes);
    const spxStatus_t run_st = spxSpMM(h, plan.get(), alpha.get(), A.get(), B.get(), beta.get(),
                                       C.get(), workspace.get());
    if (run_st != SPX_STATUS_SUCCESS) problems += "spxSpMM returned " + status_text(run_st) + "; ";
    device_sync();
    const HostDense got = download(C, c_init);
    const CheckResult r =
        check_dense_output(got, c_init, expected, info.family == SPX_SPMM_ALG_DENSE);
    if (!C.buf.tail_intact()) problems += "bytes after the end of C were overwritten; ";

    record_run(info, alg, what, r, problems, stats, failed);
  }
  return failed;
}

int check_spmm(spxHandle_t h, const SpmmProblem& p, RunStats& stats) {
  const ref::Expected e = ref::spmm(p.A, p.B, p.C, p.s);
  // Not vacuous: a non-empty product must give a non-zero expectation somewhere.
  if (p.s.alpha != 0 && vacuous_expectation(e))
    FAIL_CHECK(p.what << ": the reference expects all zeros: the test data is degenerate");
  return run_spmm(h, p, e, candidate_algs(p.A.format, p.A.type), stats);
}

// ---------------------------------------------------------------- SDDMM

int run_sddmm(spxHandle_t h, const SddmmProblem& p, const ref::Expected& expected,
              const std::vector<spxSpMMAlg_t>& algs, RunStats& stats) {
  ++stats.problems;
  const DeviceDense A = to_device(p.A);
  const DeviceDense B = to_device(p.B);
  HostSparse c_init = p.C;
  guard_ell_padding(c_init);
  if (p.s.beta == 0) poison_sparse_values(c_init);
  const ScalarBytes alpha = make_scalar(p.s.alpha, p.C.type);
  const ScalarBytes beta = make_scalar(p.s.beta, p.C.type);

  int failed = 0;
  for (spxSpMMAlg_t alg : algs) {
    if (stats.failed >= kMaxFailuresPerTest) break;
    const std::string what = p.what + ", alg " + alg_name(alg);
    DeviceSparse C = to_device(c_init, kTailGuard);

    spxPlan_t raw = nullptr;
    const spxStatus_t st = spxSDDMM_analyze(h, A.get(), B.get(), C.get(), p.compute, alg, &raw);
    UniquePlan plan(st == SPX_STATUS_SUCCESS ? raw : nullptr);
    if (!analyzed(st, alg, what, "spxSDDMM_analyze", stats, failed)) continue;
    spxPlanInfo_t info{};
    std::string problems = read_info(plan.get(), alg, info);

    DeviceBuffer workspace(info.workspace_bytes);
    const spxStatus_t run_st = spxSDDMM(h, plan.get(), alpha.get(), A.get(), B.get(), beta.get(),
                                        C.get(), workspace.get());
    if (run_st != SPX_STATUS_SUCCESS) problems += "spxSDDMM returned " + status_text(run_st) + "; ";
    device_sync();
    const HostSparse got = download_values(C, c_init);
    const CheckResult r = check_sparse_output(got, c_init, expected);
    if (!C.values.tail_intact()) problems += "bytes after the end of C's values were overwritten; ";
    if (got.idx != c_init.idx || got.ptr != c_init.ptr) problems += "C's structure changed; ";

    record_run(info, alg, what, r, problems, stats, failed);
  }
  return failed;
}

int check_sddmm(spxHandle_t h, const SddmmProblem& p, RunStats& stats) {
  const ref::Expected e = ref::sddmm(p.A, p.B, p.C, p.s);
  if (p.s.alpha != 0 && vacuous_expectation(e))
    FAIL_CHECK(p.what << ": the reference expects all zeros: the test data is degenerate");
  return run_sddmm(h, p, e, candidate_algs(p.C.format, p.A.type), stats);
}

// ---------------------------------------------------------------- grids

namespace {

std::string describe(const char* op, const FormatSpec& f, spxDataType_t a, spxDataType_t b,
                     spxDataType_t c, int64_t m, int64_t k, int64_t n, const Variant& v,
                     const char* o1, const char* o2, uint64_t seed) {
  std::ostringstream os;
  os << op << " " << f.name() << " A " << type_name(a) << " B " << type_name(b) << " C "
     << type_name(c) << ", m " << m << " k " << k << " n " << n << ", " << o1 << " "
     << order_name(v.order1) << ", " << o2 << " " << order_name(v.order2) << ", alpha "
     << v.ab.alpha << " beta " << v.ab.beta << ", ld pad " << v.ld_pad << ", seed " << seed;
  return os.str();
}

}  // namespace

void run_spmm_grid(spxHandle_t h, const SpmmGrid& g, RunStats& stats) {
  const std::vector<Variant> variants = grid_variants(g.variants, g.seed, g.c_type);
  for (size_t i = 0; i < variants.size() && stats.failed < kMaxFailuresPerTest; ++i) {
    const Variant& v = variants[i];
    const int64_t ru = g.format.row_unit(), cu = g.format.col_unit();
    const int64_t m = std::max(ru, round_up(v.shape.m, ru));
    const int64_t k = std::max(cu, round_up(v.shape.k, cu));
    const int64_t n = v.shape.n;
    const uint64_t seed = g.seed * 1000003u + i;
    Rng rng(seed);
    SpmmProblem p;
    p.A = random_sparse(rng, g.format, m, k, operand_dist(g.a_type, k, g.c_type));
    p.B = random_dense(rng, k, n, v.order1, operand_dist(g.b_type, k, g.c_type), v.ld_pad);
    p.C = random_dense(rng, m, n, v.order2, output_dist(g.c_type), v.ld_pad);
    p.compute = compute_type_for(g.a_type);
    p.s.alpha = v.ab.alpha;
    p.s.beta = v.ab.beta;
    p.what = describe("SpMM", g.format, g.a_type, g.b_type, g.c_type, m, k, n, v, "B", "C", seed);
    check_spmm(h, p, stats);
  }
  if (stats.failed >= kMaxFailuresPerTest)
    FAIL("stopping after " << stats.failed << " failed runs");
}

void run_sddmm_grid(spxHandle_t h, const SddmmGrid& g, RunStats& stats) {
  const std::vector<Variant> variants = grid_variants(g.variants, g.seed, g.c_type);
  for (size_t i = 0; i < variants.size() && stats.failed < kMaxFailuresPerTest; ++i) {
    const Variant& v = variants[i];
    const int64_t ru = g.format.row_unit(), cu = g.format.col_unit();
    const int64_t m = std::max(ru, round_up(v.shape.m, ru));
    const int64_t n = std::max(cu, round_up(v.shape.n, cu));
    const int64_t k = v.shape.k;
    const uint64_t seed = g.seed * 1000003u + i;
    Rng rng(seed);
    SddmmProblem p;
    p.A = random_dense(rng, m, k, v.order1, operand_dist(g.a_type, k, g.c_type), v.ld_pad);
    p.B = random_dense(rng, k, n, v.order2, operand_dist(g.b_type, k, g.c_type), v.ld_pad);
    p.C = random_sparse(rng, g.format, m, n, output_dist(g.c_type));
    p.compute = compute_type_for(g.a_type);
    p.s.alpha = v.ab.alpha;
    p.s.beta = v.ab.beta;
    p.what = describe("SDDMM", g.format, g.a_type, g.b_type, g.c_type, m, k, n, v, "A", "B", seed);
    check_sddmm(h, p, stats);
  }
  if (stats.failed >= kMaxFailuresPerTest)
    FAIL("stopping after " << stats.failed << " failed runs");
}

}  // namespace spx::test
