// Planning layer (spx::plan): .smtx reading, dilation, dense -> sparse, pruning, pattern checks,
// CSR -> ELL, value conversion, and the fallback's CSR view with its validation errors.
#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "runtime/dtype.hpp"
#include "runtime/error.hpp"
#include "require_error.hpp"
#include "formats/check_pattern.hpp"
#include "formats/convert_values.hpp"
#include "formats/csr_to_ell.hpp"
#include "formats/dense_to_bcrs.hpp"
#include "formats/dense_to_csr.hpp"
#include "formats/dilate.hpp"
#include "formats/prune_nm.hpp"
#include "formats/prune_uniform.hpp"
#include "formats/smtx.hpp"
#include "formats/to_csr.hpp"
#include "reference/reference.hpp"

namespace fs = std::filesystem;
namespace plan = spx::plan;

namespace {

using I32 = std::vector<int32_t>;
using F32 = std::vector<float>;

plan::DenseView view(const F32& data, int64_t rows, int64_t cols, spxOrder_t order = SPX_ORDER_ROW,
                     int64_t ld = 0) {
  plan::DenseView v;
  v.rows = rows;
  v.cols = cols;
  v.data = data.data();
  v.order = order;
  v.ld = ld != 0 ? ld : (order == SPX_ORDER_ROW ? cols : rows);
  return v;
}

// A private scratch directory, removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
    path_ = fs::temp_directory_path() / ("spx_test_planning_" + std::to_string(stamp));
    fs::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  std::string write(const std::string& name, const std::string& text) const {
    const fs::path p = path_ / name;
    std::ofstream(p, std::ios::binary) << text;
    return p.string();
  }

 private:
  fs::path path_;
};

std::vector<float> random_nonzero(size_t count, uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(0.25f, 2.0f);
  std::bernoulli_distribution negative(0.5);
  std::vector<float> v(count);
  for (float& x : v) x = negative(rng) ? -dist(rng) : dist(rng);
  return v;
}

}  // namespace

TEST_CASE("read_smtx reads a DLMC file", "[planning][smtx]") {
  TempDir dir;
  const std::string path = dir.write("small.smtx", "3, 5, 4\n0 2 2 4\n4 0 1 3\n");
  const plan::CsrPattern a = plan::read_smtx(path);
  CHECK(a.rows == 3);
  CHECK(a.cols == 5);
  CHECK(a.row_ptr == I32{0, 2, 2, 4});
  CHECK(a.col_ind == I32{4, 0, 1, 3});  // unsorted columns are kept as they are
  const std::string bad = dir.write("bad.smtx", "3, 5, 4\n0 2 2 4\n4 0 5 3\n");
  require_error([&] { plan::read_smtx(bad); }, SPX_STATUS_IO_ERROR,
                bad + ":3: column index 2 (5) is outside [0, 5)");
}

TEST_CASE("parse_smtx tolerates separator variations", "[planning][smtx]") {
  const I32 ptr = {0, 1, 3}, idx = {2, 0, 1};
  for (const std::string text :
       {"2, 3, 3\n0 1 3\n2 0 1\n", "2 3 3\n0,1,3\n2,0,1", "2,3,3\r\n0, 1, 3\r\n2, 0, 1\r\n",
        "\n2\t3\t3\n 0 1 3 \n2 0\n1\n\n"}) {
    INFO(text);
    const plan::CsrPattern a = plan::parse_smtx(text, "text");
    CHECK(a.rows == 2);
    CHECK(a.cols == 3);
    CHECK(a.row_ptr == ptr);
    CHECK(a.col_ind == idx);
  }
  const plan::CsrPattern empty = plan::parse_smtx("2, 3, 0\n0 0 0\n", "text");
  CHECK(empty.row_ptr == I32{0, 0, 0});
  CHECK(empty.col_ind.empty());
}

