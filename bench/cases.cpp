#include "cases.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <utility>

#include "check.hpp"

namespace fs = std::filesystem;

namespace bench {

namespace {

/// What a family runs when the command line does not say.
struct FamilyDefaults {
  std::vector<Shape> shapes;
  std::vector<Shape> sddmm_shapes;  ///< MxKxN with the MxN mask (srbcrs only)
  std::vector<double> sparsities;
  ValueType dtype;
  int64_t vec;  ///< 0 = NM chooses L from m
};

// Full sweeps: each family's own data (docs/benchmark-protocol.md, "Inputs"); --quick keeps one
// small case per family so `all --quick` stays well under a minute even on the fallback kernel.
FamilyDefaults defaults_for(Family f, bool quick) {
  switch (f) {
    case Family::NM:
      if (quick) return {{{1024, 1024, 1024}}, {}, {0.5}, ValueType::F32, 0};
      return {{{4096, 4096, 4096}}, {}, {0.5, 0.625, 0.75, 0.875}, ValueType::F32, 0};
    case Family::ELL:
      if (quick) return {{{1024, 1024, 256}}, {}, {0.6}, ValueType::F16, 1};
      return {{{1024, 1024, 1024}}, {}, {0.6}, ValueType::F16, 1};
    case Family::SRBCRS:
      if (quick) return {{{1024, 1024, 256}}, {{1024, 256, 1024}}, {0.9}, ValueType::I8, 8};
      return {{{4096, 4096, 1024}}, {{4096, 256, 4096}}, {0.7, 0.9, 0.98}, ValueType::I8, 8};
    case Family::SPTC:
      if (quick) return {{{1024, 1024, 256}}, {}, {0.9}, ValueType::F16, 8};
      return {{{4096, 4096, 4096}}, {}, {0.8, 0.9, 0.95, 0.98}, ValueType::F16, 8};
  }
  return {};
}

bool dtype_allowed(Family f, ValueType t) {
  switch (f) {
    case Family::NM: return t == ValueType::F32 || t == ValueType::F16 || t == ValueType::BF16;
    case Family::ELL: return t == ValueType::F32 || t == ValueType::F16;
    case Family::SRBCRS: return t == ValueType::I8 || t == ValueType::I4 || t == ValueType::I16;
    case Family::SPTC: return t == ValueType::F16 || t == ValueType::BF16;
  }
  return false;
}

/// FNV-1a: a seed that depends only on what the case is, not on its position in the list, so a
/// case rerun alone builds the same matrix.
uint64_t case_seed(const CaseSpec& c) {
  std::string key = strf("%s|%s|%s|%lld|%lld|%lld|%.6f|%lld|%s|%s", family_name(c.family),
                         op_name(c.op), c.matrix.c_str(), (long long)c.m, (long long)c.k,
                         (long long)c.n, c.sparsity, (long long)c.vec, value_type_name(c.dtype),
                         c.precision.name().c_str());
  uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : key) {
    h ^= ch;
    h *= 1099511628211ull;
  }
  return h;
}

std::string shape_name(int64_t m, int64_t k, int64_t n) {
  return strf("%lldx%lldx%lld", (long long)m, (long long)k, (long long)n);
}

std::vector<Op> ops_for(Family f, const Options& opts) {
  if (f != Family::SRBCRS) return {Op::SPMM};
  switch (opts.op) {
    case OpChoice::SPMM: return {Op::SPMM};
    case OpChoice::SDDMM: return {Op::SDDMM};
    case OpChoice::BOTH: return {Op::SPMM, Op::SDDMM};
    case OpChoice::DEFAULT: break;
  }
  // `all --quick` promises an SDDMM row for SR-BCRS; a plain srbcrs sweep stays SpMM.
  if (opts.all && opts.quick) return {Op::SPMM, Op::SDDMM};
  return {Op::SPMM};
}

/// One part of a preset: its shapes, each run at the part's sparsities. A part whose sparsities
/// are the family's choice (`overridable`) takes --sparsity instead when it is given.
struct PresetPart {
  std::vector<Shape> shapes;
  std::vector<double> sparsities;
  bool overridable;
};

/// The parts of preset `name` for family f; false if f has no such preset.
bool preset_parts(Family f, const std::string& name, std::vector<PresetPart>* parts) {
  parts->clear();
  if (f == Family::NM && name == "llama") {
    // The NM-SpMM paper's 100-point set: C (m x n) = A (m x k, dense activations) *
    // B (k x n, N:M-sparse weight), m (tokens) in {256, ..., 4096} x 20 (n, k) pairs of Llama
    // linear layers. libspx keeps the sparse operand on the left and computes
    // C^T (n x m) = B^T (n x k, sparse) * A^T (k x m, dense), so in the bench's MxKxN
    // (sparse rows x sparse cols x dense cols): M = paper n, K = paper k, N = paper m.
    static const int64_t kNK[][2] = {
        {2048, 2048},  {6144, 2048},  {2048, 5632},  {5632, 2048},   // 2048-wide models
        {4096, 4096},  {12288, 4096}, {4096, 11008}, {11008, 4096},  // Llama 7B
        {5120, 5120},  {15360, 5120}, {5120, 13824}, {13824, 5120},  // Llama 13B
        {6656, 6656},  {19968, 6656}, {6656, 17920}, {17920, 6656},  // Llama 33B
        {8192, 8192},  {24576, 8192}, {8192, 22016}, {22016, 8192}}; // Llama 65B
    PresetPart part{{}, {0.5, 0.625, 0.75, 0.875}, true};
    for (int64_t m : {256, 512, 1024, 2048, 4096})
      for (const auto& nk : kNK) part.shapes.push_back({nk[0], nk[1], m});
    parts->push_back(part);
    return true;
  }
  if (f == Family::ELL && name == "paper") {
    // The uniform-sparsity paper's grids (docs/benchmark-protocol.md, "Inputs"), MxKxN as everywhere.
    PresetPart grid{{}, {0.6}, false};  // M=K in 128..1024, N in {128, 1024}, 60 %
    for (int64_t mk : {128, 256, 512, 1024})
      for (int64_t n : {128, 1024}) grid.shapes.push_back({mk, mk, n});
    parts->push_back(grid);
    parts->push_back({{{1024, 1024, 1024}}, {0.3, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95}, false});
    PresetPart nsweep{{}, {0.6}, false};  // N sweep at 1024x1024, 60 %
    for (int64_t n : {128, 256, 512, 1024, 2048, 4096, 8192, 16384})
      nsweep.shapes.push_back({1024, 1024, n});
    parts->push_back(nsweep);
    PresetPart decode{{}, {0.7, 0.8, 0.9, 0.95}, false};  // decode: N in {1, 8, 16}
    for (int64_t mk : {4096, 11008})
      for (int64_t n : {1, 8, 16}) decode.shapes.push_back({4096, mk, n});
    parts->push_back(decode);
    return true;
  }
  return false;
}

}  // namespace

