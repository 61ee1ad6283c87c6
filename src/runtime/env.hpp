// The SPX_* environment switches (experiments, measurements and tests: the overrides each family
// documents in its README), parsed one way for every family. A value that does not parse is
// ignored with an info line (SPX_LOG_LEVEL=2), as if the variable were unset.
#pragma once

#include <cstdint>

namespace spx::env {

/// A 0 / 1 switch: 0 or 1, or -1 when unset, empty or anything else.
int flag(const char* name);

/// An integer (decimal, optionally signed): its value, or `fallback` when unset, empty or not an
/// integer.
int64_t integer(const char* name, int64_t fallback);

/// An index override (e.g. a forced candidate): an integer in [0, count), or -1 when unset, not an
/// integer or out of range (each logged but an explicit -1).
int64_t index(const char* name, int64_t count);

/// The value, or nullptr when unset or empty.
const char* text(const char* name);

}  // namespace spx::env
