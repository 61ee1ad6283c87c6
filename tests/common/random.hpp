// Deterministic random data for the tests: every generator is seeded from a fixed number, so a
// failure reproduces bit for bit on the next run. Every value drawn is NON-ZERO, so no product
// can pass by accident because an operand (or the whole input) happens to be zero.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "spx/spx_types.h"

namespace spx::test {

/// A seeded 64-bit generator. Only raw mt19937_64 draws are used (the standard fixes them;
/// it does not fix std::*_distribution), so the data is the same with every standard library.
class Rng {
 public:
  explicit Rng(uint64_t seed) : engine_(seed * 0x9E3779B97F4A7C15ull + 0x2545F4914F6CDD1Dull) {}
  uint64_t next() { return engine_(); }
  /// Uniform integer in [lo, hi] (inclusive); lo <= hi.
  int64_t uniform_int(int64_t lo, int64_t hi);
  /// Uniform double in [0, 1).
  double uniform01();
  /// true with probability p.
  bool chance(double p) { return uniform01() < p; }

 private:
  std::mt19937_64 engine_;
};

/// How the elements of one operand are drawn.
struct ValueDist {
  spxDataType_t type = SPX_R_32F;
  /// Integer types: values in [-int_bound, int_bound] \ {0} (unsigned: [1, int_bound]),
  /// clamped to the type's range; 0 means the type's whole range. Ignored for float types,
  /// which draw |v| in [0.1, 1] with a random sign, rounded to the type.
  int64_t int_bound = 0;
  /// Integer types: draw only the extremes of the range (min, min + 1, -1, 1, max - 1, max;
  /// unsigned: 1, 2, max - 1, max), ignoring int_bound. Exercises sign and slice handling of
  /// emulated wide types; the caller keeps k small enough for int32 accumulation.
  bool extremes = false;
};

/// One random non-zero value, exactly representable in dist.type.
double random_value(Rng& rng, const ValueDist& dist);

/// `count` random non-zero elements of dist.type as raw bytes (4-bit types packed, low nibble
/// first; an unused high nibble of the last byte is 0).
std::vector<uint8_t> random_values(Rng& rng, const ValueDist& dist, int64_t count);

/// Largest |value| of an integer operand such that a sum of k products of two operands drawn
/// this way (times |alpha| <= 2, plus |beta * c|) cannot leave the output's range: k * b * b
/// <= 2^28 for 32I / 32F outputs, <= 2^13 for a 16F output (max 65504). Clamped to the type.
int64_t int_operand_bound(spxDataType_t type, int64_t k, spxDataType_t out_type);

/// A distribution for an operand of a product with reduction length k and output type out:
/// floats unchanged, integers bounded by int_operand_bound.
ValueDist operand_dist(spxDataType_t type, int64_t k, spxDataType_t out_type);

/// A distribution for the old values of an output (used when beta != 0): floats in
/// [0.1, 1], 32I in [-1000, 1000] \ {0}.
ValueDist output_dist(spxDataType_t out_type);

}  // namespace spx::test
