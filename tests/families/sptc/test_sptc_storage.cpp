// The SpTC device storage (spx::plan sptc_build_storage) read back the way the kernel and the
// hardware read it: a CPU emulation of mma.sp m16n8k32 (A fragment registers per lane, the
// interleaved metadata with sparsity selector 0 / 1, the gather through B) reproduces the
// product of the original matrix exactly, for every V and BLOCK_TILE, odd k-tile counts
// (phantom tiles), empty panels, unsorted user columns (vector_slot), every metadata nibble is a
// valid ordered pair, value re-packing, panel order, the memory-overhead figures. (The kernel
// configuration rule: test_sptc_choice.cpp.)
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "runtime/error.hpp"
#include "families/sptc/plan/reorder.hpp"
#include "families/sptc/plan/storage.hpp"
#include "require_error.hpp"

namespace plan = spx::plan;

namespace {

/// A user BCRS structure (columns in the user's order) with integer values per slot.
struct UserBcrs {
  int64_t rows = 0, cols = 0, v = 1;
  std::vector<int32_t> ptr, col;
};

UserBcrs random_user(int64_t rows, int64_t cols, int64_t v, double density, uint64_t seed,
                     bool shuffle_rows) {
  std::mt19937_64 rng(seed);
  std::bernoulli_distribution keep(density);
  UserBcrs a;
  a.rows = rows;
  a.cols = cols;
  a.v = v;
  a.ptr.push_back(0);
  for (int64_t br = 0; br < rows / v; ++br) {
    std::vector<int32_t> row;
    for (int64_t c = 0; c < cols; ++c)
      if (keep(rng)) row.push_back(static_cast<int32_t>(c));
    if (shuffle_rows) std::shuffle(row.begin(), row.end(), rng);
    a.col.insert(a.col.end(), row.begin(), row.end());
    a.ptr.push_back(static_cast<int32_t>(a.col.size()));
  }
  return a;
}

/// Positions (i0, i1) of a nibble.
void nibble(uint32_t word, int shift, int* i0, int* i1) {
  const uint32_t nib = (word >> shift) & 0xFu;
  *i0 = static_cast<int>(nib & 3u);
  *i1 = static_cast<int>(nib >> 2);
}

/// C (rows x n, row-major) = A * B through the storage, emulating mma.sp m16n8k32 per lane.
/// `packed` are the values in storage order (as doubles).
std::vector<double> emulate(const plan::SptcStorage& s, const std::vector<double>& packed,
                            const std::vector<double>& b, int64_t n, int64_t* tiles_done) {
  std::vector<double> c(static_cast<size_t>(s.rows * n), 0.0);
  *tiles_done = 0;
  for (int64_t p = 0; p < s.panels; ++p) {
    const int64_t pair0 = s.panel_info[2 * p], ktiles = s.panel_info[2 * p + 1];
    for (int64_t t = 0; t < ktiles; ++t) {
      const int64_t pair = pair0 + t / 2;
      const int sel = static_cast<int>(t % 2);  // sparsity selector of this mma.sp
      for (int64_t sl = 0; sl < s.slices; ++sl) {
        const uint32_t* meta = &s.metadata[static_cast<size_t>((pair * s.slices + sl) * 32)];
        const double* vals =
            &packed[static_cast<size_t>(((pair * s.slices + sl) * 2 + sel) * 256)];
        // Dense 16 x 32 A tile as the hardware reconstructs it.
        double a[16][32] = {};
        for (int r = 0; r < 16; ++r) {
          const int g = r % 8;
          for (int ch = 0; ch < 8; ++ch) {
            // Metadata: lane 4 g + 2 sel covers chunks 0..3, lane 4 g + 2 sel + 1 chunks 4..7.
            const uint32_t word = meta[4 * g + 2 * sel + ch / 4];
            int i0, i1;
            nibble(word, (r >= 8 ? 16 : 0) + 4 * (ch % 4), &i0, &i1);
            REQUIRE(i0 < i1);
            REQUIRE(i1 <= 3);
            // A fragment: lane 4 g + (ch % 4), register (ch / 4) * 2 + (r >= 8), two halves.
            const int lane = 4 * g + ch % 4;
            const int reg = (ch / 4) * 2 + (r >= 8 ? 1 : 0);
            a[r][4 * ch + i0] = vals[lane * 8 + 2 * reg];
            a[r][4 * ch + i1] = vals[lane * 8 + 2 * reg + 1];
          }
        }
        for (int r = 0; r < 16; ++r) {
          const int64_t i = p * s.block_tile + sl * 16 + r;  // row of the reordered matrix
          const int64_t row = s.row_map.empty() ? i : s.row_map[static_cast<size_t>(i)];
          for (int q = 0; q < 32; ++q) {
            const int32_t col = s.gather[static_cast<size_t>(pair * 64 + sel * 32 + q)];
            if (a[r][q] == 0.0) continue;
            REQUIRE(col >= 0);  // a nonzero never meets a zero-filled B row
            REQUIRE(row >= 0);
            REQUIRE(row < s.rows);
            for (int64_t j = 0; j < n; ++j) c[row * n + j] += a[r][q] * b[col * n + j];
          }
        }
        ++*tiles_done;
      }
    }
  }
  return c;
}

/// Builds the storage of `a` through the same steps as the plan (sort, reorder, storage) and
/// checks the emulated product against the direct one; returns the storage.
plan::SptcStorage check_storage(const UserBcrs& a, int block_tile, uint64_t seed,
                                bool cluster = false) {
  const plan::SortedBcrs sorted = plan::sptc_sort_structure(
      a.rows, a.cols, a.v, static_cast<int64_t>(a.col.size()), a.ptr.data(), a.col.data());
  REQUIRE(sorted.duplicate_block_row < 0);
  plan::SptcReorderConfig cfg;
  cfg.block_tile = block_tile;
  cfg.threads = 2;
  std::vector<int32_t> order;
  if (cluster) order = plan::sptc_cluster_rows(sorted.view(), std::max<int64_t>(1, block_tile / a.v));
  const plan::SptcLayout L = plan::sptc_reorder(sorted.view(), cfg, order);
  const plan::SptcStorage s = plan::sptc_build_storage(L, sorted.vector_slot);
  if (cluster) {  // the row map is the layout's row order, one entry per row of every panel
    REQUIRE(s.row_map.size() == static_cast<size_t>(s.panels * s.block_tile));
    std::vector<int32_t> seen;
    for (int32_t r : s.row_map)
      if (r >= 0) seen.push_back(r);
    std::sort(seen.begin(), seen.end());
    REQUIRE(seen.size() == static_cast<size_t>(a.rows));
    for (int64_t r = 0; r < a.rows; ++r) REQUIRE(seen[static_cast<size_t>(r)] == r);
  } else {
    CHECK(s.row_map.empty());
  }
  int32_t longest = 0;
  for (int64_t p = 0; p < s.panels; ++p) longest = std::max(longest, (s.panel_info[2 * p + 1] + 1) / 2);
  CHECK(s.max_pairs == longest);

  // User values: small integers, never zero; B likewise.
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> small(1, 7);
  const int64_t nvals = static_cast<int64_t>(a.col.size()) * a.v;
  std::vector<uint16_t> user(static_cast<size_t>(nvals));
  std::vector<double> user_d(user.size());
  for (size_t i = 0; i < user.size(); ++i) {
    user[i] = static_cast<uint16_t>(small(rng) * (rng() & 1 ? 1 : -1) + 64);  // distinct bits
    user_d[i] = static_cast<double>(static_cast<int>(user[i]) - 64);
  }
  const std::vector<uint16_t> packed_bits = plan::sptc_pack_values(s, user.data());
  std::vector<double> packed(packed_bits.size(), 0.0);
  int64_t used = 0;
  for (size_t i = 0; i < packed.size(); ++i) {
    if (s.value_slot[i] < 0) {
      CHECK(packed_bits[i] == 0);
      continue;
    }
    ++used;
    CHECK(packed_bits[i] == user[s.value_slot[i]]);
    packed[i] = user_d[s.value_slot[i]];
  }
  CHECK(used == nvals);  // every user value is packed exactly once (slots are unique below)
  std::vector<int32_t> slots;
  for (int32_t x : s.value_slot)
    if (x >= 0) slots.push_back(x);
  std::sort(slots.begin(), slots.end());
  CHECK(std::adjacent_find(slots.begin(), slots.end()) == slots.end());

  const int64_t n = 5;
  std::vector<double> b(static_cast<size_t>(a.cols * n));
  for (auto& x : b) x = small(rng) - 4.0;
  std::vector<double> ref(static_cast<size_t>(a.rows * n), 0.0);
  for (int64_t br = 0; br < a.rows / a.v; ++br)
    for (int32_t i = a.ptr[br]; i < a.ptr[br + 1]; ++i)
      for (int64_t e = 0; e < a.v; ++e)
        for (int64_t j = 0; j < n; ++j)
          ref[(br * a.v + e) * n + j] += user_d[i * a.v + e] * b[a.col[i] * n + j];
  int64_t tiles = 0;
  const std::vector<double> got = emulate(s, packed, b, n, &tiles);
  CHECK(tiles == L.stats.tiles);
  for (size_t i = 0; i < ref.size(); ++i) REQUIRE(got[i] == ref[i]);

  // Shapes of the arrays, panel order, overhead figures.
  CHECK(s.gather.size() == static_cast<size_t>(s.pairs * 64));
  CHECK(s.metadata.size() == static_cast<size_t>(s.pairs * s.slices * 32));
  CHECK(s.value_slot.size() == static_cast<size_t>(s.pairs * s.slices * 512));
  for (size_t i = 1; i < s.panel_order.size(); ++i)
    CHECK(s.panel_info[2 * s.panel_order[i - 1] + 1] >= s.panel_info[2 * s.panel_order[i] + 1]);
  // The kernel's per-launch-position records: every panel once, in panel_order, with its first
  // pair and k tiles.
  const std::vector<int32_t> records = plan::sptc_block_records(s);
  REQUIRE(records.size() == 4 * s.panel_order.size());
  CHECK(s.panel_order.size() == static_cast<size_t>(s.panels));
  for (size_t x = 0; x < s.panel_order.size(); ++x) {
    const int32_t q = s.panel_order[x];
    CHECK(records[4 * x] == q);
    CHECK(records[4 * x + 1] == s.panel_info[2 * static_cast<size_t>(q)]);
    CHECK(records[4 * x + 2] == s.panel_info[2 * static_cast<size_t>(q) + 1]);
    CHECK(records[4 * x + 3] == 0);
  }
  for (uint32_t w : s.metadata)
    for (int sh = 0; sh < 32; sh += 4) {
      int i0, i1;
      nibble(w, sh, &i0, &i1);
      CHECK(i0 < i1);
    }
  if (a.rows > 0 && a.cols > 0) {
    const double expect = static_cast<double>(s.value_bytes() + s.index_bytes() + s.metadata_bytes()) /
                          (2.0 * a.rows * a.cols);
    CHECK(s.dense_fraction() == Approx(expect));
  }
  return s;
}

}  // namespace

