#include "families/nm/family.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "runtime/dtype.hpp"
#include "runtime/elapsed.hpp"
#include "runtime/log.hpp"
#include "families/operands.hpp"
#include "families/structure.hpp"
#include "families/nm/kernels/config.hpp"
#include "families/nm/kernels/launch.hpp"
#include "families/nm/plan/layout.hpp"

namespace spx::dispatch {
namespace {

namespace knm = kernels::nm;
using knm::TileId;
using knm::TileShape;
using ll = long long;

bool fast_m(int64_t m) {
  return m == 4 || m == 8 || m == 16 || m == 32 || m == 64 || m == 128;
}
bool fast_l(int64_t l) {
  return l == 16 || l == 32 || l == 64 || l == 128;
}

/// Largest n (columns of B and C) a launch takes: n tiles of the smallest BN on grid.y.
constexpr int64_t kMaxN = int64_t{65535} * 32;
/// (pack tile, stage) pairs the packing decision reads at most (a sample of the tiles beyond):
/// on a random 3:8 17920 x 6656 weight (5600 pairs) the mean union size of 1024 pairs is within
/// 0.1 % of the whole matrix's, and reading them takes 1 ms of analyze instead of 8.
constexpr int64_t kUnionStatsPairs = 1024;

/// Stage depth shared by every candidate tile (the plan's index arrays depend on it), for the
/// largest tile that has one. Prefers the shared memory that lets two blocks share an SM when that
/// still gives at least 8 slots per stage (one block per SM measured 1.5x slower on H200; the
/// tensor-copy kernel at 4096^3 on H100 too). `bulk`: sized for the tensor-copy kernel's dense B
/// rows (non-packing). fits[i]: tile i's cp.async kernel runs with that depth (the fallback of
/// every candidate).
int64_t plan_windows(const SpmmProblem& p, bool packing, bool fits[knm::kTileCount], int depth,
                     bool bulk = false) {
  const int64_t n = p.A.n, m = p.A.m, l = p.A.l;
  const int64_t optin = static_cast<int64_t>(p.h.smem_per_block_optin);
  int64_t windows = 0;
  for (int i = knm::kTileCount - 1; i >= 0 && windows == 0; --i) {
    const TileShape& t = knm::kTiles[i];
    const int64_t half =
        knm::windows_per_stage(t, n, m, l, packing, knm::two_blocks_budget(optin), depth, bulk);
    windows = n * half >= 8 ? half : knm::windows_per_stage(t, n, m, l, packing, optin, depth, bulk);
  }
  for (int i = 0; i < knm::kTileCount; ++i) {
    const TileShape& t = knm::kTiles[i];
    const int64_t w_s = n * windows, k_s = m * windows;
    const int64_t rows_s = packing ? knm::pack_capacity(l, w_s, k_s) : k_s;
    fits[i] = windows > 0 && knm::kernel_smem_bytes(t, w_s, rows_s, knm::groups_per_block(t, l),
                                                    packing ? rows_s : 0, depth) <= optin;
  }
  return windows;
}

/// SPX_NM_FORCE_TILE=<tile name>: that tile where it fits; -1 when unset or unknown.
int env_tile(const Switches& switches) {
  const char* v = switches.text("SPX_NM_FORCE_TILE");
  if (v == nullptr) return -1;
  for (const TileShape& t : knm::kTiles)
    if (std::strcmp(v, t.name) == 0) return static_cast<int>(t.id);
  log::info("SPX_NM_FORCE_TILE=%s ignored: not a tile name", v);
  return -1;
}

struct Candidate {
  TileId tile;
  int split;  ///< effective split (no empty parts)
  int stages_per_split;
  bool stage_b;  ///< a column-major B is first copied row-major into the workspace
  bool bulk;     ///< sm_90 tensor-copy kernel when the launch allows it (spmm_bulk_ok)
  /// That copy runs beside the tensor-copy kernel, chunk by chunk (knm::StreamedB), instead of
  /// before it.
  bool stream_b;
  /// Stream-K on the tensor-copy kernel (families/nm/kernels/stream_k.hpp); off: one block per tile.
  knm::StreamKSchedule stream_k;
};

class NmSpmm final : public SpmmKernelPlan {
 public:
  NmSpmm(const SpmmProblem& p, const plan::NmDims& dims, const plan::NmStaging& staging,
         const plan::NmIndexLayout& layout, int depth)
      : dims_(dims), staging_(staging), packing_(layout.packing) {
    base_.depth = depth;
    base_.producer_last = p.switches.flag("SPX_NM_PRODUCER") != 0;
    stream_k_slots_ = p.switches.integer("SPX_NM_STREAM_K_SLOTS", 0);
    stream_k_forced_ = p.switches.flag("SPX_NM_STREAM_K") == 1;
    smem_optin_ = p.h.smem_per_block_optin;
    sm_count_ = p.h.sm_count;
    bulk_device_ = p.h.code_arch >= 90;  // the tensor-copy kernel is sm_90 code
    device::check(knm::spmm_load(p.h.smem_per_block_optin), "loading the NM SpMM kernels");
    device::check(knm::relayout_load(), "loading the NM value re-layout kernel");
    a_t_ = device::Buffer(static_cast<size_t>(staging.kc_pad * staging.rows_pad) * sizeof(float));
    if (a_t_.bytes() > 0)
      device::check(cudaMemsetAsync(a_t_.get(), 0, a_t_.bytes(), p.h.stream),
                    "zeroing the NM value padding");
    ridx_ = device::upload(layout.ridx, p.h.stream);
    col_info_ = device::upload(layout.col_info, p.h.stream);
    col_count_ = device::upload(layout.col_count, p.h.stream);
    metadata_bytes_ = static_cast<size_t>(plan::nm_metadata_bytes(layout));
    base_.m = p.C.rows;
    base_.n = p.C.cols;
    base_.k = p.A.cols;
    base_.l = p.A.l;
    base_.w_s = static_cast<int>(staging.w_s);
    base_.k_s = static_cast<int>(staging.k_s);
    base_.rows_s = static_cast<int>(packing_ ? layout.pack_capacity : staging.k_s);
    base_.stages = static_cast<int>(staging.stages);
    base_.a_t = a_t_.as<float>();
    base_.rows_pad = staging.rows_pad;
    base_.kc_pad = staging.kc_pad;
    base_.ridx = ridx_.as<uint16_t>();
    base_.packing = packing_;
    base_.col_info = col_info_.as<uint16_t>();
    base_.col_count = col_count_.as<int32_t>();
    base_.pack_capacity = static_cast<int>(layout.pack_capacity);
    b_order_ = p.B.order;
    c_order_ = p.C.order;
    update_values(p.h, p.A);
    device::check(cudaStreamSynchronize(p.h.stream), "re-laying out A's values into the plan");
  }

