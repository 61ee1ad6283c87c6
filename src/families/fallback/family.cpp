#include "families/fallback/family.hpp"

#include <cstdio>
#include <memory>

#include "families/fallback/kernels/fallback.hpp"
#include "families/fallback/plan/entry_rows.hpp"
#include "families/operands.hpp"
#include "families/record.hpp"
#include "families/structure.hpp"
#include "runtime/dtype.hpp"

namespace spx::dispatch {
namespace {

/// A's structure as CSR on the device, and where each entry's value sits in the user's array.
struct DeviceCsr {
  device::Buffer row_ptr;  ///< int32[rows + 1] (SpMM) / entry_row int32[nnz] (SDDMM)
  device::Buffer col_ind;  ///< int32[nnz]
  device::Buffer slot;     ///< int64[nnz]
  int64_t nnz = 0;

  size_t bytes() const { return row_ptr.bytes() + col_ind.bytes() + slot.bytes(); }
};

/// The fallback SpMM's copy of A, shared by the plans of every prepared n (no per-n decision).
struct FallbackA {
  DeviceCsr csr;
  device::Buffer values;  ///< float[nnz] or int32[nnz]
  bool integer = false;
};

class FallbackSpmm final : public SpmmKernelPlan {
 public:
  FallbackSpmm(const SpmmProblem& p, const plan::CsrStructure& csr)
      : a_(std::make_shared<FallbackA>()) {
    device::check(kernels::fallback::spmm_csr_load(), "loading the fallback SpMM kernel");
    device::check(kernels::fallback::gather_widen_load(), "loading the value gather kernel");
    a_->csr.nnz = static_cast<int64_t>(csr.col_ind.size());
    a_->csr.row_ptr = device::upload(csr.row_ptr, p.h.stream);
    a_->csr.col_ind = device::upload(csr.col_ind, p.h.stream);
    a_->csr.slot = device::upload(csr.slot, p.h.stream);
    a_->values = device::Buffer(static_cast<size_t>(a_->csr.nnz) * 4);
    a_->integer = p.compute_type == SPX_R_32I;
    update_values(p.h, p.A);
    device::check(cudaStreamSynchronize(p.h.stream), "gathering A's values into the plan");
  }

  /// A loaded plan (serialized): the CSR copy and values of `r`.
  FallbackSpmm(const SpmmProblem& p, const plan::FallbackRecord& r)
      : a_(std::make_shared<FallbackA>()) {
    device::check(kernels::fallback::spmm_csr_load(), "loading the fallback SpMM kernel");
    device::check(kernels::fallback::gather_widen_load(), "loading the value gather kernel");
    a_->csr.nnz = r.nnz;
    a_->csr.row_ptr = device::upload(r.row_ptr, p.h.stream);
    a_->csr.col_ind = device::upload(r.col_ind, p.h.stream);
    a_->csr.slot = device::upload(r.slot, p.h.stream);
    a_->values = device::upload(r.values, p.h.stream);
    a_->integer = r.integer;
  }

  void save(FamilyRecord& out) const override {
    plan::FallbackRecord r;
    r.rows = static_cast<int64_t>(a_->csr.row_ptr.bytes() / 4) - 1;
    r.nnz = a_->csr.nnz, r.integer = a_->integer;
    r.row_ptr = device::array_of(a_->csr.row_ptr);
    r.col_ind = device::array_of(a_->csr.col_ind);
    r.slot = device::array_of(a_->csr.slot);
    r.values = device::array_of(a_->values);
    out.v = r;
  }

  void run(const spxContext& h, const SpmmCall& call) const override {
    kernels::fallback::SpmmCsrArgs a;
    a.m = call.C.rows;
    a.n = call.C.cols;
    a.row_ptr = a_->csr.row_ptr.as<int32_t>();
    a.col_ind = a_->csr.col_ind.as<int32_t>();
    a.values = a_->values.get();
    a.integer = a_->integer;
    a.B = view_of(call.B);
    a.C = view_of(call.C);
    a.scalars = spmm_scalars_of(h, call, call.C.type == SPX_R_32I);
    device::check(kernels::fallback::spmm_csr(a, h.stream), "launching the fallback SpMM kernel");
  }

  void update_values(const spxContext& h, const spxSpMatDescr& A) override {
    if (A.value_slots() > 0) device::expect_device_pointer(A.values, "A's values");
    kernels::fallback::GatherArgs g;
    g.count = a_->csr.nnz;
    g.slot = a_->csr.slot.as<int64_t>();
    g.src = A.values;
    g.src_type = A.type;
    g.dst = a_->values.get();
    device::check(kernels::fallback::gather_widen(g, h.stream), "launching the value gather kernel");
  }

