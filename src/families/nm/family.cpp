#include "families/nm/family.hpp"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "families/nm/kernels/config.hpp"
#include "families/nm/kernels/launch.hpp"
#include "families/nm/plan/choice.hpp"
#include "families/nm/plan/layout.hpp"
#include "families/operands.hpp"
#include "families/record.hpp"
#include "families/structure.hpp"
#include "runtime/dtype.hpp"
#include "runtime/elapsed.hpp"
#include "runtime/log.hpp"

namespace spx::dispatch {
namespace {

namespace knm = kernels::nm;
namespace pnm = plan::nm;
using ll = long long;

bool fast_m(int64_t m) {
  return m == 4 || m == 8 || m == 16 || m == 32 || m == 64 || m == 128;
}
bool fast_l(int64_t l) {
  return l == 16 || l == 32 || l == 64 || l == 128;
}

/// Largest n (columns of B and C) a launch takes: n tiles of the smallest BN on grid.y.
constexpr int64_t kMaxN = int64_t{65535} * 32;

/// What the choice needs from the problem (plan/choice.hpp: Inputs); `indices` and the device's
/// tensor-map encoder and occupancy calculator only for analyze.
pnm::Inputs choice_inputs(const SpmmProblem& p) {
  pnm::Inputs in;
  in.dims.rows = p.A.rows;
  in.dims.cols = p.A.cols;
  in.dims.n = p.A.n;
  in.dims.m = p.A.m;
  in.dims.l = p.A.l;
  in.n_cols = p.C.cols;
  in.b_col_major = p.B.order == SPX_ORDER_COL;
  in.c_col_major = p.C.order == SPX_ORDER_COL;
  in.b_ld = p.B.ld;
  in.b_aligned = reinterpret_cast<uintptr_t>(p.B.values) % 16 == 0;
  in.sm_count = p.h.sm_count;
  in.code_arch = p.h.code_arch;
  in.smem_optin = static_cast<int64_t>(p.h.smem_per_block_optin);
  return in;
}

/// The plan's copy of A (values re-laid out for the stage geometry, the index layout), shared by
/// every prepared n, and A's host indices for the packing statistics of their decisions.
struct NmA {
  device::Buffer a_t, ridx, col_info, col_count;
  size_t metadata_bytes = 0;
  int64_t pack_capacity = 0;
  HostVector<int32_t> host_indices;
};

/// Whether a configuration's geometry was planned for its decision's n (stream-K's tile
/// schedule, the streamed copy's chunks): another n runs the candidate's cp.async fallback.
bool planned_for_n(const knm::SpmmConfig& c) {
  return std::holds_alternative<knm::StreamKLoop>(c.loop) ||
         std::holds_alternative<knm::StreamedBLoop>(c.loop);
}

class NmSpmm final : public SpmmKernelPlan {
 public:
  NmSpmm(const SpmmProblem& p, const pnm::Inputs& in, pnm::Decision decision,
         const plan::NmIndexLayout& layout, void* encoder, HostVector<int32_t> host_indices)
      : in_(in), decision_(std::move(decision)), a_(std::make_shared<NmA>()) {
    const plan::NmStaging& staging = decision_.staging;
    device::check(knm::spmm_load(p.h.smem_per_block_optin), "loading the NM SpMM kernels");
    device::check(knm::relayout_load(), "loading the NM value re-layout kernel");
    a_->host_indices = std::move(host_indices);
    in_.indices = nullptr;  // set for each decision from host_indices
    a_->a_t = device::Buffer(static_cast<size_t>(staging.kc_pad * staging.rows_pad) * sizeof(float));
    if (a_->a_t.bytes() > 0)
      device::check(cudaMemsetAsync(a_->a_t.get(), 0, a_->a_t.bytes(), p.h.stream),
                    "zeroing the NM value padding");
    a_->ridx = device::upload(layout.ridx, p.h.stream);
    a_->col_info = device::upload(layout.col_info, p.h.stream);
    a_->col_count = device::upload(layout.col_count, p.h.stream);
    a_->metadata_bytes = static_cast<size_t>(plan::nm_metadata_bytes(layout));
    a_->pack_capacity = layout.pack_capacity;
    set_common(p, encoder);
    update_values(p.h, p.A);
    device::check(cudaStreamSynchronize(p.h.stream), "re-laying out A's values into the plan");
  }

