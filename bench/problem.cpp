#include "problem.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

#include "check.hpp"
#include "parallel.hpp"
#include "values.hpp"

namespace bench {

namespace {

/// Owns an array allocated by an spxHost* call.
template <class T>
struct HostArray {
  T* p = nullptr;
  HostArray() = default;
  HostArray(const HostArray&) = delete;
  HostArray& operator=(const HostArray&) = delete;
  ~HostArray() { spxHostFree(p); }
};

/// (N, M) whose sparsity 1 - N/M is closest to the request, M in {4, 8, 16, 32}; ties go to the
/// smaller M (cheaper metadata, and the NM-SpMM paper's 2:4 / 3:8 / 1:4 / 1:8 grid).
void choose_nm(double sparsity, int64_t* n, int64_t* m) {
  double best = 2.0;
  for (int64_t mm : {4, 8, 16, 32}) {
    int64_t nn = std::llround(mm * (1.0 - sparsity));
    nn = std::min<int64_t>(mm, std::max<int64_t>(1, nn));
    double err = std::fabs(1.0 - static_cast<double>(nn) / mm - sparsity);
    if (err < best - 1e-12) {
      best = err;
      *n = nn;
      *m = mm;
    }
  }
}

/// L rows per N:M group: the requested one, else 32 when m allows (the NM-SpMM paper's choice),
/// else the largest power of two dividing m.
int64_t choose_group_rows(int64_t m, int64_t requested) {
  if (requested > 0) return requested;
  for (int64_t l : {32, 16, 8, 4, 2})
    if (m % l == 0) return l;
  return 1;
}

/// Generator of independent stream `index` derived from `base` (one draw of the case's rng):
/// the same numbers however the streams are spread over threads.
std::mt19937_64 stream_rng(uint64_t base, int64_t index) {
  return std::mt19937_64(base ^ (0x9E3779B97F4A7C15ull * static_cast<uint64_t>(index + 1)));
}

/// `count` values of `gen`: chunks of 2^20 drawn in parallel, each from its own generator seeded
/// by one draw of `rng` and its chunk number (the same values on any number of threads).
std::vector<float> random_values(int64_t count, const ValueGen& gen, std::mt19937_64& rng) {
  constexpr int64_t kChunk = int64_t{1} << 20;
  std::vector<float> v(static_cast<size_t>(count));
  const uint64_t base = rng();
  const int64_t chunks = (count + kChunk - 1) / kChunk;
  parallel_for(chunks, 1, [&](int64_t c0, int64_t c1) {
    for (int64_t c = c0; c < c1; ++c) {
      std::mt19937_64 local = stream_rng(base, c);
      const int64_t end = std::min(count, (c + 1) * kChunk);
      for (int64_t i = c * kChunk; i < end; ++i) v[static_cast<size_t>(i)] = gen.draw(local);
    }
  });
  return v;
}

/// CSR of an N:M operand: every row holds kc entries, columns increasing (window by window,
/// kept positions sorted within a window); rows filled in parallel.
HostCsr nm_csr(const SparseOperand& s) {
  HostCsr csr;
  csr.rows = s.rows;
  csr.cols = s.cols;
  const int64_t kc = s.cols / s.nm_m * s.nm_n;
  if (s.rows * kc > INT32_MAX) throw Error("matrix has more than 2^31 stored entries");
  csr.row_ptr.resize(static_cast<size_t>(s.rows) + 1);
  csr.col_ind.resize(static_cast<size_t>(s.rows * kc));
  csr.values.resize(static_cast<size_t>(s.rows * kc));
  parallel_for(s.rows, 64, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      csr.row_ptr[r] = static_cast<int32_t>(r * kc);
      const int32_t* idx = s.idx.data() + (r / s.nm_l) * kc;
      for (int64_t pos = 0; pos < kc; ++pos) {
        csr.col_ind[r * kc + pos] = static_cast<int32_t>(pos / s.nm_n * s.nm_m + idx[pos]);
        csr.values[r * kc + pos] = s.values[r * kc + pos];
      }
    }
  });
  csr.row_ptr[s.rows] = static_cast<int32_t>(s.rows * kc);
  return csr;
}

