#include "families/switches.hpp"

#include <cerrno>
#include <cstdlib>

#include "runtime/log.hpp"

namespace spx::dispatch {

void Switches::set(std::string name, std::string value) {
  for (auto& [n, v] : values_)
    if (n == name) {
      v = std::move(value);
      return;
    }
  values_.emplace_back(std::move(name), std::move(value));
}

const char* Switches::text(const char* name) const {
  for (const auto& [n, v] : values_)
    if (n == name) return v.empty() ? nullptr : v.c_str();
  return nullptr;
}

int Switches::flag(const char* name) const {
  const char* v = text(name);
  if (v == nullptr) return -1;
  if ((v[0] == '0' || v[0] == '1') && v[1] == '\0') return v[0] - '0';
  log::info("%s=%s ignored: not 0 or 1", name, v);
  return -1;
}

int64_t Switches::integer(const char* name, int64_t fallback) const {
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

int64_t Switches::index(const char* name, int64_t count) const {
  const int64_t i = integer(name, -1);  // logs a value that is not an integer
  if (i >= 0 && i < count) return i;
  if (i != -1)
    log::info("%s=%lld ignored: not in 0..%lld", name, static_cast<long long>(i),
              static_cast<long long>(count - 1));
  return -1;
}

}  // namespace spx::dispatch
