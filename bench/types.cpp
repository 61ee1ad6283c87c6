#include "types.hpp"

#include <cstdio>

namespace bench {

const char* family_name(Family f) {
  switch (f) {
    case Family::NM: return "nm";
    case Family::ELL: return "ell";
    case Family::SRBCRS: return "srbcrs";
    case Family::SPTC: return "sptc";
  }
  return "?";
}

const char* op_name(Op op) { return op == Op::SPMM ? "spmm" : "sddmm"; }

const char* value_type_name(ValueType t) {
  switch (t) {
    case ValueType::F32: return "f32";
    case ValueType::F16: return "f16";
    case ValueType::BF16: return "bf16";
    case ValueType::I4: return "i4";
    case ValueType::I8: return "i8";
    case ValueType::I16: return "i16";
    case ValueType::I32: return "i32";
  }
  return "?";
}

bool parse_value_type(const std::string& s, ValueType* t) {
  static const ValueType all[] = {ValueType::F32, ValueType::F16, ValueType::BF16, ValueType::I4,
                                  ValueType::I8,  ValueType::I16, ValueType::I32};
  for (ValueType v : all) {
    if (s == value_type_name(v)) {
      *t = v;
      return true;
    }
  }
  return false;
}

bool is_integer(ValueType t) {
  return t == ValueType::I4 || t == ValueType::I8 || t == ValueType::I16 || t == ValueType::I32;
}

spxDataType_t to_spx(ValueType t) {
  switch (t) {
    case ValueType::F32: return SPX_R_32F;
    case ValueType::F16: return SPX_R_16F;
    case ValueType::BF16: return SPX_R_16BF;
    case ValueType::I4: return SPX_R_4I;
    case ValueType::I8: return SPX_R_8I;
    case ValueType::I16: return SPX_R_16I;
    case ValueType::I32: return SPX_R_32I;
  }
  return SPX_R_32F;
}

size_t storage_bytes(ValueType t, int64_t count) {
  switch (t) {
    case ValueType::I4: return static_cast<size_t>((count + 1) / 2);
    case ValueType::I8: return static_cast<size_t>(count);
    case ValueType::F16:
    case ValueType::BF16:
    case ValueType::I16: return static_cast<size_t>(count) * 2;
    case ValueType::F32:
    case ValueType::I32: return static_cast<size_t>(count) * 4;
  }
  return 0;
}

ValueType int_container(int bits) {
  if (bits <= 4) return ValueType::I4;
  if (bits <= 8) return ValueType::I8;
  return ValueType::I16;
}

std::string Precision::name() const {
  char buf[32];
  std::snprintf(buf, sizeof buf, "l%dr%d", a_bits, b_bits);
  return buf;
}

bool parse_precision(const std::string& s, Precision* p) {
  int a = 0, b = 0;
  char tail = 0;
  if (std::sscanf(s.c_str(), "l%dr%d%c", &a, &b, &tail) != 2) return false;
  auto ok = [](int bits) { return bits == 4 || bits == 8 || bits == 12 || bits == 16; };
  if (!ok(a) || !ok(b)) return false;
  p->a_bits = a;
  p->b_bits = b;
  return true;
}

}  // namespace bench