/// CSR of the entries for_each_entry visits (sorted by row, then column).
HostCsr csr_of(const SparseOperand& s) {
  if (s.format == SPX_FORMAT_NM) return nm_csr(s);
  HostCsr csr;
  csr.rows = s.rows;
  csr.cols = s.cols;
  std::vector<int64_t> count(static_cast<size_t>(s.rows) + 1, 0);
  for_each_entry(s, [&](int64_t r, int64_t, int64_t) { ++count[r + 1]; });
  csr.row_ptr.assign(static_cast<size_t>(s.rows) + 1, 0);
  for (int64_t r = 0; r < s.rows; ++r) count[r + 1] += count[r];
  if (count[s.rows] > INT32_MAX) throw Error("matrix has more than 2^31 stored entries");
  for (int64_t r = 0; r <= s.rows; ++r) csr.row_ptr[r] = static_cast<int32_t>(count[r]);
  csr.col_ind.resize(static_cast<size_t>(count[s.rows]));
  csr.values.resize(static_cast<size_t>(count[s.rows]));
  std::vector<int64_t> fill(count.begin(), count.end() - 1);
  for_each_entry(s, [&](int64_t r, int64_t c, int64_t slot) {
    int64_t at = fill[r]++;
    csr.col_ind[at] = static_cast<int32_t>(c);
    csr.values[at] = s.values.empty() ? 0.0f : s.values[slot];
  });
  // Formats store columns in increasing order per row except BCRS from a file that did not;
  // cuSPARSE wants sorted rows, so sort each row by column (values follow).
  for (int64_t r = 0; r < s.rows; ++r) {
    int64_t lo = csr.row_ptr[r], hi = csr.row_ptr[r + 1];
    bool sorted = true;
    for (int64_t j = lo + 1; j < hi && sorted; ++j) sorted = csr.col_ind[j - 1] < csr.col_ind[j];
    if (sorted) continue;
    std::vector<std::pair<int32_t, float>> row;
    for (int64_t j = lo; j < hi; ++j) row.emplace_back(csr.col_ind[j], csr.values[j]);
    std::sort(row.begin(), row.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    for (int64_t j = lo; j < hi; ++j) {
      csr.col_ind[j] = row[j - lo].first;
      csr.values[j] = row[j - lo].second;
    }
  }
  return csr;
}

/// Random BCRS(V) structure: every vector-row keeps the same number of randomly placed columns.
void random_bcrs_structure(int64_t block_rows, int64_t cols, double sparsity, std::mt19937_64& rng,
                           std::vector<int32_t>* ptr, std::vector<int32_t>* idx) {
  int64_t keep = std::llround(static_cast<double>(cols) * (1.0 - sparsity));
  keep = std::min<int64_t>(cols, std::max<int64_t>(1, keep));
  ptr->assign(static_cast<size_t>(block_rows) + 1, 0);
  idx->clear();
  idx->reserve(static_cast<size_t>(block_rows * keep));
  std::vector<int32_t> perm(static_cast<size_t>(cols));
  std::iota(perm.begin(), perm.end(), 0);
  for (int64_t br = 0; br < block_rows; ++br) {
    for (int64_t j = 0; j < keep; ++j) {  // partial Fisher-Yates: the first `keep` are a sample
      std::uniform_int_distribution<int64_t> pick(j, cols - 1);
      std::swap(perm[j], perm[pick(rng)]);
    }
    std::vector<int32_t> row(perm.begin(), perm.begin() + keep);
    std::sort(row.begin(), row.end());
    idx->insert(idx->end(), row.begin(), row.end());
    (*ptr)[br + 1] = static_cast<int32_t>(idx->size());
  }
}

struct SmtxFile {
  int64_t rows = 0, cols = 0, nnz = 0;
  std::vector<int32_t> row_ptr, col_ind;
};

SmtxFile read_smtx(const std::string& path) {
  SmtxFile f;
  HostArray<int32_t> rp, ci;
  SPX_CHECK(spxHostReadSmtx(path.c_str(), &f.rows, &f.cols, &f.nnz, &rp.p, &ci.p));
  f.row_ptr.assign(rp.p, rp.p + f.rows + 1);
  f.col_ind.assign(ci.p, ci.p + f.nnz);
  return f;
}

/// N:M pattern n:m in groups of l rows (build_nm chooses them from the case).
void build_nm_pattern(const CaseSpec& spec, int64_t n, int64_t m, int64_t l, std::mt19937_64& rng,
                      Problem* p) {
  SparseOperand& s = p->sparse;
  if (spec.k % m != 0)
    throw Error(strf("nm: K (%lld) must be a multiple of M (%lld) for %lld:%lld",
                     (long long)spec.k, (long long)m, (long long)n, (long long)m));
  if (spec.m % l != 0)
    throw Error(strf("nm: M (%lld) must be a multiple of L (%lld)", (long long)spec.m,
                     (long long)l));
  // The pattern drawn directly: every (group, window) keeps n of its m positions, a uniform
  // random choice (what magnitude pruning of iid random values keeps), sorted; random values.
  // Pruning a dense matrix on the host (spxHostPruneNM, tested in the CPU suite) took seconds
  // per Llama-sized case.
  const int64_t kc = spec.k / m * n, windows = spec.k / m, groups = spec.m / l;
  s.format = SPX_FORMAT_NM;
  s.nm_n = n;
  s.nm_m = m;
  s.nm_l = l;
  s.idx.resize(static_cast<size_t>(groups * kc));
  const uint64_t base = rng();
  parallel_for(groups, 16, [&](int64_t g0, int64_t g1) {
    std::vector<int32_t> perm(static_cast<size_t>(m));
    for (int64_t g = g0; g < g1; ++g) {
      std::mt19937_64 local = stream_rng(base, g);
      for (int64_t w = 0; w < windows; ++w) {
        std::iota(perm.begin(), perm.end(), 0);
        for (int64_t j = 0; j < n; ++j) {  // partial Fisher-Yates: the first n are a sample
          std::uniform_int_distribution<int64_t> pick(j, m - 1);
          std::swap(perm[j], perm[pick(local)]);
        }
        std::sort(perm.begin(), perm.begin() + n);
        std::copy(perm.begin(), perm.begin() + n, s.idx.begin() + g * kc + w * n);
      }
    }
  });
  s.values = random_values(spec.m * kc, float_gen(spec.dtype), rng);
}

void build_nm(const CaseSpec& spec, std::mt19937_64& rng, Problem* p) {
  int64_t n = 0, m = 0;
  choose_nm(spec.sparsity, &n, &m);
  build_nm_pattern(spec, n, m, choose_group_rows(spec.m, spec.vec), rng, p);
}

void build_ell(const CaseSpec& spec, std::mt19937_64& rng, Problem* p) {
  SparseOperand& s = p->sparse;
  s.format = SPX_FORMAT_ELL;
  if (!spec.dlmc_file.empty()) {
    // DLMC: the file's rows (dilated by V) in CSR, then ELL padded to the longest row.
    SmtxFile f = read_smtx(spec.dlmc_file);
    std::vector<int32_t> rp = f.row_ptr, ci = f.col_ind;
    int64_t rows = f.rows;
    if (spec.vec > 1) {
      HostArray<int32_t> orp, oci;
      SPX_CHECK(spxHostDilateCsr(f.rows, f.cols, f.row_ptr.data(), f.col_ind.data(), spec.vec, &orp.p,
                                 &oci.p));
      rows = f.rows * spec.vec;
      rp.assign(orp.p, orp.p + rows + 1);
      ci.assign(oci.p, oci.p + rp[rows]);
    }
    p->spec.m = rows;
    p->spec.k = f.cols;
    std::vector<float> vals = random_values(static_cast<int64_t>(ci.size()),
                                            float_gen(spec.dtype), rng);
    HostArray<int32_t> eci;
    HostArray<float> evals;
    SPX_CHECK(spxHostCsrToEll(rows, f.cols, rp.data(), ci.data(), vals.data(), &s.ell_width, &eci.p,
                              &evals.p));
    s.idx.assign(eci.p, eci.p + rows * s.ell_width);
    s.values.assign(evals.p, evals.p + rows * s.ell_width);
    return;
  }
  int64_t width = std::llround(static_cast<double>(spec.k) * (1.0 - spec.sparsity));
  width = std::min<int64_t>(spec.k, std::max<int64_t>(1, width));
  // Uniform sparsity drawn directly: each row keeps `width` distinct random columns (what
  // pruning a random dense matrix to its largest magnitudes gives, in positions) with random
  // values. Pruning a dense m x k matrix on the host cost ~10 s per 4096 x 11008 case.
  s.ell_width = width;
  s.idx.resize(static_cast<size_t>(spec.m * width));
  s.values.resize(static_cast<size_t>(spec.m * width));
  const ValueGen gen = float_gen(spec.dtype);
  std::vector<int32_t> perm(static_cast<size_t>(spec.k));
  std::iota(perm.begin(), perm.end(), 0);
  std::vector<int32_t> row(static_cast<size_t>(width));
  for (int64_t r = 0; r < spec.m; ++r) {
    for (int64_t j = 0; j < width; ++j) {  // partial Fisher-Yates: the first `width` are a sample
      std::uniform_int_distribution<int64_t> pick(j, spec.k - 1);
      std::swap(perm[j], perm[pick(rng)]);
    }
    std::copy(perm.begin(), perm.begin() + width, row.begin());
    std::sort(row.begin(), row.end());
    for (int64_t j = 0; j < width; ++j) {  // column-major rows x width, columns increasing
      s.idx[r + j * spec.m] = row[j];
      s.values[r + j * spec.m] = gen.draw(rng);
    }
  }
}

/// BCRS(V) operand of rows x cols (SpMM: A is m x k; SDDMM: the mask is m x n).
void build_bcrs(const CaseSpec& spec, int64_t rows, int64_t cols, const ValueGen* gen,
                std::mt19937_64& rng, Problem* p) {
  SparseOperand& s = p->sparse;
  s.format = SPX_FORMAT_BCRS;
  s.vec_len = spec.vec;
  if (spec.vec <= 0) throw Error("--vec must be positive");
  int64_t block_rows = 0;
  if (!spec.dlmc_file.empty()) {
    // DLMC: each row of the file is one vector-row; dilation by V is the BCRS(V) reading of it.
    SmtxFile f = read_smtx(spec.dlmc_file);
    block_rows = f.rows;
    rows = f.rows * spec.vec;
    cols = f.cols;
    s.ptr = std::move(f.row_ptr);
    s.idx = std::move(f.col_ind);
  } else {
    if (rows % spec.vec != 0)
      throw Error(strf("M (%lld) must be a multiple of V (%lld)", (long long)rows,
                       (long long)spec.vec));
    block_rows = rows / spec.vec;
    random_bcrs_structure(block_rows, cols, spec.sparsity, rng, &s.ptr, &s.idx);
  }
  (void)block_rows;
  s.rows = rows;
  s.cols = cols;
  const int64_t slots = static_cast<int64_t>(s.idx.size()) * spec.vec;
  if (gen) s.values = random_values(slots, *gen, rng);
  else s.values.assign(static_cast<size_t>(slots), 0.0f);  // SDDMM mask: values are outputs
}

/// Problem::actual_sparsity from the CSR, and the CSV's sparsity (see build_problem).
void set_sparsity(Problem* p);

}  // namespace

