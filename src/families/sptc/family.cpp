#include "families/sptc/family.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
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
#include "families/sptc/kernels/sptc.hpp"
#include "families/sptc/plan/choice.hpp"
#include "families/sptc/plan/reorder.hpp"
#include "families/sptc/plan/storage.hpp"

namespace spx::dispatch {
namespace {

namespace ks = kernels::sptc;
using ll = long long;

/// Largest n: the grid's y dimension counts BN = 64 columns, the B transpose's 32.
constexpr int64_t kMaxN = int64_t{65535} * 32;

int64_t vec_len_of(const spxSpMatDescr& A) { return A.format == SPX_FORMAT_CSR ? 1 : A.vec_len; }

/// The user's structure, validated and sorted (throws INVALID_VALUE for a bad structure).
plan::SortedBcrs sorted_structure(const SpmmProblem& p) {
  const HostStructure host = download_structure(p.h, p.A);
  return plan::sptc_sort_structure(p.A.rows, p.A.cols, vec_len_of(p.A), p.A.nnz, host.ptr.data(),
                                   host.idx.data());
}

/// What the roofline model below needs of the plan's storage (kept for the decisions of other n).
struct SptcWork {
  double k_positions = 0;  ///< sum over panels of gathered k positions
  double block_tile = 0;
  double a_bytes = 0;      ///< values, index and metadata bytes the kernel reads
};

SptcWork work_of(const plan::SptcStorage& s) {
  SptcWork w;
  for (int64_t q = 0; q < s.panels; ++q) w.k_positions += 32.0 * s.panel_info[2 * q + 1];
  w.block_tile = static_cast<double>(s.block_tile);
  w.a_bytes = static_cast<double>(s.value_bytes() + s.index_bytes() + s.metadata_bytes());
  return w;
}

/// Roofline model of the speedup over dense cuBLAS HGEMM (README.md): the kernel is bound by the
/// B rows it gathers (L2 -> SM) or by its mma.sp work, dense by its bytes or its tensor-core rate.
double predicted_speedup(const SpmmProblem& p, const SptcWork& w) {
  const double m = static_cast<double>(p.A.rows), k = static_cast<double>(p.A.cols);
  const double n = static_cast<double>(p.B.cols);
  const double c_elem = p.C.type == SPX_R_32F ? 4 : 2;
  constexpr double kL2 = 5.0e12, kDram = 3.0e12, kFloor = 4.0e-6;
  constexpr double kSparseRate = 600.0e12;  // dense-equivalent flop/s of mma.sp in this kernel
  constexpr double kDenseRate = 700.0e12;   // cuBLAS HGEMM on a busy GPU
  const double gathered = w.k_positions * n * 2;
  const double sparse_flops = 2.0 * w.k_positions * w.block_tile * n;
  const double sparse_bytes = w.a_bytes + m * n * c_elem;
  const double sparse = std::max({gathered / kL2, sparse_flops / kSparseRate,
                                  sparse_bytes / kDram}) + kFloor;
  const double dense = std::max((m * k + k * n) * 2 / kDram + m * n * c_elem / kDram,
                                2.0 * m * n * k / kDenseRate) + kFloor;
  return dense / sparse;
}

/// The plan's copy of A (the reordered 2:4 storage), shared by every prepared n.
struct SptcA {
  bool bf16 = false;
  int block_tile = 32;
  int64_t m = 0, k = 0, panels = 0, slots = 0;
  int max_pairs = 0;
  SptcWork work;
  device::Buffer row_map, blocks, gather, metadata, value_slot, values;
};

class SptcSpmm final : public SpmmKernelPlan {
 public:
  /// decision: plan::sptc::choose(in) for this layout (the plan runs its selected candidate).
  SptcSpmm(const SpmmProblem& p, const plan::SptcStorage& s, const plan::sptc::Inputs& in)
      : in_(in), decision_(plan::sptc::choose(in, plan::sptc::read_overrides(p.switches))),
        a_(std::make_shared<SptcA>()) {
    a_->bf16 = p.A.type == SPX_R_16BF;
    a_->block_tile = static_cast<int>(s.block_tile);
    a_->m = p.A.rows;
    a_->k = p.A.cols;
    a_->panels = s.panels;
    a_->work = work_of(s);
    n_ = p.B.cols;
    b_order_ = p.B.order;
    load_kernels();
    device::check(ks::pack_values_load(), "loading the SpTC value packing kernel");
    a_->max_pairs = s.max_pairs;
    if (!s.row_map.empty()) a_->row_map = device::upload(s.row_map, p.h.stream);
    a_->blocks = device::upload(plan::sptc_block_records(s), p.h.stream);
    a_->gather = device::upload(s.gather, p.h.stream);
    a_->metadata = device::upload(s.metadata, p.h.stream);
    a_->value_slot = device::upload(s.value_slot, p.h.stream);
    a_->values = device::Buffer(s.value_slot.size() * 2);
    a_->slots = static_cast<int64_t>(s.value_slot.size());
    update_values(p.h, p.A);
    device::check(cudaStreamSynchronize(p.h.stream), "packing A's values into the SpTC plan");
  }

