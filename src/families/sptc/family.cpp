#include "families/sptc/family.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "runtime/dtype.hpp"
#include "runtime/log.hpp"
#include "families/operands.hpp"
#include "families/structure.hpp"
#include "families/sptc/kernels/config.hpp"
#include "families/sptc/kernels/sptc.hpp"
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

int forced_block_tile(int64_t v, const Switches& switches) {
  const int64_t bt = switches.integer("SPX_SPTC_BLOCK_TILE", 0);
  if (bt == 0) return 0;
  if ((bt == 16 || bt == 32 || bt == 64 || bt == 128) && bt / v <= 64) return static_cast<int>(bt);
  log::info("SPX_SPTC_BLOCK_TILE=%lld ignored: not 16, 32, 64 or 128 (128: V >= 2)",
            static_cast<long long>(bt));
  return 0;
}


/// Roofline model of the speedup over dense cuBLAS HGEMM (README.md): the kernel is bound by the
/// B rows it gathers (L2 -> SM) or by its mma.sp work, dense by its bytes or its tensor-core rate.
double predicted_speedup(const SpmmProblem& p, const plan::SptcStorage& s) {
  const double m = static_cast<double>(p.A.rows), k = static_cast<double>(p.A.cols);
  const double n = static_cast<double>(p.B.cols);
  const double c_elem = p.C.type == SPX_R_32F ? 4 : 2;
  double k_positions = 0;  // sum over panels of gathered k positions
  for (int64_t q = 0; q < s.panels; ++q) k_positions += 32.0 * s.panel_info[2 * q + 1];
  constexpr double kL2 = 5.0e12, kDram = 3.0e12, kFloor = 4.0e-6;
  constexpr double kSparseRate = 600.0e12;  // dense-equivalent flop/s of mma.sp in this kernel
  constexpr double kDenseRate = 700.0e12;   // cuBLAS HGEMM on a busy GPU
  const double gathered = k_positions * n * 2;
  const double sparse_flops = 2.0 * k_positions * static_cast<double>(s.block_tile) * n;
  const double sparse_bytes = static_cast<double>(s.value_bytes() + s.index_bytes() +
                                                  s.metadata_bytes()) + m * n * c_elem;
  const double sparse = std::max({gathered / kL2, sparse_flops / kSparseRate,
                                  sparse_bytes / kDram}) + kFloor;
  const double dense = std::max((m * k + k * n) * 2 / kDram + m * n * c_elem / kDram,
                                2.0 * m * n * k / kDenseRate) + kFloor;
  return dense / sparse;
}

