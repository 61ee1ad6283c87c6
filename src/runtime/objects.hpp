// The structs behind the opaque handles of spx_types.h. Descriptors only wrap caller pointers;
// the plan owns its device copies (through device::Buffer) and everything analyze decided.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "runtime/device.hpp"
#include "spx/spx.h"

struct spxContext {
  int device = 0;
  cudaStream_t stream = nullptr;
  spxPointerMode_t pointer_mode = SPX_POINTER_MODE_HOST;
  int sm_count = 0;
  int cc_major = 0, cc_minor = 0;
  /// The architecture the library's device code runs as here (device/code_arch.hpp):
  /// the sm_90 paths need 90, not just a compute capability of 9.
  int code_arch = 0;
  size_t smem_per_block_optin = 0;  ///< bytes a block may opt in to (for the family kernels)
};

/// Analyze options (spxPlanOptionsSet); the defaults are what spxSpMM_analyze uses.
struct spxPlanOptions {
  int32_t autotune = 0;  ///< SPX_PLAN_OPTION_AUTOTUNE
  int32_t values_layout = SPX_VALUES_LAYOUT_NATIVE;  ///< SPX_PLAN_OPTION_SPARSE_VALUES_LAYOUT
  int32_t dense_route = SPX_DENSE_ROUTE_AUTO;  ///< SPX_PLAN_OPTION_DENSE_ROUTE
  int32_t allow_tf32 = 0;                      ///< SPX_PLAN_OPTION_ALLOW_TF32
  int32_t max_n = 0;  ///< SPX_PLAN_OPTION_MAX_N: 0 the analyzed n, -1 any, else the bound
  int32_t epilogue_activation = SPX_ACTIVATION_NONE;  ///< SPX_PLAN_OPTION_EPILOGUE_ACTIVATION
  int32_t epilogue_bias = 0;                          ///< SPX_PLAN_OPTION_EPILOGUE_BIAS
  int32_t epilogue_scale = 0;                         ///< SPX_PLAN_OPTION_EPILOGUE_SCALE

  /// Whether any epilogue option is set (the plan then runs an SpMM epilogue).
  bool any_epilogue() const {
    return epilogue_activation != SPX_ACTIVATION_NONE || epilogue_bias != 0 || epilogue_scale != 0;
  }

  /// The defaults, for the analyze calls that take no options (or NULL).
  static const spxPlanOptions& defaults() {
    static const spxPlanOptions d{};
    return d;
  }
};

struct spxDnMatDescr {
  int64_t rows = 0, cols = 0, ld = 0;
  void* values = nullptr;
  spxDataType_t type = SPX_R_32F;
  spxOrder_t order = SPX_ORDER_ROW;
};

/// One struct for the four formats; which fields mean what is per `format` (see spxCreate*).
struct spxSpMatDescr {
  spxFormat_t format = SPX_FORMAT_CSR;
  spxDataType_t type = SPX_R_32F;
  int64_t rows = 0, cols = 0;
  int64_t nnz = 0;          ///< CSR nnz; BCRS number of vectors (not times V)
  int64_t vec_len = 1;      ///< BCRS V
  int64_t n = 0, m = 0, l = 0;  ///< NM
  int64_t ell_width = 0;    ///< ELL
  void* ptr = nullptr;      ///< CSR row_ptr / BCRS block_row_ptr
  void* idx = nullptr;      ///< CSR col_ind / BCRS block_col / NM indices / ELL col_ind
  void* values = nullptr;

  /// Number of value slots in `values` (CSR nnz, BCRS nb*V, NM rows*kc, ELL rows*ell_width).
  int64_t value_slots() const;
  /// Number of int32 entries in `idx`.
  int64_t index_count() const;
  /// Number of int32 entries in `ptr` (0 when the format has none).
  int64_t pointer_count() const;
};

namespace spx {
namespace dispatch {
class SpmmKernelPlan;
class SddmmKernelPlan;
}  // namespace dispatch

enum class Operation { SpMM = 0, SDDMM = 1 };

/// Shape and types of a dense operand as analyzed; execute must see the same.
struct DenseSignature {
  int64_t rows = 0, cols = 0;
  spxDataType_t type = SPX_R_32F;
  spxOrder_t order = SPX_ORDER_ROW;

