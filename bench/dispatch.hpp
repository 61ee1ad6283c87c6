// `spx-bench dispatch`: is SPX_SPMM_ALG_DEFAULT ever much slower than what the caller could have
// forced? Every input format x value type x sparsity x shape x N (the issue "Never slower than
// dense"); per point DEFAULT, every libspx family forced, the dense route and the dtype's cuBLAS
// GEMM, all checked against the FP64 reference and timed the same way; one CSV row per point
// with the fastest alternative as the baseline and what DEFAULT chose in `config`.
// The grid (dispatch_grid.cpp) is plain C++: `dispatch --list` needs no GPU.
#pragma once

#include <string>
#include <vector>

#include "cli.hpp"
#include "types.hpp"

namespace bench {

struct DispatchGrid {
  std::vector<DispatchSpec> points;  ///< run order: format, dtype, (m, k), sparsity, n
  std::vector<std::string> skipped;  ///< one line per combination left out, and why
};

/// Builds the grid of `spx-bench dispatch` (the full one, or --quick's) narrowed by --format,
/// --dtype, --sparsity, --shape, --n; --vec sets BCRS's V (default 8). False with *usage_error
/// when the options select nothing.
bool build_dispatch_grid(const Options& opts, DispatchGrid* grid, std::string* usage_error);

/// "csr", "ell", "bcrs", "nm".
const char* dispatch_format_name(spxFormat_t f);
/// The CSV `family` column of a point: "dispatch-csr", ...
std::string dispatch_family(const DispatchSpec& d);
/// "dispatch-bcrs 4096x4096x256 s=0.9 V=8 f16" (NM: "2:4 L=32").
std::string dispatch_label(const DispatchSpec& d);

/// The whole `spx-bench dispatch` run (--list included); returns the exit status.
int run_dispatch(const Options& opts);

}  // namespace bench
