// Element types: properties, bit-exact fp16/bf16 rounding, 4-bit packing, integer rounding,
// saturation and wrap-around.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "runtime/dtype.hpp"

namespace dt = spx::dtype;

namespace {

float from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

uint32_t to_bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}

bool half_is_nan(uint16_t h) {
  return (h & 0x7C00) == 0x7C00 && (h & 0x03FF) != 0;
}
bool bf16_is_nan(uint16_t b) {
  return (b & 0x7F80) == 0x7F80 && (b & 0x007F) != 0;
}

// Checks that `code` is the correctly rounded (nearest, ties to even) encoding of finite f in a
// 16-bit format, by comparing with its two neighbours of the same sign.
template <class ToFloat>
void check_nearest_even(float f, uint16_t code, ToFloat to_float, uint16_t inf_code) {
  const double x = f;
  const uint16_t mag = code & 0x7FFF;
  if (mag == inf_code) {
    // Overflow is right only if the largest finite value is not nearer than the next step.
    const double largest = std::fabs(to_float(static_cast<uint16_t>(inf_code - 1)));
    const double step = largest - std::fabs(to_float(static_cast<uint16_t>(inf_code - 2)));
    REQUIRE(std::fabs(x) >= largest + step / 2);
    return;
  }
  const double got = to_float(code);
  const double err = std::fabs(got - x);
  const uint16_t sign = code & 0x8000;
  if (mag + 1 <= inf_code) {
    const double up = mag + 1 == inf_code
                          ? std::fabs(got) + (std::fabs(got) - std::fabs(to_float(mag - 1)))
                          : std::fabs(to_float(static_cast<uint16_t>(mag + 1)));
    const double err_up = std::fabs(up - std::fabs(x));
    REQUIRE(err <= err_up);
    if (err == err_up) REQUIRE((mag & 1) == 0);
  }
  if (mag > 0) {
    const double down = std::fabs(to_float(static_cast<uint16_t>(sign | (mag - 1))));
    const double err_down = std::fabs(down - std::fabs(x));
    REQUIRE(err <= err_down);
    if (err == err_down) REQUIRE((mag & 1) == 0);
  }
}

}  // namespace

TEST_CASE("dtype properties", "[dtype]") {
  CHECK(dt::is_valid(SPX_R_4U));
  CHECK_FALSE(dt::is_valid(static_cast<spxDataType_t>(9)));
  CHECK_FALSE(dt::is_valid(static_cast<spxDataType_t>(-1)));
  CHECK(dt::is_float(SPX_R_16BF));
  CHECK_FALSE(dt::is_float(SPX_R_32I));
  CHECK(dt::is_integer(SPX_R_32I));
  CHECK(dt::is_integer(SPX_R_4U));
  CHECK_FALSE(dt::is_integer(SPX_R_16F));
  CHECK(dt::is_unsigned(SPX_R_8U));
  CHECK_FALSE(dt::is_unsigned(SPX_R_8I));
  CHECK(dt::bits(SPX_R_32F) == 32);
  CHECK(dt::bits(SPX_R_16BF) == 16);
  CHECK(dt::bits(SPX_R_16I) == 16);
  CHECK(dt::bits(SPX_R_8U) == 8);
  CHECK(dt::bits(SPX_R_4I) == 4);
  CHECK(std::string(dt::name(SPX_R_16BF)) == "16BF");
  CHECK(std::string(dt::name(SPX_R_4U)) == "4U");
  CHECK(std::string(dt::name(static_cast<spxDataType_t>(42))) == "?");
  CHECK(dt::storage_bytes(SPX_R_32F, 3) == 12);
  CHECK(dt::storage_bytes(SPX_R_16F, 3) == 6);
  CHECK(dt::storage_bytes(SPX_R_4I, 3) == 2);
  CHECK(dt::storage_bytes(SPX_R_4U, 4) == 2);
  CHECK(dt::storage_bytes(SPX_R_8I, 0) == 0);
  CHECK(dt::storage_bytes(static_cast<spxDataType_t>(42), 8) == 0);
  CHECK(dt::int_min(SPX_R_4I) == -8);
  CHECK(dt::int_max(SPX_R_4I) == 7);
  CHECK(dt::int_min(SPX_R_4U) == 0);
  CHECK(dt::int_max(SPX_R_4U) == 15);
  CHECK(dt::int_min(SPX_R_8I) == -128);
  CHECK(dt::int_max(SPX_R_8U) == 255);
  CHECK(dt::int_min(SPX_R_16I) == -32768);
  CHECK(dt::int_max(SPX_R_16I) == 32767);
  CHECK(dt::int_min(SPX_R_32I) == INT32_MIN);
  CHECK(dt::int_max(SPX_R_32I) == INT32_MAX);
}

