// Reader for the Deep Learning Matrix Collection's `.smtx` files: CSR structure in three lines,
//   rows, cols, nnz
//   rows + 1 row offsets
//   nnz column indices
// Numbers may be separated by any mix of spaces, tabs and commas; Windows line ends and a
// missing final newline are accepted. Offsets and indices may also wrap over several lines: only
// the header must be alone on its line. Everything is validated; any problem throws
// spx::Error(SPX_STATUS_IO_ERROR) with "<source>:<line>: what is wrong".
#pragma once

#include <string>

#include "formats/host_formats.hpp"

namespace spx::plan {

/// Reads and validates the file at `path`.
CsrPattern read_smtx(const std::string& path);

/// Parses `.smtx` text; `source` names it in error messages (the path, usually).
CsrPattern parse_smtx(const std::string& text, const std::string& source);

}  // namespace spx::plan
