#include "families/nm/plan/serialize.hpp"

namespace spx::plan {

void NmRecord::validate(const char* what) const {
  using serial::expect;
  using serial::mul;
  constexpr int64_t kDim = int64_t{1} << 31, kPad = int64_t{1} << 40;
  for (const int64_t v : {rows, cols, n, m, l})
    expect(v >= 0 && v <= kDim, what, "NM shape", "is out of range");
  expect(m > 0 && l > 0 && n <= m && rows % l == 0 && cols % m == 0, what, "NM shape",
         "is not a vector-wise N:M shape");
  for (const int64_t v : {pack_capacity, kc_pad, rows_pad, groups_pad, stages})
    expect(v >= 0 && v <= kPad, what, "NM geometry", "is out of range");
  expect(a_t.bytes == mul(mul(kc_pad, rows_pad), 4), what, "NM a_t",
         "does not hold kc_pad x rows_pad floats");
  expect(ridx.bytes == mul(mul(groups_pad, kc_pad), 2), what, "NM ridx",
         "does not hold groups_pad x kc_pad entries");
  expect(indices.bytes == mul(mul(rows / l, cols / m * n), 4), what, "NM indices",
         "does not hold groups x kc int32 entries");
  expect(col_count.bytes % 4 == 0 &&
             col_info.bytes == (packing ? mul(mul(col_count.bytes / 4, pack_capacity), 2) : 0) &&
             (packing || col_count.bytes == 0),
         what, "NM col_info", "does not match col_count and the pack capacity");
  expect(metadata_bytes >= 0 && static_cast<uint64_t>(metadata_bytes) ==
                                    ridx.bytes + col_info.bytes + col_count.bytes,
         what, "NM metadata_bytes", "is not the size of the index arrays");
}

}  // namespace spx::plan
