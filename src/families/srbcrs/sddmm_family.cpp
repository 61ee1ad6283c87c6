#include "families/srbcrs/sddmm_family.hpp"

#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>

#include "families/operands.hpp"
#include "families/structure.hpp"
#include "families/srbcrs/kernels/sddmm.hpp"
#include "families/srbcrs/plan/sddmm.hpp"

namespace spx::dispatch {
namespace {

namespace ks = kernels::srbcrs;

/// The decision's inputs from the descriptors, the options and the device.
plan::srbcrs::SddmmInputs inputs_of(const SddmmProblem& p) {
  plan::srbcrs::SddmmInputs in;
  in.format = p.C.format;
  in.vec_len = p.C.format == SPX_FORMAT_BCRS ? p.C.vec_len : 1;
  in.a_type = p.A.type;
  in.b_type = p.B.type;
  in.c_type = p.C.type;
  in.compute_type = p.compute_type;
  in.a_order = p.A.order;
  in.b_order = p.B.order;
  in.output = p.options.values_layout == SPX_VALUES_LAYOUT_SRBCRS ? plan::ValuesLayout::Srbcrs
                                                                  : plan::ValuesLayout::Format;
  in.cc_major = p.h.cc_major;
  in.m = p.A.rows;
  in.k = p.A.cols;
  in.n = p.B.cols;
  in.num_vectors = p.C.nnz;  // BCRS: vectors; CSR: entries
  return in;
}

class SrbcrsSddmm final : public SddmmKernelPlan {
 public:
  SrbcrsSddmm(const SddmmProblem& p, plan::srbcrs::SddmmDecision decision,
              const plan::SrbcrsSddmmPlan& sp)
      : decision_(std::move(decision)) {
    const plan::SrbcrsSddmmChoice& choice = decision_.variant;
    variant_.a_bits = choice.a_bits;
    variant_.b_bits = choice.b_bits;
    variant_.a_signed = choice.a_signed;
    variant_.b_signed = choice.b_signed;
    device::check(ks::sddmm_load(variant_), "loading the SR-BCRS SDDMM kernels");
    m_ = p.A.rows;
    k_ = p.A.cols;
    n_ = p.B.cols;
    vec_len_ = static_cast<int>(sp.vec_len);
    tasks_ = sp.tasks();
    padded_ = sp.padded_elements();
    task_row_ = device::upload(sp.task_row, p.h.stream);
    col_ = device::upload(sp.col, p.h.stream);
    if (decision_.output == plan::ValuesLayout::Format)
      vec_map_ = device::upload(sp.vec_map, p.h.stream);
  }

  void run(const spxContext& h, const SddmmCall& call) const override {
    ks::SddmmArgs a;
    a.m = m_;
    a.k = k_;
    a.n = n_;
    a.vec_len = vec_len_;
    a.tasks = tasks_;
    a.task_row = task_row_.as<int32_t>();
    a.col = col_.as<int32_t>();
    a.vec_map = vec_map_.as<int32_t>();
    a.srbcrs_output = decision_.output == plan::ValuesLayout::Srbcrs;
    a.A = view_of(call.A);
    a.B = view_of(call.B);
    a.c_values = call.C.values;
    a.c_type = call.C.type;
    a.scalars = scalars_of(h, call.alpha, call.beta, call.C.type == SPX_R_32I);
    a.workspace = call.workspace;
    a.workspace_a_offset = decision_.workspace.a_offset;
    a.workspace_b_offset = decision_.workspace.b_offset;
    // Per call: A's and B's addresses and leading dimensions may change between calls.
    const plan::srbcrs::OperandSource as = plan::srbcrs::sddmm_operand(
        call.A.order == SPX_ORDER_ROW, reinterpret_cast<uintptr_t>(call.A.values), call.A.ld, k_,
        decision_.variant.a_bits);
    const plan::srbcrs::OperandSource bs = plan::srbcrs::sddmm_operand(
        call.B.order == SPX_ORDER_COL, reinterpret_cast<uintptr_t>(call.B.values), call.B.ld, k_,
        decision_.variant.b_bits);
    a.a_in_place = as.in_place;
    a.a_pitch = as.pitch;
    a.b_in_place = bs.in_place;
    a.b_pitch = bs.pitch;
    device::check(ks::sddmm(variant_, a, h.stream), "launching the SR-BCRS SDDMM kernel");
  }

  size_t metadata_bytes() const { return task_row_.bytes() + col_.bytes() + vec_map_.bytes(); }
  int64_t padded_elements() const { return padded_; }

 private:
  plan::srbcrs::SddmmDecision decision_;
  ks::SddmmVariant variant_;
  int64_t m_ = 0, k_ = 0, n_ = 0, tasks_ = 0, padded_ = 0;
  int vec_len_ = 1;
  device::Buffer task_row_, col_, vec_map_;
};

}  // namespace

Refusal srbcrs_sddmm_can_implement(const SddmmProblem& p) {
  return plan::srbcrs::refusal(inputs_of(p));
}

std::unique_ptr<SddmmKernelPlan> build_srbcrs_sddmm(const SddmmProblem& p, spxPlanInfo_t& info) {
  const plan::srbcrs::SddmmInputs in = inputs_of(p);
  plan::srbcrs::SddmmDecision decision =
      plan::srbcrs::choose(in, plan::srbcrs::read_overrides(p.switches));
  const HostStructure host = download_structure(p.h, p.C);
  plan::BcrsView view;
  view.rows = p.C.rows;
  view.cols = p.C.cols;
  view.vec_len = in.vec_len;
  view.block_row_ptr = host.ptr.data();
  view.block_col = host.idx.data();
  view.num_vectors = p.C.nnz;
  if (p.C.format == SPX_FORMAT_CSR) {  // messages name the user's arrays
    view.ptr_name = "row_ptr";
    view.col_name = "col_ind";
  }
  const plan::SrbcrsSddmmPlan sp = plan::srbcrs_sddmm_plan(view);
  info.family = SPX_SPMM_ALG_SRBCRS;
  std::snprintf(info.kernel, sizeof(info.kernel), "%s", decision.kernel().c_str());
  std::snprintf(info.config, sizeof(info.config), "%s", decision.describe().c_str());
  info.workspace_bytes = static_cast<size_t>(decision.workspace.bytes);
  auto k = std::make_unique<SrbcrsSddmm>(p, std::move(decision), sp);
  info.metadata_bytes = k->metadata_bytes();
  info.values_bytes = 0;
  info.padded_nnz = k->padded_elements();
  return k;
}

}  // namespace spx::dispatch