TEST_CASE("malformed smtx files fail with IO_ERROR saying where", "[planning][smtx]") {
  struct Case {
    const char* text;
    const char* part;
  };
  const Case cases[] = {
      {"", "f.smtx:1: the file ends inside the header"},
      {"2, 3\n0 1 3\n", "f.smtx:1: the header must hold the three numbers"},
      {"2, 3, 3, 4\n0 1 3\n2 0 1\n", "f.smtx:1: the header must hold exactly three numbers"},
      {"-2, 3, 3\n", "f.smtx:1: rows = -2 is outside"},
      {"2, 3, 3\n0 1 x\n2 0 1\n", "f.smtx:2: 'x' is not an integer"},
      {"2, 3, 3\n0 1 3\n2 0 1.5\n", "f.smtx:3: '1.5' is not an integer"},
      {"2, 3, 3\n1 1 3\n2 0 1\n", "f.smtx:2: row offset 0 is 1, expected 0"},
      {"2, 3, 3\n0 2 1\n2 0 1\n", "f.smtx:2: row offset 2 (1) is smaller than row offset 1 (2)"},
      {"2, 3, 3\n0 1 2\n2 0 1\n", "the last row offset is 2, expected nnz (3)"},
      {"2, 3, 3\n0 1 4\n2 0 1\n", "row offset 2 (4) exceeds nnz (3)"},
      {"2, 3, 3\n0 1\n", "the file ends after 2 of the 3 row offsets"},
      {"2, 3, 3\n0 1 3\n2 0\n", "the file ends after 2 of the 3 column indices"},
      {"2, 3, 3\n0 1 3\n2 3 1\n", "f.smtx:3: column index 1 (3) is outside [0, 3)"},
      {"2, 3, 3\n0 1 3\n2 -1 1\n", "column index 1 (-1) is outside [0, 3)"},
      {"2, 3, 3\n0 1 3\n2 0 1\n7\n", "f.smtx:4: unexpected value 7 after the 3 column indices"},
      {"2, 3, 99999999999999999999\n", "is not an integer in range"},
      {"2000000000, 3, 5\n0 0\n", "the file ends after 2 of the 2000000001 row offsets"},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    require_error([&] { plan::parse_smtx(c.text, "f.smtx"); }, SPX_STATUS_IO_ERROR, c.part);
  }
  require_error([] { plan::read_smtx("/nonexistent/spx/file.smtx"); }, SPX_STATUS_IO_ERROR,
                "cannot open '/nonexistent/spx/file.smtx'");
}

TEST_CASE("dilate_csr repeats each row V times", "[planning][dilate]") {
  const I32 ptr = {0, 2, 2, 3}, idx = {1, 4, 0};
  const plan::CsrPattern d = plan::dilate_csr(3, 5, ptr.data(), idx.data(), 2);
  CHECK(d.rows == 6);
  CHECK(d.row_ptr == I32{0, 2, 4, 4, 4, 5, 6});
  CHECK(d.col_ind == I32{1, 4, 1, 4, 0, 0});
  const plan::CsrPattern same = plan::dilate_csr(3, 5, ptr.data(), idx.data(), 1);
  CHECK(same.row_ptr == ptr);
  const I32 bad = {0, 2, 1, 3};
  require_error([&] { plan::dilate_csr(3, 5, bad.data(), idx.data(), 2); },
                SPX_STATUS_INVALID_VALUE, "row_ptr[2] = 1 is smaller than row_ptr[1] = 2");
}

TEST_CASE("dense_to_csr keeps every nonzero in either order", "[planning][dense]") {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  // [1 0 2]
  // [0 0 0]
  // [0 -0 nan]
  const F32 row_major = {1, 0, 2, /*pad*/ 7, 0, 0, 0, 7, 0, -0.0f, nan, 7};
  const plan::CsrF32 a = plan::dense_to_csr(view(row_major, 3, 3, SPX_ORDER_ROW, 4));
  CHECK(a.row_ptr == I32{0, 2, 2, 3});
  CHECK(a.col_ind == I32{0, 2, 2});
  CHECK(a.values[0] == 1.0f);
  CHECK(a.values[1] == 2.0f);
  CHECK(std::isnan(a.values[2]));
  const F32 col_major = {1, 0, 0, 0, 0, 0, 2, 0, 5};  // the same without NaN: [1 0 2;0 0 0;0 0 5]
  const plan::CsrF32 b = plan::dense_to_csr(view(col_major, 3, 3, SPX_ORDER_COL));
  CHECK(b.row_ptr == I32{0, 2, 2, 3});
  CHECK(b.col_ind == I32{0, 2, 2});
  CHECK(b.values == F32{1, 2, 5});
}

