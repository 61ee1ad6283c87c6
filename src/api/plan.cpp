#include "api/plan.hpp"

#include <chrono>
#include <cstring>

#include "core/dtype.hpp"
#include "core/log.hpp"
#include "kernels/fallback/fallback.hpp"
#include "planning/to_csr.hpp"

namespace spx::plan {
namespace {

using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

/// Reads the user's structure arrays from the device and converts them to CSR on the host.
/// Structural errors (index out of range, decreasing pointers) become INVALID_VALUE here.
CsrStructure read_structure(const spxContext& h, const spxSpMatDescr& S) {
  if (S.rows == 0) {  // nothing to read; the row pointer array may legitimately be NULL
    CsrStructure empty;
    empty.cols = S.cols;
    empty.row_ptr = {0};
    return empty;
  }
  if (S.pointer_count() > 0) device::expect_device_pointer(S.ptr, "the sparse row pointer array");
  if (S.index_count() > 0) device::expect_device_pointer(S.idx, "the sparse index array");
  if (S.value_slots() > 0) device::expect_device_pointer(S.values, "the sparse values array");
  const auto ptr = device::download<int32_t>(S.ptr, S.pointer_count(), h.stream);
  const auto idx = device::download<int32_t>(S.idx, S.index_count(), h.stream);
  switch (S.format) {
    case SPX_FORMAT_CSR:
      return csr_from_csr(S.rows, S.cols, S.nnz, ptr.data(), idx.data());
    case SPX_FORMAT_BCRS:
      return csr_from_bcrs(S.rows, S.cols, S.vec_len, S.nnz, ptr.data(), idx.data());
    case SPX_FORMAT_NM:
      return csr_from_nm(S.rows, S.cols, S.n, S.m, S.l, idx.data());
    case SPX_FORMAT_ELL:
      return csr_from_ell(S.rows, S.cols, S.ell_width, idx.data());
  }
  fail(SPX_STATUS_INTERNAL_ERROR, "unknown sparse format in a descriptor");
}

void expect_dense_pointer(const spxDnMatDescr& d, const char* name) {
  if (d.rows > 0 && d.cols > 0) device::expect_device_pointer(d.values, name);
}

kernels::DenseView view_of(const spxDnMatDescr& d) { return {d.values, d.ld, d.type, d.order}; }

/// Host-pointer-mode scalars are read now (the call may return before the kernel runs);
/// device-pointer-mode scalars are passed through and read by the kernel.
kernels::Scalars scalars_of(const spxContext& h, const void* alpha, const void* beta,
                            bool integer_output) {
  kernels::Scalars s{};
  if (h.pointer_mode == SPX_POINTER_MODE_DEVICE) {
    s.alpha_dev = alpha;
    s.beta_dev = beta;
  } else if (integer_output) {
    std::memcpy(&s.alpha_i, alpha, sizeof(int32_t));
    std::memcpy(&s.beta_i, beta, sizeof(int32_t));
  } else {
    std::memcpy(&s.alpha_f, alpha, sizeof(float));
    std::memcpy(&s.beta_f, beta, sizeof(float));
  }
  return s;
}

void fill_common_info(spxPlan& p, int64_t nnz, const char* kernel, double analyze_ms) {
  spxPlanInfo_t& info = p.info;
  std::memset(&info, 0, sizeof(info));
  info.family = SPX_SPMM_ALG_FALLBACK;
  std::snprintf(info.kernel, sizeof(info.kernel), "%s", kernel);
  info.workspace_bytes = 0;
  info.metadata_bytes = p.fallback.row_ptr.bytes() + p.fallback.col_ind.bytes() +
                        p.fallback.entry_row.bytes() + p.fallback.slot.bytes();
  info.values_bytes = p.fallback.values.bytes();
  info.analyze_ms = analyze_ms;
  info.nnz = nnz;
  info.padded_nnz = p.fallback.nnz;
  info.split_k = 1;
}

void gather(const spxContext& h, spxPlan& p, const spxSpMatDescr& A) {
  kernels::fallback::GatherArgs g;
  g.count = p.fallback.nnz;
  g.slot = p.fallback.slot.as<int64_t>();
  g.src = A.values;
  g.src_type = A.type;
  g.dst = p.fallback.values.get();
  device::check(kernels::fallback::gather_widen(g, h.stream), "launching the value gather kernel");
}

}  // namespace

std::unique_ptr<spxPlan> analyze_spmm(const spxContext& h, const spxSpMatDescr& A,
                                      const spxDnMatDescr& B, const spxDnMatDescr& C,
                                      spxDataType_t compute_type) {
  const auto start = Clock::now();
  expect_dense_pointer(B, "B's values");
  expect_dense_pointer(C, "C's values");
  CsrStructure csr = read_structure(h, A);

  auto p = std::make_unique<spxPlan>();
  p->op = Operation::SpMM;
  p->device = h.device;
  p->compute_type = compute_type;
  p->sparse = SparseSignature::of(A);
  p->dense_in = DenseSignature::of(B);
  p->dense_out = DenseSignature::of(C);
  p->fallback.nnz = static_cast<int64_t>(csr.col_ind.size());
  p->fallback.row_ptr = device::upload(csr.row_ptr, h.stream);
  p->fallback.col_ind = device::upload(csr.col_ind, h.stream);
  p->fallback.slot = device::upload(csr.slot, h.stream);
  p->fallback.values = device::Buffer(static_cast<size_t>(p->fallback.nnz) * 4);
  gather(h, *p, A);
  device::check(cudaStreamSynchronize(h.stream), "gathering A's values into the plan");

  fill_common_info(*p, A.value_slots(), "fallback_csr_spmm", ms_since(start));
  std::snprintf(p->info.config, sizeof(p->info.config),
                "one thread per C element; A %s as CSR, values widened to %s; B %s-major, C %s-major",
                dtype::name(A.type), dtype::is_float(A.type) ? "fp32" : "int32",
                B.order == SPX_ORDER_ROW ? "row" : "col", C.order == SPX_ORDER_ROW ? "row" : "col");
  log::info("spxSpMM_analyze: %lld x %lld x %lld, nnz %lld -> %s (%s), %.3f ms",
            static_cast<long long>(A.rows), static_cast<long long>(A.cols),
            static_cast<long long>(B.cols), static_cast<long long>(p->info.nnz), p->info.kernel,
            p->info.config, p->info.analyze_ms);
  return p;
}

std::unique_ptr<spxPlan> analyze_sddmm(const spxContext& h, const spxDnMatDescr& A,
                                       const spxDnMatDescr& B, const spxSpMatDescr& C,
                                       spxDataType_t compute_type) {
  const auto start = Clock::now();
  expect_dense_pointer(A, "A's values");
  expect_dense_pointer(B, "B's values");
  CsrStructure csr = read_structure(h, C);
  // The kernel runs one thread per entry and needs each entry's row explicitly.
  std::vector<int32_t> entry_row(csr.col_ind.size());
  for (int64_t r = 0; r < csr.rows; ++r)
    for (int32_t e = csr.row_ptr[r]; e < csr.row_ptr[r + 1]; ++e) entry_row[e] = static_cast<int32_t>(r);

  auto p = std::make_unique<spxPlan>();
  p->op = Operation::SDDMM;
  p->device = h.device;
  p->compute_type = compute_type;
  p->sparse = SparseSignature::of(C);
  p->dense_in = DenseSignature::of(A);
  p->dense_out = DenseSignature::of(B);
  p->fallback.nnz = static_cast<int64_t>(csr.col_ind.size());
  p->fallback.entry_row = device::upload(entry_row, h.stream);
  p->fallback.col_ind = device::upload(csr.col_ind, h.stream);
  p->fallback.slot = device::upload(csr.slot, h.stream);

  fill_common_info(*p, C.value_slots(), "fallback_sddmm", ms_since(start));
  std::snprintf(p->info.config, sizeof(p->info.config),
                "one thread per stored entry of C (%s); A %s-major, B %s-major",
                dtype::name(C.type), A.order == SPX_ORDER_ROW ? "row" : "col",
                B.order == SPX_ORDER_ROW ? "row" : "col");
  log::info("spxSDDMM_analyze: %lld x %lld x %lld, nnz %lld -> %s, %.3f ms",
            static_cast<long long>(A.rows), static_cast<long long>(A.cols),
            static_cast<long long>(B.cols), static_cast<long long>(p->info.nnz), p->info.kernel,
            p->info.analyze_ms);
  return p;
}

void update_values(const spxContext& h, spxPlan& plan, const spxSpMatDescr& A) {
  if (A.value_slots() > 0) device::expect_device_pointer(A.values, "A's values");
  gather(h, plan, A);
}

void execute_spmm(const spxContext& h, const spxPlan& plan, const void* alpha,
                  const spxDnMatDescr& B, const void* beta, const spxDnMatDescr& C) {
  kernels::fallback::SpmmCsrArgs a;
  a.m = C.rows;
  a.n = C.cols;
  a.row_ptr = plan.fallback.row_ptr.as<int32_t>();
  a.col_ind = plan.fallback.col_ind.as<int32_t>();
  a.values = plan.fallback.values.get();
  a.integer = plan.compute_type == SPX_R_32I;
  a.B = view_of(B);
  a.C = view_of(C);
  a.scalars = scalars_of(h, alpha, beta, C.type == SPX_R_32I);
  device::check(kernels::fallback::spmm_csr(a, h.stream), "launching the fallback SpMM kernel");
  log::trace("spxSpMM: %s on stream %p", plan.info.kernel, static_cast<void*>(h.stream));
}

void execute_sddmm(const spxContext& h, const spxPlan& plan, const void* alpha,
                   const spxDnMatDescr& A, const spxDnMatDescr& B, const void* beta,
                   const spxSpMatDescr& C) {
  kernels::fallback::SddmmArgs a;
  a.nnz = plan.fallback.nnz;
  a.k = A.cols;
  a.entry_row = plan.fallback.entry_row.as<int32_t>();
  a.col_ind = plan.fallback.col_ind.as<int32_t>();
  a.slot = plan.fallback.slot.as<int64_t>();
  a.integer = plan.compute_type == SPX_R_32I;
  a.A = view_of(A);
  a.B = view_of(B);
  a.c_values = C.values;
  a.c_type = C.type;
  a.scalars = scalars_of(h, alpha, beta, C.type == SPX_R_32I);
  device::check(kernels::fallback::sddmm(a, h.stream), "launching the fallback SDDMM kernel");
  log::trace("spxSDDMM: %s on stream %p", plan.info.kernel, static_cast<void*>(h.stream));
}

}  // namespace spx::plan
