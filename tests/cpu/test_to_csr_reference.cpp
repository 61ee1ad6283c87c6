// The format conversions to CSR as analyze runs them (rows filled in parallel, checks in
// parallel chunks) against the serial versions they replaced, kept here as the reference: the
// same CSR arrays and slot maps, and for bad input the same first message. Random structures
// and edge cases (empty rows, padding inside ELL rows, one-row and zero-row matrices).
#include <catch2/catch.hpp>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "formats/structure_checks.hpp"
#include "formats/to_csr.hpp"
#include "runtime/error.hpp"

namespace {

using spx::plan::CsrStructure;

// ---- the reference: libspx's serial conversions before the fast analyze ----

struct RefCsr {
  std::vector<int32_t> row_ptr{0}, col_ind;
  std::vector<int64_t> slot;
  void add(int64_t c, int64_t s) {
    col_ind.push_back(static_cast<int32_t>(c));
    slot.push_back(s);
  }
  void end_row() { row_ptr.push_back(static_cast<int32_t>(col_ind.size())); }
};

RefCsr ref_from_bcrs(int64_t rows, int64_t v, const int32_t* ptr, const int32_t* col) {
  RefCsr out;
  for (int64_t b = 0; b < rows / v; ++b)
    for (int64_t r = 0; r < v; ++r) {
      for (int64_t j = ptr[b]; j < ptr[b + 1]; ++j) out.add(col[j], j * v + r);
      out.end_row();
    }
  return out;
}

RefCsr ref_from_nm(int64_t rows, int64_t cols, int64_t n, int64_t m, int64_t l, const int32_t* idx) {
  RefCsr out;
  const int64_t kc = cols / m * n;
  for (int64_t i = 0; i < rows; ++i) {
    const int32_t* group = idx + (i / l) * kc;
    for (int64_t q = 0; q < kc; ++q) out.add((q / n) * m + group[q], i * kc + q);
    out.end_row();
  }
  return out;
}

RefCsr ref_from_ell(int64_t rows, int64_t width, const int32_t* col) {
  RefCsr out;
  for (int64_t i = 0; i < rows; ++i) {
    for (int64_t j = 0; j < width; ++j)
      if (col[i + j * rows] != -1) out.add(col[i + j * rows], i + j * rows);
    out.end_row();
  }
  return out;
}

void require_same(const CsrStructure& got, const RefCsr& want) {
  REQUIRE(got.row_ptr == want.row_ptr);
  REQUIRE(got.col_ind == want.col_ind);
  REQUIRE(got.slot == want.slot);
}

template <class Fn>
std::string message_of(Fn&& fn) {
  try {
    fn();
  } catch (const spx::Error& e) {
    return e.what();
  }
  return {};
}

}  // namespace

TEST_CASE("CSR from BCRS / CSR equals the serial reference", "[to_csr]") {
  std::mt19937 rng(1);
  for (int64_t v : {1, 2, 8})
    for (int64_t brows : {0, 1, 7, 300, 2049}) {
      const int64_t cols = 97;
      std::vector<int32_t> ptr{0}, col;
      for (int64_t b = 0; b < brows; ++b) {
        const int count = b % 5 == 0 ? 0 : static_cast<int>(rng() % 40);
        for (int j = 0; j < count; ++j) col.push_back(static_cast<int32_t>(rng() % cols));
        ptr.push_back(static_cast<int32_t>(col.size()));
      }
      const int64_t nv = static_cast<int64_t>(col.size());
      INFO("V " << v << ", " << brows << " block rows");
      require_same(spx::plan::csr_from_bcrs(brows * v, cols, v, nv, ptr.data(), col.data()),
                   ref_from_bcrs(brows * v, v, ptr.data(), col.data()));
      if (v == 1) {
        RefCsr want;
        want.row_ptr = ptr;
        want.col_ind = col;
        for (int64_t e = 0; e < nv; ++e) want.slot.push_back(e);
        require_same(spx::plan::csr_from_csr(brows, cols, nv, ptr.data(), col.data()), want);
      }
    }
}

TEST_CASE("CSR from N:M and ELL equals the serial reference", "[to_csr]") {
  std::mt19937 rng(2);
  for (int64_t rows : {0, 4, 64, 4096}) {
    const int64_t n = 2, m = 8, l = 4, cols = 64, kc = cols / m * n;
    std::vector<int32_t> idx(static_cast<size_t>(rows / l * kc));
    for (size_t w = 0; w < idx.size(); w += 2) {
      idx[w] = static_cast<int32_t>(rng() % 4);
      idx[w + 1] = idx[w] + 1 + static_cast<int32_t>(rng() % 4);
    }
    require_same(spx::plan::csr_from_nm(rows, cols, n, m, l, idx.data()),
                 ref_from_nm(rows, cols, n, m, l, idx.data()));
    for (int64_t width : {0, 1, 9}) {
      std::vector<int32_t> col(static_cast<size_t>(rows * width));
      for (int32_t& c : col) c = rng() % 4 == 0 ? -1 : static_cast<int32_t>(rng() % cols);
      INFO(rows << " rows, width " << width);
      require_same(spx::plan::csr_from_ell(rows, cols, width, col.data()),
                   ref_from_ell(rows, width, col.data()));
    }
  }
}

TEST_CASE("parallel checks name the first bad index, as the serial scan did", "[to_csr]") {
  // Several parallel chunks; two bad entries, the first one is reported.
  const int64_t rows = 200000, width = 2, cols = 10;
  std::vector<int32_t> ell(static_cast<size_t>(rows * width), 3);
  ell[300001] = 10;
  ell[100003] = -7;
  CHECK(message_of([&] { spx::plan::csr_from_ell(rows, cols, width, ell.data()); }) ==
        "col_ind[100003] = -7 is outside [-1, 10)");
  std::vector<int32_t> ptr(static_cast<size_t>(rows) + 1), col(static_cast<size_t>(rows), 1);
  for (int64_t i = 0; i <= rows; ++i) ptr[static_cast<size_t>(i)] = static_cast<int32_t>(i);
  col[150000] = 11;
  col[199999] = 12;
  CHECK(message_of([&] { spx::plan::csr_from_csr(rows, cols, rows, ptr.data(), col.data()); }) ==
        "col_ind[150000] = 11 is outside [0, 10)");
  // N:M: a window out of order after an index out of range, in later chunks.
  std::vector<int32_t> idx(static_cast<size_t>(rows), 0);
  for (int64_t i = 0; i < rows; i += 2) idx[static_cast<size_t>(i + 1)] = 1;
  idx[180001] = 0;  // not greater than idx[180000] = 0
  idx[190000] = 9;  // outside [0, 4)
  CHECK(message_of([&] { spx::plan::csr_from_nm(rows / 2 * 2, 4, 2, 4, 2, idx.data()); }) ==
        "indices[180001] = 0 is not greater than indices[180000] = 0 in the same window");
}
