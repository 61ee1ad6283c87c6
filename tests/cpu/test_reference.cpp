// The CPU reference on tiny matrices whose results are worked out by hand in the comments:
// SpMM and SDDMM in every format, every data-type class, alpha/beta, empty rows, ELL padding.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "runtime/dtype.hpp"
#include "reference/reference.hpp"

using spx::ref::Entry;
using spx::ref::Expected;
using spx::ref::HostDense;
using spx::ref::HostSparse;
using spx::ref::Scalars;

namespace {

void put(std::vector<uint8_t>* buf, spxDataType_t t, int64_t i, double v) {
  if (spx::dtype::is_integer(t)) {
    spx::dtype::store_int_wrap(buf->data(), t, i, std::llround(v));
  } else {
    spx::dtype::store_double(buf->data(), t, i, v);
  }
}

std::vector<uint8_t> pack(spxDataType_t t, const std::vector<double>& v) {
  std::vector<uint8_t> out(spx::dtype::storage_bytes(t, static_cast<int64_t>(v.size())), 0);
  for (size_t i = 0; i < v.size(); ++i) put(&out, t, static_cast<int64_t>(i), v[i]);
  return out;
}

// `row_major` lists the matrix row by row; storage follows `order` and `ld` (0: tight). The
// padding between rows/columns is filled with a byte pattern nothing should read.
HostDense dense(int64_t rows, int64_t cols, spxDataType_t t, const std::vector<double>& row_major,
                spxOrder_t order = SPX_ORDER_ROW, int64_t ld = 0) {
  HostDense d;
  d.rows = rows;
  d.cols = cols;
  d.type = t;
  d.order = order;
  d.ld = ld != 0 ? ld : (order == SPX_ORDER_ROW ? cols : rows);
  d.data.assign(spx::dtype::storage_bytes(t, d.ld * (order == SPX_ORDER_ROW ? rows : cols)), 0x7B);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) put(&d.data, t, d.linear(r, c), row_major[r * cols + c]);
  }
  return d;
}

HostSparse csr(int64_t rows, int64_t cols, spxDataType_t t, std::vector<int32_t> ptr,
               std::vector<int32_t> idx, const std::vector<double>& values) {
  HostSparse a;
  a.format = SPX_FORMAT_CSR;
  a.type = t;
  a.rows = rows;
  a.cols = cols;
  a.ptr = std::move(ptr);
  a.idx = std::move(idx);
  a.values = pack(t, values);
  return a;
}

HostSparse bcrs(int64_t rows, int64_t cols, int64_t v, spxDataType_t t, std::vector<int32_t> ptr,
                std::vector<int32_t> idx, const std::vector<double>& values) {
  HostSparse a = csr(rows, cols, t, std::move(ptr), std::move(idx), values);
  a.format = SPX_FORMAT_BCRS;
  a.vec_len = v;
  return a;
}

HostSparse nm(int64_t rows, int64_t cols, int64_t n, int64_t m, int64_t l, spxDataType_t t,
              std::vector<int32_t> idx, const std::vector<double>& values) {
  HostSparse a;
  a.format = SPX_FORMAT_NM;
  a.type = t;
  a.rows = rows;
  a.cols = cols;
  a.n = n;
  a.m = m;
  a.l = l;
  a.idx = std::move(idx);
  a.values = pack(t, values);
  return a;
}

HostSparse ell(int64_t rows, int64_t cols, int64_t width, spxDataType_t t, std::vector<int32_t> idx,
               const std::vector<double>& values) {
  HostSparse a;
  a.format = SPX_FORMAT_ELL;
  a.type = t;
  a.rows = rows;
  a.cols = cols;
  a.ell_width = width;
  a.idx = std::move(idx);
  a.values = pack(t, values);
  return a;
}

void require_values(const Expected& e, const std::vector<double>& want) {
  REQUIRE(e.value.size() == want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    INFO("element " << i);
    CHECK(e.value[i] == want[i]);
    CHECK(e.checked[i] == 1);
  }
}

