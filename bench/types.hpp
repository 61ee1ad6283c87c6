// The vocabulary of spx-bench: kernel families, operations, value types, SR-BCRS precisions and
// the CaseSpec that names one benchmarked case (one CSV row per baseline).
#pragma once

#include <cstdint>
#include <string>

#include "spx/spx.h"

namespace bench {

enum class Family { NM, ELL, SRBCRS, SPTC };
enum class Op { SPMM, SDDMM };

/// Element types the bench generates. I4/I16 are containers: the values inside may use fewer
/// bits (an SR-BCRS "l12" operand lives in I16).
enum class ValueType { F32, F16, BF16, I4, I8, I16, I32 };

const char* family_name(Family f);  ///< "nm", "ell", "srbcrs", "sptc"
const char* op_name(Op op);         ///< "spmm", "sddmm"
const char* value_type_name(ValueType t);  ///< "f32", "f16", "bf16", "i4", "i8", "i16", "i32"
bool parse_value_type(const std::string& s, ValueType* t);
bool is_integer(ValueType t);
spxDataType_t to_spx(ValueType t);
/// Bytes of `count` elements (I4 packed two per byte, rounded up).
size_t storage_bytes(ValueType t, int64_t count);
/// The integer container for a value of `bits` signed bits (<=4 -> I4, <=8 -> I8, else I16).
ValueType int_container(int bits);

/// SR-BCRS precision "lArB": A (left, sparse) values of A bits, B (right, dense) of B bits.
struct Precision {
  int a_bits = 8;
  int b_bits = 8;
  std::string name() const;  ///< "l8r8"
  ValueType a_type() const { return int_container(a_bits); }
  ValueType b_type() const { return int_container(b_bits); }
};
/// Accepts l<A>r<B> with A, B in {4, 8, 12, 16}.
bool parse_precision(const std::string& s, Precision* p);

/// One benchmarked case. Synthetic cases have `matrix` = "MxKxN"; DLMC cases carry the file and
/// get m, k (SpMM) or m, n (SDDMM mask) from it when the problem is built.
struct CaseSpec {
  Family family = Family::NM;
  Op op = Op::SPMM;
  std::string matrix;     ///< CSV `matrix` column: "MxKxN" or the DLMC path relative to --dlmc
  std::string dlmc_file;  ///< path to open; empty for synthetic cases
  int64_t m = 0, k = 0, n = 0;
  double sparsity = 0.0;  ///< requested sparsity (synthetic) or the DLMC folder's level (-1: none)
  int64_t vec = 0;        ///< BCRS/dilation V; NM group rows L (0 = choose from m)
  ValueType dtype = ValueType::F32;  ///< element type of A and B (SR-BCRS: see precision)
  Precision precision;    ///< SR-BCRS only
  uint64_t seed = 0;      ///< fixed per case, so reruns build the same matrices
};

/// One point of `spx-bench dispatch`: A (m x k) handed to libspx in `format` with `dtype` values
/// (B the same type; C the same, i32 for i8), n dense columns.
struct DispatchSpec {
  spxFormat_t format = SPX_FORMAT_CSR;
  ValueType dtype = ValueType::F32;
  int64_t m = 0, k = 0, n = 0;
  double sparsity = 0.0;
  int64_t vec = 1;               ///< BCRS: V; NM: rows per group L; CSR / ELL: 1
  int64_t nm_n = 0, nm_m = 0;    ///< NM: the exact N:M pattern of `sparsity`
  uint64_t seed_a = 0;           ///< A: fixed per (format, dtype, m, k, sparsity, vec)
  uint64_t seed_b = 0;           ///< B: also depends on n
};

}  // namespace bench
