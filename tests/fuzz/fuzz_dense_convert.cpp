// Fuzz target: dense fp32 -> CSR and dense -> BCRS(V) (src/formats/dense_to_csr, dense_to_bcrs),
// over both storage orders, padded leading dimensions and special values (NaN, infinities, -0,
// denormals). The CSR must hold exactly the entries that compare unequal to 0, bit for bit, in
// increasing columns; the BCRS exactly the V x 1 vectors with such an entry, their V values
// contiguous; both re-validate through the library's own structure checks.
#include <cstdint>
#include <vector>

#include "formats/dense_to_bcrs.hpp"
#include "formats/dense_to_csr.hpp"
#include "formats/to_csr.hpp"
#include "fuzz_common.hpp"

using namespace spx_fuzz;

namespace {

void check_csr(const Dense& d, const spx::plan::CsrF32& c) {
  FUZZ_CHECK(c.rows == d.rows && c.cols == d.cols);
  FUZZ_CHECK(c.row_ptr.size() == static_cast<size_t>(d.rows) + 1);
  FUZZ_CHECK(c.values.size() == c.col_ind.size());
  spx::plan::csr_from_csr(c.rows, c.cols, static_cast<int64_t>(c.col_ind.size()), c.row_ptr.data(),
                          c.col_ind.data());
  for (int64_t r = 0; r < d.rows; ++r) {
    int32_t e = c.row_ptr[r];
    for (int64_t col = 0; col < d.cols; ++col) {
      const float v = d.at(r, col);
      if (!(v != 0.0f)) continue;  // +0 and -0 are dropped
      FUZZ_CHECK(e < c.row_ptr[r + 1]);
      FUZZ_CHECK(c.col_ind[e] == col && same_bits(c.values[e], v));
      ++e;
    }
    FUZZ_CHECK(e == c.row_ptr[r + 1]);
  }
}

void check_bcrs(const Dense& d, int64_t v, const spx::plan::BcrsF32& b) {
  FUZZ_CHECK(b.rows == d.rows && b.cols == d.cols && b.vec_len == v);
  FUZZ_CHECK(b.block_row_ptr.size() == static_cast<size_t>(d.rows / v) + 1);
  FUZZ_CHECK(b.values.size() == b.block_col.size() * static_cast<size_t>(v));
  spx::plan::csr_from_bcrs(b.rows, b.cols, v, static_cast<int64_t>(b.block_col.size()),
                           b.block_row_ptr.data(), b.block_col.data());
  for (int64_t br = 0; br < d.rows / v; ++br) {
    int32_t j = b.block_row_ptr[br];
    for (int64_t col = 0; col < d.cols; ++col) {
      bool any = false;
      for (int64_t r = 0; r < v; ++r) any = any || d.at(br * v + r, col) != 0.0f;
      if (!any) continue;
      FUZZ_CHECK(j < b.block_row_ptr[br + 1] && b.block_col[j] == col);
      for (int64_t r = 0; r < v; ++r)
        FUZZ_CHECK(same_bits(b.values[static_cast<size_t>(j * v + r)], d.at(br * v + r, col)));
      ++j;
    }
    FUZZ_CHECK(j == b.block_row_ptr[br + 1]);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  const bool to_bcrs = in.ConsumeBool();
  // V: the supported ones, and a few the function must refuse (the host API checks V >= 1 and
  // rows % V == 0 first; dense_to_bcrs checks them again).
  const int64_t v = pick<int64_t>(in, {1, 2, 4, 8, 16, 3, 0, -2});
  int64_t rows = in.ConsumeIntegralInRange<int>(0, 48);
  const int64_t cols = in.ConsumeIntegralInRange<int>(0, 48);
  if (to_bcrs && v >= 1 && in.ConsumeIntegralInRange<int>(0, 7) != 0) rows -= rows % v;
  const Dense d = decode_dense(in, rows, cols);
  const spx::plan::DenseView a = view_of(d);
  if (!to_bcrs) {
    check_csr(d, spx::plan::dense_to_csr(a));  // never refuses at these sizes
    return 0;
  }
  spx::plan::BcrsF32 b;
  const bool ok = expect_ok_or_error({SPX_STATUS_INVALID_VALUE},
                                     [&] { b = spx::plan::dense_to_bcrs(a, v); });
  FUZZ_CHECK(ok == (v >= 1 && rows % v == 0));
  if (ok) check_bcrs(d, v, b);
  return 0;
}