// The 4 x 4 matrix of the SpMM cases, with an empty row:
//   [1 0 2 0]
//   [0 0 0 0]
//   [0 3 0 4]
//   [5 0 0 6]
HostSparse csr_4x4(spxDataType_t t, const std::vector<double>& values) {
  return csr(4, 4, t, {0, 2, 2, 4, 6}, {0, 2, 1, 3, 0, 3}, values);
}

// B = [[1,2],[3,4],[5,6],[7,8]]; A * B = [[11,14],[0,0],[37,44],[47,58]].
const std::vector<double> kB4x2 = {1, 2, 3, 4, 5, 6, 7, 8};

}  // namespace

TEST_CASE("entries() walks every format with the right slots", "[reference]") {
  SECTION("CSR") {
    const HostSparse a = csr_4x4(SPX_R_32F, {1, 2, 3, 4, 5, 6});
    const std::vector<Entry> e = spx::ref::entries(a);
    REQUIRE(e.size() == 6);
    CHECK((e[2].row == 2 && e[2].col == 1 && e[2].slot == 2));
    CHECK((e[5].row == 3 && e[5].col == 3 && e[5].slot == 5));
    CHECK(a.value_slots() == 6);
  }
  SECTION("BCRS V=2: vector j of a vector-row gives slot j*V + r in row b*V + r") {
    const HostSparse a = bcrs(4, 4, 2, SPX_R_32F, {0, 1, 2}, {3, 1}, {1, 2, 3, 4});
    const std::vector<Entry> e = spx::ref::entries(a);
    REQUIRE(e.size() == 4);
    CHECK((e[0].row == 0 && e[0].col == 3 && e[0].slot == 0));
    CHECK((e[1].row == 1 && e[1].col == 3 && e[1].slot == 1));
    CHECK((e[2].row == 2 && e[2].col == 1 && e[2].slot == 2));
    CHECK((e[3].row == 3 && e[3].col == 1 && e[3].slot == 3));
    CHECK(a.value_slots() == 4);
  }
  SECTION("NM 1:2 L=2: column = window * M + index") {
    const HostSparse a = nm(2, 4, 1, 2, 2, SPX_R_32F, {1, 0}, {1, 2, 3, 4});
    const std::vector<Entry> e = spx::ref::entries(a);
    REQUIRE(e.size() == 4);
    CHECK((e[0].row == 0 && e[0].col == 1 && e[0].slot == 0));
    CHECK((e[1].row == 0 && e[1].col == 2 && e[1].slot == 1));
    CHECK((e[3].row == 1 && e[3].col == 2 && e[3].slot == 3));
    CHECK(a.value_slots() == 4);
  }
  SECTION("ELL: padding is skipped, slot i + j * rows") {
    const HostSparse a = ell(2, 3, 2, SPX_R_32F, {2, -1, -1, -1}, {1, 0, 0, 0});
    const std::vector<Entry> e = spx::ref::entries(a);
    REQUIRE(e.size() == 1);
    CHECK((e[0].row == 0 && e[0].col == 2 && e[0].slot == 0));
    CHECK(a.value_slots() == 4);
  }
}

TEST_CASE("SpMM CSR fp32 with alpha, beta and an empty row", "[reference][spmm][csr]") {
  const HostSparse a = csr_4x4(SPX_R_32F, {1, 2, 3, 4, 5, 6});
  const HostDense b = dense(4, 2, SPX_R_32F, kB4x2);
  const HostDense c = dense(4, 2, SPX_R_32F, {1, 1, 2, 2, 3, 3, 4, 4});
  // 2 * A * B - C = 2 * [[11,14],[0,0],[37,44],[47,58]] - C
  const Expected e = spx::ref::spmm(a, b, c, Scalars{2.0, -1.0});
  require_values(e, {21, 27, -2, -2, 71, 85, 90, 112});
  CHECK_FALSE(e.exact);
  CHECK(e.terms == std::vector<int32_t>{2, 2, 0, 0, 2, 2, 2, 2});
  CHECK(e.magnitude[0] == 2.0 * (1 * 1 + 2 * 5) + 1.0);  // |alpha| sum|a*b| + |beta c|
  CHECK(e.magnitude[2] == 2.0);
}

