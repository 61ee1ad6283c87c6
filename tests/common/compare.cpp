#include "compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <sstream>
#include <unordered_map>

#include "runtime/dtype.hpp"

namespace spx::test {

namespace {

constexpr int kReportLimit = 10;

struct ElementCheck {
  bool ok;
  double got, want, tol;
};

ElementCheck check_element(const void* data, spxDataType_t type, int64_t index,
                           const ref::Expected& e, int64_t i, bool rounded_twice = false) {
  ElementCheck c{};
  c.want = e.value[i];
  if (e.exact || type == SPX_R_32I) {
    const int64_t got = dtype::load_int(data, type, index);
    c.got = static_cast<double>(got);
    c.tol = 0;
    c.ok = std::isfinite(c.want) && got == static_cast<int64_t>(std::llround(c.want));
  } else {
    c.got = dtype::load_double(data, type, index);
    c.tol = ref::tolerance(e, i, type);
    // A first rounding of alpha * A * B (at most the magnitude of the partial sums) to the output
    // type's unit roundoff: 2^-11 (fp16), 2^-8 (bf16); fp32 outputs are rounded once.
    if (rounded_twice && (type == SPX_R_16F || type == SPX_R_16BF))
      c.tol += std::ldexp(1.0, type == SPX_R_16F ? -11 : -8) * e.magnitude[i];
    c.ok = std::fabs(c.got - c.want) <= c.tol;  // false for NaN (poison) and inf
  }
  return c;
}

void note(std::ostringstream& os, const CheckResult& r, const std::string& where,
          const ElementCheck& c, const ref::Expected& e, int64_t i) {
  if (r.mismatches + r.clobbered > kReportLimit) return;
  os.precision(9);
  os << "  " << where << ": got " << c.got << ", expected " << c.want << " (tolerance " << c.tol;
  if (i < static_cast<int64_t>(e.terms.size())) os << ", " << e.terms[i] << " terms";
  os << ")\n";
}

bool checked_at(const ref::Expected& e, int64_t i) {
  return e.checked.empty() || e.checked[static_cast<size_t>(i)] != 0;
}

void finish(CheckResult& r, std::ostringstream& os, int64_t total) {
  r.ok = r.mismatches == 0 && r.clobbered == 0;
  if (!r.ok) {
    std::ostringstream head;
    head << r.mismatches << " of " << total << " output elements wrong, " << r.clobbered
         << " elements outside the output changed; first ones:\n";
    r.report = head.str() + os.str();
  }
}

}  // namespace

CheckResult check_dense_output(const HostDense& got, const HostDense& before,
                               const ref::Expected& e, bool rounded_twice) {
  CheckResult r;
  std::ostringstream os;
  const int64_t m = got.rows, n = got.cols, total = m * n;
  if (static_cast<int64_t>(e.value.size()) != total) {
    r.ok = false;
    r.report = "reference returned " + std::to_string(e.value.size()) + " values for " +
               std::to_string(total) + " output elements";
    return r;
  }
  for (int64_t row = 0; row < m; ++row)
    for (int64_t col = 0; col < n; ++col) {
      const int64_t i = row * n + col;
      if (!checked_at(e, i)) continue;
      const ElementCheck c =
          check_element(got.data.data(), got.type, got.linear(row, col), e, i, rounded_twice);
      if (!c.ok) {
        ++r.mismatches;
        note(os, r, "C(" + std::to_string(row) + "," + std::to_string(col) + ")", c, e, i);
      }
    }
  // ld padding: byte-identical to what was uploaded.
  const size_t eb = element_bytes(got.type);
  const int64_t slots = element_slots(got);
  for (int64_t s = 0; s < slots; ++s) {
    if (is_logical(got, s)) continue;
    if (std::memcmp(got.data.data() + s * eb, before.data.data() + s * eb, eb) != 0) {
      ++r.clobbered;
      if (r.mismatches + r.clobbered <= kReportLimit)
        os << "  ld padding element " << s << " (ld " << got.ld << ") was overwritten\n";
    }
  }
  finish(r, os, total);
  return r;
}

CheckResult check_sparse_output(const HostSparse& got, const HostSparse& before,
                                const ref::Expected& e) {
  CheckResult r;
  std::ostringstream os;
  const int64_t total = got.value_slots();
  if (static_cast<int64_t>(e.value.size()) != total) {
    r.ok = false;
    r.report = "reference returned " + std::to_string(e.value.size()) + " values for " +
               std::to_string(total) + " value slots";
    return r;
  }
  std::unordered_map<int64_t, std::pair<int64_t, int64_t>> where;
  for (const ref::Entry& en : ref::entries(got)) where[en.slot] = {en.row, en.col};
  const size_t eb = element_bytes(got.type);
  for (int64_t i = 0; i < total; ++i) {
    const bool padded = got.format == SPX_FORMAT_ELL && got.idx[i] < 0;
    if (padded || !checked_at(e, i)) {
      if (std::memcmp(got.values.data() + i * eb, before.values.data() + i * eb, eb) != 0) {
        ++r.clobbered;
        if (r.mismatches + r.clobbered <= kReportLimit)
          os << "  unchecked (padded) slot " << i << " was overwritten\n";
      }
      continue;
    }
    const ElementCheck c = check_element(got.values.data(), got.type, i, e, i);
    if (!c.ok) {
      ++r.mismatches;
      auto it = where.find(i);
      std::string at = "slot " + std::to_string(i);
      if (it != where.end())
        at += " C(" + std::to_string(it->second.first) + "," + std::to_string(it->second.second) + ")";
      note(os, r, at, c, e, i);
    }
  }
  finish(r, os, total);
  return r;
}

bool same_bytes(const HostDense& a, const HostDense& b) { return a.data == b.data; }

bool vacuous_expectation(const ref::Expected& e) {
  int64_t with_terms = 0;
  for (size_t i = 0; i < e.value.size(); ++i)
    if (checked_at(e, static_cast<int64_t>(i)) && e.terms[i] > 0) ++with_terms;
  return with_terms >= 8 && max_abs_expected(e) == 0;
}

double max_abs_expected(const ref::Expected& e) {
  double m = 0;
  for (size_t i = 0; i < e.value.size(); ++i)
    if (checked_at(e, static_cast<int64_t>(i))) m = std::max(m, std::fabs(e.value[i]));
  return m;
}

}  // namespace spx::test