  /// One thread per element of C whatever n: the same plan, sharing A.
  std::unique_ptr<SpmmKernelPlan> for_columns(const SpmmProblem& p,
                                              spxPlanInfo_t& info) const override {
    auto k = std::make_unique<FallbackSpmm>(*this);
    k->fill_info(p, info);
    return k;
  }
  Held held() const override { return {a_->csr.bytes(), a_->values.bytes()}; }

  void fill_info(const SpmmProblem& p, spxPlanInfo_t& info) const {
    info.family = SPX_SPMM_ALG_FALLBACK;
    std::snprintf(info.kernel, sizeof(info.kernel), "fallback_csr_spmm");
    std::snprintf(info.config, sizeof(info.config),
                  "one thread per C element; A %s as CSR, values widened to %s; B %s-major, C "
                  "%s-major",
                  dtype::name(p.A.type), dtype::is_float(p.A.type) ? "fp32" : "int32",
                  order_name(p.B.order), order_name(p.C.order));
    info.metadata_bytes = held().metadata;
    info.values_bytes = held().values;
    info.padded_nnz = a_->csr.nnz;
  }

 private:
  std::shared_ptr<FallbackA> a_;
};

class FallbackSddmm final : public SddmmKernelPlan {
 public:
  FallbackSddmm(const SddmmProblem& p, const plan::CsrStructure& csr) {
    device::check(kernels::fallback::sddmm_load(), "loading the fallback SDDMM kernel");
    const std::vector<int32_t> entry_row = plan::entry_rows(csr);
    csr_.nnz = static_cast<int64_t>(csr.col_ind.size());
    csr_.row_ptr = device::upload(entry_row, p.h.stream);
    csr_.col_ind = device::upload(csr.col_ind, p.h.stream);
    csr_.slot = device::upload(csr.slot, p.h.stream);
    integer_ = p.compute_type == SPX_R_32I;
  }

  void run(const spxContext& h, const SddmmCall& call) const override {
    kernels::fallback::SddmmArgs a;
    a.nnz = csr_.nnz;
    a.k = call.A.cols;
    a.entry_row = csr_.row_ptr.as<int32_t>();
    a.col_ind = csr_.col_ind.as<int32_t>();
    a.slot = csr_.slot.as<int64_t>();
    a.integer = integer_;
    a.A = view_of(call.A);
    a.B = view_of(call.B);
    a.c_values = call.C.values;
    a.c_type = call.C.type;
    a.scalars = scalars_of(h, call.alpha, call.beta, call.C.type == SPX_R_32I);
    device::check(kernels::fallback::sddmm(a, h.stream), "launching the fallback SDDMM kernel");
  }

  size_t metadata_bytes() const { return csr_.bytes(); }
  int64_t entries() const { return csr_.nnz; }

 private:
  DeviceCsr csr_;
  bool integer_ = false;
};

}  // namespace

std::unique_ptr<SpmmKernelPlan> build_fallback_spmm(const SpmmProblem& p, spxPlanInfo_t& info) {
  const plan::CsrStructure csr = to_csr(p.A, download_structure(p.h, p.A));
  auto k = std::make_unique<FallbackSpmm>(p, csr);
  k->fill_info(p, info);
  return k;
}

std::unique_ptr<SpmmKernelPlan> load_fallback_spmm(const SpmmProblem& p,
                                                   const plan::FallbackRecord& r) {
  SPX_EXPECTS(r.rows == p.A.rows && r.integer == (p.compute_type == SPX_R_32I),
              SPX_STATUS_INVALID_VALUE,
              "serialized plan is invalid: its fallback record is not A's shape and types");
  return std::make_unique<FallbackSpmm>(p, r);
}

std::unique_ptr<SddmmKernelPlan> build_fallback_sddmm(const SddmmProblem& p, spxPlanInfo_t& info) {
  const plan::CsrStructure csr = to_csr(p.C, download_structure(p.h, p.C));
  auto k = std::make_unique<FallbackSddmm>(p, csr);
  info.family = SPX_SPMM_ALG_FALLBACK;
  std::snprintf(info.kernel, sizeof(info.kernel), "fallback_sddmm");
  std::snprintf(info.config, sizeof(info.config),
                "one thread per stored entry of C (%s); A %s-major, B %s-major",
                dtype::name(p.C.type), order_name(p.A.order), order_name(p.B.order));
  info.metadata_bytes = k->metadata_bytes();
  info.values_bytes = 0;
  info.padded_nnz = k->entries();
  return k;
}

}  // namespace spx::dispatch