  /// A loaded plan (serialized): the arrays of `r`, the decision made again from its indices.
  NmSpmm(const SpmmProblem& p, const pnm::Inputs& in, pnm::Decision decision,
         const plan::NmRecord& r, void* encoder, HostVector<int32_t> host_indices)
      : in_(in), decision_(std::move(decision)), a_(std::make_shared<NmA>()) {
    device::check(knm::spmm_load(p.h.smem_per_block_optin), "loading the NM SpMM kernels");
    device::check(knm::relayout_load(), "loading the NM value re-layout kernel");
    a_->host_indices = std::move(host_indices);
    in_.indices = nullptr;
    a_->a_t = device::upload(r.a_t, p.h.stream);
    a_->ridx = device::upload(r.ridx, p.h.stream);
    a_->col_info = device::upload(r.col_info, p.h.stream);
    a_->col_count = device::upload(r.col_count, p.h.stream);
    a_->metadata_bytes = static_cast<size_t>(r.metadata_bytes);
    a_->pack_capacity = r.pack_capacity;
    set_common(p, encoder);
  }

  void save(FamilyRecord& out) const override {
    plan::NmRecord r;
    const plan::NmDims& d = decision_.dims;
    r.rows = d.rows, r.cols = d.cols, r.n = d.n, r.m = d.m, r.l = d.l;
    r.packing = decision_.packing;
    r.pack_capacity = a_->pack_capacity;
    r.metadata_bytes = static_cast<int64_t>(a_->metadata_bytes);
    const plan::NmStaging& s = decision_.staging;
    r.kc_pad = s.kc_pad, r.rows_pad = s.rows_pad, r.groups_pad = s.groups_pad, r.stages = s.stages;
    r.a_t = device::array_of(a_->a_t);
    r.ridx = device::array_of(a_->ridx);
    r.col_info = device::array_of(a_->col_info);
    r.col_count = device::array_of(a_->col_count);
    r.indices = {a_->host_indices.data(), a_->host_indices.size() * sizeof(int32_t), true};
    out.v = r;
  }

  void run(const spxContext& h, const SpmmCall& call) const override {
    // The choices a call makes: whether the tensor copies can read this call's B, and whether
    // the configuration's geometry fits this call's n.
    pnm::CallB b;
    b.ld = call.B.ld;
    b.address = reinterpret_cast<uintptr_t>(call.B.values);
    b.workspace = reinterpret_cast<uintptr_t>(call.workspace);
    const pnm::Candidate& c = decision_.candidates.chosen();
    const knm::SpmmConfig& config = call.C.cols != decision_.n_cols && planned_for_n(c.config)
                                        ? c.fallback
                                        : pnm::config_for_call(c, b);
    knm::SpmmCommon common = common_;
    common.n = call.C.cols;
    knm::SpmmOperands ops;
    ops.B = view_of(call.B);
    ops.C = view_of(call.C);
    ops.scalars = spmm_scalars_of(h, call, false);
    ops.workspace = call.workspace;
    device::check(knm::spmm(common, config, ops, h.stream), "launching the NM SpMM kernel");
  }

  void update_values(const spxContext& h, const spxSpMatDescr& A) override {
    if (A.value_slots() > 0) device::expect_device_pointer(A.values, "A's values");
    knm::RelayoutArgs r;
    r.rows = decision_.dims.rows;
    r.kc = decision_.dims.kc();
    r.rows_pad = decision_.staging.rows_pad;
    r.values = static_cast<const float*>(A.values);
    r.a_t = a_->a_t.as<float>();
    device::check(knm::relayout_values(r, h.stream), "launching the NM value re-layout kernel");
  }

  int candidate_count() const override { return decision_.candidates.count(); }
  int selected() const override { return decision_.candidates.selected(); }
  void select(int candidate) override { decision_.candidates.select(candidate); }
  std::string describe(int candidate) const override { return decision_.describe(candidate); }
  size_t workspace_bytes() const override {
    return static_cast<size_t>(decision_.workspace_bytes());
  }