  static DenseSignature of(const spxDnMatDescr& d) { return {d.rows, d.cols, d.type, d.order}; }
  bool operator==(const DenseSignature& o) const {
    return rows == o.rows && cols == o.cols && type == o.type && order == o.order;
  }
};

/// Structure identity of a sparse operand as analyzed (pointers excluded: data may move).
struct SparseSignature {
  spxFormat_t format = SPX_FORMAT_CSR;
  spxDataType_t type = SPX_R_32F;
  int64_t rows = 0, cols = 0, nnz = 0, vec_len = 1, n = 0, m = 0, l = 0, ell_width = 0;

  static SparseSignature of(const spxSpMatDescr& s) {
    return {s.format, s.type, s.rows, s.cols, s.nnz, s.vec_len, s.n, s.m, s.l, s.ell_width};
  }
  bool operator==(const SparseSignature& o) const {
    return format == o.format && type == o.type && rows == o.rows && cols == o.cols &&
           nnz == o.nnz && vec_len == o.vec_len && n == o.n && m == o.m && l == o.l &&
           ell_width == o.ell_width;
  }
};

}  // namespace spx

namespace spx {
/// One prepared per-n decision of an SpMM plan: the kernel plan (sparse family or dense route)
/// that runs executes with n in (the previous entry's n_hi, n_hi], and what plan info says of it.
struct PreparedN {
  int64_t n_hi = 0;
  std::shared_ptr<dispatch::SpmmKernelPlan> spmm;
  /// A plan with a fused epilogue whose n takes the dense route: the sparse family's decision
  /// for the same n, run by the calls the dense route cannot take with the epilogue (beta != 0
  /// or device scalars). Null otherwise.
  std::shared_ptr<dispatch::SpmmKernelPlan> sparse_for_epilogue;
  spxPlanInfo_t info{};
};
}  // namespace spx

struct spxPlan {
  spx::Operation op = spx::Operation::SpMM;
  int device = 0;
  spxDataType_t compute_type = SPX_R_32F;
  spx::SparseSignature sparse;           ///< A for SpMM, C for SDDMM
  spx::DenseSignature dense_in, dense_out;  ///< SpMM: B, C as analyzed (cols: the analyzed n)

  spxPlan();
  ~spxPlan();  // defined where the kernel plan types are complete
  /// What spxPlanGetInfo returns: the analyzed n's decision with the plan's totals.
  spxPlanInfo_t info{};
  /// SpMM: the decisions prepared per n (ascending n_hi; engine/prepared.cpp). They share one
  /// device copy of A (the sparse family's, and the dense copy when some n takes the dense route).
  std::vector<spx::PreparedN> prepared;
  size_t analyzed = 0;  ///< index in `prepared` of the analyzed n
  int64_t max_n = 0;    ///< the largest n an execute takes; -1: any (slices of the largest n_hi)
  /// The kernel plans whose update_values re-packs the shared copies of A: the sparse family's
  /// (also kept when every prepared n runs dense, so a forced sparse family could run) and the
  /// dense route's (null unless some n takes it).
  std::shared_ptr<spx::dispatch::SpmmKernelPlan> sparse_source, dense_source;
  std::unique_ptr<spx::dispatch::SddmmKernelPlan> sddmm;
  /// What a serialized SpMM plan needs to make its decisions again (engine/serialize.cpp): the
  /// analyzed B's and C's leading dimensions, B's address modulo 256 (its alignment), the
  /// analyze options and the SPX_* switches analyze read.
  int64_t b_ld = 0, c_ld = 0;
  int32_t b_align = 0;
  spxContext made_on;  ///< the device the decisions were made for (its stream is not used)
  spxPlanOptions options;
  std::vector<std::pair<std::string, std::string>> switches;
  /// SpMM: the arrays of the fused epilogue (spxPlanSetEpilogue; fp32, one per row of C; NULL:
  /// none). What analyze fixed (activation, whether the plan takes a bias and a scale) is in
  /// `options` (SPX_PLAN_OPTION_EPILOGUE_*); engine::epilogue_of joins the two for the kernels.
  struct Epilogue {
    const float* bias = nullptr;
    const float* scale = nullptr;
  } epilogue;
  /// The streams the plan's work was queued on (analyze, executes, value updates): destroying
  /// the plan waits for that work only, in stream order, never for the whole device.
  mutable spx::device::UseTracker uses;

  /// The prepared decision that runs n columns (1 <= n <= the largest n_hi).
  const spx::PreparedN& prepared_for(int64_t n) const {
    size_t i = 0;
    while (i + 1 < prepared.size() && prepared[i].n_hi < n) ++i;
    return prepared[i];
  }
  spx::PreparedN& prepared_for(int64_t n) {
    return const_cast<spx::PreparedN&>(static_cast<const spxPlan&>(*this).prepared_for(n));
  }
};
