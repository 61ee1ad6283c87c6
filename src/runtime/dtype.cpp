// Host element types: see dtype.hpp. The fp16/bf16 conversions work on the bit patterns so that
// they give the same answer as the device intrinsics (__float2half_rn, __float2bfloat16_rn) on
// every input, subnormals, infinities and NaNs included.
#include "runtime/dtype.hpp"

#include <cmath>
#include <cstring>

#include "runtime/error.hpp"

namespace spx::dtype {
namespace {

uint32_t float_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
}

float bits_float(uint32_t u) {
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
}

// Rounds `value` right-shifted by `shift` (1..31) to nearest, ties to even.
uint32_t shift_round_even(uint32_t value, int shift) {
  const uint32_t kept = value >> shift;
  const uint32_t rest = value & ((1u << shift) - 1u);
  const uint32_t half = 1u << (shift - 1);
  return kept + ((rest > half || (rest == half && (kept & 1u))) ? 1u : 0u);
}

// Round to nearest integer, ties to even, independent of the FPU rounding mode.
double round_half_even(double v) {
  const double lower = std::floor(v);
  const double diff = v - lower;
  if (diff > 0.5) return lower + 1.0;
  if (diff < 0.5) return lower;
  return std::fmod(lower, 2.0) == 0.0 ? lower : lower + 1.0;
}

// double -> float rounded to odd: truncate, and set the last bit when anything was dropped.
// Rounding that result to half or bf16 (>= 2 bits narrower) is then the correctly rounded
// double -> half/bf16, where a plain double -> float -> half could round twice.
float to_float_round_odd(double v) {
  float f = static_cast<float>(v);
  if (std::isnan(v) || std::isinf(f) || static_cast<double>(f) == v) return f;
  if (std::fabs(static_cast<double>(f)) > std::fabs(v)) f = std::nextafter(f, 0.0f);
  return bits_float(float_bits(f) | 1u);
}

// Byte offset and shift of a 4-bit element: two per byte, the lower index in the low nibble.
inline size_t nibble_byte(int64_t index) {
  return static_cast<size_t>(index >> 1);
}
inline int nibble_shift(int64_t index) {
  return (index & 1) ? 4 : 0;
}

// Writes the low `bits` bits of `raw` as element `index` (raw already masked to the width).
void store_raw(void* data, spxDataType_t t, int64_t index, uint64_t raw) {
  auto* bytes = static_cast<uint8_t*>(data);
  switch (bits(t)) {
    case 4: {
      uint8_t& b = bytes[nibble_byte(index)];
      const int s = nibble_shift(index);
      b = static_cast<uint8_t>((b & ~(0xF << s)) | ((raw & 0xF) << s));
      return;
    }
    case 8:
      bytes[index] = static_cast<uint8_t>(raw);
      return;
    case 16: {
      const uint16_t v = static_cast<uint16_t>(raw);
      std::memcpy(bytes + index * 2, &v, 2);
      return;
    }
    case 32: {
      const uint32_t v = static_cast<uint32_t>(raw);
      std::memcpy(bytes + index * 4, &v, 4);
      return;
    }
    default:
      fail(SPX_STATUS_INTERNAL_ERROR, strf("store to invalid data type %d", int(t)));
  }
}

[[noreturn]] void invalid_type(const char* what, spxDataType_t t) {
  fail(SPX_STATUS_INTERNAL_ERROR, strf("%s called with data type %s (%d)", what, name(t), int(t)));
}

}  // namespace

bool is_valid(spxDataType_t t) {
  switch (t) {
    case SPX_R_32F:
    case SPX_R_16F:
    case SPX_R_16BF:
    case SPX_R_8I:
    case SPX_R_4I:
    case SPX_R_16I:
    case SPX_R_32I:
    case SPX_R_8U:
    case SPX_R_4U:
      return true;
  }
  return false;
}

bool is_float(spxDataType_t t) {
  return t == SPX_R_32F || t == SPX_R_16F || t == SPX_R_16BF;
}

bool is_integer(spxDataType_t t) {
  return t == SPX_R_8I || t == SPX_R_4I || t == SPX_R_16I || t == SPX_R_32I || t == SPX_R_8U ||
         t == SPX_R_4U;
}

