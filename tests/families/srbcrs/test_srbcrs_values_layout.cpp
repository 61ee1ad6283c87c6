// The public side of the SR-BCRS values layout, without a GPU: SPX_PLAN_OPTION_SPARSE_VALUES_LAYOUT
// through spxPlanOptionsSet / Get (values, range, size checks) and spxHostSrbcrsSlotPtr (the slot
// pointers a caller needs to read or write an array in that layout), with exact statuses.
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "spx/spx.h"
#include "spx_catch.hpp"

TEST_CASE("SPX_PLAN_OPTION_SPARSE_VALUES_LAYOUT: default, round trip, range", "[srbcrs][layout]") {
  spxPlanOptions_t opts = nullptr;
  REQUIRE_SPX(spxCreatePlanOptions(&opts));
  int32_t v = -1;
  REQUIRE_SPX(spxPlanOptionsGet(opts, SPX_PLAN_OPTION_SPARSE_VALUES_LAYOUT, &v, sizeof v));
  CHECK(v == SPX_VALUES_LAYOUT_NATIVE);
  v = SPX_VALUES_LAYOUT_SRBCRS;
  REQUIRE_SPX(spxPlanOptionsSet(opts, SPX_PLAN_OPTION_SPARSE_VALUES_LAYOUT, &v, sizeof v));
  int32_t got = -1;
  REQUIRE_SPX(spxPlanOptionsGet(opts, SPX_PLAN_OPTION_SPARSE_VALUES_LAYOUT, &got, sizeof got));
  CHECK(got == SPX_VALUES_LAYOUT_SRBCRS);
  v = 2;
  CHECK_SPX_INVALID(spxPlanOptionsSet(opts, SPX_PLAN_OPTION_SPARSE_VALUES_LAYOUT, &v, sizeof v));
  CHECK(std::string(spxGetLastErrorMessage()).find("SPX_VALUES_LAYOUT_SRBCRS") != std::string::npos);
  const int64_t wide = 1;
  CHECK_SPX_INVALID(
      spxPlanOptionsSet(opts, SPX_PLAN_OPTION_SPARSE_VALUES_LAYOUT, &wide, sizeof wide));
  REQUIRE_SPX(spxPlanOptionsGet(opts, SPX_PLAN_OPTION_SPARSE_VALUES_LAYOUT, &got, sizeof got));
  CHECK(got == SPX_VALUES_LAYOUT_SRBCRS);  // unchanged by the failed calls
  // The other option is independent of this one.
  int32_t autotune = -1;
  REQUIRE_SPX(spxPlanOptionsGet(opts, SPX_PLAN_OPTION_AUTOTUNE, &autotune, sizeof autotune));
  CHECK(autotune == 0);
  REQUIRE_SPX(spxDestroyPlanOptions(opts));
}

TEST_CASE("spxHostSrbcrsSlotPtr pads every vector-row to strides of 32", "[srbcrs][layout]") {
  const std::vector<int32_t> ptr = {0, 0, 3, 35, 35, 99};  // 0, 3, 32, 0, 64 vectors
  std::vector<int32_t> slots(6, -7);
  REQUIRE_SPX(spxHostSrbcrsSlotPtr(5, ptr.data(), 4, slots.data()));
  CHECK(slots == std::vector<int32_t>{0, 0, 32, 64, 64, 128});
  int32_t one = -7;
  REQUIRE_SPX(spxHostSrbcrsSlotPtr(0, ptr.data(), 1, &one));
  CHECK(one == 0);

  std::vector<int32_t> untouched(6, -7);
  CHECK_SPX_INVALID(spxHostSrbcrsSlotPtr(5, ptr.data(), 4, nullptr));
  CHECK_SPX_INVALID(spxHostSrbcrsSlotPtr(-1, ptr.data(), 4, untouched.data()));
  CHECK_SPX_INVALID(spxHostSrbcrsSlotPtr(5, ptr.data(), 0, untouched.data()));
  CHECK_SPX_INVALID(spxHostSrbcrsSlotPtr(5, nullptr, 4, untouched.data()));
  const std::vector<int32_t> decreasing = {0, 5, 2};
  CHECK_SPX_INVALID(spxHostSrbcrsSlotPtr(2, decreasing.data(), 1, untouched.data()));
  const std::vector<int32_t> not_zero = {1, 5};
  CHECK_SPX_INVALID(spxHostSrbcrsSlotPtr(1, not_zero.data(), 1, untouched.data()));
  CHECK(untouched == std::vector<int32_t>(6, -7));  // a failed call writes nothing
  const std::vector<int32_t> huge = {0, INT32_MAX / 8};
  CHECK_SPX_STATUS(spxHostSrbcrsSlotPtr(1, huge.data(), 8, untouched.data()),
                   SPX_STATUS_NOT_SUPPORTED);
}
