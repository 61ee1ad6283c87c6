#include "api/validate.hpp"

#include <limits>

#include "runtime/dtype.hpp"

namespace spx::validate {
namespace {

constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();

const char* order_name(spxOrder_t o) { return o == SPX_ORDER_ROW ? "row" : "column"; }

/// Sparse value types a user may hand in (32I is accepted too: it is an SDDMM output type).
void sparse_value_type(spxDataType_t t) { data_type(t, "the sparse value type"); }

}  // namespace

void fits_bytes(int64_t count_a, int64_t count_b, spxDataType_t type, const char* what) {
  const int64_t elem = dtype::bits(type) >= 8 ? dtype::bits(type) / 8 : 1;
  const bool fits = count_a == 0 || count_b == 0 ||
                    (count_a <= INT64_MAX / count_b && count_a * count_b <= INT64_MAX / 8 / elem);
  SPX_CHECK_ARG(fits, "%s (%lld x %lld elements of %s) overflows a 64-bit byte size", what,
                static_cast<long long>(count_a), static_cast<long long>(count_b),
                dtype::name(type));
}

void handle(const spxContext* h) { SPX_CHECK_ARG(h != nullptr, "handle is NULL"); }

void data_type(spxDataType_t t, const char* what) {
  SPX_CHECK_ARG(dtype::is_valid(t), "%s (%d) is not a valid spxDataType_t", what, static_cast<int>(t));
}

void order(spxOrder_t o, const char* what) {
  SPX_CHECK_ARG(o == SPX_ORDER_ROW || o == SPX_ORDER_COL, "%s (%d) is not a valid spxOrder_t",
                what, static_cast<int>(o));
}

void not_null(const void* p, const char* what) { SPX_CHECK_ARG(p != nullptr, "%s is NULL", what); }

void non_negative(int64_t v, const char* what) {
  SPX_CHECK_ARG(v >= 0, "%s (%lld) must be >= 0", what, static_cast<long long>(v));
}

void positive(int64_t v, const char* what) {
  SPX_CHECK_ARG(v >= 1, "%s (%lld) must be >= 1", what, static_cast<long long>(v));
}

void dense_input(int64_t rows, int64_t cols, const void* dense, int64_t ld, spxOrder_t o) {
  non_negative(rows, "rows");
  non_negative(cols, "cols");
  SPX_CHECK_ARG(rows <= kInt32Max - 1 && cols <= kInt32Max,
                "the shape %lld x %lld does not fit the int32 indices", static_cast<long long>(rows),
                static_cast<long long>(cols));
  order(o, "order");
  const bool row_major = o == SPX_ORDER_ROW;
  const int64_t line = row_major ? cols : rows;   // elements of one row / column
  const int64_t lines = row_major ? rows : cols;  // number of rows / columns
  const int64_t min_ld = line > 1 ? line : 1;
  SPX_CHECK_ARG(ld >= min_ld, "ld (%lld) must be >= %lld for a %lld x %lld %s-major matrix",
                static_cast<long long>(ld), static_cast<long long>(min_ld),
                static_cast<long long>(rows), static_cast<long long>(cols), order_name(o));
  SPX_CHECK_ARG(lines <= 1 || ld <= INT64_MAX / lines, "ld (%lld) times %lld overflows int64",
                static_cast<long long>(ld), static_cast<long long>(lines));
  SPX_CHECK_ARG(rows == 0 || cols == 0 || dense != nullptr,
                "dense is NULL for a non-empty %lld x %lld matrix", static_cast<long long>(rows),
                static_cast<long long>(cols));
}

void nm_parameters(int64_t rows, int64_t cols, int64_t n, int64_t m, int64_t l) {
  using ll = long long;
  positive(n, "N");
  positive(m, "M");
  positive(l, "L");
  SPX_CHECK_ARG(n <= m, "N (%lld) must be <= M (%lld)", ll(n), ll(m));
  SPX_CHECK_ARG(cols % m == 0, "cols (%lld) must be a multiple of M (%lld)", ll(cols), ll(m));
  SPX_CHECK_ARG(rows % l == 0, "rows (%lld) must be a multiple of L (%lld)", ll(rows), ll(l));
}

void dense_create(int64_t rows, int64_t cols, int64_t ld, const void* values, spxDataType_t type,
                  spxOrder_t ord) {
  data_type(type, "the dense value type");
  order(ord, "the dense order");
  non_negative(rows, "rows");
  non_negative(cols, "cols");
  const int64_t row_len = ord == SPX_ORDER_ROW ? cols : rows;
  const int64_t min_ld = row_len > 1 ? row_len : 1;
  SPX_CHECK_ARG(ld >= min_ld, "ld (%lld) must be >= %lld for a %lld x %lld %s-major matrix",
                static_cast<long long>(ld), static_cast<long long>(min_ld),
                static_cast<long long>(rows), static_cast<long long>(cols), order_name(ord));
  fits_bytes(ord == SPX_ORDER_ROW ? rows : cols, ld, type, "the dense matrix's storage (ld x lines)");
  SPX_CHECK_ARG(dtype::bits(type) != 4 || ld % 2 == 0,
                "ld (%lld) must be even for a 4-bit type so every %s starts on a byte",
                static_cast<long long>(ld), ord == SPX_ORDER_ROW ? "row" : "column");
  SPX_CHECK_ARG(rows == 0 || cols == 0 || values != nullptr,
                "values is NULL for a non-empty %lld x %lld matrix", static_cast<long long>(rows),
                static_cast<long long>(cols));
}

void csr_create(int64_t rows, int64_t cols, int64_t nnz, const void* row_ptr, const void* col_ind,
                const void* values, spxDataType_t type) {
  sparse_value_type(type);
  non_negative(rows, "rows");
  non_negative(cols, "cols");
  non_negative(nnz, "nnz");
  SPX_CHECK_ARG(rows <= kInt32Max - 1 && nnz <= kInt32Max,
                "rows (%lld) and nnz (%lld) must fit the int32 row pointers",
                static_cast<long long>(rows), static_cast<long long>(nnz));
  SPX_CHECK_ARG(rows == 0 || row_ptr != nullptr, "row_ptr is NULL");
  SPX_CHECK_ARG(nnz == 0 || col_ind != nullptr, "col_ind is NULL while nnz is %lld",
                static_cast<long long>(nnz));
  SPX_CHECK_ARG(nnz == 0 || values != nullptr, "values is NULL while nnz is %lld",
                static_cast<long long>(nnz));
}

void bcrs_create(int64_t rows, int64_t cols, int64_t vec_len, int64_t num_vectors,
                 const void* block_row_ptr, const void* block_col, const void* values,
                 spxDataType_t type) {
  sparse_value_type(type);
  non_negative(rows, "rows");
  non_negative(cols, "cols");
  SPX_CHECK_ARG(vec_len >= 1, "vec_len (%lld) must be >= 1", static_cast<long long>(vec_len));
  SPX_CHECK_ARG(rows % vec_len == 0, "rows (%lld) must be a multiple of vec_len (%lld)",
                static_cast<long long>(rows), static_cast<long long>(vec_len));
  non_negative(num_vectors, "num_vectors");
  SPX_CHECK_ARG(num_vectors <= kInt32Max && num_vectors <= INT64_MAX / vec_len,
                "num_vectors (%lld) must fit the int32 block row pointers",
                static_cast<long long>(num_vectors));
  fits_bytes(num_vectors, vec_len, type, "the BCRS values (num_vectors x vec_len)");
  SPX_CHECK_ARG(rows == 0 || block_row_ptr != nullptr, "block_row_ptr is NULL");
  SPX_CHECK_ARG(num_vectors == 0 || block_col != nullptr, "block_col is NULL while num_vectors is %lld",
                static_cast<long long>(num_vectors));
  SPX_CHECK_ARG(num_vectors == 0 || values != nullptr, "values is NULL while num_vectors is %lld",
                static_cast<long long>(num_vectors));
}

void nm_create(int64_t rows, int64_t cols, int64_t n, int64_t m, int64_t l, const void* values,
               const void* indices, spxDataType_t type) {
  sparse_value_type(type);
  non_negative(rows, "rows");
  non_negative(cols, "cols");
  SPX_CHECK_ARG(m >= 1, "M (%lld) must be >= 1", static_cast<long long>(m));
  SPX_CHECK_ARG(n >= 1, "N (%lld) must be >= 1", static_cast<long long>(n));
  SPX_CHECK_ARG(n <= m, "N (%lld) must be <= M (%lld)", static_cast<long long>(n),
                static_cast<long long>(m));
  SPX_CHECK_ARG(l >= 1, "L (%lld) must be >= 1", static_cast<long long>(l));
  SPX_CHECK_ARG(cols % m == 0, "cols (%lld) must be a multiple of M (%lld)",
                static_cast<long long>(cols), static_cast<long long>(m));
  SPX_CHECK_ARG(rows % l == 0, "rows (%lld) must be a multiple of L (%lld)",
                static_cast<long long>(rows), static_cast<long long>(l));
  fits_bytes(rows, cols / m * n, type, "the N:M values (rows x cols / M x N)");
  const bool empty = rows == 0 || cols == 0;
  SPX_CHECK_ARG(empty || values != nullptr, "values is NULL for a non-empty N:M matrix");
  SPX_CHECK_ARG(empty || indices != nullptr, "indices is NULL for a non-empty N:M matrix");
}

void ell_create(int64_t rows, int64_t cols, int64_t ell_width, const void* col_ind,
                const void* values, spxDataType_t type) {
  sparse_value_type(type);
  non_negative(rows, "rows");
  non_negative(cols, "cols");
  non_negative(ell_width, "ell_width");
  SPX_CHECK_ARG(ell_width <= cols, "ell_width (%lld) must be <= cols (%lld)",
                static_cast<long long>(ell_width), static_cast<long long>(cols));
  fits_bytes(rows, ell_width, SPX_R_32I, "the ELL arrays (rows x ell_width)");
  const bool empty = rows == 0 || ell_width == 0;
  SPX_CHECK_ARG(empty || col_ind != nullptr, "col_ind is NULL for a non-empty ELL matrix");
  SPX_CHECK_ARG(empty || values != nullptr, "values is NULL for a non-empty ELL matrix");
}

void product_types(spxDataType_t a, spxDataType_t b, spxDataType_t c, spxDataType_t compute) {
  data_type(compute, "compute_type");
  const bool a_float = dtype::is_float(a), b_float = dtype::is_float(b);
  SPX_CHECK_ARG(a_float == b_float, "A is %s but B is %s: both must be floating point or both integer",
                dtype::name(a), dtype::name(b));
  if (a_float) {
    SPX_CHECK_ARG(compute == SPX_R_32F, "compute_type must be 32F for floating-point inputs, not %s",
                  dtype::name(compute));
    SPX_EXPECTS(a == b, SPX_STATUS_NOT_SUPPORTED,
                "floating-point A (%s) and B (%s) must have the same type", dtype::name(a),
                dtype::name(b));
    SPX_EXPECTS(c == a || c == SPX_R_32F, SPX_STATUS_NOT_SUPPORTED,
                "the output of %s inputs must be %s or 32F, not %s", dtype::name(a), dtype::name(a),
                dtype::name(c));
    return;
  }
  SPX_CHECK_ARG(compute == SPX_R_32I, "compute_type must be 32I for integer inputs, not %s",
                dtype::name(compute));
  SPX_EXPECTS(a != SPX_R_32I && b != SPX_R_32I, SPX_STATUS_NOT_SUPPORTED,
              "32I is an output type only; inputs may be 8I, 4I, 16I, 8U or 4U");
  SPX_EXPECTS(c == SPX_R_32I || c == SPX_R_32F || c == SPX_R_16F, SPX_STATUS_NOT_SUPPORTED,
              "the output of integer inputs must be 32I, 32F or 16F, not %s", dtype::name(c));
}

namespace {

/// A (a_rows x a_cols) * B (b_rows x b_cols) must give C (c_rows x c_cols), C not 4-bit.
void product_shapes(int64_t a_rows, int64_t a_cols, int64_t b_rows, int64_t b_cols,
                    int64_t c_rows, int64_t c_cols, spxDataType_t c_type) {
  SPX_CHECK_ARG(a_cols == b_rows, "A has %lld columns but B has %lld rows",
                static_cast<long long>(a_cols), static_cast<long long>(b_rows));
  SPX_CHECK_ARG(a_rows == c_rows, "A has %lld rows but C has %lld rows",
                static_cast<long long>(a_rows), static_cast<long long>(c_rows));
  SPX_CHECK_ARG(b_cols == c_cols, "B has %lld columns but C has %lld columns",
                static_cast<long long>(b_cols), static_cast<long long>(c_cols));
  SPX_CHECK_ARG(dtype::bits(c_type) != 4, "the output C cannot have a 4-bit type (%s)",
                dtype::name(c_type));
}

}  // namespace

void spmm_shapes(const spxSpMatDescr& A, const spxDnMatDescr& B, const spxDnMatDescr& C) {
  product_shapes(A.rows, A.cols, B.rows, B.cols, C.rows, C.cols, C.type);
}

void sddmm_shapes(const spxDnMatDescr& A, const spxDnMatDescr& B, const spxSpMatDescr& C) {
  product_shapes(A.rows, A.cols, B.rows, B.cols, C.rows, C.cols, C.type);
}

void matches_plan(const spxPlan& plan, Operation op, const spxSpMatDescr& sparse,
                  const spxDnMatDescr& dense_in, const spxDnMatDescr& dense_out) {
  const char* op_name = op == Operation::SpMM ? "SpMM" : "SDDMM";
  SPX_CHECK_ARG(plan.op == op, "the plan was analyzed for %s, not %s",
                plan.op == Operation::SpMM ? "SpMM" : "SDDMM", op_name);
  SPX_CHECK_ARG(SparseSignature::of(sparse) == plan.sparse,
                "the sparse matrix differs in format, shape, nnz or type from the one analyzed");
  if (op == Operation::SDDMM) {
    SPX_CHECK_ARG(DenseSignature::of(dense_in) == plan.dense_in,
                  "the first dense operand differs in shape, type or order from the one analyzed");
    SPX_CHECK_ARG(DenseSignature::of(dense_out) == plan.dense_out,
                  "the second dense operand differs in shape, type or order from the one analyzed");
    return;
  }
  // SpMM: B and C keep their rows, types and orders; n (their columns) may be any up to the bound.
  DenseSignature b = DenseSignature::of(dense_in), c = DenseSignature::of(dense_out);
  SPX_CHECK_ARG(b.cols == c.cols, "B has %lld columns but C has %lld columns",
                static_cast<long long>(b.cols), static_cast<long long>(c.cols));
  columns_within_bound(plan, b.cols);
  b.cols = plan.dense_in.cols;
  c.cols = plan.dense_out.cols;
  SPX_CHECK_ARG(b == plan.dense_in,
                "B differs in rows, type or order from the B the plan was analyzed with");
  SPX_CHECK_ARG(c == plan.dense_out,
                "C differs in rows, type or order from the C the plan was analyzed with");
}

void columns_within_bound(const spxPlan& plan, int64_t n) {
  SPX_CHECK_ARG(n >= 0, "n (%lld) is negative", static_cast<long long>(n));
  SPX_CHECK_ARG(plan.max_n < 0 || n <= plan.max_n,
                "n (%lld columns of B and C) is above the plan's bound of %lld (analyze with "
                "SPX_PLAN_OPTION_MAX_N to raise it, -1 for any n)",
                static_cast<long long>(n), static_cast<long long>(plan.max_n));
}

void execution(const spxContext& h, const spxPlan& plan, const void* alpha, const void* beta,
               const void* workspace) {
  not_null(alpha, "alpha");
  not_null(beta, "beta");
  SPX_CHECK_ARG(plan.info.workspace_bytes == 0 || workspace != nullptr,
                "workspace is NULL but the plan needs %zu bytes", plan.info.workspace_bytes);
  SPX_CHECK_ARG(plan.device == h.device,
                "the plan was analyzed on device %d but the handle is on device %d", plan.device,
                h.device);
}

}  // namespace spx::validate