bool is_unsigned(spxDataType_t t) {
  return t == SPX_R_8U || t == SPX_R_4U;
}

int bits(spxDataType_t t) {
  switch (t) {
    case SPX_R_32F:
    case SPX_R_32I:
      return 32;
    case SPX_R_16F:
    case SPX_R_16BF:
    case SPX_R_16I:
      return 16;
    case SPX_R_8I:
    case SPX_R_8U:
      return 8;
    case SPX_R_4I:
    case SPX_R_4U:
      return 4;
  }
  return 0;
}

const char* name(spxDataType_t t) {
  switch (t) {
    case SPX_R_32F:
      return "32F";
    case SPX_R_16F:
      return "16F";
    case SPX_R_16BF:
      return "16BF";
    case SPX_R_8I:
      return "8I";
    case SPX_R_4I:
      return "4I";
    case SPX_R_16I:
      return "16I";
    case SPX_R_32I:
      return "32I";
    case SPX_R_8U:
      return "8U";
    case SPX_R_4U:
      return "4U";
  }
  return "?";
}

size_t storage_bytes(spxDataType_t t, int64_t count) {
  if (count <= 0 || !is_valid(t)) return 0;
  return static_cast<size_t>((count * bits(t) + 7) / 8);
}

int64_t int_min(spxDataType_t t) {
  switch (t) {
    case SPX_R_8I:
      return -128;
    case SPX_R_4I:
      return -8;
    case SPX_R_16I:
      return -32768;
    case SPX_R_32I:
      return INT32_MIN;
    default:
      return 0;  // unsigned and non-integer types
  }
}

int64_t int_max(spxDataType_t t) {
  switch (t) {
    case SPX_R_8I:
      return 127;
    case SPX_R_4I:
      return 7;
    case SPX_R_16I:
      return 32767;
    case SPX_R_32I:
      return INT32_MAX;
    case SPX_R_8U:
      return 255;
    case SPX_R_4U:
      return 15;
    default:
      return 0;
  }
}

uint16_t float_to_half(float f) {
  const uint32_t x = float_bits(f);
  const uint32_t sign = (x >> 16) & 0x8000u;
  const uint32_t mag = x & 0x7FFFFFFFu;
  if (mag > 0x7F800000u) {
    // NaN: keep the top payload bits and set the quiet bit, so the result stays a NaN.
    return static_cast<uint16_t>(sign | 0x7E00u | ((mag >> 13) & 0x3FFu));
  }
  // 65520 is halfway between the largest half (65504, odd mantissa) and 2^16: it and everything
  // above round to infinity.
  if (mag >= 0x477FF000u) return static_cast<uint16_t>(sign | 0x7C00u);
  if (mag < 0x38800000u) {
    // Below 2^-14: the result is a half subnormal k * 2^-24 (or 0, or the smallest normal when
    // rounding carries). Values below 2^-25 and 2^-25 itself (a tie with even 0) give 0.
    const int exponent = static_cast<int>(mag >> 23);
    if (exponent < 102) return static_cast<uint16_t>(sign);
    const uint32_t mantissa = (mag & 0x7FFFFFu) | 0x800000u;  // value = mantissa * 2^(e-150)
    return static_cast<uint16_t>(sign | shift_round_even(mantissa, 126 - exponent));
  }
  // Normal: rebias the exponent (127 -> 15) and drop 13 mantissa bits; a carry out of the
  // mantissa correctly increments the exponent.
  return static_cast<uint16_t>(sign | shift_round_even(mag - 0x38000000u, 13));
}

float half_to_float(uint16_t h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  const uint32_t exponent = (h >> 10) & 0x1Fu;
  uint32_t mantissa = h & 0x3FFu;
  if (exponent == 0x1F) return bits_float(sign | 0x7F800000u | (mantissa << 13));
  if (exponent != 0) return bits_float(sign | ((exponent + 112u) << 23) | (mantissa << 13));
  if (mantissa == 0) return bits_float(sign);
  // Subnormal: normalize so the leading one becomes the implicit bit.
  int e = 113;  // exponent of 2^-14 in float bias, before normalization
  while ((mantissa & 0x400u) == 0) {
    mantissa <<= 1;
    --e;
  }
  return bits_float(sign | (static_cast<uint32_t>(e) << 23) | ((mantissa & 0x3FFu) << 13));
}

