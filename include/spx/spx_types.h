/**
 * @file spx_types.h
 * @brief Types, enums and opaque handles of libspx. Included by spx.h; do not include alone.
 *
 * Every enum value is explicit and values are only ever appended, so a program built
 * against an older header keeps working with a newer libspx.so of the same SONAME.
 */
#ifndef SPX_TYPES_H
#define SPX_TYPES_H

#include <stddef.h>
#include <stdint.h>

#include "spx/spx_export.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * In C++ (11 and later) the enums below have the fixed underlying type int: then every int a C
 * caller passes (an out-of-range one included) is a value of the enum type, and libspx refuses
 * a wrong one with SPX_STATUS_INVALID_VALUE without undefined behaviour (an enum without a fixed
 * type only holds the values of its enumerators' bit range). Same size and passing as in C.
 */
#if defined(__cplusplus) && __cplusplus >= 201103L
#define SPX_ENUM_INT : int
#else
#define SPX_ENUM_INT
#endif

/** Status returned by every libspx call. */
typedef enum spxStatus SPX_ENUM_INT {
  SPX_STATUS_SUCCESS = 0,          /**< The call did its work. */
  SPX_STATUS_NOT_INITIALIZED = 1,  /**< No CUDA device, or no usable driver. */
  SPX_STATUS_ALLOC_FAILED = 2,     /**< A host or device allocation failed. */
  SPX_STATUS_INVALID_VALUE = 3,    /**< An argument was wrong; spxGetLastErrorMessage says which. */
  SPX_STATUS_ARCH_MISMATCH = 4,    /**< The device is older than sm_80. */
  SPX_STATUS_EXECUTION_FAILED = 5, /**< A kernel launch or CUDA call failed. */
  SPX_STATUS_INTERNAL_ERROR = 6,   /**< A bug in libspx: please report it with the message. */
  SPX_STATUS_NOT_SUPPORTED = 7,    /**< Valid input this version (or the forced algorithm) cannot take. */
  SPX_STATUS_IO_ERROR = 8          /**< A file could not be read or parsed (host tools). */
} spxStatus_t;

/** Element types. 4-bit types pack two elements per byte, the lower index in the low nibble. */
typedef enum spxDataType SPX_ENUM_INT {
  SPX_R_32F = 0,  /**< IEEE float. */
  SPX_R_16F = 1,  /**< IEEE half. */
  SPX_R_16BF = 2, /**< bfloat16. */
  SPX_R_8I = 3,   /**< signed 8-bit integer. */
  SPX_R_4I = 4,   /**< signed 4-bit integer, packed two per byte. */
  SPX_R_16I = 5,  /**< signed 16-bit integer (emulated on tensor cores). */
  SPX_R_32I = 6,  /**< signed 32-bit integer: accumulator and output type only. */
  SPX_R_8U = 7,   /**< unsigned 8-bit integer. */
  SPX_R_4U = 8    /**< unsigned 4-bit integer, packed two per byte. */
} spxDataType_t;

/** Storage order of a dense matrix. */
typedef enum spxOrder SPX_ENUM_INT {
  SPX_ORDER_ROW = 0, /**< element (r, c) at r * ld + c. */
  SPX_ORDER_COL = 1  /**< element (r, c) at r + c * ld. */
} spxOrder_t;

/** Sparse storage formats a user can hand in. */
typedef enum spxFormat SPX_ENUM_INT {
  SPX_FORMAT_CSR = 0,  /**< compressed sparse rows. */
  SPX_FORMAT_BCRS = 1, /**< vector-sparse: V x 1 column vectors in CSR of vector-rows. */
  SPX_FORMAT_NM = 2,   /**< vector-wise N:M: the same N of every M columns for a group of L rows. */
  SPX_FORMAT_ELL = 3   /**< uniform sparsity: ell_width slots per row, column-major. */
} spxFormat_t;

/** Where alpha and beta live. */
typedef enum spxPointerMode SPX_ENUM_INT {
  SPX_POINTER_MODE_HOST = 0,  /**< alpha/beta are host pointers, read before the call returns. */
  SPX_POINTER_MODE_DEVICE = 1 /**< alpha/beta are device pointers, read by the kernel. */
} spxPointerMode_t;

/** Kernel family. DEFAULT lets the plan choose; the others force a family. */
typedef enum spxSpMMAlg SPX_ENUM_INT {
  SPX_SPMM_ALG_DEFAULT = 0,      /**< pick from format, types and shape. */
  SPX_SPMM_ALG_NM = 1,           /**< vector-wise N:M on CUDA cores (NM-SpMM). */
  SPX_SPMM_ALG_ELL = 2,          /**< uniform sparsity (USpMM). */
  SPX_SPMM_ALG_SRBCRS = 3,       /**< quantized SR-BCRS on tensor cores (Magicube). */
  SPX_SPMM_ALG_SPTC_REORDER = 4, /**< reorder to 2:4 for sparse tensor cores (Jigsaw). */
  SPX_SPMM_ALG_FALLBACK = 5,     /**< the generic correct kernel (reported by plan info; may be forced). */
  SPX_SPMM_ALG_DENSE = 6         /**< SpMM only: a dense copy of A multiplied by cuBLAS (cublasGemmEx;
                                      float types). Forcing it is the same as
                                      SPX_PLAN_OPTION_DENSE_ROUTE = SPX_DENSE_ROUTE_ALWAYS without
                                      building a sparse family's plan. NOT_SUPPORTED where cuBLAS
                                      cannot be loaded at run time or for integer inputs. */
} spxSpMMAlg_t;

/** Same families for SDDMM. */
typedef spxSpMMAlg_t spxSDDMMAlg_t;

/**
 * Settings of spxSpMM_analyzeWithOptions / spxSDDMM_analyzeWithOptions, set one at a time with
 * spxPlanOptionsSet. Each option documents its value type; values are only ever appended.
 */
typedef enum spxPlanOption SPX_ENUM_INT {
  /**
   * int32_t, 0 (default) or 1. With 1, analyze times every kernel configuration the chosen
   * family offers (as spxSpMM_search does) on the handle's stream, reading B's data and
   * writing only a scratch copy of C (the caller's C is not touched), and keeps the fastest
   * (plan info: searched = 1). Makes analyze block until the timing is done. A plan with one
   * configuration (and every SDDMM plan today) ignores it.
   */
  SPX_PLAN_OPTION_AUTOTUNE = 0,
  /**
   * int32_t, a spxValuesLayout_t (default SPX_VALUES_LAYOUT_NATIVE): the order of the sparse
   * operand's values array, for SDDMM the order C's values are written in, for SpMM the order
   * A's values are read in (at analyze and by spxPlanUpdateValues). SPX_VALUES_LAYOUT_SRBCRS is
   * the SR-BCRS family's (SPX_SPMM_ALG_SRBCRS): with it, DEFAULT means that family, and input
   * it cannot take, or another forced family, is SPX_STATUS_NOT_SUPPORTED.
   */
  SPX_PLAN_OPTION_SPARSE_VALUES_LAYOUT = 1,
  /**
   * int32_t, a spxDenseRoute_t (default SPX_DENSE_ROUTE_AUTO): whether an SpMM plan may run as a
   * dense product instead (a dense copy of A, owned by the plan, multiplied by cuBLAS, which
   * libspx loads at run time: libcublas.so.13, else libcublas.so). AUTO compares the sparse
   * family's estimated time with a model of cuBLAS on the same problem (with
   * SPX_PLAN_OPTION_AUTOTUNE: measures both) and runs the faster, for SPX_SPMM_ALG_DEFAULT only
   * (a forced sparse family runs that family); where cuBLAS cannot be loaded it keeps the sparse
   * route silently. NEVER always runs the sparse family. ALWAYS runs the dense product (input it
   * cannot take, integer types or no cuBLAS, is SPX_STATUS_NOT_SUPPORTED). Plan info says which
   * route runs (route, sparse_estimate_us, dense_estimate_us, dense_bytes). Ignored by SDDMM.
   */
  SPX_PLAN_OPTION_DENSE_ROUTE = 2,
  /**
   * int32_t, 0 (default) or 1. With 1 the dense route may run fp32 products on tensor cores in
   * TF32 (CUBLAS_COMPUTE_32F_FAST_TF32: inputs rounded to 10-bit mantissas, fp32 accumulation),
   * and AUTO models it so. With 0 fp32 products are exact fp32 (CUBLAS_COMPUTE_32F_PEDANTIC),
   * whatever NVIDIA_TF32_OVERRIDE says. The sparse families never use TF32.
   */
  SPX_PLAN_OPTION_ALLOW_TF32 = 3,
  /**
   * int32_t, the largest number of columns n of B and C an SpMM plan executes: 0 (default) the n
   * of the B and C given to analyze; a value >= that n; or -1 for any n. One analyze packs A
   * once; the plan then prepares a decision (kernel, configuration, split, route) for every
   * power of two up to the bound (capped at max(analyzed n, 4096) for -1), all sharing that one
   * copy of A, and an execute with n columns runs the decision prepared for the smallest
   * prepared size >= n: no allocation, no synchronization, no host read of device memory.
   * SPX_DENSE_ROUTE_AUTO routes another n to dense cuBLAS only where the analyzed n made the
   * dense copy (it never makes a second copy of A for another n); SPX_DENSE_ROUTE_AUTO_EVERY_N
   * makes it for any n where dense cuBLAS is estimated faster.
   * With -1, an n above the largest prepared size runs as column slices of that size. The
   * workspace (spxPlanGetWorkspaceSize) serves every n up to the bound. Plan info: max_n and
   * prepared_sizes; spxPlanGetInfoForN tells what runs for a given n. SDDMM plans take 0 only.
   */
  SPX_PLAN_OPTION_MAX_N = 4,
  /**
   * int32_t, a spxActivation_t (default SPX_ACTIVATION_NONE): the activation of the SpMM plan's
   * fused epilogue. Every execute of the plan writes
   *     C[i, j] = act(alpha * scale[i] * (A * B)[i, j] + bias[i]) + beta * C_old[i, j]
   * computed in fp32 and rounded once to C's type (scale and bias: see
   * SPX_PLAN_OPTION_EPILOGUE_BIAS / _SCALE and spxPlanSetEpilogue). A plan with any epilogue
   * option needs C of type 32F, 16F or 16BF (a 32I C is SPX_STATUS_NOT_SUPPORTED). Every sparse
   * family fuses it into the kernel that writes C. Where an n takes the dense cuBLAS route
   * (SPX_PLAN_OPTION_DENSE_ROUTE), a call with beta = 0 given on the host runs the GEMM into C
   * and then one epilogue kernel over C in place (a 16F / 16BF C is then rounded twice, as the
   * dense route does with beta); any other call (beta != 0, or device pointer mode) runs the
   * sparse family's decision for that n, which the plan keeps. SPX_SPMM_ALG_DENSE (no sparse
   * decision to keep) with an epilogue is SPX_STATUS_NOT_SUPPORTED; SDDMM plans take the
   * defaults only (else SPX_STATUS_NOT_SUPPORTED).
   */
  SPX_PLAN_OPTION_EPILOGUE_ACTIVATION = 5,
  /**
   * int32_t, 0 (default) or 1. With 1 the plan's epilogue adds a per-row bias (one fp32 value
   * per row of C, i.e. per output feature of the m x k weight A), given after analyze by
   * spxPlanSetEpilogue and changeable there without re-analyzing. Same restrictions as
   * SPX_PLAN_OPTION_EPILOGUE_ACTIVATION.
   */
  SPX_PLAN_OPTION_EPILOGUE_BIAS = 6,
  /**
   * int32_t, 0 (default) or 1. With 1 the plan's epilogue multiplies row i of the product by
   * scale[i] (fp32, one per row of C: e.g. the per-output-channel dequantization scale of an int8
   * weight A), given by spxPlanSetEpilogue. Same restrictions as
   * SPX_PLAN_OPTION_EPILOGUE_ACTIVATION.
   */
  SPX_PLAN_OPTION_EPILOGUE_SCALE = 7
} spxPlanOption_t;

/** Activations of the fused SpMM epilogue (SPX_PLAN_OPTION_EPILOGUE_ACTIVATION), in fp32. */
typedef enum spxActivation SPX_ENUM_INT {
  SPX_ACTIVATION_NONE = 0,      /**< act(u) = u. */
  SPX_ACTIVATION_RELU = 1,      /**< max(u, 0). */
  SPX_ACTIVATION_GELU_TANH = 2, /**< 0.5 u (1 + tanh(sqrt(2 / pi) (u + 0.044715 u^3))), as
                                     PyTorch's gelu(approximate="tanh"). */
  SPX_ACTIVATION_SILU = 3       /**< u / (1 + exp(-u)) (swish). */
} spxActivation_t;

/** Values of SPX_PLAN_OPTION_DENSE_ROUTE: when an SpMM plan runs as a dense cuBLAS product. */
typedef enum spxDenseRoute {
  SPX_DENSE_ROUTE_AUTO = 0,  /**< the faster of the sparse family and dense cuBLAS (by model, or
                                  measured with SPX_PLAN_OPTION_AUTOTUNE). */
  SPX_DENSE_ROUTE_NEVER = 1, /**< always the sparse family (the behaviour before this option). */
  SPX_DENSE_ROUTE_ALWAYS = 2, /**< always dense cuBLAS (NOT_SUPPORTED where it cannot run). */
  SPX_DENSE_ROUTE_AUTO_EVERY_N = 3 /**< AUTO at every prepared n (SPX_PLAN_OPTION_MAX_N): the
                                        plan makes the dense copy of A when any n takes the dense
                                        route, and so may hold both copies (dense_bytes). AUTO
                                        never makes it for an n other than the analyzed one. */
} spxDenseRoute_t;

/**
 * Order of a BCRS(V) / CSR values array (SPX_PLAN_OPTION_SPARSE_VALUES_LAYOUT). CSR is V = 1.
 *
 * SPX_VALUES_LAYOUT_SRBCRS lets an SDDMM write C where an SR-BCRS SpMM on the same structure reads
 * A, with no re-layout in between (Magicube writes SDDMM output this way when SpMM comes next):
 * every vector-row i (R = rows / V of them) is padded to whole strides of 32 vector slots;
 * spxHostSrbcrsSlotPtr gives slot_ptr[R + 1], the first slot of each vector-row. Vector j of
 * vector-row i (j < block_row_ptr[i + 1] - block_row_ptr[i]) is slot s = slot_ptr[i] + j, and its
 * row v (v < V) is element
 *     (s / 32) * 32 * V + v * 32 + s % 32
 * of the array (4-bit types: two elements per byte, the lower index in the low nibble). Slots
 * from slot_ptr[i] + (block_row_ptr[i + 1] - block_row_ptr[i]) to slot_ptr[i + 1] are padding:
 * SDDMM writes 0 there, and an SpMM input must hold 0 there. The array holds slot_ptr[R] * V
 * elements, which is also spxPlanInfo_t::padded_nnz of a plan analyzed with this layout.
 */
typedef enum spxValuesLayout SPX_ENUM_INT {
  SPX_VALUES_LAYOUT_NATIVE = 0, /**< the format's own order: BCRS e * V + v, CSR entry e. */
  SPX_VALUES_LAYOUT_SRBCRS = 1  /**< SR-BCRS stride-major order with padding (see above). */
} spxValuesLayout_t;

/** Opaque library context: device, stream, pointer mode. Used by one thread at a time. */
typedef struct spxContext* spxHandle_t;
/** Opaque sparse matrix descriptor. Wraps caller-owned device arrays; never copies or frees them. */
typedef struct spxSpMatDescr* spxSpMatDescr_t;
/** Read-only view of a sparse descriptor. */
typedef const struct spxSpMatDescr* spxConstSpMatDescr_t;
/** Opaque dense matrix descriptor. Wraps a caller-owned device pointer. */
typedef struct spxDnMatDescr* spxDnMatDescr_t;
/** Read-only view of a dense descriptor. */
typedef const struct spxDnMatDescr* spxConstDnMatDescr_t;
/** Opaque plan: everything analyze computed, including a kernel-ready device copy of A. */
typedef struct spxPlan* spxPlan_t;
/** Opaque analyze options (spxCreatePlanOptions); a fresh object holds every default. */
typedef struct spxPlanOptions* spxPlanOptions_t;
/** Read-only view of analyze options. */
typedef const struct spxPlanOptions* spxConstPlanOptions_t;

/** What a plan chose and what it holds (filled by spxPlanGetInfo; plain host struct). */
typedef struct spxPlanInfo {
  spxSpMMAlg_t family;     /**< the family whose kernel runs (SPX_SPMM_ALG_FALLBACK for the generic one,
                                SPX_SPMM_ALG_DENSE for the dense cuBLAS route). */
  char kernel[64];         /**< kernel name, e.g. "fallback_csr_spmm". */
  char config[192];        /**< tile configuration and options, human-readable. */
  size_t workspace_bytes;  /**< what spxPlanGetWorkspaceSize returns. */
  size_t metadata_bytes;   /**< device bytes of indices / row pointers / metadata held by the plan. */
  size_t values_bytes;     /**< device bytes of (re-laid-out) values held by the plan. */
  double analyze_ms;       /**< host wall time spent in analyze. */
  int64_t nnz;             /**< stored nonzeros of the user's matrix (explicit zeros included). */
  int64_t padded_nnz;      /**< value slots in the plan's layout, padding included. */
  int64_t columns_skipped; /**< SpTC reorder: all-zero columns skipped (0 elsewhere). */
  int64_t reorder_retries; /**< SpTC reorder: retries of the 2:4 grouping (0 elsewhere). */
  int32_t split_k;         /**< split of the reduction dimension (1 = none). */
  int32_t packing;         /**< NM: 1 when the dense operand is packed through col_info. */
  int32_t candidates;      /**< kernel configurations spxSpMM_search can choose among (>= 1). */
  int32_t searched;        /**< 1 once spxSpMM_search has chosen the configuration. */
  double predicted_speedup; /**< the family's model of its speedup over dense cuBLAS for this
                                 shape and sparsity (0 = the family has no model). */
  int32_t route;           /**< 0: the sparse family runs; 1: the dense route (cuBLAS on the plan's
                                dense copy of A; family is SPX_SPMM_ALG_DENSE). */
  int32_t reserved32;      /**< zero (alignment). */
  double sparse_estimate_us; /**< the sparse family's estimated (with SPX_PLAN_OPTION_AUTOTUNE:
                                  measured) microseconds per execute; 0 when not estimated. */
  double dense_estimate_us;  /**< the same for dense cuBLAS on this problem; 0 when the dense route
                                  cannot run here (integer types, no cuBLAS). */
  size_t dense_bytes;      /**< device bytes of the plan's dense copy of A (0 unless the analyzed
                                n takes the dense route, or ALWAYS / SPX_SPMM_ALG_DENSE). */
  int64_t max_n;           /**< the largest n an execute takes (SPX_PLAN_OPTION_MAX_N resolved:
                                the analyzed n, the bound given, or -1 for any n). */
  int64_t prepared_sizes;  /**< per-n decisions the plan prepared (1 for SDDMM); they share one
                                copy of A: metadata_bytes + values_bytes (which counts dense_bytes)
                                is all the device memory the plan holds, whatever n values run. */
} spxPlanInfo_t;

#ifdef __cplusplus
}
#endif

#endif /* SPX_TYPES_H */
