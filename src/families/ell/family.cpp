#include "families/ell/family.hpp"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "runtime/dtype.hpp"
#include "runtime/elapsed.hpp"
#include "runtime/log.hpp"
#include "families/operands.hpp"
#include "families/record.hpp"
#include "families/structure.hpp"
#include "families/ell/kernels/ell.hpp"
#include "families/ell/plan/call.hpp"
#include "families/ell/plan/choice.hpp"
#include "families/ell/plan/layout.hpp"
#include "families/ell/plan/predict.hpp"

namespace spx::dispatch {
namespace {

namespace ek = kernels::ell;

/// The layout's numbers the rule looks at (kept for the decisions of other n).
struct EllShape {
  int64_t rows = 0, cols = 0, width = 0, nnz = 0, overflow = 0;
  bool index16 = true;
};

/// What the rule looks at, from the problem and the planned layout.
plan::EllInputs inputs_of(const SpmmProblem& p, const EllShape& l) {
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

/// The plan's copy of A, shared by the plans of every prepared n.
struct EllA {
  EllShape shape;
  bool half = false;
  int64_t stride = 0, slots = 0, alloc_slots = 0;
  device::Buffer values, indices, row_len, tail_ptr, slot_map;
  device::Buffer dense_a;  ///< DenseMma: A densified (+ row flags); empty until some n needs it
  bool packed = false;     ///< values hold A (after the first update_values)
};

class EllSpmm final : public SpmmKernelPlan {
 public:
  EllSpmm(const SpmmProblem& p, const plan::EllLayout& l) : a_(std::make_shared<EllA>()) {
    a_->shape = {l.rows, l.cols, l.width, l.nnz, l.overflow, l.index16};
    a_->half = p.A.type == SPX_R_16F;
    a_->stride = l.stride;
    a_->slots = l.slots();
    a_->alloc_slots = static_cast<int64_t>(l.col.size());  // slots + the overrun pad
    device::check(ek::spmm_load(a_->half, l.index16, p.h.smem_per_block_optin),
                  "loading the ELL SpMM kernels");
    device::check(ek::pack_values_load(), "loading the ELL value packing kernel");
    a_->indices =
        l.index16 ? device::upload(l.col16(), p.h.stream) : device::upload(l.col, p.h.stream);
    a_->row_len = device::upload(l.row_len, p.h.stream);
    if (!l.tail_ptr.empty()) a_->tail_ptr = device::upload(l.tail_ptr, p.h.stream);
    a_->slot_map = device::upload(l.src_slot, p.h.stream);
    a_->values = device::Buffer(static_cast<size_t>(a_->alloc_slots) * (a_->half ? 2 : 4));
    decide(p, true);
    update_values(p.h, p.A);
    device::check(cudaStreamSynchronize(p.h.stream), "packing A's values into the ELL plan");
  }

  /// A loaded plan (serialized): the arrays of `r` (the DenseMma dense A too, where one was
  /// made), the decision for p's n made again.
  EllSpmm(const SpmmProblem& p, const plan::EllRecord& r) : a_(std::make_shared<EllA>()) {
    a_->shape = {r.rows, r.cols, r.width, r.nnz, r.overflow, r.index16};
    a_->half = r.half;
    a_->stride = r.stride;
    a_->slots = r.slots;
    a_->alloc_slots = r.alloc_slots;
    device::check(ek::spmm_load(a_->half, r.index16, p.h.smem_per_block_optin),
                  "loading the ELL SpMM kernels");
    device::check(ek::pack_values_load(), "loading the ELL value packing kernel");
    const cudaStream_t s = p.h.stream;
    a_->indices = device::upload(r.indices, s);
    a_->row_len = device::upload(r.row_len, s);
    a_->tail_ptr = device::upload(r.tail_ptr, s);
    a_->slot_map = device::upload(r.slot_map, s);
    a_->values = device::upload(r.values, s);
    a_->dense_a = device::upload(r.dense_a, s);
    a_->packed = r.packed;
    decide(p, true);
    SPX_EXPECTS(a_->dense_a.bytes() == r.dense_a.bytes, SPX_STATUS_NOT_SUPPORTED,
                "serialized plan: the ELL decision made again on this device needs another dense "
                "A than the stored one; analyze the matrix again");
  }

  void save(FamilyRecord& out) const override {
    plan::EllRecord r;
    const EllShape& l = a_->shape;
    r.rows = l.rows, r.cols = l.cols, r.width = l.width, r.nnz = l.nnz, r.overflow = l.overflow;
    r.index16 = l.index16, r.half = a_->half, r.packed = a_->packed;
    r.stride = a_->stride, r.slots = a_->slots, r.alloc_slots = a_->alloc_slots;
    r.values = device::array_of(a_->values);
    r.indices = device::array_of(a_->indices);
    r.row_len = device::array_of(a_->row_len);
    r.tail_ptr = device::array_of(a_->tail_ptr);
    r.slot_map = device::array_of(a_->slot_map);
    r.dense_a = device::array_of(a_->dense_a);
    out.v = r;
  }

  void run(const spxContext& h, const SpmmCall& call) const override {
    ek::SpmmArgs a = a_side();
    a.n = call.C.cols;
    a.B = view_of(call.B);
    a.C = view_of(call.C);
    a.scalars = spmm_scalars_of(h, call, false);
    a.workspace = call.workspace;
    const int c = decision_.candidates.selected();
    const ek::KernelConfig& cfg = decision_.candidates.at(c);
    const ek::EllConfig launch{cfg, plan::decide_call(cfg, decision_.inputs,
                                                      {call.B.values, call.B.ld, call.workspace},
                                                      occupancy_[c])};
    device::check(ek::spmm(a, launch, h.stream), "launching the ELL SpMM kernel");
  }

  void update_values(const spxContext& h, const spxSpMatDescr& A) override {
    if (a_->slots > 0) device::expect_device_pointer(A.values, "A's values");
    ek::PackArgs g;
    g.count = a_->alloc_slots;
    g.slot = a_->slot_map.as<int32_t>();
    g.src = A.values;
    g.dst = a_->values.get();
    g.element_bytes = a_->half ? 2 : 4;
    device::check(ek::pack_values(g, h.stream), "launching the ELL value packing kernel");
    a_->packed = true;
    densify(h.stream);
  }

  int candidate_count() const override { return decision_.candidates.count(); }
  int selected() const override { return decision_.candidates.selected(); }
  void select(int c) override { decision_.candidates.select(c); }
  std::string describe(int c) const override { return decision_.describe(c); }
  size_t workspace_bytes() const override { return decision_.workspace_bytes(); }
  const plan::Decision& decision() const { return decision_; }

  /// The rule for another n over the same packed A (the layout does not depend on n).
  std::unique_ptr<SpmmKernelPlan> for_columns(const SpmmProblem& p,
                                              spxPlanInfo_t& info) const override {
    auto k = std::make_unique<EllSpmm>(*this);
    k->decide(p, a_->dense_a.bytes() > 0);
    k->fill_info(info);
    return k;
  }
  Held held() const override {
    return {a_->indices.bytes() + a_->row_len.bytes() + a_->tail_ptr.bytes() +
                a_->slot_map.bytes(),
            a_->values.bytes() + a_->dense_a.bytes()};
  }

  /// The model of families/ell/plan/predict.hpp, fitted on H100 and H200 (sm_90 code; the two
  /// have the same SMs, clocks and L2, which bound these kernels), for the selected
  /// configuration. Elsewhere 0: the route transfers predicted_speedup instead. Given in us
  /// rather than as a speedup because the kernels here are L2-bound while HGEMM is DRAM-bound:
  /// the speedup over the H100 HGEMM model, applied to the H200's faster DRAM, made the route
  /// say 17.5 us for fp16 11008 x 4096 x 16 at 80 % (measured 28.4 against HGEMM's 26.2).
  double estimate_us() const override {
    return decision_.inputs.code_arch >= 90 ? sparse_us() : 0.0;
  }

  void fill_info(spxPlanInfo_t& info) const {
    info.family = SPX_SPMM_ALG_ELL;
    std::snprintf(info.kernel, sizeof(info.kernel), "%s", plan::Decision::kernel());
    std::snprintf(info.config, sizeof(info.config), "%s", decision_.describe().c_str());
    info.metadata_bytes = held().metadata;
    info.values_bytes = held().values;
    info.padded_nnz = a_->slots;
    info.predicted_speedup = predicted_speedup();
  }

 private:
  /// THE decision for p's n (plan/choice.hpp) and what its launches need: the occupancy of
  /// every candidate's persistent kernel (asked once here, not per launch) and, when a candidate
  /// is DenseMma, the dense copy of A (made at the analyzed n only, shared with the other n).
  void decide(const SpmmProblem& p, bool dense_a_allowed) {
    plan::EllInputs in = inputs_of(p, a_->shape);
    in.dense_a_allowed = dense_a_allowed;
    decision_ = plan::choose(in, plan::read_overrides(p.switches));
    const plan::EllInputs& s = decision_.inputs;
    occupancy_.clear();
    for (const ek::KernelConfig& c : decision_.candidates.items()) {
      plan::EllOccupancy o;
      o.per_sm = ek::resident_blocks(c, a_->half, s.index16, s.k, false);
      if (const auto* st = std::get_if<ek::SlotStagedConfig>(&c); st != nullptr && st->bulk_copy)
        o.bulk = ek::resident_blocks(c, a_->half, s.index16, s.k, true);
      occupancy_.push_back(o);
    }
    if (decision_.dense_a_bytes() > 0 && a_->dense_a.bytes() == 0) {
      a_->dense_a = device::Buffer(static_cast<size_t>(decision_.dense_a_bytes()));
      // Values are already packed when another n asks for it: densify them now.
      if (a_->packed) densify(p.h.stream);
    }
  }

  void densify(cudaStream_t stream) const {
    if (a_->dense_a.bytes() > 0)
      device::check(ek::densify_dense_a(a_side(), a_->dense_a.get(), stream),
                    "launching the ELL densify kernel (DenseMma's dense A)");
  }

  plan::EllWork work() const {
    const plan::EllInputs& s = decision_.inputs;
    plan::EllWork w;
    w.slots = a_->slots;
    w.nnz = s.nnz;
    w.index_bytes = s.index16 ? 2 : 4;
    w.out_bytes = s.c_type == SPX_R_16F ? 2 : 4;
    return w;
  }
  double sparse_us() const {
    return plan::predict_sparse_us(decision_.inputs, decision_.chosen(), work());
  }
  /// Dense cuBLAS time over this plan's, both from the model in families/ell/plan/predict.hpp
  /// (fitted to H100 measurements), for the selected configuration.
  double predicted_speedup() const {
    return plan::predict_dense_us(decision_.inputs, work().out_bytes) / sparse_us();
  }

  /// The kernels' arguments that describe A (the plan's arrays); a call adds B, C and n.
  ek::SpmmArgs a_side() const {
    ek::SpmmArgs a;
    a.m = a_->shape.rows;
    a.k = a_->shape.cols;
    a.stride = a_->stride;
    a.values = a_->values.get();
    a.indices = a_->indices.get();
    a.row_len = a_->row_len.as<int32_t>();
    a.tail_ptr = a_->tail_ptr.as<int32_t>();
    a.half = a_->half;
    a.index16 = a_->shape.index16;
    a.dense_a = a_->dense_a.get();
    a.sm_count = decision_.inputs.sm_count;
    a.dependent_launch = decision_.dependent_launch;
    return a;
  }

  plan::Decision decision_;  ///< the one decision for this n (plan/choice.hpp), made at analyze
  std::vector<plan::EllOccupancy> occupancy_;  ///< per candidate (plan/call.hpp)
  std::shared_ptr<EllA> a_;
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
  // CSR: the rule reads the row lengths only, so only row_ptr is read here (and checked); the
  // column indices are read and checked by the build.
  const HostVector<int32_t> ptr = download_row_ptr(p.h, p.A);
  return plan::ell_near_uniform_lengths(plan::row_lengths(ptr.data(), p.A.rows));
}

std::unique_ptr<SpmmKernelPlan> load_ell_spmm(const SpmmProblem& p, const plan::EllRecord& r) {
  SPX_EXPECTS(r.rows == p.A.rows && r.cols == p.A.cols && r.half == (p.A.type == SPX_R_16F),
              SPX_STATUS_INVALID_VALUE,
              "serialized plan is invalid: its ELL record is not A's shape and type");
  return std::make_unique<EllSpmm>(p, r);
}

std::unique_ptr<SpmmKernelPlan> build_ell_spmm(const SpmmProblem& p, spxPlanInfo_t& info) {
  const auto start = Clock::now();
  const HostStructure host = download_structure(p.h, p.A);
  const double ms_download = ms_since(start);
  // An ELL input is laid out from its own arrays (no CSR copy); a CSR one through formats/to_csr.
  const plan::EllLayout layout =
      p.A.format == SPX_FORMAT_ELL
          ? plan::plan_ell_layout_ell(p.A.rows, p.A.cols, p.A.ell_width, host.idx.data())
          : plan::plan_ell_layout(to_csr(p.A, host));
  const double ms_layout = ms_since(start) - ms_download;
  auto k = std::make_unique<EllSpmm>(p, layout);
  k->fill_info(info);
  // Where analyze's time goes (SPX_LOG_LEVEL=3): reading A's structure, the host layout, and
  // the device side (uploads, value packing, kernel loading).
  log::trace("ELL analyze: structure download %.2f ms, layout %.2f ms, device setup %.2f ms",
             ms_download, ms_layout, ms_since(start) - ms_download - ms_layout);
  return k;
}

}  // namespace spx::dispatch
