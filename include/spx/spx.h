/**
 * @file spx.h
 * @brief libspx: sparse matrix products on NVIDIA GPUs. The one header users include.
 *
 *     SpMM :  C = alpha * A * B + beta * C                 A sparse (m x k), B, C dense
 *     SDDMM:  C = alpha * (A * B) .* spy(C) + beta * C     A, B dense, C sparse (its pattern is the mask)
 *
 * Lifecycle (as in cuSPARSE): spxCreate -> spxCreateCsr/Bcrs/NM/Ell + spxCreateDnMat ->
 * spxSpMM_analyze (all preprocessing, once) -> spxSpMM (many times) -> spxPlanDestroy ->
 * spxDestroySpMat / spxDestroyDnMat -> spxDestroy.
 *
 * Conventions: sizes and leading dimensions are int64_t; index arrays are int32_t, 0-based;
 * descriptors wrap caller-owned device pointers and never copy or free them; every call
 * returns spxStatus_t and, on failure, sets a one-sentence thread-local message
 * (spxGetLastErrorMessage; successful calls leave it unchanged). No call lets a C++ exception escape.
 *
 * Host-side tools (file reading, format conversion, pruning, pattern checks) are in
 * spx_host.h, included below.
 */
#ifndef SPX_H
#define SPX_H

#include "spx/spx_types.h"

#define SPX_VERSION_MAJOR 0
#define SPX_VERSION_MINOR 1
#define SPX_VERSION_PATCH 0
/** MAJOR * 10000 + MINOR * 100 + PATCH, the value spxGetVersion returns. */
#define SPX_VERSION (SPX_VERSION_MAJOR * 10000 + SPX_VERSION_MINOR * 100 + SPX_VERSION_PATCH)