TEST_CASE("dense_to_bcrs stores a vector when any of its values is nonzero", "[planning][dense]") {
  // [1 0 0 4]
  // [0 0 3 5]
  // [0 0 0 0]
  // [0 2 0 0]
  const F32 d = {1, 0, 0, 4, 0, 0, 3, 5, 0, 0, 0, 0, 0, 2, 0, 0};
  const plan::BcrsF32 b = plan::dense_to_bcrs(view(d, 4, 4), 2);
  CHECK(b.block_row_ptr == I32{0, 3, 4});
  CHECK(b.block_col == I32{0, 2, 3, 1});
  CHECK(b.values == F32{1, 0, 0, 3, 4, 5, 0, 2});
  require_error([&] { plan::dense_to_bcrs(view(d, 4, 4), 3); }, SPX_STATUS_INVALID_VALUE,
                "rows (4) must be a multiple of vec_len (3)");
}

TEST_CASE("prune_nm keeps the largest group norms per window", "[planning][nm]") {
  // 2:4 with L = 2 on a 4 x 8 matrix.
  const F32 d = {
      // group 0: window 0 norms^2 = [1+1, 9+0, 4+4, 0+16] = [2, 9, 8, 16] -> keep 1, 3
      //          window 1 norms^2 = [1, 1, 1, 1] (ties) -> keep the lower columns 0, 1
      1,
      3,
      2,
      0,
      1,
      0,
      0,
      0,  //
      1,
      0,
      2,
      4,
      0,
      1,
      1,
      1,  //
      // group 1: window 0: [0, 0, 25, 0] -> 2, then the tie 0 0 0 -> 0; keep 0, 2
      //          window 1: [4, 1, 9, 9] -> keep 2, 3
      0,
      0,
      5,
      0,
      2,
      1,
      -3,
      3,  //
      0,
      0,
      0,
      0,
      0,
      0,
      0,
      0,
  };
  const plan::NmF32 p = plan::prune_nm(view(d, 4, 8), 2, 4, 2);
  CHECK(p.kc() == 4);
  CHECK(p.indices == I32{1, 3, 0, 1, 0, 2, 2, 3});
  CHECK(p.values == F32{3, 0, 1, 0,   //
                        0, 4, 0, 1,   //
                        0, 5, -3, 3,  //
                        0, 0, 0, 0});
  // Column-major input with padding gives the same answer.
  F32 col(static_cast<size_t>(6 * 8), 99.0f);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 8; ++c) col[r + c * 6] = d[r * 8 + c];
  const plan::NmF32 q = plan::prune_nm(view(col, 4, 8, SPX_ORDER_COL, 6), 2, 4, 2);
  CHECK(q.indices == p.indices);
  CHECK(q.values == p.values);
  CHECK(plan::fits_nm(view(d, 4, 8), 4, 4, 2));
  CHECK_FALSE(plan::fits_nm(view(d, 4, 8), 2, 4, 2));
  require_error([&] { plan::prune_nm(view(d, 4, 8), 5, 4, 2); }, SPX_STATUS_INVALID_VALUE,
                "N (5) must be <= M (4)");
}