std::string SparseOperand::describe() const {
  switch (format) {
    case SPX_FORMAT_NM:
      return strf("%lld:%lld L=%lld", (long long)nm_n, (long long)nm_m, (long long)nm_l);
    case SPX_FORMAT_ELL: return strf("ELL w=%lld", (long long)ell_width);
    case SPX_FORMAT_BCRS: return strf("BCRS V=%lld", (long long)vec_len);
    case SPX_FORMAT_CSR: return "CSR";
  }
  return "?";
}

void for_each_entry(const SparseOperand& s,
                    const std::function<void(int64_t, int64_t, int64_t)>& fn) {
  switch (s.format) {
    case SPX_FORMAT_CSR:
      for (int64_t r = 0; r < s.rows; ++r)
        for (int64_t j = s.ptr[r]; j < s.ptr[r + 1]; ++j) fn(r, s.idx[j], j);
      break;
    case SPX_FORMAT_BCRS: {
      const int64_t v = s.vec_len;
      for (int64_t br = 0; br < s.rows / v; ++br)
        for (int64_t t = 0; t < v; ++t)
          for (int64_t j = s.ptr[br]; j < s.ptr[br + 1]; ++j) fn(br * v + t, s.idx[j], j * v + t);
      break;
    }
    case SPX_FORMAT_NM: {
      const int64_t kc = s.cols / s.nm_m * s.nm_n;
      for (int64_t r = 0; r < s.rows; ++r) {
        const int64_t g = r / s.nm_l;
        for (int64_t w = 0; w < s.cols / s.nm_m; ++w)
          for (int64_t j = 0; j < s.nm_n; ++j) {
            const int64_t pos = w * s.nm_n + j;
            fn(r, w * s.nm_m + s.idx[g * kc + pos], r * kc + pos);
          }
      }
      break;
    }
    case SPX_FORMAT_ELL:
      for (int64_t r = 0; r < s.rows; ++r)
        for (int64_t j = 0; j < s.ell_width; ++j) {
          const int64_t slot = r + j * s.rows;
          if (s.idx[slot] >= 0) fn(r, s.idx[slot], slot);
        }
      break;
  }
}

