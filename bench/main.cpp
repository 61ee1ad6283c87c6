// spx-bench: libspx against cuBLAS / cuSPARSE, side by side in one run (docs/benchmark-protocol.md).
// Per case: build the matrix on the host, compute the FP64 cuBLAS reference, run libspx (analyze
// timed, one checked run, timing), run the family's baselines the same way, write one CSV row
// per baseline. Progress and the geomean summary go to stderr; the CSV to stdout or --csv.
// --list prints the case list and exits before any CUDA call.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "cases.hpp"
#include "check.hpp"
#include "cli.hpp"
#include "csv.hpp"
#include "cusparselt_probe.hpp"
#include "device.hpp"
#include "dispatch.hpp"
#include "family_baselines.hpp"
#include "problem.hpp"
#include "reference.hpp"
#include "spx_runner.hpp"

namespace bench {
namespace {

std::string case_label(const CaseSpec& c) {
  std::string s = strf("%s %s %s", family_name(c.family), op_name(c.op), c.matrix.c_str());
  if (c.sparsity >= 0) s += strf(" s=%g", c.sparsity);
  if (c.vec > 0) s += strf(" %s=%lld", c.family == Family::NM ? "L" : "V", (long long)c.vec);
  if (c.family == Family::SRBCRS) s += " " + c.precision.name();
  else s += std::string(" ") + value_type_name(c.dtype);
  if (!c.dlmc_file.empty()) {
    if (c.op == Op::SPMM) s += strf(" N=%lld", (long long)c.n);
    else s += strf(" K=%lld", (long long)c.k);
  }
  return s;
}

CsvRow base_row(const Problem& p, const SpxResult& r) {
  CsvRow row;
  row.family = family_name(p.spec.family);
  row.op = op_name(p.spec.op);
  row.matrix = p.spec.matrix;
  row.m = p.spec.m;
  row.k = p.spec.k;
  row.n = p.spec.n;
  row.sparsity = p.sparsity;
  row.vec = p.sparse.format == SPX_FORMAT_NM ? p.sparse.nm_l
            : p.sparse.format == SPX_FORMAT_BCRS ? p.sparse.vec_len
                                                  : std::max<int64_t>(1, p.spec.vec);
  row.dtype = value_type_name(p.a_type);
  row.precision = p.spec.family == Family::SRBCRS ? p.spec.precision.name() : "";
  row.ms = r.ms;
  row.max_rel_err = r.max_rel_err;
  row.analyze_ms = r.analyze_ms;
  return row;
}

void print_header(const GpuContext& gpu, const Options& opts, size_t cases) {
  int spx_version = 0, cublas_version = 0, cusparse_version = 0;
  SPX_CHECK(spxGetVersion(&spx_version));
  CUBLAS_CHECK(cublasGetVersion(gpu.cublas(), &cublas_version));
  CUSPARSE_CHECK(cusparseGetVersion(gpu.cusparse(), &cusparse_version));
  std::fprintf(stderr, "spx-bench: %s\n", gpu.describe().c_str());
  std::fprintf(stderr, "spx-bench: libspx %d, cuBLAS %d, cuSPARSE %d; %zu case(s); timing: %s, "
               "median of 5 rounds, %s; dense order %s\n",
               spx_version, cublas_version, cusparse_version, cases,
               opts.graph ? "CUDA graphs" : "back-to-back launches",
               opts.reps > 0 ? strf("%d reps/round", opts.reps).c_str()
                             : ">= 2 ms and >= 10 reps/round",
               opts.order == SPX_ORDER_ROW ? "row" : "col");
  bool sptc = false;
  for (Family f : opts.families) sptc = sptc || f == Family::SPTC;
  if (sptc) std::fprintf(stderr, "spx-bench: %s\n", cusparselt_status_line().c_str());
}

int run(const Options& opts) {
  if (opts.dispatch) return run_dispatch(opts);
  std::vector<CaseSpec> cases;
  std::string usage_error;
  try {
    if (!build_cases(opts, &cases, &usage_error)) {
      std::fprintf(stderr, "spx-bench: %s\n\n", usage_error.c_str());
      print_usage(stderr);
      return 2;
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "spx-bench: %s\n", e.what());
    return 1;
  }

  if (opts.list) {  // before any CUDA call: works on a machine without a GPU
    std::fprintf(stderr, "spx-bench: %zu case(s); columns: family,op,matrix,sparsity,vec,dtype,"
                 "precision\n", cases.size());
    for (const CaseSpec& c : cases) {
      std::string matrix = c.matrix;
      if (!c.dlmc_file.empty())
        matrix += c.op == Op::SPMM ? strf(":N=%lld", (long long)c.n) : strf(":K=%lld", (long long)c.k);
      std::printf("%s,%s,%s,%s,%s,%s,%s\n", family_name(c.family), op_name(c.op), matrix.c_str(),
                  c.sparsity >= 0 ? strf("%g", c.sparsity).c_str() : "",
                  c.vec > 0 ? strf("%lld", (long long)c.vec).c_str() : "auto",
                  value_type_name(c.dtype),
                  c.family == Family::SRBCRS ? c.precision.name().c_str() : "");
    }
    return 0;
  }

  if (no_gpu_here()) return 1;

  try {
    GpuContext gpu;
    print_header(gpu, opts, cases.size());
    CsvWriter csv(opts.csv_file);
    Summary summary;
    TimingConfig timing;
    timing.reps = opts.reps;
    timing.graph = opts.graph;

    for (size_t i = 0; i < cases.size(); ++i) {
      const CaseSpec& spec = cases[i];
      std::fprintf(stderr, "[%zu/%zu] %s\n", i + 1, cases.size(), case_label(spec).c_str());
      const auto case_start = std::chrono::steady_clock::now();
      try {
        Problem p = build_problem(spec);
        Reference ref = p.spec.op == Op::SPMM
                            ? reference_spmm(gpu, p.sparse.csr, p.b, p.spec.n)
                            : reference_dense(gpu, p.a, p.spec.m, p.spec.k, p.b, p.spec.n);
        SpxResult r = run_spx(gpu, p, ref, opts.order, timing);
        std::fprintf(stderr, "    libspx %-22s %10.4f ms  analyze %.3f ms  max_rel_err %.3e (tol %.1e) %s  %s\n",
                     "", r.ms, r.analyze_ms, r.max_rel_err, r.tolerance,
                     r.pass ? "OK" : "FAIL", r.config.c_str());
        if (r.pass) summary.case_passed();
        else summary.case_failed();
        if (opts.candidates) {
          for (int c = 0; c < r.candidates; ++c) {
            const SpxResult rc = run_spx(gpu, p, ref, opts.order, timing, c);
            std::fprintf(stderr, "    candidate %-2d %10.4f ms  (%.3fx the plan's) max_rel_err %.3e %s  %s\n",
                         c, rc.ms, rc.ms > 0 ? r.ms / rc.ms : 0.0, rc.max_rel_err,
                         rc.pass ? "OK" : "FAIL", rc.config.c_str());
            if (!rc.pass) summary.case_failed();
          }
        }

        BaselineEnv env{gpu, p, ref, timing, &opts.baselines};
        std::vector<BaselineResult> baselines = run_family_baselines(env);
        for (const BaselineResult& b : baselines) {
          CsvRow row = base_row(p, r);
          row.baseline = b.name;
          row.baseline_ms = b.ms;
          row.speedup = r.ms > 0 ? b.ms / r.ms : 0.0;
          row.config = r.config + "; " + b.name + ": " + b.config;
          if (!r.pass)
            row.config = strf("FAIL(max_rel_err %.3e > %.1e); ", r.max_rel_err, r.tolerance) +
                         row.config;
          if (!b.check_ok)
            row.config = strf("BASELINE-WRONG(%.3e); ", b.check_err) + row.config;
          csv.write(row);
          summary.add(row, r.pass && b.check_ok);
          std::fprintf(stderr, "    vs %-24s %10.4f ms  speedup %8.4gx  %s%s\n", b.name.c_str(),
                       b.ms, row.speedup, b.config.c_str(),
                       b.check_ok ? "" : "  (baseline result WRONG: excluded)");
        }
        if (baselines.empty()) {
          // Still one CSV row (baseline "none"), so libspx's own time is recorded.
          std::fprintf(stderr, "    (no baseline ran for this case)\n");
          CsvRow row = base_row(p, r);
          row.baseline = "none";
          row.config = r.pass ? r.config
                              : strf("FAIL(max_rel_err %.3e > %.1e); ", r.max_rel_err, r.tolerance) +
                                    r.config;
          csv.write(row);
        }
        std::fprintf(stderr, "    (case took %.1f s)\n",
                     std::chrono::duration<double>(std::chrono::steady_clock::now() - case_start).count());
      } catch (const std::exception& e) {
        std::fprintf(stderr, "    ERROR: %s\n", e.what());
        summary.case_errored();
        if (context_broken()) break;
      }
    }
    summary.print(stderr);
    return (summary.failed() > 0 || summary.errored() > 0) ? 1 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "spx-bench: %s\n", e.what());
    return 1;
  }
}

}  // namespace
}  // namespace bench

int main(int argc, char** argv) {
  bench::Options opts;
  std::string error;
  switch (bench::parse_args(argc, argv, &opts, &error)) {
    case bench::ParseStatus::HELP:
      bench::print_usage(stdout);
      return 0;
    case bench::ParseStatus::USAGE_ERROR:
      std::fprintf(stderr, "spx-bench: %s\n\n", error.c_str());
      bench::print_usage(stderr);
      return 2;
    case bench::ParseStatus::OK:
      break;
  }
  return bench::run(opts);
}