class SptcSpmm final : public SpmmKernelPlan {
 public:
  SptcSpmm(const SpmmProblem& p, const plan::SptcLayout& layout, const plan::SptcStorage& s)
      : storage_stats_(layout.stats) {
    bf16_ = p.A.type == SPX_R_16BF;
    block_tile_ = static_cast<int>(s.block_tile);
    m_ = p.A.rows;
    k_ = p.A.cols;
    n_ = p.B.cols;
    panels_ = s.panels;
    b_order_ = p.B.order;
    device::check(ks::spmm_load(block_tile_, bf16_), "loading the SpTC SpMM kernels");
    device::check(ks::pack_values_load(), "loading the SpTC value packing kernel");
    max_pairs_ = s.max_pairs;
    if (!s.row_map.empty()) row_map_ = device::upload(s.row_map, p.h.stream);
    blocks_ = device::upload(plan::sptc_block_records(s), p.h.stream);
    gather_ = device::upload(s.gather, p.h.stream);
    metadata_ = device::upload(s.metadata, p.h.stream);
    value_slot_ = device::upload(s.value_slot, p.h.stream);
    values_ = device::Buffer(s.value_slot.size() * 2);
    slots_ = static_cast<int64_t>(s.value_slot.size());
    index_bytes_ = s.index_bytes();
    meta_bytes_ = s.metadata_bytes();
    dense_fraction_ = s.dense_fraction();

    const bool aligned = ks::b_aligned(p.B.values, p.B.ld, p.B.order);
    ks::SptcConfig rule =
        ks::choose_config(block_tile_, panels_, n_, p.h.sm_count, max_pairs_, aligned);
    const int force_resident = p.switches.flag("SPX_SPTC_RESIDENT");
    const int resident_smem = ks::smem_bytes(block_tile_, 128, true, max_pairs_);
    const bool resident_ok = block_tile_ >= 64 && n_ > 64 && resident_smem <= ks::kMaxSmemPerBlock;
    if (force_resident >= 0 && (force_resident == 0 || resident_ok) &&
        (force_resident == 1) != rule.resident) {
      rule.resident = force_resident == 1;
      rule.bn = rule.resident ? 128 : rule.bn;
      rule.tiles_per_block = ks::tiles_per_block_for(
          panels_, n_, block_tile_, rule.bn, p.h.sm_count,
          rule.resident ? resident_smem : 0);
    }
    // The rule's choice first (the plan runs it), then the other BN, each BN with one tile per
    // block (more blocks, no streaming across tiles), and the resident-A kernel.
    auto add = [&](const ks::SptcConfig& c) {
      if (c.bn == 128 && n_ <= 64) return;
      for (const ks::SptcConfig& o : candidates_)
        if (o == c) return;
      candidates_.push_back(c);
    };
    // The sm_90a warpgroup kernel replaces the rule's mma.sync kernel at BLOCK_TILE 64 / 128 on
    // compute capability 9.0 with an aligned B where wgmma_default says so (SPX_SPTC_WGMMA=1:
    // wherever it fits, 0: never); either way both stay candidates (search,
    // SPX_SPTC_FORCE_CANDIDATE).
    // SPX_SPTC_RESIDENT=1 keeps the forced resident-A kernel as the rule's choice.
    const int force_wgmma = p.switches.flag("SPX_SPTC_WGMMA");
    const bool wgmma_ok = ks::wgmma_usable(p.h.cc_major, p.h.cc_minor) && aligned &&
                          ks::wgmma_fits(block_tile_) && force_wgmma != 0;
    const bool wgmma_rule =
        wgmma_ok && (force_wgmma == 1 || ks::wgmma_default(block_tile_, n_));
    if (wgmma_rule && force_resident != 1) add(ks::with_wgmma(rule, panels_, n_, p.h.sm_count));
    add(rule);
    if (wgmma_ok)
      for (int bn : {128, 64}) {
        ks::SptcConfig c;
        c.block_tile = block_tile_;
        c.bn = bn;
        add(ks::with_wgmma(c, panels_, n_, p.h.sm_count));
      }
    for (int bn : {128, 64}) {
      ks::SptcConfig c;
      c.block_tile = block_tile_;
      c.bn = bn;
      c.tiles_per_block = ks::tiles_per_block_for(panels_, n_, block_tile_, bn, p.h.sm_count);
      add(c);
      c.tiles_per_block = 1;
      add(c);
    }
    if (resident_ok) {
      ks::SptcConfig c;
      c.block_tile = block_tile_;
      c.bn = 128;
      c.resident = true;
      c.tiles_per_block =
          ks::tiles_per_block_for(panels_, n_, block_tile_, 128, p.h.sm_count, resident_smem);
      if (c.tiles_per_block >= 2) add(c);
    }
    if (const int64_t tpb = p.switches.integer("SPX_SPTC_TILES_PER_BLOCK", 0); tpb != 0) {
      if (tpb >= 1 && tpb <= INT32_MAX)
        for (ks::SptcConfig& c : candidates_) c.tiles_per_block = static_cast<int>(tpb);
      else
        log::info("SPX_SPTC_TILES_PER_BLOCK=%lld ignored: not a positive integer",
                  static_cast<long long>(tpb));
    }
    if (p.switches.flag("SPX_SPTC_WG_INTERLEAVE") == 1)
      for (ks::SptcConfig& c : candidates_) c.wg_interleave = c.wgmma;
    if (const int64_t force = p.switches.index("SPX_SPTC_FORCE_CANDIDATE", candidate_count());
        force >= 0)
      selected_ = static_cast<int>(force);
    suffix_ = strf("; %sk tiles %lld, skipped %lld, retries %lld, pad %lld; %.1f%% of dense; "
                   "B %s, C %s %s",
                   s.row_map.empty() ? "" : "clustered rows, ",
                   ll(storage_stats_.tiles / std::max<int64_t>(1, s.slices)),
                   ll(storage_stats_.columns_skipped), ll(storage_stats_.retries),
                   ll(storage_stats_.padding_columns), 100.0 * dense_fraction_,
                   order_name(p.B.order), dtype::name(p.C.type), order_name(p.C.order));
    update_values(p.h, p.A);
    device::check(cudaStreamSynchronize(p.h.stream), "packing A's values into the SpTC plan");
  }

  void run(const spxContext& h, const SpmmCall& call) const override {
    ks::SpmmArgs a;
    a.m = m_;
    a.k = k_;
    a.n = call.C.cols;
    a.panels = panels_;
    a.blocks = blocks_.as<int32_t>();
    a.gather = gather_.as<int32_t>();
    a.row_map = row_map_.bytes() > 0 ? row_map_.as<int32_t>() : nullptr;
    a.max_pairs = max_pairs_;
    a.metadata = metadata_.as<uint32_t>();
    a.values = values_.get();
    a.bf16 = bf16_;
    a.B = view_of(call.B);
    a.C = view_of(call.C);
    a.scalars = scalars_of(h, call.alpha, call.beta, false);
    a.workspace = call.workspace;
    device::check(ks::spmm(a, candidates_[static_cast<size_t>(selected_)], h.stream),
                  "launching the SpTC SpMM kernel");
  }

  void update_values(const spxContext& h, const spxSpMatDescr& A) override {
    if (A.value_slots() > 0) device::expect_device_pointer(A.values, "A's values");
    ks::PackArgs g;
    g.count = slots_;
    g.slot = value_slot_.as<int32_t>();
    g.src = static_cast<const uint16_t*>(A.values);
    g.dst = values_.as<uint16_t>();
    device::check(ks::pack_values(g, h.stream), "launching the SpTC value packing kernel");
  }

