#include "analyze_inputs.hpp"

#include <algorithm>
#include <cmath>

namespace bench::analyze {
namespace {

/// splitmix64: fast, seedable, the same sequence on every platform.
struct Rng {
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
};

/// Each of `count` positions kept with probability p, in increasing order.
void bernoulli_row(Rng& rng, int64_t count, double p, std::vector<int32_t>* out) {
  const uint64_t threshold = static_cast<uint64_t>(p * 18446744073709551615.0);
  for (int64_t c = 0; c < count; ++c)
    if (rng.next() <= threshold) out->push_back(static_cast<int32_t>(c));
}

/// Exactly `keep` of `count` positions, in increasing order (Knuth's selection sampling).
void choose_row(Rng& rng, int64_t count, int64_t keep, std::vector<int32_t>* out) {
  for (int64_t c = 0; c < count && keep > 0; ++c)
    if (rng.uniform() * static_cast<double>(count - c) < static_cast<double>(keep)) {
      out->push_back(static_cast<int32_t>(c));
      --keep;
    }
}

/// CSR (V = 1) or BCRS(V): Bernoulli vectors per vector row.
void fill_bcrs(Structure& s, Rng& rng, double density) {
  const int64_t vrows = s.rows / s.vec_len;
  s.ptr.assign(1, 0);
  s.ptr.reserve(static_cast<size_t>(vrows) + 1);
  s.idx.reserve(static_cast<size_t>(density * static_cast<double>(vrows * s.cols) * 1.01) + 16);
  for (int64_t r = 0; r < vrows; ++r) {
    bernoulli_row(rng, s.cols, density, &s.idx);
    s.ptr.push_back(static_cast<int32_t>(s.idx.size()));
  }
  s.entries = static_cast<int64_t>(s.idx.size());
}

}  // namespace

const char* input_name(Input in) {
  switch (in) {
    case Input::NmF32: return "nm_f32";
    case Input::EllF16: return "ell_f16";
    case Input::EllF32: return "ell_f32";
    case Input::SrbcrsBcrs: return "srbcrs_i8_bcrs8";
    case Input::SrbcrsCsr: return "srbcrs_i8_csr";
    case Input::SptcBcrs: return "sptc_f16_bcrs8";
    case Input::SptcCsr: return "sptc_f16_csr";
  }
  return "?";
}

int64_t Structure::value_slots() const {
  switch (input) {
    case Input::NmF32: return rows * (cols / m * n);
    case Input::EllF16:
    case Input::EllF32: return rows * ell_width;
    default: return entries * vec_len;
  }
}

Structure make_structure(Input input, int64_t rows, int64_t cols, double sparsity, uint64_t seed) {
  Structure s;
  s.input = input;
  s.rows = rows;
  s.cols = cols;
  Rng rng{seed * 0x2545F4914F6CDD1Dull + static_cast<uint64_t>(input)};
  const double density = 1.0 - sparsity;
  switch (input) {
    case Input::NmF32: {
      s.m = 32;
      s.l = 32;
      s.n = std::clamp<int64_t>(std::llround(density * static_cast<double>(s.m)), 1, s.m);
      const int64_t windows = cols / s.m;
      s.idx.reserve(static_cast<size_t>(rows / s.l * windows * s.n));
      std::vector<int32_t> pick;
      for (int64_t g = 0; g < rows / s.l; ++g)
        for (int64_t w = 0; w < windows; ++w) {
          pick.clear();
          choose_row(rng, s.m, s.n, &pick);
          s.idx.insert(s.idx.end(), pick.begin(), pick.end());
        }
      s.entries = static_cast<int64_t>(s.idx.size());
      s.sparsity = 1.0 - static_cast<double>(s.n) / static_cast<double>(s.m);
      return s;
    }
    case Input::EllF16:
    case Input::EllF32: {
      s.ell_width = std::max<int64_t>(1, std::llround(density * static_cast<double>(cols)));
      s.idx.assign(static_cast<size_t>(rows * s.ell_width), -1);
      std::vector<int32_t> pick;
      for (int64_t r = 0; r < rows; ++r) {
        pick.clear();
        choose_row(rng, cols, s.ell_width, &pick);
        for (size_t j = 0; j < pick.size(); ++j)
          s.idx[static_cast<size_t>(r + static_cast<int64_t>(j) * rows)] = pick[j];
      }
      s.entries = rows * s.ell_width;
      s.sparsity = 1.0 - static_cast<double>(s.ell_width) / static_cast<double>(cols);
      return s;
    }
    case Input::SrbcrsBcrs:
    case Input::SptcBcrs: s.vec_len = 8; break;
    default: s.vec_len = 1; break;
  }
  fill_bcrs(s, rng, density);
  s.sparsity = 1.0 - static_cast<double>(s.entries * s.vec_len) /
                         static_cast<double>(std::max<int64_t>(1, rows * cols));
  return s;
}

}  // namespace bench::analyze
