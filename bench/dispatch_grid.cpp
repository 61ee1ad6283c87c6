#include <cmath>
#include <cstdint>
#include <utility>

#include "check.hpp"
#include "dispatch.hpp"

namespace bench {

namespace {

const spxFormat_t kFormats[] = {SPX_FORMAT_CSR, SPX_FORMAT_ELL, SPX_FORMAT_BCRS, SPX_FORMAT_NM};

uint64_t fnv1a(const std::string& key) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char ch : key) {
    h ^= ch;
    h *= 1099511628211ull;
  }
  return h;
}

/// The exact N:M pattern of `sparsity` with M among the NM family's fast sizes dividing k
/// (smallest M first): false when none exists (e.g. 0.7: N / M = 0.3 has no power-of-two M).
bool exact_nm(double sparsity, int64_t k, int64_t* n, int64_t* m) {
  for (int64_t mm : {4, 8, 16, 32, 64, 128}) {
    if (k % mm != 0) continue;
    const double nn = (1.0 - sparsity) * static_cast<double>(mm);
    const int64_t r = std::llround(nn);
    if (r >= 1 && r < mm && std::fabs(nn - static_cast<double>(r)) < 1e-9) {
      *n = r;
      *m = mm;
      return true;
    }
  }
  return false;
}

}  // namespace

const char* dispatch_format_name(spxFormat_t f) {
  switch (f) {
    case SPX_FORMAT_CSR: return "csr";
    case SPX_FORMAT_ELL: return "ell";
    case SPX_FORMAT_BCRS: return "bcrs";
    case SPX_FORMAT_NM: return "nm";
  }
  return "?";
}

std::string dispatch_family(const DispatchSpec& d) {
  return std::string("dispatch-") + dispatch_format_name(d.format);
}

std::string dispatch_label(const DispatchSpec& d) {
  std::string s = strf("%s %lldx%lldx%lld s=%g", dispatch_family(d).c_str(), (long long)d.m,
                       (long long)d.k, (long long)d.n, d.sparsity);
  if (d.format == SPX_FORMAT_BCRS) s += strf(" V=%lld", (long long)d.vec);
  if (d.format == SPX_FORMAT_NM)
    s += strf(" %lld:%lld L=%lld", (long long)d.nm_n, (long long)d.nm_m, (long long)d.vec);
  return s + " " + value_type_name(d.dtype);
}

bool build_dispatch_grid(const Options& opts, DispatchGrid* grid, std::string* usage_error) {
  grid->points.clear();
  grid->skipped.clear();
  const bool quick = opts.quick;

  std::vector<spxFormat_t> formats;
  for (spxFormat_t f : kFormats) {
    bool keep = opts.formats.empty();
    for (const std::string& name : opts.formats) keep = keep || name == dispatch_format_name(f);
    if (keep) formats.push_back(f);
  }
  std::vector<ValueType> dtypes =
      quick ? std::vector<ValueType>{ValueType::F32, ValueType::F16}
            : std::vector<ValueType>{ValueType::F32, ValueType::F16, ValueType::BF16,
                                     ValueType::I8};
  if (opts.has_dtype) dtypes = {opts.dtype};
  std::vector<double> levels = quick ? std::vector<double>{0.5, 0.8, 0.95}
                                     : std::vector<double>{0.5, 0.7, 0.8, 0.9, 0.95};
  if (!opts.sparsities.empty()) levels = opts.sparsities;
  const std::vector<int64_t> vecs = opts.vecs.empty() ? std::vector<int64_t>{8} : opts.vecs;

  // (m, k) in first-seen order, each with its n values: A is built once per (m, k, sparsity)
  // and reused for every n.
  std::vector<std::pair<std::pair<int64_t, int64_t>, std::vector<int64_t>>> shapes;
  auto add_shape = [&](int64_t m, int64_t k, int64_t n) {
    for (auto& s : shapes)
      if (s.first.first == m && s.first.second == k) {
        for (int64_t have : s.second)
          if (have == n) return;
        s.second.push_back(n);
        return;
      }
    shapes.push_back({{m, k}, {n}});
  };
  if (!opts.shapes.empty()) {
    for (const Shape& s : opts.shapes) {
      if (opts.ns.empty()) add_shape(s.m, s.k, s.n);
      else
        for (int64_t n : opts.ns) add_shape(s.m, s.k, n);
    }
  } else {
    const std::vector<std::pair<int64_t, int64_t>> mk =
        quick ? std::vector<std::pair<int64_t, int64_t>>{{4096, 4096}}
              : std::vector<std::pair<int64_t, int64_t>>{{4096, 4096}, {11008, 4096}, {4096, 11008}};
    const std::vector<int64_t> ns = !opts.ns.empty() ? opts.ns
                                    : quick          ? std::vector<int64_t>{1, 16, 256}
                                                     : std::vector<int64_t>{1, 16, 256, 2048};
    for (const auto& s : mk)
      for (int64_t n : ns) add_shape(s.first, s.second, n);
  }

  auto skip = [&](const std::string& why) {
    for (const std::string& s : grid->skipped)
      if (s == why) return;
    grid->skipped.push_back(why);
  };
  for (spxFormat_t f : formats) {
    for (ValueType t : dtypes) {
      for (const auto& shape : shapes) {
        const int64_t m = shape.first.first, k = shape.first.second;
        for (double sp : levels) {
          // The format's parameters: one A per V (bcrs), the exact N:M pattern (nm).
          std::vector<DispatchSpec> variants;
          DispatchSpec d;
          d.format = f;
          d.dtype = t;
          d.m = m;
          d.k = k;
          d.sparsity = sp;
          if (f == SPX_FORMAT_BCRS) {
            for (int64_t v : vecs) {
              if (m % v != 0) {
                skip(strf("bcrs: M %lld is not a multiple of V %lld", (long long)m, (long long)v));
                continue;
              }
              d.vec = v;
              variants.push_back(d);
            }
          } else if (f == SPX_FORMAT_NM) {
            if (!exact_nm(sp, k, &d.nm_n, &d.nm_m)) {
              skip(strf("nm: sparsity %g has no exact N:M pattern (M in 4..128 dividing K %lld)",
                        sp, (long long)k));
              continue;
            }
            d.vec = m % 32 == 0 ? 32 : 16;  // rows per group L: the NM family takes 16..128
            if (m % d.vec != 0) {
              skip(strf("nm: M %lld is not a multiple of 16 (rows per group L)", (long long)m));
              continue;
            }
            variants.push_back(d);
          } else {
            d.vec = 1;
            variants.push_back(d);
          }
          for (DispatchSpec& v : variants) {
            const std::string key =
                strf("dispatch|%s|%s|%lld|%lld|%.6f|%lld|%lld:%lld", dispatch_format_name(f),
                     value_type_name(t), (long long)m, (long long)k, sp, (long long)v.vec,
                     (long long)v.nm_n, (long long)v.nm_m);
            v.seed_a = fnv1a(key);
            for (int64_t n : shape.second) {
              v.n = n;
              v.seed_b = fnv1a(key + strf("|n=%lld", (long long)n));
              grid->points.push_back(v);
            }
          }
        }
      }
    }
  }
  if (grid->points.empty()) {
    *usage_error = "these options select no dispatch point";
    return false;
  }
  return true;
}

}  // namespace bench
