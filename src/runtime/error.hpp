// Error handling inside libspx: internal code throws spx::Error; every extern "C" entry point
// runs its body through spx::guard, which turns any exception into a status plus the
// thread-local message, so no C++ exception ever crosses the C boundary.
#pragma once

#include <exception>
#include <string>

#include "spx/spx_types.h"

namespace spx {

class Error : public std::exception {
 public:
  Error(spxStatus_t status, std::string message) : status_(status), message_(std::move(message)) {}
  spxStatus_t status() const noexcept { return status_; }
  const char* what() const noexcept override { return message_.c_str(); }

 private:
  spxStatus_t status_;
  std::string message_;
};

/// printf-style formatting into a std::string (messages are short; no iostreams in the hot path).
std::string strf(const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

/// "SPX_STATUS_INVALID_VALUE" etc.; the table behind spxGetStatusName.
const char* status_name(spxStatus_t status);

[[noreturn]] void fail(spxStatus_t status, std::string message);

/// Sets the thread-local message spxGetLastErrorMessage returns.
void set_last_error(const std::string& message);
const char* last_error();

/// Logs a failed call at level >= 1 (see log.hpp) and records its message.
void report_failure(const char* function, spxStatus_t status, const char* message);

/// Runs `body` for the C entry point `function`; converts exceptions into statuses. Only
/// failures touch the last-error message (errno-like: RAII destructors cannot erase it).
template <class Body>
spxStatus_t guard(const char* function, Body&& body) noexcept {
  try {
    body();
    return SPX_STATUS_SUCCESS;
  } catch (const Error& e) {
    report_failure(function, e.status(), e.what());
    return e.status();
  } catch (const std::bad_alloc&) {
    report_failure(function, SPX_STATUS_ALLOC_FAILED, "host memory allocation failed");
    return SPX_STATUS_ALLOC_FAILED;
  } catch (const std::exception& e) {
    report_failure(function, SPX_STATUS_INTERNAL_ERROR, e.what());
    return SPX_STATUS_INTERNAL_ERROR;
  } catch (...) {
    report_failure(function, SPX_STATUS_INTERNAL_ERROR, "unknown exception");
    return SPX_STATUS_INTERNAL_ERROR;
  }
}

}  // namespace spx

/// Argument check: throws spx::Error(status, message) when cond is false.
#define SPX_EXPECTS(cond, status, ...)             \
  do {                                             \
    if (!(cond)) ::spx::fail(status, ::spx::strf(__VA_ARGS__)); \
  } while (0)

/// The common case: an invalid argument.
#define SPX_CHECK_ARG(cond, ...) SPX_EXPECTS(cond, SPX_STATUS_INVALID_VALUE, __VA_ARGS__)