  void add_candidate(TileId tile, int split, bool stage_b, bool bulk, bool stream_b = false,
                     bool stream_k = false) {
    const int stages = base_.stages;
    int sps = stages, eff = 1;
    if (split > 1 && stages > 1) {
      sps = (stages + split - 1) / split;
      eff = (stages + sps - 1) / sps;
    }
    if (stages == 0) sps = 0;
    stage_b = stage_b && b_order_ == SPX_ORDER_COL;
    bulk = bulk && bulk_device_ && !packing_ && (b_order_ == SPX_ORDER_ROW || stage_b);
    stream_b = stream_b && stage_b && bulk && eff == 1 && knm::spmm_bulk_streams(tile);
    // Stream-K reads a row-major B: a column-major one copied before the kernel (not streamed:
    // launch.hpp), which must then win back that copy too.
    const knm::StreamKSchedule sk = stream_k && bulk && eff == 1 && !stream_b
                                        ? stream_k_schedule(tile, stage_b ? 1.10 : 1.05)
                                        : knm::StreamKSchedule{};
    if (stream_k && !sk.on()) return;  // asked for stream-K where it does not apply
    for (const Candidate& c : candidates_)
      if (c.tile == tile && c.split == eff && c.stage_b == stage_b && c.bulk == bulk &&
          c.stream_b == stream_b && c.stream_k.on() == sk.on())
        return;
    candidates_.push_back({tile, eff, sps, stage_b, bulk, stream_b, sk});
  }

