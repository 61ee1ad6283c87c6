#include "host_builders.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <stdexcept>

#include "runtime/dtype.hpp"

namespace spx::test {

// ---------------------------------------------------------------- formats

std::string FormatSpec::name() const {
  switch (format) {
    case SPX_FORMAT_CSR:
      return "CSR";
    case SPX_FORMAT_BCRS:
      return "BCRS(V=" + std::to_string(vec_len) + ")";
    case SPX_FORMAT_NM:
      return "NM(" + std::to_string(n) + ":" + std::to_string(m) + ",l=" + std::to_string(l) + ")";
    case SPX_FORMAT_ELL:
      return "ELL";
  }
  return "?";
}

int64_t FormatSpec::row_unit() const {
  if (format == SPX_FORMAT_BCRS) return vec_len;
  if (format == SPX_FORMAT_NM) return l;
  return 1;
}

int64_t FormatSpec::col_unit() const { return format == SPX_FORMAT_NM ? m : 1; }

FormatSpec csr_spec() { return FormatSpec{}; }

FormatSpec bcrs_spec(int64_t vec_len) {
  FormatSpec s;
  s.format = SPX_FORMAT_BCRS;
  s.vec_len = vec_len;
  return s;
}

FormatSpec nm_spec(int64_t n, int64_t m, int64_t l) {
  FormatSpec s;
  s.format = SPX_FORMAT_NM;
  s.n = n;
  s.m = m;
  s.l = l;
  return s;
}

FormatSpec ell_spec() {
  FormatSpec s;
  s.format = SPX_FORMAT_ELL;
  return s;
}

std::vector<FormatSpec> all_formats() {
  return {csr_spec(),         bcrs_spec(1),        bcrs_spec(2),       bcrs_spec(4),
          bcrs_spec(8),       bcrs_spec(16),       nm_spec(2, 4, 2),   nm_spec(1, 4, 4),
          nm_spec(3, 8, 16),  nm_spec(5, 16, 1),   nm_spec(4, 8, 8),   ell_spec()};
}

int64_t round_up(int64_t x, int64_t unit) { return (x + unit - 1) / unit * unit; }

// ---------------------------------------------------------------- element helpers

size_t element_bytes(spxDataType_t t) {
  switch (t) {
    case SPX_R_32F:
    case SPX_R_32I:
      return 4;
    case SPX_R_16F:
    case SPX_R_16BF:
    case SPX_R_16I:
      return 2;
    case SPX_R_8I:
    case SPX_R_8U:
      return 1;
    default:
      throw std::logic_error("element_bytes: 4-bit or invalid type");
  }
}

namespace {

// A value no correct kernel may let into a result: NaN for floats, the type's largest value
// for integers. Written into places a kernel must not use (ld padding of inputs, ELL padding).
void store_garbage(void* data, spxDataType_t t, int64_t i) {
  uint8_t* bytes = static_cast<uint8_t*>(data);
  switch (t) {
    case SPX_R_32F: {
      const uint32_t nan = 0x7FC00000u;
      std::memcpy(bytes + 4 * i, &nan, 4);
      return;
    }
    case SPX_R_16F: {
      const uint16_t nan = 0x7E00u;
      std::memcpy(bytes + 2 * i, &nan, 2);
      return;
    }
    case SPX_R_16BF: {
      const uint16_t nan = 0x7FC0u;
      std::memcpy(bytes + 2 * i, &nan, 2);
      return;
    }
    default:
      dtype::store_double(data, t, i, static_cast<double>(dtype::int_max(t)));
  }
}

// Kept-column pattern of one (vector-)row: empty, full, or Bernoulli(density).
std::vector<int32_t> row_columns(Rng& rng, int64_t r, int64_t rows, int64_t cols, double density) {
  std::vector<int32_t> out;
  if (density <= 0 || (rows >= 3 && r % 5 == 1)) return out;
  const bool full = rows >= 3 && r % 11 == 3;
  for (int64_t c = 0; c < cols; ++c)
    if (full || rng.chance(density)) out.push_back(static_cast<int32_t>(c));
  return out;
}

// Makes sure a CSR-like structure (ptr/idx over `outer` rows) holds at least one entry.
void ensure_nonempty(Rng& rng, int64_t outer, int64_t cols, double density,
                     std::vector<std::vector<int32_t>>& pattern) {
  if (density <= 0 || outer == 0 || cols == 0) return;
  for (const auto& row : pattern)
    if (!row.empty()) return;
  int64_t r = rng.uniform_int(0, outer - 1);
  if (outer >= 3 && r % 5 == 1) r = (r + 1) % outer;
  pattern[static_cast<size_t>(r)].push_back(static_cast<int32_t>(rng.uniform_int(0, cols - 1)));
}

HostSparse csr_like(Rng& rng, spxFormat_t format, int64_t outer, int64_t rows, int64_t cols,
                    int64_t vec_len, const ValueDist& dist, double density) {
  std::vector<std::vector<int32_t>> pattern(static_cast<size_t>(outer));
  for (int64_t r = 0; r < outer; ++r) pattern[r] = row_columns(rng, r, outer, cols, density);
  ensure_nonempty(rng, outer, cols, density, pattern);

  HostSparse s;
  s.format = format;
  s.type = dist.type;
  s.rows = rows;
  s.cols = cols;
  s.vec_len = vec_len;
  s.ptr.assign(1, 0);
  for (const auto& row : pattern) {
    s.idx.insert(s.idx.end(), row.begin(), row.end());
    s.ptr.push_back(static_cast<int32_t>(s.idx.size()));
  }
  s.values = random_values(rng, dist, static_cast<int64_t>(s.idx.size()) * vec_len);
  return s;
}

// `count` distinct values of [0, range), increasing.
std::vector<int32_t> sample_sorted(Rng& rng, int64_t range, int64_t count) {
  std::vector<int32_t> all(static_cast<size_t>(range));
  std::iota(all.begin(), all.end(), 0);
  for (int64_t i = 0; i < count; ++i) std::swap(all[i], all[rng.uniform_int(i, range - 1)]);
  all.resize(static_cast<size_t>(count));
  std::sort(all.begin(), all.end());
  return all;
}

}  // namespace

// ---------------------------------------------------------------- sparse builders

HostSparse random_csr(Rng& rng, int64_t rows, int64_t cols, const ValueDist& dist, double density) {
  return csr_like(rng, SPX_FORMAT_CSR, rows, rows, cols, 1, dist, density);
}

HostSparse random_bcrs(Rng& rng, int64_t rows, int64_t cols, int64_t vec_len,
                       const ValueDist& dist, double density) {
  if (vec_len < 1 || rows % vec_len != 0) throw std::logic_error("random_bcrs: rows % V != 0");
  return csr_like(rng, SPX_FORMAT_BCRS, rows / vec_len, rows, cols, vec_len, dist, density);
}

HostSparse random_nm(Rng& rng, int64_t rows, int64_t cols, int64_t n, int64_t m, int64_t l,
                     const ValueDist& dist) {
  if (n < 1 || n > m || cols % m != 0 || l < 1 || rows % l != 0)
    throw std::logic_error("random_nm: bad N:M parameters");
  HostSparse s;
  s.format = SPX_FORMAT_NM;
  s.type = dist.type;
  s.rows = rows;
  s.cols = cols;
  s.n = n;
  s.m = m;
  s.l = l;
  const int64_t windows = cols / m, kc = windows * n;
  s.idx.resize(static_cast<size_t>(rows / l * kc));
  for (int64_t g = 0; g < rows / l; ++g)
    for (int64_t w = 0; w < windows; ++w) {
      const std::vector<int32_t> kept = sample_sorted(rng, m, n);
      for (int64_t j = 0; j < n; ++j) s.idx[g * kc + w * n + j] = kept[j];
    }
  s.values = random_values(rng, dist, rows * kc);
  return s;
}

HostSparse random_ell(Rng& rng, int64_t rows, int64_t cols, int64_t ell_width,
                      const ValueDist& dist) {
  if (ell_width < 0 || ell_width > cols) throw std::logic_error("random_ell: bad width");
  HostSparse s;
  s.format = SPX_FORMAT_ELL;
  s.type = dist.type;
  s.rows = rows;
  s.cols = cols;
  s.ell_width = ell_width;
  s.idx.assign(static_cast<size_t>(rows * ell_width), -1);
  s.values = random_values(rng, dist, rows * ell_width);
  bool any = false;
  for (int64_t r = 0; r < rows; ++r) {
    int64_t real = ell_width;
    if (rows >= 3 && r % 5 == 1) real = 0;
    else if (r % 3 == 0) real = std::max<int64_t>(0, ell_width - 1 - (r / 3) % 2);
    if (r == rows - 1 && !any && real == 0) real = ell_width;  // keep the matrix non-empty
    any = any || real > 0;
    const std::vector<int32_t> kept = sample_sorted(rng, cols, real);
    for (int64_t j = 0; j < ell_width; ++j) {
      const int64_t slot = r + j * rows;
      if (j < real) {
        s.idx[slot] = kept[j];
      } else {
        store_garbage(s.values.data(), s.type, slot);
      }
    }
  }
  return s;
}

HostSparse random_sparse(Rng& rng, const FormatSpec& spec, int64_t rows, int64_t cols,
                         const ValueDist& dist, double density) {
  switch (spec.format) {
    case SPX_FORMAT_CSR:
      return random_csr(rng, rows, cols, dist, density);
    case SPX_FORMAT_BCRS:
      return random_bcrs(rng, rows, cols, spec.vec_len, dist, density);
    case SPX_FORMAT_NM:
      return random_nm(rng, rows, cols, spec.n, spec.m, spec.l, dist);
    case SPX_FORMAT_ELL: {
      const int64_t width =
          std::min<int64_t>(cols, std::max<int64_t>(1, std::llround(double(cols) * density)));
      return random_ell(rng, rows, cols, width, dist);
    }
  }
  throw std::logic_error("random_sparse: bad format");
}

// ---------------------------------------------------------------- dense builders

int64_t min_ld(int64_t rows, int64_t cols, spxOrder_t order) {
  return std::max<int64_t>(1, order == SPX_ORDER_ROW ? cols : rows);
}

int64_t element_slots(const HostDense& d) {
  return d.ld * (d.order == SPX_ORDER_ROW ? d.rows : d.cols);
}

bool is_logical(const HostDense& d, int64_t i) {
  return (i % d.ld) < (d.order == SPX_ORDER_ROW ? d.cols : d.rows);
}

HostDense random_dense(Rng& rng, int64_t rows, int64_t cols, spxOrder_t order,
                       const ValueDist& dist, int64_t ld_pad) {
  HostDense d;
  d.rows = rows;
  d.cols = cols;
  d.order = order;
  d.type = dist.type;
  d.ld = min_ld(rows, cols, order) + ld_pad;
  if (dtype::bits(dist.type) == 4) d.ld = round_up(d.ld, 2);
  const int64_t slots = element_slots(d);
  d.data.assign(dtype::storage_bytes(d.type, slots), 0);
  for (int64_t i = 0; i < slots; ++i) {
    if (is_logical(d, i)) {
      dtype::store_double(d.data.data(), d.type, i, random_value(rng, dist));
    } else {
      store_garbage(d.data.data(), d.type, i);
    }
  }
  return d;
}

void guard_padding(HostDense& d) {
  const size_t eb = element_bytes(d.type);
  const int64_t slots = element_slots(d);
  for (int64_t i = 0; i < slots; ++i)
    if (!is_logical(d, i)) std::memset(d.data.data() + i * eb, kGuardByte, eb);
}

namespace {

void store_poison(uint8_t* bytes, spxDataType_t t, int64_t i) {
  const size_t eb = element_bytes(t);
  if (t == SPX_R_32I) {
    std::memset(bytes + i * eb, 0x7F, eb);
  } else {
    std::memset(bytes + i * eb, 0xFF, eb);  // all ones: a NaN in 32F, 16F and 16BF
  }
}

}  // namespace

void poison_dense(HostDense& d) {
  const int64_t slots = element_slots(d);
  for (int64_t i = 0; i < slots; ++i)
    if (is_logical(d, i)) store_poison(d.data.data(), d.type, i);
}

void poison_sparse_values(HostSparse& s) {
  const int64_t slots = s.value_slots();
  for (int64_t i = 0; i < slots; ++i) {
    if (s.format == SPX_FORMAT_ELL && s.idx[i] < 0) continue;
    store_poison(s.values.data(), s.type, i);
  }
}

void guard_ell_padding(HostSparse& s) {
  if (s.format != SPX_FORMAT_ELL) return;
  const size_t eb = element_bytes(s.type);
  for (int64_t i = 0; i < s.value_slots(); ++i)
    if (s.idx[i] < 0) std::memset(s.values.data() + i * eb, kGuardByte, eb);
}

// ---------------------------------------------------------------- names

const char* type_name(spxDataType_t t) {
  switch (t) {
    case SPX_R_32F: return "32F";
    case SPX_R_16F: return "16F";
    case SPX_R_16BF: return "16BF";
    case SPX_R_8I: return "8I";
    case SPX_R_4I: return "4I";
    case SPX_R_16I: return "16I";
    case SPX_R_32I: return "32I";
    case SPX_R_8U: return "8U";
    case SPX_R_4U: return "4U";
  }
  return "?";
}

const char* order_name(spxOrder_t o) {
  return o == SPX_ORDER_ROW ? "row" : o == SPX_ORDER_COL ? "col" : "?";
}

const char* alg_name(spxSpMMAlg_t a) {
  switch (a) {
    case SPX_SPMM_ALG_DEFAULT: return "DEFAULT";
    case SPX_SPMM_ALG_NM: return "NM";
    case SPX_SPMM_ALG_ELL: return "ELL";
    case SPX_SPMM_ALG_SRBCRS: return "SRBCRS";
    case SPX_SPMM_ALG_SPTC_REORDER: return "SPTC_REORDER";
    case SPX_SPMM_ALG_FALLBACK: return "FALLBACK";
    case SPX_SPMM_ALG_DENSE: return "DENSE";
  }
  return "?";
}

}  // namespace spx::test