TEST_CASE("sptc storage: emulated mma.sp reproduces the product, every V and BLOCK_TILE",
          "[sptc]") {
  uint64_t seed = 100;
  for (int64_t v : {1, 2, 4, 8, 16})
    for (int bt : {16, 32, 64, 128})
      for (double d : {0.04, 0.2, 0.5}) {
        if (bt / v > 64) continue;
        const int64_t rows = v * (bt / v * 2 + 1 + (v == 16 ? 0 : 1));  // row tail
        INFO("V=" << v << " BT=" << bt << " density=" << d);
        const UserBcrs a = random_user(rows, 83, v, d, seed, (seed & 1) == 1);
        check_storage(a, bt, seed + 1000);
        check_storage(a, bt, seed + 2000, true);  // clustered rows: the row map
        ++seed;
      }
}

TEST_CASE("sptc storage: odd k-tile counts leave a phantom tile with valid metadata", "[sptc]") {
  // 16 rows, V = 1, BT = 16: row r holds columns r, 16 + r, ..., 64 + r: 80 columns with one
  // nonzero each, 5 units of 16, padded to 6 units = 3 k tiles (odd): the last pair has a
  // phantom second tile.
  UserBcrs a;
  a.rows = 16;
  a.cols = 100;
  a.v = 1;
  a.ptr.push_back(0);
  for (int r = 0; r < 16; ++r) {
    for (int c = 0; c < 5; ++c) a.col.push_back(static_cast<int32_t>(16 * c + r));
    a.ptr.push_back(static_cast<int32_t>(a.col.size()));
  }
  const plan::SptcStorage s = check_storage(a, 16, 5);
  REQUIRE(s.panels == 1);
  const int32_t ktiles = s.panel_info[1];
  INFO("k tiles " << ktiles);
  CHECK(s.pairs == (ktiles + 1) / 2);
  REQUIRE(ktiles == 3);
  {
    const int64_t last = s.pairs - 1;
    for (int q = 32; q < 64; ++q) CHECK(s.gather[last * 64 + q] == -1);
    for (int i = 0; i < 256; ++i) CHECK(s.value_slot[(last * 2 + 1) * 256 + i] == -1);
  }
}

