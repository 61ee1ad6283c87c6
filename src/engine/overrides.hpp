// The one reader of the SPX_* environment switches (besides the logger's SPX_LOG_*): analyze
// takes a snapshot and hands it to the families, which parse what they document.
#pragma once

#include "families/switches.hpp"

namespace spx::engine {

/// Every SPX_* variable of the process environment now, except SPX_LOG_LEVEL / SPX_LOG_FILE.
dispatch::Switches read_switches();

}  // namespace spx::engine