TEST_CASE("N:M pattern check", "[planning][nm]") {
  // Group of 2 rows, windows of 4: group 0 uses columns {0, 3} | {4}; group 1 uses {1, 2} | {}.
  const F32 d = {1, 0, 0, 0, 0, 0, 0, 0,  //
                 0, 0, 0, 2, 3, 0, 0, 0,  //
                 0, 4, 0, 0, 0, 0, 0, 0,  //
                 0, 0, 5, 0, 0, 0, 0, 0};
  CHECK(plan::fits_nm(view(d, 4, 8), 2, 4, 2));
  CHECK_FALSE(plan::fits_nm(view(d, 4, 8), 1, 4, 2));
  CHECK(plan::fits_nm(view(d, 4, 8), 1, 4, 1));  // per single row, one column per window
  CHECK_FALSE(plan::fits_nm(view(d, 4, 8), 1, 8, 4));
  CHECK(plan::fits_nm(view(d, 4, 8), 5, 8, 4));
  require_error([&] { plan::fits_nm(view(d, 4, 8), 1, 3, 2); }, SPX_STATUS_INVALID_VALUE,
                "does not tile");
}

TEST_CASE("random N:M pruning satisfies the pattern check", "[planning][nm]") {
  const F32 d = random_nonzero(16 * 32, 7);
  for (int64_t l : {1, 2, 4}) {
    const plan::NmF32 p = plan::prune_nm(view(d, 16, 32), 2, 8, l);
    // Scatter back to dense and check the pattern with the independent check.
    F32 back(d.size(), 0.0f);
    for (int64_t i = 0; i < 16; ++i) {
      for (int64_t q = 0; q < p.kc(); ++q) {
        const int64_t col = (q / 2) * 8 + p.indices[(i / l) * p.kc() + q];
        back[i * 32 + col] = p.values[i * p.kc() + q];
        CHECK(p.values[i * p.kc() + q] == d[i * 32 + col]);
      }
    }
    CHECK(plan::fits_nm(view(back, 16, 32), 2, 8, l));
    CHECK_FALSE(plan::fits_nm(view(d, 16, 32), 2, 8, l));
  }
}

TEST_CASE("prune_uniform keeps ell_width entries per row by column l2 aggregation",
          "[planning][uniform]") {
  // Rows sorted by magnitude: row 0 [4(c3), 3(c0), 2(c1), 1(c2)], row 1 [-5(c2), 1(c0), 1(c3),
  // 0(c1)] (tie 1/1 -> lower column first), row 2 [0 0 0 0] -> columns 0, 1, 2, 3.
  // Aggregated sorted columns: [16+25+0, 9+1+0, 4+1+0, 1+0+0] = [41, 10, 5, 1]: keep the first 2.
  const F32 d = {3, 2, 1,  4,  //
                 1, 0, -5, 1,  //
                 0, 0, 0,  0};
  const plan::EllF32 e = plan::prune_uniform(view(d, 3, 4), 2);
  CHECK(e.ell_width == 2);
  // Column-major slots: slot 0 of rows 0..2, then slot 1 of rows 0..2; columns increasing.
  CHECK(e.col_ind == I32{0, 0, 0, 3, 2, 1});
  CHECK(e.values == F32{3, 1, 0, 4, -5, 0});
  CHECK(plan::fits_uniform(view(d, 3, 4), 4));  // row 0 has 4 nonzeros
  CHECK_FALSE(plan::fits_uniform(view(d, 3, 4), 3));
  require_error([&] { plan::prune_uniform(view(d, 3, 4), 5); }, SPX_STATUS_INVALID_VALUE,
                "ell_width (5) must be in [1, cols (4)]");
}

