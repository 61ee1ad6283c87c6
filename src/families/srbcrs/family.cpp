#include "families/srbcrs/family.hpp"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/dtype.hpp"
#include "runtime/log.hpp"
#include "families/operands.hpp"
#include "families/structure.hpp"
#include "families/srbcrs/kernels/config.hpp"
#include "families/srbcrs/kernels/srbcrs.hpp"
#include "families/srbcrs/plan/choice.hpp"
#include "families/srbcrs/plan/layout.hpp"

namespace spx::dispatch {
namespace {

namespace ks = kernels::srbcrs;
using ll = long long;

plan::SrbcrsProblem describe_problem(const SpmmProblem& p) {
  plan::SrbcrsProblem d;
  d.format = p.A.format;
  d.vec_len = p.A.format == SPX_FORMAT_BCRS ? p.A.vec_len : 1;
  d.a_type = p.A.type;
  d.b_type = p.B.type;
  d.c_type = p.C.type;
  d.compute_type = p.compute_type;
  d.cc_major = p.h.cc_major;
  d.rows = p.A.rows;
  d.cols = p.A.cols;
  d.n = p.B.cols;
  return d;
}

/// The schedule the plan starts on: the rule's, or SPX_SRBCRS_FORCE_SPLIT=1|2|4 and
/// SPX_SRBCRS_FORCE_ORDER=row|tile (environment, read by analyze; for tests and experiments).
plan::SrbcrsSchedule starting_schedule(const plan::SrbcrsLayout& l, int64_t n, int sm_count,
                                       const plan::SrbcrsChoice& c, const Switches& switches) {
  plan::SrbcrsSchedule s =
      plan::srbcrs_schedule(l.vector_rows, n, l.slots, sm_count, c.warp_cols, c.stride);
  if (const int64_t split = switches.integer("SPX_SRBCRS_FORCE_SPLIT", 0); split != 0) {
    if (split == 1 || split == 2 || split == 4)
      s.split = static_cast<int>(split);
    else
      log::info("SPX_SRBCRS_FORCE_SPLIT=%lld ignored: not 1, 2 or 4", static_cast<long long>(split));
  }
  if (const char* v = switches.text("SPX_SRBCRS_FORCE_ORDER")) {
    if (std::strcmp(v, "row") == 0 || std::strcmp(v, "tile") == 0)
      s.tile_major = std::strcmp(v, "tile") == 0;
    else
      log::info("SPX_SRBCRS_FORCE_ORDER=%s ignored: not row or tile", v);
  }
  return s;
}

/// The L4-R4 path: the rule's, or SPX_SRBCRS_FORCE_INT4=native|unpacked (environment, read by
/// analyze; lets the native int4 kernel be tested on a GPU where the rule would not pick it).
plan::SrbcrsInt4Path int4_path_override(const Switches& switches) {
  const char* v = switches.text("SPX_SRBCRS_FORCE_INT4");
  if (v == nullptr) return plan::SrbcrsInt4Path::Rule;
  if (std::strcmp(v, "native") == 0) return plan::SrbcrsInt4Path::Native;
  if (std::strcmp(v, "unpacked") == 0) return plan::SrbcrsInt4Path::Unpacked;
  log::info("SPX_SRBCRS_FORCE_INT4=%s ignored: not native or unpacked", v);
  return plan::SrbcrsInt4Path::Rule;
}

class SrbcrsSpmm final : public SpmmKernelPlan {
 public:
  SrbcrsSpmm(const SpmmProblem& p, const plan::SrbcrsChoice& choice, const plan::SrbcrsLayout& l)
      : choice_(choice) {
    variant_.a_bits = choice.a_bits;
    variant_.b_bits = choice.b_bits;
    variant_.a_signed = choice.a_signed;
    variant_.b_signed = choice.b_signed;
    variant_.native_int4 = choice.native_int4;
    device::check(ks::spmm_load(variant_), "loading the SR-BCRS SpMM kernels");
    device::check(ks::pack_values_load(), "loading the SR-BCRS value packing kernel");
    m_ = l.rows;
    k_ = l.cols;
    n_ = p.B.cols;
    vec_len_ = static_cast<int>(l.vec_len);
    vector_rows_ = l.vector_rows;
    slots_ = l.slots;
    row_ptr_ = device::upload(l.row_ptr, p.h.stream);
    col_ = device::upload(l.col, p.h.stream);
    vec_map_ = device::upload(l.vec_map, p.h.stream);
    values_ = device::Buffer(static_cast<size_t>(l.value_bytes()));
    // A's values in the public SR-BCRS layout (spxValuesLayout_t: stride 32, plain elements) are
    // this plan's slots at stride 32; the native int4 path's stride 64 numbers slots otherwise.
    values_srbcrs_ = p.options.values_layout == SPX_VALUES_LAYOUT_SRBCRS;
    SPX_EXPECTS(!values_srbcrs_ || l.stride == 32, SPX_STATUS_NOT_SUPPORTED,
                "A's values in the SR-BCRS layout (stride 32) cannot fill this plan's stride-%lld "
                "layout (the native int4 path); use the native values layout",
                static_cast<long long>(l.stride));
    workspace_ = static_cast<size_t>(plan::srbcrs_workspace_bytes(k_, n_, choice.b_bits));
    schedules_ = plan::srbcrs_schedules(starting_schedule(l, n_, p.h.sm_count, choice, p.switches));
    // At most ~150 characters, so the schedule appended by describe() fits spxPlanInfo_t.
    config_ = strf("%s %s (V=%d on n8); stride %lld, warp %lld cols, %d stages; B %s%s; C %s %s",
                   choice.precision().c_str(), choice.path().c_str(), vec_len_,
                   ll(choice.stride), ll(choice.warp_cols), ks::SpmmTile::kStages,
                   order_name(p.B.order),
                   p.B.order == SPX_ORDER_ROW ? " (in place if 16 B aligned)" : " (copied)",
                   dtype::name(p.C.type), order_name(p.C.order));
    if (values_srbcrs_) config_ += "; A's values in SR-BCRS order";
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
    a.split = schedules_[selected_].split;
    a.tile_major = schedules_[selected_].tile_major;
    device::check(ks::spmm(variant_, a, h.stream), "launching the SR-BCRS SpMM kernel");
  }