double dlmc_folder_sparsity(const std::string& path) {
  std::string folder = fs::path(path).parent_path().filename().string();
  if (folder.empty()) return -1.0;
  char* end = nullptr;
  double v = std::strtod(folder.c_str(), &end);
  if (end == folder.c_str() || *end != '\0' || !(v >= 0.0 && v < 1.0)) return -1.0;
  return v;
}

std::vector<std::string> find_smtx_files(const std::string& dir, const std::vector<double>& levels) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw Error(strf("--dlmc %s: not a directory", dir.c_str()));
  std::vector<std::string> files;
  for (fs::recursive_directory_iterator it(dir, fs::directory_options::follow_directory_symlink, ec),
       end;
       !ec && it != end; it.increment(ec)) {
    if (!it->is_regular_file(ec) || it->path().extension() != ".smtx") continue;
    std::string p = it->path().string();
    if (!levels.empty()) {
      double level = dlmc_folder_sparsity(p);
      bool keep = false;
      for (double s : levels) keep = keep || (level >= 0 && std::fabs(level - s) < 1e-9);
      if (!keep) continue;
    }
    files.push_back(p);
  }
  if (ec) throw Error(strf("--dlmc %s: %s", dir.c_str(), ec.message().c_str()));
  std::sort(files.begin(), files.end());
  return files;
}

