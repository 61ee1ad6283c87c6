#include "families/nm/plan/layout.hpp"

#include <algorithm>
#include <numeric>

#include "runtime/error.hpp"

namespace spx::plan {
namespace {

using ll = long long;

/// Groups of pack tile t: [first, last) (clipped to the real groups; empty for padding tiles).
void tile_groups(const NmDims& d, int64_t tile, int64_t pack_tile_rows, int64_t* first, int64_t* last) {
  if (d.l >= pack_tile_rows) {
    *first = tile * pack_tile_rows / d.l;
    *last = *first + 1;
  } else {
    const int64_t per_tile = pack_tile_rows / d.l;
    *first = tile * per_tile;
    *last = *first + per_tile;
  }
  *last = std::min(*last, d.groups());
  *first = std::min(*first, *last);
}

/// Calls fn(u, row) for the slots u in [u0, u1) of group g, u0 the first slot of a stage, with
/// the stage-relative B row each reads: (window within the stage) * M + its kept position.
template <class Fn>
void for_each_stage_row(const NmDims& d, const int32_t* idx, int64_t g, int64_t u0, int64_t u1,
                        const Fn& fn) {
  const int32_t* gi = idx + g * d.kc();
  int64_t base = 0;
  for (int64_t u = u0; u < u1; u += d.n, base += d.m)
    for (int64_t j = 0; j < d.n && u + j < u1; ++j) fn(u + j, base + gi[u + j]);
}

/// The union of stage-relative rows the groups [g0, g1) read in stage st, in first-seen order
/// (`sorted`: increasing). Slots are walked window by window (no division per slot: analyze of a
/// 17920 x 6656 weight spends most of its host time here).
void stage_union(const NmDims& d, const NmStaging& s, const int32_t* idx, int64_t g0, int64_t g1,
                 int64_t st, std::vector<int64_t>& stamp, int64_t stamp_id, std::vector<int64_t>& rows,
                 bool sorted = true) {
  rows.clear();
  const int64_t u0 = st * s.w_s, u1 = std::min(d.kc(), u0 + s.w_s);
  for (int64_t g = g0; g < g1; ++g)
    for_each_stage_row(d, idx, g, u0, u1, [&](int64_t, int64_t r) {
      if (stamp[r] != stamp_id) {
        stamp[r] = stamp_id;
        rows.push_back(r);
      }
    });
  if (sorted) std::sort(rows.begin(), rows.end());
}

}  // namespace

void validate_nm_indices(const NmDims& d, const int32_t* idx) {
  // Window by window, with one test per index in the common case: no division per index (a
  // 17920 x 6656 weight has 1.4 M indices; `i % n` per index took ~3 ms of its analyze).
  const int64_t count = d.groups() * d.kc();
  const int32_t m = static_cast<int32_t>(d.m);
  for (int64_t w = 0; w < count; w += d.n) {
    int32_t prev = -1;  // indices increase strictly inside a window, from >= 0
    bool ok = true;
    for (int64_t j = 0; j < d.n; ++j) {
      const int32_t v = idx[w + j];
      ok &= v > prev && v < m;
      prev = v;
    }
    if (ok) continue;
    for (int64_t i = w; i < w + d.n; ++i) {  // name the first bad index
      SPX_CHECK_ARG(idx[i] >= 0 && idx[i] < d.m, "indices[%lld] = %d is outside [0, %lld)", ll(i),
                    idx[i], ll(d.m));
      SPX_CHECK_ARG(i == w || idx[i] > idx[i - 1],
                    "indices[%lld] = %d is not greater than indices[%lld] = %d in the same window",
                    ll(i), idx[i], ll(i - 1), idx[i - 1]);
    }
  }
}

NmStaging nm_staging(const NmDims& d, int64_t windows, int64_t row_pad) {
  SPX_EXPECTS(windows >= 1 && row_pad >= 1 && d.n >= 1 && d.m >= 1 && d.l >= 1,
              SPX_STATUS_INTERNAL_ERROR, "bad NM staging request (W %lld, row pad %lld, L %lld)",
              ll(windows), ll(row_pad), ll(d.l));
  NmStaging s;
  s.windows = windows;
  s.w_s = d.n * windows;
  s.k_s = d.m * windows;
  s.stages = (d.kc() + s.w_s - 1) / s.w_s;
  s.kc_pad = s.stages * s.w_s;
  const int64_t pad = std::lcm(row_pad, d.l);  // whole groups and whole kernel row tiles
  s.rows_pad = (d.rows + pad - 1) / pad * pad;
  s.groups_pad = s.rows_pad / d.l;
  return s;
}

NmUnionStats nm_union_stats(const NmDims& d, const int32_t* idx, const NmStaging& s,
                            int64_t pack_tile_rows, int64_t max_pairs) {
  NmUnionStats out;
  const int64_t tiles = (d.rows + pack_tile_rows - 1) / pack_tile_rows;
  const int64_t all_pairs = tiles * s.stages;
  const int64_t tile_step =
      max_pairs > 0 && all_pairs > max_pairs ? (all_pairs + max_pairs - 1) / max_pairs : 1;
  std::vector<int64_t> stamp(static_cast<size_t>(s.k_s), -1);
  // Sectors of a stage: (st * k_s + r) / 8 spans at most k_s / 8 + 2 values from st * k_s / 8.
  std::vector<int64_t> sector_stamp(static_cast<size_t>(s.k_s / 8 + 2), -1);
  std::vector<int64_t> rows;
  double sum_rows = 0, sum_sectors = 0;
  int64_t pairs = 0, stamp_id = 0;
  for (int64_t t = 0; t < tiles; t += tile_step) {
    int64_t g0, g1;
    tile_groups(d, t, pack_tile_rows, &g0, &g1);
    if (g0 == g1) continue;
    ++out.sampled_tiles;
    for (int64_t st = 0; st < s.stages; ++st) {
      const int64_t id = stamp_id++;
      stage_union(d, s, idx, g0, g1, st, stamp, id, rows, false);
      const int64_t first_sector = st * s.k_s / 8;
      int64_t sectors = 0;
      for (int64_t r : rows) {
        int64_t& seen = sector_stamp[static_cast<size_t>((st * s.k_s + r) / 8 - first_sector)];
        if (seen != id) seen = id, ++sectors;
      }
      sum_rows += static_cast<double>(rows.size());
      sum_sectors += static_cast<double>(sectors);
      out.max_rows = std::max<int64_t>(out.max_rows, static_cast<int64_t>(rows.size()));
      ++pairs;
    }
  }
  if (pairs > 0) {
    out.mean_rows = sum_rows / static_cast<double>(pairs);
    out.mean_sectors = sum_sectors / static_cast<double>(pairs);
  }
  return out;
}

NmIndexLayout nm_build_layout(const NmDims& d, const int32_t* idx, const NmStaging& s, bool packing,
                              int64_t pack_tile_rows, int64_t pack_capacity) {
  NmIndexLayout out;
  out.packing = packing;
  const int64_t kc = d.kc();
  out.ridx.assign(static_cast<size_t>(s.groups_pad * s.kc_pad), 0);
  auto fill_padding_slots = [&](int64_t g) {
    // Slots past kc in the last stage: the row of the group's first slot of that stage.
    for (int64_t u = kc; u < s.kc_pad; ++u)
      out.ridx[g * s.kc_pad + u] = out.ridx[g * s.kc_pad + (u / s.w_s) * s.w_s];
  };
  if (!packing) {
    for (int64_t g = 0; g < d.groups(); ++g) {
      uint16_t* row = out.ridx.data() + g * s.kc_pad;
      for (int64_t u0 = 0; u0 < kc; u0 += s.w_s)
        for_each_stage_row(d, idx, g, u0, std::min(kc, u0 + s.w_s),
                           [&](int64_t u, int64_t r) { row[u] = static_cast<uint16_t>(r); });
      fill_padding_slots(g);
    }
    return out;
  }
  out.tiles = s.rows_pad / pack_tile_rows > 0 ? s.rows_pad / pack_tile_rows : 1;
  out.pack_capacity = pack_capacity;
  out.col_info.assign(static_cast<size_t>(out.tiles * s.stages * pack_capacity), 0);
  out.col_count.assign(static_cast<size_t>(out.tiles * s.stages), 0);
  std::vector<int64_t> stamp(static_cast<size_t>(s.k_s), -1), position(static_cast<size_t>(s.k_s), 0);
  std::vector<int64_t> rows;
  int64_t stamp_id = 0;
  for (int64_t t = 0; t < out.tiles; ++t) {
    int64_t g0, g1;
    tile_groups(d, t, pack_tile_rows, &g0, &g1);
    if (g0 == g1) continue;
    for (int64_t st = 0; st < s.stages; ++st) {
      stage_union(d, s, idx, g0, g1, st, stamp, stamp_id++, rows);
      SPX_EXPECTS(static_cast<int64_t>(rows.size()) <= pack_capacity, SPX_STATUS_INTERNAL_ERROR,
                  "a packed NM stage needs %lld rows but holds %lld", ll(rows.size()),
                  ll(pack_capacity));
      const int64_t list = t * s.stages + st;
      out.col_count[list] = static_cast<int32_t>(rows.size());
      for (size_t i = 0; i < rows.size(); ++i) {
        out.col_info[list * pack_capacity + static_cast<int64_t>(i)] = static_cast<uint16_t>(rows[i]);
        position[rows[i]] = static_cast<int64_t>(i);
      }
      const int64_t u0 = st * s.w_s, u1 = std::min(kc, u0 + s.w_s);
      for (int64_t g = g0; g < g1; ++g)
        for_each_stage_row(d, idx, g, u0, u1, [&](int64_t u, int64_t r) {
          out.ridx[g * s.kc_pad + u] = static_cast<uint16_t>(position[r]);
        });
    }
    for (int64_t g = g0; g < g1; ++g) fill_padding_slots(g);
  }
  return out;
}

int64_t nm_metadata_bytes(const NmIndexLayout& layout) {
  return static_cast<int64_t>(layout.ridx.size() * sizeof(uint16_t) +
                              layout.col_info.size() * sizeof(uint16_t) +
                              layout.col_count.size() * sizeof(int32_t));
}

NmPackingDecision nm_decide_packing(const NmStageCostInput& in, const NmCostModel& model) {
  NmPackingDecision out;
  out.balance = model.flops_per_clk / model.l2_bytes_per_clk;
  const double flops_per_slot = 2.0 * static_cast<double>(in.bm) * static_cast<double>(in.bn);
  auto clocks = [&](double bytes_per_slot) {
    return std::max(flops_per_slot / model.flops_per_clk, bytes_per_slot / model.l2_bytes_per_clk);
  };
  const bool plain_fits = in.w_s_plain > 0, packed_fits = in.w_s_packed > 0;
  if (plain_fits) {
    const double rows_per_slot = static_cast<double>(in.k_s_plain) / static_cast<double>(in.w_s_plain);
    const double bytes = 4.0 * (static_cast<double>(in.bm) + rows_per_slot * static_cast<double>(in.bn));
    out.ai_plain = flops_per_slot / bytes;
    out.clk_per_slot_plain = clocks(bytes);
  }
  if (packed_fits) {
    // A column-major B is copied one element per 4-byte copy: the copy instructions, not the
    // 32-byte sectors, bound its loads, so packing saves in proportion to the rows too.
    const double rows = in.packed_rows;
    const double w_s = static_cast<double>(in.w_s_packed);
    const double bytes = 4.0 * static_cast<double>(in.bm) +
                         (4.0 * rows * static_cast<double>(in.bn) + 2.0 * in.packed_rows) / w_s;
    out.ai_packed = flops_per_slot / bytes;
    out.clk_per_slot_packed = clocks(bytes) * (1.0 + model.packing_overhead);
  }
  out.packing = packed_fits && (!plain_fits || out.clk_per_slot_packed < out.clk_per_slot_plain);
  return out;
}

}  // namespace spx::plan