  void update_values(const spxContext& h, const spxSpMatDescr& A) override {
    if (A.value_slots() > 0) device::expect_device_pointer(A.values, "A's values");
    ks::PackArgs g;
    // SPX_VALUES_LAYOUT_SRBCRS (e.g. an SDDMM's output): element for element in place, no
    // gather (16-bit values are still split into the kernel's two byte slices).
    g.src_srbcrs = values_srbcrs_;
    g.slots = slots_;
    g.stride = choice_.stride;
    g.vec_len = vec_len_;
    g.bits = choice_.a_bits;
    g.vec_map = vec_map_.as<int32_t>();
    g.src = A.values;
    g.dst = values_.get();
    device::check(ks::pack_values(g, h.stream), "launching the SR-BCRS value packing kernel");
  }

  int candidate_count() const override { return static_cast<int>(schedules_.size()); }
  int selected() const override { return selected_; }
  void select(int c) override {
    SPX_EXPECTS(c >= 0 && c < candidate_count(), SPX_STATUS_INTERNAL_ERROR,
                "SR-BCRS candidate %d out of range", c);
    selected_ = c;
  }
  std::string describe(int c) const override {
    return config_ + "; " + schedules_.at(static_cast<size_t>(c)).describe();
  }
  size_t workspace_bytes() const override { return workspace_; }
  int split() const { return schedules_[selected_].split; }

  size_t metadata_bytes() const { return row_ptr_.bytes() + col_.bytes() + vec_map_.bytes(); }
  size_t values_bytes() const { return values_.bytes(); }
  int64_t padded_elements() const { return slots_ * vec_len_; }

 private:
  plan::SrbcrsChoice choice_;
  ks::Variant variant_;
  int64_t m_ = 0, k_ = 0, n_ = 0, vector_rows_ = 0, slots_ = 0;
  int vec_len_ = 1;
  device::Buffer row_ptr_, col_, vec_map_, values_;
  bool values_srbcrs_ = false;  ///< A's values arrive in the SR-BCRS layout (stride 32)
  size_t workspace_ = 0;
  std::string config_;
  std::vector<plan::SrbcrsSchedule> schedules_;
  int selected_ = 0;
};

}  // namespace

Refusal srbcrs_can_implement(const SpmmProblem& p) {
  return plan::srbcrs_refusal(describe_problem(p));
}

std::unique_ptr<SpmmKernelPlan> build_srbcrs_spmm(const SpmmProblem& p, spxPlanInfo_t& info) {
  plan::SrbcrsProblem d = describe_problem(p);
  d.int4_path = int4_path_override(p.switches);
  const plan::SrbcrsChoice choice = plan::srbcrs_choose(d);
  const HostStructure host = download_structure(p.h, p.A);
  plan::BcrsView view;
  view.rows = p.A.rows;
  view.cols = p.A.cols;
  view.vec_len = d.vec_len;
  view.block_row_ptr = host.ptr.data();
  view.block_col = host.idx.data();
  view.num_vectors = p.A.nnz;  // BCRS: vectors; CSR: entries (V = 1)
  plan::SrbcrsConfig cfg;
  cfg.stride = choice.stride;
  cfg.type = p.A.type;
  const plan::SrbcrsLayout layout = plan::srbcrs_build_structure(view, cfg);
  auto k = std::make_unique<SrbcrsSpmm>(p, choice, layout);
  info.family = SPX_SPMM_ALG_SRBCRS;
  std::snprintf(info.kernel, sizeof(info.kernel), "%s", choice.kernel_name().c_str());
  std::snprintf(info.config, sizeof(info.config), "%s", k->describe(k->selected()).c_str());
  info.metadata_bytes = k->metadata_bytes();
  info.values_bytes = k->values_bytes();
  info.padded_nnz = k->padded_elements();
  info.split_k = k->split();
  return k;
}

}  // namespace spx::dispatch
