// Host parallelism for analyze: a loop over [0, count) cut into contiguous chunks that the
// worker threads (one per hardware thread) take in turn. Every chunk writes only its own part of
// the output, so results are the same as a serial loop's whatever the thread count; an exception
// is carried to the caller after every worker has joined, the lowest chunk's first, which is the
// one a serial loop would have thrown (the "first bad position" of a structure check).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <thread>
#include <vector>

namespace spx::parallel {

/// Worker threads a parallel loop uses: the hardware's threads (at least 1).
inline int workers() {
  static const int n = std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  return n;
}

/// Calls fn(begin, end) over contiguous chunks of [0, count) of at least `grain` items each,
/// on up to workers() threads (the calling thread included). Serial when one chunk suffices.
template <class Fn>
void for_chunks(int64_t count, int64_t grain, Fn&& fn) {
  if (count <= 0) return;
  grain = std::max<int64_t>(1, grain);
  const int64_t threads = workers();
  const int64_t chunks = std::max<int64_t>(1, std::min((count + grain - 1) / grain, 8 * threads));
  if (chunks == 1 || threads == 1) {
    fn(int64_t{0}, count);
    return;
  }
  const int64_t size = (count + chunks - 1) / chunks;
  std::vector<std::exception_ptr> errors(static_cast<size_t>(chunks));
  std::atomic<int64_t> next{0};
  auto work = [&]() {
    for (int64_t c; (c = next.fetch_add(1)) < chunks;) {
      const int64_t begin = c * size, end = std::min(count, begin + size);
      if (begin >= end) continue;
      try {
        fn(begin, end);
      } catch (...) {
        errors[static_cast<size_t>(c)] = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  const int64_t helpers = std::min(threads, chunks) - 1;
  pool.reserve(static_cast<size_t>(helpers));
  for (int64_t t = 0; t < helpers; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  for (std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace spx::parallel
