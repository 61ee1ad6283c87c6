#include "families/nm/plan/choice.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>

#include "runtime/error.hpp"
#include "runtime/log.hpp"

namespace spx::plan::nm {
namespace {

namespace knm = kernels::nm;
using knm::TileShape;
using ll = long long;

/// (pack tile, stage) pairs the packing decision reads at most (a sample of the tiles beyond):
/// on a random 3:8 17920 x 6656 weight (5600 pairs) the mean union size of 1024 pairs is within
/// 0.1 % of the whole matrix's, and reading them takes 1 ms of analyze instead of 8.
constexpr int64_t kUnionStatsPairs = 1024;
/// Stage buffers in flight (a third measured slower on H100 and H200 on both kernels).
constexpr int kDepth = 2;

int64_t ceil_div(int64_t a, int64_t b) {
  return (a + b - 1) / b;
}

/// Stage depth shared by every candidate tile (the plan's index arrays depend on it), for the
/// largest tile that has one. Prefers the shared memory that lets two blocks share an SM when that
/// still gives at least 8 slots per stage (one block per SM measured 1.5x slower on H200; the
/// tensor-copy kernel at 4096^3 on H100 too). `bulk`: sized for the tensor-copy kernel's dense B
/// rows (non-packing). fits[i]: tile i's cp.async kernel runs with that depth (the fallback of
/// every candidate).
int64_t stage_windows(const Inputs& in, bool packing, bool fits[knm::kTileCount], bool bulk) {
  const int64_t n = in.dims.n, m = in.dims.m, l = in.dims.l;
  const int64_t optin = in.smem_optin;
  int64_t windows = 0;
  for (int i = knm::kTileCount - 1; i >= 0 && windows == 0; --i) {
    const TileShape& t = knm::kTiles[i];
    const int64_t half =
        knm::windows_per_stage(t, n, m, l, packing, knm::two_blocks_budget(optin), kDepth, bulk);
    windows =
        n * half >= 8 ? half : knm::windows_per_stage(t, n, m, l, packing, optin, kDepth, bulk);
  }
  for (int i = 0; i < knm::kTileCount; ++i) {
    const TileShape& t = knm::kTiles[i];
    const int64_t w_s = n * windows, k_s = m * windows;
    const int64_t rows_s = packing ? knm::pack_capacity(l, w_s, k_s) : k_s;
    fits[i] = windows > 0 && knm::kernel_smem_bytes(t, w_s, rows_s, knm::groups_per_block(t, l),
                                                    packing ? rows_s : 0, kDepth) <= optin;
  }
  return windows;
}

/// B rows per tensor copy: the largest divisor of k_s that is at most 256 (a box dimension).
int box_rows_for(int64_t k_s) {
  for (int64_t r = k_s < 256 ? k_s : 256; r > 1; --r)
    if (k_s % r == 0) return static_cast<int>(r);
  return 1;
}

/// Builds the candidates of one decision (the rule's order; duplicates dropped).
class Builder {
 public:
  Builder(const Inputs& in, const Overrides& ov, Decision& d) : in_(in), ov_(ov), d_(d) {}

