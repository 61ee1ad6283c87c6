// Finds cuSPARSELt at run time (dlopen; no build dependency) for the sptc family's 2:4 baseline
// (baselines_cusparselt.cpp), and says in one line where it is or why it is not usable.
#pragma once

#include <string>

namespace bench {

/// Looks in $SPX_CUSPARSELT_PATH (the library or its folder), then the nvidia/cusparselt (and
/// nvidia/cu13) lib folders of common Python installs (/opt/*/.venv, /usr/local/lib/python3*,
/// /usr/lib/python3, $VIRTUAL_ENV, ~/.local), then the loader's own path. Returns the path of
/// the loaded libcusparseLt.so.0, or "" when none loads.
std::string find_cusparselt();

/// "cusparselt: found at X", "cusparselt: not usable (...)" or "cusparselt: not found (...)".
std::string cusparselt_status_line();

}  // namespace bench