TEST_CASE("float_to_half on hand-picked values", "[dtype][half]") {
  CHECK(dt::float_to_half(0.0f) == 0x0000);
  CHECK(dt::float_to_half(-0.0f) == 0x8000);
  CHECK(dt::float_to_half(1.0f) == 0x3C00);
  CHECK(dt::float_to_half(-2.0f) == 0xC000);
  CHECK(dt::float_to_half(0.1f) == 0x2E66);
  CHECK(dt::float_to_half(65504.0f) == 0x7BFF);  // largest half
  CHECK(dt::float_to_half(65519.0f) == 0x7BFF);  // just below the tie
  CHECK(dt::float_to_half(65520.0f) == 0x7C00);  // tie with odd 65504 -> infinity
  CHECK(dt::float_to_half(1e10f) == 0x7C00);
  CHECK(dt::float_to_half(-1e10f) == 0xFC00);
  CHECK(dt::float_to_half(std::numeric_limits<float>::infinity()) == 0x7C00);
  CHECK(dt::float_to_half(-std::numeric_limits<float>::infinity()) == 0xFC00);
  CHECK(half_is_nan(dt::float_to_half(std::numeric_limits<float>::quiet_NaN())));
  CHECK(half_is_nan(dt::float_to_half(from_bits(0x7F800001u))));  // signalling, low payload
  CHECK(dt::float_to_half(std::ldexp(1.0f, -14)) == 0x0400);      // smallest normal
  CHECK(dt::float_to_half(std::ldexp(1.0f, -24)) == 0x0001);      // smallest subnormal
  CHECK(dt::float_to_half(std::ldexp(1023.0f, -24)) == 0x03FF);   // largest subnormal
  CHECK(dt::float_to_half(std::ldexp(1.0f, -25)) == 0x0000);      // tie with even 0
  CHECK(dt::float_to_half(-std::ldexp(1.0f, -25)) == 0x8000);
  CHECK(dt::float_to_half(std::ldexp(1.5f, -25)) == 0x0001);
  CHECK(dt::float_to_half(std::ldexp(3.0f, -25)) == 0x0002);     // tie 1|2 -> even 2
  CHECK(dt::float_to_half(std::ldexp(5.0f, -25)) == 0x0002);     // tie 2|3 -> even 2
  CHECK(dt::float_to_half(std::ldexp(2047.0f, -25)) == 0x0400);  // rounds up into the normals
  CHECK(dt::float_to_half(std::ldexp(1.0f, -30)) == 0x0000);
  CHECK(dt::float_to_half(1.0f + std::ldexp(1.0f, -11)) == 0x3C00);  // tie -> even
  CHECK(dt::float_to_half(1.0f + std::ldexp(3.0f, -11)) == 0x3C02);  // tie -> even
  CHECK(dt::float_to_half(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20)) == 0x3C01);
  CHECK(dt::float_to_half(2047.5f) == 0x6800);  // tie 2047|2048 -> even 2048
}

TEST_CASE("half_to_float on hand-picked values", "[dtype][half]") {
  CHECK(dt::half_to_float(0x3C00) == 1.0f);
  CHECK(dt::half_to_float(0xC000) == -2.0f);
  CHECK(dt::half_to_float(0x7BFF) == 65504.0f);
  CHECK(dt::half_to_float(0x0001) == std::ldexp(1.0f, -24));
  CHECK(dt::half_to_float(0x03FF) == std::ldexp(1023.0f, -24));
  CHECK(dt::half_to_float(0x0400) == std::ldexp(1.0f, -14));
  CHECK(to_bits(dt::half_to_float(0x8000)) == 0x80000000u);
  CHECK(dt::half_to_float(0x7C00) == std::numeric_limits<float>::infinity());
  CHECK(dt::half_to_float(0xFC00) == -std::numeric_limits<float>::infinity());
  CHECK(std::isnan(dt::half_to_float(0x7E00)));
  CHECK(std::isnan(dt::half_to_float(0xFC01)));
}

