// The run of `spx-bench dispatch` (dispatch.hpp): per point DEFAULT, the alternatives, one CSV row;
// the closing summary against the acceptance of "Never slower than dense": DEFAULT >= 0.9x the
// fastest alternative on >= 95 % of the points, >= 0.75x on every point, no fallback pick.
#include <cuda_runtime.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <exception>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "baselines.hpp"
#include "check.hpp"
#include "csv.hpp"
#include "device.hpp"
#include "dispatch.hpp"
#include "problem.hpp"
#include "reference.hpp"
#include "spx_runner.hpp"

namespace bench {

namespace {

/// Families forced one by one after DEFAULT (SPX_DENSE_ROUTE_NEVER: the family's own kernel).
const spxSpMMAlg_t kFamilies[] = {SPX_SPMM_ALG_NM, SPX_SPMM_ALG_ELL, SPX_SPMM_ALG_SRBCRS,
                                  SPX_SPMM_ALG_SPTC_REORDER, SPX_SPMM_ALG_FALLBACK};

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

struct Alternative {
  std::string name;  ///< CSV baseline name: spx_ell, spx_dense, cublas_hgemm, ...
  double ms = 0.0;
  bool ok = false;   ///< ran and computed the right result
  std::string note;  ///< "n/s", "WRONG(err)", "ERROR"
};

struct PointResult {
  std::string label, family;
  double ratio = 0.0;  ///< best alternative ms / DEFAULT ms
  bool fallback = false;
};

class DispatchSummary {
 public:
  void measured(const PointResult& r) { points_.push_back(r); }
  int skipped = 0, failed = 0, errored = 0;

  void print(FILE* out) const {
    const size_t n = points_.size();
    size_t at90 = 0, at75 = 0, fallback = 0;
    const PointResult* worst = nullptr;
    std::map<std::string, std::vector<double>> per_family;
    for (const PointResult& r : points_) {
      at90 += r.ratio >= 0.9;
      at75 += r.ratio >= 0.75;
      fallback += r.fallback;
      if (!worst || r.ratio < worst->ratio) worst = &r;
      per_family[r.family].push_back(r.ratio);
    }
    std::fprintf(out, "\ndispatch summary: %zu point(s) measured, %d skipped (refused by DEFAULT), "
                 "%d with a wrong result, %d errored\n", n, skipped, failed, errored);
    for (const auto& kv : per_family)
      std::fprintf(out, "  %-14s %4zu point(s)  geomean DEFAULT / best %.3fx  min %.3fx\n",
                   kv.first.c_str(), kv.second.size(), geomean(kv.second),
                   *std::min_element(kv.second.begin(), kv.second.end()));
    if (n == 0) return;
    std::fprintf(out, "dispatch: points %zu; DEFAULT >= 0.9x best on %zu (%.1f %%); >= 0.75x on "
                 "%zu (%.1f %%); min %.3fx at %s; fallback chosen on %zu point(s)\n",
                 n, at90, 100.0 * at90 / n, at75, 100.0 * at75 / n, worst->ratio,
                 worst->label.c_str(), fallback);
    for (const PointResult& r : points_)
      if (r.fallback) std::fprintf(out, "  fallback: %s\n", r.label.c_str());
    const bool met = at90 * 100 >= 95 * n && at75 == n && fallback == 0 && failed == 0;
    std::fprintf(out, "dispatch: acceptance (>= 95 %% at 0.9x, all >= 0.75x, no fallback, all "
                 "correct): %s\n", met ? "met" : "NOT met");
  }

