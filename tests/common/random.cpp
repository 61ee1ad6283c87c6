#include "random.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "runtime/dtype.hpp"

namespace spx::test {

int64_t Rng::uniform_int(int64_t lo, int64_t hi) {
  if (hi < lo) throw std::logic_error("Rng::uniform_int: empty range");
  const uint64_t span = static_cast<uint64_t>(hi - lo) + 1;
  if (span == 0) return static_cast<int64_t>(next());  // the whole 64-bit range
  // Rejection sampling: unbiased and still only raw draws.
  const uint64_t limit = UINT64_MAX - UINT64_MAX % span;
  uint64_t x;
  do {
    x = next();
  } while (x >= limit);
  return lo + static_cast<int64_t>(x % span);
}

double Rng::uniform01() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

namespace {

// Rounds v to what `type` can hold exactly (floats only).
double round_to_float_type(double v, spxDataType_t type) {
  switch (type) {
    case SPX_R_32F:
      return static_cast<double>(static_cast<float>(v));
    case SPX_R_16F:
      return dtype::half_to_float(dtype::float_to_half(static_cast<float>(v)));
    case SPX_R_16BF:
      return dtype::bf16_to_float(dtype::float_to_bf16(static_cast<float>(v)));
    default:
      throw std::logic_error("round_to_float_type: not a float type");
  }
}

}  // namespace

double random_value(Rng& rng, const ValueDist& dist) {
  if (dtype::is_float(dist.type)) {
    const double magnitude = 0.1 + 0.9 * rng.uniform01();
    const double v = rng.chance(0.5) ? -magnitude : magnitude;
    return round_to_float_type(v, dist.type);  // 0.1 stays far from 0 in every float type
  }
  if (!dtype::is_integer(dist.type)) throw std::logic_error("random_value: invalid type");
  int64_t hi = dtype::int_max(dist.type);
  int64_t lo = dtype::int_min(dist.type);
  if (dist.extremes) {
    const int64_t pick = rng.uniform_int(0, 5);
    if (dtype::is_unsigned(dist.type)) {
      const int64_t choices[6] = {1, 2, hi - 1, hi, hi, 1};
      return static_cast<double>(choices[pick]);
    }
    const int64_t choices[6] = {lo, lo + 1, -1, 1, hi - 1, hi};
    return static_cast<double>(choices[pick]);
  }
  if (dist.int_bound > 0) {
    hi = std::min(hi, dist.int_bound);
    lo = std::max(lo, -dist.int_bound);
  }
  if (dtype::is_unsigned(dist.type)) return static_cast<double>(rng.uniform_int(1, std::max<int64_t>(1, hi)));
  // Draw from [lo, hi - 1] and shift the non-negative half up by one: skips 0 uniformly.
  int64_t v = rng.uniform_int(lo, hi - 1);
  if (v >= 0) ++v;
  return static_cast<double>(v);
}

std::vector<uint8_t> random_values(Rng& rng, const ValueDist& dist, int64_t count) {
  std::vector<uint8_t> bytes(dtype::storage_bytes(dist.type, count), 0);
  for (int64_t i = 0; i < count; ++i) dtype::store_double(bytes.data(), dist.type, i, random_value(rng, dist));
  return bytes;
}

int64_t int_operand_bound(spxDataType_t type, int64_t k, spxDataType_t out_type) {
  const double budget = out_type == SPX_R_16F ? 8192.0 : 268435456.0;  // 2^13, 2^28
  const double per_operand = std::floor(std::sqrt(budget / static_cast<double>(std::max<int64_t>(k, 1))));
  const int64_t type_max = dtype::is_unsigned(type) ? dtype::int_max(type)
                                                    : std::min(dtype::int_max(type), -dtype::int_min(type));
  return std::max<int64_t>(1, std::min<int64_t>(type_max, static_cast<int64_t>(per_operand)));
}

ValueDist operand_dist(spxDataType_t type, int64_t k, spxDataType_t out_type) {
  ValueDist d;
  d.type = type;
  if (dtype::is_integer(type)) d.int_bound = int_operand_bound(type, k, out_type);
  return d;
}

ValueDist output_dist(spxDataType_t out_type) {
  ValueDist d;
  d.type = out_type;
  if (dtype::is_integer(out_type)) d.int_bound = 1000;
  return d;
}

}  // namespace spx::test
