// Turns the command line into the list of cases to run: each family's default sweep (or the
// --quick case), the user's shapes / sparsities / vector lengths, a named --preset (nm llama,
// ell paper), or every DLMC file under --dlmc.
#pragma once

#include <string>
#include <vector>

#include "cli.hpp"
#include "types.hpp"

namespace bench {

/// Builds the cases in run order. Returns false with *usage_error set when the options do not fit
/// the family (a dtype it does not take, --dlmc for nm, an unknown --preset, ...): main prints
/// usage and exits 2.
/// Throws bench::Error when --dlmc cannot be read or holds no matching file.
bool build_cases(const Options& opts, std::vector<CaseSpec>* cases, std::string* usage_error);

/// Sorted *.smtx files under dir (recursive), keeping only the sparsity folders listed (all if
/// empty). Exposed for the bench's own checks.
std::vector<std::string> find_smtx_files(const std::string& dir, const std::vector<double>& levels);

/// The sparsity level a DLMC path's folder names ("…/0.9/x.smtx" -> 0.9), or -1 if none.
double dlmc_folder_sparsity(const std::string& path);

}  // namespace bench
