#include "cli.hpp"

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace bench {

void print_usage(FILE* out) {
  std::fprintf(out,
      "usage: spx-bench nm|ell|srbcrs|sptc|all|dispatch [options]\n"
      "\n"
      "Runs libspx against cuBLAS / cuSPARSE on the same matrices in one run and prints one CSV\n"
      "row per (case, baseline):\n"
      "  family,op,matrix,m,k,n,sparsity,vec,dtype,precision,baseline,ms,baseline_ms,speedup,\n"
      "  max_rel_err,analyze_ms,config\n"
      "speedup = baseline_ms / ms. Every case is checked against cuBLAS (FP64 GEMM on the\n"
      "densified matrix) before its time counts; a FAIL is excluded from the geomean summary\n"
      "(stderr) and makes the exit status 1.\n"
      "\n"
      "options:\n"
      "  --shape MxKxN[,MxKxN...]  synthetic shapes: A is MxK sparse, B KxN, C MxN (SDDMM: the\n"
      "                           mask is MxN, A MxK and B KxN dense)\n"
      "  --sparsity a,b,c         sparsity levels in [0,1); with --dlmc: keep only the files in\n"
      "                           those sparsity folders (e.g. .../0.9/*.smtx)\n"
      "  --dtype T                f32|f16|bf16 (nm), f32|f16 (ell), i8|i4|i16 (srbcrs),\n"
      "                           f16|bf16 (sptc). With `all`: used by the families that take it\n"
      "  --precision lArB         SR-BCRS bits of A and B: l8r8 (default), l4r4, l16r8, l16r4,\n"
      "                           l12r4, l8r4, l16r16 (overrides --dtype for srbcrs)\n"
      "  --vec V[,V]              vector length: BCRS V for srbcrs/sptc (default 8), DLMC\n"
      "                           dilation for ell (default 1), rows per group L for nm\n"
      "                           (default: 32, or the largest power of two dividing M)\n"
      "  --n N[,N]                dense columns: replaces N of every --shape; with --dlmc the N\n"
      "                           values to run (default 256)\n"
      "  --dlmc DIR               run every *.smtx under DIR (sorted), dilated by V (srbcrs,\n"
      "                           sptc, ell)\n"
      "  --csv FILE               write the CSV to FILE (default: stdout)\n"
      "  --quick                  one small case per family against each of its baselines\n"
      "  --reps R                 launches per timed round (default: enough for >= 2 ms, >= 10)\n"
      "  --order row|col          order of libspx's dense B and C (default row); SDDMM: the\n"
      "                           order of A, B taking the other one (default: A row-major,\n"
      "                           B column-major, both k-contiguous)\n"
      "  --graph                  time through CUDA graphs (libspx and baselines alike)\n"
      "  --op spmm|sddmm|both     operations for srbcrs (default spmm; `all --quick` runs both)\n"
      "  --preset NAME            a named case list of one family (not with all, --shape, --n,\n"
      "                           --dlmc or --quick; --vec and --dtype still apply):\n"
      "    nm --preset llama      the NM-SpMM paper's 100 Llama points: paper C(m x n) =\n"
      "                           A(m x k, dense) * B(k x n, sparse weight), m in {256, 512, 1024,\n"
      "                           2048, 4096} x 20 (n, k) Llama layers (2048x2048 ... 22016x8192).\n"
      "                           libspx keeps the sparse weight on the left (C^T = B^T A^T), so\n"
      "                           the case is MxKxN = n x k x m (sparse rows = paper n, sparse\n"
      "                           cols = paper k, dense cols = paper m). Sparsities 0.5, 0.625,\n"
      "                           0.75, 0.875 unless --sparsity is given (400 cases)\n"
      "    ell --preset paper     the uniform-sparsity paper's grid: M=K in {128, 256, 512, 1024}\n"
      "                           x N in {128, 1024} at 0.6; sparsity 0.3..0.95 at 1024^3; N in\n"
      "                           128..16384 at 1024x1024, 0.6; decode N in {1, 8, 16} at\n"
      "                           4096x4096 and 4096x11008 (MxK) with sparsity 0.7, 0.8, 0.9,\n"
      "                           0.95. Each part has its own sparsities: --sparsity is ignored.\n"
      "                           Repeated (shape, sparsity) points run once (44 cases)\n"
      "  --baselines B[,B]        run only these baselines. sptc: cublas_hgemm, cusparse_csr,\n"
      "                           cusparse_bell, cusparselt; nm f32: cublas_sgemm_fp32,\n"
      "                           cublas_sgemm_tf32, cusparse_csr, cusparse_coo; srbcrs spmm:\n"
      "                           cusparse_csr, cusparse_bell (int8; both: also their best),\n"
      "                           cublas_int8, cublas_hgemm; ell: cusparse_csr, cusparse_coo,\n"
      "                           cublas (HGEMM or SGEMM fp32 by dtype); `none`: libspx alone.\n"
      "                           Default: all\n"
      "  --candidates             ell: also time every configuration the plan offers (forced\n"
      "                           through SPX_ELL_FORCE_CANDIDATE, each checked), one line each\n"
      "  --format F[,F]           dispatch only: input formats among csr, ell, bcrs, nm\n"
      "                           (default all)\n"
      "  --list                   print the cases that would run, one CSV line each\n"
      "                           (family,op,matrix,sparsity,vec,dtype,precision) on stdout, and\n"
      "                           exit 0 without touching the GPU (--csv is not written)\n"
      "  --help                   this text\n"
      "\n"
      "dispatch: is SPX_SPMM_ALG_DEFAULT never slower than the alternatives? Every input format\n"
      "  (csr, ell, bcrs with V = --vec or 8, nm at exact N:M sparsities) x dtype {f32, f16,\n"
      "  bf16, i8} x sparsity {0.5, 0.7, 0.8, 0.9, 0.95} x MxK {4096x4096, 11008x4096,\n"
      "  4096x11008} x N {1, 16, 256, 2048}; --quick: 4096x4096, sparsity {0.5, 0.8, 0.95}, N {1,\n"
      "  16, 256}, f16 and f32. --dtype, --sparsity, --shape MxKxN, --n and --format narrow it.\n"
      "  Per point: DEFAULT, every family forced (SPX_DENSE_ROUTE_NEVER; refused ones skipped),\n"
      "  SPX_SPMM_ALG_DENSE and the cuBLAS GEMM of the dtype, each checked; one CSV row with\n"
      "  ms = DEFAULT, baseline = the fastest alternative, speedup = baseline_ms / ms and config =\n"
      "  what DEFAULT chose (FALLBACK-CHOSEN when the generic kernel).\n"
      "\n"
      "examples:\n"
      "  spx-bench nm --shape 4096x4096x4096 --sparsity 0.5,0.625,0.75,0.875\n"
      "  spx-bench ell --shape 1024x1024x1024 --sparsity 0.6 --dtype f16\n"
      "  spx-bench srbcrs --dlmc DIR --vec 8 --n 256 --precision l8r8 --csv out.csv\n"
      "  spx-bench sptc --dlmc DIR --vec 8 --n 256\n"
      "  spx-bench all --quick\n"
      "  spx-bench nm --preset llama --csv nm_llama.csv\n"
      "  spx-bench ell --preset paper --dtype f16 --list\n"
      "  spx-bench dispatch --quick --csv dispatch_quick.csv\n"
      "\n"
      "environment: SPX_CUSPARSELT_PATH = libcusparseLt.so.0 or its folder (the sptc family's\n"
      "             cusparselt baseline); SPX_SPTC_BLOCK_TILE = 16|32|64 forces the SpTC reorder's\n"
      "             BLOCK_TILE.\n"
      "exit status: 0 all cases correct, 1 a case failed or errored (or no GPU), 2 usage error.\n");
}

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> parts;
  size_t start = 0;
  while (true) {
    size_t pos = s.find(sep, start);
    parts.push_back(s.substr(start, pos == std::string::npos ? std::string::npos : pos - start));
    if (pos == std::string::npos) break;
    start = pos + 1;
  }
  return parts;
}

