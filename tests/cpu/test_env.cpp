// The SPX_* switches: the engine reads a snapshot of the environment (engine/overrides), the
// families parse it one way (families/switches).
#include <stdlib.h>

#include <catch2/catch.hpp>
#include <string>

#include "engine/overrides.hpp"

namespace {

/// Sets `name` for the test's scope and removes it after.
struct ScopedEnv {
  const char* name;
  ScopedEnv(const char* n, const char* value) : name(n) { setenv(n, value, 1); }
  ~ScopedEnv() { unsetenv(name); }
};

constexpr const char* kName = "SPX_TEST_ENV_SWITCH";

/// The switches as analyze sees them now.
spx::dispatch::Switches now() { return spx::engine::read_switches(); }

}  // namespace

TEST_CASE("Switches::flag takes 0 or 1 and ignores everything else", "[env]") {
  unsetenv(kName);
  CHECK(now().flag(kName) == -1);
  {
    ScopedEnv e(kName, "0");
    CHECK(now().flag(kName) == 0);
  }
  {
    ScopedEnv e(kName, "1");
    CHECK(now().flag(kName) == 1);
  }
  for (const char* bad : {"", "2", "10", "01", "yes", "1 "}) {
    ScopedEnv e(kName, bad);
    CHECK(now().flag(kName) == -1);
  }
}

TEST_CASE("Switches::integer reads a whole decimal integer or keeps the fallback", "[env]") {
  unsetenv(kName);
  CHECK(now().integer(kName, 7) == 7);
  {
    ScopedEnv e(kName, "12");
    CHECK(now().integer(kName, 7) == 12);
  }
  {
    ScopedEnv e(kName, "-3");
    CHECK(now().integer(kName, 7) == -3);
  }
  {
    ScopedEnv e(kName, "0");
    CHECK(now().integer(kName, 7) == 0);
  }
  for (const char* bad : {"", "x", "12x", " ", "99999999999999999999999"}) {
    ScopedEnv e(kName, bad);
    CHECK(now().integer(kName, 7) == 7);
  }
}

TEST_CASE("Switches::index keeps an integer from 0 to count - 1 and -1 otherwise", "[env]") {
  unsetenv(kName);
  CHECK(now().index(kName, 5) == -1);
  {
    ScopedEnv e(kName, "0");
    CHECK(now().index(kName, 5) == 0);
  }
  {
    ScopedEnv e(kName, "4");
    CHECK(now().index(kName, 5) == 4);
  }
  for (const char* bad : {"5", "-1", "x", "2x", ""}) {
    ScopedEnv e(kName, bad);
    CHECK(now().index(kName, 5) == -1);
  }
}

TEST_CASE("Switches::text is null when unset or empty", "[env]") {
  unsetenv(kName);
  CHECK(now().text(kName) == nullptr);
  {
    ScopedEnv e(kName, "");
    CHECK(now().text(kName) == nullptr);
  }
  {
    ScopedEnv e(kName, "wide");
    REQUIRE(now().text(kName) != nullptr);
    CHECK(std::string(now().text(kName)) == "wide");
  }
}

TEST_CASE("The snapshot holds SPX_* variables only, without the logger's", "[env]") {
  ScopedEnv a(kName, "1");
  ScopedEnv b("SPX_LOG_LEVEL_TEST_SHADOW", "3");
  ScopedEnv c("NOT_SPX_TEST_SWITCH", "1");
  const spx::dispatch::Switches s = now();
  CHECK(s.flag(kName) == 1);
  CHECK(s.text("SPX_LOG_LEVEL_TEST_SHADOW") == nullptr);
  CHECK(s.text("NOT_SPX_TEST_SWITCH") == nullptr);
}

TEST_CASE("A snapshot does not follow later changes of the environment", "[env]") {
  ScopedEnv a(kName, "0");
  const spx::dispatch::Switches s = now();
  setenv(kName, "1", 1);
  CHECK(s.flag(kName) == 0);
  CHECK(now().flag(kName) == 1);
}

TEST_CASE("A hand-built snapshot: the last value set wins", "[env]") {
  spx::dispatch::Switches s;
  s.set("SPX_X", "1");
  s.set("SPX_X", "0");
  CHECK(s.flag("SPX_X") == 0);
  CHECK(s.flag("SPX_Y") == -1);
}