  /// A loaded plan (serialized): the storage of `r`, the decision for `in` made again.
  SptcSpmm(const SpmmProblem& p, const plan::SptcRecord& r, const plan::sptc::Inputs& in)
      : in_(in), decision_(plan::sptc::choose(in, plan::sptc::read_overrides(p.switches))),
        a_(std::make_shared<SptcA>()) {
    a_->bf16 = r.bf16;
    a_->block_tile = r.block_tile;
    a_->m = r.m;
    a_->k = r.k;
    a_->panels = r.panels;
    a_->work = {r.work_k_positions, r.work_block_tile, r.work_a_bytes};
    n_ = r.n;
    b_order_ = r.b_order;
    load_kernels();
    device::check(ks::pack_values_load(), "loading the SpTC value packing kernel");
    a_->max_pairs = r.max_pairs;
    const cudaStream_t s = p.h.stream;
    a_->row_map = device::upload(r.row_map, s);
    a_->blocks = device::upload(r.blocks, s);
    a_->gather = device::upload(r.gather, s);
    a_->metadata = device::upload(r.metadata, s);
    a_->value_slot = device::upload(r.value_slot, s);
    a_->values = device::upload(r.values, s);
    a_->slots = r.slots;
  }

  void save(FamilyRecord& out) const override {
    plan::SptcRecord r;
    const plan::sptc::Inputs& in = in_;
    r.m = in.m, r.k = in.k, r.n = in.n, r.bf16 = in.bf16, r.b_aligned = in.b_aligned;
    r.wgmma_usable = in.wgmma_usable, r.clustered = in.clustered;
    r.b_order = in.b_order, r.c_order = in.c_order, r.c_type = in.c_type;
    r.sm_count = in.sm_count, r.block_tile = in.block_tile, r.max_pairs = in.max_pairs;
    r.smem_optin = static_cast<int64_t>(in.smem_optin), r.panels = in.panels;
    r.tiles = in.tiles, r.slices = in.slices, r.columns_skipped = in.columns_skipped;
    r.retries = in.retries, r.padding_columns = in.padding_columns;
    r.dense_fraction = in.dense_fraction;
    r.slots = a_->slots;
    r.work_k_positions = a_->work.k_positions, r.work_block_tile = a_->work.block_tile;
    r.work_a_bytes = a_->work.a_bytes;
    r.row_map = device::array_of(a_->row_map);
    r.blocks = device::array_of(a_->blocks);
    r.gather = device::array_of(a_->gather);
    r.metadata = device::array_of(a_->metadata);
    r.value_slot = device::array_of(a_->value_slot);
    r.values = device::array_of(a_->values);
    out.v = r;
  }