TEST_CASE("random uniform pruning keeps each row's largest entries", "[planning][uniform]") {
  const F32 d = random_nonzero(12 * 20, 11);
  const plan::EllF32 e = plan::prune_uniform(view(d, 12, 20, SPX_ORDER_COL), 5);
  F32 back(d.size(), 0.0f);
  for (int64_t i = 0; i < 12; ++i) {
    float smallest_kept = 1e30f;
    for (int64_t j = 0; j < 5; ++j) {
      const int32_t c = e.col_ind[i + j * 12];
      if (j > 0) CHECK(c > e.col_ind[i + (j - 1) * 12]);
      CHECK(e.values[i + j * 12] == d[i + c * 12]);
      back[i + c * 12] = d[i + c * 12];
      smallest_kept = std::min(smallest_kept, std::fabs(d[i + c * 12]));
    }
    for (int64_t c = 0; c < 20; ++c) {
      if (back[i + c * 12] == 0.0f) CHECK(std::fabs(d[i + c * 12]) <= smallest_kept);
    }
  }
  CHECK(plan::fits_uniform(view(back, 12, 20, SPX_ORDER_COL), 5));
  CHECK_FALSE(plan::fits_uniform(view(back, 12, 20, SPX_ORDER_COL), 4));
}

TEST_CASE("csr_to_ell pads to the longest row and sorts columns", "[planning][ell]") {
  const I32 ptr = {0, 2, 2, 5}, idx = {3, 1, 2, 0, 4};
  const F32 val = {30, 10, 22, 20, 24};
  const plan::EllF32 e = plan::csr_to_ell(3, 5, ptr.data(), idx.data(), val.data());
  CHECK(e.ell_width == 3);
  CHECK(e.col_ind == I32{1, -1, 0, 3, -1, 2, -1, -1, 4});
  CHECK(e.values == F32{10, 0, 20, 30, 0, 22, 0, 0, 24});
  const I32 negative = {3, -1, 2, 0, 4};
  require_error([&] { plan::csr_to_ell(3, 5, ptr.data(), negative.data(), val.data()); },
                SPX_STATUS_INVALID_VALUE, "col_ind[1] = -1 is outside");
  const I32 zero_rows = {0};
  const plan::EllF32 none = plan::csr_to_ell(0, 5, zero_rows.data(), nullptr, nullptr);
  CHECK(none.ell_width == 0);
  CHECK(none.col_ind.empty());
}

TEST_CASE("convert_values writes every type", "[planning][convert]") {
  const F32 src = {1.5f, -2.5f, 0.1f, 100.0f, -9.0f};
  std::vector<uint8_t> out(8, 0xEE);
  plan::convert_values(5, src.data(), SPX_R_4I, out.data());
  CHECK(out[0] == 0xE2);  // 2 (1.5 -> 2) low, -2 (-2.5 -> -2) high
  CHECK(out[1] == 0x70);  // 0 low, 7 (saturated) high
  CHECK(out[2] == 0x08);  // -8 low, high nibble of the odd element zeroed
  CHECK(out[3] == 0xEE);  // nothing written beyond ceil(5 / 2) bytes
  std::vector<uint8_t> f16(10);  // 5 halves: 10 bytes
  plan::convert_values(5, src.data(), SPX_R_16F, f16.data());
  CHECK(spx::dtype::load_double(f16.data(), SPX_R_16F, 2) == 0.0999755859375);
  std::vector<uint8_t> u8(5);
  plan::convert_values(5, src.data(), SPX_R_8U, u8.data());
  CHECK(u8 == std::vector<uint8_t>{2, 0, 0, 100, 0});
  std::vector<uint8_t> f32(20);
  plan::convert_values(5, src.data(), SPX_R_32F, f32.data());
  CHECK(spx::dtype::load_double(f32.data(), SPX_R_32F, 3) == 100.0);
  require_error(
      [&] { plan::convert_values(1, src.data(), static_cast<spxDataType_t>(77), nullptr); },
      SPX_STATUS_INVALID_VALUE, "type (77) is not a valid spxDataType_t");
}

TEST_CASE("to_csr: CSR keeps order and slots", "[planning][to_csr]") {
  const I32 ptr = {0, 2, 2, 4}, idx = {3, 1, 1, 1};  // unsorted and duplicate columns
  const plan::CsrStructure s = plan::csr_from_csr(3, 4, 4, ptr.data(), idx.data());
  CHECK(s.row_ptr == ptr);
  CHECK(s.col_ind == idx);
  CHECK(s.slot == std::vector<int64_t>{0, 1, 2, 3});
}