TEST_CASE("SpMM BCRS V=2, unsorted vectors, column-major B, beta = 0 ignores NaN in C",
          "[reference][spmm][bcrs]") {
  // 6 x 4: the 4 x 4 matrix above (explicit zeros inside its vectors) plus an empty vector-row.
  // Vector-row 1 lists its vectors in column order 3, 0, 1.
  const HostSparse a =
      bcrs(6, 4, 2, SPX_R_32F, {0, 2, 5, 5}, {0, 2, 3, 0, 1}, {1, 0, 2, 0, 4, 6, 0, 5, 3, 0});
  const HostDense b = dense(4, 2, SPX_R_32F, kB4x2, SPX_ORDER_COL, 6);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const HostDense c = dense(6, 2, SPX_R_32F, std::vector<double>(12, nan));
  const Expected e = spx::ref::spmm(a, b, c, Scalars{1.0, 0.0});
  require_values(e, {11, 14, 0, 0, 37, 44, 47, 58, 0, 0, 0, 0});
  CHECK(e.terms == std::vector<int32_t>{2, 2, 2, 2, 3, 3, 3, 3, 0, 0, 0, 0});
}

TEST_CASE("SpMM NM 2:4 L=2 with fractional alpha", "[reference][spmm][nm]") {
  // 4 x 8, kc = 4. Group 0 keeps window positions {0,2},{1,3} -> columns 0,2,5,7;
  // group 1 keeps {1,3},{0,1} -> columns 1,3,4,5. Row 1 stores only zeros.
  const HostSparse a = nm(4, 8, 2, 4, 2, SPX_R_32F, {0, 2, 1, 3, 1, 3, 0, 1},
                          {1, 2, 3, 4, 0, 0, 0, 0, -1, 2, 1, -2, 3, 0, 1, 1});
  // B(k, :) = [k + 1, k % 3 - 1]
  const HostDense b = dense(8, 2, SPX_R_32F, {1, -1, 2, 0, 3, 1, 4, -1, 5, 0, 6, 1, 7, -1, 8, 0});
  const HostDense c = dense(4, 2, SPX_R_32F, std::vector<double>(8, 1.0));
  // A * B: row 0 = B0 + 2 B2 + 3 B5 + 4 B7 = [57, 4]; row 1 = 0;
  // row 2 = -B1 + 2 B3 + B4 - 2 B5 = [-1, -4]; row 3 = 3 B1 + 0 B3 + B4 + B5 = [17, 1].
  // 0.5 * A * B + 2 * C:
  const Expected e = spx::ref::spmm(a, b, c, Scalars{0.5, 2.0});
  require_values(e, {30.5, 4, 2, 2, 1.5, 0, 10.5, 2.5});
  CHECK(e.terms == std::vector<int32_t>{4, 4, 4, 4, 4, 4, 4, 4});
}

TEST_CASE("SpMM ELL with padding and an all-padding row, column-major C",
          "[reference][spmm][ell]") {
  // 3 x 4, width 3, column-major slots. Row 0: (0, 2), (3, 1); row 1: padding only;
  // row 2: (1, 1), (2, -1), (3, 2). Padded values hold 9, which must be ignored.
  const HostSparse a =
      ell(3, 4, 3, SPX_R_32F, {0, -1, 1, 3, -1, 2, -1, -1, 3}, {2, 9, 1, 1, 9, -1, 9, 9, 2});
  const HostDense b = dense(4, 2, SPX_R_32F, kB4x2);
  const HostDense c = dense(3, 2, SPX_R_32F, {1, 2, 3, 4, 5, 6}, SPX_ORDER_COL);
  // A * B = [[2+7, 4+8], [0, 0], [3-5+14, 4-6+16]] = [[9,12],[0,0],[12,14]]; plus C.
  const Expected e = spx::ref::spmm(a, b, c, Scalars{1.0, 1.0});
  require_values(e, {10, 14, 3, 4, 17, 20});
  CHECK(e.terms == std::vector<int32_t>{2, 2, 0, 0, 3, 3});
}

