// The host tools of spx_host.h: thin C entry points over src/planning. Each checks its arguments
// in a fixed order (output pointers, sizes, enums, leading dimension, input pointers, pattern
// parameters), runs the planning function, and only then allocates and writes the outputs, so a
// failed call leaves every output untouched. Arrays handed to the caller come from std::malloc
// (spxHostFree is std::free); an empty array is still a valid, non-NULL, 1-byte allocation.
#include <algorithm>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "api/validate.hpp"
#include "runtime/dtype.hpp"
#include "runtime/error.hpp"
#include "formats/check_pattern.hpp"
#include "formats/convert_values.hpp"
#include "formats/csr_to_ell.hpp"
#include "formats/dense_to_bcrs.hpp"
#include "formats/dense_to_csr.hpp"
#include "formats/dense_view.hpp"
#include "formats/dilate.hpp"
#include "formats/prune_nm.hpp"
#include "formats/prune_uniform.hpp"
#include "formats/smtx.hpp"
#include "families/srbcrs/plan/sddmm.hpp"
#include "spx/spx.h"

namespace {

using ll = long long;
constexpr int64_t kInt32Max = INT32_MAX;

using spx::validate::non_negative;
using spx::validate::not_null;
using spx::validate::positive;

// Checks a dense fp32 input and returns its view. The shape must fit the int32 indices the
// sparse outputs use; ld must cover a row (row-major) or a column (column-major).
spx::plan::DenseView dense_input(int64_t rows, int64_t cols, const float* dense, int64_t ld,
                                 spxOrder_t order) {
  spx::validate::dense_input(rows, cols, dense, ld, order);
  spx::plan::DenseView view;
  view.rows = rows;
  view.cols = cols;
  view.ld = ld;
  view.data = dense;
  view.order = order;
  return view;
}

// Owns malloc'd output arrays until every one of them exists, then hands them all over.
class Outputs {
 public:
  ~Outputs() {
    for (void* p : owned_) std::free(p);
  }

  template <class T>
  T* copy(const std::vector<T>& v) {
    const size_t bytes = v.size() * sizeof(T);
    void* p = std::malloc(bytes > 0 ? bytes : 1);
    if (p == nullptr) throw std::bad_alloc();
    owned_.push_back(p);
    if (bytes > 0) std::memcpy(p, v.data(), bytes);
    return static_cast<T*>(p);
  }

  void release() { owned_.clear(); }

 private:
  std::vector<void*> owned_;
};

template <class T>
void copy_into(const std::vector<T>& v, T* dst) {
  if (!v.empty()) std::memcpy(dst, v.data(), v.size() * sizeof(T));
}

}  // namespace

