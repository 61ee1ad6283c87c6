// Diagnostic logging, in the manner of CUSPARSE_LOG_LEVEL. The level is read once from the
// environment variable SPX_LOG_LEVEL: 0 (default) silent, 1 failed calls, 2 also info (the chosen
// kernel, analyze time), 3 also trace. Lines go to stderr, or appended to the file named by
// SPX_LOG_FILE (stderr if it cannot be opened). Safe to call from any thread.
#pragma once

#if defined(__GNUC__)
#define SPX_PRINTF_LIKE(fmt_index, first_arg) __attribute__((format(printf, fmt_index, first_arg)))
#else
#define SPX_PRINTF_LIKE(fmt_index, first_arg)
#endif

namespace spx::log {

/// The level from SPX_LOG_LEVEL (0..3), read on the first call.
int level();

/// One line prefixed "[spx][error] " when level() >= 1.
void error(const char* fmt, ...) SPX_PRINTF_LIKE(1, 2);
/// One line prefixed "[spx][info] " when level() >= 2.
void info(const char* fmt, ...) SPX_PRINTF_LIKE(1, 2);
/// One line prefixed "[spx][trace] " when level() >= 3.
void trace(const char* fmt, ...) SPX_PRINTF_LIKE(1, 2);

}  // namespace spx::log
