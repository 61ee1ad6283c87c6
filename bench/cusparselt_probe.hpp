// Finds cuSPARSELt at run time (dlopen; no build dependency). This version only reports where it
// is: the 2:4 baseline of the sptc family will be timed through it in a later version.
#pragma once

#include <string>

namespace bench {

/// Looks in $SPX_CUSPARSELT_PATH (the library or its folder), then the nvidia/cusparselt (and
/// nvidia/cu13) lib folders of common Python installs (/opt/*/.venv, /usr/local/lib/python3*,
/// /usr/lib/python3, $VIRTUAL_ENV, ~/.local), then the loader's own path. Returns the path of
/// the loaded libcusparseLt.so.0, or "" when none loads.
std::string find_cusparselt();

/// "cusparselt: found at X (not benchmarked in this version)" or "cusparselt: not found (...)".
std::string cusparselt_status_line();

}  // namespace bench
