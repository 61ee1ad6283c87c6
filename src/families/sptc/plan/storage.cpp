// The SpTC device storage (see sptc_storage.hpp): pairs of k tiles, interleaved metadata,
// values in mma.sp A-fragment order; and the structure sort every user input goes through.
#include "families/sptc/plan/storage.hpp"

#include <algorithm>
#include <mutex>
#include <numeric>

#include "runtime/error.hpp"
#include "formats/structure_checks.hpp"
#include "runtime/parallel.hpp"

namespace spx::plan {
namespace {

using ll = long long;
constexpr int kTileK = 32;

/// Position in a tile's row-major value map (16 rows x 16 compressed slots) of fragment value e
/// (0..7) of lane l: rows g / g + 8, chunks t / t + 4, the two values of the chunk.
int fragment_source(int lane, int e) {
  const int g = lane / 4, t = lane % 4;
  const int row = g + ((e >> 1) & 1) * 8;
  const int chunk = t + (e >> 2) * 4;
  return row * 16 + 2 * chunk + (e & 1);
}

}  // namespace

int64_t SptcStorage::index_bytes() const {
  return static_cast<int64_t>(
      (gather.size() + panel_info.size() + panel_order.size() + row_map.size()) * 4);
}

double SptcStorage::dense_fraction() const {
  const double dense = static_cast<double>(rows) * static_cast<double>(cols) * 2.0;
  if (dense <= 0) return 0.0;
  return static_cast<double>(value_bytes() + index_bytes() + metadata_bytes()) / dense;
}

SptcStorage sptc_build_storage(const SptcLayout& L, const std::vector<int32_t>& vector_slot) {
  SptcStorage s;
  s.rows = L.rows;
  s.cols = L.cols;
  s.block_tile = L.block_tile;
  s.slices = L.block_tile / 16;
  s.panels = L.panels;
  SPX_EXPECTS(s.slices >= 1, SPX_STATUS_INTERNAL_ERROR, "sptc: block_tile %lld", ll(L.block_tile));
  const bool remap = !vector_slot.empty();

  s.panel_info.resize(static_cast<size_t>(2 * L.panels));
  int64_t pairs = 0;
  for (int64_t p = 0; p < L.panels; ++p) {
    const int64_t ktiles = (L.panel_k[p + 1] - L.panel_k[p]) / kTileK;
    s.panel_info[2 * p] = static_cast<int32_t>(pairs);
    s.panel_info[2 * p + 1] = static_cast<int32_t>(ktiles);
    pairs += (ktiles + 1) / 2;
    s.max_pairs = std::max(s.max_pairs, static_cast<int32_t>((ktiles + 1) / 2));
  }
  if (!L.row_order.empty()) {
    s.row_map.resize(static_cast<size_t>(L.panels * L.block_tile));
    for (int64_t p = 0; p < L.panels; ++p)
      for (int64_t r = 0; r < L.block_tile; ++r) {
        const int64_t i = p * L.block_tile + r;
        s.row_map[static_cast<size_t>(i)] =
            i < L.rows ? static_cast<int32_t>(L.original_row(p, r)) : -1;
      }
  }
  SPX_EXPECTS(pairs * s.slices * 2 * kSptcTileValues <= INT32_MAX, SPX_STATUS_NOT_SUPPORTED,
              "sptc: the reordered matrix needs %lld value slots, more than int32 indexes",
              ll(pairs * s.slices * 2 * kSptcTileValues));
  s.pairs = pairs;
  s.gather.assign(static_cast<size_t>(pairs * kSptcPairK), -1);
  s.metadata.assign(static_cast<size_t>(pairs * s.slices * kSptcMetaPerSlice), kSptcEmptyMeta);
  s.value_slot.assign(static_cast<size_t>(pairs * s.slices * 2 * kSptcTileValues), -1);

  // Panels in parallel: each writes its own pairs.
  parallel::for_chunks(L.panels, 4, [&](int64_t p0, int64_t p1) {
  for (int64_t p = p0; p < p1; ++p) {
    const int64_t k0 = L.panel_k[p], ktiles = s.panel_info[2 * p + 1];
    const int64_t pair0 = s.panel_info[2 * p];
    // Gather: MMA k position q of the panel reads col_idx[16 u + block_col_idx[q]].
    for (int64_t q = 0; q < ktiles * kTileK; ++q) {
      const int64_t unit = q / 16;
      s.gather[static_cast<size_t>(pair0 * kSptcPairK + q)] =
          L.col_idx[static_cast<size_t>(k0 + 16 * unit + L.block_col_idx[static_cast<size_t>(k0 + q)])];
    }
    for (int64_t sl = 0; sl < s.slices; ++sl)
      for (int64_t t = 0; t < ktiles; ++t) {
        const int64_t tile = L.panel_tile[p] + sl * ktiles + t;
        const uint32_t* words = &L.metadata[static_cast<size_t>(tile * 16)];
        const int32_t* vmap = &L.value_map[static_cast<size_t>(tile * 256)];
        const int64_t pair = pair0 + t / 2, half = t % 2;
        uint32_t* meta = &s.metadata[static_cast<size_t>((pair * s.slices + sl) * kSptcMetaPerSlice)];
        for (int g = 0; g < 8; ++g)
          for (int j = 0; j < 2; ++j) meta[4 * g + 2 * half + j] = words[2 * g + j];
        int32_t* dst = &s.value_slot[static_cast<size_t>(((pair * s.slices + sl) * 2 + half) *
                                                         kSptcTileValues)];
        for (int lane = 0; lane < 32; ++lane)
          for (int e = 0; e < 8; ++e) {
            int32_t slot = vmap[fragment_source(lane, e)];
            if (slot >= 0 && remap) {
              const int32_t vi = slot / static_cast<int32_t>(L.vec_len);
              const int32_t r = slot % static_cast<int32_t>(L.vec_len);
              slot = vector_slot[static_cast<size_t>(vi)] * static_cast<int32_t>(L.vec_len) + r;
            }
            dst[lane * 8 + e] = slot;
          }
      }
  }
  });

  s.panel_order.resize(static_cast<size_t>(L.panels));
  std::iota(s.panel_order.begin(), s.panel_order.end(), 0);
  std::stable_sort(s.panel_order.begin(), s.panel_order.end(), [&](int32_t a, int32_t b) {
    return s.panel_info[2 * static_cast<size_t>(a) + 1] > s.panel_info[2 * static_cast<size_t>(b) + 1];
  });
  return s;
}

std::vector<uint16_t> sptc_pack_values(const SptcStorage& s, const uint16_t* user_values) {
  std::vector<uint16_t> out(s.value_slot.size(), 0);
  for (size_t i = 0; i < out.size(); ++i)
    if (s.value_slot[i] >= 0) out[i] = user_values[s.value_slot[i]];
  return out;
}

BcrsView SortedBcrs::view() const {
  BcrsView v;
  v.rows = rows;
  v.cols = cols;
  v.vec_len = vec_len;
  v.block_row_ptr = block_row_ptr.data();
  v.block_col = block_col.data();
  v.num_vectors = static_cast<int64_t>(block_col.size());
  return v;
}

SortedBcrs sptc_sort_structure(int64_t rows, int64_t cols, int64_t vec_len, int64_t num_vectors,
                               const int32_t* block_row_ptr, const int32_t* block_col) {
  SPX_CHECK_ARG(vec_len == 1 || vec_len == 2 || vec_len == 4 || vec_len == 8 || vec_len == 16,
                "sptc: vec_len %lld is not 1, 2, 4, 8 or 16", ll(vec_len));
  SPX_CHECK_ARG(rows >= 0 && cols >= 0, "sptc: negative size %lld x %lld", ll(rows), ll(cols));
  SPX_CHECK_ARG(rows % vec_len == 0, "sptc: rows %lld not a multiple of vec_len %lld", ll(rows),
                ll(vec_len));
  SPX_CHECK_ARG(num_vectors >= 0, "sptc: %lld vectors", ll(num_vectors));
  SortedBcrs out;
  out.rows = rows;
  out.cols = cols;
  out.vec_len = vec_len;
  const int64_t brows = rows / vec_len;
  out.block_row_ptr.assign(1, 0);
  if (brows == 0) return out;
  SPX_CHECK_ARG(block_row_ptr != nullptr, "sptc: the row pointer array is null");
  check_row_ptr(vec_len == 1 ? "row_ptr" : "block_row_ptr", brows, block_row_ptr, num_vectors);
  SPX_CHECK_ARG(num_vectors == 0 || block_col != nullptr, "sptc: the column index array is null");
  check_index_range(vec_len == 1 ? "col_ind" : "block_col", num_vectors, block_col, 0, cols);
  check_fits_int32("the number of value slots", num_vectors * vec_len);
  out.block_row_ptr.assign(block_row_ptr, block_row_ptr + brows + 1);
  out.block_col.resize(static_cast<size_t>(num_vectors));
  out.vector_slot.resize(static_cast<size_t>(num_vectors));
  // Block rows in parallel; the first repeated column reported is the lowest block row's, as a
  // serial pass would find it.
  std::mutex duplicate_mutex;
  parallel::for_chunks(brows, 256, [&](int64_t br0, int64_t br1) {
    std::vector<int32_t> order;
    for (int64_t br = br0; br < br1; ++br) {
      const int32_t b = block_row_ptr[br], e = block_row_ptr[br + 1];
      order.resize(static_cast<size_t>(e - b));
      std::iota(order.begin(), order.end(), b);
      if (!std::is_sorted(block_col + b, block_col + e))
        std::stable_sort(order.begin(), order.end(),
                         [&](int32_t x, int32_t y) { return block_col[x] < block_col[y]; });
      bool repeated = false;
      for (int32_t i = 0; i < e - b; ++i) {
        const int32_t src = order[static_cast<size_t>(i)];
        out.block_col[static_cast<size_t>(b + i)] = block_col[src];
        out.vector_slot[static_cast<size_t>(b + i)] = src;
        if (i > 0 && !repeated &&
            out.block_col[static_cast<size_t>(b + i)] == out.block_col[static_cast<size_t>(b + i - 1)]) {
          repeated = true;
          const std::lock_guard<std::mutex> lock(duplicate_mutex);
          if (out.duplicate_block_row < 0 || br < out.duplicate_block_row) {
            out.duplicate_block_row = br;
            out.duplicate_col = block_col[src];
            out.duplicate_index = src;
          }
        }
      }
    }
  });
  return out;
}

std::vector<int32_t> sptc_block_records(const SptcStorage& s) {
  std::vector<int32_t> records(4 * s.panel_order.size(), 0);
  for (size_t x = 0; x < s.panel_order.size(); ++x) {
    const size_t q = static_cast<size_t>(s.panel_order[x]);
    records[4 * x] = s.panel_order[x];
    records[4 * x + 1] = s.panel_info[2 * q];
    records[4 * x + 2] = s.panel_info[2 * q + 1];
  }
  return records;
}

}  // namespace spx::plan
