// Catch2 assertions on spx statuses, shared by the CPU and GPU suites (header-only, so the CPU
// test can use it without linking the GPU helpers).
#pragma once

#include <catch2/catch.hpp>
#include <string>

#include "spx/spx.h"

/// REQUIREs that `expr` returns SPX_STATUS_SUCCESS; on failure prints the status name and the
/// library's message.
#define REQUIRE_SPX(expr)                                                                   \
  do {                                                                                      \
    const spxStatus_t spx_st_ = (expr);                                                     \
    const std::string spx_msg_ = spxGetLastErrorMessage();                                  \
    INFO(#expr << " -> " << spxGetStatusName(spx_st_) << " \"" << spx_msg_ << "\"");        \
    REQUIRE(spx_st_ == SPX_STATUS_SUCCESS);                                                 \
  } while (0)

/// CHECKs that `expr` returns exactly `expected`; a failure status must come with a non-empty
/// spxGetLastErrorMessage (successful calls leave the message as it was, errno-like).
#define CHECK_SPX_STATUS(expr, expected)                                                    \
  do {                                                                                      \
    const spxStatus_t spx_st_ = (expr);                                                     \
    const std::string spx_msg_ = spxGetLastErrorMessage();                                  \
    const spxStatus_t spx_want_ = (expected);                                               \
    INFO(#expr << " -> " << spxGetStatusName(spx_st_) << " \"" << spx_msg_                  \
               << "\", expected " << spxGetStatusName(spx_want_));                          \
    CHECK(spx_st_ == spx_want_);                                                            \
    if (spx_want_ != SPX_STATUS_SUCCESS) CHECK_FALSE(spx_msg_.empty());                     \
  } while (0)

/// The common case: an invalid argument.
#define CHECK_SPX_INVALID(expr) CHECK_SPX_STATUS(expr, SPX_STATUS_INVALID_VALUE)
