#include "values.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "check.hpp"
#include "parallel.hpp"

namespace bench {

float ValueGen::draw(std::mt19937_64& rng) const {
  if (integer || grid64) {
    int64_t span = integer ? max_abs : 64;
    std::uniform_int_distribution<int64_t> dist(1, span);
    int64_t mag = dist(rng);
    float v = static_cast<float>((rng() & 1) ? mag : -mag);
    return integer ? v : v / 64.0f;
  }
  std::uniform_real_distribution<float> dist(1.0f / 64.0f, 1.0f);
  float v = dist(rng);
  return (rng() & 1) ? v : -v;
}

ValueGen float_gen(ValueType t) {
  ValueGen g;
  g.grid64 = (t == ValueType::F16 || t == ValueType::BF16);
  return g;
}

ValueGen int_gen(int64_t max_abs) {
  ValueGen g;
  g.integer = true;
  g.max_abs = std::max<int64_t>(1, max_abs);
  return g;
}

void int_ranges(int a_bits, int b_bits, int64_t k, int64_t* a_max, int64_t* b_max) {
  // A 12-bit operand keeps its full signed range, like the others: 2^(bits-1) - 1.
  int64_t a = (int64_t{1} << (a_bits - 1)) - 1;
  int64_t b = (int64_t{1} << (b_bits - 1)) - 1;
  const int64_t limit = INT32_MAX / std::max<int64_t>(1, k);  // a * b <= limit keeps |sum| < 2^31
  if (a * b > limit) {
    int64_t root = static_cast<int64_t>(std::floor(std::sqrt(static_cast<double>(limit))));
    if (a <= root) b = std::max<int64_t>(1, limit / a);
    else if (b <= root) a = std::max<int64_t>(1, limit / b);
    else a = b = std::max<int64_t>(1, root);
  }
  *a_max = a;
  *b_max = b;
}

std::vector<uint8_t> encode(const float* src, int64_t count, ValueType t) {
  std::vector<uint8_t> out(storage_bytes(t, count), 0);
  if (t == ValueType::F32) {
    if (count > 0) std::memcpy(out.data(), src, static_cast<size_t>(count) * 4);
    return out;
  }
  auto sat = [](float v, int64_t lo, int64_t hi) {
    double r = std::nearbyint(static_cast<double>(v));
    return static_cast<int64_t>(std::min<double>(hi, std::max<double>(lo, r)));
  };
  for (int64_t i = 0; i < count; ++i) {
    float v = src[i];
    switch (t) {
      case ValueType::F32: std::memcpy(&out[i * 4], &v, 4); break;
      case ValueType::F16: {
        __half h = __float2half_rn(v);
        std::memcpy(&out[i * 2], &h, 2);
        break;
      }
      case ValueType::BF16: {
        __nv_bfloat16 h = __float2bfloat16_rn(v);
        std::memcpy(&out[i * 2], &h, 2);
        break;
      }
      case ValueType::I8: out[i] = static_cast<uint8_t>(static_cast<int8_t>(sat(v, -128, 127))); break;
      case ValueType::I16: {
        int16_t x = static_cast<int16_t>(sat(v, INT16_MIN, INT16_MAX));
        std::memcpy(&out[i * 2], &x, 2);
        break;
      }
      case ValueType::I32: {
        int32_t x = static_cast<int32_t>(sat(v, INT32_MIN, INT32_MAX));
        std::memcpy(&out[i * 4], &x, 4);
        break;
      }
      case ValueType::I4: {
        uint8_t nib = static_cast<uint8_t>(sat(v, -8, 7)) & 0xF;
        out[i / 2] |= (i % 2 == 0) ? nib : static_cast<uint8_t>(nib << 4);
        break;
      }
    }
  }
  return out;
}

std::vector<uint8_t> spx_encode(const float* src, int64_t count, ValueType t) {
  std::vector<uint8_t> out(std::max<size_t>(1, spxHostSizeOf(to_spx(t), count)), 0);
  SPX_CHECK(spxHostConvertValues(count, src, to_spx(t), out.data()));
  out.resize(spxHostSizeOf(to_spx(t), count));
  return out;
}

std::vector<double> decode(const void* bytes, int64_t count, ValueType t) {
  std::vector<double> out(static_cast<size_t>(count));
  const uint8_t* p = static_cast<const uint8_t*>(bytes);
  parallel_for(count, 1 << 20, [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) {
      switch (t) {
        case ValueType::F32: {
          float v;
          std::memcpy(&v, p + i * 4, 4);
          out[i] = v;
          break;
        }
        case ValueType::F16: {
          __half h;
          std::memcpy(&h, p + i * 2, 2);
          out[i] = __half2float(h);
          break;
        }
        case ValueType::BF16: {
          __nv_bfloat16 h;
          std::memcpy(&h, p + i * 2, 2);
          out[i] = __bfloat162float(h);
          break;
        }
        case ValueType::I32: {
          int32_t v;
          std::memcpy(&v, p + i * 4, 4);
          out[i] = v;
          break;
        }
        case ValueType::I8:
          out[i] = static_cast<int8_t>(p[i]);
          break;
        case ValueType::I16: {
          int16_t v;
          std::memcpy(&v, p + i * 2, 2);
          out[i] = v;
          break;
        }
        case ValueType::I4: {
          uint8_t nib = (i % 2 == 0) ? (p[i / 2] & 0xF) : (p[i / 2] >> 4);
          out[i] = (nib & 0x8) ? static_cast<int>(nib) - 16 : static_cast<int>(nib);
          break;
        }
      }
    }
  });
  return out;
}

int64_t dense_elements(int64_t rows, int64_t cols, spxOrder_t order, int64_t ld) {
  return ld * (order == SPX_ORDER_ROW ? rows : cols);
}

std::vector<float> arrange(const std::vector<float>& colmajor, int64_t rows, int64_t cols,
                           spxOrder_t order, int64_t ld) {
  std::vector<float> out(static_cast<size_t>(dense_elements(rows, cols, order, ld)), 0.0f);
  if (order == SPX_ORDER_COL) {
    parallel_for(cols, 1 + (1 << 16) / std::max<int64_t>(1, rows), [&](int64_t c0, int64_t c1) {
      for (int64_t c = c0; c < c1; ++c)
        std::copy(colmajor.begin() + c * rows, colmajor.begin() + (c + 1) * rows,
                  out.begin() + c * ld);
    });
    return out;
  }
  // Row-major: 64-row strips (threads own disjoint rows), columns walked inside a strip.
  parallel_for((rows + 63) / 64, 4, [&](int64_t s0, int64_t s1) {
    for (int64_t c = 0; c < cols; ++c)
      for (int64_t r = s0 * 64; r < std::min(rows, s1 * 64); ++r)
        out[r * ld + c] = colmajor[r + c * rows];
  });
  return out;
}

int64_t natural_ld(int64_t rows, int64_t cols, spxOrder_t order, ValueType t) {
  int64_t ld = (order == SPX_ORDER_ROW) ? cols : rows;
  if (t == ValueType::I4 && ld % 2 != 0) ++ld;  // every row/column must start on a byte
  return ld;
}

}  // namespace bench
