#include "runtime/objects.hpp"

int64_t spxSpMatDescr::value_slots() const {
  switch (format) {
    case SPX_FORMAT_CSR: return nnz;
    case SPX_FORMAT_BCRS: return nnz * vec_len;
    case SPX_FORMAT_NM: return rows * (cols / m * n);
    case SPX_FORMAT_ELL: return rows * ell_width;
  }
  return 0;
}

int64_t spxSpMatDescr::index_count() const {
  switch (format) {
    case SPX_FORMAT_CSR:
    case SPX_FORMAT_BCRS: return nnz;
    case SPX_FORMAT_NM: return rows / l * (cols / m * n);
    case SPX_FORMAT_ELL: return rows * ell_width;
  }
  return 0;
}

int64_t spxSpMatDescr::pointer_count() const {
  switch (format) {
    case SPX_FORMAT_CSR: return rows + 1;
    case SPX_FORMAT_BCRS: return rows / vec_len + 1;
    case SPX_FORMAT_NM:
    case SPX_FORMAT_ELL: return 0;
  }
  return 0;
}