bool build_cases(const Options& opts, std::vector<CaseSpec>* cases, std::string* usage_error) {
  cases->clear();
  const bool single = opts.families.size() == 1;
  if (single && opts.has_precision && opts.families[0] != Family::SRBCRS) {
    *usage_error = "--precision applies to srbcrs only";
    return false;
  }
  std::vector<PresetPart> preset;
  if (!opts.preset.empty()) {
    if (!single) {
      *usage_error = "--preset takes one family (nm --preset llama, ell --preset paper)";
      return false;
    }
    if (!opts.shapes.empty() || !opts.ns.empty() || !opts.dlmc_dir.empty() || opts.quick) {
      *usage_error = "--preset cannot be combined with --shape, --n, --dlmc or --quick";
      return false;
    }
    if (!preset_parts(opts.families[0], opts.preset, &preset)) {
      *usage_error = strf("unknown preset '%s' for %s (presets: nm llama, ell paper)",
                          opts.preset.c_str(), family_name(opts.families[0]));
      return false;
    }
  }
  std::vector<std::string> dlmc_files;
  if (!opts.dlmc_dir.empty()) {
    dlmc_files = find_smtx_files(opts.dlmc_dir, opts.sparsities);
    if (dlmc_files.empty())
      throw Error(strf("--dlmc %s: no .smtx file%s", opts.dlmc_dir.c_str(),
                       opts.sparsities.empty() ? "" : " in the requested sparsity folders"));
  }

  for (Family f : opts.families) {
    FamilyDefaults d = defaults_for(f, opts.quick);
    ValueType dtype = d.dtype;
    if (opts.has_dtype) {
      if (dtype_allowed(f, opts.dtype)) {
        dtype = opts.dtype;
      } else if (single) {
        *usage_error = strf("--dtype %s is not valid for %s", value_type_name(opts.dtype),
                            family_name(f));
        return false;
      }  // with `all`, a family that does not take this dtype keeps its default
    }
    Precision precision;  // l8r8
    if (f == Family::SRBCRS) {
      if (dtype == ValueType::I4) precision = {4, 4};
      if (dtype == ValueType::I16) precision = {16, 16};
      if (opts.has_precision) precision = opts.precision;
      dtype = precision.a_type();
    }
    std::vector<int64_t> vecs = opts.vecs.empty() ? std::vector<int64_t>{d.vec} : opts.vecs;

    if (!dlmc_files.empty()) {
      if (f == Family::NM) {
        if (single) {
          *usage_error = "nm takes synthetic shapes only (an N:M pattern cannot hold a DLMC matrix)";
          return false;
        }
        continue;
      }
      std::vector<int64_t> ns = opts.ns.empty() ? std::vector<int64_t>{256} : opts.ns;
      std::string root = fs::path(opts.dlmc_dir).lexically_normal().string();
      for (Op op : ops_for(f, opts)) {
        for (const std::string& file : dlmc_files) {
          for (int64_t v : vecs) {
            for (int64_t n : ns) {
              CaseSpec c;
              c.family = f;
              c.op = op;
              c.dlmc_file = file;
              c.matrix = fs::path(file).lexically_normal().lexically_relative(root).string();
              if (c.matrix.empty() || c.matrix.rfind("..", 0) == 0) c.matrix = file;
              // SpMM: the file is A (m x k) and n is the dense width. SDDMM: the file is the
              // m x n mask and the --n value is the inner dimension k.
              if (op == Op::SPMM) c.n = n;
              else c.k = n;
              c.sparsity = dlmc_folder_sparsity(file);
              c.vec = v;
              c.dtype = dtype;
              c.precision = precision;
              c.seed = case_seed(c);
              cases->push_back(c);
            }
          }
        }
      }
      continue;
    }

    std::vector<double> levels = opts.sparsities.empty() ? d.sparsities : opts.sparsities;
    for (Op op : ops_for(f, opts)) {
      // (shape, sparsity) points in run order: the preset's parts, or shapes x levels.
      std::vector<std::pair<Shape, double>> points;
      if (!preset.empty()) {
        for (const PresetPart& part : preset) {
          const std::vector<double>& part_levels =
              part.overridable && !opts.sparsities.empty() ? opts.sparsities : part.sparsities;
          for (const Shape& s : part.shapes) {
            for (double sp : part_levels) {
              bool seen = false;  // parts overlap (e.g. 1024^3 at 0.6): run each point once
              for (const auto& q : points)
                seen = seen || (q.first.m == s.m && q.first.k == s.k && q.first.n == s.n &&
                                q.second == sp);
              if (!seen) points.push_back({s, sp});
            }
          }
        }
      } else {
        std::vector<Shape> shapes = opts.shapes;
        if (shapes.empty()) shapes = (op == Op::SDDMM) ? d.sddmm_shapes : d.shapes;
        if (!opts.ns.empty()) {
          std::vector<Shape> crossed;
          for (const Shape& s : shapes)
            for (int64_t n : opts.ns) crossed.push_back({s.m, s.k, n});
          shapes = crossed;
        }
        for (const Shape& s : shapes)
          for (double sp : levels) points.push_back({s, sp});
      }
      for (const auto& point : points) {
        const Shape& s = point.first;
        for (int64_t v : vecs) {
          CaseSpec c;
          c.family = f;
          c.op = op;
          c.m = s.m;
          c.k = s.k;
          c.n = s.n;
          c.matrix = shape_name(s.m, s.k, s.n);
          c.sparsity = point.second;
          c.vec = v;
          c.dtype = dtype;
          c.precision = precision;
          c.seed = case_seed(c);
          cases->push_back(c);
        }
      }
    }
  }
  if (cases->empty()) {
    *usage_error = "these options select no case";
    return false;
  }
  return true;
}

}  // namespace bench
