// The one Catch2 main of the CPU tests, compiled once into spx_catch_main_cpu.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