TEST_CASE("every half round-trips through float", "[dtype][half]") {
  for (uint32_t h = 0; h <= 0xFFFF; ++h) {
    const float f = dt::half_to_float(static_cast<uint16_t>(h));
    if (half_is_nan(static_cast<uint16_t>(h))) {
      REQUIRE(std::isnan(f));
      REQUIRE(half_is_nan(dt::float_to_half(f)));
    } else {
      REQUIRE(dt::float_to_half(f) == h);
    }
  }
}

TEST_CASE("float_to_half rounds to nearest even on random floats", "[dtype][half]") {
  std::mt19937 rng(1234);
  // Exponents around the half range (subnormals to overflow) and anything at all.
  std::uniform_int_distribution<uint32_t> any;
  std::uniform_int_distribution<uint32_t> exponent(100, 145);
  for (int i = 0; i < 200000; ++i) {
    const uint32_t bits =
        (i % 4 == 0) ? any(rng) : ((any(rng) & 0x807FFFFFu) | (exponent(rng) << 23));
    const float f = from_bits(bits);
    const uint16_t h = dt::float_to_half(f);
    if (std::isnan(f)) {
      REQUIRE(half_is_nan(h));
      continue;
    }
    if (std::isinf(f)) {
      REQUIRE((h & 0x7FFF) == 0x7C00);
      continue;
    }
    check_nearest_even(f, h, dt::half_to_float, 0x7C00);
#if defined(__FLT16_MAX__)
    // The compiler's own conversion (libgcc, correctly rounded) as an independent oracle.
    const _Float16 oracle = static_cast<_Float16>(f);
    uint16_t oracle_bits;
    std::memcpy(&oracle_bits, &oracle, 2);
    REQUIRE(h == oracle_bits);
#endif
  }
}

TEST_CASE("bfloat16 conversions", "[dtype][bf16]") {
  CHECK(dt::float_to_bf16(1.0f) == 0x3F80);
  CHECK(dt::float_to_bf16(-2.0f) == 0xC000);
  CHECK(dt::float_to_bf16(0.1f) == 0x3DCD);
  CHECK(dt::float_to_bf16(-0.0f) == 0x8000);
  CHECK(dt::float_to_bf16(1.0f + std::ldexp(1.0f, -8)) == 0x3F80);  // tie -> even
  CHECK(dt::float_to_bf16(1.0f + std::ldexp(3.0f, -8)) == 0x3F82);  // tie -> even
  CHECK(dt::float_to_bf16(1.0f + std::ldexp(1.0f, -8) + std::ldexp(1.0f, -20)) == 0x3F81);
  CHECK(dt::float_to_bf16(std::numeric_limits<float>::max()) == 0x7F80);  // rounds to inf
  CHECK(dt::float_to_bf16(from_bits(0x7F7F7FFFu)) == 0x7F7F);
  CHECK(dt::float_to_bf16(from_bits(0x00008000u)) == 0x0000);  // subnormal tie -> even 0
  CHECK(dt::float_to_bf16(from_bits(0x00018000u)) == 0x0002);  // subnormal tie -> even 2
  CHECK(dt::float_to_bf16(from_bits(0x00018001u)) == 0x0002);
  CHECK(dt::float_to_bf16(from_bits(0x00010001u)) == 0x0001);
  CHECK(dt::float_to_bf16(std::numeric_limits<float>::infinity()) == 0x7F80);
  CHECK(dt::float_to_bf16(-std::numeric_limits<float>::infinity()) == 0xFF80);
  CHECK(bf16_is_nan(dt::float_to_bf16(std::numeric_limits<float>::quiet_NaN())));
  CHECK(bf16_is_nan(dt::float_to_bf16(from_bits(0x7F800001u))));  // payload only in low bits
  CHECK(dt::bf16_to_float(0x3F80) == 1.0f);
  CHECK(dt::bf16_to_float(0x0001) == from_bits(0x00010000u));
  for (uint32_t b = 0; b <= 0xFFFF; ++b) {
    const float f = dt::bf16_to_float(static_cast<uint16_t>(b));
    if (bf16_is_nan(static_cast<uint16_t>(b))) {
      REQUIRE(bf16_is_nan(dt::float_to_bf16(f)));
    } else {
      REQUIRE(dt::float_to_bf16(f) == b);
    }
  }
  std::mt19937 rng(99);
  std::uniform_int_distribution<uint32_t> any;
  for (int i = 0; i < 100000; ++i) {
    const float f = from_bits(any(rng));
    if (std::isnan(f) || std::isinf(f)) continue;
    check_nearest_even(f, dt::float_to_bf16(f), dt::bf16_to_float, 0x7F80);
  }
}

