// Values on the host: random non-zero inputs that are exact in their element type (so every
// library, and the FP64 reference, multiplies the very same numbers), conversion to device
// element types, dense layouts, and decoding of device outputs back to double.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "spx/spx.h"
#include "types.hpp"

namespace bench {

/// Draws random non-zero values exactly representable in one element type:
/// f32: uniform in [-1, -1/64] U [1/64, 1]; f16/bf16: j/64 for j in [-64, 64] \ {0} (exact in
/// both); integers: uniform in [-max_abs, max_abs] \ {0}.
struct ValueGen {
  bool integer = false;
  bool grid64 = false;
  int64_t max_abs = 1;
  float draw(std::mt19937_64& rng) const;
};

ValueGen float_gen(ValueType t);
ValueGen int_gen(int64_t max_abs);

/// Largest magnitudes for signed a_bits x b_bits integer operands such that no dot product of
/// length k can overflow int32 (wider operands are narrowed until |sum| < 2^31).
void int_ranges(int a_bits, int b_bits, int64_t k, int64_t* a_max, int64_t* b_max);

/// Bytes of `count` values in type t, converted here (libspx is not involved: baselines and the
/// reference must not depend on the library under test). I4: two per byte, low nibble first.
/// Integers are rounded and saturated to the type.
std::vector<uint8_t> encode(const float* src, int64_t count, ValueType t);

/// The same conversion done by libspx's own spxHostConvertValues, for libspx's inputs.
std::vector<uint8_t> spx_encode(const float* src, int64_t count, ValueType t);

/// Device output bytes of type t (F32, F16, BF16, I32) as doubles.
std::vector<double> decode(const void* bytes, int64_t count, ValueType t);

/// A dense rows x cols matrix given column-major (ld = rows) rewritten in `order` with leading
/// dimension ld (>= the inner size); padding elements are 0.
std::vector<float> arrange(const std::vector<float>& colmajor, int64_t rows, int64_t cols,
                           spxOrder_t order, int64_t ld);

/// Number of elements a rows x cols matrix with leading dimension ld occupies in `order`.
int64_t dense_elements(int64_t rows, int64_t cols, spxOrder_t order, int64_t ld);

/// Smallest leading dimension libspx accepts for this type and order (4-bit: even).
int64_t natural_ld(int64_t rows, int64_t cols, spxOrder_t order, ValueType t);

}  // namespace bench
