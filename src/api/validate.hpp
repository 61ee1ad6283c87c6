// Argument checks shared by the C entry points. Each throws spx::Error with the exact status
// and a one-sentence message; they read only host-side descriptor fields, never device data,
// so they run (and are tested) without a GPU. Checks run in a fixed order: handle, descriptor
// pointers, enums, sizes, shapes, types.
#pragma once

#include "runtime/objects.hpp"

namespace spx::validate {

void handle(const spxContext* h);
void data_type(spxDataType_t t, const char* what);
/// count_a x count_b elements of `type` must have a byte size that fits int64 (an overflow would
/// allocate or address a wrong size): else INVALID_VALUE naming `what`.
void fits_bytes(int64_t count_a, int64_t count_b, spxDataType_t type, const char* what);
void order(spxOrder_t o, const char* what);
void not_null(const void* p, const char* what);
/// "<what> (v) must be >= 0" / ">= 1" as INVALID_VALUE.
void non_negative(int64_t v, const char* what);
void positive(int64_t v, const char* what);

void dense_create(int64_t rows, int64_t cols, int64_t ld, const void* values, spxDataType_t type,
                  spxOrder_t order);
void csr_create(int64_t rows, int64_t cols, int64_t nnz, const void* row_ptr, const void* col_ind,
                const void* values, spxDataType_t type);
void bcrs_create(int64_t rows, int64_t cols, int64_t vec_len, int64_t num_vectors,
                 const void* block_row_ptr, const void* block_col, const void* values,
                 spxDataType_t type);
void nm_create(int64_t rows, int64_t cols, int64_t n, int64_t m, int64_t l, const void* values,
               const void* indices, spxDataType_t type);
void ell_create(int64_t rows, int64_t cols, int64_t ell_width, const void* col_ind,
                const void* values, spxDataType_t type);

/// A dense input matrix of the host tools and the device pruning calls (rows x cols, `order`,
/// leading dimension `ld`): sizes non-negative and within the int32 indices of the sparse
/// outputs, a valid order, ld covering a row (row-major) or a column (column-major) without
/// overflowing int64, and a non-NULL pointer unless the matrix is empty. Element type not checked.
void dense_input(int64_t rows, int64_t cols, const void* dense, int64_t ld, spxOrder_t order);

/// Vector-wise N:M parameters of a rows x cols matrix (pruning and pattern checks): N, M, L
/// positive, N <= M, cols a multiple of M, rows a multiple of L — in that order.
void nm_parameters(int64_t rows, int64_t cols, int64_t n, int64_t m, int64_t l);

/// Types of C = A * B (SpMM: a = A's values, b = B, c = C; SDDMM: a = A, b = B, c = C's values).
/// INVALID_VALUE: a/b from different families or compute_type not 32F (float) / 32I (integer).
/// NOT_SUPPORTED: any other combination outside the table in spx.h.
void product_types(spxDataType_t a, spxDataType_t b, spxDataType_t c, spxDataType_t compute_type);

/// Shapes of SpMM: A m x k, B k x n, C m x n.
void spmm_shapes(const spxSpMatDescr& A, const spxDnMatDescr& B, const spxDnMatDescr& C);
/// Shapes of SDDMM: A m x k, B k x n, C (sparse) m x n.
void sddmm_shapes(const spxDnMatDescr& A, const spxDnMatDescr& B, const spxSpMatDescr& C);

/// An SpMM plan takes n columns: 0 <= n <= its bound (any n for max_n -1).
void columns_within_bound(const spxPlan& plan, int64_t n);
/// Execute-time: the operands match what the plan was analyzed for (SpMM: any n within the bound).
void matches_plan(const spxPlan& plan, Operation op, const spxSpMatDescr& sparse,
                  const spxDnMatDescr& dense_in, const spxDnMatDescr& dense_out);

/// Execute-time checks shared by spxSpMM and spxSDDMM: scalars present, workspace large enough
/// to exist, plan and handle on the same device.
void execution(const spxContext& h, const spxPlan& plan, const void* alpha, const void* beta,
               const void* workspace);

}  // namespace spx::validate
