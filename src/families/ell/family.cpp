#include "families/ell/family.hpp"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "runtime/dtype.hpp"
#include "runtime/log.hpp"
#include "families/operands.hpp"
#include "families/structure.hpp"
#include "families/ell/kernels/config.hpp"
#include "families/ell/kernels/ell.hpp"
#include "families/ell/plan/predict.hpp"
#include "families/ell/plan/layout.hpp"

namespace spx::dispatch {
namespace {

namespace ek = kernels::ell;

class EllSpmm final : public SpmmKernelPlan {
 public:
  EllSpmm(const SpmmProblem& p, const plan::EllLayout& l) {
    half_ = p.A.type == SPX_R_16F;
    index16_ = l.index16;
    m_ = l.rows;
    k_ = l.cols;
    n_ = p.B.cols;
    width_ = l.width;
    stride_ = l.stride;
    slots_ = l.slots();
    alloc_slots_ = static_cast<int64_t>(l.col.size());  // slots + the overrun pad
    overflow_ = l.overflow;
    device::check(ek::spmm_load(half_, index16_, p.h.smem_per_block_optin),
                  "loading the ELL SpMM kernels");
    device::check(ek::pack_values_load(), "loading the ELL value packing kernel");
    indices_ = index16_ ? device::upload(l.col16(), p.h.stream) : device::upload(l.col, p.h.stream);
    row_len_ = device::upload(l.row_len, p.h.stream);
    if (!l.tail_ptr.empty()) tail_ptr_ = device::upload(l.tail_ptr, p.h.stream);
    slot_map_ = device::upload(l.src_slot, p.h.stream);
    values_ = device::Buffer(static_cast<size_t>(alloc_slots_) * (half_ ? 2 : 4));

    ek::EllShape s;
    s.m = m_;
    s.k = k_;
    s.n = n_;
    s.width = width_;
    s.value_bytes = half_ ? 2 : 4;
    s.b_row_major = p.B.order == SPX_ORDER_ROW;
    s.sm_count = p.h.sm_count > 0 ? p.h.sm_count : 132;
    s.smem_optin = static_cast<int64_t>(p.h.smem_per_block_optin);
    s.all_dense_candidates = p.switches.flag("SPX_ELL_DENSE_CANDIDATES") == 1;
    // The decode kernel's copy of B by the TMA unit (cp.async.bulk, sm_90 code: the library's
    // device code must run as sm_90 here, code_arch, not only the device be one).
    s.bulk_copy = p.h.code_arch >= 90;
    s.index16 = index16_;
    sm_count_ = s.sm_count;
    // Programmatic dependent launch of the decode kernel (griddepcontrol, sm_90 and later).
    // (griddepcontrol.wait is in sm_90 code only: without it an early start would race.)
    dependent_launch_ = p.h.code_arch >= 90;
    shape_ = s;
    candidates_ = ek::candidate_configs(s);
    // DenseMma multiplies a dense copy of A that the plan keeps (made here and by
    // spxPlanUpdateValues, like the packed values): executes only run the GEMM.
    if (std::any_of(candidates_.begin(), candidates_.end(), [](const ek::EllConfig& c) {
          return c.kind == ek::KernelKind::DenseMma;
        }))
      dense_a_ = device::Buffer(static_cast<size_t>(ek::dense_mma_a_bytes(m_, k_, half_ ? 2 : 4)));
    if (const int64_t force = p.switches.index("SPX_ELL_FORCE_CANDIDATE", candidate_count());
        force >= 0)
      selected_ = static_cast<int>(force);
    suffix_ =
        strf("; A %s ELL w=%lld idx%d, overflow %lld entries; B %s, C %s %s", dtype::name(p.A.type),
             static_cast<long long>(width_), index16_ ? 16 : 32, static_cast<long long>(overflow_),
             order_name(p.B.order), dtype::name(p.C.type), order_name(p.C.order));
    if (dense_a_.bytes() > 0)
      suffix_ += strf("; dense A for DenseMma kept in the plan (%.1f MiB)",
                      static_cast<double>(dense_a_.bytes()) / (1 << 20));
    update_values(p.h, p.A);
    device::check(cudaStreamSynchronize(p.h.stream), "packing A's values into the ELL plan");
  }

  void run(const spxContext& h, const SpmmCall& call) const override {
    ek::SpmmArgs a = a_side();
    a.n = call.C.cols;
    a.B = view_of(call.B);
    a.C = view_of(call.C);
    a.scalars = scalars_of(h, call.alpha, call.beta, false);
    a.workspace = call.workspace;
    device::check(ek::spmm(a, candidates_[selected_], h.stream), "launching the ELL SpMM kernel");
  }

  void update_values(const spxContext& h, const spxSpMatDescr& A) override {
    if (slots_ > 0) device::expect_device_pointer(A.values, "A's values");
    ek::PackArgs g;
    g.count = alloc_slots_;
    g.slot = slot_map_.as<int32_t>();
    g.src = A.values;
    g.dst = values_.get();
    g.element_bytes = half_ ? 2 : 4;
    device::check(ek::pack_values(g, h.stream), "launching the ELL value packing kernel");
    if (dense_a_.bytes() > 0)
      device::check(ek::densify_dense_a(a_side(), dense_a_.get(), h.stream),
                    "launching the ELL densify kernel (DenseMma's dense A)");
  }

