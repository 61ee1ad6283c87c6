// Logging sink: see log.hpp. Formatting happens before the lock; only the write is serialized,
// so one line is never interleaved with another thread's.
#include "runtime/log.hpp"

#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <string>

namespace spx::log {
namespace {

struct Sink {
  int level = 0;
  std::FILE* out = stderr;
};

std::once_flag g_once;
Sink g_sink;
std::mutex g_write_mutex;

const Sink& sink() {
  std::call_once(g_once, [] {
    if (const char* text = std::getenv("SPX_LOG_LEVEL")) {
      const long value = std::strtol(text, nullptr, 10);
      g_sink.level = value < 0 ? 0 : value > 3 ? 3 : static_cast<int>(value);
    }
    if (g_sink.level > 0) {
      const char* path = std::getenv("SPX_LOG_FILE");
      if (path != nullptr && path[0] != '\0') {
        // Never closed: the log stays usable from static destructors of other libraries.
        if (std::FILE* f = std::fopen(path, "a")) g_sink.out = f;
      }
    }
  });
  return g_sink;
}

void write_line(int min_level, const char* tag, const char* fmt, va_list args) {
  const Sink& s = sink();
  if (s.level < min_level) return;
  char buffer[1024];
  va_list copy;
  va_copy(copy, args);
  const int needed = std::vsnprintf(buffer, sizeof buffer, fmt, copy);
  va_end(copy);
  // Logging is called from noexcept error paths: it must never throw.
  try {
    std::string line;
    if (needed >= static_cast<int>(sizeof buffer)) {
      line.resize(static_cast<size_t>(needed) + 1);
      std::vsnprintf(&line[0], line.size(), fmt, args);
      line.resize(static_cast<size_t>(needed));
    } else {
      line = needed >= 0 ? buffer : "(log message could not be formatted)";
    }
    std::lock_guard<std::mutex> lock(g_write_mutex);
    std::fprintf(s.out, "[spx][%s] %s\n", tag, line.c_str());
    std::fflush(s.out);
  } catch (...) {
  }
}

}  // namespace

int level() {
  return sink().level;
}

void error(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  write_line(1, "error", fmt, args);
  va_end(args);
}

void info(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  write_line(2, "info", fmt, args);
  va_end(args);
}

void trace(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  write_line(3, "trace", fmt, args);
  va_end(args);
}

}  // namespace spx::log
