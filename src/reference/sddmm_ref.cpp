// Reference SDDMM: C = alpha * (A * B) .* spy(C) + beta * C over C's stored slots.
#include <stdexcept>

#include "reference/accumulate.hpp"
#include "reference/reference.hpp"

namespace spx::ref {

Expected sddmm(const HostDense& A, const HostDense& B, const HostSparse& C, const Scalars& s) {
  if (A.cols != B.rows || C.rows != A.rows || C.cols != B.cols) {
    throw std::invalid_argument("spx::ref::sddmm: shapes of A, B and C do not match");
  }
  detail::need_storage(A.data.size(), A.type, detail::dense_span(A), "A.data");
  detail::need_storage(B.data.size(), B.type, detail::dense_span(B), "B.data");
  const int64_t slots = C.value_slots();
  if (s.beta != 0.0) detail::need_storage(C.values.size(), C.type, slots, "C.values");

  const bool exact = detail::exact_product(A.type, B.type);
  Expected e;
  detail::init(&e, slots, C.type);  // ELL padding slots stay unchecked
  for (const Entry& x : entries(C)) {
    detail::Sum sum;
    for (int64_t k = 0; k < A.cols; ++k) {
      detail::accumulate(&sum, exact, A.data.data(), A.type, A.linear(x.row, k), B.data.data(),
                         B.type, B.linear(k, x.col));
    }
    detail::finish(&e, x.slot, sum, exact, s, C.type, C.values.data(), x.slot);
  }
  return e;
}

}  // namespace spx::ref