  /// The tile, split and mainloop for another n over the same stage geometry: the decision is
  /// made with the analyzed B's leading dimension and alignment and the plan's packing, which
  /// fix the geometry (checked).
  std::unique_ptr<SpmmKernelPlan> for_columns(const SpmmProblem& p,
                                              spxPlanInfo_t& info) const override {
    auto k = std::make_unique<NmSpmm>(*this);
    pnm::Inputs in = in_;
    in.n_cols = p.C.cols;
    in.indices = a_->host_indices.data();
    pnm::Overrides ov = pnm::read_overrides(p.switches);
    ov.force_packing = decision_.packing ? 1 : 0;
    pnm::Decision d = pnm::choose(in, ov);
    d.packing_forced = decision_.packing_forced;
    const plan::NmStaging& was = decision_.staging;
    SPX_EXPECTS(d.staging.w_s == was.w_s && d.staging.k_s == was.k_s &&
                    d.staging.kc_pad == was.kc_pad && d.staging.rows_pad == was.rows_pad &&
                    d.rows_s == decision_.rows_s && d.depth == decision_.depth,
                SPX_STATUS_INTERNAL_ERROR,
                "the NM decision for n = %lld needs another stage geometry than the plan's",
                static_cast<long long>(p.C.cols));
    k->decision_ = std::move(d);
    k->common_.n = p.C.cols;
    k->fill_info(info);
    return k;
  }
  Held held() const override {
    return {a_->metadata_bytes, a_->a_t.bytes()};
  }

  const pnm::Decision& decision() const { return decision_; }
  void fill_info(spxPlanInfo_t& info) const {
    info.family = SPX_SPMM_ALG_NM;
    std::snprintf(info.kernel, sizeof(info.kernel), "nm_spmm_f32");
    std::snprintf(info.config, sizeof(info.config), "%s", decision_.describe().c_str());
    info.metadata_bytes = held().metadata;
    info.values_bytes = held().values;
    info.padded_nnz = decision_.staging.rows_pad * decision_.staging.kc_pad;
    info.split_k = knm::split_of(decision_.chosen());
    info.packing = decision_.packing ? 1 : 0;
    info.predicted_speedup = decision_.predicted_speedup;
  }

 private:
  /// The launch arguments every call shares: the problem's sizes, the decision's geometry and
  /// the plan's arrays.
  void set_common(const SpmmProblem& p, void* encoder) {
    const plan::NmStaging& staging = decision_.staging;
    common_.m = p.C.rows;
    common_.n = p.C.cols;
    common_.k = p.A.cols;
    common_.l = p.A.l;
    common_.w_s = static_cast<int>(staging.w_s);
    common_.k_s = static_cast<int>(staging.k_s);
    common_.rows_s = static_cast<int>(decision_.rows_s);
    common_.stages = static_cast<int>(staging.stages);
    common_.depth = decision_.depth;
    common_.a_t = a_->a_t.as<float>();
    common_.rows_pad = staging.rows_pad;
    common_.kc_pad = staging.kc_pad;
    common_.ridx = a_->ridx.as<uint16_t>();
    common_.packing = decision_.packing;
    common_.col_info = a_->col_info.as<uint16_t>();
    common_.col_count = a_->col_count.as<int32_t>();
    common_.pack_capacity = static_cast<int>(a_->pack_capacity);
    common_.tensor_map_encoder = encoder;
  }

