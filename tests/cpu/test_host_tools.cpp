// The exported spxHost* C functions, through libspx.so: a working call of each, then a walk over
// every argument that can be wrong, asserting the exact status and that a message was set.
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "spx/spx.h"

namespace {

using I32 = std::vector<int32_t>;
using F32 = std::vector<float>;

// The call fails with `status` and leaves a non-empty message naming the problem.
#define CHECK_FAILS(call, status)                            \
  do {                                                       \
    const spxStatus_t got_ = (call);                         \
    INFO(#call << " -> " << spxGetLastErrorMessage());       \
    CHECK(got_ == (status));                                 \
    CHECK(std::string(spxGetLastErrorMessage()).size() > 0); \
  } while (0)

// The call succeeds.
#define CHECK_OK(call)                                    \
  do {                                                    \
    const spxStatus_t got_ = (call);                      \
    INFO(#call << " -> " << spxGetLastErrorMessage());    \
    REQUIRE(got_ == SPX_STATUS_SUCCESS);                  \
  } while (0)

std::string last_message() {
  return spxGetLastErrorMessage();
}

const spxStatus_t kInvalid = SPX_STATUS_INVALID_VALUE;

// 4 x 4, row-major:
//   [1 0 2 0]
//   [0 0 0 0]
//   [0 3 0 4]
//   [5 0 0 6]
const F32 kDense = {1, 0, 2, 0, 0, 0, 0, 0, 0, 3, 0, 4, 5, 0, 0, 6};

}  // namespace

TEST_CASE("spxHostReadSmtx", "[host_api]") {
  const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("spx_test_host_" + std::to_string(stamp));
  std::filesystem::create_directories(dir);
  const std::string good = (dir / "good.smtx").string();
  const std::string bad = (dir / "bad.smtx").string();
  std::ofstream(good) << "2, 4, 3\n0 2 3\n3 0 1\n";
  std::ofstream(bad) << "2, 4, 3\n0 2 3\n3 0 9\n";

  int64_t rows = 0, cols = 0, nnz = 0;
  int32_t* row_ptr = nullptr;
  int32_t* col_ind = nullptr;
  CHECK_OK(spxHostReadSmtx(good.c_str(), &rows, &cols, &nnz, &row_ptr, &col_ind));
  CHECK(rows == 2);
  CHECK(cols == 4);
  CHECK(nnz == 3);
  CHECK(I32(row_ptr, row_ptr + 3) == I32{0, 2, 3});
  CHECK(I32(col_ind, col_ind + 3) == I32{3, 0, 1});
  spxHostFree(row_ptr);
  spxHostFree(col_ind);

  int32_t* untouched = reinterpret_cast<int32_t*>(0x1);
  CHECK_FAILS(spxHostReadSmtx(nullptr, &rows, &cols, &nnz, &row_ptr, &col_ind), kInvalid);
  CHECK_FAILS(spxHostReadSmtx(good.c_str(), nullptr, &cols, &nnz, &row_ptr, &col_ind), kInvalid);
  CHECK_FAILS(spxHostReadSmtx(good.c_str(), &rows, nullptr, &nnz, &row_ptr, &col_ind), kInvalid);
  CHECK_FAILS(spxHostReadSmtx(good.c_str(), &rows, &cols, nullptr, &row_ptr, &col_ind), kInvalid);
  CHECK_FAILS(spxHostReadSmtx(good.c_str(), &rows, &cols, &nnz, nullptr, &col_ind), kInvalid);
  CHECK_FAILS(spxHostReadSmtx(good.c_str(), &rows, &cols, &nnz, &row_ptr, nullptr), kInvalid);
  CHECK_FAILS(
      spxHostReadSmtx((dir / "missing.smtx").c_str(), &rows, &cols, &nnz, &untouched, &untouched),
      SPX_STATUS_IO_ERROR);
  CHECK_FAILS(spxHostReadSmtx(bad.c_str(), &rows, &cols, &nnz, &untouched, &untouched),
              SPX_STATUS_IO_ERROR);
  CHECK(last_message().find(":3:") != std::string::npos);  // says the line
  CHECK(untouched == reinterpret_cast<int32_t*>(0x1));     // outputs left alone on failure
  std::filesystem::remove_all(dir);
}

TEST_CASE("spxHostDilateCsr", "[host_api]") {
  const I32 ptr = {0, 2, 3}, idx = {3, 0, 1};
  int32_t* out_ptr = nullptr;
  int32_t* out_idx = nullptr;
  CHECK_OK(spxHostDilateCsr(2, 4, ptr.data(), idx.data(), 2, &out_ptr, &out_idx));
  CHECK(I32(out_ptr, out_ptr + 5) == I32{0, 2, 4, 5, 6});
  CHECK(I32(out_idx, out_idx + 6) == I32{3, 0, 3, 0, 1, 1});
  spxHostFree(out_ptr);
  spxHostFree(out_idx);
  // Zero rows: valid, non-NULL outputs.
  const I32 zero = {0};
  CHECK_OK(spxHostDilateCsr(0, 4, zero.data(), nullptr, 4, &out_ptr, &out_idx));
  CHECK(out_ptr != nullptr);
  CHECK(out_ptr[0] == 0);
  CHECK(out_idx != nullptr);
  spxHostFree(out_ptr);
  spxHostFree(out_idx);

  const I32 decreasing = {0, 2, 1};
  CHECK_FAILS(spxHostDilateCsr(2, 4, ptr.data(), idx.data(), 2, nullptr, &out_idx), kInvalid);
  CHECK_FAILS(spxHostDilateCsr(2, 4, ptr.data(), idx.data(), 2, &out_ptr, nullptr), kInvalid);
  CHECK_FAILS(spxHostDilateCsr(-1, 4, ptr.data(), idx.data(), 2, &out_ptr, &out_idx), kInvalid);
  CHECK_FAILS(spxHostDilateCsr(2, 4, ptr.data(), idx.data(), 0, &out_ptr, &out_idx), kInvalid);
  CHECK_FAILS(spxHostDilateCsr(2, 4, nullptr, idx.data(), 2, &out_ptr, &out_idx), kInvalid);
  CHECK_FAILS(spxHostDilateCsr(2, 4, ptr.data(), nullptr, 2, &out_ptr, &out_idx), kInvalid);
  CHECK_FAILS(spxHostDilateCsr(2, 4, decreasing.data(), idx.data(), 2, &out_ptr, &out_idx), kInvalid);
  CHECK(last_message() == "row_ptr[2] = 1 is smaller than row_ptr[1] = 2");
  CHECK_FAILS(spxHostDilateCsr(2, 3, ptr.data(), idx.data(), 2, &out_ptr, &out_idx), kInvalid);
  CHECK(last_message().find("col_ind[0] = 3 is outside") != std::string::npos);
  CHECK_FAILS(spxHostDilateCsr(2, -1, ptr.data(), idx.data(), 2, &out_ptr, &out_idx), kInvalid);
}

TEST_CASE("spxHostDenseToCsr", "[host_api]") {
  int64_t nnz = 0;
  int32_t* ptr = nullptr;
  int32_t* idx = nullptr;
  float* val = nullptr;
  CHECK_OK(spxHostDenseToCsr(4, 4, kDense.data(), 4, SPX_ORDER_ROW, &nnz, &ptr, &idx, &val));
  CHECK(nnz == 6);
  CHECK(I32(ptr, ptr + 5) == I32{0, 2, 2, 4, 6});
  CHECK(I32(idx, idx + 6) == I32{0, 2, 1, 3, 0, 3});
  CHECK(F32(val, val + 6) == F32{1, 2, 3, 4, 5, 6});
  spxHostFree(ptr);
  spxHostFree(idx);
  spxHostFree(val);
  // Read as column-major, the same array is the transpose.
  CHECK_OK(spxHostDenseToCsr(4, 4, kDense.data(), 4, SPX_ORDER_COL, &nnz, &ptr, &idx, &val));
  CHECK(I32(ptr, ptr + 5) == I32{0, 2, 3, 4, 6});
  CHECK(I32(idx, idx + 6) == I32{0, 3, 2, 0, 2, 3});
  spxHostFree(ptr);
  spxHostFree(idx);
  spxHostFree(val);

  const float* d = kDense.data();
  CHECK_FAILS(spxHostDenseToCsr(4, 4, d, 4, SPX_ORDER_ROW, nullptr, &ptr, &idx, &val), kInvalid);
  CHECK_FAILS(spxHostDenseToCsr(4, 4, d, 4, SPX_ORDER_ROW, &nnz, nullptr, &idx, &val), kInvalid);
  CHECK_FAILS(spxHostDenseToCsr(4, 4, d, 4, SPX_ORDER_ROW, &nnz, &ptr, nullptr, &val), kInvalid);
  CHECK_FAILS(spxHostDenseToCsr(4, 4, d, 4, SPX_ORDER_ROW, &nnz, &ptr, &idx, nullptr), kInvalid);
  CHECK_FAILS(spxHostDenseToCsr(-1, 4, d, 4, SPX_ORDER_ROW, &nnz, &ptr, &idx, &val), kInvalid);
  CHECK_FAILS(spxHostDenseToCsr(4, -4, d, 4, SPX_ORDER_ROW, &nnz, &ptr, &idx, &val), kInvalid);
  CHECK_FAILS(spxHostDenseToCsr(4, 4, d, 4, static_cast<spxOrder_t>(2), &nnz, &ptr, &idx, &val),
              kInvalid);
  CHECK_FAILS(spxHostDenseToCsr(4, 5, d, 4, SPX_ORDER_ROW, &nnz, &ptr, &idx, &val), kInvalid);
  CHECK(last_message() == "ld (4) must be >= 5 for a 4 x 5 row-major matrix");
  CHECK_FAILS(spxHostDenseToCsr(5, 4, d, 4, SPX_ORDER_COL, &nnz, &ptr, &idx, &val), kInvalid);
  CHECK_FAILS(spxHostDenseToCsr(4, 4, nullptr, 4, SPX_ORDER_ROW, &nnz, &ptr, &idx, &val), kInvalid);
  // An empty matrix may come without data.
  CHECK_OK(spxHostDenseToCsr(3, 0, nullptr, 1, SPX_ORDER_ROW, &nnz, &ptr, &idx, &val));
  CHECK(nnz == 0);
  CHECK(I32(ptr, ptr + 4) == I32{0, 0, 0, 0});
  spxHostFree(ptr);
  spxHostFree(idx);
  spxHostFree(val);
}

TEST_CASE("spxHostDenseToBcrs", "[host_api]") {
  int64_t nv = 0;
  int32_t* ptr = nullptr;
  int32_t* col = nullptr;
  float* val = nullptr;
  CHECK_OK(spxHostDenseToBcrs(4, 4, kDense.data(), 4, SPX_ORDER_ROW, 2, &nv, &ptr, &col, &val));
  CHECK(nv == 5);
  CHECK(I32(ptr, ptr + 3) == I32{0, 2, 5});
  CHECK(I32(col, col + 5) == I32{0, 2, 0, 1, 3});
  CHECK(F32(val, val + 10) == F32{1, 0, 2, 0, 0, 5, 3, 0, 4, 6});
  spxHostFree(ptr);
  spxHostFree(col);
  spxHostFree(val);

  const float* d = kDense.data();
  const spxOrder_t row = SPX_ORDER_ROW;
  CHECK_FAILS(spxHostDenseToBcrs(4, 4, d, 4, row, 2, nullptr, &ptr, &col, &val), kInvalid);
  CHECK_FAILS(spxHostDenseToBcrs(4, 4, d, 4, row, 2, &nv, nullptr, &col, &val), kInvalid);
  CHECK_FAILS(spxHostDenseToBcrs(4, 4, d, 4, row, 2, &nv, &ptr, nullptr, &val), kInvalid);
  CHECK_FAILS(spxHostDenseToBcrs(4, 4, d, 4, row, 2, &nv, &ptr, &col, nullptr), kInvalid);
  CHECK_FAILS(spxHostDenseToBcrs(-4, 4, d, 4, row, 2, &nv, &ptr, &col, &val), kInvalid);
  CHECK_FAILS(spxHostDenseToBcrs(4, 4, d, 3, row, 2, &nv, &ptr, &col, &val), kInvalid);
  CHECK_FAILS(spxHostDenseToBcrs(4, 4, nullptr, 4, row, 2, &nv, &ptr, &col, &val), kInvalid);
  CHECK_FAILS(spxHostDenseToBcrs(4, 4, d, 4, row, 0, &nv, &ptr, &col, &val), kInvalid);
  CHECK_FAILS(spxHostDenseToBcrs(4, 4, d, 4, row, 3, &nv, &ptr, &col, &val), kInvalid);
  CHECK(last_message() == "rows (4) must be a multiple of vec_len (3)");
}

TEST_CASE("spxHostPruneNM", "[host_api]") {
  // 1:2 with L = 2 on the 4 x 4 matrix: group 0 norms^2 per window [1, 0 | 4, 0] -> columns 0, 2;
  // group 1: [25, 9 | 0, 52] -> columns 0, 3.
  F32 values(8, -1.0f);
  I32 indices(4, -1);
  CHECK_OK(spxHostPruneNM(4, 4, kDense.data(), 4, SPX_ORDER_ROW, 1, 2, 2, values.data(),
                          indices.data()));
  CHECK(indices == I32{0, 0, 0, 1});
  CHECK(values == F32{1, 2, 0, 0, 0, 4, 5, 6});

  const float* d = kDense.data();
  const spxOrder_t row = SPX_ORDER_ROW;
  float* v = values.data();
  int32_t* ix = indices.data();
  CHECK_FAILS(spxHostPruneNM(-4, 4, d, 4, row, 1, 2, 2, v, ix), kInvalid);
  CHECK_FAILS(spxHostPruneNM(4, 4, d, 2, row, 1, 2, 2, v, ix), kInvalid);
  CHECK_FAILS(spxHostPruneNM(4, 4, nullptr, 4, row, 1, 2, 2, v, ix), kInvalid);
  CHECK_FAILS(spxHostPruneNM(4, 4, d, 4, row, 0, 2, 2, v, ix), kInvalid);
  CHECK_FAILS(spxHostPruneNM(4, 4, d, 4, row, 1, 0, 2, v, ix), kInvalid);
  CHECK_FAILS(spxHostPruneNM(4, 4, d, 4, row, 1, 2, 0, v, ix), kInvalid);
  CHECK_FAILS(spxHostPruneNM(4, 4, d, 4, row, 5, 4, 2, v, ix), kInvalid);
  CHECK(last_message() == "N (5) must be <= M (4)");
  CHECK_FAILS(spxHostPruneNM(4, 4, d, 4, row, 1, 3, 2, v, ix), kInvalid);
  CHECK(last_message() == "cols (4) must be a multiple of M (3)");
  CHECK_FAILS(spxHostPruneNM(4, 4, d, 4, row, 1, 2, 3, v, ix), kInvalid);
  CHECK(last_message() == "rows (4) must be a multiple of L (3)");
  CHECK_FAILS(spxHostPruneNM(4, 4, d, 4, row, 1, 2, 2, nullptr, ix), kInvalid);
  CHECK_FAILS(spxHostPruneNM(4, 4, d, 4, row, 1, 2, 2, v, nullptr), kInvalid);
}

TEST_CASE("spxHostPruneUniform", "[host_api]") {
  // Every row keeps its 2 largest entries: rows sorted by magnitude, then by column.
  I32 col(8, -7);
  F32 val(8, -7.0f);
  CHECK_OK(spxHostPruneUniform(4, 4, kDense.data(), 4, SPX_ORDER_ROW, 2, col.data(), val.data()));
  CHECK(col == I32{0, 0, 1, 0, 2, 1, 3, 3});
  CHECK(val == F32{1, 0, 3, 5, 2, 0, 4, 6});

  const float* d = kDense.data();
  const spxOrder_t row = SPX_ORDER_ROW;
  CHECK_FAILS(spxHostPruneUniform(4, -1, d, 4, row, 2, col.data(), val.data()), kInvalid);
  CHECK_FAILS(spxHostPruneUniform(4, 4, d, 1, SPX_ORDER_COL, 2, col.data(), val.data()), kInvalid);
  CHECK_FAILS(spxHostPruneUniform(4, 4, nullptr, 4, row, 2, col.data(), val.data()), kInvalid);
  CHECK_FAILS(spxHostPruneUniform(4, 4, d, 4, row, 0, col.data(), val.data()), kInvalid);
  CHECK_FAILS(spxHostPruneUniform(4, 4, d, 4, row, 5, col.data(), val.data()), kInvalid);
  CHECK(last_message() == "ell_width (5) must be <= cols (4)");
  CHECK_FAILS(spxHostPruneUniform(4, 4, d, 4, row, 2, nullptr, val.data()), kInvalid);
  CHECK_FAILS(spxHostPruneUniform(4, 4, d, 4, row, 2, col.data(), nullptr), kInvalid);
}

TEST_CASE("spxHostCsrToEll", "[host_api]") {
  const I32 ptr = {0, 2, 2, 4, 6}, idx = {2, 0, 1, 3, 0, 3};
  const F32 val = {2, 1, 3, 4, 5, 6};
  int64_t width = 0;
  int32_t* ell_col = nullptr;
  float* ell_val = nullptr;
  CHECK_OK(spxHostCsrToEll(4, 4, ptr.data(), idx.data(), val.data(), &width, &ell_col, &ell_val));
  CHECK(width == 2);
  CHECK(I32(ell_col, ell_col + 8) == I32{0, -1, 1, 0, 2, -1, 3, 3});
  CHECK(F32(ell_val, ell_val + 8) == F32{1, 0, 3, 5, 2, 0, 4, 6});
  spxHostFree(ell_col);
  spxHostFree(ell_val);

  const I32 decreasing = {0, 2, 1, 4, 6}, negative = {2, 0, 1, -3, 0, 3};
  CHECK_FAILS(spxHostCsrToEll(4, 4, ptr.data(), idx.data(), val.data(), nullptr, &ell_col, &ell_val),
              kInvalid);
  CHECK_FAILS(spxHostCsrToEll(4, 4, ptr.data(), idx.data(), val.data(), &width, nullptr, &ell_val),
              kInvalid);
  CHECK_FAILS(spxHostCsrToEll(4, 4, ptr.data(), idx.data(), val.data(), &width, &ell_col, nullptr),
              kInvalid);
  CHECK_FAILS(spxHostCsrToEll(-1, 4, ptr.data(), idx.data(), val.data(), &width, &ell_col, &ell_val),
              kInvalid);
  CHECK_FAILS(spxHostCsrToEll(4, 3, ptr.data(), idx.data(), val.data(), &width, &ell_col, &ell_val),
              kInvalid);
  CHECK(last_message().find("is outside [0, 3)") != std::string::npos);
  CHECK_FAILS(spxHostCsrToEll(4, -1, ptr.data(), idx.data(), val.data(), &width, &ell_col, &ell_val),
              kInvalid);
  CHECK_FAILS(spxHostCsrToEll(4, 4, nullptr, idx.data(), val.data(), &width, &ell_col, &ell_val),
              kInvalid);
  CHECK_FAILS(spxHostCsrToEll(4, 4, ptr.data(), nullptr, val.data(), &width, &ell_col, &ell_val),
              kInvalid);
  CHECK_FAILS(spxHostCsrToEll(4, 4, ptr.data(), idx.data(), nullptr, &width, &ell_col, &ell_val),
              kInvalid);
  CHECK_FAILS(
      spxHostCsrToEll(4, 4, decreasing.data(), idx.data(), val.data(), &width, &ell_col, &ell_val),
      kInvalid);
  CHECK_FAILS(
      spxHostCsrToEll(4, 4, ptr.data(), negative.data(), val.data(), &width, &ell_col, &ell_val),
      kInvalid);
  CHECK(last_message().find("col_ind[3] = -3") != std::string::npos);
}

TEST_CASE("spxHostCheckNM and spxHostCheckUniform", "[host_api]") {
  int ok = -1;
  CHECK_OK(spxHostCheckNM(4, 4, kDense.data(), 4, SPX_ORDER_ROW, 2, 4, 1, &ok));
  CHECK(ok == 1);
  CHECK_OK(spxHostCheckNM(4, 4, kDense.data(), 4, SPX_ORDER_ROW, 1, 2, 2, &ok));
  CHECK(ok == 0);
  CHECK_OK(spxHostCheckUniform(4, 4, kDense.data(), 4, SPX_ORDER_ROW, 2, &ok));
  CHECK(ok == 1);
  CHECK_OK(spxHostCheckUniform(4, 4, kDense.data(), 4, SPX_ORDER_ROW, 1, &ok));
  CHECK(ok == 0);

  const float* d = kDense.data();
  const spxOrder_t row = SPX_ORDER_ROW;
  CHECK_FAILS(spxHostCheckNM(4, 4, d, 4, row, 2, 4, 1, nullptr), kInvalid);
  CHECK_FAILS(spxHostCheckNM(-4, 4, d, 4, row, 2, 4, 1, &ok), kInvalid);
  CHECK_FAILS(spxHostCheckNM(4, 4, d, 3, row, 2, 4, 1, &ok), kInvalid);
  CHECK_FAILS(spxHostCheckNM(4, 4, nullptr, 4, row, 2, 4, 1, &ok), kInvalid);
  CHECK_FAILS(spxHostCheckNM(4, 4, d, 4, row, 0, 4, 1, &ok), kInvalid);
  CHECK_FAILS(spxHostCheckNM(4, 4, d, 4, row, 2, 0, 1, &ok), kInvalid);
  CHECK_FAILS(spxHostCheckNM(4, 4, d, 4, row, 2, 4, 0, &ok), kInvalid);
  CHECK_FAILS(spxHostCheckNM(4, 4, d, 4, row, 5, 4, 1, &ok), kInvalid);
  CHECK(last_message() == "N (5) must be <= M (4)");
  CHECK_FAILS(spxHostCheckNM(4, 4, d, 4, row, 2, 3, 1, &ok), kInvalid);
  CHECK_FAILS(spxHostCheckNM(4, 4, d, 4, row, 2, 4, 3, &ok), kInvalid);

  CHECK_FAILS(spxHostCheckUniform(4, 4, d, 4, row, 2, nullptr), kInvalid);
  CHECK_FAILS(spxHostCheckUniform(4, -4, d, 4, row, 2, &ok), kInvalid);
  CHECK_FAILS(spxHostCheckUniform(4, 4, d, 0, row, 2, &ok), kInvalid);
  CHECK_FAILS(spxHostCheckUniform(4, 4, nullptr, 4, row, 2, &ok), kInvalid);
  CHECK_FAILS(spxHostCheckUniform(4, 4, d, 4, row, -1, &ok), kInvalid);
}

TEST_CASE("spxHostConvertValues and spxHostSizeOf", "[host_api]") {
  const F32 src = {1.0f, -3.0f, 7.5f};
  uint8_t packed[3] = {0xFF, 0xFF, 0xFF};
  CHECK_OK(spxHostConvertValues(3, src.data(), SPX_R_4I, packed));
  CHECK(packed[0] == 0xD1);  // 1 low, -3 high
  CHECK(packed[1] == 0x07);  // 7.5 -> 8 saturates to 7; the unused high nibble is 0
  CHECK(packed[2] == 0xFF);  // nothing beyond ceil(3 / 2) bytes
  uint16_t half[3] = {};
  CHECK_OK(spxHostConvertValues(3, src.data(), SPX_R_16F, half));
  CHECK(half[0] == 0x3C00);
  CHECK(half[1] == 0xC200);
  CHECK(half[2] == 0x4780);
  CHECK_OK(spxHostConvertValues(0, nullptr, SPX_R_8I, nullptr));

  CHECK_FAILS(spxHostConvertValues(-1, src.data(), SPX_R_8I, packed), kInvalid);
  CHECK_FAILS(spxHostConvertValues(3, src.data(), static_cast<spxDataType_t>(9), packed), kInvalid);
  CHECK(last_message() == "type (9) is not a valid spxDataType_t");
  CHECK_FAILS(spxHostConvertValues(3, nullptr, SPX_R_8I, packed), kInvalid);
  CHECK_FAILS(spxHostConvertValues(3, src.data(), SPX_R_8I, nullptr), kInvalid);

  CHECK(spxHostSizeOf(SPX_R_32F, 5) == 20);
  CHECK(spxHostSizeOf(SPX_R_16BF, 5) == 10);
  CHECK(spxHostSizeOf(SPX_R_8U, 5) == 5);
  CHECK(spxHostSizeOf(SPX_R_4I, 5) == 3);
  CHECK(spxHostSizeOf(SPX_R_4U, 0) == 0);
  CHECK(spxHostSizeOf(static_cast<spxDataType_t>(9), 5) == 0);
  CHECK(spxHostSizeOf(SPX_R_32F, -5) == 0);
  const std::string before = last_message();
  spxHostFree(nullptr);
  CHECK(last_message() == before);  // no status to report: the message is left alone
}