Problem build_problem(const CaseSpec& spec) {
  Problem p;
  p.spec = spec;
  std::mt19937_64 rng(spec.seed);

  // Element types and value generators of the family.
  ValueGen a_gen = float_gen(spec.dtype), b_gen = float_gen(spec.dtype);
  p.a_type = p.b_type = p.c_type = spec.dtype;
  const bool integer = spec.family == Family::SRBCRS;
  if (integer) {
    p.a_type = spec.precision.a_type();
    p.b_type = spec.precision.b_type();
    p.c_type = ValueType::I32;
  }

  SparseOperand& s = p.sparse;
  s.type = p.a_type;
  switch (spec.family) {
    case Family::NM:
      if (!spec.dlmc_file.empty()) throw Error("nm takes synthetic shapes only");
      s.rows = spec.m;
      s.cols = spec.k;
      build_nm(spec, rng, &p);
      break;
    case Family::ELL:
      build_ell(spec, rng, &p);
      s.rows = p.spec.m;
      s.cols = p.spec.k;
      break;
    case Family::SRBCRS:
    case Family::SPTC: {
      if (spec.op == Op::SDDMM) {
        // The mask is m x n; its values are the operation's output (type c_type).
        s.type = p.c_type;
        build_bcrs(spec, spec.m, spec.n, nullptr, rng, &p);
        p.spec.m = s.rows;
        p.spec.n = s.cols;
      } else {
        // Integer ranges depend on k, which a DLMC file only tells once read: build first with
        // a placeholder generator, then draw the values.
        build_bcrs(spec, spec.m, spec.k, nullptr, rng, &p);
        p.spec.m = s.rows;
        p.spec.k = s.cols;
      }
      break;
    }
  }

  if (integer) {
    int_ranges(spec.precision.a_bits, spec.precision.b_bits, p.spec.k, &p.a_max_abs,
               &p.b_max_abs);
    a_gen = int_gen(p.a_max_abs);
    b_gen = int_gen(p.b_max_abs);
  }
  if ((spec.family == Family::SRBCRS || spec.family == Family::SPTC) && spec.op == Op::SPMM)
    s.values = random_values(s.value_slots(), a_gen, rng);

  const int64_t m = p.spec.m, k = p.spec.k, n = p.spec.n;
  if (m <= 0 || k <= 0 || n <= 0) throw Error("empty problem");
  if (spec.op == Op::SDDMM) p.a = random_values(m * k, a_gen, rng);
  p.b = random_values(k * n, b_gen, rng);

  s.csr = csr_of(s);
  set_sparsity(&p);
  return p;
}