  /// Stream-K for the tile on this device (families/nm/kernels/stream_k.hpp): the schedule over the
  /// tile's stream-K blocks per SM (0: it has no stream-K kernel) on every SM, or over
  /// SPX_NM_STREAM_K_SLOTS block slots (tests: a schedule with many parts on a small shape).
  /// Off unless it is predicted `gain` times faster than one block per tile (stream_k_pays), or
  /// wherever a schedule exists with SPX_NM_STREAM_K=1; always off with warp 0 as the producer
  /// (SPX_NM_PRODUCER=0): the stream-K kernel has only the last-finisher pipeline.
  knm::StreamKSchedule stream_k_schedule(TileId tile, double gain) const {
    if (!base_.producer_last) return {};
    const TileShape& t = knm::tile_shape(tile);
    const int64_t tiles = ((base_.m + t.bm - 1) / t.bm) * ((base_.n + t.bn - 1) / t.bn);
    const int per_sm = knm::spmm_bulk_stream_k_occupancy(tile, base_);
    if (per_sm <= 0) return {};
    const int64_t slots = stream_k_slots_ >= 2 ? stream_k_slots_ : static_cast<int64_t>(per_sm) * sm_count_;
    const knm::StreamKSchedule sk = knm::plan_stream_k(tiles, base_.stages, slots);
    if (stream_k_forced_ || knm::stream_k_pays(sk, slots, gain)) return sk;
    return {};
  }

  void run(const spxContext& h, const SpmmCall& call) const override {
    const Candidate& c = candidates_[static_cast<size_t>(selected_)];
    knm::SpmmArgs a = base_;
    a.split = c.split;
    a.stages_per_split = c.stages_per_split;
    a.B = view_of(call.B);
    a.C = view_of(call.C);
    a.scalars = scalars_of(h, call.alpha, call.beta, false);
    unsigned char* ws = static_cast<unsigned char*>(call.workspace);
    // A staged column-major B: the kernels read a row-major copy in the workspace, made beside
    // the tensor-copy kernel (streamed) or before the kernel by a copy kernel.
    const bool staging = c.stage_b && a.B.order == SPX_ORDER_COL;
    const kernels::DenseView col_b = a.B;
    if (staging) a.B = kernels::DenseView{ws, knm::staged_b_ld(a.n), SPX_R_32F, SPX_ORDER_ROW};
    a.stream_k.schedule = c.stream_k;
    a.bulk = c.bulk && knm::spmm_bulk_ok(c.tile, a, smem_optin_);
    if (!a.bulk) a.stream_k = knm::StreamKArgs{};
    if (staging) {
      const int64_t staged = knm::staged_b_bytes(a.k, a.n);
      if (a.bulk && c.stream_b && a.k > 0) {
        a.streamed.src = static_cast<const float*>(col_b.ptr);
        a.streamed.ld_src = col_b.ld;
        a.streamed.staged = reinterpret_cast<float*>(ws);
        a.streamed.ld_staged = knm::staged_b_ld(a.n);
        a.streamed.flags = reinterpret_cast<uint32_t*>(ws + staged);
        a.streamed.copy_blocks = std::max(1, sm_count_);  // one per SM
        ws += staged + knm::streamed_flag_bytes(a.k, a.n, knm::tile_shape(c.tile).bn);
      } else {
        knm::StageBArgs sb;
        sb.k = a.k;
        sb.n = a.n;
        sb.ld_out = knm::staged_b_ld(a.n);
        sb.B = col_b;
        sb.out = reinterpret_cast<float*>(ws);
        device::check(knm::stage_b_row_major(sb, h.stream), "launching the NM B staging copy");
        ws += staged;
      }
    }
    if (a.stream_k.schedule.on()) {
      const TileShape& t = knm::tile_shape(c.tile);
      a.stream_k.partials = reinterpret_cast<float*>(ws);
      ws += knm::stream_k_partial_bytes(c.stream_k, t);
      a.stream_k.counters = reinterpret_cast<uint32_t*>(ws);
      ws += knm::stream_k_counter_bytes(c.stream_k, t);
    }
    a.workspace = reinterpret_cast<float*>(ws);
    device::check(knm::spmm(c.tile, a, h.stream), "launching the NM SpMM kernel");
  }