TEST_CASE("4-bit values pack two per byte, low nibble first", "[dtype][int4]") {
  uint8_t bytes[2] = {0xAA, 0xAA};
  dt::store_int_wrap(bytes, SPX_R_4I, 0, -8);
  dt::store_int_wrap(bytes, SPX_R_4I, 1, 7);
  dt::store_int_wrap(bytes, SPX_R_4I, 2, -1);
  dt::store_int_wrap(bytes, SPX_R_4I, 3, 3);
  CHECK(bytes[0] == 0x78);
  CHECK(bytes[1] == 0x3F);
  CHECK(dt::load_int(bytes, SPX_R_4I, 0) == -8);
  CHECK(dt::load_int(bytes, SPX_R_4I, 1) == 7);
  CHECK(dt::load_int(bytes, SPX_R_4I, 2) == -1);
  CHECK(dt::load_int(bytes, SPX_R_4I, 3) == 3);
  CHECK(dt::load_int(bytes, SPX_R_4U, 0) == 8);
  CHECK(dt::load_int(bytes, SPX_R_4U, 2) == 15);
  CHECK(dt::load_double(bytes, SPX_R_4I, 2) == -1.0);
  // Writing one nibble leaves its neighbour alone.
  uint8_t one = 0x5C;
  dt::store_double(&one, SPX_R_4U, 1, 9.0);
  CHECK(one == 0x9C);
  dt::store_double(&one, SPX_R_4U, 0, 1.0);
  CHECK(one == 0x91);
}

TEST_CASE("integer stores round to nearest even and saturate", "[dtype][int]") {
  struct Case {
    spxDataType_t type;
    double in;
    int64_t out;
  };
  const double inf = std::numeric_limits<double>::infinity();
  const Case cases[] = {
      {SPX_R_8I, 200.0, 127},
      {SPX_R_8I, -200.0, -128},
      {SPX_R_8I, 2.5, 2},
      {SPX_R_8I, 3.5, 4},
      {SPX_R_8I, -2.5, -2},
      {SPX_R_8I, -2.6, -3},
      {SPX_R_8I, 0.49, 0},
      {SPX_R_8I, inf, 127},
      {SPX_R_8I, -inf, -128},
      {SPX_R_8I, 127.4, 127},
      {SPX_R_8I, 127.5, 127},
      {SPX_R_8U, -3.0, 0},
      {SPX_R_8U, 255.4, 255},
      {SPX_R_8U, 300.0, 255},
      {SPX_R_8U, 0.5, 0},
      {SPX_R_8U, 1.5, 2},
      {SPX_R_4I, 7.6, 7},
      {SPX_R_4I, -8.5, -8},
      {SPX_R_4I, -9.0, -8},
      {SPX_R_4I, 5.5, 6},
      {SPX_R_4U, 15.2, 15},
      {SPX_R_4U, -1.0, 0},
      {SPX_R_4U, 20.0, 15},
      {SPX_R_16I, 40000.0, 32767},
      {SPX_R_16I, -40000.0, -32768},
      {SPX_R_16I, 1234.5, 1234},
      {SPX_R_32I, 3e9, INT32_MAX},
      {SPX_R_32I, -3e9, INT32_MIN},
      {SPX_R_32I, 2147483646.5, 2147483646},
      {SPX_R_32I, -7.5, -8},
  };
  for (const Case& c : cases) {
    INFO("type " << dt::name(c.type) << " in " << c.in);
    uint8_t buffer[8] = {};
    dt::store_double(buffer, c.type, 1, c.in);
    CHECK(dt::load_int(buffer, c.type, 1) == c.out);
    CHECK(dt::load_double(buffer, c.type, 1) == static_cast<double>(c.out));
  }
  uint8_t buffer[4] = {0xFF, 0xFF, 0xFF, 0xFF};
  dt::store_double(buffer, SPX_R_8I, 0, std::numeric_limits<double>::quiet_NaN());
  CHECK(dt::load_int(buffer, SPX_R_8I, 0) == 0);
}

