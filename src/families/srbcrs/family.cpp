#include "families/srbcrs/family.hpp"

#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>

#include "runtime/elapsed.hpp"
#include "runtime/error.hpp"
#include "runtime/log.hpp"
#include "families/operands.hpp"
#include "families/record.hpp"
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

/// The plan's copy of A (SR-BCRS layout at the decided stride), shared by every prepared n.
struct SrbcrsA {
  ks::Variant variant;
  int64_t m = 0, k = 0, vector_rows = 0, slots = 0;
  int vec_len = 1;
  device::Buffer row_ptr, col, vec_map, values;
};

class SrbcrsSpmm final : public SpmmKernelPlan {
 public:
  SrbcrsSpmm(const SpmmProblem& p, const plan::srbcrs::Inputs& in,
             plan::srbcrs::Decision decision, const plan::SrbcrsLayout& l)
      : in_(in), decision_(std::move(decision)), a_(std::make_shared<SrbcrsA>()) {
    const plan::SrbcrsChoice& choice = decision_.variant;
    load_variant();
    SPX_EXPECTS(l.stride == choice.stride && l.slots == decision_.slots, SPX_STATUS_INTERNAL_ERROR,
                "the SR-BCRS layout (stride %lld, %lld slots) is not the one decided (%lld, %lld)",
                ll(l.stride), ll(l.slots), ll(choice.stride), ll(decision_.slots));
    a_->m = l.rows;
    a_->k = l.cols;
    a_->vec_len = static_cast<int>(l.vec_len);
    a_->vector_rows = l.vector_rows;
    a_->slots = l.slots;
    a_->row_ptr = device::upload(l.row_ptr, p.h.stream);
    a_->col = device::upload(l.col, p.h.stream);
    a_->vec_map = device::upload(l.vec_map, p.h.stream);
    a_->values = device::Buffer(static_cast<size_t>(l.value_bytes()));
    update_values(p.h, p.A);
    device::check(cudaStreamSynchronize(p.h.stream), "packing A's values into the SR-BCRS plan");
  }

  /// A loaded plan (serialized): the layout of `r` (checked to be the decided one).
  SrbcrsSpmm(const SpmmProblem& p, const plan::srbcrs::Inputs& in,
             plan::srbcrs::Decision decision, const plan::SrbcrsRecord& r)
      : in_(in), decision_(std::move(decision)), a_(std::make_shared<SrbcrsA>()) {
    load_variant();
    SPX_EXPECTS(r.stride == decision_.variant.stride && r.slots == decision_.slots,
                SPX_STATUS_NOT_SUPPORTED,
                "serialized plan: the SR-BCRS decision made again on this device takes another "
                "layout (stride %lld, %lld slots) than the stored one (%lld, %lld); analyze the "
                "matrix again",
                ll(decision_.variant.stride), ll(decision_.slots), ll(r.stride), ll(r.slots));
    a_->m = r.m;
    a_->k = r.k;
    a_->vec_len = static_cast<int>(r.vec_len);
    a_->vector_rows = r.vector_rows;
    a_->slots = r.slots;
    a_->row_ptr = device::upload(r.row_ptr, p.h.stream);
    a_->col = device::upload(r.col, p.h.stream);
    a_->vec_map = device::upload(r.vec_map, p.h.stream);
    a_->values = device::upload(r.values, p.h.stream);
  }

  void save(FamilyRecord& out) const override {
    plan::SrbcrsRecord r;
    r.a_type = in_.a_type;
    r.m = a_->m, r.k = a_->k, r.vec_len = a_->vec_len, r.vector_rows = a_->vector_rows;
    r.slots = a_->slots, r.stride = decision_.variant.stride;
    const plan::SrbcrsStructureStats& st = in_.structure;
    r.stats_vector_rows = st.vector_rows, r.stats_num_vectors = st.num_vectors;
    r.stats_slots32 = st.slots32, r.stats_slots64 = st.slots64;
    r.row_ptr = device::array_of(a_->row_ptr);
    r.col = device::array_of(a_->col);
    r.vec_map = device::array_of(a_->vec_map);
    r.values = device::array_of(a_->values);
    out.v = r;
  }

  void run(const spxContext& h, const SpmmCall& call) const override {
    ks::SpmmArgs a;
    a.m = a_->m;
    a.k = a_->k;
    a.n = call.C.cols;
    a.vec_len = a_->vec_len;
    a.vector_rows = a_->vector_rows;
    a.row_ptr = a_->row_ptr.as<int32_t>();
    a.col = a_->col.as<int32_t>();
    a.values = a_->values.get();
    a.B = view_of(call.B);
    a.C = view_of(call.C);
    a.scalars = spmm_scalars_of(h, call, call.C.type == SPX_R_32I);
    a.workspace = call.workspace;
    a.split = decision_.schedule().split;
    a.tile_major = decision_.schedule().tile_major;
    const plan::srbcrs::BSource b = plan::srbcrs::b_source(
        decision_, call.B.order, reinterpret_cast<uintptr_t>(call.B.values), call.B.ld, a.n);
    a.b_in_place = b.in_place;
    a.b_pitch = b.pitch;
    device::check(ks::spmm(a_->variant, a, h.stream), "launching the SR-BCRS SpMM kernel");
  }

  void update_values(const spxContext& h, const spxSpMatDescr& A) override {
    if (A.value_slots() > 0) device::expect_device_pointer(A.values, "A's values");
    ks::PackArgs g;
    // SPX_VALUES_LAYOUT_SRBCRS (e.g. an SDDMM's output): element for element in place, no
    // gather (16-bit values are still split into the kernel's two byte slices).
    g.src_srbcrs = decision_.a_values_srbcrs;
    g.slots = a_->slots;
    g.stride = decision_.variant.stride;
    g.vec_len = a_->vec_len;
    g.bits = decision_.variant.a_bits;
    g.vec_map = a_->vec_map.as<int32_t>();
    g.src = A.values;
    g.dst = a_->values.get();
    device::check(ks::pack_values(g, h.stream), "launching the SR-BCRS value packing kernel");
  }

