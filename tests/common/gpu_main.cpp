// Catch2 main of the GPU suites. Listing (what catch_discover_tests runs at build time, on a
// machine without a GPU) works everywhere; running without a usable GPU (sm_80+) prints a notice
// and exits 77, which the tests register as SKIP_RETURN_CODE.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstring>

#include "device.hpp"

namespace {

// Arguments that make Catch list or describe instead of running tests.
bool only_lists(int argc, char** argv) {
  static const char* const kListing[] = {"-l", "-t", "-h", "-?", "--help", "--version",
                                         "--libidentify", "--list-tests", "--list-tags",
                                         "--list-test-names-only", "--list-reporters"};
  for (int i = 1; i < argc; ++i) {
    for (const char* opt : kListing)
      if (std::strcmp(argv[i], opt) == 0) return true;
    if (std::strncmp(argv[i], "--list", 6) == 0) return true;
  }
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (!only_lists(argc, argv) && !spx::test::gpu_available()) {
    std::printf("no CUDA GPU: GPU tests skipped\n");
    return 77;
  }
  return Catch::Session().run(argc, argv);
}