TEST_CASE("SpMM over every data-type class", "[reference][spmm][types]") {
  SECTION("16F and 16BF inputs use the rounded values") {
    // [0.1 3] * [0.1; 1]: 0.1 is not representable; the product uses the stored value.
    for (spxDataType_t t : {SPX_R_16F, SPX_R_16BF}) {
      const double tenth = t == SPX_R_16F ? 0.0999755859375 : 0.10009765625;
      const HostSparse a = csr(1, 2, t, {0, 2}, {0, 1}, {0.1, 3});
      const HostDense b = dense(2, 1, t, {0.1, 1});
      const HostDense c16 = dense(1, 1, t, {0});
      require_values(spx::ref::spmm(a, b, c16, Scalars{}), {tenth * tenth + 3.0});
      const HostDense c32 = dense(1, 1, SPX_R_32F, {0.5});
      require_values(spx::ref::spmm(a, b, c32, Scalars{1.0, 2.0}), {tenth * tenth + 4.0});
    }
  }
  // A = [[-1 . 2 .],[. . . .],[. -3 . 4],[5 . . -6]] (CSR pattern above) and
  // B = [[1,-2],[3,4],[-5,6],[7,-8]]: A * B = [[-11,14],[0,0],[19,-44],[-37,38]];
  // 3 * A * B - 2 * C with C = [[1,2],[3,4],[5,6],[7,8]]:
  const std::vector<double> a_signed = {-1, 2, -3, 4, 5, -6};
  const std::vector<double> b_signed = {1, -2, 3, 4, -5, 6, 7, -8};
  const std::vector<double> want_signed = {-35, 38, -6, -8, 47, -144, -125, 98};
  SECTION("8I x 8I -> 32I, integer alpha and beta") {
    const Expected e = spx::ref::spmm(csr_4x4(SPX_R_8I, a_signed), dense(4, 2, SPX_R_8I, b_signed),
                                      dense(4, 2, SPX_R_32I, kB4x2), Scalars{3, -2});
    CHECK(e.exact);
    require_values(e, want_signed);
  }
  SECTION("4I x 4I (packed) -> 32I") {
    const Expected e = spx::ref::spmm(csr_4x4(SPX_R_4I, a_signed), dense(4, 2, SPX_R_4I, b_signed),
                                      dense(4, 2, SPX_R_32I, kB4x2), Scalars{3, -2});
    require_values(e, want_signed);
  }
  SECTION("8U x 8U -> 32F") {
    // A = [[200 . 2 .],[],[. 3 . 4],[5 . . 255]]: rows [210,412],[0,0],[37,44],[1790,2050].
    const Expected e =
        spx::ref::spmm(csr_4x4(SPX_R_8U, {200, 2, 3, 4, 5, 255}), dense(4, 2, SPX_R_8U, kB4x2),
                       dense(4, 2, SPX_R_32F, std::vector<double>(8, 0)), Scalars{});
    CHECK_FALSE(e.exact);
    require_values(e, {210, 412, 0, 0, 37, 44, 1790, 2050});
  }
  SECTION("4U x 4U -> 16F") {
    // A = [[15 . 2 .],[],[. 3 . 4],[5 . . 15]]: rows [25,42],[0,0],[37,44],[110,130].
    const Expected e =
        spx::ref::spmm(csr_4x4(SPX_R_4U, {15, 2, 3, 4, 5, 15}), dense(4, 2, SPX_R_4U, kB4x2),
                       dense(4, 2, SPX_R_16F, std::vector<double>(8, 0)), Scalars{});
    require_values(e, {25, 42, 0, 0, 37, 44, 110, 130});
  }
  SECTION("16I x 8I (mixed) -> 32F with alpha as a scale") {
    // A = [[1000 . -2000 .],[],[. 300 . 4],[5 . . 6]] times B:
    // [[-9000,-10000],[0,0],[928,1232],[47,58]], halved.
    const Expected e = spx::ref::spmm(
        csr_4x4(SPX_R_16I, {1000, -2000, 300, 4, 5, 6}), dense(4, 2, SPX_R_8I, kB4x2),
        dense(4, 2, SPX_R_32F, std::vector<double>(8, 0)), Scalars{0.5, 0.0});
    require_values(e, {-4500, -5000, 0, 0, 464, 616, 23.5, 29});
  }
  SECTION("16I sums wrap in a 32I output but not in a 32F one") {
    // 3 * 30000 * 30000 = 2.7e9 > 2^31 - 1: int32 arithmetic gives 2.7e9 - 2^32.
    const HostSparse a = csr(1, 3, SPX_R_16I, {0, 3}, {0, 1, 2}, {30000, 30000, 30000});
    const HostDense b = dense(3, 1, SPX_R_16I, {30000, 30000, 30000});
    require_values(spx::ref::spmm(a, b, dense(1, 1, SPX_R_32I, {0}), Scalars{}), {-1594967296});
    require_values(spx::ref::spmm(a, b, dense(1, 1, SPX_R_32F, {0}), Scalars{}), {2.7e9});
  }
  SECTION("alpha * sum wraps in a 32I output") {
    // 2^20 * (127 * 127 * 2) = 33824571392 = 7 * 2^32 + 3759800320 -> int32 -534773760... plus
    // beta * c: -1 * 5 -> -534773765.
    const HostSparse a = csr(1, 2, SPX_R_8I, {0, 2}, {0, 1}, {127, 127});
    const HostDense b = dense(2, 1, SPX_R_8I, {127, 127});
    const Expected e = spx::ref::spmm(a, b, dense(1, 1, SPX_R_32I, {5}), Scalars{1048576.0, -1.0});
    require_values(e, {-534773765});
  }
}

