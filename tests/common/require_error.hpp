// Catch2 helpers for host code that reports bad input by throwing spx::Error.
#pragma once

#include <catch2/catch.hpp>
#include <string>

#include "runtime/error.hpp"

/// Runs `f`, requiring it to throw spx::Error with `status` and a message containing `part`.
template <class F>
void require_error(F&& f, spxStatus_t status, const std::string& part) {
  try {
    f();
    FAIL("expected spx::Error containing \"" << part << "\"");
  } catch (const spx::Error& e) {
    INFO("message: " << e.what());
    CHECK(e.status() == status);
    CHECK(std::string(e.what()).find(part) != std::string::npos);
  }
}

/// The common case: SPX_STATUS_INVALID_VALUE.
template <class F>
void require_invalid(F&& f, const std::string& part) {
  require_error(f, SPX_STATUS_INVALID_VALUE, part);
}
