#include "core/env.hpp"

#include <cerrno>
#include <cstdlib>

#include "core/log.hpp"

namespace spx::env {

const char* text(const char* name) {
  const char* v = std::getenv(name);
  return v == nullptr || *v == '\0' ? nullptr : v;
}

int flag(const char* name) {
  const char* v = text(name);
  if (v == nullptr) return -1;
  if ((v[0] == '0' || v[0] == '1') && v[1] == '\0') return v[0] - '0';
  log::info("%s=%s ignored: not 0 or 1", name, v);
  return -1;
}

int64_t integer(const char* name, int64_t fallback) {
  const char* v = text(name);
  if (v == nullptr) return fallback;
  char* end = nullptr;
  errno = 0;
  const long long x = std::strtoll(v, &end, 10);
  if (end == v || *end != '\0' || errno == ERANGE) {
    log::info("%s=%s ignored: not an integer", name, v);
    return fallback;
  }
  return static_cast<int64_t>(x);
}

}  // namespace spx::env
