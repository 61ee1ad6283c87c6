// Row clustering of the SpTC reorder (see sptc_reorder.hpp): a block-row order in which rows that
// share columns sit in the same panel, so each panel keeps (and the kernel gathers) fewer columns
// per row of A. Greedy within chunks of block rows; chunks are independent and run on threads.
#include <algorithm>
#include <atomic>
#include <exception>
#include <numeric>
#include <thread>

#include "families/sptc/plan/reorder.hpp"

namespace spx::plan {
namespace {

/// Clusters block rows [r0, r1) into groups of `group`, appending the order to out.
void cluster_chunk(const BcrsView& a, int64_t r0, int64_t r1, int64_t group,
                   std::vector<int32_t>& out) {
  const int64_t n = r1 - r0;
  auto nnz = [&](int64_t r) { return a.block_row_ptr[r0 + r + 1] - a.block_row_ptr[r0 + r]; };
  // Column -> local rows of the chunk (a transposed CSR).
  const int64_t base = a.block_row_ptr[r0];
  const int64_t entries = a.block_row_ptr[r1] - base;
  std::vector<int32_t> col_ptr(static_cast<size_t>(a.cols) + 1, 0), col_rows(static_cast<size_t>(entries));
  for (int64_t i = 0; i < entries; ++i) ++col_ptr[static_cast<size_t>(a.block_col[base + i]) + 1];
  for (int64_t c = 0; c < a.cols; ++c) col_ptr[c + 1] += col_ptr[c];
  {
    std::vector<int32_t> fill(col_ptr.begin(), col_ptr.end() - 1);
    for (int64_t r = 0; r < n; ++r)
      for (int64_t i = a.block_row_ptr[r0 + r]; i < a.block_row_ptr[r0 + r + 1]; ++i)
        col_rows[static_cast<size_t>(fill[static_cast<size_t>(a.block_col[i])]++)] = static_cast<int32_t>(r);
  }
  // Seeds: the densest unused row starts a group (its columns are the hardest to share).
  std::vector<int32_t> seeds(static_cast<size_t>(n));
  std::iota(seeds.begin(), seeds.end(), 0);
  std::stable_sort(seeds.begin(), seeds.end(), [&](int32_t x, int32_t y) { return nnz(x) > nnz(y); });
  std::vector<char> used(static_cast<size_t>(n), 0), in_union(static_cast<size_t>(a.cols), 0);
  std::vector<int32_t> score(static_cast<size_t>(n), 0), touched, union_cols;
  size_t next_seed = 0;
  auto take = [&](int64_t r) {
    used[static_cast<size_t>(r)] = 1;
    out.push_back(static_cast<int32_t>(r0 + r));
    for (int64_t i = a.block_row_ptr[r0 + r]; i < a.block_row_ptr[r0 + r + 1]; ++i) {
      const int32_t c = a.block_col[i];
      if (in_union[static_cast<size_t>(c)]) continue;
      in_union[static_cast<size_t>(c)] = 1;
      union_cols.push_back(c);
      for (int32_t j = col_ptr[static_cast<size_t>(c)]; j < col_ptr[static_cast<size_t>(c) + 1]; ++j) {
        const int32_t q = col_rows[static_cast<size_t>(j)];
        if (used[static_cast<size_t>(q)]) continue;
        if (score[static_cast<size_t>(q)]++ == 0) touched.push_back(q);
      }
    }
  };
  for (int64_t placed = 0; placed < n;) {
    while (used[static_cast<size_t>(seeds[next_seed])]) ++next_seed;
    take(seeds[next_seed]);
    int64_t size = 1;
    for (; size < group && placed + size < n; ++size) {
      // The unused row sharing the most columns with the group; ties: fewest new columns, then
      // the lower row. No overlap at all: the next seed.
      int32_t best = -1;
      for (int32_t q : touched) {
        if (used[static_cast<size_t>(q)]) continue;
        if (best < 0) {
          best = q;
          continue;
        }
        const int32_t sq = score[static_cast<size_t>(q)], sb = score[static_cast<size_t>(best)];
        const int64_t nq = nnz(q) - sq, nb = nnz(best) - sb;
        if (sq > sb || (sq == sb && (nq < nb || (nq == nb && q < best)))) best = q;
      }
      if (best < 0) {
        while (used[static_cast<size_t>(seeds[next_seed])]) ++next_seed;
        best = seeds[next_seed];
      }
      take(best);
    }
    placed += size;
    for (int32_t q : touched) score[static_cast<size_t>(q)] = 0;
    touched.clear();
    for (int32_t c : union_cols) in_union[static_cast<size_t>(c)] = 0;
    union_cols.clear();
  }
}

}  // namespace

std::vector<int32_t> sptc_cluster_rows(const BcrsView& a, int64_t group, int64_t chunk,
                                       int threads) {
  const int64_t brows = a.vec_len > 0 ? a.rows / a.vec_len : 0;
  std::vector<int32_t> order;
  if (group <= 1 || brows <= group) {
    order.resize(static_cast<size_t>(brows));
    std::iota(order.begin(), order.end(), 0);
    return order;
  }
  // Chunks of whole groups, so no group straddles two chunks.
  chunk = std::max<int64_t>(group, chunk / group * group);
  const int64_t chunks = (brows + chunk - 1) / chunk;
  std::vector<std::vector<int32_t>> parts(static_cast<size_t>(chunks));
  int workers = threads > 0 ? threads : static_cast<int>(std::thread::hardware_concurrency());
  workers = static_cast<int>(std::max<int64_t>(1, std::min<int64_t>(workers, chunks)));
  std::atomic<int64_t> next{0};
  auto work = [&]() {
    for (int64_t c; (c = next.fetch_add(1)) < chunks;)
      cluster_chunk(a, c * chunk, std::min(brows, (c + 1) * chunk), group,
                    parts[static_cast<size_t>(c)]);
  };
  if (workers == 1) {
    work();
  } else {
    std::vector<std::exception_ptr> errors(static_cast<size_t>(workers));
    std::vector<std::thread> pool;
    for (int t = 0; t < workers; ++t)
      pool.emplace_back([&, t]() {
        try {
          work();
        } catch (...) {
          errors[static_cast<size_t>(t)] = std::current_exception();
          next.store(chunks);
        }
      });
    for (auto& th : pool) th.join();
    for (auto& e : errors)
      if (e) std::rethrow_exception(e);
  }
  order.reserve(static_cast<size_t>(brows));
  for (const auto& p : parts) order.insert(order.end(), p.begin(), p.end());
  return order;
}

}  // namespace spx::plan
