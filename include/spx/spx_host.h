/**
 * @file spx_host.h
 * @brief Host-side tools of libspx: read DLMC matrices, convert between formats, prune dense
 * matrices, check patterns, convert value types. Plain CPU code over HOST arrays: no GPU needed.
 * Included by spx.h.
 *
 * Ownership: arrays these calls allocate (the `**` outputs) are owned by the caller and freed
 * with spxHostFree. Arrays the caller passes in are only read, except the documented
 * caller-allocated outputs, which are written in full and nowhere beyond their stated length.
 * Dense inputs are fp32, rows x cols with leading dimension ld in the given order.
 * Every call is synchronous and thread-safe.
 */
#ifndef SPX_HOST_H
#define SPX_HOST_H

#include "spx/spx_types.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Frees an array allocated by an spxHost* call. NULL is accepted. */
SPX_API void spxHostFree(void* ptr);

/**
 * Reads a DLMC `.smtx` file (line 1 "rows, cols, nnz"; line 2 rows+1 offsets; line 3 nnz
 * column indices) into CSR structure. Returns SPX_STATUS_IO_ERROR if the file cannot be read
 * or is malformed (the message says where). *row_ptr and *col_ind: allocated, caller frees.
 */
SPX_API spxStatus_t spxHostReadSmtx(const char* path, int64_t* rows, int64_t* cols, int64_t* nnz,
                                    int32_t** row_ptr, int32_t** col_ind);

/**
 * Dilates a CSR structure to V x 1 vectors: row i becomes rows i*V .. i*V+V-1, each with row
 * i's columns. Outputs the CSR structure of the (rows * vec_len) x cols matrix
 * (*out_row_ptr of rows*vec_len+1, *out_col_ind of nnz*vec_len; allocated, caller frees).
 * The BCRS(V) form of the same matrix is the input structure itself. Column indices must lie
 * in [0, cols), row_ptr must start at 0 and not decrease (else SPX_STATUS_INVALID_VALUE).
 */
SPX_API spxStatus_t spxHostDilateCsr(int64_t rows, int64_t cols, const int32_t* row_ptr,
                                     const int32_t* col_ind, int64_t vec_len, int32_t** out_row_ptr,
                                     int32_t** out_col_ind);

/**
 * Dense -> CSR keeping every nonzero. *row_ptr (rows+1), *col_ind, *values (nnz fp32):
 * allocated, caller frees.
 */
SPX_API spxStatus_t spxHostDenseToCsr(int64_t rows, int64_t cols, const float* dense, int64_t ld,
                                      spxOrder_t order, int64_t* nnz, int32_t** row_ptr,
                                      int32_t** col_ind, float** values);

/**
 * Dense -> BCRS(V): a V x 1 vector is stored when any of its values is nonzero. rows % vec_len
 * == 0. *block_row_ptr (rows/vec_len+1), *block_col (num_vectors), *values
 * (num_vectors*vec_len fp32, vector-contiguous): allocated, caller frees.
 */
SPX_API spxStatus_t spxHostDenseToBcrs(int64_t rows, int64_t cols, const float* dense, int64_t ld,
                                       spxOrder_t order, int64_t vec_len, int64_t* num_vectors,
                                       int32_t** block_row_ptr, int32_t** block_col,
                                       float** values);

/**
 * Prunes dense to vector-wise N:M by magnitude: for every group of l rows and window of m
 * columns, keeps the n columns with the largest L2 norm over the group's rows (ties: lower
 * column first). Caller-allocated outputs in the spxCreateNM layout: values[rows x kc]
 * row-major, indices[(rows/l) x kc] row-major, kc = cols / m * n.
 */
SPX_API spxStatus_t spxHostPruneNM(int64_t rows, int64_t cols, const float* dense, int64_t ld,
                                   spxOrder_t order, int64_t n, int64_t m, int64_t l,
                                   float* values, int32_t* indices);

/**
 * Prunes dense to uniform sparsity (ell_width nonzeros in every row) by the column l2
 * aggregation of the uniform-sparsity paper. Caller-allocated outputs in the spxCreateEll
 * layout: col_ind and values rows x ell_width, column-major; columns increasing in a row.
 */
SPX_API spxStatus_t spxHostPruneUniform(int64_t rows, int64_t cols, const float* dense, int64_t ld,
                                        spxOrder_t order, int64_t ell_width, int32_t* col_ind,
                                        float* values);

/**
 * CSR (fp32 values) -> ELL: ell_width = the longest row; shorter rows padded with col -1 and
 * value 0; each row's entries sorted by column. Column indices must lie in [0, cols).
 * *ell_col_ind, *ell_values (rows x ell_width column-major): allocated, caller frees.
 */
SPX_API spxStatus_t spxHostCsrToEll(int64_t rows, int64_t cols, const int32_t* row_ptr,
                                    const int32_t* col_ind, const float* values, int64_t* ell_width, int32_t** ell_col_ind,
                                    float** ell_values);

/**
 * Checks that the nonzeros of a dense matrix fit vector-wise N:M (every group of l rows uses
 * at most n columns of every window of m). *ok = 1 if they do, 0 if not (host pointer).
 */
SPX_API spxStatus_t spxHostCheckNM(int64_t rows, int64_t cols, const float* dense, int64_t ld,
                                   spxOrder_t order, int64_t n, int64_t m, int64_t l, int* ok);

/** Checks that no row of a dense matrix has more than ell_width nonzeros. *ok = 1 or 0. */
SPX_API spxStatus_t spxHostCheckUniform(int64_t rows, int64_t cols, const float* dense,
                                        int64_t ld, spxOrder_t order, int64_t ell_width, int* ok);

/**
 * Converts count fp32 values to `type` (round to nearest even for 16F/16BF; round to nearest
 * and saturate for integer types; 4-bit types packed two per byte, low nibble first, so dst
 * holds ceil(count / 2) bytes). dst is caller-allocated host memory.
 */
SPX_API spxStatus_t spxHostConvertValues(int64_t count, const float* src, spxDataType_t type,
                                         void* dst);

/**
 * The SR-BCRS values layout (spxValuesLayout_t, SPX_VALUES_LAYOUT_SRBCRS) of a BCRS(V) structure
 * with vector_rows = rows / V vector-rows (CSR: V = 1, its row_ptr and rows): writes
 * slot_ptr[vector_rows + 1] (caller-allocated), slot_ptr[i] = the first vector slot of vector-row
 * i, every vector-row padded to whole strides of 32 slots; slot_ptr[vector_rows] = all slots, so
 * the layout's values array holds slot_ptr[vector_rows] * vec_len elements. block_row_ptr (host,
 * vector_rows + 1 entries) must start at 0 and not decrease (SPX_STATUS_INVALID_VALUE);
 * SPX_STATUS_NOT_SUPPORTED when the element count exceeds int32.
 */
SPX_API spxStatus_t spxHostSrbcrsSlotPtr(int64_t vector_rows, const int32_t* block_row_ptr,
                                         int64_t vec_len, int32_t* slot_ptr);

/** Bytes that `count` elements of `type` occupy (4-bit types: rounded up to whole bytes). */
SPX_API size_t spxHostSizeOf(spxDataType_t type, int64_t count);

#ifdef __cplusplus
}
#endif

#endif /* SPX_HOST_H */
