#include "families/structure.hpp"

#include "formats/structure_checks.hpp"

namespace spx::dispatch {

HostStructure download_structure(const spxContext& h, const spxSpMatDescr& S) {
  HostStructure out;
  if (S.rows == 0) {  // nothing to read; the row pointer array may legitimately be NULL
    if (S.pointer_count() > 0) out.ptr = {0};
    return out;
  }
  if (S.pointer_count() > 0) device::expect_device_pointer(S.ptr, "the sparse row pointer array");
  if (S.index_count() > 0) device::expect_device_pointer(S.idx, "the sparse index array");
  if (S.value_slots() > 0) device::expect_device_pointer(S.values, "the sparse values array");
  out.ptr = device::download<int32_t>(S.ptr, S.pointer_count(), h.stream);
  out.idx = device::download<int32_t>(S.idx, S.index_count(), h.stream);
  return out;
}

HostVector<int32_t> download_row_ptr(const spxContext& h, const spxSpMatDescr& S) {
  SPX_EXPECTS(S.format == SPX_FORMAT_CSR || S.format == SPX_FORMAT_BCRS, SPX_STATUS_INTERNAL_ERROR,
              "row pointers asked of a format without them");
  if (S.rows == 0) return HostVector<int32_t>(1, 0);
  device::expect_device_pointer(S.ptr, "the sparse row pointer array");
  HostVector<int32_t> ptr = device::download<int32_t>(S.ptr, S.pointer_count(), h.stream);
  const bool csr = S.format == SPX_FORMAT_CSR;
  const int64_t rows = csr ? S.rows : S.rows / S.vec_len;
  plan::check_row_ptr(csr ? "row_ptr" : "block_row_ptr", rows, ptr.data(), S.nnz);
  return ptr;
}

plan::CsrStructure to_csr(const spxSpMatDescr& S, const HostStructure& host) {
  if (S.rows == 0) {
    plan::CsrStructure empty;
    empty.cols = S.cols;
    empty.row_ptr = {0};
    return empty;
  }
  switch (S.format) {
    case SPX_FORMAT_CSR:
      return plan::csr_from_csr(S.rows, S.cols, S.nnz, host.ptr.data(), host.idx.data());
    case SPX_FORMAT_BCRS:
      return plan::csr_from_bcrs(S.rows, S.cols, S.vec_len, S.nnz, host.ptr.data(), host.idx.data());
    case SPX_FORMAT_NM:
      return plan::csr_from_nm(S.rows, S.cols, S.n, S.m, S.l, host.idx.data());
    case SPX_FORMAT_ELL:
      return plan::csr_from_ell(S.rows, S.cols, S.ell_width, host.idx.data());
  }
  fail(SPX_STATUS_INTERNAL_ERROR, "unknown sparse format in a descriptor");
}

void expect_dense_on_device(const spxDnMatDescr& d, const char* name) {
  if (d.rows > 0 && d.cols > 0) device::expect_device_pointer(d.values, name);
}

}  // namespace spx::dispatch