 private:
  std::vector<PointResult> points_;
};

GemmKind gemm_kind(ValueType t) {
  if (t == ValueType::I8) return GemmKind::INT8;
  if (t == ValueType::F32) return GemmKind::SGEMM_FP32;
  return GemmKind::HGEMM;
}

int list_grid(const DispatchGrid& grid) {
  std::fprintf(stderr, "spx-bench: dispatch: %zu point(s); columns: family,op,matrix,sparsity,vec,"
               "dtype,precision\n", grid.points.size());
  for (const DispatchSpec& d : grid.points)
    std::printf("%s,spmm,%lldx%lldx%lld,%g,%lld,%s,\n", dispatch_family(d).c_str(),
                (long long)d.m, (long long)d.k, (long long)d.n, d.sparsity, (long long)d.vec,
                value_type_name(d.dtype));
  return 0;
}

/// One point: DEFAULT, then each alternative; writes the CSV row.
void run_point(const GpuContext& gpu, const Options& opts, const TimingConfig& timing,
               const DispatchSpec& d, Problem& p, CsvWriter& csv, DispatchSummary& summary) {
  const Reference ref = reference_spmm(gpu, p.sparse.csr, p.b, d.n);
  SpxResult def;
  try {
    def = run_spx_spmm(gpu, p, ref, opts.order, timing, SpmmSelect{});
  } catch (const Refused& e) {
    std::fprintf(stderr, "    skipped: DEFAULT refuses this input (%s)\n", e.what());
    ++summary.skipped;
    return;
  }
  const bool fallback = def.family == SPX_SPMM_ALG_FALLBACK;
  std::fprintf(stderr, "    DEFAULT %-16s %10.4f ms  max_rel_err %.3e (tol %.1e) %s  %s%s\n",
               spx_alg_name(def.family), def.ms, def.max_rel_err, def.tolerance,
               def.pass ? "OK" : "FAIL", def.config.c_str(), fallback ? "  [FALLBACK]" : "");

  std::vector<Alternative> alts;
  bool wrong = !def.pass;
  auto run_alt = [&](const std::string& name, const SpmmSelect& sel) {
    Alternative a;
    a.name = name;
    try {
      const SpxResult r = run_spx_spmm(gpu, p, ref, opts.order, timing, sel);
      a.ms = r.ms;
      a.ok = r.pass;
      if (!r.pass) {
        a.note = strf("WRONG(%.3e)", r.max_rel_err);
        wrong = true;
      }
      std::fprintf(stderr, "    %-24s %10.4f ms  (DEFAULT %.3fx) max_rel_err %.3e %s  %s\n",
                   name.c_str(), r.ms, r.ms > 0 && def.ms > 0 ? r.ms / def.ms : 0.0,
                   r.max_rel_err, r.pass ? "OK" : "FAIL", r.config.c_str());
    } catch (const Refused& e) {
      a.note = "n/s";
      std::fprintf(stderr, "    %-24s not supported: %s\n", name.c_str(), e.what());
    } catch (const Error& e) {  // this alternative failed; the point goes on unless CUDA broke
      a.note = "ERROR";
      ++summary.errored;
      std::fprintf(stderr, "    %-24s ERROR: %s\n", name.c_str(), e.what());
      if (cudaDeviceSynchronize() != cudaSuccess) throw;
    }
    alts.push_back(a);
  };
  for (spxSpMMAlg_t alg : kFamilies)
    run_alt("spx_" + lower(spx_alg_name(alg)), SpmmSelect{alg, SPX_DENSE_ROUTE_NEVER});
  run_alt("spx_dense", SpmmSelect{SPX_SPMM_ALG_DENSE, -1});
  {
    BaselineEnv env{gpu, p, ref, timing, nullptr};
    Alternative a;
    std::optional<BaselineResult> b = cublas_gemm(env, gemm_kind(d.dtype));
    if (b) {
      a.name = b->name;
      a.ms = b->ms;
      a.ok = b->check_ok;
      if (!b->check_ok) a.note = strf("BASELINE-WRONG(%.3e)", b->check_err);
      std::fprintf(stderr, "    %-24s %10.4f ms  (DEFAULT %.3fx) %s%s\n", b->name.c_str(), b->ms,
                   def.ms > 0 ? b->ms / def.ms : 0.0, b->config.c_str(),
                   b->check_ok ? "" : "  (result WRONG: excluded)");
    } else {
      a.name = "cublas";
      a.note = "n/s";
    }
    alts.push_back(a);
  }

  const Alternative* best = nullptr;
  for (const Alternative& a : alts)
    if (a.ok && a.ms > 0 && (!best || a.ms < best->ms)) best = &a;

  CsvRow row;
  row.family = dispatch_family(d);
  row.op = "spmm";
  row.matrix = p.spec.matrix;
  row.m = d.m;
  row.k = d.k;
  row.n = d.n;
  row.sparsity = p.sparsity;
  row.vec = d.vec;
  row.dtype = value_type_name(d.dtype);
  row.ms = def.ms;
  row.max_rel_err = def.max_rel_err;
  row.analyze_ms = def.analyze_ms;
  row.baseline = best ? best->name : "none";
  row.baseline_ms = best ? best->ms : 0.0;
  row.speedup = best && def.ms > 0 ? best->ms / def.ms : 0.0;
  std::string cfg = strf("%s route=%s %s; alternatives:", spx_alg_name(def.family),
                         def.route ? "dense" : "sparse", def.config.c_str());
  for (const Alternative& a : alts) {  // "spx_ell=0.1234", "spx_nm=n/s", "spx_x=0.2:WRONG(..)"
    if (a.ms <= 0) cfg += strf(" %s=%s", a.name.c_str(), a.note.c_str());
    else cfg += strf(" %s=%.6g%s%s", a.name.c_str(), a.ms, a.note.empty() ? "" : ":", a.note.c_str());
  }
  if (fallback) cfg = "FALLBACK-CHOSEN; " + cfg;
  if (!def.pass) cfg = strf("FAIL(max_rel_err %.3e > %.1e); ", def.max_rel_err, def.tolerance) + cfg;
  row.config = cfg;
  csv.write(row);
  std::fprintf(stderr, "    => DEFAULT / best (%s) = %.3fx%s\n", row.baseline.c_str(), row.speedup,
               fallback ? "  FALLBACK CHOSEN" : "");

  if (wrong) ++summary.failed;
  if (def.pass && best) summary.measured({dispatch_label(d), row.family, row.speedup, fallback});
}

}  // namespace

int run_dispatch(const Options& opts) {
  DispatchGrid grid;
  std::string usage_error;
  if (!build_dispatch_grid(opts, &grid, &usage_error)) {
    std::fprintf(stderr, "spx-bench: %s\n\n", usage_error.c_str());
    print_usage(stderr);
    return 2;
  }
  for (const std::string& s : grid.skipped)
    std::fprintf(stderr, "spx-bench: dispatch: skipped %s\n", s.c_str());
  if (opts.list) return list_grid(grid);  // before any CUDA call

  if (no_gpu_here()) return 1;
  try {
    GpuContext gpu;
    int spx_version = 0;
    SPX_CHECK(spxGetVersion(&spx_version));
    std::fprintf(stderr, "spx-bench: %s\nspx-bench: libspx %d; dispatch: %zu point(s); timing: %s, "
                 "median of 5 rounds; dense order %s\n", gpu.describe().c_str(), spx_version,
                 grid.points.size(), opts.graph ? "CUDA graphs" : "back-to-back launches",
                 opts.order == SPX_ORDER_ROW ? "row" : "col");
    CsvWriter csv(opts.csv_file);
    DispatchSummary summary;
    TimingConfig timing;
    timing.reps = opts.reps;
    timing.graph = opts.graph;
    Problem p;
    uint64_t built = 0;
    bool have = false;
    const auto start = std::chrono::steady_clock::now();
    for (size_t i = 0; i < grid.points.size(); ++i) {
      const DispatchSpec& d = grid.points[i];
      std::fprintf(stderr, "[%zu/%zu] %s\n", i + 1, grid.points.size(), dispatch_label(d).c_str());
      try {
        if (!have || built != d.seed_a) {  // A is shared by the n values of a point
          have = false;
          p = build_dispatch_a(d);
          built = d.seed_a;
          have = true;
        }
        build_dispatch_b(d, &p);
        run_point(gpu, opts, timing, d, p, csv, summary);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "    ERROR: %s\n", e.what());
        ++summary.errored;
        if (context_broken()) break;
      }
    }
    summary.print(stderr);
    std::fprintf(stderr, "dispatch: run took %.1f s\n",
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    return (summary.failed > 0 || summary.errored > 0) ? 1 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "spx-bench: %s\n", e.what());
    return 1;
  }
}

}  // namespace bench
