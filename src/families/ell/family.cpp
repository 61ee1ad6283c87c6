#include "families/ell/family.hpp"

#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "runtime/dtype.hpp"
#include "runtime/log.hpp"
#include "families/operands.hpp"
#include "families/structure.hpp"
#include "families/ell/kernels/ell.hpp"
#include "families/ell/plan/call.hpp"
#include "families/ell/plan/choice.hpp"
#include "families/ell/plan/layout.hpp"
#include "families/ell/plan/predict.hpp"

namespace spx::dispatch {
namespace {

namespace ek = kernels::ell;

/// What the rule looks at, from the problem and the planned layout.
plan::EllInputs inputs_of(const SpmmProblem& p, const plan::EllLayout& l) {
  plan::EllInputs s;
  s.m = l.rows;
  s.k = l.cols;
  s.n = p.B.cols;
  s.width = l.width;
  s.value_bytes = p.A.type == SPX_R_16F ? 2 : 4;
  s.b_row_major = p.B.order == SPX_ORDER_ROW;
  s.sm_count = p.h.sm_count > 0 ? p.h.sm_count : 132;
  s.smem_optin = static_cast<int64_t>(p.h.smem_per_block_optin);
  s.code_arch = p.h.code_arch;
  s.index16 = l.index16;
  s.nnz = l.nnz;
  s.overflow = l.overflow;
  s.a_type = p.A.type;
  s.c_type = p.C.type;
  s.c_order = p.C.order;
  return s;
}

class EllSpmm final : public SpmmKernelPlan {
 public:
  EllSpmm(const SpmmProblem& p, const plan::EllLayout& l)
      : decision_(plan::choose(inputs_of(p, l), plan::read_overrides(p.switches))) {
    const plan::EllInputs& s = decision_.inputs;
    half_ = s.value_bytes == 2;
    stride_ = l.stride;
    slots_ = l.slots();
    alloc_slots_ = static_cast<int64_t>(l.col.size());  // slots + the overrun pad
    device::check(ek::spmm_load(half_, s.index16, p.h.smem_per_block_optin),
                  "loading the ELL SpMM kernels");
    device::check(ek::pack_values_load(), "loading the ELL value packing kernel");
    // Occupancy of every candidate's persistent kernel, asked once here (not per launch).
    for (const ek::KernelConfig& c : decision_.candidates.items()) {
      plan::EllOccupancy o;
      o.per_sm = ek::resident_blocks(c, half_, s.index16, s.k, false);
      if (const auto* st = std::get_if<ek::SlotStagedConfig>(&c); st != nullptr && st->bulk_copy)
        o.bulk = ek::resident_blocks(c, half_, s.index16, s.k, true);
      occupancy_.push_back(o);
    }
    indices_ = s.index16 ? device::upload(l.col16(), p.h.stream) : device::upload(l.col, p.h.stream);
    row_len_ = device::upload(l.row_len, p.h.stream);
    if (!l.tail_ptr.empty()) tail_ptr_ = device::upload(l.tail_ptr, p.h.stream);
    slot_map_ = device::upload(l.src_slot, p.h.stream);
    values_ = device::Buffer(static_cast<size_t>(alloc_slots_) * (half_ ? 2 : 4));
    // DenseMma multiplies a dense copy of A that the plan keeps (made here and by
    // spxPlanUpdateValues, like the packed values): executes only run the GEMM.
    if (decision_.dense_a_bytes() > 0)
      dense_a_ = device::Buffer(static_cast<size_t>(decision_.dense_a_bytes()));
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
    const int c = decision_.candidates.selected();
    const ek::KernelConfig& cfg = decision_.candidates.at(c);
    const ek::EllConfig launch{cfg, plan::decide_call(cfg, decision_.inputs,
                                                      {call.B.values, call.B.ld, call.workspace},
                                                      occupancy_[c])};
    device::check(ek::spmm(a, launch, h.stream), "launching the ELL SpMM kernel");
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

  int candidate_count() const override { return decision_.candidates.count(); }
  int selected() const override { return decision_.candidates.selected(); }
  void select(int c) override { decision_.candidates.select(c); }
  std::string describe(int c) const override { return decision_.describe(c); }
  size_t workspace_bytes() const override { return decision_.workspace_bytes(); }
  const plan::Decision& decision() const { return decision_; }

  /// Dense cuBLAS time over this plan's, both from the model in families/ell/plan/predict.hpp (fitted
  /// to H100 measurements), for the selected configuration.
  double predicted_speedup() const {
    const plan::EllInputs& s = decision_.inputs;
    plan::EllWork w;
    w.slots = slots_;
    w.nnz = s.nnz;
    w.index_bytes = s.index16 ? 2 : 4;
    w.out_bytes = s.c_type == SPX_R_16F ? 2 : 4;
    return plan::predict_dense_us(s, w.out_bytes) /
           plan::predict_sparse_us(s, decision_.chosen(), w);
  }

  /// The kernels' arguments that describe A (the plan's arrays); a call adds B, C and n.
  ek::SpmmArgs a_side() const {
    const plan::EllInputs& s = decision_.inputs;
    ek::SpmmArgs a;
    a.m = s.m;
    a.k = s.k;
    a.stride = stride_;
    a.values = values_.get();
    a.indices = indices_.get();
    a.row_len = row_len_.as<int32_t>();
    a.tail_ptr = tail_ptr_.as<int32_t>();
    a.half = half_;
    a.index16 = s.index16;
    a.dense_a = dense_a_.get();
    a.sm_count = s.sm_count;
    a.dependent_launch = decision_.dependent_launch;
    return a;
  }

  size_t metadata_bytes() const {
    return indices_.bytes() + row_len_.bytes() + tail_ptr_.bytes() + slot_map_.bytes();
  }
  /// The packed values and, when DenseMma is a candidate, the plan's dense copy of A.
  size_t values_bytes() const { return values_.bytes() + dense_a_.bytes(); }
  int64_t slots() const { return slots_; }

 private:
  plan::Decision decision_;  ///< the one decision (plan/choice.hpp), made here at analyze
  std::vector<plan::EllOccupancy> occupancy_;  ///< per candidate (plan/call.hpp)
  bool half_ = false;
  int64_t stride_ = 0, slots_ = 0, alloc_slots_ = 0;
  device::Buffer values_, indices_, row_len_, tail_ptr_, slot_map_;
  device::Buffer dense_a_;  ///< DenseMma: A densified (+ row flags); empty without that candidate
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
  std::snprintf(info.kernel, sizeof(info.kernel), "%s", plan::Decision::kernel());
  std::snprintf(info.config, sizeof(info.config), "%s", k->decision().describe().c_str());
  info.metadata_bytes = k->metadata_bytes();
  info.values_bytes = k->values_bytes();
  info.padded_nnz = k->slots();
  info.predicted_speedup = k->predicted_speedup();
  return k;
}

}  // namespace spx::dispatch
