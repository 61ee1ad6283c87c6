// Scoped environment overrides for the GPU tests: the families' documented SPX_*_FORCE_*
// variables steer analyze's choices (tile, split, schedule, path) so every configuration is run.
#pragma once

#include <cstdlib>
#include <optional>
#include <string>

namespace spx::test {

/// Sets an environment variable for the scope (clears it when value is empty) and restores the
/// previous value, or its absence, at the end of the scope.
class EnvOverride {
 public:
  EnvOverride(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = std::string(old);
    if (value.empty())
      unsetenv(name);
    else
      setenv(name, value.c_str(), 1);
  }
  ~EnvOverride() {
    if (old_)
      setenv(name_.c_str(), old_->c_str(), 1);
    else
      unsetenv(name_.c_str());
  }
  EnvOverride(const EnvOverride&) = delete;
  EnvOverride& operator=(const EnvOverride&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

}  // namespace spx::test
