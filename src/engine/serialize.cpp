#include "engine/serialize.hpp"

#include <cstdio>
#include <string>

#include "engine/plan_record.hpp"
#include "engine/prepared.hpp"
#include "families/dense/family.hpp"
#include "families/ell/family.hpp"
#include "families/fallback/family.hpp"
#include "families/nm/family.hpp"
#include "families/sptc/family.hpp"
#include "families/srbcrs/family.hpp"
#include "runtime/log.hpp"

namespace spx::engine {
namespace {

using ll = long long;

PlanRecord record_of(const spxPlan& plan) {
  SPX_EXPECTS(plan.op == Operation::SpMM, SPX_STATUS_NOT_SUPPORTED,
              "SDDMM plans cannot be serialized in this version of libspx (SpMM plans only); "
              "analyze the SDDMM again where it runs");
  PlanRecord r;
  PlanHeader& h = r.header;
  h.library_version = SPX_VERSION;
  h.a_type = plan.sparse.type;
  h.b_type = plan.dense_in.type;
  h.c_type = plan.dense_out.type;
  h.compute_type = plan.compute_type;
  h.cc_major = plan.made_on.cc_major;
  h.cc_minor = plan.made_on.cc_minor;
  h.sm_count = plan.made_on.sm_count;
  h.code_arch = plan.made_on.code_arch;
  h.smem_optin = static_cast<uint32_t>(plan.made_on.smem_per_block_optin);
  const SparseSignature& a = plan.sparse;
  r.format = a.format;
  r.rows = a.rows, r.cols = a.cols, r.nnz = a.nnz, r.vec_len = a.vec_len;
  r.nm_n = a.n, r.nm_m = a.m, r.nm_l = a.l, r.ell_width = a.ell_width;
  r.b = {plan.dense_in.rows, plan.dense_in.cols, plan.b_ld, plan.dense_in.order};
  r.c = {plan.dense_out.rows, plan.dense_out.cols, plan.c_ld, plan.dense_out.order};
  r.b_align = plan.b_align;
  const spxPlanOptions& o = plan.options;
  r.autotune = o.autotune, r.values_layout = o.values_layout, r.dense_route = o.dense_route;
  r.allow_tf32 = o.allow_tf32, r.max_n_option = o.max_n;
  r.epilogue_activation = o.epilogue_activation;
  r.epilogue_bias = o.epilogue_bias, r.epilogue_scale = o.epilogue_scale;
  r.switches = plan.switches;
  r.max_n = plan.max_n;
  r.analyzed = static_cast<int64_t>(plan.analyzed);
  r.info = plan.info;
  for (const PreparedN& e : plan.prepared)
    r.prepared.push_back({e.n_hi, e.info.route, e.spmm->selected(), e.info});
  if (plan.sparse_source) {
    r.sparse_selected = plan.sparse_source->selected();
    plan.sparse_source->save(r.sparse);
  }
  if (plan.dense_source) plan.dense_source->save(r.dense);
  return r;
}

std::shared_ptr<dispatch::SpmmKernelPlan> load_source(const dispatch::SpmmProblem& p,
                                                      const dispatch::FamilyRecord& f) {
  using namespace dispatch;
  return std::visit(
      [&](const auto& rec) -> std::shared_ptr<SpmmKernelPlan> {
        using R = std::decay_t<decltype(rec)>;
        if constexpr (std::is_same_v<R, plan::NmRecord>) return load_nm_spmm(p, rec);
        if constexpr (std::is_same_v<R, plan::EllRecord>) return load_ell_spmm(p, rec);
        if constexpr (std::is_same_v<R, plan::SrbcrsRecord>) return load_srbcrs_spmm(p, rec);
        if constexpr (std::is_same_v<R, plan::SptcRecord>) return load_sptc_spmm(p, rec);
        if constexpr (std::is_same_v<R, plan::DenseRecord>) return load_dense_spmm(p, rec);
        if constexpr (std::is_same_v<R, plan::FallbackRecord>) return load_fallback_spmm(p, rec);
        return nullptr;
      },
      f.v);
}

void expect_same_device(const PlanHeader& w, const spxContext& h) {
  SPX_EXPECTS(w.cc_major == h.cc_major && w.cc_minor == h.cc_minor && w.sm_count == h.sm_count &&
                  w.code_arch == h.code_arch &&
                  w.smem_optin == static_cast<uint32_t>(h.smem_per_block_optin),
              SPX_STATUS_NOT_SUPPORTED,
              "the serialized plan was made for another GPU (sm_%d%d, %d SMs, device code %d, "
              "%u bytes of shared memory per block; this device: sm_%d%d, %d SMs, %d, %zu): its "
              "layouts and kernel choices are the ones of that GPU; analyze the matrix again here",
              w.cc_major, w.cc_minor, w.sm_count, w.code_arch, w.smem_optin, h.cc_major,
              h.cc_minor, h.sm_count, h.code_arch, h.smem_per_block_optin);
}

/// Selects the stored candidate and checks the decision made again is the stored one (same
/// candidates, same configuration): a loaded plan runs exactly what the saved plan ran.
void restore_choice(dispatch::SpmmKernelPlan& k, const PreparedRecord& e) {
  SPX_EXPECTS(e.selected < k.candidate_count() && k.candidate_count() == e.info.candidates,
              SPX_STATUS_NOT_SUPPORTED,
              "the serialized plan's decision for n = %lld has %d candidates; made again here it "
              "has %d; analyze the matrix again",
              ll(e.n_hi), e.info.candidates, k.candidate_count());
  k.select(e.selected);
  // A family with one fixed configuration describes none (its info names the kernel's).
  const std::string described = k.describe(e.selected);
  char now[sizeof(e.info.config)];
  std::snprintf(now, sizeof(now), "%s", described.c_str());
  SPX_EXPECTS(described.empty() || std::string(now) == e.info.config, SPX_STATUS_NOT_SUPPORTED,
              "the serialized plan's decision for n = %lld (%s) is not the one made again here "
              "(%s); analyze the matrix again",
              ll(e.n_hi), e.info.config, now);
}

}  // namespace

size_t serialized_size(const spxPlan& plan) {
  PlanRecord r = record_of(plan);
  return write_plan(r, nullptr, 0, {});
}

size_t serialize(const spxContext& h, const spxPlan& plan, void* out, size_t capacity) {
  PlanRecord r = record_of(plan);
  const size_t need = write_plan(r, nullptr, 0, {});
  SPX_CHECK_ARG(capacity >= need,
                "buffer_size (%zu) is smaller than the serialized plan (%zu bytes; "
                "spxPlanGetSerializedSize)",
                capacity, need);
  // The plan's own work (analyze, value updates on any stream) first.
  plan.uses.order_after(h.stream);
  const auto copy = [&](void* dst, const void* src, size_t bytes) {
    device::check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, h.stream),
                  "reading the plan's device arrays");
    device::check(cudaStreamSynchronize(h.stream), "reading the plan's device arrays");
  };
  return write_plan(r, static_cast<uint8_t*>(out), capacity, copy);
}