  void update_values(const spxContext& h, const spxSpMatDescr& A) override {
    if (A.value_slots() > 0) device::expect_device_pointer(A.values, "A's values");
    knm::RelayoutArgs r;
    r.rows = dims_.rows;
    r.kc = dims_.kc();
    r.rows_pad = staging_.rows_pad;
    r.values = static_cast<const float*>(A.values);
    r.a_t = a_t_.as<float>();
    device::check(knm::relayout_values(r, h.stream), "launching the NM value re-layout kernel");
  }

  int candidate_count() const override { return static_cast<int>(candidates_.size()); }
  int selected() const override { return selected_; }
  void select(int candidate) override {
    SPX_EXPECTS(candidate >= 0 && candidate < candidate_count(), SPX_STATUS_INTERNAL_ERROR,
                "NM candidate %d out of range", candidate);
    selected_ = candidate;
  }

  std::string describe(int candidate) const override {
    const Candidate& c = candidates_[static_cast<size_t>(candidate)];
    const TileShape& t = knm::tile_shape(c.tile);
    knm::SpmmArgs a = base_;
    // Stream-K: the blocks that share the last tiles (families/nm/kernels/stream_k.hpp).
    char sk[32] = "off";
    if (c.stream_k.on()) std::snprintf(sk, sizeof sk, "%lld", ll(c.stream_k.blocks));
    char buf[256];
    std::snprintf(
        buf, sizeof buf,
        "tile %s %dx%d (thread %dx%d, %d thr); %lld:%lld L %lld; w_s %d k_s %d; "
        "packing %s; split-K %d; stream-K %s; B %s C %s; depth %d; loads %s; smem %lld B",
        t.name, t.bm, t.bn, t.tm, t.tn, t.threads, ll(dims_.n), ll(dims_.m), ll(dims_.l), a.w_s,
        a.k_s, packing_ ? "on" : "off", c.split, sk,
        b_order_ == SPX_ORDER_ROW
            ? "row"
            : (c.stream_b ? "col (staged row-major, streamed)"
                          : (c.stage_b ? "col (staged row-major)" : "col")),
        c_order_ == SPX_ORDER_ROW ? "row" : "col", a.depth, c.bulk ? "tma" : "cp.async",
        ll(knm::spmm_smem_bytes(c.tile, a)));
    return buf;
  }

  size_t workspace_bytes() const override {
    int64_t most = 0;
    for (const Candidate& c : candidates_) {
      knm::SpmmArgs a = base_;
      a.split = c.split;
      int64_t staged = c.stage_b ? knm::staged_b_bytes(base_.k, base_.n) : 0;
      if (c.stream_b)
        staged += knm::streamed_flag_bytes(base_.k, base_.n, knm::tile_shape(c.tile).bn);
      const TileShape& t = knm::tile_shape(c.tile);
      staged += knm::stream_k_partial_bytes(c.stream_k, t) +
                knm::stream_k_counter_bytes(c.stream_k, t);
      most = std::max(most, staged + knm::spmm_workspace_bytes(a));
    }
    return static_cast<size_t>(most);
  }