  /// `split` as asked (the effective split has no empty parts); `bulk`: the tensor-copy kernel
  /// where this tile's stage allows it; `stream_b`: its column-major B copied beside it where the
  /// tile has that kernel; `stream_k`: only a stream-K configuration, where one applies.
  void add(TileId tile, int split, bool stage_b, bool bulk, bool stream_b = false,
           bool stream_k = false) {
    const TileShape& t = knm::tile_shape(tile);
    const int64_t stages = d_.staging.stages;
    int64_t sps = stages, eff = 1;
    if (split > 1 && stages > 1) {
      sps = ceil_div(stages, split);
      eff = ceil_div(stages, sps);
    }
    if (stages == 0) sps = 0;
    stage_b = stage_b && d_.b_col_major;
    bulk = bulk && !d_.packing && (!d_.b_col_major || stage_b) && bulk_fits(t);
    stream_b = stream_b && stage_b && bulk && eff == 1 && knm::has_streamed_b_kernel(t) &&
               d_.dims.cols > 0;
    // Stream-K reads a row-major B: a column-major one copied before the kernel (not streamed),
    // which must then win back that copy too.
    const knm::StreamKSchedule sk = stream_k && bulk && eff == 1 && !stream_b
                                        ? stream_k_schedule(t, stage_b ? 1.10 : 1.05)
                                        : knm::StreamKSchedule{};
    if (stream_k && !sk.on()) return;  // asked for stream-K where it does not apply

    Candidate c;
    c.config.tile = tile;
    c.fallback.tile = tile;
    knm::CpAsyncLoop cp;
    cp.split = static_cast<int>(eff);
    cp.stages_per_split = static_cast<int>(sps);
    cp.staged_b = stage_b;
    cp.ws = workspace(t, stage_b, false, {}, cp.split);
    c.fallback.loop = cp;
    const int box_rows = box_rows_for(d_.staging.k_s);
    if (!bulk) {
      c.config.loop = cp;
    } else if (stream_b) {
      knm::StreamedBLoop s;
      s.box_rows = box_rows;
      s.producer_last = ov_.producer_last;
      const int64_t k = d_.dims.cols, n = d_.n_cols;
      s.chunks = static_cast<int>(ceil_div(k, knm::kStreamChunkRows));
      s.panels = static_cast<int>(ceil_div(n, t.bn));
      s.copy_blocks = std::max(1, in_.sm_count);
      // Tiles running at once: the tile's blocks per SM on every SM (one copy block each); the
      // copy takes the panels in groups of those whose tiles start together.
      const int64_t resident = static_cast<int64_t>(knm::blocks_per_sm(t)) * s.copy_blocks;
      const int64_t group = ceil_div(std::max<int64_t>(1, resident), ceil_div(d_.dims.rows, t.bm));
      s.panel_group = static_cast<int>(std::min<int64_t>(s.panels, std::max<int64_t>(1, group)));
      s.copy_grid = static_cast<int>(
          std::min<int64_t>(static_cast<int64_t>(s.chunks) * s.panels, s.copy_blocks));
      s.ws = workspace(t, true, true, {}, 1);
      c.config.loop = s;
    } else if (sk.on()) {
      knm::StreamKLoop s;
      s.schedule = sk;
      s.m_tiles = ceil_div(d_.dims.rows, t.bm);
      s.staged_b = stage_b;
      s.box_rows = box_rows;
      s.ws = workspace(t, stage_b, false, sk, 1);
      c.config.loop = s;
    } else {
      knm::BulkLoop b;
      b.split = cp.split;
      b.stages_per_split = cp.stages_per_split;
      b.staged_b = stage_b;
      b.box_rows = box_rows;
      b.producer_last = ov_.producer_last;
      b.ws = cp.ws;
      c.config.loop = b;
    }
    d_.candidates.add(c);
  }

 private:
  /// The tensor-copy kernel's stage of this tile fits (its shared memory, box and grid limits).
  bool bulk_fits(const TileShape& t) const {
    const NmStaging& s = d_.staging;
    return s.w_s <= 256 && d_.dims.rows <= INT32_MAX && d_.dims.cols <= INT32_MAX &&
           knm::bulk_smem_bytes(t, s.w_s, s.k_s, knm::groups_per_block(t, d_.dims.l), d_.depth) <=
               in_.smem_optin;
  }

  /// Stream-K for the tile on this device (kernels/stream_k.hpp): the schedule over the tile's
  /// stream-K blocks per SM (0: it has no stream-K kernel) on every SM, or over
  /// SPX_NM_STREAM_K_SLOTS block slots. Off unless it is predicted `gain` times faster than one
  /// block per tile (stream_k_pays), or wherever a schedule exists with SPX_NM_STREAM_K=1; always
  /// off with warp 0 as the producer (SPX_NM_PRODUCER=0): the stream-K kernel has only the
  /// last-finisher pipeline.
  knm::StreamKSchedule stream_k_schedule(const TileShape& t, double gain) const {
    if (!ov_.producer_last || !knm::has_stream_k_kernel(t) || !in_.stream_k_blocks_per_sm)
      return {};
    const NmStaging& s = d_.staging;
    const int64_t tiles = ceil_div(d_.dims.rows, t.bm) * ceil_div(d_.n_cols, t.bn);
    const int64_t smem =
        knm::bulk_smem_bytes(t, s.w_s, s.k_s, knm::groups_per_block(t, d_.dims.l), d_.depth);
    const int per_sm = in_.stream_k_blocks_per_sm(t.id, smem);
    if (per_sm <= 0) return {};
    const int64_t slots = ov_.stream_k_slots >= 2
                              ? ov_.stream_k_slots
                              : static_cast<int64_t>(per_sm) * std::max(1, in_.sm_count);
    const knm::StreamKSchedule sk = knm::plan_stream_k(tiles, s.stages, slots);
    if (ov_.stream_k == 1 || knm::stream_k_pays(sk, slots, gain)) return sk;
    return {};
  }