  int candidate_count() const override { return static_cast<int>(candidates_.size()); }
  int selected() const override { return selected_; }
  void select(int c) override {
    SPX_EXPECTS(c >= 0 && c < candidate_count(), SPX_STATUS_INTERNAL_ERROR,
                "SpTC candidate %d out of range", c);
    selected_ = c;
  }
  std::string describe(int c) const override {
    return candidates_.at(static_cast<size_t>(c)).describe() + suffix_;
  }
  size_t workspace_bytes() const override { return ks::workspace_bytes(k_, n_, b_order_); }

  /// Device bytes besides the values: what the kernel reads plus the value slot map of updates.
  size_t metadata_bytes() const {
    return blocks_.bytes() + gather_.bytes() + metadata_.bytes() +
           value_slot_.bytes() + row_map_.bytes();
  }
  size_t values_bytes() const { return values_.bytes(); }
  int64_t slots() const { return slots_; }

 private:
  plan::SptcReorderStats storage_stats_;
  bool bf16_ = false;
  int block_tile_ = 32;
  int64_t m_ = 0, k_ = 0, n_ = 0, panels_ = 0, slots_ = 0;
  int max_pairs_ = 0;
  int64_t index_bytes_ = 0, meta_bytes_ = 0;
  double dense_fraction_ = 0;
  spxOrder_t b_order_ = SPX_ORDER_ROW;
  device::Buffer row_map_, blocks_, gather_, metadata_, value_slot_, values_;
  std::vector<ks::SptcConfig> candidates_;
  int selected_ = 0;
  std::string suffix_;
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
    return strf("%s %lld repeats a column: the 2:4 layout holds one value per position",
                v == 1 ? "row" : "block row", ll(s.duplicate_block_row));
  return {};
}

std::unique_ptr<SpmmKernelPlan> build_sptc_spmm(const SpmmProblem& p, spxPlanInfo_t& info) {
  const plan::SortedBcrs sorted = sorted_structure(p);
  SPX_EXPECTS(sorted.duplicate_block_row < 0, SPX_STATUS_NOT_SUPPORTED,
              "the SpTC family cannot take a repeated column (block row %lld)",
              ll(sorted.duplicate_block_row));
  plan::SptcReorderConfig cfg;
  cfg.threads = 0;
  const int cluster = p.switches.flag("SPX_SPTC_CLUSTER");  // 0: identity, 1: always clustered
  cfg.row_order = cluster < 0    ? plan::sptc_default_row_order(p.B.cols)
                  : cluster == 0 ? plan::SptcRowOrder::kIdentity
                                 : plan::SptcRowOrder::kClustered;
  const int forced = forced_block_tile(vec_len_of(p.A), p.switches);
  plan::SptcLayout layout;
  std::array<double, plan::kSptcMaxBlockTiles> costs{};
  if (forced > 0) {
    cfg.block_tile = forced;
    layout = plan::sptc_reorder(sorted.view(), cfg, plan::sptc_row_order(sorted.view(), forced, cfg));
  } else {
    layout = plan::choose_block_tile(sorted.view(), cfg, plan::sptc_b_row_cost(p.B.cols), &costs);
    if (layout.block_tile == 32 && ks::promote_to_block_tile_64(p.A.rows, p.B.cols, p.h.sm_count)) {
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
  const plan::SptcStorage storage = plan::sptc_build_storage(layout, sorted.vector_slot);
  auto k = std::make_unique<SptcSpmm>(p, layout, storage);

  info.family = SPX_SPMM_ALG_SPTC_REORDER;
  std::snprintf(info.kernel, sizeof(info.kernel), "sptc_mma_sp_%s",
                p.A.type == SPX_R_16BF ? "bf16" : "f16");
  std::snprintf(info.config, sizeof(info.config), "%s", k->describe(k->selected()).c_str());
  info.metadata_bytes = k->metadata_bytes();
  info.values_bytes = k->values_bytes();
  info.padded_nnz = k->slots();
  info.columns_skipped = layout.stats.columns_skipped;
  info.reorder_retries = layout.stats.retries;
  info.predicted_speedup = predicted_speedup(p, storage);
  log::info("SpTC plan: BLOCK_TILE %lld%s%s (costs 16/32/64/128: %.0f %.0f %.0f %.0f), reorder "
            "%.3f s, %lld k tiles, %lld retries, %lld columns skipped, kernel index %lld B + "
            "metadata %lld B, %.1f%% of dense fp16",
            ll(layout.block_tile), forced > 0 ? " (SPX_SPTC_BLOCK_TILE)" : "",
            layout.row_order.empty() ? "" : ", clustered rows", costs[0], costs[1], costs[2],
            costs[3], layout.stats.seconds, ll(layout.stats.tiles), ll(layout.stats.retries),
            ll(layout.stats.columns_skipped), ll(storage.index_bytes()),
            ll(storage.metadata_bytes()), 100.0 * storage.dense_fraction());
  return k;
}

}  // namespace spx::dispatch
