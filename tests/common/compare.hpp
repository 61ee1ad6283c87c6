// Element-wise comparison of a downloaded GPU result with the CPU reference (spx::ref::Expected,
// spx::ref::tolerance; exact for 32I outputs), and checks that nothing outside the logical
// output changed (ld padding, ELL padded slots).
#pragma once

#include <cstdint>
#include <string>

#include "host_builders.hpp"

namespace spx::test {

struct CheckResult {
  bool ok = true;
  int64_t mismatches = 0;  ///< logical elements outside tolerance (poison / NaN included)
  int64_t clobbered = 0;   ///< elements outside the logical output that changed
  std::string report;      ///< the first mismatches, with indices; empty when ok
};

/// got: C downloaded after the run; before: C as uploaded (its ld padding holds the guard);
/// e: reference for the logical m x n elements (row-major index r * n + c).
/// `rounded_twice`: the result was rounded to the output type twice, alpha * A * B first and then
/// the sum with beta * C (cuBLAS's epilogue for fp16 / bf16 outputs, the dense route): each element
/// may also be off by one rounding of its largest partial magnitude.
CheckResult check_dense_output(const HostDense& got, const HostDense& before,
                               const ref::Expected& e, bool rounded_twice = false);

/// SDDMM: got / before: C's values array after / before the run; e: one entry per value slot.
/// Slots with checked == 0 (ELL padding) must be byte-identical to before.
CheckResult check_sparse_output(const HostSparse& got, const HostSparse& before,
                                const ref::Expected& e);

/// The bytes of two outputs are identical (a rejected call left C untouched).
bool same_bytes(const HostDense& a, const HostDense& b);

/// Largest |value| of the expectation over checked elements (to assert a test is not vacuous).
double max_abs_expected(const ref::Expected& e);
/// True when the expectation is all zeros although at least 8 checked elements have products
/// summed into them: random non-zero data cannot cancel that often, so the test data is broken.
/// (A handful of elements can cancel by chance: small integer sums of few terms do.)
bool vacuous_expectation(const ref::Expected& e);

}  // namespace spx::test