  size_t metadata_bytes() const { return metadata_bytes_; }
  size_t values_bytes() const { return a_t_.bytes(); }
  const Candidate& chosen() const { return candidates_[static_cast<size_t>(selected_)]; }

 private:
  plan::NmDims dims_;
  plan::NmStaging staging_;
  bool packing_ = false;
  spxOrder_t b_order_ = SPX_ORDER_ROW, c_order_ = SPX_ORDER_COL;
  device::Buffer a_t_, ridx_, col_info_, col_count_;
  size_t metadata_bytes_ = 0;
  size_t smem_optin_ = 0;
  int sm_count_ = 1;
  bool bulk_device_ = false;  ///< cc >= 9.0: the tensor-copy kernel exists
  int64_t stream_k_slots_ = 0;   ///< SPX_NM_STREAM_K_SLOTS (>= 2: that many block slots)
  bool stream_k_forced_ = false;  ///< SPX_NM_STREAM_K=1: stream-K wherever a schedule exists
  knm::SpmmArgs base_;
  std::vector<Candidate> candidates_;
  int selected_ = 0;
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
  bool fits[knm::kTileCount];
  if (plan_windows(p, false, fits, 2) == 0 && plan_windows(p, true, fits, 2) == 0)
    return strf("no NM pipeline stage fits the device's %lld bytes of shared memory per block",
                ll(p.h.smem_per_block_optin));
  return {};
}

std::unique_ptr<SpmmKernelPlan> build_nm_spmm(const SpmmProblem& p, spxPlanInfo_t& info) {
  const auto t_start = Clock::now();
  const HostStructure host = download_structure(p.h, p.A);
  const double ms_download = ms_since(t_start);
  plan::NmDims dims;
  dims.rows = p.A.rows;
  dims.cols = p.A.cols;
  dims.n = p.A.n;
  dims.m = p.A.m;
  dims.l = p.A.l;
  plan::validate_nm_indices(dims, host.idx.data());

  // A column-major B is staged row-major before the kernel (see families/nm/kernels/launch.hpp: StageBArgs)
  // unless SPX_NM_STAGE_B=0; the kernel then loads it as row-major.
  const bool stage_b = p.B.order == SPX_ORDER_COL && p.switches.flag("SPX_NM_STAGE_B") != 0;
  // sm_90 runs non-packed plans on the tensor-copy kernel (spmm_bulk.cuh) when B's rows allow
  // it, unless SPX_NM_BULK=0: its stages are sized for it (dense B rows in shared memory).
  // (Its code exists where the library's device code runs as sm_90: code_arch, not cc_major.)
  const bool bulk = p.h.code_arch >= 90 && p.switches.flag("SPX_NM_BULK") != 0 &&
                    (stage_b || (p.B.order == SPX_ORDER_ROW && p.B.ld % 4 == 0));

  // Both stagings, then the packing decision from the model (or the override).
  bool fits_plain[knm::kTileCount], fits_packed[knm::kTileCount];
  // Pipeline depth (stage buffers in flight): 2 unless SPX_NM_DEPTH=3 and a 3-deep stage fits.
  int depth = p.switches.integer("SPX_NM_DEPTH", 2) == 3 ? 3 : 2;
  int64_t w_plain = plan_windows(p, false, fits_plain, depth, bulk);
  int64_t w_packed = plan_windows(p, true, fits_packed, depth);
  if (depth == 3 && w_plain == 0 && w_packed == 0) {
    depth = 2;
    w_plain = plan_windows(p, false, fits_plain, depth, bulk);
    w_packed = plan_windows(p, true, fits_packed, depth);
  }
  const int64_t n_cols = p.C.cols;
  const int sm_count = p.h.sm_count;
  plan::NmUnionStats stats;
  plan::NmStaging packed_staging;
  if (w_packed > 0) {
    packed_staging = plan::nm_staging(dims, w_packed, knm::kRowPad);
    stats = plan::nm_union_stats(dims, host.idx.data(), packed_staging, knm::kPackTileRows,
                                 kUnionStatsPairs);
  }
  const knm::Choice model_choice = knm::choose_tile(
      dims.rows, n_cols, packed_staging.stages, sm_count, w_plain > 0 ? fits_plain : fits_packed);
  const TileShape& model_tile = knm::tile_shape(model_choice.tile);
  plan::NmStageCostInput cost;
  cost.bm = model_tile.bm;
  cost.bn = model_tile.bn;
  cost.w_s_plain = dims.n * w_plain;
  cost.k_s_plain = dims.m * w_plain;
  cost.w_s_packed = dims.n * w_packed;
  cost.packed_rows = stats.mean_rows;
  cost.packed_sectors = stats.mean_sectors;
  cost.b_col_major = p.B.order == SPX_ORDER_COL && !stage_b;
  // The tensor-copy kernel loads a non-packed stage with two instructions and no per-thread copy
  // work: its B rows cost L2 bandwidth only (measured: non-packed 1:8 at ~4.7 TB/s on H100), while
  // the packed stage stays on the cp.async kernel with its per-thread copies.
  plan::NmCostModel model;
  if (bulk) {
    model.l2_bytes_per_clk = 56.0;
    model.packing_overhead = 0.15;
  }
  const plan::NmPackingDecision decision = plan::nm_decide_packing(cost, model);
  bool packing = decision.packing;
  const int64_t forced = p.switches.integer("SPX_NM_FORCE_PACKING", -1);
  if (forced == 0 && w_plain > 0) packing = false;
  if (forced == 1 && w_packed > 0) packing = true;
  SPX_EXPECTS(packing ? w_packed > 0 : w_plain > 0, SPX_STATUS_INTERNAL_ERROR,
              "no NM staging fits (checked by can_implement)");

  const int64_t windows = packing ? w_packed : w_plain;
  const bool* fits = packing ? fits_packed : fits_plain;
  const plan::NmStaging staging = plan::nm_staging(dims, windows, knm::kRowPad);
  const int64_t capacity = packing ? knm::pack_capacity(dims.l, staging.w_s, staging.k_s) : 0;
  const plan::NmIndexLayout layout =
      plan::nm_build_layout(dims, host.idx.data(), staging, packing, knm::kPackTileRows, capacity);
  const double ms_planning = ms_since(t_start) - ms_download;
  const auto t_device = Clock::now();
  auto k = std::make_unique<NmSpmm>(p, dims, staging, layout, depth);
  const double ms_device = ms_since(t_device);

  // Candidates: the choice for this shape first (the plan runs it), then every other tile that
  // fits, and the chosen tile without split-K when the choice splits.
  // Non-packed plans on sm_90 run the tensor-copy kernel, where the Wide tile is the fastest
  // 128 x 128 tile (config.hpp: TileShape::efficiency_tensor_copies).
  const bool tensor_copies = bulk && !packing;
  knm::Choice choice =
      knm::choose_tile(dims.rows, n_cols, staging.stages, sm_count, fits, tensor_copies);
  const int forced_tile = env_tile(p.switches);
  if (forced_tile >= 0 && fits[forced_tile]) choice.tile = static_cast<TileId>(forced_tile);
  const int64_t forced_split = p.switches.integer("SPX_NM_FORCE_SPLIT", 0);
  if (forced_split >= 1) choice.split = static_cast<int>(std::min<int64_t>(forced_split, 64));
  // sm_90: the tensor-copy kernel for non-packed plans unless SPX_NM_BULK=0 (the cp.async
  // kernel stays a search candidate).
  // A column-major B on the tensor-copy kernel is streamed beside it where the tile allows
  // (unless SPX_NM_STREAM_B=0); the copy before the kernel stays a search candidate.
  const bool stream_b = stage_b && p.switches.flag("SPX_NM_STREAM_B") != 0;
  // Stream-K where the last wave of tiles would leave enough slots idle to pay for it
  // (families/nm/kernels/stream_k.hpp), unless SPX_NM_STREAM_K=0; it comes first when it applies (a
  // column-major B then copied before the kernel instead of streamed beside it), and one block
  // per tile stays a search candidate.
  const bool stream_k = p.switches.flag("SPX_NM_STREAM_K") != 0;
  if (stream_k) k->add_candidate(choice.tile, choice.split, stage_b, bulk, false, true);
  k->add_candidate(choice.tile, choice.split, stage_b, bulk, stream_b);
  if (stream_b) k->add_candidate(choice.tile, choice.split, stage_b, bulk);
  for (int i = knm::kTileCount - 1; i >= 0; --i)
    if (fits[i]) k->add_candidate(static_cast<TileId>(i), 1, stage_b, bulk);
  if (choice.split > 1) k->add_candidate(choice.tile, 1, stage_b, bulk);
  k->add_candidate(choice.tile, choice.split, stage_b, false);
  // The direct column-major loader stays available to spxSpMM_search.
  if (stage_b) k->add_candidate(choice.tile, choice.split, false, false);

  // What the model expects against dense SGEMM (cuBLAS at ~82 % of the FFMA rate).
  const TileShape& t = knm::tile_shape(k->chosen().tile);
  plan::NmStageCostInput mine = cost;
  mine.bm = t.bm;
  mine.bn = t.bn;
  if (packing)
    mine.w_s_plain = 0;
  else
    mine.w_s_packed = 0;
  const plan::NmPackingDecision d = plan::nm_decide_packing(mine, model);
  const double clk_per_slot =
      (packing ? d.clk_per_slot_packed : d.clk_per_slot_plain) /
      knm::tile_efficiency(t, tensor_copies);
  const double blocks = std::ceil(static_cast<double>(dims.rows) / t.bm) *
                        std::ceil(static_cast<double>(n_cols) / t.bn);
  const double sms = std::max(1, sm_count);
  const double sparse_clk = blocks * static_cast<double>(staging.kc_pad) * clk_per_slot / sms;
  const double dense_clk = 2.0 * static_cast<double>(dims.rows) * static_cast<double>(n_cols) *
                           static_cast<double>(dims.cols) / (256.0 * 0.82 * sms);

  info.family = SPX_SPMM_ALG_NM;
  std::snprintf(info.kernel, sizeof(info.kernel), "nm_spmm_f32");
  std::snprintf(info.config, sizeof(info.config), "%s", k->describe(k->selected()).c_str());
  info.metadata_bytes = k->metadata_bytes();
  info.values_bytes = k->values_bytes();
  info.padded_nnz = staging.rows_pad * staging.kc_pad;
  info.split_k = k->chosen().split;
  info.packing = packing ? 1 : 0;
  info.predicted_speedup = sparse_clk > 0 ? dense_clk / sparse_clk : 0.0;
  log::info(
      "NM plan: packing %s (model: AI plain %.1f, packed %.1f FLOP/B, balance %.1f; "
      "clk/slot plain %.0f, packed %.0f%s)",
      packing ? "on" : "off", decision.ai_plain, decision.ai_packed, decision.balance,
      decision.clk_per_slot_plain, decision.clk_per_slot_packed,
      forced >= 0 ? "; forced by SPX_NM_FORCE_PACKING" : "");
  // Where analyze's time goes (SPX_LOG_LEVEL=3, trace): reading A's indices, host planning, and the
  // plan's device side (buffers, value re-layout, kernel loading).
  log::trace("NM analyze: indices download %.2f ms, planning %.2f ms, device setup %.2f ms",
             ms_download, ms_planning, ms_device);
  return k;
}

}  // namespace spx::dispatch