uint16_t float_to_bf16(float f) {
  const uint32_t x = float_bits(f);
  if ((x & 0x7FFFFFFFu) > 0x7F800000u) {
    return static_cast<uint16_t>((x >> 16) | 0x0040u);  // NaN stays NaN (quiet bit set)
  }
  // bf16 has float's exponent range, so rounding the top 16 bits covers subnormals and
  // overflow to infinity alike.
  return static_cast<uint16_t>(shift_round_even(x, 16));
}

float bf16_to_float(uint16_t b) {
  return bits_float(static_cast<uint32_t>(b) << 16);
}

double load_double(const void* data, spxDataType_t t, int64_t index) {
  const auto* bytes = static_cast<const uint8_t*>(data);
  switch (t) {
    case SPX_R_32F: {
      float v;
      std::memcpy(&v, bytes + index * 4, 4);
      return v;
    }
    case SPX_R_16F: {
      uint16_t v;
      std::memcpy(&v, bytes + index * 2, 2);
      return half_to_float(v);
    }
    case SPX_R_16BF: {
      uint16_t v;
      std::memcpy(&v, bytes + index * 2, 2);
      return bf16_to_float(v);
    }
    default:
      if (is_integer(t)) return static_cast<double>(load_int(data, t, index));
      invalid_type("load_double", t);
  }
}

int64_t load_int(const void* data, spxDataType_t t, int64_t index) {
  const auto* bytes = static_cast<const uint8_t*>(data);
  switch (t) {
    case SPX_R_8I:
      return static_cast<int8_t>(bytes[index]);
    case SPX_R_8U:
      return bytes[index];
    case SPX_R_4I:
    case SPX_R_4U: {
      const int nibble = (bytes[nibble_byte(index)] >> nibble_shift(index)) & 0xF;
      return (t == SPX_R_4I && nibble >= 8) ? nibble - 16 : nibble;
    }
    case SPX_R_16I: {
      int16_t v;
      std::memcpy(&v, bytes + index * 2, 2);
      return v;
    }
    case SPX_R_32I: {
      int32_t v;
      std::memcpy(&v, bytes + index * 4, 4);
      return v;
    }
    default:
      invalid_type("load_int", t);
  }
}

void store_double(void* data, spxDataType_t t, int64_t index, double v) {
  switch (t) {
    case SPX_R_32F: {
      const float f = static_cast<float>(v);  // round to nearest even (default FP environment)
      std::memcpy(static_cast<uint8_t*>(data) + index * 4, &f, 4);
      return;
    }
    case SPX_R_16F:
      store_raw(data, t, index, float_to_half(to_float_round_odd(v)));
      return;
    case SPX_R_16BF:
      store_raw(data, t, index, float_to_bf16(to_float_round_odd(v)));
      return;
    default:
      break;
  }
  if (!is_integer(t)) invalid_type("store_double", t);
  // Integers: NaN stores 0; everything else rounds to nearest (ties to even, like the
  // device's cvt.rni) and saturates to the type's range (infinities included).
  int64_t q = 0;
  if (!std::isnan(v)) {
    const double lo = static_cast<double>(int_min(t)), hi = static_cast<double>(int_max(t));
    const double r = round_half_even(v);
    q = r <= lo ? int_min(t) : r >= hi ? int_max(t) : static_cast<int64_t>(r);
  }
  store_raw(data, t, index, static_cast<uint64_t>(q));
}

void store_int_wrap(void* data, spxDataType_t t, int64_t index, int64_t v) {
  if (!is_integer(t)) {
    store_double(data, t, index, static_cast<double>(v));
    return;
  }
  // store_raw keeps the low bits(t) bits: exactly two's-complement wrap to the type's width.
  store_raw(data, t, index, static_cast<uint64_t>(v));
}

}  // namespace spx::dtype
