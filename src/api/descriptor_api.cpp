// Dense and sparse descriptors: they wrap caller-owned device pointers and never touch the data.
#include <memory>

#include "runtime/objects.hpp"
#include "api/validate.hpp"

namespace {

void check_sparse(spxConstSpMatDescr_t d) { spx::validate::not_null(d, "the sparse descriptor"); }

/// Called only after every check passed: on failure *out stays NULL.
template <class Fill>
void create_sparse(spxSpMatDescr_t* out, Fill&& fill) {
  auto d = std::make_unique<spxSpMatDescr>();
  fill(*d);
  *out = d.release();
}

}  // namespace

extern "C" {

spxStatus_t spxCreateDnMat(spxDnMatDescr_t* descr, int64_t rows, int64_t cols, int64_t ld,
                           void* values, spxDataType_t type, spxOrder_t order) {
  return spx::guard("spxCreateDnMat", [&] {
    spx::validate::not_null(descr, "descr (output pointer)");
    *descr = nullptr;
    spx::validate::dense_create(rows, cols, ld, values, type, order);
    *descr = new spxDnMatDescr{rows, cols, ld, values, type, order};
  });
}

spxStatus_t spxDestroyDnMat(spxConstDnMatDescr_t descr) {
  return spx::guard("spxDestroyDnMat", [&] { delete descr; });
}

spxStatus_t spxDnMatGet(spxConstDnMatDescr_t descr, int64_t* rows, int64_t* cols, int64_t* ld,
                        void** values, spxDataType_t* type, spxOrder_t* order) {
  return spx::guard("spxDnMatGet", [&] {
    spx::validate::not_null(descr, "the dense descriptor");
    if (rows) *rows = descr->rows;
    if (cols) *cols = descr->cols;
    if (ld) *ld = descr->ld;
    if (values) *values = descr->values;
    if (type) *type = descr->type;
    if (order) *order = descr->order;
  });
}

spxStatus_t spxDnMatSetValues(spxDnMatDescr_t descr, void* values) {
  return spx::guard("spxDnMatSetValues", [&] {
    spx::validate::not_null(descr, "the dense descriptor");
    SPX_CHECK_ARG(descr->rows == 0 || descr->cols == 0 || values != nullptr,
                  "values is NULL for a non-empty matrix");
    descr->values = values;
  });
}

spxStatus_t spxCreateCsr(spxSpMatDescr_t* descr, int64_t rows, int64_t cols, int64_t nnz,
                         void* row_ptr, void* col_ind, void* values, spxDataType_t type) {
  return spx::guard("spxCreateCsr", [&] {
    spx::validate::not_null(descr, "descr (output pointer)");
    *descr = nullptr;
    spx::validate::csr_create(rows, cols, nnz, row_ptr, col_ind, values, type);
    create_sparse(descr, [&](spxSpMatDescr& d) {
      d.format = SPX_FORMAT_CSR;
      d.type = type;
      d.rows = rows;
      d.cols = cols;
      d.nnz = nnz;
      d.ptr = row_ptr;
      d.idx = col_ind;
      d.values = values;
    });
  });
}

spxStatus_t spxCreateBcrs(spxSpMatDescr_t* descr, int64_t rows, int64_t cols, int64_t vec_len,
                          int64_t num_vectors, void* block_row_ptr, void* block_col, void* values,
                          spxDataType_t type) {
  return spx::guard("spxCreateBcrs", [&] {
    spx::validate::not_null(descr, "descr (output pointer)");
    *descr = nullptr;
    spx::validate::bcrs_create(rows, cols, vec_len, num_vectors, block_row_ptr, block_col, values,
                               type);
    create_sparse(descr, [&](spxSpMatDescr& d) {
      d.format = SPX_FORMAT_BCRS;
      d.type = type;
      d.rows = rows;
      d.cols = cols;
      d.nnz = num_vectors;
      d.vec_len = vec_len;
      d.ptr = block_row_ptr;
      d.idx = block_col;
      d.values = values;
    });
  });
}

spxStatus_t spxCreateNM(spxSpMatDescr_t* descr, int64_t rows, int64_t cols, int64_t n, int64_t m,
                        int64_t l, void* values, void* indices, spxDataType_t type) {
  return spx::guard("spxCreateNM", [&] {
    spx::validate::not_null(descr, "descr (output pointer)");
    *descr = nullptr;
    spx::validate::nm_create(rows, cols, n, m, l, values, indices, type);
    create_sparse(descr, [&](spxSpMatDescr& d) {
      d.format = SPX_FORMAT_NM;
      d.type = type;
      d.rows = rows;
      d.cols = cols;
      d.n = n;
      d.m = m;
      d.l = l;
      d.nnz = rows * (cols / m * n);
      d.idx = indices;
      d.values = values;
    });
  });
}

spxStatus_t spxCreateEll(spxSpMatDescr_t* descr, int64_t rows, int64_t cols, int64_t ell_width,
                         void* col_ind, void* values, spxDataType_t type) {
  return spx::guard("spxCreateEll", [&] {
    spx::validate::not_null(descr, "descr (output pointer)");
    *descr = nullptr;
    spx::validate::ell_create(rows, cols, ell_width, col_ind, values, type);
    create_sparse(descr, [&](spxSpMatDescr& d) {
      d.format = SPX_FORMAT_ELL;
      d.type = type;
      d.rows = rows;
      d.cols = cols;
      d.ell_width = ell_width;
      d.nnz = rows * ell_width;
      d.idx = col_ind;
      d.values = values;
    });
  });
}

spxStatus_t spxDestroySpMat(spxConstSpMatDescr_t descr) {
  return spx::guard("spxDestroySpMat", [&] { delete descr; });
}

spxStatus_t spxSpMatGetSize(spxConstSpMatDescr_t descr, int64_t* rows, int64_t* cols,
                            int64_t* nnz) {
  return spx::guard("spxSpMatGetSize", [&] {
    check_sparse(descr);
    if (rows) *rows = descr->rows;
    if (cols) *cols = descr->cols;
    if (nnz) *nnz = descr->value_slots();
  });
}

spxStatus_t spxSpMatGetFormat(spxConstSpMatDescr_t descr, spxFormat_t* format) {
  return spx::guard("spxSpMatGetFormat", [&] {
    check_sparse(descr);
    spx::validate::not_null(format, "format (output pointer)");
    *format = descr->format;
  });
}

spxStatus_t spxSpMatGetValueType(spxConstSpMatDescr_t descr, spxDataType_t* type) {
  return spx::guard("spxSpMatGetValueType", [&] {
    check_sparse(descr);
    spx::validate::not_null(type, "type (output pointer)");
    *type = descr->type;
  });
}

spxStatus_t spxSpMatSetValues(spxSpMatDescr_t descr, void* values) {
  return spx::guard("spxSpMatSetValues", [&] {
    check_sparse(descr);
    SPX_CHECK_ARG(descr->value_slots() == 0 || values != nullptr,
                  "values is NULL for a matrix with %lld stored values",
                  static_cast<long long>(descr->value_slots()));
    descr->values = values;
  });
}

}  // extern "C"