  int candidate_count() const override { return static_cast<int>(candidates_.size()); }
  int selected() const override { return selected_; }
  void select(int c) override {
    SPX_EXPECTS(c >= 0 && c < candidate_count(), SPX_STATUS_INTERNAL_ERROR,
                "ELL candidate %d out of range", c);
    selected_ = c;
  }
  std::string describe(int c) const override { return candidates_.at(c).describe() + suffix_; }
  size_t workspace_bytes() const override {
    size_t bytes = 0;
    for (const ek::EllConfig& c : candidates_)
      bytes = std::max(bytes, ek::workspace_bytes(c, k_, n_, half_));
    return bytes;
  }

  /// Dense cuBLAS time over this plan's, both from the model in families/ell/plan/predict.hpp (fitted
  /// to H100 measurements), for the selected configuration.
  double predicted_speedup(const plan::EllLayout& l, spxDataType_t c_type) const {
    ek::EllWork w;
    w.slots = slots_;
    w.nnz = l.nnz;
    w.index_bytes = index16_ ? 2 : 4;
    w.out_bytes = c_type == SPX_R_16F ? 2 : 4;
    return ek::predict_dense_us(shape_, w.out_bytes) /
           ek::predict_sparse_us(shape_, candidates_[selected_], w);
  }

  /// The kernels' arguments that describe A (the plan's arrays); a call adds B, C and n.
  ek::SpmmArgs a_side() const {
    ek::SpmmArgs a;
    a.m = m_;
    a.k = k_;
    a.stride = stride_;
    a.values = values_.get();
    a.indices = indices_.get();
    a.row_len = row_len_.as<int32_t>();
    a.tail_ptr = tail_ptr_.as<int32_t>();
    a.half = half_;
    a.index16 = index16_;
    a.dense_a = dense_a_.get();
    a.sm_count = sm_count_;
    a.dependent_launch = dependent_launch_;
    return a;
  }

  size_t metadata_bytes() const {
    return indices_.bytes() + row_len_.bytes() + tail_ptr_.bytes() + slot_map_.bytes();
  }
  /// The packed values and, when DenseMma is a candidate, the plan's dense copy of A.
  size_t values_bytes() const { return values_.bytes() + dense_a_.bytes(); }
  int64_t slots() const { return slots_; }

 private:
  bool half_ = false, index16_ = false;
  int64_t m_ = 0, k_ = 0, n_ = 0, width_ = 0, stride_ = 0, slots_ = 0, alloc_slots_ = 0,
          overflow_ = 0;
  int sm_count_ = 132;
  bool dependent_launch_ = false;
  device::Buffer values_, indices_, row_len_, tail_ptr_, slot_map_;
  device::Buffer dense_a_;  ///< DenseMma: A densified (+ row flags); empty without that candidate
  ek::EllShape shape_;
  std::vector<ek::EllConfig> candidates_;
  int selected_ = 0;
  std::string suffix_;
};

}  // namespace

Refusal ell_can_implement(const SpmmProblem& p) {
  if (p.A.format != SPX_FORMAT_ELL && p.A.format != SPX_FORMAT_CSR)
    return "the ELL family takes ELL or CSR input only";
  if (p.A.type == SPX_R_16BF)
    return "bfloat16 is not supported by the ELL kernels (fp32 and fp16 only)";
  if (p.A.type != SPX_R_32F && p.A.type != SPX_R_16F)
    return strf("%s values are not supported by the ELL kernels (fp32 and fp16 only)",
                dtype::name(p.A.type));
  if (p.B.type != p.A.type || (p.C.type != p.A.type && p.C.type != SPX_R_32F) ||
      p.compute_type != SPX_R_32F)
    return "the ELL kernels need B of A's type, C of A's type or 32F, and 32F compute";
  if (p.A.value_slots() > INT32_MAX)
    return "A has more value slots than ELL's 32-bit slot map holds";
  if (p.A.format == SPX_FORMAT_ELL) return {};
  return plan::ell_near_uniform(to_csr(p.A, download_structure(p.h, p.A)));
}

std::unique_ptr<SpmmKernelPlan> build_ell_spmm(const SpmmProblem& p, spxPlanInfo_t& info) {
  const plan::EllLayout layout = plan::plan_ell_layout(to_csr(p.A, download_structure(p.h, p.A)));
  auto k = std::make_unique<EllSpmm>(p, layout);
  info.family = SPX_SPMM_ALG_ELL;
  std::snprintf(info.kernel, sizeof(info.kernel), "ell_uspmm");
  std::snprintf(info.config, sizeof(info.config), "%s", k->describe(k->selected()).c_str());
  info.metadata_bytes = k->metadata_bytes();
  info.values_bytes = k->values_bytes();
  info.padded_nnz = k->slots();
  info.predicted_speedup = k->predicted_speedup(layout, p.C.type);
  return k;
}

}  // namespace spx::dispatch
