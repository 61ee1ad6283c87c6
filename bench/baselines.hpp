// The baselines: what a user would run instead of libspx, on the same matrix and the same
// values, timed by the same protocol. Each returns nothing (after a printed note) when the
// library refuses every configuration, so no baseline is ever dropped silently.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "device.hpp"
#include "problem.hpp"
#include "reference.hpp"
#include "timing.hpp"
#include "types.hpp"

namespace bench {

struct BaselineResult {
  std::string name;         ///< CSV `baseline` column
  double ms = 0.0;
  std::string config;       ///< which layout / algorithm / types won
  double check_err = -1.0;  ///< the baseline's own max_rel_err (< 0: not checkable)
  bool check_ok = true;     ///< false: it computed something else (bench bug); not in geomeans
};

/// What every baseline needs.
struct BaselineEnv {
  const GpuContext& gpu;
  const Problem& p;
  const Reference& ref;
  const TimingConfig& timing;
  const std::vector<std::string>* only = nullptr;  ///< sptc: baselines to run (null/empty = all)
  bool wants(const std::string& name) const {
    if (only == nullptr || only->empty()) return true;
    for (const std::string& o : *only)
      if (o == name) return true;
    return false;
  }
};

/// Prints "note: <text>" on stderr the first time this text comes up (refusals repeat on every
/// case of a sweep).
void note(const std::string& text);

/// How the case's values enter a baseline of element type `type`: integer problems reach fp16
/// baselines scaled by 1/128 per operand (exact, and the fp16 output cannot overflow); values a
/// type cannot hold (16-bit integers in int8) are saturated and the result is then not checked.
struct InputPlan {
  ValueType type = ValueType::F32;
  float scale_a = 1.0f, scale_b = 1.0f;
  bool checkable = true;
  double ref_scale() const { return static_cast<double>(scale_a) * scale_b; }
};
InputPlan plan_inputs(const Problem& p, ValueType type);

/// The dense m x k A of the case (SpMM: the sparse A densified) row-major with ld, times scale.
std::vector<float> dense_a_rowmajor(const Problem& p, int64_t ld, float scale);
/// B (k x n) column-major with ld >= k (padding rows zero), times scale.
std::vector<float> b_colmajor(const Problem& p, int64_t ld, float scale);

// ------------------------------------------------------------------ cuBLAS (baselines_cublas.cpp)

enum class GemmKind {
  SGEMM_FP32,  ///< cublas_sgemm_fp32: fp32, CUBLAS_COMPUTE_32F_PEDANTIC (no TF32)
  SGEMM_TF32,  ///< cublas_sgemm_tf32: fp32 data, CUBLAS_COMPUTE_32F_FAST_TF32
  HGEMM,       ///< cublas_hgemm: fp16 (bf16 for bf16 cases) in and out, CUBLAS_COMPUTE_32F
  INT8,        ///< cublas_int8: int8 in, int32 out, CUBLAS_COMPUTE_32I
};

/// Dense GEMM of the same m x n x k product, "TN" layout (A row-major, B and C column-major:
/// the layout cuBLAS's int8 tensor-core path requires and the usual fast one for the others).
std::optional<BaselineResult> cublas_gemm(const BaselineEnv& env, GemmKind kind);

// -------------------------------------------------------------- cuSPARSE (baselines_cusparse.cpp)

enum class SparseKind { CSR, COO, BELL };

/// cuSPARSE SpMM on A in `kind` with values of type `type`: every dense order (row, col) and
/// every algorithm for the format is tried; the fastest correct one is reported in config.
/// BELL uses block size V (the case's vector length).
std::optional<BaselineResult> cusparse_spmm_best(const BaselineEnv& env, SparseKind kind,
                                                 ValueType type, const std::string& name);

/// cuSPARSE in int8 (int32 output), each searched over dense orders and algorithms: rows
/// cusparse_csr (int8 CSR), cusparse_bell (int8 Blocked-ELL, block V) and cusparse_int8_best (the
/// faster of the two, not timed again). When cuSPARSE refuses every int8 configuration: one
/// cusparse_csr row in fp16 instead (its config says so).
std::vector<BaselineResult> cusparse_int8_rows(const BaselineEnv& env);

// ------------------------------------------------------ cuSPARSELt (baselines_cusparselt.cpp)

/// cusparselt: the densified A magnitude-pruned to 2:4 along k (host), compressed by cuSPARSELt
/// and multiplied with the algorithm cusparseLtMatmulSearch picks; checked against cuBLAS on the
/// same pruned matrix. Prints a note and returns nothing when the library is not found.
std::optional<BaselineResult> cusparselt_spmm(const BaselineEnv& env);

// ------------------------------------------------------ cuSPARSE SDDMM (baselines_sddmm.cpp)

/// cusparse_sddmm_best: cusparseSDDMM on the CSR mask, f32 and f16 inputs, each dense order.
std::optional<BaselineResult> cusparse_sddmm_best(const BaselineEnv& env);

}  // namespace bench
