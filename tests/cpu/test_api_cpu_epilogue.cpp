// The fused SpMM epilogue's host-side API without a GPU: the SPX_PLAN_OPTION_EPILOGUE_* options
// (defaults, set / get, refused values), the activation enum's ABI values, and the argument
// checks of spxPlanSetEpilogue / spxPlanGetEpilogue that need no device.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>

#include "spx/spx.h"
#include "spx_catch.hpp"

namespace {

std::string last_message() { return spxGetLastErrorMessage(); }

}  // namespace

static_assert(SPX_PLAN_OPTION_EPILOGUE_ACTIVATION == 5 && SPX_PLAN_OPTION_EPILOGUE_BIAS == 6 &&
                  SPX_PLAN_OPTION_EPILOGUE_SCALE == 7,
              "epilogue option values are ABI");
static_assert(SPX_ACTIVATION_NONE == 0 && SPX_ACTIVATION_RELU == 1 &&
                  SPX_ACTIVATION_GELU_TANH == 2 && SPX_ACTIVATION_SILU == 3,
              "activation values are ABI");

TEST_CASE("epilogue options: defaults, set and get", "[api][cpu][epilogue]") {
  spxPlanOptions_t opts = nullptr;
  REQUIRE_SPX(spxCreatePlanOptions(&opts));
  int32_t v = -7;
  for (const spxPlanOption_t o : {SPX_PLAN_OPTION_EPILOGUE_ACTIVATION, SPX_PLAN_OPTION_EPILOGUE_BIAS,
                                  SPX_PLAN_OPTION_EPILOGUE_SCALE}) {
    v = -7;
    REQUIRE_SPX(spxPlanOptionsGet(opts, o, &v, sizeof v));
    CHECK(v == 0);
  }
  for (const int32_t act : {SPX_ACTIVATION_RELU, SPX_ACTIVATION_GELU_TANH, SPX_ACTIVATION_SILU,
                            SPX_ACTIVATION_NONE}) {
    REQUIRE_SPX(spxPlanOptionsSet(opts, SPX_PLAN_OPTION_EPILOGUE_ACTIVATION, &act, sizeof act));
    REQUIRE_SPX(spxPlanOptionsGet(opts, SPX_PLAN_OPTION_EPILOGUE_ACTIVATION, &v, sizeof v));
    CHECK(v == act);
  }
  const int32_t on = 1;
  REQUIRE_SPX(spxPlanOptionsSet(opts, SPX_PLAN_OPTION_EPILOGUE_BIAS, &on, sizeof on));
  REQUIRE_SPX(spxPlanOptionsGet(opts, SPX_PLAN_OPTION_EPILOGUE_BIAS, &v, sizeof v));
  CHECK(v == 1);
  REQUIRE_SPX(spxPlanOptionsSet(opts, SPX_PLAN_OPTION_EPILOGUE_SCALE, &on, sizeof on));
  REQUIRE_SPX(spxPlanOptionsGet(opts, SPX_PLAN_OPTION_EPILOGUE_SCALE, &v, sizeof v));
  CHECK(v == 1);
  CHECK_SPX_STATUS(spxDestroyPlanOptions(opts), SPX_STATUS_SUCCESS);
}

TEST_CASE("epilogue options: refused values leave the object unchanged", "[api][cpu][epilogue]") {
  spxPlanOptions_t opts = nullptr;
  REQUIRE_SPX(spxCreatePlanOptions(&opts));
  const int32_t gelu = SPX_ACTIVATION_GELU_TANH;
  REQUIRE_SPX(spxPlanOptionsSet(opts, SPX_PLAN_OPTION_EPILOGUE_ACTIVATION, &gelu, sizeof gelu));
  for (const int32_t bad : {4, -1, 99}) {
    CHECK_SPX_INVALID(spxPlanOptionsSet(opts, SPX_PLAN_OPTION_EPILOGUE_ACTIVATION, &bad, sizeof bad));
    CHECK(last_message().find("SPX_PLAN_OPTION_EPILOGUE_ACTIVATION") != std::string::npos);
    CHECK(last_message().find("SPX_ACTIVATION_SILU (3)") != std::string::npos);
  }
  for (const int32_t bad : {2, -1}) {
    CHECK_SPX_INVALID(spxPlanOptionsSet(opts, SPX_PLAN_OPTION_EPILOGUE_BIAS, &bad, sizeof bad));
    CHECK(last_message().find("SPX_PLAN_OPTION_EPILOGUE_BIAS must be 0 or 1") != std::string::npos);
    CHECK_SPX_INVALID(spxPlanOptionsSet(opts, SPX_PLAN_OPTION_EPILOGUE_SCALE, &bad, sizeof bad));
    CHECK(last_message().find("SPX_PLAN_OPTION_EPILOGUE_SCALE must be 0 or 1") != std::string::npos);
  }
  const int64_t wide = 1;
  CHECK_SPX_INVALID(spxPlanOptionsSet(opts, SPX_PLAN_OPTION_EPILOGUE_BIAS, &wide, sizeof wide));
  int32_t v = -7;
  REQUIRE_SPX(spxPlanOptionsGet(opts, SPX_PLAN_OPTION_EPILOGUE_ACTIVATION, &v, sizeof v));
  CHECK(v == SPX_ACTIVATION_GELU_TANH);
  REQUIRE_SPX(spxPlanOptionsGet(opts, SPX_PLAN_OPTION_EPILOGUE_BIAS, &v, sizeof v));
  CHECK(v == 0);
  REQUIRE_SPX(spxPlanOptionsGet(opts, SPX_PLAN_OPTION_EPILOGUE_SCALE, &v, sizeof v));
  CHECK(v == 0);
  CHECK_SPX_STATUS(spxDestroyPlanOptions(opts), SPX_STATUS_SUCCESS);
}

TEST_CASE("spxPlanSetEpilogue and spxPlanGetEpilogue: null handle and plan", "[api][cpu][epilogue]") {
  const void* bias = nullptr;
  const void* scale = nullptr;
  CHECK_SPX_INVALID(spxPlanSetEpilogue(nullptr, nullptr, nullptr, nullptr));
  CHECK(last_message().find("handle") != std::string::npos);
  CHECK_SPX_INVALID(spxPlanGetEpilogue(nullptr, &bias, &scale));
  CHECK(last_message().find("plan") != std::string::npos);
}