TEST_CASE("sptc storage: empty panels, empty matrix, unsorted columns", "[sptc]") {
  UserBcrs a;
  a.rows = 64;
  a.cols = 40;
  a.v = 4;
  a.ptr = {0};
  for (int br = 0; br < 16; ++br) {
    if (br >= 4 && br < 12) {  // panels of 16 rows 1 and 2 empty
      a.ptr.push_back(a.ptr.back());
      continue;
    }
    for (int c : {39, 3, 17}) a.col.push_back((c + br) % 40);  // unsorted
    a.ptr.push_back(static_cast<int32_t>(a.col.size()));
  }
  const plan::SptcStorage s = check_storage(a, 16, 6);
  CHECK(s.panel_info[2 * 1 + 1] == 0);
  CHECK(s.panel_info[2 * 2 + 1] == 0);
  CHECK(s.panel_order.back() == 2);  // empty panels last, stable

  UserBcrs none;
  none.rows = 32;
  none.cols = 7;
  none.v = 2;
  none.ptr.assign(17, 0);
  const plan::SptcStorage e = check_storage(none, 32, 7);
  CHECK(e.pairs == 0);
  CHECK(e.value_slot.empty());
}

TEST_CASE("sptc storage: structure sort and its checks", "[sptc]") {
  const std::vector<int32_t> ptr = {0, 3, 5};
  const std::vector<int32_t> col = {9, 2, 5, 4, 4};
  const plan::SortedBcrs s = plan::sptc_sort_structure(4, 10, 2, 5, ptr.data(), col.data());
  CHECK(s.block_col == std::vector<int32_t>({2, 5, 9, 4, 4}));
  CHECK(s.vector_slot == std::vector<int32_t>({1, 2, 0, 3, 4}));
  CHECK(s.duplicate_block_row == 1);
  CHECK(s.duplicate_col == 4);
  CHECK(s.duplicate_index == 4);  // the user's second entry of column 4 in block row 1
  {
    // The first repeat is named, in the user's positions (the sort is stable).
    const std::vector<int32_t> rep = {7, 3, 7, 1, 2};
    const plan::SortedBcrs r = plan::sptc_sort_structure(4, 10, 2, 5, ptr.data(), rep.data());
    CHECK(r.duplicate_block_row == 0);
    CHECK(r.duplicate_col == 7);
    CHECK(r.duplicate_index == 2);
    const std::vector<int32_t> none = {7, 3, 1, 1, 2};
    const plan::SortedBcrs n = plan::sptc_sort_structure(4, 10, 2, 5, ptr.data(), none.data());
    CHECK(n.duplicate_block_row == -1);
    CHECK(n.duplicate_col == -1);
    CHECK(n.duplicate_index == -1);
  }

  require_invalid([&] { plan::sptc_sort_structure(4, 10, 3, 5, ptr.data(), col.data()); },
                  "vec_len");
  require_invalid([&] { plan::sptc_sort_structure(5, 10, 2, 5, ptr.data(), col.data()); },
                  "multiple");
  const std::vector<int32_t> bad_col = {9, 2, 10, 4, 4};
  require_invalid([&] { plan::sptc_sort_structure(4, 10, 2, 5, ptr.data(), bad_col.data()); },
                  "block_col[2] = 10 is outside [0, 10)");
  const std::vector<int32_t> bad_ptr = {0, 6, 5};
  require_invalid([&] { plan::sptc_sort_structure(4, 10, 2, 5, bad_ptr.data(), col.data()); },
                  "block_row_ptr");
  require_invalid([&] { plan::sptc_sort_structure(2, 10, 1, 5, ptr.data(), nullptr); },
                  "null");
}

