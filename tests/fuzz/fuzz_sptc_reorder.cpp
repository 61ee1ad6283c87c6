// Fuzz target: the SpTC reorder's entry point (src/families/sptc/plan/reorder: sptc_reorder, with
// validate_bcrs_structure in front and, now and then, a clustered or arbitrary row order, or the
// BLOCK_TILE choice). The structure (well formed or with one injected defect) and the search
// tunables come from the bytes. The reorder must refuse exactly the invalid inputs
// (INVALID_VALUE) and, for the others, produce a layout where: each panel's k is a multiple of 32
// and its tiles match; block_col_idx permutes each unit; every 4-chunk of every tile row holds at
// most 2 nonzeros (2:4) from the index levels alone; the metadata and value map agree with the
// columns; and every user value slot is used exactly once.
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "families/sptc/plan/reorder.hpp"
#include "fuzz_common.hpp"

using namespace spx_fuzz;
namespace plan = spx::plan;

namespace {

bool structure_valid(const Structure& a, int64_t num_vectors, bool null_ptr) {
  const int64_t v = a.vec_len;
  if (!(v == 1 || v == 2 || v == 4 || v == 8 || v == 16) || a.rows < 0 || a.cols < 0 ||
      a.rows % v != 0 || null_ptr)
    return false;
  if (a.ptr[0] != 0) return false;
  for (size_t i = 1; i < a.ptr.size(); ++i)
    if (a.ptr[i] < a.ptr[i - 1]) return false;
  if (num_vectors >= 0 && a.ptr.back() != num_vectors) return false;
  for (int32_t j = 0; j < a.ptr.back(); ++j)
    if (a.col[j] < 0 || a.col[j] >= a.cols) return false;
  for (size_t b = 0; b + 1 < a.ptr.size(); ++b)
    for (int32_t j = a.ptr[b] + 1; j < a.ptr[b + 1]; ++j)
      if (a.col[j - 1] >= a.col[j]) return false;
  return true;
}

void check_layout(const Structure& a, const plan::SptcLayout& L) {
  const int64_t v = a.vec_len, nvals = static_cast<int64_t>(a.ptr.back()) * v;
  // Value slot -> (row, column), and (row, column) -> value slot.
  std::vector<int32_t> slot_col(static_cast<size_t>(nvals)), slot_row(static_cast<size_t>(nvals));
  std::vector<int32_t> dense(static_cast<size_t>(a.rows * a.cols), -1);
  for (int64_t br = 0; br < a.rows / v; ++br)
    for (int32_t i = a.ptr[br]; i < a.ptr[br + 1]; ++i)
      for (int64_t e = 0; e < v; ++e) {
        const int64_t s = i * v + e;
        slot_col[s] = a.col[i];
        slot_row[s] = static_cast<int32_t>(br * v + e);
        dense[static_cast<size_t>((br * v + e) * a.cols + a.col[i])] = static_cast<int32_t>(s);
      }
  FUZZ_CHECK(L.rows == a.rows && L.cols == a.cols && L.vec_len == v);
  FUZZ_CHECK(L.panels == (a.rows + L.block_tile - 1) / L.block_tile);
  FUZZ_CHECK(L.panel_k.size() == static_cast<size_t>(L.panels + 1) && L.panel_k[0] == 0);
  FUZZ_CHECK(L.panel_tile.size() == static_cast<size_t>(L.panels + 1) && L.panel_tile[0] == 0);
  FUZZ_CHECK(L.col_idx.size() == static_cast<size_t>(L.panel_k[L.panels]));
  FUZZ_CHECK(L.block_col_idx.size() == L.col_idx.size());
  FUZZ_CHECK(L.metadata.size() == static_cast<size_t>(L.panel_tile[L.panels]) * 16);
  FUZZ_CHECK(L.value_map.size() == L.metadata.size() * 16);
  std::vector<int> used(static_cast<size_t>(nvals), 0);
  const int64_t slices = L.block_tile / 16;
  for (int64_t p = 0; p < L.panels; ++p) {
    const int64_t k0 = L.panel_k[p], k = L.panel_k[p + 1] - k0;
    FUZZ_CHECK(k >= 0 && k % 32 == 0);
    const int64_t ktiles = k / 32;
    FUZZ_CHECK(L.panel_tile[p + 1] - L.panel_tile[p] == slices * ktiles);
    for (int64_t u = 0; u < k / 16; ++u) {
      std::array<int, 16> seen{};
      for (int q = 0; q < 16; ++q) {
        const uint8_t pos = L.block_col_idx[static_cast<size_t>(k0 + 16 * u + q)];
        FUZZ_CHECK(pos < 16);
        ++seen[pos];
      }
      for (int q = 0; q < 16; ++q) FUZZ_CHECK(seen[q] == 1);
    }
    for (int64_t q = k0; q < k0 + k; ++q)
      FUZZ_CHECK(L.col_idx[static_cast<size_t>(q)] >= -1 && L.col_idx[static_cast<size_t>(q)] < a.cols);
    for (int64_t s = 0; s < slices; ++s)
      for (int64_t t = 0; t < ktiles; ++t) {
        const int64_t tile = L.panel_tile[p] + s * ktiles + t;
        const uint32_t* words = &L.metadata[static_cast<size_t>(tile * 16)];
        const int32_t* vmap = &L.value_map[static_cast<size_t>(tile * 256)];
        for (int i = 0; i < 16; ++i) {
          const int64_t row = L.original_row(p, s * 16 + i);  // >= rows: past the end
          for (int c = 0; c < 8; ++c) {
            auto column_at = [&](int e) {
              const int64_t q = 32 * t + 4 * c + e;
              return L.col_idx[static_cast<size_t>(k0 + 16 * (q / 16) + L.block_col_idx[k0 + q])];
            };
            int nnz = 0;
            for (int e = 0; e < 4; ++e) {
              const int32_t col = column_at(e);
              nnz += col >= 0 && row < a.rows && dense[static_cast<size_t>(row * a.cols + col)] >= 0;
            }
            FUZZ_CHECK(nnz <= 2);
            int i0, i1;
            plan::sptc_metadata_pair(words, i, c, &i0, &i1);
            FUZZ_CHECK(i0 < i1);
            const int pos[2] = {i0, i1};
            for (int h = 0; h < 2; ++h) {
              const int32_t sv = vmap[i * 16 + 2 * c + h];
              if (sv < 0) continue;
              FUZZ_CHECK(sv < nvals && row < a.rows);
              FUZZ_CHECK(column_at(pos[h]) == slot_col[sv] && row == slot_row[sv]);
              ++used[sv];
            }
          }
        }
      }
  }
  for (int64_t s = 0; s < nvals; ++s) FUZZ_CHECK(used[s] == 1);
  FUZZ_CHECK(L.stats.padding_columns ==
             static_cast<int64_t>(std::count(L.col_idx.begin(), L.col_idx.end(), -1)));
  FUZZ_CHECK(L.stats.kept_columns + L.stats.columns_skipped == L.panels * a.cols);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  plan::SptcReorderConfig cfg;
  cfg.block_tile = pick<int>(in, {32, 16, 64, 128, 0, 48});
  cfg.threads = 1;
  cfg.prefer_conflict_free = in.ConsumeBool();
  cfg.max_pair_checks = pick<int64_t>(in, {4096, 1, 2, 16, 100000, 0});
  cfg.balance_units = in.ConsumeBool();
  cfg.lookahead = pick<int64_t>(in, {256, 1, 16, 0});
  const int mode = in.ConsumeIntegralInRange<int>(0, 7);  // 0..4 identity, 5 clustered, 6 any, 7 choose
  Structure a = decode_structure(in, {1, 2, 4, 8, 16, 3, 0}, 24, 96, 700, true, true);
  int64_t num_vectors = in.ConsumeBool() ? -1 : a.ptr.back();
  if (in.ConsumeIntegralInRange<int>(0, 15) == 0) num_vectors = in.ConsumeIntegralInRange<int>(0, 700);
  const bool null_ptr = in.ConsumeIntegralInRange<int>(0, 31) == 0;

  plan::BcrsView view;
  view.rows = a.rows;
  view.cols = a.cols;
  view.vec_len = a.vec_len;
  view.block_row_ptr = null_ptr ? nullptr : a.ptr.data();
  view.block_col = a.col.empty() ? nullptr : a.col.data();
  view.num_vectors = num_vectors;
  const bool valid_structure = structure_valid(a, num_vectors, null_ptr);
  const bool tunables_ok = cfg.max_pair_checks > 0 && (!cfg.balance_units || cfg.lookahead > 0);

  if (mode == 7) {  // the BLOCK_TILE choice runs up to four reorders (kAuto row order)
    plan::SptcLayout L;
    const bool ok = expect_ok_or_error({SPX_STATUS_INVALID_VALUE},
                                       [&] { L = plan::choose_block_tile(view, cfg); });
    FUZZ_CHECK(ok == (valid_structure && tunables_ok));
    if (ok) check_layout(a, L);
    return 0;
  }
  std::vector<int32_t> order;
  bool order_ok = true;
  if (valid_structure && mode == 5) {
    const int64_t group = std::max<int64_t>(1, std::max(cfg.block_tile, 16) / a.vec_len);
    order = plan::sptc_cluster_rows(view, group, in.ConsumeIntegralInRange<int64_t>(1, 64), 1);
    std::vector<int32_t> sorted = order;
    std::sort(sorted.begin(), sorted.end());
    for (size_t i = 0; i < sorted.size(); ++i) FUZZ_CHECK(sorted[i] == static_cast<int32_t>(i));
    FUZZ_CHECK(static_cast<int64_t>(order.size()) == a.rows / a.vec_len);
  } else if (mode == 6 && a.vec_len > 0) {  // any order, a permutation or not
    const int64_t brows = a.rows / a.vec_len;
    for (int64_t i = 0; i < brows; ++i) order.push_back(static_cast<int32_t>(i));
    for (int64_t i = 0; i + 1 < brows; ++i)
      std::swap(order[i], order[in.ConsumeIntegralInRange<int64_t>(i, brows - 1)]);
    if (!order.empty() && in.ConsumeIntegralInRange<int>(0, 3) == 0) {
      order[in.ConsumeIntegralInRange<size_t>(0, order.size() - 1)] = index_value(in, -1, static_cast<int32_t>(brows));
      if (in.ConsumeBool()) order.pop_back();
    }
    std::vector<char> seen(order.size(), 0);
    order_ok = order.empty() || static_cast<int64_t>(order.size()) == brows;
    for (int32_t r : order) {
      order_ok = order_ok && r >= 0 && r < brows && !seen[static_cast<size_t>(r)];
      if (order_ok) seen[static_cast<size_t>(r)] = 1;
    }
  }
  const bool bt_ok = (cfg.block_tile == 16 || cfg.block_tile == 32 || cfg.block_tile == 64 ||
                      cfg.block_tile == 128) && tunables_ok;
  const bool valid = bt_ok && valid_structure && cfg.block_tile / a.vec_len <= 64 && order_ok;
  plan::SptcLayout L;
  const bool ok = expect_ok_or_error({SPX_STATUS_INVALID_VALUE},
                                     [&] { L = plan::sptc_reorder(view, cfg, order); });
  FUZZ_CHECK(ok == valid);
  if (!ok) return 0;
  FUZZ_CHECK(L.block_tile == cfg.block_tile && L.row_order == order);
  check_layout(a, L);
  return 0;
}