Problem build_dispatch_a(const DispatchSpec& d) {
  Problem p;
  CaseSpec& spec = p.spec;
  // The family is only a label here: a dispatch point is an input format, not a family.
  spec.family = d.format == SPX_FORMAT_NM    ? Family::NM
                : d.format == SPX_FORMAT_ELL ? Family::ELL
                                             : Family::SPTC;
  spec.op = Op::SPMM;
  spec.m = d.m;
  spec.k = d.k;
  spec.n = d.n;
  spec.matrix = strf("%lldx%lldx%lld", (long long)d.m, (long long)d.k, (long long)d.n);
  spec.sparsity = d.sparsity;
  spec.vec = d.format == SPX_FORMAT_CSR ? 1 : d.vec;
  spec.dtype = d.dtype;
  spec.seed = d.seed_a;
  std::mt19937_64 rng(d.seed_a);

  const bool integer = is_integer(d.dtype);
  p.a_type = p.b_type = d.dtype;
  p.c_type = integer ? ValueType::I32 : d.dtype;
  ValueGen a_gen = float_gen(d.dtype);
  if (integer) {
    spec.precision = {8, 8};
    int_ranges(8, 8, d.k, &p.a_max_abs, &p.b_max_abs);
    a_gen = int_gen(p.a_max_abs);
  }
  SparseOperand& s = p.sparse;
  s.type = p.a_type;
  s.rows = d.m;
  s.cols = d.k;
  switch (d.format) {
    case SPX_FORMAT_NM:
      build_nm_pattern(spec, d.nm_n, d.nm_m, d.vec, rng, &p);
      if (integer) s.values = random_values(s.value_slots(), a_gen, rng);
      break;
    case SPX_FORMAT_ELL:
      build_ell(spec, rng, &p);
      if (integer) s.values = random_values(s.value_slots(), a_gen, rng);
      break;
    case SPX_FORMAT_BCRS:
    case SPX_FORMAT_CSR:
      // CSR is BCRS(1) read as CSR: row_ptr = block_row_ptr, col_ind = block_col, entry e in
      // slot e. Every row (vector-row) keeps the same number of random columns.
      build_bcrs(spec, d.m, d.k, &a_gen, rng, &p);
      if (d.format == SPX_FORMAT_CSR) {
        s.format = SPX_FORMAT_CSR;
        s.vec_len = 1;
      }
      break;
  }
  s.csr = csr_of(s);
  set_sparsity(&p);
  return p;
}