std::unique_ptr<spxPlan> deserialize(const spxContext& h, const void* bytes, size_t size) {
  const PlanRecord r = read_plan(bytes, size);
  expect_same_device(r.header, h);
  // The problem as analyze saw it: descriptors without data (decisions read shapes, orders,
  // leading dimensions and B's alignment only).
  spxSpMatDescr A;
  A.format = r.format;
  A.type = r.header.a_type;
  A.rows = r.rows, A.cols = r.cols, A.nnz = r.nnz, A.vec_len = r.vec_len;
  A.n = r.nm_n, A.m = r.nm_m, A.l = r.nm_l, A.ell_width = r.ell_width;
  const auto fake = [](uintptr_t residue) { return reinterpret_cast<void*>((uintptr_t{1} << 20) + residue); };
  spxDnMatDescr B{r.b.rows, r.b.cols, r.b.ld, fake(static_cast<uintptr_t>(r.b_align)),
                  r.header.b_type, r.b.order};
  spxDnMatDescr C{r.c.rows, r.c.cols, r.c.ld, fake(0), r.header.c_type, r.c.order};
  spxPlanOptions options;
  options.autotune = r.autotune, options.values_layout = r.values_layout;
  options.dense_route = r.dense_route, options.allow_tf32 = r.allow_tf32;
  options.max_n = r.max_n_option;
  options.epilogue_activation = r.epilogue_activation;
  options.epilogue_bias = r.epilogue_bias, options.epilogue_scale = r.epilogue_scale;
  dispatch::Switches switches;
  for (const auto& [name, value] : r.switches) switches.set(name, value);
  const dispatch::SpmmProblem p{h, A, B, C, r.header.compute_type, options, switches};
  // The record's arrays are views into `bytes`: pinned, they upload at the link's speed.
  const device::PinnedRange pinned(bytes, size, h.stream);

  auto plan = std::make_unique<spxPlan>();
  plan->op = Operation::SpMM;
  plan->device = h.device;
  plan->made_on = h;
  plan->compute_type = r.header.compute_type;
  plan->sparse = SparseSignature::of(A);
  plan->dense_in = DenseSignature::of(B);
  plan->dense_out = DenseSignature::of(C);
  plan->b_ld = r.b.ld, plan->c_ld = r.c.ld, plan->b_align = r.b_align;
  plan->options = options;  // the epilogue's options too; its arrays are set again by the caller
  plan->switches = r.switches;
  plan->max_n = r.max_n;
  plan->analyzed = static_cast<size_t>(r.analyzed);
  plan->info = r.info;
  if (r.sparse.tag() != dispatch::RecordTag::None) {
    plan->sparse_source = load_source(p, r.sparse);
    SPX_EXPECTS(r.sparse_selected < plan->sparse_source->candidate_count(),
                SPX_STATUS_NOT_SUPPORTED,
                "the serialized plan's sparse candidate %d does not exist here; analyze again",
                r.sparse_selected);
    plan->sparse_source->select(r.sparse_selected);
  }
  if (r.dense.tag() != dispatch::RecordTag::None) plan->dense_source = load_source(p, r.dense);
  for (size_t i = 0; i < r.prepared.size(); ++i) {
    const PreparedRecord& s = r.prepared[i];
    const std::shared_ptr<dispatch::SpmmKernelPlan>& source =
        s.route == 1 ? plan->dense_source : plan->sparse_source;
    PreparedN e;
    e.n_hi = s.n_hi;
    e.info = s.info;
    const ProblemAtN at(p, s.n_hi);
    if (i == plan->analyzed) {
      SPX_CHECK_ARG(s.n_hi == r.c.cols,
                    "serialized plan is invalid: the analyzed n (%lld) is not C's columns (%lld)",
                    ll(s.n_hi), ll(r.c.cols));
      e.spmm = source;
    } else {
      spxPlanInfo_t ignored = s.info;
      e.spmm = source->for_columns(at.p, ignored);
    }
    restore_choice(*e.spmm, s);
    // A dense-routed n of a plan with an epilogue keeps the sparse decision for the calls the
    // dense route cannot take (route.cpp's take_dense).
    if (s.route == 1 && options.any_epilogue()) {
      SPX_CHECK_ARG(plan->sparse_source != nullptr,
                    "serialized plan is invalid: a dense-routed n with an epilogue and no sparse "
                    "source");
      if (i == plan->analyzed) {
        e.sparse_for_epilogue = plan->sparse_source;
      } else {
        spxPlanInfo_t ignored = s.info;
        e.sparse_for_epilogue = plan->sparse_source->for_columns(at.p, ignored);
      }
    }
    plan->prepared.push_back(std::move(e));
  }
  device::check(cudaStreamSynchronize(h.stream), "uploading the loaded plan");
  plan->uses.record(h.stream);
  log::info("spxPlanDeserialize: %lld x %lld plan, %zu bytes, %zu prepared sizes, %s", ll(r.rows),
            ll(r.cols), size, plan->prepared.size(), plan->info.kernel);
  return plan;
}

}  // namespace spx::engine