  void run(const spxContext& h, const SpmmCall& call) const override {
    ks::SpmmArgs a;
    a.m = a_->m;
    a.k = a_->k;
    a.n = call.C.cols;
    a.panels = a_->panels;
    a.blocks = a_->blocks.as<int32_t>();
    a.gather = a_->gather.as<int32_t>();
    a.row_map = a_->row_map.bytes() > 0 ? a_->row_map.as<int32_t>() : nullptr;
    a.max_pairs = a_->max_pairs;
    a.metadata = a_->metadata.as<uint32_t>();
    a.values = a_->values.get();
    a.bf16 = a_->bf16;
    a.B = view_of(call.B);
    a.C = view_of(call.C);
    a.scalars = spmm_scalars_of(h, call, false);
    a.workspace = call.workspace;
    // The per-call part of the decision: how this call's B is read (alignment, leading
    // dimension, the workspace transpose), hence which kernel of the configuration runs.
    plan::sptc::CallB b;
    b.row_major = call.B.order == SPX_ORDER_ROW;
    b.address = reinterpret_cast<uintptr_t>(call.B.values);
    b.ld = call.B.ld;
    b.k = a_->k;
    b.n = a.n;
    b.workspace = reinterpret_cast<uintptr_t>(call.workspace);
    const ks::SptcLaunch launch =
        plan::sptc::launch_for(decision_.candidates.chosen(), a_->max_pairs, b);
    device::check(ks::spmm(a, launch, h.stream), "launching the SpTC SpMM kernel");
  }

  void update_values(const spxContext& h, const spxSpMatDescr& A) override {
    if (A.value_slots() > 0) device::expect_device_pointer(A.values, "A's values");
    ks::PackArgs g;
    g.count = a_->slots;
    g.slot = a_->value_slot.as<int32_t>();
    g.src = static_cast<const uint16_t*>(A.values);
    g.dst = a_->values.as<uint16_t>();
    device::check(ks::pack_values(g, h.stream), "launching the SpTC value packing kernel");
  }

  int candidate_count() const override { return decision_.candidates.count(); }
  int selected() const override { return decision_.candidates.selected(); }
  void select(int c) override { decision_.candidates.select(c); }
  std::string describe(int c) const override { return decision_.describe(c); }
  size_t workspace_bytes() const override {
    return plan::sptc::workspace_bytes(a_->k, n_, b_order_);
  }

  /// The kernel configuration for another n over the same reordered storage (its block tile
  /// and row order were chosen for the analyzed n).
  std::unique_ptr<SpmmKernelPlan> for_columns(const SpmmProblem& p,
                                              spxPlanInfo_t& info) const override {
    auto k = std::make_unique<SptcSpmm>(*this);
    k->n_ = p.B.cols;
    k->in_.n = p.B.cols;
    k->in_.b_aligned = plan::sptc::b_aligned(p.B.order == SPX_ORDER_ROW,
                                             reinterpret_cast<uintptr_t>(p.B.values), p.B.ld);
    k->decision_ = plan::sptc::choose(k->in_, plan::sptc::read_overrides(p.switches));
    k->load_kernels();
    k->fill_info(p, info);
    return k;
  }
  Held held() const override {
    return {a_->blocks.bytes() + a_->gather.bytes() + a_->metadata.bytes() +
                a_->value_slot.bytes() + a_->row_map.bytes(),
            a_->values.bytes()};
  }

  const plan::sptc::Decision& decision() const { return decision_; }
  void fill_info(const SpmmProblem& p, spxPlanInfo_t& info) const {
    info.family = SPX_SPMM_ALG_SPTC_REORDER;
    std::snprintf(info.kernel, sizeof(info.kernel), "%s", decision_.kernel_name().c_str());
    std::snprintf(info.config, sizeof(info.config), "%s", decision_.describe().c_str());
    info.metadata_bytes = held().metadata;
    info.values_bytes = held().values;
    info.padded_nnz = a_->slots;
    info.predicted_speedup = predicted_speedup(p, a_->work);
  }

 private:
  void load_kernels() const {
    device::check(ks::spmm_load(a_->block_tile, a_->bf16, decision_.uses_wgmma()),
                  "loading the SpTC SpMM kernels");
  }

