#include "families/srbcrs/family.hpp"

#include <cstdint>
#include <cstdio>
#include <string>
#include <utility>

#include "runtime/error.hpp"
#include "families/operands.hpp"
#include "families/structure.hpp"
#include "families/srbcrs/kernels/srbcrs.hpp"
#include "families/srbcrs/plan/choice.hpp"
#include "families/srbcrs/plan/layout.hpp"

namespace spx::dispatch {
namespace {

namespace ks = kernels::srbcrs;
using ll = long long;

/// The decision's inputs from the descriptors, the options and the device; A's structure
/// statistics are added by build (can_implement does not need them).
plan::srbcrs::Inputs inputs_of(const SpmmProblem& p) {
  plan::srbcrs::Inputs in;
  in.format = p.A.format;
  in.vec_len = p.A.format == SPX_FORMAT_BCRS ? p.A.vec_len : 1;
  in.a_type = p.A.type;
  in.b_type = p.B.type;
  in.c_type = p.C.type;
  in.compute_type = p.compute_type;
  in.b_order = p.B.order;
  in.c_order = p.C.order;
  in.rows = p.A.rows;
  in.cols = p.A.cols;
  in.n = p.B.cols;
  in.a_values_srbcrs = p.options.values_layout == SPX_VALUES_LAYOUT_SRBCRS;
  in.cc_major = p.h.cc_major;
  in.sm_count = p.h.sm_count;
  return in;
}

class SrbcrsSpmm final : public SpmmKernelPlan {
 public:
  SrbcrsSpmm(const SpmmProblem& p, plan::srbcrs::Decision decision, const plan::SrbcrsLayout& l)
      : decision_(std::move(decision)) {
    const plan::SrbcrsChoice& choice = decision_.variant;
    variant_.a_bits = choice.a_bits;
    variant_.b_bits = choice.b_bits;
    variant_.a_signed = choice.a_signed;
    variant_.b_signed = choice.b_signed;
    variant_.native_int4 = choice.native_int4;
    device::check(ks::spmm_load(variant_), "loading the SR-BCRS SpMM kernels");
    device::check(ks::pack_values_load(), "loading the SR-BCRS value packing kernel");
    SPX_EXPECTS(l.stride == choice.stride && l.slots == decision_.slots, SPX_STATUS_INTERNAL_ERROR,
                "the SR-BCRS layout (stride %lld, %lld slots) is not the one decided (%lld, %lld)",
                ll(l.stride), ll(l.slots), ll(choice.stride), ll(decision_.slots));
    m_ = l.rows;
    k_ = l.cols;
    vec_len_ = static_cast<int>(l.vec_len);
    vector_rows_ = l.vector_rows;
    slots_ = l.slots;
    row_ptr_ = device::upload(l.row_ptr, p.h.stream);
    col_ = device::upload(l.col, p.h.stream);
    vec_map_ = device::upload(l.vec_map, p.h.stream);
    values_ = device::Buffer(static_cast<size_t>(l.value_bytes()));
    update_values(p.h, p.A);
    device::check(cudaStreamSynchronize(p.h.stream), "packing A's values into the SR-BCRS plan");
  }

  void run(const spxContext& h, const SpmmCall& call) const override {
    ks::SpmmArgs a;
    a.m = m_;
    a.k = k_;
    a.n = call.C.cols;
    a.vec_len = vec_len_;
    a.vector_rows = vector_rows_;
    a.row_ptr = row_ptr_.as<int32_t>();
    a.col = col_.as<int32_t>();
    a.values = values_.get();
    a.B = view_of(call.B);
    a.C = view_of(call.C);
    a.scalars = scalars_of(h, call.alpha, call.beta, call.C.type == SPX_R_32I);
    a.workspace = call.workspace;
    a.split = decision_.schedule().split;
    a.tile_major = decision_.schedule().tile_major;
    const plan::srbcrs::BSource b = plan::srbcrs::b_source(
        decision_, call.B.order, reinterpret_cast<uintptr_t>(call.B.values), call.B.ld, a.n);
    a.b_in_place = b.in_place;
    a.b_pitch = b.pitch;
    device::check(ks::spmm(variant_, a, h.stream), "launching the SR-BCRS SpMM kernel");
  }