TEST_CASE("SDDMM in every format", "[reference][sddmm]") {
  // A(r, :) = [r + 1, 1, -1] and B(:, c) = [c, 2, 1], so (A * B)(r, c) = (r + 1) * c + 1.
  auto a_rows = [](int64_t rows, spxDataType_t t, spxOrder_t order, int64_t ld) {
    std::vector<double> v;
    for (int64_t r = 0; r < rows; ++r) v.insert(v.end(), {double(r + 1), 1.0, -1.0});
    return dense(rows, 3, t, v, order, ld);
  };
  auto b_cols = [](int64_t cols, spxDataType_t t) {
    std::vector<double> v(static_cast<size_t>(3 * cols));
    for (int64_t c = 0; c < cols; ++c) {
      v[c] = double(c);
      v[cols + c] = 2.0;
      v[2 * cols + c] = 1.0;
    }
    return dense(3, cols, t, v);
  };
  SECTION("CSR, column-major A with padding, alpha and beta") {
    // Entries (0,0) (0,2) (2,1) (2,3) (3,0) (3,3): A * B there = 1, 3, 4, 10, 1, 13.
    const HostSparse c =
        csr(4, 4, SPX_R_32F, {0, 2, 2, 4, 6}, {0, 2, 1, 3, 0, 3}, {1, 2, 3, 4, 5, 6});
    const Expected e = spx::ref::sddmm(a_rows(4, SPX_R_32F, SPX_ORDER_COL, 5), b_cols(4, SPX_R_32F),
                                       c, Scalars{2.0, 1.0});
    require_values(e, {3, 8, 11, 24, 7, 32});
    CHECK(e.terms == std::vector<int32_t>(6, 3));
  }
  SECTION("BCRS V=2") {
    // Slots: (0,0) (1,0) (0,2) (1,2) | (2,3) (3,3) (2,0) (3,0) (2,1) (3,1); rows 4-5 empty.
    const HostSparse c =
        bcrs(6, 4, 2, SPX_R_32F, {0, 2, 5, 5}, {0, 2, 3, 0, 1}, std::vector<double>(10, 0.0));
    const Expected e =
        spx::ref::sddmm(a_rows(6, SPX_R_32F, SPX_ORDER_ROW, 0), b_cols(4, SPX_R_32F), c, Scalars{});
    require_values(e, {1, 1, 3, 5, 10, 13, 1, 1, 4, 5});
  }
  SECTION("NM 2:4 L=2 in 16F") {
    // Rows 0-1 keep columns 0,2,5,7; rows 2-3 keep 1,3,4,5.
    const HostSparse c =
        nm(4, 8, 2, 4, 2, SPX_R_16F, {0, 2, 1, 3, 1, 3, 0, 1}, std::vector<double>(16, 0.0));
    const Expected e =
        spx::ref::sddmm(a_rows(4, SPX_R_16F, SPX_ORDER_ROW, 0), b_cols(8, SPX_R_16F), c, Scalars{});
    require_values(e, {1, 3, 6, 8, 1, 5, 11, 15, 4, 10, 13, 16, 5, 13, 17, 21});
  }
  SECTION("ELL with padding: padded slots stay unchecked") {
    const HostSparse c =
        ell(3, 4, 3, SPX_R_32F, {0, -1, 1, 3, -1, 2, -1, -1, 3}, std::vector<double>(9, 0.0));
    const Expected e =
        spx::ref::sddmm(a_rows(3, SPX_R_32F, SPX_ORDER_ROW, 0), b_cols(4, SPX_R_32F), c, Scalars{});
    REQUIRE(e.value.size() == 9);
    CHECK(e.checked == std::vector<uint8_t>{1, 0, 1, 1, 0, 1, 0, 0, 1});
    const std::vector<double> want = {1, 0, 4, 4, 0, 7, 0, 0, 10};
    for (size_t i = 0; i < want.size(); ++i) {
      if (e.checked[i]) CHECK(e.value[i] == want[i]);
    }
  }
  SECTION("8I inputs into a 32I output wrap like int32") {
    const HostSparse c = csr(1, 1, SPX_R_32I, {0, 1}, {0}, {5});
    const Expected e =
        spx::ref::sddmm(dense(1, 2, SPX_R_8I, {127, 127}), dense(2, 1, SPX_R_8I, {127, 127}), c,
                        Scalars{1048576.0, -1.0});
    CHECK(e.exact);
    require_values(e, {-534773765});
  }
  SECTION("4U inputs into a 16F output") {
    const HostSparse c = csr(2, 2, SPX_R_16F, {0, 1, 1}, {1}, {0.5});
    // Row 0 of A = [15, 2], column 1 of B = [3, 7]: 45 + 14 = 59; plus 2 * 0.5.
    const Expected e = spx::ref::sddmm(dense(2, 2, SPX_R_4U, {15, 2, 0, 0}),
                                       dense(2, 2, SPX_R_4U, {0, 3, 0, 7}), c, Scalars{1, 2});
    require_values(e, {60});
  }
}