#ifdef __cplusplus
extern "C" {
#endif

/** CUDA stream, ABI-compatible with cudaStream_t (no CUDA header needed to include spx.h). */
typedef struct CUstream_st* spxStream_t;

/* ---------------------------------------------------------------- errors and version */

/** Name of a status, e.g. "SPX_STATUS_INVALID_VALUE". Static string; never NULL. */
SPX_API const char* spxGetStatusName(spxStatus_t status);
/** One-line description of a status. Static string; never NULL. */
SPX_API const char* spxGetStatusString(spxStatus_t status);
/**
 * Message of the most recent failed libspx call on this thread ("N (5) must be <= M (4)"), or
 * "" if no call on this thread has failed yet. Like errno, successful calls leave it unchanged
 * (so a destructor that calls spxDestroy* cannot erase it): read it when a call returned a
 * failure status. Owned by libspx, valid until the next failing libspx call on this thread.
 */
SPX_API const char* spxGetLastErrorMessage(void);
/** Writes SPX_VERSION of the loaded library to *version (host pointer). */
SPX_API spxStatus_t spxGetVersion(int* version);

/* ---------------------------------------------------------------- handle */

/**
 * Creates a handle on the current CUDA device with the default stream and host pointer mode.
 * Returns SPX_STATUS_NOT_INITIALIZED without a usable device, SPX_STATUS_ARCH_MISMATCH on a
 * device older than sm_80. *handle is a host pointer; the handle is owned by the caller
 * until spxDestroy.
 */
SPX_API spxStatus_t spxCreate(spxHandle_t* handle);
/** Destroys a handle (NULL is accepted and ignored). Does not synchronize the stream. */
SPX_API spxStatus_t spxDestroy(spxHandle_t handle);
/** Sets the stream all later work of this handle is queued on (NULL = the default stream). */
SPX_API spxStatus_t spxSetStream(spxHandle_t handle, spxStream_t stream);
/** Writes the handle's stream to *stream (host pointer). */
SPX_API spxStatus_t spxGetStream(spxHandle_t handle, spxStream_t* stream);
/** Says whether alpha and beta are host pointers (default) or device pointers. */
SPX_API spxStatus_t spxSetPointerMode(spxHandle_t handle, spxPointerMode_t mode);
/** Writes the handle's pointer mode to *mode (host pointer). */
SPX_API spxStatus_t spxGetPointerMode(spxHandle_t handle, spxPointerMode_t* mode);

/* ---------------------------------------------------------------- dense descriptors */

/**
 * Describes a rows x cols dense matrix at device pointer `values` (caller-owned; may be NULL
 * only when rows or cols is 0). ld >= cols for SPX_ORDER_ROW, >= rows for SPX_ORDER_COL,
 * counted in elements (for 4-bit types ld must be even, so every row/column starts on a byte).
 */
SPX_API spxStatus_t spxCreateDnMat(spxDnMatDescr_t* descr, int64_t rows, int64_t cols, int64_t ld,
                                   void* values, spxDataType_t type, spxOrder_t order);
/** Destroys a dense descriptor (not the data). NULL is accepted. */
SPX_API spxStatus_t spxDestroyDnMat(spxConstDnMatDescr_t descr);
/** Reads a dense descriptor; any output pointer may be NULL. */
SPX_API spxStatus_t spxDnMatGet(spxConstDnMatDescr_t descr, int64_t* rows, int64_t* cols,
                                int64_t* ld, void** values, spxDataType_t* type,
                                spxOrder_t* order);
/** Points the descriptor at new device data of the same shape and type. */
SPX_API spxStatus_t spxDnMatSetValues(spxDnMatDescr_t descr, void* values);

/* ---------------------------------------------------------------- sparse descriptors */

/**
 * CSR: row_ptr[rows + 1], col_ind[nnz] (int32, 0-based, device), values[nnz] of `type`
 * (device; for 4-bit types ceil(nnz / 2) bytes). Structure is checked by analyze, not here.
 */
SPX_API spxStatus_t spxCreateCsr(spxSpMatDescr_t* descr, int64_t rows, int64_t cols, int64_t nnz,
                                 void* row_ptr, void* col_ind, void* values,
                                 spxDataType_t type);
/**
 * Vector-sparse BCRS(V): V x 1 column vectors. rows % vec_len == 0;
 * block_row_ptr[rows / vec_len + 1], block_col[num_vectors] (int32, device);
 * values[num_vectors * vec_len] of `type`, the vec_len values of one vector contiguous
 * (top row first). nnz reported by the getters is num_vectors * vec_len.
 */
SPX_API spxStatus_t spxCreateBcrs(spxSpMatDescr_t* descr, int64_t rows, int64_t cols,
                                  int64_t vec_len, int64_t num_vectors, void* block_row_ptr,
                                  void* block_col, void* values, spxDataType_t type);
/**
 * Vector-wise N:M: rows grouped in vectors of `l` rows; in every window of `m` columns the
 * same `n` columns are kept for all rows of a group. rows % l == 0, cols % m == 0, n <= m.
 * With kc = cols / m * n: values[rows x kc] row-major (device, `type`);
 * indices[(rows / l) x kc] row-major int32 (device): the position 0..m-1 of each kept column
 * inside its window, strictly increasing within a window.
 */
SPX_API spxStatus_t spxCreateNM(spxSpMatDescr_t* descr, int64_t rows, int64_t cols, int64_t n,
                                int64_t m, int64_t l, void* values, void* indices,
                                spxDataType_t type);
/**
 * ELL (uniform sparsity): every row has ell_width slots. col_ind and values are
 * rows x ell_width, column-major (slot j of row i at i + j * rows), device. A padded slot has
 * col_ind = -1 (its value is ignored); real slots of a row are in increasing column order.
 */
SPX_API spxStatus_t spxCreateEll(spxSpMatDescr_t* descr, int64_t rows, int64_t cols,
                                 int64_t ell_width, void* col_ind, void* values,
                                 spxDataType_t type);
/** Destroys a sparse descriptor (not the data). NULL is accepted. */
SPX_API spxStatus_t spxDestroySpMat(spxConstSpMatDescr_t descr);
/** rows, cols and stored entries (explicit zeros and ELL padding included); outputs may be NULL. */
SPX_API spxStatus_t spxSpMatGetSize(spxConstSpMatDescr_t descr, int64_t* rows, int64_t* cols,
                                    int64_t* nnz);
/** The format the descriptor was created with. */
SPX_API spxStatus_t spxSpMatGetFormat(spxConstSpMatDescr_t descr, spxFormat_t* format);
/** The value type the descriptor was created with. */
SPX_API spxStatus_t spxSpMatGetValueType(spxConstSpMatDescr_t descr, spxDataType_t* type);
/** Points the descriptor at new device values of the same structure (see spxPlanUpdateValues). */
SPX_API spxStatus_t spxSpMatSetValues(spxSpMatDescr_t descr, void* values);

/* ---------------------------------------------------------------- analyze options */

/** Creates an options object holding every default (host memory; no GPU needed). */
SPX_API spxStatus_t spxCreatePlanOptions(spxPlanOptions_t* options);
/** Destroys an options object. NULL is accepted. Plans analyzed with it do not depend on it. */
SPX_API spxStatus_t spxDestroyPlanOptions(spxPlanOptions_t options);
/**
 * Sets one option from the host value at `value` of `size` bytes, which must be the option's
 * value type (e.g. sizeof(int32_t)). An unknown option, a wrong size or a value out of the
 * option's range is SPX_STATUS_INVALID_VALUE and leaves the object unchanged.
 */
SPX_API spxStatus_t spxPlanOptionsSet(spxPlanOptions_t options, spxPlanOption_t option,
                                      const void* value, size_t size);
/** Reads one option into the host buffer `value` of `size` bytes (the option's value type). */
SPX_API spxStatus_t spxPlanOptionsGet(spxConstPlanOptions_t options, spxPlanOption_t option,
                                      void* value, size_t size);

/* ---------------------------------------------------------------- SpMM */

/**
 * Analyzes C = alpha * A * B + beta * C and returns a plan that owns a kernel-ready device
 * copy of A. Reads A's device arrays (blocks until they are read), checks their structure
 * (indices in range, row pointers non-decreasing), does every structural step of the chosen
 * family and caches it. B and C give shapes, types and orders; their data is not read.
 *
 * Types: A and B both 32F, 16F or 16BF with C of the same type or 32F and compute_type 32F;
 * or A and B integer (8I, 4I, 16I, 8U, 4U, in any mix) with C 32I, 32F or 16F and
 * compute_type 32I. A float A with an integer B (or the reverse), or a compute_type other than
 * 32F for float / 32I for integer inputs, is SPX_STATUS_INVALID_VALUE; any other combination
 * outside this list is SPX_STATUS_NOT_SUPPORTED. Shapes must agree (A m x k, B k x n, C m x n),
 * else SPX_STATUS_INVALID_VALUE.
 * alg: SPX_SPMM_ALG_DEFAULT picks; a forced family that cannot take the input returns
 * SPX_STATUS_NOT_SUPPORTED. *plan (host pointer) is owned by the caller until spxPlanDestroy.
 */
SPX_API spxStatus_t spxSpMM_analyze(spxHandle_t handle, spxConstSpMatDescr_t A,
                                    spxConstDnMatDescr_t B, spxConstDnMatDescr_t C,
                                    spxDataType_t compute_type, spxSpMMAlg_t alg,
                                    spxPlan_t* plan);
/**
 * spxSpMM_analyze with analyze options (see spxPlanOption_t). options may be NULL (every
 * default: the same as spxSpMM_analyze). The options object is read during the call only.
 */
SPX_API spxStatus_t spxSpMM_analyzeWithOptions(spxHandle_t handle, spxConstSpMatDescr_t A,
                                               spxConstDnMatDescr_t B, spxConstDnMatDescr_t C,
                                               spxDataType_t compute_type, spxSpMMAlg_t alg,
                                               spxConstPlanOptions_t options, spxPlan_t* plan);
/** Device workspace bytes spxSpMM / spxSDDMM need for this plan (0 is a common answer). */
SPX_API spxStatus_t spxPlanGetWorkspaceSize(const struct spxPlan* plan, size_t* bytes);
/**
 * Runs C = alpha * A * B + beta * C on the handle's stream, asynchronously. A must be the
 * matrix the plan was analyzed for (its values are taken from the plan's copy; call
 * spxPlanUpdateValues after changing them). B and C may point at new data and have any number
 * of columns n up to the plan's bound (SPX_PLAN_OPTION_MAX_N), with the rows, types and orders
 * given to analyze. alpha/beta: float, or int32 when C is 32I; host or device
 * pointers by the handle's pointer mode. When beta is 0, C is not read (NaN in C is not
 * propagated). workspace: device, at least spxPlanGetWorkspaceSize bytes, 256-byte aligned
 * (as cudaMalloc returns it; NULL if 0).
 * Checked before anything is queued, each an SPX_STATUS_INVALID_VALUE naming the operand: B's
 * and C's values readable by the device (device, managed or pinned memory) and aligned to their
 * element size; alpha/beta readable where the pointer mode says (host mode: not device-only
 * memory; device mode: device-readable); the workspace's alignment. Memory kinds are looked up
 * once per pointer and remembered, so calls with the same buffers cost no driver query.
 * A plan analyzed with an epilogue (SPX_PLAN_OPTION_EPILOGUE_ACTIVATION / _BIAS / _SCALE) writes
 * C = act(alpha * scale[i] * (A * B)[i, j] + bias[i]) + beta * C[i, j] instead, computed in fp32
 * and rounded once to C's type, with the bias and scale of spxPlanSetEpilogue (absent while NULL).
 * The plan is read-only here: several handles/streams may execute it concurrently.
 */
SPX_API spxStatus_t spxSpMM(spxHandle_t handle, const struct spxPlan* plan, const void* alpha,
                            spxConstSpMatDescr_t A, spxConstDnMatDescr_t B, const void* beta,
                            spxDnMatDescr_t C, void* workspace);
/**
 * The one-call execute: C = alpha * A * B + beta * C for B (k x n) and C (m x n) given as raw
 * device pointers with leading dimensions, in the types and orders the plan was analyzed with,
 * for any n from 0 to the plan's bound (SPX_PLAN_OPTION_MAX_N; info.max_n). Queued on the
 * handle's stream. Does what spxSpMM does, without descriptors: one call per product, no
 * allocation, no synchronization, legal during CUDA stream capture. ldb: >= n for a row-major B,
 * >= k for a column-major one; ldc: >= n (row-major C) or >= m (column-major). Scalars and
 * workspace as for spxSpMM (the workspace of spxPlanGetWorkspaceSize serves every n). An n above
 * the bound, a negative n, a short leading dimension, a pointer the device cannot read or that
 * is misaligned for its type: SPX_STATUS_INVALID_VALUE naming it, nothing queued. SpMM plans only.
 */
SPX_API spxStatus_t spxSpMM_execute(spxHandle_t handle, const struct spxPlan* plan, int64_t n,
                                    const void* alpha, const void* B, int64_t ldb,
                                    const void* beta, void* C, int64_t ldc, void* workspace);
/**
 * Fills *info with what an execute with n columns runs: the family, kernel, configuration, route,
 * split and estimates of the decision prepared for n (the size fields are the plan's, as
 * spxPlanGetInfo gives them). n from 1 to the plan's bound (any n >= 1 for max_n -1).
 */
SPX_API spxStatus_t spxPlanGetInfoForN(const struct spxPlan* plan, int64_t n,
                                       spxPlanInfo_t* info);
/**
 * Times the kernel configurations the plan's family can run for this problem (tile shapes,
 * vector widths, splits) on the handle's stream with the given operands and keeps the fastest
 * in the plan, like cusparseLtMatmulSearch. Blocks until the timing is done. On return C holds
 * alpha * A * B + beta * C (C's old values are saved and restored around the timed runs, using a
 * temporary device copy of C). A plan with one candidate just computes the product. Call before
 * sharing the plan between threads: it modifies the plan.
 */
SPX_API spxStatus_t spxSpMM_search(spxHandle_t handle, spxPlan_t plan, const void* alpha,
                                   spxConstSpMatDescr_t A, spxConstDnMatDescr_t B,
                                   const void* beta, spxDnMatDescr_t C, void* workspace);
/**
 * A's values changed and its structure did not: re-packs the plan's copy of the values from
 * A's current values pointer, without structural analysis. Queued on the handle's stream.
 */
SPX_API spxStatus_t spxPlanUpdateValues(spxHandle_t handle, spxPlan_t plan,
                                        spxConstSpMatDescr_t A);
/**
 * Points the SpMM plan's fused epilogue (SPX_PLAN_OPTION_EPILOGUE_BIAS / _SCALE) at a bias and a
 * scale: device arrays of m float (fp32) values, one per row of C, read by every later execute
 * (spxSpMM, spxSpMM_execute, spxSpMM_search, every n). Either may be NULL: no bias / no scale
 * (until set, a plan has neither). Changing them needs no re-analyze. A non-NULL pointer on a
 * plan analyzed without the matching option, or one the device cannot read (host memory of
 * another kind than pinned or managed), or not 4-byte aligned, is SPX_STATUS_INVALID_VALUE and
 * leaves the plan unchanged; so is an SDDMM plan. Host-side only (nothing is queued): executes
 * already queued keep the pointers they were queued with, and the arrays must stay valid until
 * they have run. Modifies the plan: not concurrently with executes of it on other threads.
 */
SPX_API spxStatus_t spxPlanSetEpilogue(spxHandle_t handle, spxPlan_t plan, const void* bias,
                                       const void* scale);
/**
 * The bias and scale pointers the plan's epilogue uses now (NULL where none); either output may
 * be NULL.
 */
SPX_API spxStatus_t spxPlanGetEpilogue(const struct spxPlan* plan, const void** bias,
                                       const void** scale);
/** Fills *info (host struct) with what the plan chose and holds. */
SPX_API spxStatus_t spxPlanGetInfo(const struct spxPlan* plan, spxPlanInfo_t* info);
/**
 * Frees the plan and its device memory. NULL is accepted. Returns without waiting: the memory is
 * released in stream order once the work already queued with this plan (analyze, executes,
 * value updates, on whatever streams) has finished; nothing else on the device is waited for,
 * and the call is legal while other streams are being captured. A CUDA graph that captured an
 * execute of the plan must not be launched after the plan is destroyed.
 */
SPX_API spxStatus_t spxPlanDestroy(spxPlan_t plan);

/* ---------------------------------------------------------------- saving plans */

/*
 * A serialized SpMM plan holds everything an execute needs without the original descriptors:
 * the problem (shapes, types, orders, compute type, the analyze options including max_n,
 * dense_route and tf32, the SPX_* switches analyze read), the family's packed device copy of A
 * (and the dense route's dense copy where the plan holds one), the decision of every prepared n
 * (including configurations picked by spxSpMM_search or SPX_PLAN_OPTION_AUTOTUNE) and the plan
 * info. The bytes begin with a header: magic "SPXPLAN", format version, library version, value
 * types, the GPU the decisions were made for (compute capability, SM count), the payload's
 * length and a 64-bit checksum over header and payload.
 *
 * Another GPU: a plan loads only on a device of the same compute capability, SM count and
 * shared memory per block as the one it was analyzed on (the packed layouts and kernel choices
 * are that GPU's); elsewhere spxPlanDeserialize returns SPX_STATUS_NOT_SUPPORTED and the matrix
 * must be analyzed again. SDDMM plans are not serialized (SPX_STATUS_NOT_SUPPORTED).
 * The checksum detects corrupted or truncated bytes; it is not a signature: load plans only
 * from sources you trust, as you would a library.
 */

/** Bytes spxPlanSerialize writes for this SpMM plan (host pointer *bytes). No device work. */
SPX_API spxStatus_t spxPlanGetSerializedSize(spxHandle_t handle, const struct spxPlan* plan,
                                             size_t* bytes);
/**
 * Writes the plan into the host buffer (buffer_size bytes, at least spxPlanGetSerializedSize:
 * else SPX_STATUS_INVALID_VALUE). Reads the plan's device arrays on the handle's stream and
 * synchronizes it. SDDMM plans: SPX_STATUS_NOT_SUPPORTED.
 */
SPX_API spxStatus_t spxPlanSerialize(spxHandle_t handle, const struct spxPlan* plan, void* buffer,
                                     size_t buffer_size);
/**
 * Makes a plan from bytes spxPlanSerialize wrote, on the handle's device, uploading its arrays
 * on the handle's stream (done on return; the bytes may be freed then). Each prepared n's
 * decision is made again by its family from the stored structure and must equal the stored one.
 * Statuses: SPX_STATUS_INVALID_VALUE for bytes that are not a plan (wrong magic), truncated,
 * corrupted (checksum) or inconsistent (the message names the field); SPX_STATUS_NOT_SUPPORTED
 * for another format version, a plan made on another GPU model, or a decision this device makes
 * differently. *plan (host pointer) is the caller's until spxPlanDestroy; NULL on failure.
 */
SPX_API spxStatus_t spxPlanDeserialize(spxHandle_t handle, const void* bytes, size_t size,
                                       spxPlan_t* plan);

/* ---------------------------------------------------------------- SDDMM */

/**
 * Analyzes C = alpha * (A * B) .* spy(C) + beta * C: A dense m x k, B dense k x n, C sparse
 * m x n in any format (its stored entries are the mask; ELL padding is skipped). Reads C's
 * structure from the device (blocks). Types as for SpMM, with C's value type in the place of
 * the dense output type.
 */
SPX_API spxStatus_t spxSDDMM_analyze(spxHandle_t handle, spxConstDnMatDescr_t A,
                                     spxConstDnMatDescr_t B, spxConstSpMatDescr_t C,
                                     spxDataType_t compute_type, spxSDDMMAlg_t alg,
                                     spxPlan_t* plan);
/** spxSDDMM_analyze with analyze options (see spxSpMM_analyzeWithOptions); options may be NULL. */
SPX_API spxStatus_t spxSDDMM_analyzeWithOptions(spxHandle_t handle, spxConstDnMatDescr_t A,
                                                spxConstDnMatDescr_t B, spxConstSpMatDescr_t C,
                                                spxDataType_t compute_type, spxSDDMMAlg_t alg,
                                                spxConstPlanOptions_t options, spxPlan_t* plan);
/**
 * Runs SDDMM on the handle's stream, asynchronously, writing C's values array in place
 * (C's structure must be the one analyzed). Scalars and workspace as for spxSpMM.
 */
SPX_API spxStatus_t spxSDDMM(spxHandle_t handle, const struct spxPlan* plan, const void* alpha,
                             spxConstDnMatDescr_t A, spxConstDnMatDescr_t B, const void* beta,
                             spxSpMatDescr_t C, void* workspace);

/* ---------------------------------------------------------------- pruning on the device */

/**
 * Prunes a dense rows x cols fp32 matrix in device memory to vector-wise N:M, as
 * spxHostPruneNM does on the host (same result): per group of l rows and window of m columns,
 * the n columns of largest L2 norm over the group (ties: lower column). values[rows x kc] and
 * indices[(rows / l) x kc] (kc = cols / m * n) are caller-allocated device arrays in the
 * spxCreateNM layout. type must be SPX_R_32F. Queued on the handle's stream.
 */
SPX_API spxStatus_t spxPruneNM(spxHandle_t handle, int64_t rows, int64_t cols, const void* dense,
                               int64_t ld, spxOrder_t order, spxDataType_t type, int64_t n,
                               int64_t m, int64_t l, void* values, void* indices);
/**
 * Checks on the device that a dense fp32 matrix's nonzeros fit vector-wise N:M (every group of
 * l rows uses at most n columns of every window of m). *ok (host pointer) = 1 or 0.
 * Blocks until the answer is known.
 */
SPX_API spxStatus_t spxCheckNM(spxHandle_t handle, int64_t rows, int64_t cols, const void* dense,
                               int64_t ld, spxOrder_t order, spxDataType_t type, int64_t n,
                               int64_t m, int64_t l, int* ok);
/**
 * Prunes a dense fp32 matrix in device memory to uniform sparsity (ell_width nonzeros per row)
 * by the column l2 aggregation of the uniform-sparsity paper, as spxHostPruneUniform does
 * (same result). col_ind and values: caller-allocated device arrays, rows x ell_width
 * column-major (the spxCreateEll layout). Queued on the handle's stream.
 */
SPX_API spxStatus_t spxPruneUniform(spxHandle_t handle, int64_t rows, int64_t cols,
                                    const void* dense, int64_t ld, spxOrder_t order,
                                    spxDataType_t type, int64_t ell_width, void* col_ind,
                                    void* values);

#ifdef __cplusplus
}
#endif

#include "spx/spx_host.h"

#endif /* SPX_H */