TEST_CASE("sort structure: parallel block rows give the serial result and the first repeat",
          "[sptc][storage]") {
  // Enough block rows for several parallel chunks; unsorted rows, repeats in rows 1701 and 2500.
  const int64_t brows = 3000, cols = 500, v = 2;
  std::vector<int32_t> ptr{0}, col;
  for (int64_t br = 0; br < brows; ++br) {
    const int count = static_cast<int>(br % 17);
    for (int j = 0; j < count; ++j) col.push_back(static_cast<int32_t>((br * 31 + (count - j) * 7) % cols));
    if (br == 1701 || br == 2500) col.push_back(col.back());
    ptr.push_back(static_cast<int32_t>(col.size()));
  }
  const plan::SortedBcrs s = plan::sptc_sort_structure(brows * v, cols, v, static_cast<int64_t>(col.size()),
                                                       ptr.data(), col.data());
  CHECK(s.duplicate_block_row == 1701);
  CHECK(s.duplicate_col == col[static_cast<size_t>(ptr[1702] - 1)]);
  // The serial sort: each block row's columns stably sorted, vector_slot their source.
  for (int64_t br = 0; br < brows; ++br) {
    std::vector<int32_t> order(static_cast<size_t>(ptr[br + 1] - ptr[br]));
    std::iota(order.begin(), order.end(), ptr[br]);
    std::stable_sort(order.begin(), order.end(), [&](int32_t x, int32_t y) { return col[x] < col[y]; });
    for (size_t i = 0; i < order.size(); ++i) {
      REQUIRE(s.vector_slot[ptr[br] + i] == order[i]);
      REQUIRE(s.block_col[ptr[br] + i] == col[order[i]]);
    }
  }
}
