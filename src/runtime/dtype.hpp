// Element types on the host: sizes, names, and reading/writing one element of any spxDataType_t
// from a raw byte array (4-bit types packed two per byte, low nibble = lower index).
// Plain C++, no CUDA: used by host tools, planning, the CPU reference and tests.
#pragma once

#include <cstddef>
#include <cstdint>

#include "spx/spx_types.h"

namespace spx::dtype {

bool is_valid(spxDataType_t t);
bool is_float(spxDataType_t t);    ///< 32F, 16F, 16BF
bool is_integer(spxDataType_t t);  ///< 8I, 4I, 16I, 32I, 8U, 4U
bool is_unsigned(spxDataType_t t); ///< 8U, 4U
int bits(spxDataType_t t);         ///< 32, 16, 8 or 4
const char* name(spxDataType_t t); ///< "32F", "16F", ... ("?" if invalid)
/// Bytes that `count` elements occupy (4-bit types rounded up to whole bytes).
size_t storage_bytes(spxDataType_t t, int64_t count);
/// Smallest and largest representable integer of an integer type.
int64_t int_min(spxDataType_t t);
int64_t int_max(spxDataType_t t);

/// Bit-exact IEEE half / bfloat16 conversions (round to nearest even).
uint16_t float_to_half(float f);
float half_to_float(uint16_t h);
uint16_t float_to_bf16(float f);
float bf16_to_float(uint16_t b);

/// Element `index` of `data` as double (floats) or exact integer value (integers).
double load_double(const void* data, spxDataType_t t, int64_t index);
int64_t load_int(const void* data, spxDataType_t t, int64_t index);  ///< integer types only
/// Stores v into element `index`: floats rounded to nearest even, integers rounded to nearest and
/// saturated (32I wraps nothing: it saturates too).
void store_double(void* data, spxDataType_t t, int64_t index, double v);
/// Stores an integer with two's-complement wrap to the type's width (used for int32 outputs).
void store_int_wrap(void* data, spxDataType_t t, int64_t index, int64_t v);

}  // namespace spx::dtype
