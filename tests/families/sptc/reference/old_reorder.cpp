// The SpTC reorder of libspx before the fast analyze (unit search, panels, BLOCK_TILE choice),
// kept verbatim under ref:: with ref_ names as the reference the CPU tests compare the current
// reorder with: its layouts must stay byte-identical.
#include "reference/old_reorder.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <thread>

#include "formats/structure_checks.hpp"
#include "runtime/error.hpp"

namespace ref {
using namespace spx::plan;
using spx::fail;
using spx::strf;

namespace {

using ll = long long;
constexpr int kUnit = 16, kTileRows = 16;

/// What one panel produces before the serial concatenation.
struct PanelOut {
  std::vector<int32_t> col_idx;
  std::vector<uint8_t> block_col_idx;
  std::vector<uint32_t> metadata;
  std::vector<int32_t> value_map;
  int64_t kept = 0, retries = 0, conflicting = 0, units = 0;
};

/// Per-thread scratch: kept index of every column (-1 outside the current panel).
struct PanelScratch {
  std::vector<int32_t> kept_of;
  explicit PanelScratch(int64_t cols) : kept_of(static_cast<size_t>(cols), -1) {}
};

/// Block row i of the reordered matrix.
inline int64_t block_row_at(const std::vector<int32_t>& order, int64_t i) {
  return order.empty() ? i : order[static_cast<size_t>(i)];
}

void build_panel(const BcrsView& a, const SptcReorderConfig& cfg,
                 const std::vector<int32_t>& order, int64_t panel, PanelScratch& scratch,
                 PanelOut& out) {
  const int64_t v = a.vec_len, bt = cfg.block_tile;
  const int64_t br_per_panel = bt / v;  // vector rows of the panel: one mask bit each (<= 64)
  const int64_t br0 = panel * br_per_panel;
  const int64_t br1 = std::min<int64_t>(br0 + br_per_panel, a.rows / v);

  // Kept columns (any nonzero in the panel), in original order.
  std::vector<int32_t> kept;
  for (int64_t pr = br0; pr < br1; ++pr)
    for (int64_t br = block_row_at(order, pr), i = a.block_row_ptr[br];
         i < a.block_row_ptr[br + 1]; ++i) {
      const int32_t c = a.block_col[i];
      if (scratch.kept_of[c] < 0) {
        scratch.kept_of[c] = 0;
        kept.push_back(c);
      }
    }
  std::sort(kept.begin(), kept.end());
  for (size_t k = 0; k < kept.size(); ++k) scratch.kept_of[kept[k]] = static_cast<int32_t>(k);

  // Vector-row masks (bit j: vector row j of the panel) and vector indices of the kept columns.
  std::vector<uint64_t> mask(kept.size(), 0);
  std::vector<int32_t> vec(kept.size() * static_cast<size_t>(br_per_panel), -1);
  for (int64_t pr = br0; pr < br1; ++pr)
    for (int64_t br = block_row_at(order, pr), i = a.block_row_ptr[br];
         i < a.block_row_ptr[br + 1]; ++i) {
      const int32_t k = scratch.kept_of[a.block_col[i]];
      mask[k] |= 1ull << (pr - br0);
      vec[static_cast<size_t>(k) * br_per_panel + (pr - br0)] = static_cast<int32_t>(i);
    }
  for (int32_t c : kept) scratch.kept_of[c] = -1;
  out.kept = static_cast<int64_t>(kept.size());

  // Units from the queue of kept columns; a failed unit sends its least compatible column back
  // to the queue's end. With balance_units, a unit takes from the first `lookahead` queued
  // columns only those that keep every row of the panel at <= 8 nonzeros in the unit (a unit of
  // 16 positions in 4 groups of 4 holds at most 2 per group and row): the necessary condition of
  // a grouping, met before the search instead of by retries. Skipped columns keep their place.
  // (Counts are per vector row: its rows share the pattern.)
  std::vector<int32_t> queue(kept.size());
  for (size_t k = 0; k < kept.size(); ++k) queue[k] = static_cast<int32_t>(k);
  size_t head = 0;
  std::array<uint8_t, 64> row_count{};
  std::vector<int32_t> skipped;
  std::vector<std::array<int32_t, kUnit>> slots;
  std::vector<std::array<uint8_t, kUnit>> orders;
  while (head < queue.size()) {
    std::array<int32_t, kUnit> unit;
    unit.fill(-1);
    if (!cfg.balance_units) {
      for (int p = 0; p < kUnit && head < queue.size(); ++p) unit[p] = queue[head++];
    } else {
      row_count.fill(0);
      skipped.clear();
      size_t j = head;
      int taken = 0;
      while (j < queue.size() && taken < kUnit &&
             static_cast<int64_t>(j - head) < cfg.lookahead) {
        const int32_t c = queue[j++];
        bool fits = true;
        for (uint64_t b = mask[c]; b && fits; b &= b - 1) fits = row_count[__builtin_ctzll(b)] < 8;
        if (!fits) {
          skipped.push_back(c);
          continue;
        }
        for (uint64_t b = mask[c]; b; b &= b - 1) ++row_count[__builtin_ctzll(b)];
        unit[taken++] = c;
      }
      head = j - skipped.size();
      std::copy(skipped.begin(), skipped.end(), queue.begin() + static_cast<std::ptrdiff_t>(head));
    }
    for (;;) {
      std::array<uint64_t, kUnit> m{};
      uint32_t real = 0;
      for (int p = 0; p < kUnit; ++p)
        if (unit[p] >= 0) {
          m[p] = mask[unit[p]];
          real |= 1u << p;
        }
      const SptcUnitGrouping g =
          ref_group_unit(m, real, cfg.prefer_conflict_free, cfg.max_pair_checks);
      if (g.found) {
        slots.push_back(unit);
        orders.push_back(g.order);
        out.conflicting += g.conflict_free ? 0 : 1;
        break;
      }
      SPX_EXPECTS(g.least_compatible >= 0, SPX_STATUS_INTERNAL_ERROR, "sptc: empty unit failed");
      queue.push_back(unit[g.least_compatible]);
      unit[g.least_compatible] = -1;
      ++out.retries;
    }
  }
  if (slots.size() % 2) {  // a tile is two units: pad with an empty one
    std::array<int32_t, kUnit> empty;
    empty.fill(-1);
    std::array<uint8_t, kUnit> identity;
    for (int p = 0; p < kUnit; ++p) identity[p] = static_cast<uint8_t>(p);
    slots.push_back(empty);
    orders.push_back(identity);
  }
  out.units = static_cast<int64_t>(slots.size());

  // Index levels.
  for (size_t u = 0; u < slots.size(); ++u)
    for (int p = 0; p < kUnit; ++p) {
      out.col_idx.push_back(slots[u][p] >= 0 ? kept[slots[u][p]] : -1);
      out.block_col_idx.push_back(orders[u][p]);
    }

  // Metadata and compressed values per (row slice, k tile).
  const int64_t ktiles = static_cast<int64_t>(slots.size()) / 2;
  const int64_t slices = bt / kTileRows;
  out.metadata.assign(static_cast<size_t>(slices * ktiles * 16), 0);
  out.value_map.assign(static_cast<size_t>(slices * ktiles * 256), -1);
  for (int64_t s = 0; s < slices; ++s)
    for (int64_t t = 0; t < ktiles; ++t) {
      const int64_t tile = s * ktiles + t;
      uint32_t* words = &out.metadata[static_cast<size_t>(tile * 16)];
      int32_t* vmap = &out.value_map[static_cast<size_t>(tile * 256)];
      for (int i = 0; i < kTileRows; ++i) {
        const int64_t r = s * kTileRows + i;  // panel row
        for (int c = 0; c < 8; ++c) {
          const size_t u = static_cast<size_t>(2 * t + c / 4);
          int pos[2], n = 0;
          int32_t slot[2] = {-1, -1};
          for (int e = 0; e < 4; ++e) {
            const int32_t k = slots[u][orders[u][4 * (c % 4) + e]];
            if (k < 0 || !(mask[k] >> (r / v) & 1ull)) continue;
            SPX_EXPECTS(n < 2, SPX_STATUS_INTERNAL_ERROR, "sptc: chunk is not 2:4");
            const int32_t vi = vec[static_cast<size_t>(k) * br_per_panel + r / v];
            slot[n] = vi * static_cast<int32_t>(a.vec_len) + static_cast<int32_t>(r % a.vec_len);
            pos[n++] = e;
          }
          int i0, i1;
          int32_t s0 = -1, s1 = -1;
          if (n == 2) {
            i0 = pos[0], i1 = pos[1], s0 = slot[0], s1 = slot[1];
          } else if (n == 1 && pos[0] == 3) {
            i0 = 2, i1 = 3, s1 = slot[0];
          } else if (n == 1) {
            i0 = pos[0], i1 = 3, s0 = slot[0];
          } else {
            i0 = 0, i1 = 1;
          }
          vmap[i * 16 + 2 * c] = s0;
          vmap[i * 16 + 2 * c + 1] = s1;
          const uint32_t nib = static_cast<uint32_t>(i0) | static_cast<uint32_t>(i1) << 2;
          words[2 * (i % 8) + c / 4] |= nib << (4 * (c % 4) + (i >= 8 ? 16 : 0));
        }
      }
    }
}

}  // namespace

void ref_validate_bcrs_structure(const BcrsView& a) {
  const int64_t v = a.vec_len;
  SPX_CHECK_ARG(v == 1 || v == 2 || v == 4 || v == 8 || v == 16,
                "sptc: vec_len %lld is not 1, 2, 4, 8 or 16", static_cast<ll>(v));
  SPX_CHECK_ARG(a.rows >= 0 && a.cols >= 0, "sptc: negative size %lld x %lld",
                static_cast<ll>(a.rows), static_cast<ll>(a.cols));
  SPX_CHECK_ARG(a.cols <= INT32_MAX, "sptc: cols %lld exceed int32", static_cast<ll>(a.cols));
  SPX_CHECK_ARG(a.rows % v == 0, "sptc: rows %lld not a multiple of vec_len %lld",
                static_cast<ll>(a.rows), static_cast<ll>(v));
  SPX_CHECK_ARG(a.block_row_ptr != nullptr, "sptc: block_row_ptr is null");
  const int64_t brows = a.rows / v;
  check_row_ptr("block_row_ptr", brows, a.block_row_ptr, a.num_vectors);
  const int64_t nvec = a.block_row_ptr[brows];
  SPX_CHECK_ARG(nvec == 0 || a.block_col != nullptr, "sptc: block_col is null");
  SPX_CHECK_ARG(nvec * v <= INT32_MAX, "sptc: %lld value slots exceed int32",
                static_cast<ll>(nvec * v));
  check_index_range("block_col", nvec, a.block_col, 0, a.cols);
  // The reorder's column masks assume each column at most once per block row.
  for (int64_t br = 0; br < brows; ++br)
    for (int32_t i = a.block_row_ptr[br] + 1; i < a.block_row_ptr[br + 1]; ++i)
      SPX_CHECK_ARG(a.block_col[i - 1] < a.block_col[i],
                    "sptc: columns not strictly increasing in block row %lld", static_cast<ll>(br));
}

SptcLayout ref_sptc_reorder(const BcrsView& a, const SptcReorderConfig& config,
                        const std::vector<int32_t>& row_order) {
  const auto start = std::chrono::steady_clock::now();
  SPX_CHECK_ARG(config.block_tile == 16 || config.block_tile == 32 || config.block_tile == 64 ||
                    config.block_tile == 128,
                "sptc: block_tile %d is not 16, 32, 64 or 128", config.block_tile);
  SPX_CHECK_ARG(config.max_pair_checks > 0, "sptc: max_pair_checks must be positive");
  SPX_CHECK_ARG(!config.balance_units || config.lookahead > 0, "sptc: lookahead must be positive");
  ref_validate_bcrs_structure(a);
  SPX_CHECK_ARG(config.block_tile / a.vec_len <= 64,
                "sptc: block_tile %d holds more than 64 vectors of length %lld", config.block_tile,
                static_cast<ll>(a.vec_len));
  const int64_t brows = a.rows / a.vec_len;
  if (!row_order.empty()) {
    SPX_CHECK_ARG(static_cast<int64_t>(row_order.size()) == brows,
                  "sptc: row_order has %lld entries for %lld block rows",
                  static_cast<ll>(row_order.size()), static_cast<ll>(brows));
    std::vector<char> seen(static_cast<size_t>(brows), 0);
    for (int32_t r : row_order) {
      SPX_CHECK_ARG(r >= 0 && r < brows && !seen[static_cast<size_t>(r)],
                    "sptc: row_order is not a permutation of the block rows");
      seen[static_cast<size_t>(r)] = 1;
    }
  }

  SptcLayout L;
  L.rows = a.rows;
  L.cols = a.cols;
  L.vec_len = a.vec_len;
  L.block_tile = config.block_tile;
  L.panels = (a.rows + config.block_tile - 1) / config.block_tile;
  L.row_order = row_order;
  std::vector<PanelOut> outs(static_cast<size_t>(L.panels));

  int threads = config.threads > 0 ? config.threads
                                   : static_cast<int>(std::thread::hardware_concurrency());
  threads = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(threads, L.panels)));
  std::atomic<int64_t> next{0};
  auto work = [&]() {
    PanelScratch scratch(a.cols);
    for (int64_t p; (p = next.fetch_add(1)) < L.panels;)
      build_panel(a, config, row_order, p, scratch, outs[static_cast<size_t>(p)]);
  };
  if (threads == 1) {
    work();
  } else {
    // An exception in a worker is carried to the caller after every worker has joined.
    std::vector<std::exception_ptr> errors(static_cast<size_t>(threads));
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
      pool.emplace_back([&, t]() {
        try {
          work();
        } catch (...) {
          errors[static_cast<size_t>(t)] = std::current_exception();
          next.store(L.panels);
        }
      });
    for (auto& th : pool) th.join();
    for (auto& e : errors)
      if (e) std::rethrow_exception(e);
  }

  SptcReorderStats& st = L.stats;
  st.panels = L.panels;
  L.panel_k.assign(1, 0);
  L.panel_tile.assign(1, 0);
  for (auto& o : outs) {
    L.col_idx.insert(L.col_idx.end(), o.col_idx.begin(), o.col_idx.end());
    L.block_col_idx.insert(L.block_col_idx.end(), o.block_col_idx.begin(), o.block_col_idx.end());
    L.metadata.insert(L.metadata.end(), o.metadata.begin(), o.metadata.end());
    L.value_map.insert(L.value_map.end(), o.value_map.begin(), o.value_map.end());
    L.panel_k.push_back(static_cast<int64_t>(L.col_idx.size()));
    L.panel_tile.push_back(static_cast<int64_t>(L.metadata.size() / 16));
    st.units += o.units;
    st.kept_columns += o.kept;
    st.columns_skipped += a.cols - o.kept;
    st.retries += o.retries;
    st.conflicting_units += o.conflicting;
    st.panels_within_cols += static_cast<int64_t>(o.col_idx.size()) <= a.cols ? 1 : 0;
    o = PanelOut{};
  }
  st.tiles = static_cast<int64_t>(L.metadata.size() / 16);
  st.padding_columns = std::count(L.col_idx.begin(), L.col_idx.end(), -1);
  st.metadata_bytes = static_cast<int64_t>(L.metadata.size() * sizeof(uint32_t));
  st.index_bytes = static_cast<int64_t>(L.col_idx.size() * (sizeof(int32_t) + sizeof(uint8_t)));
  st.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return L;
}




