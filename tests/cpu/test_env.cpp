// runtime/env: the SPX_* switches are parsed one way for every family.
#include <stdlib.h>

#include <catch2/catch.hpp>
#include <string>

#include "runtime/env.hpp"

namespace {

/// Sets `name` for the test's scope and removes it after.
struct ScopedEnv {
  const char* name;
  ScopedEnv(const char* n, const char* value) : name(n) { setenv(n, value, 1); }
  ~ScopedEnv() { unsetenv(name); }
};

constexpr const char* kName = "SPX_TEST_ENV_SWITCH";

}  // namespace

TEST_CASE("env::flag takes 0 or 1 and ignores everything else", "[env]") {
  unsetenv(kName);
  CHECK(spx::env::flag(kName) == -1);
  {
    ScopedEnv e(kName, "0");
    CHECK(spx::env::flag(kName) == 0);
  }
  {
    ScopedEnv e(kName, "1");
    CHECK(spx::env::flag(kName) == 1);
  }
  for (const char* bad : {"", "2", "10", "01", "yes", "1 "}) {
    ScopedEnv e(kName, bad);
    CHECK(spx::env::flag(kName) == -1);
  }
}

TEST_CASE("env::integer reads a whole decimal integer or keeps the fallback", "[env]") {
  unsetenv(kName);
  CHECK(spx::env::integer(kName, 7) == 7);
  {
    ScopedEnv e(kName, "12");
    CHECK(spx::env::integer(kName, 7) == 12);
  }
  {
    ScopedEnv e(kName, "-3");
    CHECK(spx::env::integer(kName, 7) == -3);
  }
  {
    ScopedEnv e(kName, "0");
    CHECK(spx::env::integer(kName, 7) == 0);
  }
  for (const char* bad : {"", "x", "12x", " ", "99999999999999999999999"}) {
    ScopedEnv e(kName, bad);
    CHECK(spx::env::integer(kName, 7) == 7);
  }
}

TEST_CASE("env::index keeps an integer from 0 to count - 1 and -1 otherwise", "[env]") {
  unsetenv(kName);
  CHECK(spx::env::index(kName, 5) == -1);
  {
    ScopedEnv e(kName, "0");
    CHECK(spx::env::index(kName, 5) == 0);
  }
  {
    ScopedEnv e(kName, "4");
    CHECK(spx::env::index(kName, 5) == 4);
  }
  for (const char* bad : {"5", "-1", "x", "2x", ""}) {
    ScopedEnv e(kName, bad);
    CHECK(spx::env::index(kName, 5) == -1);
  }
}

TEST_CASE("env::text is null when unset or empty", "[env]") {
  unsetenv(kName);
  CHECK(spx::env::text(kName) == nullptr);
  {
    ScopedEnv e(kName, "");
    CHECK(spx::env::text(kName) == nullptr);
  }
  {
    ScopedEnv e(kName, "wide");
    REQUIRE(spx::env::text(kName) != nullptr);
    CHECK(std::string(spx::env::text(kName)) == "wide");
  }
}
