// Fuzz target: magnitude pruning and pattern checks on dense fp32 (src/formats/prune_nm,
// prune_uniform, check_pattern). Invariants:
//   prune_nm:      refuses exactly the parameters its header refuses; the indices form a valid
//                  vector-wise N:M structure (csr_from_nm accepts them); every kept value is the
//                  dense value at its column; the pruned matrix fits N:M (fits_nm); a matrix that
//                  already fit N:M loses no nonzero.
//   prune_uniform: refuses ell_width outside [1, cols]; every row keeps ell_width distinct
//                  columns in increasing order with their dense values; the result fits the
//                  width (fits_uniform); a matrix that already fit it loses no nonzero.
#include <cstdint>
#include <vector>

#include "formats/check_pattern.hpp"
#include "formats/prune_nm.hpp"
#include "formats/prune_uniform.hpp"
#include "formats/to_csr.hpp"
#include "fuzz_common.hpp"

using namespace spx_fuzz;

namespace {

void fuzz_nm(FuzzedDataProvider& in) {
  const int64_t n = in.ConsumeIntegralInRange<int>(-1, 8), m = pick<int64_t>(in, {4, 8, 2, 1, 16, 3, 0, -1});
  const int64_t l = pick<int64_t>(in, {1, 2, 4, 8, 16, 3, 0});
  int64_t rows = in.ConsumeIntegralInRange<int>(0, 32), cols = in.ConsumeIntegralInRange<int>(0, 48);
  if (in.ConsumeIntegralInRange<int>(0, 7) != 0) {  // mostly shapes that tile
    if (l >= 1) rows -= rows % l;
    if (m >= 1) cols -= cols % m;
  }
  const Dense d = decode_dense(in, rows, cols);
  const spx::plan::DenseView a = view_of(d);
  const bool tiles = m >= 1 && l >= 1 && cols % m == 0 && rows % l == 0;

  bool fits = false;
  const bool checked = expect_ok_or_error({SPX_STATUS_INVALID_VALUE},
                                          [&] { fits = spx::plan::fits_nm(a, n, m, l); });
  FUZZ_CHECK(checked == (tiles && n >= 0));

  spx::plan::NmF32 nm;
  const bool ok = expect_ok_or_error({SPX_STATUS_INVALID_VALUE},
                                     [&] { nm = spx::plan::prune_nm(a, n, m, l); });
  FUZZ_CHECK(ok == (tiles && n >= 1 && n <= m));
  if (!ok) return;
  const int64_t kc = cols / m * n;
  FUZZ_CHECK(nm.kc() == kc && nm.rows == rows && nm.cols == cols);
  FUZZ_CHECK(nm.values.size() == static_cast<size_t>(rows * kc));
  FUZZ_CHECK(nm.indices.size() == static_cast<size_t>(rows / l * kc));
  spx::plan::csr_from_nm(rows, cols, n, m, l, nm.indices.data());  // valid indices

  // The pruned matrix, densely (row-major), from values and indices.
  Dense p;
  p.rows = rows;
  p.cols = cols;
  p.ld = std::max<int64_t>(cols, 1);
  p.data.assign(static_cast<size_t>(rows * p.ld), 0.0f);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t q = 0; q < kc; ++q) {
      const int64_t c = (q / n) * m + nm.indices[static_cast<size_t>((i / l) * kc + q)];
      const float v = nm.values[static_cast<size_t>(i * kc + q)];
      FUZZ_CHECK(same_bits(v, d.at(i, c)));
      p.data[static_cast<size_t>(i * p.ld + c)] = v;
    }
  FUZZ_CHECK(spx::plan::fits_nm(view_of(p), n, m, l));
  if (fits)  // nothing to drop: every nonzero survives
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t c = 0; c < cols; ++c)
        FUZZ_CHECK(!(d.at(i, c) != 0.0f) || same_bits(p.at(i, c), d.at(i, c)));
}

void fuzz_uniform(FuzzedDataProvider& in) {
  const int64_t rows = in.ConsumeIntegralInRange<int>(0, 32), cols = in.ConsumeIntegralInRange<int>(0, 48);
  const int64_t width = in.ConsumeIntegralInRange<int>(-1, static_cast<int>(cols) + 1);
  const Dense d = decode_dense(in, rows, cols);
  const spx::plan::DenseView a = view_of(d);
  const bool fits = spx::plan::fits_uniform(a, width);

  spx::plan::EllF32 ell;
  const bool ok = expect_ok_or_error({SPX_STATUS_INVALID_VALUE},
                                     [&] { ell = spx::plan::prune_uniform(a, width); });
  FUZZ_CHECK(ok == (width >= 1 && width <= cols));
  if (!ok) return;
  FUZZ_CHECK(ell.rows == rows && ell.cols == cols && ell.ell_width == width);
  FUZZ_CHECK(ell.col_ind.size() == static_cast<size_t>(rows * width));
  FUZZ_CHECK(ell.values.size() == ell.col_ind.size());
  const spx::plan::CsrStructure s = spx::plan::csr_from_ell(rows, cols, width, ell.col_ind.data());
  FUZZ_CHECK(static_cast<int64_t>(s.col_ind.size()) == rows * width);  // no padding
  Dense p;
  p.rows = rows;
  p.cols = cols;
  p.ld = std::max<int64_t>(cols, 1);
  p.data.assign(static_cast<size_t>(rows * p.ld), 0.0f);
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < width; ++j) {
      const size_t slot = static_cast<size_t>(i + j * rows);
      const int32_t c = ell.col_ind[slot];
      FUZZ_CHECK(j == 0 || c > ell.col_ind[slot - static_cast<size_t>(rows)]);
      FUZZ_CHECK(same_bits(ell.values[slot], d.at(i, c)));
      p.data[static_cast<size_t>(i * p.ld + c)] = ell.values[slot];
    }
  FUZZ_CHECK(spx::plan::fits_uniform(view_of(p), width));
  if (fits)
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t c = 0; c < cols; ++c)
        FUZZ_CHECK(!(d.at(i, c) != 0.0f) || same_bits(p.at(i, c), d.at(i, c)));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  if (in.ConsumeBool()) fuzz_nm(in);
  else fuzz_uniform(in);
  return 0;
}