void build_dispatch_b(const DispatchSpec& d, Problem* p) {
  std::mt19937_64 rng(d.seed_b);
  const ValueGen b_gen = is_integer(p->b_type) ? int_gen(p->b_max_abs) : float_gen(p->b_type);
  p->spec.n = d.n;
  p->spec.matrix = strf("%lldx%lldx%lld", (long long)d.m, (long long)d.k, (long long)d.n);
  p->b = random_values(d.k * d.n, b_gen, rng);
}

namespace {

void set_sparsity(Problem* pp) {
  Problem& p = *pp;
  const SparseOperand& s = p.sparse;
  const CaseSpec& spec = p.spec;
  p.actual_sparsity =
      1.0 - static_cast<double>(s.csr.nnz()) / (static_cast<double>(s.rows) * s.cols);
  if (!spec.dlmc_file.empty()) {
    p.sparsity = spec.sparsity >= 0 ? spec.sparsity : p.actual_sparsity;
  } else {
    // Keep the requested level when the pattern hits it (clean plot groups); report the real
    // one when the pattern cannot (e.g. 0.9 has no exact N:M with M <= 32).
    p.sparsity = std::fabs(p.actual_sparsity - spec.sparsity) < 0.005 ? spec.sparsity
                                                                      : p.actual_sparsity;
  }
}

}  // namespace

}  // namespace bench
