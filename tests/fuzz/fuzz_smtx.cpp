// Fuzz target: the .smtx reader (src/formats/smtx). Any text either parses into a consistent CSR
// pattern (row_ptr from 0, non-decreasing, ending at nnz; every column in [0, cols)) or throws
// spx::Error(SPX_STATUS_IO_ERROR) with a message that starts with "<source>:<line>: ".
#include <cstdint>
#include <cstring>
#include <string>

#include "formats/smtx.hpp"
#include "formats/structure_checks.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const std::string source = "fuzz.smtx";
  try {
    const spx::plan::CsrPattern p = spx::plan::parse_smtx(text, source);
    FUZZ_CHECK(p.rows >= 0 && p.rows <= INT32_MAX && p.cols >= 0 && p.cols <= INT32_MAX);
    FUZZ_CHECK(p.row_ptr.size() == static_cast<size_t>(p.rows) + 1);
    const int64_t nnz = static_cast<int64_t>(p.col_ind.size());
    // The structure checks the library runs on user arrays accept what the reader returns.
    spx::plan::check_row_ptr("row_ptr", p.rows, p.row_ptr.data(), nnz);
    spx::plan::check_index_range("col_ind", nnz, p.col_ind.data(), 0, p.cols);
    // Every number of the text was consumed: 3 + rows + 1 + nnz of them (a cheap upper bound:
    // each takes at least one character and one separator, but the last one).
    FUZZ_CHECK(static_cast<size_t>(3 + p.rows + 1 + nnz) <= size / 2 + 1);
  } catch (const spx::Error& e) {
    FUZZ_CHECK(e.status() == SPX_STATUS_IO_ERROR);
    FUZZ_CHECK(std::strncmp(e.what(), "fuzz.smtx:", 10) == 0);
  }
  return 0;
}