TEST_CASE("to_csr: BCRS vectors become V rows", "[planning][to_csr]") {
  const I32 ptr = {0, 2, 2, 3}, col = {2, 0, 1};
  const plan::CsrStructure s = plan::csr_from_bcrs(6, 3, 2, 3, ptr.data(), col.data());
  CHECK(s.row_ptr == I32{0, 2, 4, 4, 4, 5, 6});
  CHECK(s.col_ind == I32{2, 0, 2, 0, 1, 1});
  CHECK(s.slot == std::vector<int64_t>{0, 2, 1, 3, 4, 5});
}

TEST_CASE("to_csr: NM windows map to columns", "[planning][to_csr]") {
  // 2:4, L = 2, 2 x 8: kc = 4; positions {1,3} and {0,2} -> columns 1, 3, 4, 6.
  const I32 idx = {1, 3, 0, 2};
  const plan::CsrStructure s = plan::csr_from_nm(2, 8, 2, 4, 2, idx.data());
  CHECK(s.row_ptr == I32{0, 4, 8});
  CHECK(s.col_ind == I32{1, 3, 4, 6, 1, 3, 4, 6});
  CHECK(s.slot == std::vector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7});
}

TEST_CASE("to_csr: ELL skips padding", "[planning][to_csr]") {
  const I32 col = {0, -1, 2, 3, -1, -1};  // 3 x 2 column-major
  const plan::CsrStructure s = plan::csr_from_ell(3, 4, 2, col.data());
  CHECK(s.row_ptr == I32{0, 2, 2, 3});
  CHECK(s.col_ind == I32{0, 3, 2});
  CHECK(s.slot == std::vector<int64_t>{0, 3, 2});
}