TEST_CASE("tolerance follows the documented bound", "[reference]") {
  Expected e;
  e.value = {5.0, -5.0};
  e.magnitude = {10.0, 10.0};
  e.terms = {2, 2};
  e.checked = {1, 1};
  const double u32 = std::ldexp(1.0, -24);
  CHECK(spx::ref::tolerance(e, 0, SPX_R_32F) == 4 * u32 * 10 + u32 * 5);
  CHECK(spx::ref::tolerance(e, 1, SPX_R_16F) == 4 * u32 * 10 + std::ldexp(1.0, -11) * 5);
  CHECK(spx::ref::tolerance(e, 0, SPX_R_16BF) == 4 * u32 * 10 + std::ldexp(1.0, -8) * 5);
  e.exact = true;
  CHECK(spx::ref::tolerance(e, 0, SPX_R_32I) == 0.0);
}

TEST_CASE("the reference rejects inconsistent inputs", "[reference]") {
  const HostSparse a = csr_4x4(SPX_R_32F, {1, 2, 3, 4, 5, 6});
  const HostDense b = dense(3, 2, SPX_R_32F, {1, 2, 3, 4, 5, 6});  // wrong k
  const HostDense c = dense(4, 2, SPX_R_32F, std::vector<double>(8, 0));
  CHECK_THROWS(spx::ref::spmm(a, b, c, Scalars{}));
  HostSparse bad = a;
  bad.idx[3] = 4;  // column out of range
  CHECK_THROWS(spx::ref::entries(bad));
}
