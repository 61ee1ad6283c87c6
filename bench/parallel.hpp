// Host-side loops of the bench spread over the machine's cores. A case of the Llama preset
// builds and densifies matrices of up to 2 x 10^8 elements; on one core that took ~5 s per case,
// longer than timing it.
#pragma once

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

namespace bench {

/// Calls fn(begin, end) on disjoint ranges covering [0, count), at least `grain` indices each,
/// on up to hardware_concurrency threads (the calling thread takes the first range).
template <class Fn>
void parallel_for(int64_t count, int64_t grain, const Fn& fn) {
  if (count <= 0) return;
  const int64_t hw = std::max<int64_t>(1, static_cast<int64_t>(std::thread::hardware_concurrency()));
  const int64_t parts = std::max<int64_t>(1, std::min<int64_t>(hw, count / std::max<int64_t>(1, grain)));
  if (parts == 1) {
    fn(int64_t{0}, count);
    return;
  }
  const int64_t step = (count + parts - 1) / parts;
  std::vector<std::thread> pool;
  for (int64_t p = 1; p < parts; ++p) {
    const int64_t b = p * step, e = std::min(count, b + step);
    if (b < e) pool.emplace_back([&fn, b, e] { fn(b, e); });
  }
  fn(int64_t{0}, std::min(count, step));
  for (std::thread& t : pool) t.join();
}

}  // namespace bench