  pnm::Inputs in_;  ///< the analyzed inputs (their n, B layout, device), indices unset
  pnm::Decision decision_;
  knm::SpmmCommon common_;
  std::shared_ptr<NmA> a_;
};

}  // namespace

Refusal nm_can_implement(const SpmmProblem& p) {
  if (p.A.format != SPX_FORMAT_NM) return "A is not in the vector-wise N:M format";
  if (p.A.type != SPX_R_32F || p.B.type != SPX_R_32F || p.C.type != SPX_R_32F ||
      p.compute_type != SPX_R_32F)
    return strf("the NM kernels take fp32 A, B and C with fp32 compute only (A %s, B %s, C %s)",
                dtype::name(p.A.type), dtype::name(p.B.type), dtype::name(p.C.type));
  if (!fast_m(p.A.m)) return strf("M (%lld) is not one of 4, 8, 16, 32, 64, 128", ll(p.A.m));
  if (!fast_l(p.A.l)) return strf("L (%lld) is not one of 16, 32, 64, 128", ll(p.A.l));
  if (p.h.cc_major < 8) return "the NM kernels need sm_80 or newer (cp.async)";
  if (p.A.rows > INT32_MAX || p.A.cols > INT32_MAX || p.C.cols > kMaxN)
    return strf("the shape %lld x %lld x %lld exceeds the NM kernels' grid", ll(p.A.rows),
                ll(p.A.cols), ll(p.C.cols));
  if (!pnm::any_stage_fits(choice_inputs(p)))
    return strf("no NM pipeline stage fits the device's %lld bytes of shared memory per block",
                ll(p.h.smem_per_block_optin));
  return {};
}

std::unique_ptr<SpmmKernelPlan> load_nm_spmm(const SpmmProblem& p, const plan::NmRecord& r) {
  SPX_EXPECTS(r.rows == p.A.rows && r.cols == p.A.cols && r.n == p.A.n && r.m == p.A.m &&
                  r.l == p.A.l,
              SPX_STATUS_INVALID_VALUE, "serialized plan is invalid: its NM record is not A's shape");
  HostVector<int32_t> idx(static_cast<size_t>(r.indices.bytes / sizeof(int32_t)));
  if (!idx.empty()) std::memcpy(idx.data(), r.indices.data, idx.size() * sizeof(int32_t));
  pnm::Inputs in = choice_inputs(p);
  plan::validate_nm_indices(in.dims, idx.data());
  in.indices = idx.data();
  void* encoder = knm::tensor_map_encoder();
  in.tensor_maps = encoder != nullptr;
  in.stream_k_blocks_per_sm = [](knm::TileId tile, int64_t smem) {
    return knm::spmm_bulk_stream_k_occupancy(tile, smem);
  };
  pnm::Decision d = pnm::choose(in, pnm::read_overrides(p.switches));
  const plan::NmStaging& s = d.staging;
  SPX_EXPECTS(s.kc_pad == r.kc_pad && s.rows_pad == r.rows_pad && s.groups_pad == r.groups_pad &&
                  s.stages == r.stages && d.packing == r.packing,
              SPX_STATUS_NOT_SUPPORTED,
              "serialized plan: the NM decision made again on this device does not take the "
              "stored stage geometry; analyze the matrix again");
  return std::make_unique<NmSpmm>(p, in, std::move(d), r, encoder, std::move(idx));
}

std::unique_ptr<SpmmKernelPlan> build_nm_spmm(const SpmmProblem& p, spxPlanInfo_t& info) {
  const auto t_start = Clock::now();
  HostStructure host = download_structure(p.h, p.A);
  const double ms_download = ms_since(t_start);
  pnm::Inputs in = choice_inputs(p);
  plan::validate_nm_indices(in.dims, host.idx.data());
  in.indices = host.idx.data();
  void* encoder = knm::tensor_map_encoder();
  in.tensor_maps = encoder != nullptr;
  in.stream_k_blocks_per_sm = [](knm::TileId tile, int64_t smem) {
    return knm::spmm_bulk_stream_k_occupancy(tile, smem);
  };
  // THE decision (plan/choice.cpp), from the switches parsed once.
  pnm::Decision d = pnm::choose(in, pnm::read_overrides(p.switches));

  const plan::NmIndexLayout layout = plan::nm_build_layout(
      d.dims, host.idx.data(), d.staging, d.packing, knm::kPackTileRows, d.pack_capacity);
  const double ms_planning = ms_since(t_start) - ms_download;
  const auto t_device = Clock::now();
  auto k = std::make_unique<NmSpmm>(p, in, std::move(d), layout, encoder, std::move(host.idx));
  const double ms_device = ms_since(t_device);
  const pnm::Decision& decision = k->decision();
  k->fill_info(info);
  const plan::NmPackingDecision& m = decision.model;
  log::info(
      "NM plan: packing %s (model: AI plain %.1f, packed %.1f FLOP/B, balance %.1f; "
      "clk/slot plain %.0f, packed %.0f%s)",
      decision.packing ? "on" : "off", m.ai_plain, m.ai_packed, m.balance, m.clk_per_slot_plain,
      m.clk_per_slot_packed, decision.packing_forced ? "; forced by SPX_NM_FORCE_PACKING" : "");
  // Where analyze's time goes (SPX_LOG_LEVEL=3, trace): reading A's indices, host planning, and the
  // plan's device side (buffers, value re-layout, kernel loading).
  log::trace("NM analyze: indices download %.2f ms, planning %.2f ms, device setup %.2f ms",
             ms_download, ms_planning, ms_device);
  return k;
}

}  // namespace spx::dispatch