  int candidate_count() const override { return decision_.schedules.count(); }
  int selected() const override { return decision_.schedules.selected(); }
  void select(int c) override { decision_.schedules.select(c); }
  std::string describe(int c) const override { return decision_.describe(c); }
  size_t workspace_bytes() const override { return static_cast<size_t>(decision_.workspace_bytes); }

  /// The schedule for another n over the same layout (its stride and kernel depend on the types
  /// and the device only: checked).
  std::unique_ptr<SpmmKernelPlan> for_columns(const SpmmProblem& p,
                                              spxPlanInfo_t& info) const override {
    auto k = std::make_unique<SrbcrsSpmm>(*this);
    k->in_.n = p.B.cols;
    k->in_.b_order = p.B.order;
    k->decision_ = plan::srbcrs::choose(k->in_, plan::srbcrs::read_overrides(p.switches));
    const plan::SrbcrsChoice& was = decision_.variant;
    const plan::SrbcrsChoice& now = k->decision_.variant;
    SPX_EXPECTS(now.stride == was.stride && now.a_bits == was.a_bits && now.b_bits == was.b_bits &&
                    now.native_int4 == was.native_int4 && k->decision_.slots == decision_.slots,
                SPX_STATUS_INTERNAL_ERROR,
                "the SR-BCRS decision for n = %lld needs another layout than the plan's",
                ll(p.B.cols));
    k->fill_info(info);
    return k;
  }
  Held held() const override {
    return {a_->row_ptr.bytes() + a_->col.bytes() + a_->vec_map.bytes(), a_->values.bytes()};
  }

  void fill_info(spxPlanInfo_t& info) const {
    info.family = SPX_SPMM_ALG_SRBCRS;
    std::snprintf(info.kernel, sizeof(info.kernel), "%s", decision_.kernel().c_str());
    std::snprintf(info.config, sizeof(info.config), "%s", decision_.describe().c_str());
    info.split_k = decision_.schedule().split;
    info.metadata_bytes = held().metadata;
    info.values_bytes = held().values;
    info.padded_nnz = a_->slots * a_->vec_len;
  }

 private:
  void load_variant() {
    const plan::SrbcrsChoice& choice = decision_.variant;
    a_->variant.a_bits = choice.a_bits;
    a_->variant.b_bits = choice.b_bits;
    a_->variant.a_signed = choice.a_signed;
    a_->variant.b_signed = choice.b_signed;
    a_->variant.native_int4 = choice.native_int4;
    device::check(ks::spmm_load(a_->variant), "loading the SR-BCRS SpMM kernels");
    device::check(ks::pack_values_load(), "loading the SR-BCRS value packing kernel");
  }

  plan::srbcrs::Inputs in_;          ///< the decision's inputs (A's statistics included)
  plan::srbcrs::Decision decision_;  ///< what runs (the selected schedule: spxSpMM_search)
  std::shared_ptr<SrbcrsA> a_;
};

}  // namespace

Refusal srbcrs_can_implement(const SpmmProblem& p) {
  return plan::srbcrs::refusal(inputs_of(p));
}

std::unique_ptr<SpmmKernelPlan> load_srbcrs_spmm(const SpmmProblem& p,
                                                 const plan::SrbcrsRecord& r) {
  plan::srbcrs::Inputs in = inputs_of(p);
  SPX_EXPECTS(r.m == p.A.rows && r.k == p.A.cols && r.vec_len == in.vec_len && r.a_type == p.A.type,
              SPX_STATUS_INVALID_VALUE,
              "serialized plan is invalid: its SR-BCRS record is not A's shape and type");
  in.structure.vector_rows = r.stats_vector_rows;
  in.structure.num_vectors = r.stats_num_vectors;
  in.structure.slots32 = r.stats_slots32;
  in.structure.slots64 = r.stats_slots64;
  const std::string why = plan::srbcrs::refusal(in);
  SPX_EXPECTS(why.empty(), SPX_STATUS_NOT_SUPPORTED,
              "serialized plan: the SR-BCRS family cannot run it on this device: %s", why.c_str());
  plan::srbcrs::Decision d = plan::srbcrs::choose(in, plan::srbcrs::read_overrides(p.switches));
  return std::make_unique<SrbcrsSpmm>(p, in, std::move(d), r);
}

std::unique_ptr<SpmmKernelPlan> build_srbcrs_spmm(const SpmmProblem& p, spxPlanInfo_t& info) {
  const auto start = Clock::now();
  plan::srbcrs::Inputs in = inputs_of(p);
  const HostStructure host = download_structure(p.h, p.A);
  const double ms_download = ms_since(start);
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
  cfg.host_values = false;  // packed on the device from the user's values
  const plan::SrbcrsLayout layout = plan::srbcrs_build_structure(view, cfg);
  const double ms_layout = ms_since(start) - ms_download;
  auto k = std::make_unique<SrbcrsSpmm>(p, in, std::move(decision), layout);
  k->fill_info(info);
  // Where analyze's time goes (SPX_LOG_LEVEL=3).
  log::trace("SR-BCRS analyze: structure download %.2f ms, decision and layout %.2f ms, device "
             "setup %.2f ms",
             ms_download, ms_layout, ms_since(start) - ms_download - ms_layout);
  return k;
}

}  // namespace spx::dispatch
