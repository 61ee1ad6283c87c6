#include "engine/overrides.hpp"

#include <cstring>

extern char** environ;  // POSIX: the process environment

namespace spx::engine {

dispatch::Switches read_switches() {
  dispatch::Switches s;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const char* entry = *e;
    if (std::strncmp(entry, "SPX_", 4) != 0 || std::strncmp(entry, "SPX_LOG_", 8) == 0) continue;
    const char* eq = std::strchr(entry, '=');
    if (eq == nullptr) continue;
    s.set(std::string(entry, eq), std::string(eq + 1));
  }
  return s;
}

}  // namespace spx::engine
