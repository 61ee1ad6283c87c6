#include "families/srbcrs/sddmm_family.hpp"

#include <cstdio>
#include <string>

#include "runtime/dtype.hpp"
#include "families/operands.hpp"
#include "families/structure.hpp"
#include "families/srbcrs/kernels/sddmm.hpp"
#include "families/srbcrs/kernels/sddmm_config.hpp"
#include "families/srbcrs/plan/sddmm.hpp"

namespace spx::dispatch {
namespace {

namespace ks = kernels::srbcrs;

plan::SrbcrsSddmmProblem describe_problem(const SddmmProblem& p) {
  plan::SrbcrsSddmmProblem d;
  d.format = p.C.format;
  d.vec_len = p.C.format == SPX_FORMAT_BCRS ? p.C.vec_len : 1;
  d.a_type = p.A.type;
  d.b_type = p.B.type;
  d.c_type = p.C.type;
  d.compute_type = p.compute_type;
  d.cc_major = p.h.cc_major;
  d.m = p.A.rows;
  d.k = p.A.cols;
  d.n = p.B.cols;
  d.num_vectors = p.C.nnz;  // BCRS: vectors; CSR: entries
  return d;
}

/// The order C's values are written in (SPX_PLAN_OPTION_SPARSE_VALUES_LAYOUT).
plan::ValuesLayout output_layout(const SddmmProblem& p) {
  return p.options.values_layout == SPX_VALUES_LAYOUT_SRBCRS ? plan::ValuesLayout::Srbcrs
                                                             : plan::ValuesLayout::Format;
}

class SrbcrsSddmm final : public SddmmKernelPlan {
 public:
  SrbcrsSddmm(const SddmmProblem& p, const plan::SrbcrsSddmmChoice& choice,
              const plan::SrbcrsSddmmPlan& sp, plan::ValuesLayout layout)
      : layout_(layout) {
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
    if (layout_ == plan::ValuesLayout::Format) vec_map_ = device::upload(sp.vec_map, p.h.stream);
    workspace_ = plan::srbcrs_sddmm_workspace(m_, k_, n_, choice.a_bits, choice.b_bits);
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
    a.srbcrs_output = layout_ == plan::ValuesLayout::Srbcrs;
    a.A = view_of(call.A);
    a.B = view_of(call.B);
    a.c_values = call.C.values;
    a.c_type = call.C.type;
    a.scalars = scalars_of(h, call.alpha, call.beta, call.C.type == SPX_R_32I);
    a.workspace = call.workspace;
    a.workspace_a_offset = workspace_.a_offset;
    a.workspace_b_offset = workspace_.b_offset;
    device::check(ks::sddmm(variant_, a, h.stream), "launching the SR-BCRS SDDMM kernel");
  }

  size_t workspace_bytes() const { return static_cast<size_t>(workspace_.bytes); }
  size_t metadata_bytes() const { return task_row_.bytes() + col_.bytes() + vec_map_.bytes(); }
  int64_t padded_elements() const { return padded_; }

 private:
  ks::SddmmVariant variant_;
  plan::ValuesLayout layout_;
  int64_t m_ = 0, k_ = 0, n_ = 0, tasks_ = 0, padded_ = 0;
  int vec_len_ = 1;
  device::Buffer task_row_, col_, vec_map_;
  plan::SrbcrsSddmmWorkspace workspace_;
};

}  // namespace

Refusal srbcrs_sddmm_can_implement(const SddmmProblem& p) {
  return plan::srbcrs_sddmm_refusal(describe_problem(p));
}

std::unique_ptr<SddmmKernelPlan> build_srbcrs_sddmm(const SddmmProblem& p, spxPlanInfo_t& info) {
  const plan::SrbcrsSddmmProblem d = describe_problem(p);
  const plan::SrbcrsSddmmChoice choice = plan::srbcrs_sddmm_choose(d);
  const HostStructure host = download_structure(p.h, p.C);
  plan::BcrsView view;
  view.rows = p.C.rows;
  view.cols = p.C.cols;
  view.vec_len = d.vec_len;
  view.block_row_ptr = host.ptr.data();
  view.block_col = host.idx.data();
  view.num_vectors = p.C.nnz;
  const plan::SrbcrsSddmmPlan sp = plan::srbcrs_sddmm_plan(view);
  const plan::ValuesLayout layout = output_layout(p);
  auto k = std::make_unique<SrbcrsSddmm>(p, choice, sp, layout);
  using T = ks::SddmmTile;
  info.family = SPX_SPMM_ALG_SRBCRS;
  std::snprintf(info.kernel, sizeof(info.kernel), "%s", choice.kernel_name().c_str());
  std::snprintf(
      info.config, sizeof(info.config),
      "%s m16n8k32 transposed (B cols on m16, V=%lld rows of A on n8)%s; %d slots per warp, "
      "k step %d; A %s, B %s%s; C %s in %s order",
      choice.precision().c_str(), static_cast<long long>(d.vec_len),
      choice.emulated()                           ? ", 16-bit emulated by 8-bit slices"
      : choice.a_bits == 4 || choice.b_bits == 4 ? ", int4 unpacked to int8"
                                                  : "",
      T::kSlots, T::kStepK, order_name(p.A.order), order_name(p.B.order),
      p.A.order == SPX_ORDER_ROW && p.B.order == SPX_ORDER_COL ? "" : " (copied k-contiguous)",
      dtype::name(p.C.type), layout == plan::ValuesLayout::Srbcrs ? "SR-BCRS" : "its own");
  info.metadata_bytes = k->metadata_bytes();
  info.values_bytes = 0;
  info.padded_nnz = k->padded_elements();
  info.workspace_bytes = k->workspace_bytes();
  return k;
}

}  // namespace spx::dispatch
