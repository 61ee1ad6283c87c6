// The structs behind the opaque handles of spx_types.h. Descriptors only wrap caller pointers;
// the plan owns its device copies (through device::Buffer) and everything analyze decided.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>

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

struct spxPlan {
  spx::Operation op = spx::Operation::SpMM;
  int device = 0;
  spxDataType_t compute_type = SPX_R_32F;
  spx::SparseSignature sparse;           ///< A for SpMM, C for SDDMM
  spx::DenseSignature dense_in, dense_out;  ///< SpMM: B, C.  SDDMM: A, B

  spxPlan();
  ~spxPlan();  // defined where the kernel plan types are complete
  spxPlanInfo_t info{};
  /// The kernel plan that runs (exactly one is set, per `op`): the sparse family's, or the dense
  /// family's when the dense route was taken (info.route == 1).
  std::unique_ptr<spx::dispatch::SpmmKernelPlan> spmm;
  /// With the dense route taken under SPX_SPMM_ALG_DEFAULT: the sparse family's plan, kept (its
  /// values follow spxPlanUpdateValues); null otherwise.
  std::unique_ptr<spx::dispatch::SpmmKernelPlan> sparse_spmm;
  std::unique_ptr<spx::dispatch::SddmmKernelPlan> sddmm;
  /// The streams the plan's work was queued on (analyze, executes, value updates): destroying
  /// the plan waits for that work only, in stream order, never for the whole device.
  mutable spx::device::UseTracker uses;
};
