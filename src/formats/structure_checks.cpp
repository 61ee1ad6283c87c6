#include "formats/structure_checks.hpp"

#include <cstdint>

#include "runtime/error.hpp"
#include "runtime/parallel.hpp"

namespace spx::plan {

void check_row_ptr(const char* name, int64_t rows, const int32_t* row_ptr, int64_t nnz) {
  SPX_CHECK_ARG(row_ptr[0] == 0, "%s[0] = %d must be 0", name, row_ptr[0]);
  for (int64_t i = 1; i <= rows; ++i) {
    SPX_CHECK_ARG(row_ptr[i] >= row_ptr[i - 1], "%s[%lld] = %d is smaller than %s[%lld] = %d", name,
                  static_cast<long long>(i), row_ptr[i], name, static_cast<long long>(i - 1),
                  row_ptr[i - 1]);
  }
  SPX_CHECK_ARG(nnz < 0 || row_ptr[rows] == nnz, "%s[%lld] = %d must equal the entry count %lld",
                name, static_cast<long long>(rows), row_ptr[rows], static_cast<long long>(nnz));
}

void check_index_range(const char* name, int64_t count, const int32_t* idx, int64_t lo,
                       int64_t hi) {
  // In parallel chunks; each throws at its first bad index and the lowest chunk's error wins,
  // so the message names the first bad index, as a serial scan would.
  parallel::for_chunks(count, int64_t{1} << 16, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      SPX_CHECK_ARG(idx[i] >= lo && idx[i] < hi, "%s[%lld] = %d is outside [%lld, %lld)", name,
                    static_cast<long long>(i), idx[i], static_cast<long long>(lo),
                    static_cast<long long>(hi));
    }
  });
}

void check_fits_int32(const char* what, int64_t count) {
  SPX_EXPECTS(count <= INT32_MAX, SPX_STATUS_NOT_SUPPORTED,
              "%s (%lld) exceeds the int32 index range of the sparse formats", what,
              static_cast<long long>(count));
}

}  // namespace spx::plan