bool parse_int(const std::string& s, int64_t* v) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  long long x = std::strtoll(s.c_str(), &end, 10);
  if (errno != 0 || *end != '\0') return false;
  *v = x;
  return true;
}

bool parse_double(const std::string& s, double* v) {
  if (s.empty()) return false;
  char* end = nullptr;
  errno = 0;
  double x = std::strtod(s.c_str(), &end);
  if (errno != 0 || *end != '\0') return false;
  *v = x;
  return true;
}

bool parse_shape(const std::string& s, Shape* shape) {
  std::vector<std::string> p = split(s, 'x');
  if (p.size() != 3) return false;
  if (!parse_int(p[0], &shape->m) || !parse_int(p[1], &shape->k) || !parse_int(p[2], &shape->n))
    return false;
  return shape->m > 0 && shape->k > 0 && shape->n > 0;
}

bool parse_positive_list(const std::string& s, std::vector<int64_t>* out) {
  for (const std::string& part : split(s, ',')) {
    int64_t v = 0;
    if (!parse_int(part, &v) || v <= 0) return false;
    out->push_back(v);
  }
  return true;
}

}  // namespace

ParseStatus parse_args(int argc, char** argv, Options* opts, std::string* error) {
  *opts = Options{};
  bool have_family = false;
  // Options that take a value; "--opt=value" is split here so both spellings work.
  static const char* const kValued[] = {"--shape", "--sparsity", "--dtype", "--precision", "--vec",
                                         "--n",     "--dlmc",     "--csv",   "--reps",      "--order",
                                         "--op",    "--preset",   "--baselines", "--format"};
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") return ParseStatus::HELP;
  }
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    std::string value;
    bool has_inline = false;
    if (arg.rfind("--", 0) == 0) {
      size_t eq = arg.find('=');
      if (eq != std::string::npos) {
        value = arg.substr(eq + 1);
        arg = arg.substr(0, eq);
        has_inline = true;
      }
    }
    bool valued = false;
    for (const char* name : kValued) valued = valued || arg == name;
    if (valued && !has_inline) {
      if (i + 1 >= argc) {
        *error = arg + " needs a value";
        return ParseStatus::USAGE_ERROR;
      }
      value = argv[++i];
    } else if (!valued && has_inline) {
      *error = arg + " takes no value";
      return ParseStatus::USAGE_ERROR;
    }
    auto bad = [&](const char* what) {
      *error = "bad value '" + value + "' for " + arg + ": " + what;
      return ParseStatus::USAGE_ERROR;
    };

    if (arg == "--shape") {
      for (const std::string& part : split(value, ',')) {
        Shape s;
        if (!parse_shape(part, &s)) return bad("expected MxKxN with positive sizes");
        opts->shapes.push_back(s);
      }
    } else if (arg == "--sparsity") {
      for (const std::string& part : split(value, ',')) {
        double v = 0;
        if (!parse_double(part, &v) || v < 0.0 || v >= 1.0) return bad("expected numbers in [0,1)");
        opts->sparsities.push_back(v);
      }
    } else if (arg == "--dtype") {
      if (!parse_value_type(value, &opts->dtype) || opts->dtype == ValueType::I32)
        return bad("expected f32|f16|bf16|i8|i4|i16");
      opts->has_dtype = true;
    } else if (arg == "--precision") {
      if (!parse_precision(value, &opts->precision))
        return bad("expected l<A>r<B> with A, B in {4, 8, 12, 16}, e.g. l8r8");
      opts->has_precision = true;
    } else if (arg == "--vec") {
      if (!parse_positive_list(value, &opts->vecs)) return bad("expected positive integers");
    } else if (arg == "--n") {
      if (!parse_positive_list(value, &opts->ns)) return bad("expected positive integers");
    } else if (arg == "--dlmc") {
      if (value.empty()) return bad("expected a directory");
      opts->dlmc_dir = value;
    } else if (arg == "--csv") {
      if (value.empty()) return bad("expected a file name");
      opts->csv_file = value;
    } else if (arg == "--reps") {
      int64_t r = 0;
      if (!parse_int(value, &r) || r <= 0 || r > 1000000) return bad("expected 1..1000000");
      opts->reps = static_cast<int>(r);
    } else if (arg == "--order") {
      if (value == "row") opts->order = SPX_ORDER_ROW;
      else if (value == "col") opts->order = SPX_ORDER_COL;
      else return bad("expected row or col");
    } else if (arg == "--op") {
      if (value == "spmm") opts->op = OpChoice::SPMM;
      else if (value == "sddmm") opts->op = OpChoice::SDDMM;
      else if (value == "both") opts->op = OpChoice::BOTH;
      else return bad("expected spmm, sddmm or both");
    } else if (arg == "--preset") {
      if (value.empty()) return bad("expected a preset name (nm: llama; ell: paper)");
      opts->preset = value;  // checked against the family in build_cases
    } else if (arg == "--baselines") {
      opts->baselines = split(value, ',');
      for (const std::string& b : opts->baselines)
        if (b != "cublas_hgemm" && b != "cusparse_csr" && b != "cusparse_bell" && b != "cusparselt" &&
            b != "cublas_int8" && b != "cusparse_coo" && b != "cublas" &&
            b != "cublas_sgemm_fp32" && b != "cublas_sgemm_tf32" && b != "none")
          return bad(
              "expected names among cublas_hgemm, cublas_int8, cublas_sgemm_fp32, "
              "cublas_sgemm_tf32, cublas, cusparse_csr, cusparse_coo, cusparse_bell, cusparselt, "
              "none");
    } else if (arg == "--format") {
      opts->formats = split(value, ',');
      for (const std::string& f : opts->formats)
        if (f != "csr" && f != "ell" && f != "bcrs" && f != "nm")
          return bad("expected formats among csr, ell, bcrs, nm");
    } else if (arg == "--list") {
      opts->list = true;
    } else if (arg == "--quick") {
      opts->quick = true;
    } else if (arg == "--graph") {
      opts->graph = true;
    } else if (arg == "--candidates") {
      opts->candidates = true;
    } else if (arg.rfind("-", 0) == 0) {
      *error = "unknown option " + arg;
      return ParseStatus::USAGE_ERROR;
    } else if (!have_family) {
      have_family = true;
      if (arg == "nm") opts->families = {Family::NM};
      else if (arg == "ell") opts->families = {Family::ELL};
      else if (arg == "srbcrs") opts->families = {Family::SRBCRS};
      else if (arg == "sptc") opts->families = {Family::SPTC};
      else if (arg == "dispatch") opts->dispatch = true;
      else if (arg == "all") {
        opts->all = true;
        opts->families = {Family::NM, Family::ELL, Family::SRBCRS, Family::SPTC};
      } else {
        *error = "unknown family '" + arg + "' (expected nm, ell, srbcrs, sptc, all or dispatch)";
        return ParseStatus::USAGE_ERROR;
      }
    } else {
      *error = "unexpected argument '" + arg + "'";
      return ParseStatus::USAGE_ERROR;
    }
  }
  if (!have_family) {
    *error = "missing family (nm, ell, srbcrs, sptc, all or dispatch)";
    return ParseStatus::USAGE_ERROR;
  }
  if (!opts->formats.empty() && !opts->dispatch) {
    *error = "--format is for dispatch only";
    return ParseStatus::USAGE_ERROR;
  }
  if (opts->dispatch) {
    if (opts->op == OpChoice::SDDMM || opts->op == OpChoice::BOTH || !opts->preset.empty() ||
        !opts->dlmc_dir.empty() || opts->has_precision || opts->candidates ||
        !opts->baselines.empty()) {
      *error = "dispatch takes --dtype, --sparsity, --shape, --n, --vec, --format, --quick, "
               "--list, --csv, --reps, --order and --graph only (SpMM; no --preset, --dlmc, "
               "--precision, --candidates or --baselines)";
      return ParseStatus::USAGE_ERROR;
    }
    if (opts->has_dtype && opts->dtype != ValueType::F32 && opts->dtype != ValueType::F16 &&
        opts->dtype != ValueType::BF16 && opts->dtype != ValueType::I8) {
      *error = "dispatch takes --dtype f32, f16, bf16 or i8";
      return ParseStatus::USAGE_ERROR;
    }
    return ParseStatus::OK;
  }
  if (opts->op != OpChoice::DEFAULT && opts->op != OpChoice::SPMM) {
    bool has_srbcrs = false;
    for (Family f : opts->families) has_srbcrs = has_srbcrs || f == Family::SRBCRS;
    if (!has_srbcrs) {
      *error = "--op sddmm/both is available for srbcrs (and all) only in this version";
      return ParseStatus::USAGE_ERROR;
    }
  }
  return ParseStatus::OK;
}

}  // namespace bench