  /// The launch's workspace: B's row-major copy, the streamed copy's flags, stream-K's parts,
  /// then split-K's partial products (256-byte aligned parts).
  knm::WorkspaceLayout workspace(const TileShape& t, bool staged, bool streamed,
                                 const knm::StreamKSchedule& sk, int split) const {
    const int64_t k = d_.dims.cols, m = d_.dims.rows, n = d_.n_cols;
    knm::WorkspaceLayout w;
    int64_t at = 0;
    if (staged) {
      w.staged_b = at;
      at += knm::staged_b_bytes(k, n);
    }
    if (streamed) {
      w.flags = at;
      at += knm::streamed_flag_bytes(k, n, t.bn);
    }
    if (sk.on()) {
      w.partials = at;
      at += knm::stream_k_partial_bytes(sk, t);
      w.counters = at;
      at += knm::stream_k_counter_bytes(sk, t);
    }
    w.split = at;
    w.total = at + (split > 1 ? static_cast<int64_t>(split) * m * n * 4 : 0);
    return w;
  }

  const Inputs& in_;
  const Overrides& ov_;
  Decision& d_;
};

/// Modelled clocks of the chosen candidate against dense SGEMM's (cuBLAS at ~82 % of the FFMA
/// rate).
double predict_speedup(const Decision& d, const NmStageCostInput& cost, const NmCostModel& model,
                       int sm_count) {
  const SpmmConfig& c = d.chosen();
  const TileShape& t = knm::tile_shape(c.tile);
  NmStageCostInput mine = cost;
  mine.bm = t.bm;
  mine.bn = t.bn;
  if (d.packing)
    mine.w_s_plain = 0;
  else
    mine.w_s_packed = 0;
  const NmPackingDecision p = nm_decide_packing(mine, model);
  // The rule's efficiency of the tile on the kernel the shape's choice runs.
  const bool tensor = knm::tensor_copies(d.candidates.at(0).config);
  const double clk_per_slot = (d.packing ? p.clk_per_slot_packed : p.clk_per_slot_plain) /
                              (tensor ? t.efficiency_tensor_copies : t.efficiency);
  const double blocks = std::ceil(static_cast<double>(d.dims.rows) / t.bm) *
                        std::ceil(static_cast<double>(d.n_cols) / t.bn);
  const double sms = std::max(1, sm_count);
  const double sparse_clk = blocks * static_cast<double>(d.staging.kc_pad) * clk_per_slot / sms;
  const double dense_clk = 2.0 * static_cast<double>(d.dims.rows) * static_cast<double>(d.n_cols) *
                           static_cast<double>(d.dims.cols) / (256.0 * 0.82 * sms);
  return sparse_clk > 0 ? dense_clk / sparse_clk : 0.0;
}

}  // namespace

Overrides read_overrides(const dispatch::Switches& switches) {
  Overrides o;
  const int64_t packing = switches.integer("SPX_NM_FORCE_PACKING", -1);
  o.force_packing = packing == 0 || packing == 1 ? static_cast<int>(packing) : -1;
  if (const char* v = switches.text("SPX_NM_FORCE_TILE")) {
    for (const TileShape& t : knm::kTiles)
      if (std::strcmp(v, t.name) == 0) o.force_tile = static_cast<int>(t.id);
    if (o.force_tile < 0) log::info("SPX_NM_FORCE_TILE=%s ignored: not a tile name", v);
  }
  const int64_t split = switches.integer("SPX_NM_FORCE_SPLIT", 0);
  o.force_split = split >= 1 ? static_cast<int>(std::min<int64_t>(split, 64)) : 0;
  o.stage_b = switches.flag("SPX_NM_STAGE_B") != 0;
  o.stream_b = switches.flag("SPX_NM_STREAM_B") != 0;
  o.stream_k = switches.flag("SPX_NM_STREAM_K");
  const int64_t slots = switches.integer("SPX_NM_STREAM_K_SLOTS", 0);
  o.stream_k_slots = slots >= 2 ? slots : 0;
  o.producer_last = switches.flag("SPX_NM_PRODUCER") != 0;
  return o;
}

TileChoice choose_tile(int64_t m, int64_t n, int64_t stages, int sm_count,
                       const bool fits[knm::kTileCount], bool tensor_copies) {
  TileChoice best;
  double best_score = -1.0;
  const int64_t sms = sm_count > 0 ? sm_count : 1;
  for (int i = knm::kTileCount - 1; i >= 0; --i) {
    if (!fits[i]) continue;
    const TileShape& t = knm::kTiles[i];
    const int64_t blocks = ceil_div(m, t.bm) * ceil_div(n, t.bn);
    const int64_t slots = sms * knm::blocks_per_sm(t);
    const int64_t waves = ceil_div(blocks, slots);
    const double utilization = waves > 0 ? static_cast<double>(blocks) / (waves * slots) : 0.0;
    const double score = (tensor_copies ? t.efficiency_tensor_copies : t.efficiency) * utilization;
    if (score > best_score * 1.0001) {
      best_score = score;
      best.tile = t.id;
    }
  }
  const TileShape& t = knm::tile_shape(best.tile);
  const int64_t blocks = ceil_div(m, t.bm) * ceil_div(n, t.bn);
  const int64_t slots = sms * knm::blocks_per_sm(t);
  if (blocks > 0 && 2 * blocks <= slots && stages >= 4) {
    int64_t split = ceil_div(slots, blocks);
    if (split > 16) split = 16;
    if (split > stages / 2) split = stages / 2;
    if (split > 1) best.split = static_cast<int>(split);
  }
  return best;
}

bool any_stage_fits(const Inputs& in) {
  bool fits[knm::kTileCount];
  return stage_windows(in, false, fits, false) > 0 || stage_windows(in, true, fits, false) > 0;
}

Decision choose(const Inputs& in, const Overrides& ov) {
  Decision d;
  const NmDims& dims = in.dims;
  d.dims = dims;
  d.n_cols = in.n_cols;
  d.b_col_major = in.b_col_major;
  d.c_col_major = in.c_col_major;
  d.depth = kDepth;

  // 1. B: a column-major B is read as a row-major copy in the workspace (SPX_NM_STAGE_B=0: the
  // direct column-major loader).
  const bool stage_b = in.b_col_major && ov.stage_b;
  // 2. Kernel: sm_90 device code (code_arch, not the device's cc) with the driver's tensor-map
  // encoder runs non-packed stages on the tensor-copy kernel where B's rows allow it (the
  // row-major copy, or a row-major B with ld % 4 == 0 at a 16-byte aligned address); its
  // stages are sized for it (dense B rows in shared memory).
  const bool bulk = in.code_arch >= 90 && in.tensor_maps &&
                    (stage_b || (!in.b_col_major && in.b_ld % 4 == 0 && in.b_aligned));

  // 3. Stage size for both loads, 4. then the packing decision from the model (or the override).
  bool fits_plain[knm::kTileCount], fits_packed[knm::kTileCount];
  const int64_t w_plain = stage_windows(in, false, fits_plain, bulk);
  const int64_t w_packed = stage_windows(in, true, fits_packed, false);
  NmUnionStats stats;
  NmStaging packed_staging;
  if (w_packed > 0) {
    packed_staging = nm_staging(dims, w_packed, knm::kRowPad);
    if (in.indices != nullptr)
      stats =
          nm_union_stats(dims, in.indices, packed_staging, knm::kPackTileRows, kUnionStatsPairs);
  }
  const TileChoice model_choice = choose_tile(dims.rows, in.n_cols, packed_staging.stages,
                                              in.sm_count, w_plain > 0 ? fits_plain : fits_packed);
  const TileShape& model_tile = knm::tile_shape(model_choice.tile);
  NmStageCostInput cost;
  cost.bm = model_tile.bm;
  cost.bn = model_tile.bn;
  cost.w_s_plain = dims.n * w_plain;
  cost.k_s_plain = dims.m * w_plain;
  cost.w_s_packed = dims.n * w_packed;
  cost.packed_rows = stats.mean_rows;
  cost.packed_sectors = stats.mean_sectors;
  cost.b_col_major = in.b_col_major && !stage_b;
  // The tensor-copy kernel loads a non-packed stage with two instructions and no per-thread copy
  // work: its B rows cost L2 bandwidth only (measured: non-packed 1:8 at ~4.7 TB/s on H100), while
  // the packed stage stays on the cp.async kernel with its per-thread copies.
  NmCostModel model;
  if (bulk) {
    model.l2_bytes_per_clk = 56.0;
    model.packing_overhead = 0.15;
  }
  d.model = nm_decide_packing(cost, model);
  bool packing = d.model.packing;
  if (ov.force_packing == 0 && w_plain > 0) packing = false;
  if (ov.force_packing == 1 && w_packed > 0) packing = true;
  d.packing_forced = ov.force_packing >= 0;
  SPX_EXPECTS(packing ? w_packed > 0 : w_plain > 0, SPX_STATUS_INTERNAL_ERROR,
              "no NM staging fits (checked by can_implement)");
  d.packing = packing;
  const bool* fits = packing ? fits_packed : fits_plain;
  d.staging = nm_staging(dims, packing ? w_packed : w_plain, knm::kRowPad);
  d.pack_capacity = packing ? knm::pack_capacity(dims.l, d.staging.w_s, d.staging.k_s) : 0;
  d.rows_s = packing ? d.pack_capacity : d.staging.k_s;

  // 5. Tile and split-K for this shape; non-packed plans on the tensor-copy kernel rank the Wide
  // tile first among the 128 x 128 tiles (config.hpp: TileShape::efficiency_tensor_copies).
  TileChoice choice =
      choose_tile(dims.rows, in.n_cols, d.staging.stages, in.sm_count, fits, bulk && !packing);
  if (ov.force_tile >= 0 && ov.force_tile < knm::kTileCount && fits[ov.force_tile])
    choice.tile = static_cast<TileId>(ov.force_tile);
  if (ov.force_split >= 1) choice.split = ov.force_split;

  // 6. Candidates, the one the plan runs first. A column-major B on the tensor-copy kernel is
  // streamed beside it where the tile allows (SPX_NM_STREAM_B=0: copied before it); stream-K
  // where it pays (SPX_NM_STREAM_K), a column-major B then copied before the kernel. Then, for
  // spxSpMM_search: the copy before the kernel, every other tile that fits, the chosen tile
  // without split-K, the cp.async kernel, the direct column-major loader.
  const bool stream_b = stage_b && ov.stream_b;
  Builder b(in, ov, d);
  if (ov.stream_k != 0) b.add(choice.tile, choice.split, stage_b, bulk, false, true);
  b.add(choice.tile, choice.split, stage_b, bulk, stream_b);
  if (stream_b) b.add(choice.tile, choice.split, stage_b, bulk);
  for (int i = knm::kTileCount - 1; i >= 0; --i)
    if (fits[i]) b.add(static_cast<TileId>(i), 1, stage_b, bulk);
  if (choice.split > 1) b.add(choice.tile, 1, stage_b, bulk);
  b.add(choice.tile, choice.split, stage_b, false);
  if (stage_b) b.add(choice.tile, choice.split, false, false);

  d.predicted_speedup = predict_speedup(d, cost, model, in.sm_count);
  return d;
}

std::string Decision::describe(int i) const {
  const SpmmConfig& c = candidates.at(i).config;
  const TileShape& t = knm::tile_shape(c.tile);
  const auto* sk = std::get_if<knm::StreamKLoop>(&c.loop);
  const bool tensor = knm::tensor_copies(c);
  // Stream-K: the blocks that share the last tiles (kernels/stream_k.hpp).
  char stream_k[32] = "off";
  if (sk != nullptr) std::snprintf(stream_k, sizeof stream_k, "%lld", ll(sk->schedule.blocks));
  const char* b = !b_col_major ? "row"
                  : std::holds_alternative<knm::StreamedBLoop>(c.loop)
                      ? "col (staged row-major, streamed)"
                      : (knm::staged_b(c) ? "col (staged row-major)" : "col");
  const int64_t groups = knm::groups_per_block(t, dims.l);
  const int64_t smem = tensor ? knm::bulk_smem_bytes(t, staging.w_s, staging.k_s, groups, depth)
                              : knm::kernel_smem_bytes(t, staging.w_s, rows_s, groups,
                                                       packing ? pack_capacity : 0, depth);
  char buf[256];
  std::snprintf(buf, sizeof buf,
                "tile %s %dx%d (thread %dx%d, %d thr); %lld:%lld L %lld; w_s %lld k_s %lld; "
                "packing %s; split-K %d; stream-K %s; B %s C %s; depth %d; loads %s; smem %lld B",
                t.name, t.bm, t.bn, t.tm, t.tn, t.threads, ll(dims.n), ll(dims.m), ll(dims.l),
                ll(staging.w_s), ll(staging.k_s), packing ? "on" : "off", knm::split_of(c),
                stream_k, b, c_col_major ? "col" : "row", depth, tensor ? "tma" : "cp.async",
                ll(smem));
  return buf;
}

int64_t Decision::workspace_bytes() const {
  int64_t most = 0;
  for (const Candidate& c : candidates.items())
    most = std::max({most, knm::workspace_of(c.config).total, knm::workspace_of(c.fallback).total});
  return most;
}

const SpmmConfig& config_for_call(const Candidate& c, const CallB& b) {
  if (!knm::tensor_copies(c.config)) return c.config;
  const knm::WorkspaceLayout& ws = knm::workspace_of(c.config);
  const bool readable = knm::staged_b(c.config)
                            ? (b.workspace + static_cast<uintptr_t>(ws.staged_b)) % 16 == 0
                            : b.ld % 4 == 0 && b.address % 16 == 0;
  return readable ? c.config : c.fallback;
}

}  // namespace spx::plan::nm