  void update_values(const spxContext& h, const spxSpMatDescr& A) override {
    if (A.value_slots() > 0) device::expect_device_pointer(A.values, "A's values");
    ks::PackArgs g;
    // SPX_VALUES_LAYOUT_SRBCRS (e.g. an SDDMM's output): element for element in place, no
    // gather (16-bit values are still split into the kernel's two byte slices).
    g.src_srbcrs = decision_.a_values_srbcrs;
    g.slots = slots_;
    g.stride = decision_.variant.stride;
    g.vec_len = vec_len_;
    g.bits = decision_.variant.a_bits;
    g.vec_map = vec_map_.as<int32_t>();
    g.src = A.values;
    g.dst = values_.get();
    device::check(ks::pack_values(g, h.stream), "launching the SR-BCRS value packing kernel");
  }

  int candidate_count() const override { return decision_.schedules.count(); }
  int selected() const override { return decision_.schedules.selected(); }
  void select(int c) override { decision_.schedules.select(c); }
  std::string describe(int c) const override { return decision_.describe(c); }
  size_t workspace_bytes() const override { return static_cast<size_t>(decision_.workspace_bytes); }

  size_t metadata_bytes() const { return row_ptr_.bytes() + col_.bytes() + vec_map_.bytes(); }
  size_t values_bytes() const { return values_.bytes(); }
  int64_t padded_elements() const { return slots_ * vec_len_; }

 private:
  plan::srbcrs::Decision decision_;  ///< what runs (the selected schedule: spxSpMM_search)
  ks::Variant variant_;
  int64_t m_ = 0, k_ = 0, vector_rows_ = 0, slots_ = 0;
  int vec_len_ = 1;
  device::Buffer row_ptr_, col_, vec_map_, values_;
};

}  // namespace

Refusal srbcrs_can_implement(const SpmmProblem& p) {
  return plan::srbcrs::refusal(inputs_of(p));
}

std::unique_ptr<SpmmKernelPlan> build_srbcrs_spmm(const SpmmProblem& p, spxPlanInfo_t& info) {
  plan::srbcrs::Inputs in = inputs_of(p);
  const HostStructure host = download_structure(p.h, p.A);
  plan::BcrsView view;
  view.rows = p.A.rows;
  view.cols = p.A.cols;
  view.vec_len = in.vec_len;
  view.block_row_ptr = host.ptr.data();
  view.block_col = host.idx.data();
  view.num_vectors = p.A.nnz;  // BCRS: vectors; CSR: entries (V = 1)
  if (p.A.format == SPX_FORMAT_CSR) {  // messages name the user's arrays
    view.ptr_name = "row_ptr";
    view.col_name = "col_ind";
  }
  in.structure = plan::srbcrs_structure_stats(view);
  plan::srbcrs::Decision decision =
      plan::srbcrs::choose(in, plan::srbcrs::read_overrides(p.switches));
  plan::SrbcrsConfig cfg;
  cfg.stride = decision.variant.stride;
  cfg.type = p.A.type;
  const plan::SrbcrsLayout layout = plan::srbcrs_build_structure(view, cfg);
  info.family = SPX_SPMM_ALG_SRBCRS;
  std::snprintf(info.kernel, sizeof(info.kernel), "%s", decision.kernel().c_str());
  std::snprintf(info.config, sizeof(info.config), "%s", decision.describe().c_str());
  info.split_k = decision.schedule().split;
  auto k = std::make_unique<SrbcrsSpmm>(p, std::move(decision), layout);
  info.metadata_bytes = k->metadata_bytes();
  info.values_bytes = k->values_bytes();
  info.padded_nnz = k->padded_elements();
  return k;
}

}  // namespace spx::dispatch