TEST_CASE("store_int_wrap wraps two's complement to the type width", "[dtype][int]") {
  struct Case {
    spxDataType_t type;
    int64_t in, out;
  };
  const Case cases[] = {
      {SPX_R_8I, 130, -126},
      {SPX_R_8I, -129, 127},
      {SPX_R_8U, 256 + 7, 7},
      {SPX_R_8U, -1, 255},
      {SPX_R_4I, 9, -7},
      {SPX_R_4I, -9, 7},
      {SPX_R_4U, 17, 1},
      {SPX_R_16I, -32769, 32767},
      {SPX_R_16I, 65536 + 5, 5},
      {SPX_R_32I, 2147483648LL, INT32_MIN},
      {SPX_R_32I, -2147483649LL, INT32_MAX},
      {SPX_R_32I, 3LL * 30000 * 30000, -1594967296},
  };
  for (const Case& c : cases) {
    INFO("type " << dt::name(c.type) << " in " << c.in);
    uint8_t buffer[8] = {};
    dt::store_int_wrap(buffer, c.type, 1, c.in);
    CHECK(dt::load_int(buffer, c.type, 1) == c.out);
  }
}

TEST_CASE("float stores and loads of every float type", "[dtype][float]") {
  uint8_t buffer[16] = {};
  dt::store_double(buffer, SPX_R_32F, 2, 0.1);
  CHECK(dt::load_double(buffer, SPX_R_32F, 2) == static_cast<double>(0.1f));
  dt::store_double(buffer, SPX_R_16F, 1, 0.1);
  CHECK(dt::load_double(buffer, SPX_R_16F, 1) == 0.0999755859375);
  dt::store_double(buffer, SPX_R_16BF, 3, 0.1);
  CHECK(dt::load_double(buffer, SPX_R_16BF, 3) == 0.10009765625);
  // Double rounding trap: just above a half tie, but exactly a tie once rounded to float.
  const double above_tie = 1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40);
  dt::store_double(buffer, SPX_R_16F, 0, above_tie);
  CHECK(dt::load_double(buffer, SPX_R_16F, 0) == 1.0 + std::ldexp(1.0, -10));
  const double below_tie = 1.0 + std::ldexp(1.0, -11) - std::ldexp(1.0, -40);
  dt::store_double(buffer, SPX_R_16F, 0, below_tie);
  CHECK(dt::load_double(buffer, SPX_R_16F, 0) == 1.0);
  const double bf_above = 1.0 + std::ldexp(1.0, -8) + std::ldexp(1.0, -45);
  dt::store_double(buffer, SPX_R_16BF, 0, bf_above);
  CHECK(dt::load_double(buffer, SPX_R_16BF, 0) == 1.0 + std::ldexp(1.0, -7));
  // Tiny doubles keep their sign and round like the value they are.
  dt::store_double(buffer, SPX_R_16F, 0, -1e-300);
  uint16_t h;
  std::memcpy(&h, buffer, 2);
  CHECK(h == 0x8000);
  dt::store_double(buffer, SPX_R_16F, 0, 65519.999);
  std::memcpy(&h, buffer, 2);
  CHECK(h == 0x7BFF);
  dt::store_double(buffer, SPX_R_16F, 0, 1e300);
  std::memcpy(&h, buffer, 2);
  CHECK(h == 0x7C00);
}
