// Error plumbing: see error.hpp. The last-error message is per thread, as the C API promises.
#include "runtime/error.hpp"

#include <cstdarg>
#include <cstdio>

#include "runtime/log.hpp"

namespace spx {
namespace {

thread_local std::string t_last_error;

}  // namespace

const char* status_name(spxStatus_t status) {
  switch (status) {
    case SPX_STATUS_SUCCESS:
      return "SPX_STATUS_SUCCESS";
    case SPX_STATUS_NOT_INITIALIZED:
      return "SPX_STATUS_NOT_INITIALIZED";
    case SPX_STATUS_ALLOC_FAILED:
      return "SPX_STATUS_ALLOC_FAILED";
    case SPX_STATUS_INVALID_VALUE:
      return "SPX_STATUS_INVALID_VALUE";
    case SPX_STATUS_ARCH_MISMATCH:
      return "SPX_STATUS_ARCH_MISMATCH";
    case SPX_STATUS_EXECUTION_FAILED:
      return "SPX_STATUS_EXECUTION_FAILED";
    case SPX_STATUS_INTERNAL_ERROR:
      return "SPX_STATUS_INTERNAL_ERROR";
    case SPX_STATUS_NOT_SUPPORTED:
      return "SPX_STATUS_NOT_SUPPORTED";
    case SPX_STATUS_IO_ERROR:
      return "SPX_STATUS_IO_ERROR";
  }
  return "SPX_STATUS_UNKNOWN";
}

std::string strf(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  va_list copy;
  va_copy(copy, args);
  const int needed = std::vsnprintf(nullptr, 0, fmt, copy);
  va_end(copy);
  std::string out;
  if (needed > 0) {
    out.resize(static_cast<size_t>(needed) + 1);  // room for the terminating NUL
    std::vsnprintf(&out[0], out.size(), fmt, args);
    out.resize(static_cast<size_t>(needed));
  }
  va_end(args);
  return out;
}

void fail(spxStatus_t status, std::string message) {
  throw Error(status, std::move(message));
}

void set_last_error(const std::string& message) {
  t_last_error = message;
}

const char* last_error() {
  return t_last_error.c_str();
}

void report_failure(const char* function, spxStatus_t status, const char* message) {
  // Recording must not throw (guard is noexcept): fall back to an empty message on bad_alloc.
  try {
    t_last_error = message != nullptr ? message : "";
  } catch (...) {
    t_last_error.clear();
  }
  log::error("%s failed with %s: %s", function != nullptr ? function : "?", status_name(status),
             message != nullptr ? message : "");
}

}  // namespace spx