TEST_CASE("to_csr rejects bad structures with INVALID_VALUE", "[planning][to_csr]") {
  const auto invalid = SPX_STATUS_INVALID_VALUE;
  SECTION("CSR") {
    const I32 idx = {0, 1, 2, 3, 4, 5, 6, 7};
    const I32 decreasing = {0, 3, 7, 5, 8};
    require_error([&] { plan::csr_from_csr(4, 8, 8, decreasing.data(), idx.data()); }, invalid,
                  "row_ptr[3] = 5 is smaller than row_ptr[2] = 7");
    const I32 start = {1, 3, 5, 7, 8};
    require_error([&] { plan::csr_from_csr(4, 8, 8, start.data(), idx.data()); }, invalid,
                  "row_ptr[0] = 1 must be 0");
    const I32 ends = {0, 3, 5, 7, 7};
    require_error([&] { plan::csr_from_csr(4, 8, 8, ends.data(), idx.data()); }, invalid,
                  "row_ptr[4] = 7 must equal the entry count 8");
    const I32 ptr = {0, 3, 5, 7, 8};
    const I32 out_of_range = {0, 1, 2, 3, 4, 900, 6, 7};
    require_error([&] { plan::csr_from_csr(4, 512, 8, ptr.data(), out_of_range.data()); }, invalid,
                  "col_ind[5] = 900 is outside [0, 512)");
    const I32 negative = {0, 1, 2, 3, 4, 5, -1, 7};
    require_error([&] { plan::csr_from_csr(4, 8, 8, ptr.data(), negative.data()); }, invalid,
                  "col_ind[6] = -1 is outside [0, 8)");
  }
  SECTION("BCRS") {
    const I32 col = {0, 1, 2};
    const I32 decreasing = {0, 2, 1, 3};
    require_error([&] { plan::csr_from_bcrs(6, 4, 2, 3, decreasing.data(), col.data()); }, invalid,
                  "block_row_ptr[2] = 1 is smaller than block_row_ptr[1] = 2");
    const I32 ptr = {0, 2, 2, 3};
    const I32 bad_col = {0, 4, 2};
    require_error([&] { plan::csr_from_bcrs(6, 4, 2, 3, ptr.data(), bad_col.data()); }, invalid,
                  "block_col[1] = 4 is outside [0, 4)");
    require_error([&] { plan::csr_from_bcrs(5, 4, 2, 3, ptr.data(), col.data()); }, invalid,
                  "rows (5) must be a multiple of vec_len (2)");
  }
  SECTION("NM") {
    const I32 out_of_range = {1, 3, 0, 4};
    require_error([&] { plan::csr_from_nm(2, 8, 2, 4, 2, out_of_range.data()); }, invalid,
                  "indices[3] = 4 is outside [0, 4)");
    const I32 negative = {-1, 3, 0, 2};
    require_error([&] { plan::csr_from_nm(2, 8, 2, 4, 2, negative.data()); }, invalid,
                  "indices[0] = -1 is outside [0, 4)");
    const I32 not_increasing = {1, 3, 2, 2};
    require_error([&] { plan::csr_from_nm(2, 8, 2, 4, 2, not_increasing.data()); }, invalid,
                  "indices[3] = 2 is not greater than indices[2] = 2 in the same window");
    const I32 decreasing = {3, 1, 0, 2};
    require_error([&] { plan::csr_from_nm(2, 8, 2, 4, 2, decreasing.data()); }, invalid,
                  "indices[1] = 1 is not greater than indices[0] = 3");
    const I32 ok = {1, 3, 0, 2};
    require_error([&] { plan::csr_from_nm(2, 8, 5, 4, 2, ok.data()); }, invalid,
                  "N (5) must be <= M (4)");
    require_error([&] { plan::csr_from_nm(2, 6, 2, 4, 2, ok.data()); }, invalid,
                  "cols (6) must be a multiple of M (4)");
    require_error([&] { plan::csr_from_nm(3, 8, 2, 4, 2, ok.data()); }, invalid,
                  "rows (3) must be a multiple of L (2)");
  }
  SECTION("ELL") {
    const I32 below = {0, -2, 2, 3, -1, -1};
    require_error([&] { plan::csr_from_ell(3, 4, 2, below.data()); }, invalid,
                  "col_ind[1] = -2 is outside [-1, 4)");
    const I32 above = {0, -1, 2, 3, 4, -1};
    require_error([&] { plan::csr_from_ell(3, 4, 2, above.data()); }, invalid,
                  "col_ind[4] = 4 is outside [-1, 4)");
  }
}