extern "C" {

void spxHostFree(void* ptr) {
  std::free(ptr);
}

spxStatus_t spxHostReadSmtx(const char* path, int64_t* rows, int64_t* cols, int64_t* nnz,
                            int32_t** row_ptr, int32_t** col_ind) {
  return spx::guard("spxHostReadSmtx", [&] {
    not_null(path, "path");
    not_null(rows, "rows");
    not_null(cols, "cols");
    not_null(nnz, "nnz");
    not_null(row_ptr, "row_ptr");
    not_null(col_ind, "col_ind");
    const spx::plan::CsrPattern csr = spx::plan::read_smtx(path);
    Outputs out;
    int32_t* rp = out.copy(csr.row_ptr);
    int32_t* ci = out.copy(csr.col_ind);
    out.release();
    *rows = csr.rows;
    *cols = csr.cols;
    *nnz = static_cast<int64_t>(csr.col_ind.size());
    *row_ptr = rp;
    *col_ind = ci;
  });
}

spxStatus_t spxHostDilateCsr(int64_t rows, int64_t cols, const int32_t* row_ptr,
                             const int32_t* col_ind, int64_t vec_len, int32_t** out_row_ptr, int32_t** out_col_ind) {
  return spx::guard("spxHostDilateCsr", [&] {
    not_null(out_row_ptr, "out_row_ptr");
    not_null(out_col_ind, "out_col_ind");
    non_negative(rows, "rows");
    non_negative(cols, "cols");
    SPX_CHECK_ARG(rows <= kInt32Max - 1, "rows (%lld) does not fit the int32 row pointers",
                  ll(rows));
    positive(vec_len, "vec_len");
    not_null(row_ptr, "row_ptr");
    // row_ptr[rows] is the entry count; it is validated with the rest of row_ptr below, but a
    // negative count must not reach the NULL test.
    SPX_CHECK_ARG(row_ptr[rows] <= 0 || col_ind != nullptr, "col_ind is NULL while nnz is %d",
                  row_ptr[rows]);
    const spx::plan::CsrPattern csr = spx::plan::dilate_csr(rows, cols, row_ptr, col_ind, vec_len);
    Outputs out;
    int32_t* rp = out.copy(csr.row_ptr);
    int32_t* ci = out.copy(csr.col_ind);
    out.release();
    *out_row_ptr = rp;
    *out_col_ind = ci;
  });
}

spxStatus_t spxHostDenseToCsr(int64_t rows, int64_t cols, const float* dense, int64_t ld,
                              spxOrder_t order, int64_t* nnz, int32_t** row_ptr, int32_t** col_ind,
                              float** values) {
  return spx::guard("spxHostDenseToCsr", [&] {
    not_null(nnz, "nnz");
    not_null(row_ptr, "row_ptr");
    not_null(col_ind, "col_ind");
    not_null(values, "values");
    const spx::plan::CsrF32 csr =
        spx::plan::dense_to_csr(dense_input(rows, cols, dense, ld, order));
    Outputs out;
    int32_t* rp = out.copy(csr.row_ptr);
    int32_t* ci = out.copy(csr.col_ind);
    float* v = out.copy(csr.values);
    out.release();
    *nnz = static_cast<int64_t>(csr.col_ind.size());
    *row_ptr = rp;
    *col_ind = ci;
    *values = v;
  });
}

spxStatus_t spxHostDenseToBcrs(int64_t rows, int64_t cols, const float* dense, int64_t ld,
                               spxOrder_t order, int64_t vec_len, int64_t* num_vectors,
                               int32_t** block_row_ptr, int32_t** block_col, float** values) {
  return spx::guard("spxHostDenseToBcrs", [&] {
    not_null(num_vectors, "num_vectors");
    not_null(block_row_ptr, "block_row_ptr");
    not_null(block_col, "block_col");
    not_null(values, "values");
    const spx::plan::DenseView a = dense_input(rows, cols, dense, ld, order);
    positive(vec_len, "vec_len");
    SPX_CHECK_ARG(rows % vec_len == 0, "rows (%lld) must be a multiple of vec_len (%lld)", ll(rows),
                  ll(vec_len));
    const spx::plan::BcrsF32 bcrs = spx::plan::dense_to_bcrs(a, vec_len);
    Outputs out;
    int32_t* brp = out.copy(bcrs.block_row_ptr);
    int32_t* bc = out.copy(bcrs.block_col);
    float* v = out.copy(bcrs.values);
    out.release();
    *num_vectors = static_cast<int64_t>(bcrs.block_col.size());
    *block_row_ptr = brp;
    *block_col = bc;
    *values = v;
  });
}

spxStatus_t spxHostPruneNM(int64_t rows, int64_t cols, const float* dense, int64_t ld,
                           spxOrder_t order, int64_t n, int64_t m, int64_t l, float* values,
                           int32_t* indices) {
  return spx::guard("spxHostPruneNM", [&] {
    const spx::plan::DenseView a = dense_input(rows, cols, dense, ld, order);
    spx::validate::nm_parameters(rows, cols, n, m, l);
    const int64_t kc = cols / m * n;
    SPX_CHECK_ARG(rows * kc == 0 || values != nullptr, "values is NULL");
    SPX_CHECK_ARG(rows * kc == 0 || indices != nullptr, "indices is NULL");
    const spx::plan::NmF32 nm = spx::plan::prune_nm(a, n, m, l);
    copy_into(nm.values, values);
    copy_into(nm.indices, indices);
  });
}

spxStatus_t spxHostPruneUniform(int64_t rows, int64_t cols, const float* dense, int64_t ld,
                                spxOrder_t order, int64_t ell_width, int32_t* col_ind,
                                float* values) {
  return spx::guard("spxHostPruneUniform", [&] {
    const spx::plan::DenseView a = dense_input(rows, cols, dense, ld, order);
    positive(ell_width, "ell_width");
    SPX_CHECK_ARG(ell_width <= cols, "ell_width (%lld) must be <= cols (%lld)", ll(ell_width),
                  ll(cols));
    SPX_CHECK_ARG(rows == 0 || col_ind != nullptr, "col_ind is NULL");
    SPX_CHECK_ARG(rows == 0 || values != nullptr, "values is NULL");
    const spx::plan::EllF32 ell = spx::plan::prune_uniform(a, ell_width);
    copy_into(ell.col_ind, col_ind);
    copy_into(ell.values, values);
  });
}

spxStatus_t spxHostCsrToEll(int64_t rows, int64_t cols, const int32_t* row_ptr,
                            const int32_t* col_ind, const float* values, int64_t* ell_width, int32_t** ell_col_ind,
                            float** ell_values) {
  return spx::guard("spxHostCsrToEll", [&] {
    not_null(ell_width, "ell_width");
    not_null(ell_col_ind, "ell_col_ind");
    not_null(ell_values, "ell_values");
    non_negative(rows, "rows");
    non_negative(cols, "cols");
    SPX_CHECK_ARG(rows <= kInt32Max - 1, "rows (%lld) does not fit the int32 row pointers",
                  ll(rows));
    not_null(row_ptr, "row_ptr");
    SPX_CHECK_ARG(row_ptr[rows] <= 0 || col_ind != nullptr, "col_ind is NULL while nnz is %d",
                  row_ptr[rows]);
    SPX_CHECK_ARG(row_ptr[rows] <= 0 || values != nullptr, "values is NULL while nnz is %d",
                  row_ptr[rows]);
    const spx::plan::EllF32 ell = spx::plan::csr_to_ell(rows, cols, row_ptr, col_ind, values);
    Outputs out;
    int32_t* ci = out.copy(ell.col_ind);
    float* v = out.copy(ell.values);
    out.release();
    *ell_width = ell.ell_width;
    *ell_col_ind = ci;
    *ell_values = v;
  });
}

spxStatus_t spxHostCheckNM(int64_t rows, int64_t cols, const float* dense, int64_t ld,
                           spxOrder_t order, int64_t n, int64_t m, int64_t l, int* ok) {
  return spx::guard("spxHostCheckNM", [&] {
    not_null(ok, "ok");
    const spx::plan::DenseView a = dense_input(rows, cols, dense, ld, order);
    spx::validate::nm_parameters(rows, cols, n, m, l);
    *ok = spx::plan::fits_nm(a, n, m, l) ? 1 : 0;
  });
}

spxStatus_t spxHostCheckUniform(int64_t rows, int64_t cols, const float* dense, int64_t ld,
                                spxOrder_t order, int64_t ell_width, int* ok) {
  return spx::guard("spxHostCheckUniform", [&] {
    not_null(ok, "ok");
    const spx::plan::DenseView a = dense_input(rows, cols, dense, ld, order);
    non_negative(ell_width, "ell_width");
    *ok = spx::plan::fits_uniform(a, ell_width) ? 1 : 0;
  });
}

spxStatus_t spxHostConvertValues(int64_t count, const float* src, spxDataType_t type, void* dst) {
  return spx::guard("spxHostConvertValues", [&] {
    non_negative(count, "count");
    SPX_CHECK_ARG(spx::dtype::is_valid(type), "type (%d) is not a valid spxDataType_t",
                  static_cast<int>(type));
    SPX_CHECK_ARG(count == 0 || src != nullptr, "src is NULL while count is %lld", ll(count));
    SPX_CHECK_ARG(count == 0 || dst != nullptr, "dst is NULL while count is %lld", ll(count));
    spx::plan::convert_values(count, src, type, dst);
  });
}

spxStatus_t spxHostSrbcrsSlotPtr(int64_t vector_rows, const int32_t* block_row_ptr,
                                 int64_t vec_len, int32_t* slot_ptr) {
  return spx::guard("spxHostSrbcrsSlotPtr", [&] {
    not_null(slot_ptr, "slot_ptr");
    non_negative(vector_rows, "vector_rows");
    positive(vec_len, "vec_len");
    not_null(block_row_ptr, "block_row_ptr");
    const std::vector<int32_t> slots =
        spx::plan::srbcrs_slot_ptr(vector_rows, block_row_ptr, vec_len);
    std::copy(slots.begin(), slots.end(), slot_ptr);
  });
}

size_t spxHostSizeOf(spxDataType_t type, int64_t count) {
  return spx::dtype::storage_bytes(type, count);
}

}  // extern "C"