namespace {

/// The clustered order when `mode` takes it over the identity for panels of block_tile.
bool take_clustered(const BcrsView& a, int block_tile, const std::vector<int32_t>& clustered,
                    SptcRowOrder mode) {
  if (clustered.empty() || mode == SptcRowOrder::kIdentity) return false;
  if (mode == SptcRowOrder::kClustered) return true;
  return static_cast<double>(spx::plan::sptc_panel_union_k(a, block_tile, clustered)) <
         0.98 * static_cast<double>(spx::plan::sptc_panel_union_k(a, block_tile));
}

}  // namespace


SptcLayout ref_choose_block_tile(const BcrsView& a, SptcReorderConfig config, double b_row_cost,
                             std::array<double, kSptcMaxBlockTiles>* costs) {
  ref_validate_bcrs_structure(a);
  int tiles[kSptcMaxBlockTiles];
  const int count = spx::plan::sptc_block_tiles(a.vec_len, tiles);
  if (costs) costs->fill(0.0);
  // One clustering at the largest panel: its groups are built row by row, most shared columns
  // first, so their halves and quarters are good smaller panels too.
  std::vector<int32_t> clustered;
  if (config.row_order != SptcRowOrder::kIdentity)
    clustered = sptc_cluster_rows(a, tiles[count - 1] / a.vec_len, 4096, config.threads);
  // A lower bound of each tile's cost from its kept columns (2:4 padding only adds), so the
  // reorders run most promising first and a tile whose bound cannot beat the best is skipped.
  struct Candidate {
    int index = 0;
    bool clustered = false;
    double bound = 0;
  };
  std::vector<Candidate> order(static_cast<size_t>(count));
  for (int i = 0; i < count; ++i) {
    Candidate& c = order[static_cast<size_t>(i)];
    c.index = i;
    c.clustered = take_clustered(a, tiles[i], clustered, config.row_order);
    c.bound = static_cast<double>(
                  spx::plan::sptc_panel_union_k(a, tiles[i], c.clustered ? clustered : std::vector<int32_t>{})) *
              (static_cast<double>(tiles[i]) + b_row_cost);
  }
  std::stable_sort(order.begin(), order.end(),
                   [](const Candidate& x, const Candidate& y) { return x.bound < y.bound; });
  SptcLayout best;
  bool have = false;
  for (const Candidate& c : order) {
    const int bt = tiles[c.index];
    // Lowest cost wins, ties go to the larger tile.
    auto beats = [&](double cost) {
      return !have || cost < best.stats.cost || (cost == best.stats.cost && bt > best.block_tile);
    };
    if (costs) (*costs)[static_cast<size_t>(c.index)] = c.bound;
    if (!beats(c.bound)) continue;
    config.block_tile = bt;
    SptcLayout L = ref_sptc_reorder(a, config, c.clustered ? clustered : std::vector<int32_t>{});
    L.stats.cost = spx::plan::sptc_layout_cost(L, b_row_cost);
    if (costs) (*costs)[static_cast<size_t>(c.index)] = L.stats.cost;
    if (beats(L.stats.cost)) {
      best = std::move(L);
      have = true;
    }
  }
  return best;
}

}  // namespace ref
