// Reference SpMM: C = alpha * A * B + beta * C, straight over A's stored entries.
#include <cstddef>
#include <stdexcept>
#include <vector>

#include "reference/accumulate.hpp"
#include "reference/reference.hpp"

namespace spx::ref {

Expected spmm(const HostSparse& A, const HostDense& B, const HostDense& C, const Scalars& s) {
  if (B.rows != A.cols || C.rows != A.rows || C.cols != B.cols) {
    throw std::invalid_argument("spx::ref::spmm: shapes of A, B and C do not match");
  }
  detail::need_storage(A.values.size(), A.type, A.value_slots(), "A.values");
  detail::need_storage(B.data.size(), B.type, detail::dense_span(B), "B.data");
  if (s.beta != 0.0) detail::need_storage(C.data.size(), C.type, detail::dense_span(C), "C.data");

  // Entries grouped by row (counting sort keeps each row's storage order).
  const std::vector<Entry> all = entries(A);
  std::vector<int64_t> start(static_cast<size_t>(A.rows) + 1, 0);
  for (const Entry& x : all) ++start[x.row + 1];
  for (int64_t r = 0; r < A.rows; ++r) start[r + 1] += start[r];
  std::vector<Entry> by_row(all.size());
  std::vector<int64_t> fill(start.begin(), start.end() - 1);
  for (const Entry& x : all) by_row[fill[x.row]++] = x;

  const bool exact = detail::exact_product(A.type, B.type);
  const int64_t n = C.cols;
  Expected e;
  detail::init(&e, C.rows * n, C.type);
  for (int64_t r = 0; r < C.rows; ++r) {
    for (int64_t c = 0; c < n; ++c) {
      detail::Sum sum;
      for (int64_t k = start[r]; k < start[r + 1]; ++k) {
        const Entry& x = by_row[k];
        detail::accumulate(&sum, exact, A.values.data(), A.type, x.slot, B.data.data(), B.type,
                           B.linear(x.col, c));
      }
      detail::finish(&e, r * n + c, sum, exact, s, C.type, C.data.data(), C.linear(r, c));
    }
  }
  return e;
}

}  // namespace spx::ref
