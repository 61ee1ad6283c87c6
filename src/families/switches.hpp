// The SPX_* environment switches (tests, tuning and measurements) as one snapshot that the engine
// takes at each analyze (engine/overrides.cpp is the only reader of the environment besides the
// logger). Each family parses the switches its README documents from this snapshot into its own
// decision inputs; launchers never see them. A value that does not parse is ignored with an info
// line (SPX_LOG_LEVEL=2), as if the variable were unset.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace spx::dispatch {

class Switches {
 public:
  /// Records NAME=VALUE (the engine's reader; tests build snapshots by hand).
  void set(std::string name, std::string value);

  /// A 0 / 1 switch: 0 or 1, or -1 when unset, empty or anything else.
  int flag(const char* name) const;
  /// An integer (decimal, optionally signed): its value, or `fallback` when unset, empty or not
  /// an integer.
  int64_t integer(const char* name, int64_t fallback) const;
  /// An index (e.g. a forced candidate): an integer in [0, count), or -1 when unset, not an
  /// integer or out of range (each logged but an explicit -1).
  int64_t index(const char* name, int64_t count) const;
  /// The value, or nullptr when unset or empty.
  const char* text(const char* name) const;
  /// Every NAME=VALUE recorded, in order (what a serialized plan stores).
  const std::vector<std::pair<std::string, std::string>>& entries() const { return values_; }

 private:
  std::vector<std::pair<std::string, std::string>> values_;
};

}  // namespace spx::dispatch