TEST_CASE("every format built by planning gives the same products as dense math",
          "[planning][reference]") {
  // A random 8 x 16 matrix pruned to 2:4 (L = 2) is then expressed in all four formats; the
  // reference over each must equal a dense triple loop, for SpMM and for SDDMM masks.
  const int64_t m = 8, k = 16, n = 5;
  const F32 raw = random_nonzero(static_cast<size_t>(m * k), 21);
  const plan::NmF32 p = plan::prune_nm(view(raw, m, k), 2, 4, 2);
  F32 a(raw.size(), 0.0f);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t q = 0; q < p.kc(); ++q)
      a[i * k + (q / 2) * 4 + p.indices[(i / 2) * p.kc() + q]] = p.values[i * p.kc() + q];
  const F32 b = random_nonzero(static_cast<size_t>(k * n), 22);
  std::vector<double> want(static_cast<size_t>(m * n), 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t t = 0; t < k; ++t) want[i * n + j] += double(a[i * k + t]) * b[t * n + j];

  auto bytes = [](const F32& v) {
    std::vector<uint8_t> out(v.size() * 4);
    std::memcpy(out.data(), v.data(), out.size());
    return out;
  };
  std::vector<spx::ref::HostSparse> forms(4);
  const plan::CsrF32 csr = plan::dense_to_csr(view(a, m, k));
  forms[0].format = SPX_FORMAT_CSR;
  forms[0].ptr = csr.row_ptr;
  forms[0].idx = csr.col_ind;
  forms[0].values = bytes(csr.values);
  const plan::BcrsF32 bcrs = plan::dense_to_bcrs(view(a, m, k), 2);
  forms[1].format = SPX_FORMAT_BCRS;
  forms[1].vec_len = 2;
  forms[1].ptr = bcrs.block_row_ptr;
  forms[1].idx = bcrs.block_col;
  forms[1].values = bytes(bcrs.values);
  forms[2].format = SPX_FORMAT_NM;
  forms[2].n = 2;
  forms[2].m = 4;
  forms[2].l = 2;
  forms[2].idx = p.indices;
  forms[2].values = bytes(p.values);
  const plan::EllF32 ell =
      plan::csr_to_ell(m, k, csr.row_ptr.data(), csr.col_ind.data(), csr.values.data());
  forms[3].format = SPX_FORMAT_ELL;
  forms[3].ell_width = ell.ell_width;
  forms[3].idx = ell.col_ind;
  forms[3].values = bytes(ell.values);

  spx::ref::HostDense bd, cd, ad;
  bd.rows = k, bd.cols = n, bd.ld = n, bd.data = bytes(b);
  cd.rows = m, cd.cols = n, cd.ld = n, cd.data.assign(static_cast<size_t>(m * n * 4), 0);
  ad.rows = m, ad.cols = k, ad.ld = k, ad.data = bytes(a);
  for (spx::ref::HostSparse& s : forms) {
    INFO("format " << int(s.format));
    s.rows = m;
    s.cols = k;
    const spx::ref::Expected e = spx::ref::spmm(s, bd, cd, spx::ref::Scalars{});
    for (size_t i = 0; i < want.size(); ++i) CHECK(e.value[i] == Approx(want[i]).epsilon(1e-12));
    // The fallback's CSR view lists the same (row, col, slot) triplets as the reference.
    plan::CsrStructure view_csr;
    switch (s.format) {
      case SPX_FORMAT_CSR:
        view_csr = plan::csr_from_csr(m, k, s.ptr.back(), s.ptr.data(), s.idx.data());
        break;
      case SPX_FORMAT_BCRS:
        view_csr = plan::csr_from_bcrs(m, k, 2, static_cast<int64_t>(s.idx.size()), s.ptr.data(),
                                       s.idx.data());
        break;
      case SPX_FORMAT_NM:
        view_csr = plan::csr_from_nm(m, k, 2, 4, 2, s.idx.data());
        break;
      case SPX_FORMAT_ELL:
        view_csr = plan::csr_from_ell(m, k, s.ell_width, s.idx.data());
        break;
    }
    std::vector<std::tuple<int64_t, int64_t, int64_t>> from_ref, from_plan;
    for (const spx::ref::Entry& x : spx::ref::entries(s))
      from_ref.emplace_back(x.row, x.col, x.slot);
    for (int64_t r = 0; r < m; ++r)
      for (int32_t e2 = view_csr.row_ptr[r]; e2 < view_csr.row_ptr[r + 1]; ++e2)
        from_plan.emplace_back(r, view_csr.col_ind[e2], view_csr.slot[e2]);
    std::sort(from_ref.begin(), from_ref.end());
    std::sort(from_plan.begin(), from_plan.end());
    CHECK(from_ref == from_plan);
    // SDDMM with this matrix as the mask and A * I as the product: each stored slot must get
    // back its own value, wherever the format keeps it.
    const spx::ref::HostSparse& mask = s;
    const spx::ref::HostDense& left = ad;
    spx::ref::HostDense right;
    right.rows = k, right.cols = k, right.ld = k;
    F32 eye(static_cast<size_t>(k * k), 0.0f);
    for (int64_t t = 0; t < k; ++t) eye[t * k + t] = 1.0f;
    right.data = bytes(eye);
    const spx::ref::Expected sd = spx::ref::sddmm(left, right, mask, spx::ref::Scalars{});
    for (const spx::ref::Entry& x : spx::ref::entries(mask)) {
      CHECK(sd.value[x.slot] == spx::dtype::load_double(mask.values.data(), SPX_R_32F, x.slot));
    }
  }
}
