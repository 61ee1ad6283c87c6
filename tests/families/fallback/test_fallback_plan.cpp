// The fallback family's host plan: the row of every stored entry (its SDDMM's thread map).
#include <catch2/catch.hpp>

#include "families/fallback/plan/entry_rows.hpp"
#include "formats/to_csr.hpp"

TEST_CASE("entry_rows expands row pointers, empty rows included", "[fallback]") {
  // 4 x 5: row 0 two entries, row 1 empty, row 2 one entry, row 3 three entries.
  const int32_t row_ptr[] = {0, 2, 2, 3, 6};
  const int32_t col_ind[] = {4, 0, 2, 1, 3, 0};
  const spx::plan::CsrStructure csr = spx::plan::csr_from_csr(4, 5, 6, row_ptr, col_ind);
  CHECK(spx::plan::entry_rows(csr) == std::vector<int32_t>{0, 0, 2, 3, 3, 3});
}

TEST_CASE("entry_rows of a matrix without entries is empty", "[fallback]") {
  const int32_t row_ptr[] = {0, 0, 0};
  const spx::plan::CsrStructure csr = spx::plan::csr_from_csr(2, 3, 0, row_ptr, nullptr);
  CHECK(spx::plan::entry_rows(csr).empty());
}