  plan::sptc::Inputs in_;  ///< the decision's inputs (the storage's statistics included)
  plan::sptc::Decision decision_;
  int64_t n_ = 0;  ///< the prepared n (the workspace it needs)
  spxOrder_t b_order_ = SPX_ORDER_ROW;
  std::shared_ptr<SptcA> a_;
};

}  // namespace

Refusal sptc_can_implement(const SpmmProblem& p) {
  if (p.A.format != SPX_FORMAT_CSR && p.A.format != SPX_FORMAT_BCRS)
    return "the SpTC reorder family takes CSR or BCRS input only";
  if (p.A.type != SPX_R_16F && p.A.type != SPX_R_16BF)
    return strf("%s values are not supported by the SpTC kernels (16F and 16BF only)",
                dtype::name(p.A.type));
  if (p.B.type != p.A.type || (p.C.type != p.A.type && p.C.type != SPX_R_32F) ||
      p.compute_type != SPX_R_32F)
    return "the SpTC kernels need B of A's type, C of A's type or 32F, and 32F compute";
  const int64_t v = vec_len_of(p.A);
  if (v != 1 && v != 2 && v != 4 && v != 8 && v != 16)
    return strf("vec_len %lld is not 1, 2, 4, 8 or 16", ll(v));
  if (p.h.cc_major < 8) return "the SpTC kernels need sm_80 or newer (mma.sp)";
  if (p.C.cols > kMaxN) return strf("n (%lld) exceeds the SpTC grid (%lld)", ll(p.C.cols), ll(kMaxN));
  if (p.A.rows > INT32_MAX - 64 || p.A.cols > INT32_MAX)
    return strf("the shape %lld x %lld exceeds the SpTC kernels' int32 indices", ll(p.A.rows),
                ll(p.A.cols));
  if (p.A.value_slots() > INT32_MAX) return "A has more value slots than SpTC's int32 slot map holds";
  const plan::SortedBcrs s = sorted_structure(p);
  if (s.duplicate_block_row >= 0)
    return strf("%s %lld repeats column %lld (%s[%lld] = %lld): the 2:4 layout holds one value "
                "per position",
                v == 1 ? "row" : "block row", ll(s.duplicate_block_row), ll(s.duplicate_col),
                p.A.format == SPX_FORMAT_CSR ? "col_ind" : "block_col", ll(s.duplicate_index),
                ll(s.duplicate_col));
  return {};
}

std::unique_ptr<SpmmKernelPlan> load_sptc_spmm(const SpmmProblem& p, const plan::SptcRecord& r) {
  SPX_EXPECTS(r.m == p.A.rows && r.k == p.A.cols && r.n == p.B.cols &&
                  r.bf16 == (p.A.type == SPX_R_16BF) && r.b_order == p.B.order &&
                  r.c_order == p.C.order && r.c_type == p.C.type,
              SPX_STATUS_INVALID_VALUE,
              "serialized plan is invalid: its SpTC record is not the plan's problem");
  SPX_EXPECTS(r.sm_count == p.h.sm_count &&
                  r.wgmma_usable == ks::wgmma_usable(p.h.cc_major, p.h.cc_minor) &&
                  r.smem_optin == static_cast<int64_t>(p.h.smem_per_block_optin),
              SPX_STATUS_NOT_SUPPORTED,
              "serialized plan: its SpTC decision was made for another device; analyze the "
              "matrix again");
  plan::sptc::Inputs in;
  in.m = r.m, in.k = r.k, in.n = r.n, in.bf16 = r.bf16, in.b_order = r.b_order;
  in.c_order = r.c_order, in.c_type = r.c_type, in.b_aligned = r.b_aligned;
  in.sm_count = r.sm_count, in.wgmma_usable = r.wgmma_usable;
  in.smem_optin = static_cast<size_t>(r.smem_optin), in.block_tile = r.block_tile;
  in.panels = r.panels, in.max_pairs = r.max_pairs, in.clustered = r.clustered;
  in.tiles = r.tiles, in.slices = r.slices, in.columns_skipped = r.columns_skipped;
  in.retries = r.retries, in.padding_columns = r.padding_columns;
  in.dense_fraction = r.dense_fraction;
  return std::make_unique<SptcSpmm>(p, r, in);
}

std::unique_ptr<SpmmKernelPlan> build_sptc_spmm(const SpmmProblem& p, spxPlanInfo_t& info) {
  const auto start = Clock::now();
  const plan::SortedBcrs sorted = sorted_structure(p);
  const double ms_sort = ms_since(start);
  SPX_EXPECTS(sorted.duplicate_block_row < 0, SPX_STATUS_NOT_SUPPORTED,
              "the SpTC family cannot take a repeated column (block row %lld, column %lld)",
              ll(sorted.duplicate_block_row), ll(sorted.duplicate_col));
  const plan::sptc::Overrides overrides = plan::sptc::read_overrides(p.switches);
  const plan::sptc::LayoutChoice want =
      plan::sptc::choose_layout(p.B.cols, vec_len_of(p.A), overrides);
  plan::SptcReorderConfig cfg;
  cfg.threads = 0;
  cfg.row_order = want.row_order;
  plan::SptcLayout layout;
  std::array<double, plan::kSptcMaxBlockTiles> costs{};
  if (want.block_tile > 0) {
    cfg.block_tile = want.block_tile;
    layout = plan::sptc_reorder(sorted.view(), cfg,
                                plan::sptc_row_order(sorted.view(), want.block_tile, cfg));
  } else {
    layout = plan::choose_block_tile(sorted.view(), cfg, plan::sptc_b_row_cost(p.B.cols), &costs);
    if (layout.block_tile == 32 &&
        plan::sptc::promote_to_block_tile_64(p.A.rows, p.B.cols, p.h.sm_count)) {
      cfg.block_tile = 64;
      plan::SptcLayout wide =
          plan::sptc_reorder(sorted.view(), cfg, plan::sptc_row_order(sorted.view(), 64, cfg));
      if (wide.panel_k.back() <= layout.panel_k.back()) {
        wide.stats.cost = plan::sptc_layout_cost(wide, plan::sptc_b_row_cost(p.B.cols));
        costs[2] = wide.stats.cost;
        layout = std::move(wide);
      }
    }
  }
  const double ms_reorder = ms_since(start) - ms_sort;
  const plan::SptcStorage storage = plan::sptc_build_storage(layout, sorted.vector_slot);
  const double ms_storage = ms_since(start) - ms_sort - ms_reorder;

  plan::sptc::Inputs in;
  in.m = p.A.rows;
  in.k = p.A.cols;
  in.n = p.B.cols;
  in.bf16 = p.A.type == SPX_R_16BF;
  in.b_order = p.B.order;
  in.c_order = p.C.order;
  in.c_type = p.C.type;
  in.b_aligned = plan::sptc::b_aligned(p.B.order == SPX_ORDER_ROW,
                                       reinterpret_cast<uintptr_t>(p.B.values), p.B.ld);
  in.sm_count = p.h.sm_count;
  in.wgmma_usable = ks::wgmma_usable(p.h.cc_major, p.h.cc_minor);
  in.smem_optin = p.h.smem_per_block_optin;
  in.block_tile = static_cast<int>(storage.block_tile);
  in.panels = storage.panels;
  in.max_pairs = storage.max_pairs;
  in.clustered = !storage.row_map.empty();
  in.tiles = layout.stats.tiles;
  in.slices = storage.slices;
  in.columns_skipped = layout.stats.columns_skipped;
  in.retries = layout.stats.retries;
  in.padding_columns = layout.stats.padding_columns;
  in.dense_fraction = storage.dense_fraction();
  const auto t_device = Clock::now();
  auto k = std::make_unique<SptcSpmm>(p, storage, in);
  k->fill_info(p, info);
  // Where analyze's time goes (SPX_LOG_LEVEL=3): structure download and sort, the reorder (every
  // BLOCK_TILE tried), the storage arrays, and the device side (uploads, packing, kernels).
  log::trace("SpTC analyze: structure %.2f ms, reorder %.2f ms, storage %.2f ms, device setup "
             "%.2f ms",
             ms_sort, ms_reorder, ms_storage, ms_since(t_device));
  info.columns_skipped = layout.stats.columns_skipped;
  info.reorder_retries = layout.stats.retries;
  log::info("SpTC plan: BLOCK_TILE %lld%s%s (costs 16/32/64/128: %.0f %.0f %.0f %.0f), reorder "
            "%.3f s, %lld k tiles, %lld retries, %lld columns skipped, kernel index %lld B + "
            "metadata %lld B, %.1f%% of dense fp16",
            ll(layout.block_tile), want.block_tile > 0 ? " (SPX_SPTC_BLOCK_TILE)" : "",
            layout.row_order.empty() ? "" : ", clustered rows", costs[0], costs[1], costs[2],
            costs[3], layout.stats.seconds, ll(layout.stats.tiles), ll(layout.stats.retries),
            ll(layout.stats.columns_skipped), ll(storage.index_bytes()),
            ll(storage.metadata_bytes()), 100.0 * storage.dense_fraction());
  return k;
}

}  // namespace spx::dispatch
