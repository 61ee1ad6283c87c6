#include "families/sptc/plan/choice.hpp"

#include <algorithm>
#include <climits>
#include <type_traits>
#include <variant>

#include "runtime/dtype.hpp"
#include "runtime/error.hpp"
#include "runtime/log.hpp"

namespace spx::plan::sptc {
namespace {

using ll = long long;
namespace ks = kernels::sptc;

const char* order_name(spxOrder_t o) { return o == SPX_ORDER_ROW ? "row" : "col"; }

bool is_block_tile(int64_t bt) { return bt == 16 || bt == 32 || bt == 64 || bt == 128; }

}  // namespace

Overrides read_overrides(const dispatch::Switches& s) {
  Overrides o;
  // SPX_SPTC_BLOCK_TILE=16|32|64|128: reorder at that BLOCK_TILE instead of the cost model's.
  if (const int64_t bt = s.integer("SPX_SPTC_BLOCK_TILE", 0); bt != 0) {
    if (is_block_tile(bt))
      o.block_tile = static_cast<int>(bt);
    else
      log::info("SPX_SPTC_BLOCK_TILE=%lld ignored: not 16, 32, 64 or 128", ll(bt));
  }
  // SPX_SPTC_CLUSTER=0|1: identity / clustered row order, whatever n.
  o.cluster = s.flag("SPX_SPTC_CLUSTER");
  // SPX_SPTC_RESIDENT=0|1: the rule's choice without / with resident A (where it can run).
  o.resident = s.flag("SPX_SPTC_RESIDENT");
  // SPX_SPTC_TILES_PER_BLOCK=t: t n tiles per block in every candidate.
  if (const int64_t t = s.integer("SPX_SPTC_TILES_PER_BLOCK", 0); t != 0) {
    if (t >= 1 && t <= INT32_MAX)
      o.tiles_per_block = static_cast<int>(t);
    else
      log::info("SPX_SPTC_TILES_PER_BLOCK=%lld ignored: not a positive integer", ll(t));
  }
  // SPX_SPTC_WGMMA=0|1: the warpgroup kernel never / wherever it can run.
  o.wgmma = s.flag("SPX_SPTC_WGMMA");
  // SPX_SPTC_WG_INTERLEAVE=1: the warpgroup candidates stage B in the no-swizzle layout.
  o.wg_interleave = s.flag("SPX_SPTC_WG_INTERLEAVE") == 1;
  // SPX_SPTC_FORCE_CANDIDATE=i: the plan starts on candidate i (choose checks the range).
  o.force_candidate = s.integer("SPX_SPTC_FORCE_CANDIDATE", -1);
  return o;
}

LayoutChoice choose_layout(int64_t n, int64_t vec_len, const Overrides& o) {
  LayoutChoice c;
  c.row_order = o.cluster < 0    ? sptc_default_row_order(n)
                : o.cluster == 0 ? SptcRowOrder::kIdentity
                                 : SptcRowOrder::kClustered;
  if (o.block_tile > 0) {
    if (o.block_tile / std::max<int64_t>(1, vec_len) <= 64)
      c.block_tile = o.block_tile;
    else
      log::info("SPX_SPTC_BLOCK_TILE=%d ignored: BLOCK_TILE 128 needs V >= 2", o.block_tile);
  }
  return c;
}

int64_t resident_blocks(int sm_count, int smem, int threads) {
  int64_t per_sm = 233472 / (static_cast<int64_t>(smem) + 1024);
  const int64_t by_regs = 65536 / (128 * static_cast<int64_t>(threads));
  if (per_sm > by_regs) per_sm = by_regs;
  if (per_sm > 4) per_sm = 4;
  if (per_sm < 1) per_sm = 1;
  return per_sm * (sm_count > 0 ? sm_count : 132);
}

int tiles_per_block_for(int64_t panels, int64_t n, int block_tile, int bn, int sm_count,
                        int smem) {
  const int64_t tiles = (n + bn - 1) / bn;
  if (smem <= 0) smem = ks::smem_bytes(block_tile, bn);
  const int64_t want_blocks = 2 * resident_blocks(sm_count, smem, ks::threads_for(block_tile));
  int64_t per = panels * tiles / (want_blocks > 0 ? want_blocks : 1);
  if (per < 1) per = 1;
  if (per > tiles) per = tiles;
  return static_cast<int>(per);
}

bool promote_to_block_tile_64(int64_t m, int64_t n, int sm_count) {
  if (n <= 256 || n >= 2048) return false;
  const int64_t tiles = (n + 63) / 64;
  const int64_t grid32 = (m + 31) / 32 * tiles, grid64 = (m + 63) / 64 * tiles;
  return grid32 > resident_blocks(sm_count, ks::smem_bytes(32, 64), ks::threads_for(32)) &&
         grid64 <= resident_blocks(sm_count, ks::smem_bytes(64, 64), ks::threads_for(64));
}

MmaConfig choose_config(int block_tile, int64_t panels, int64_t n, int sm_count, int max_pairs,
                        bool aligned) {
  MmaConfig c;
  c.block_tile = block_tile;
  const int64_t wide = panels * ((n + 127) / 128);
  c.bn = (n <= 64 || wide < 2 * resident_blocks(sm_count, ks::smem_bytes(block_tile, 128),
                                                ks::threads_for(block_tile)))
             ? 64
             : 128;
  c.tiles_per_block = tiles_per_block_for(panels, n, block_tile, c.bn, sm_count);
  if (aligned && c.bn == 128 && block_tile >= 64 && c.tiles_per_block >= 2 && max_pairs > 0) {
    const int smem = ks::smem_bytes(block_tile, 128, true, max_pairs);
    if (2 * (smem + 1024) <= 233472) {
      c.resident = true;
      c.tiles_per_block = tiles_per_block_for(panels, n, block_tile, c.bn, sm_count, smem);
    }
  }
  return c;
}

SptcConfig with_wgmma(const MmaConfig& c, int64_t panels, int64_t n, int sm_count) {
  if (!wgmma_fits(c.block_tile)) return c;
  WgmmaConfig w;
  w.block_tile = c.block_tile;
  w.bn = c.bn;
  w.tiles_per_block = tiles_per_block_for(panels, n, c.block_tile, c.bn, sm_count,
                                          ks::wgmma_smem_bytes(c.block_tile, c.bn));
  return w;
}

std::string Decision::kernel_name() const {
  return bf16 ? "sptc_mma_sp_bf16" : "sptc_mma_sp_f16";
}

std::string Decision::describe(int c) const {
  return ks::describe(candidates.at(c)) + layout;
}

bool Decision::uses_wgmma() const {
  return std::any_of(candidates.items().begin(), candidates.items().end(), ks::is_wgmma);
}

Decision choose(const Inputs& in, const Overrides& o) {
  Decision d;
  d.bf16 = in.bf16;
  const int bt = in.block_tile;
  const int64_t panels = in.panels, n = in.n;
  const int sm = in.sm_count;
  const bool aligned = in.b_aligned;
  const int smem_limit =
      in.smem_optin > 0 && in.smem_optin < static_cast<size_t>(ks::kMaxSmemPerBlock)
          ? static_cast<int>(in.smem_optin)
          : ks::kMaxSmemPerBlock;

  // The mma.sync rule, then SPX_SPTC_RESIDENT where resident A can run for this B.
  MmaConfig rule = choose_config(bt, panels, n, sm, in.max_pairs, aligned);
  d.resident_smem = ks::smem_bytes(bt, 128, true, in.max_pairs);
  const bool resident_ok = aligned && bt >= 64 && n > 64 && d.resident_smem <= smem_limit;
  if (o.resident >= 0 && (o.resident == 0 || resident_ok) && (o.resident == 1) != rule.resident) {
    rule.resident = o.resident == 1;
    rule.bn = rule.resident ? 128 : rule.bn;
    rule.tiles_per_block = tiles_per_block_for(panels, n, bt, rule.bn, sm,
                                               rule.resident ? d.resident_smem : 0);
  }
  // The warpgroup kernel where it can run (this build on compute capability 9.0, aligned B,
  // BLOCK_TILE 64 / 128), unless SPX_SPTC_WGMMA=0; the rule's choice where wgmma_default says
  // so or SPX_SPTC_WGMMA=1, except under SPX_SPTC_RESIDENT=1.
  const bool wgmma_ok = in.wgmma_usable && aligned && wgmma_fits(bt) && o.wgmma != 0;
  const bool wgmma_rule = wgmma_ok && (o.wgmma == 1 || wgmma_default(bt, n));
  d.rule = wgmma_rule && o.resident != 1 ? with_wgmma(rule, panels, n, sm) : SptcConfig{rule};

  auto add = [&](const SptcConfig& c) {
    if (ks::bn_of(c) == 128 && n <= 64) return;
    d.candidates.add(c);
  };
  add(d.rule);
  add(rule);
  if (wgmma_ok)
    for (int bn : {128, 64}) {
      MmaConfig c;
      c.block_tile = bt;
      c.bn = bn;
      add(with_wgmma(c, panels, n, sm));
    }
  for (int bn : {128, 64}) {
    MmaConfig c;
    c.block_tile = bt;
    c.bn = bn;
    c.tiles_per_block = tiles_per_block_for(panels, n, bt, bn, sm);
    add(c);
    c.tiles_per_block = 1;
    add(c);
  }
  if (resident_ok) {
    MmaConfig c;
    c.block_tile = bt;
    c.bn = 128;
    c.resident = true;
    c.tiles_per_block = tiles_per_block_for(panels, n, bt, 128, sm, d.resident_smem);
    if (c.tiles_per_block >= 2) add(c);
  }
  for (SptcConfig& c : d.candidates.items())
    std::visit(
        [&](auto& k) {
          if (o.tiles_per_block > 0) k.tiles_per_block = o.tiles_per_block;
          if constexpr (std::is_same_v<std::decay_t<decltype(k)>, WgmmaConfig>)
            k.interleaved_b = o.wg_interleave;
        },
        c);
  if (o.force_candidate >= 0 && o.force_candidate < d.candidates.count())
    d.candidates.select(static_cast<int>(o.force_candidate));
  else if (o.force_candidate != -1)
    log::info("SPX_SPTC_FORCE_CANDIDATE=%lld ignored: not in 0..%d", ll(o.force_candidate),
              d.candidates.count() - 1);

  d.layout = strf("; %sk tiles %lld, skipped %lld, retries %lld, pad %lld; %.1f%% of dense; "
                  "B %s, C %s %s",
                  in.clustered ? "clustered rows, " : "",
                  ll(in.tiles / std::max<int64_t>(1, in.slices)), ll(in.columns_skipped),
                  ll(in.retries), ll(in.padding_columns), 100.0 * in.dense_fraction,
                  order_name(in.b_order), dtype::name(in.c_type), order_name(in.c_order));
  return d;
}

bool b_aligned(bool row_major, uintptr_t address, int64_t ld) {
  return !row_major || (address % 16 == 0 && ld % 8 == 0);
}

int64_t transposed_ld(int64_t n) { return (n + 7) / 8 * 8; }

size_t workspace_bytes(int64_t k, int64_t n, spxOrder_t b_order) {
  if (b_order != SPX_ORDER_COL) return 0;
  return static_cast<size_t>(k) * static_cast<size_t>(transposed_ld(n)) * 2;
}

SptcLaunch launch_for(const SptcConfig& decided, int max_pairs, const CallB& b) {
  SptcLaunch l;
  l.kernel = decided;
  if (b.row_major) {
    l.b.source = ks::BSource::kUser;
    l.b.ldb = b.ld;
    l.b.aligned = b_aligned(true, b.address, b.ld);
  } else if (b.k > 0) {
    l.b.source = ks::BSource::kWorkspace;
    l.b.ldb = transposed_ld(b.n);
    l.b.aligned = b.workspace % 16 == 0;
  } else {
    l.b.source = ks::BSource::kNone;
  }
  l.b.off32 = b.k * l.b.ldb * 2 <= int64_t{0xFFFFFFFF};
  if (const auto* w = std::get_if<WgmmaConfig>(&decided); w != nullptr && !l.b.aligned) {
    MmaConfig m;
    m.block_tile = w->block_tile;
    m.bn = w->bn;
    m.tiles_per_block = w->tiles_per_block;
    l.kernel = m;
  }
  if (auto* m = std::get_if<MmaConfig>(&l.kernel); m != nullptr && m->resident) {
    // Resident A needs the cp.async gather and room for the longest panel.
    const int smem = ks::smem_bytes(m->block_tile, 128, true, max_pairs);
    if (l.b.aligned && m->bn == 128 && m->block_tile >= 64 && smem <= ks::kMaxSmemPerBlock)
      l.resident_smem = smem;
    else
      m->resident = false;
  }
  return l;
}

}  // namespace spx::plan::sptc
