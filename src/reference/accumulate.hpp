// Internal to the reference: one output element's sum of products, and how it is combined with
// alpha, beta and the old output value. Shared by spmm_ref.cpp and sddmm_ref.cpp.
#pragma once

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "runtime/dtype.hpp"
#include "reference/reference.hpp"

namespace spx::ref::detail {

/// Integer inputs multiply exactly in int64; anything involving a float goes through double.
inline bool exact_product(spxDataType_t a, spxDataType_t b) {
  return dtype::is_integer(a) && dtype::is_integer(b);
}

struct Sum {
  int64_t exact = 0;       ///< integer inputs: the exact sum
  double value = 0.0;      ///< float inputs: the sum in double
  double magnitude = 0.0;  ///< sum of |a * b|
  int32_t terms = 0;
};

inline void accumulate(Sum* s, bool exact, const void* a, spxDataType_t ta, int64_t ia,
                       const void* b, spxDataType_t tb, int64_t ib) {
  if (exact) {
    const int64_t p = dtype::load_int(a, ta, ia) * dtype::load_int(b, tb, ib);
    s->exact += p;
    s->magnitude += std::fabs(static_cast<double>(p));
  } else {
    const double p = dtype::load_double(a, ta, ia) * dtype::load_double(b, tb, ib);
    s->value += p;
    s->magnitude += std::fabs(p);
  }
  ++s->terms;
}

/// Element i of e = alpha * sum + beta * old, where old (element old_index of old_data, of type
/// out_type) is read only when beta != 0, as the library does.
inline void finish(Expected* e, int64_t i, const Sum& s, bool exact, const Scalars& sc,
                   spxDataType_t out_type, const void* old_data, int64_t old_index) {
  const bool read_old = sc.beta != 0.0;
  if (out_type == SPX_R_32I) {
    if (!exact) throw std::invalid_argument("spx::ref: a 32I output needs integer inputs");
    // int32 arithmetic is arithmetic modulo 2^32; doing it in uint64 (modulo 2^64, no overflow
    // UB) and keeping the low 32 bits gives the same result.
    const uint64_t alpha = static_cast<uint64_t>(std::llround(sc.alpha));
    const uint64_t beta = static_cast<uint64_t>(std::llround(sc.beta));
    uint64_t r = alpha * static_cast<uint64_t>(s.exact);
    double old_term = 0.0;
    if (read_old) {
      const int64_t old = dtype::load_int(old_data, out_type, old_index);
      r += beta * static_cast<uint64_t>(old);
      old_term = std::fabs(sc.beta * static_cast<double>(old));
    }
    e->value[i] = static_cast<double>(static_cast<int32_t>(static_cast<uint32_t>(r)));
    e->magnitude[i] = std::fabs(sc.alpha) * s.magnitude + old_term;
  } else {
    const double sum = exact ? static_cast<double>(s.exact) : s.value;
    const double old_term =
        read_old ? sc.beta * dtype::load_double(old_data, out_type, old_index) : 0.0;
    e->value[i] = sc.alpha * sum + old_term;
    e->magnitude[i] = std::fabs(sc.alpha) * s.magnitude + std::fabs(old_term);
  }
  e->terms[i] = s.terms;
  e->checked[i] = 1;
}

/// Sizes the vectors of e for `count` elements, none checked yet.
inline void init(Expected* e, int64_t count, spxDataType_t out_type) {
  const size_t n = static_cast<size_t>(count);
  e->value.assign(n, 0.0);
  e->magnitude.assign(n, 0.0);
  e->terms.assign(n, 0);
  e->checked.assign(n, 0);
  e->exact = out_type == SPX_R_32I;
}

/// Throws when `bytes` cannot hold `count` elements of type t.
inline void need_storage(size_t bytes, spxDataType_t t, int64_t count, const char* what) {
  if (bytes < dtype::storage_bytes(t, count)) {
    throw std::invalid_argument(std::string("spx::ref: ") + what + " holds too few bytes");
  }
}

/// Elements a dense matrix's storage spans (ld times its rows or columns).
inline int64_t dense_span(const HostDense& d) {
  return d.ld * (d.order == SPX_ORDER_ROW ? d.rows : d.cols);
}

}  // namespace spx::ref::detail
