// Analyze options: a small host object the caller fills one setting at a time (like
// cusparseLtMatmulAlgSetAttribute), read by the *_analyzeWithOptions calls. Host-only: these
// calls work (and are tested) without a GPU.
#include <cstring>
#include <new>

#include "api/objects.hpp"
#include "api/validate.hpp"

namespace {

/// The value type of each option: its size in bytes, checked against the caller's `size`.
size_t option_size(spxPlanOption_t option) {
  switch (option) {
    case SPX_PLAN_OPTION_AUTOTUNE:
    case SPX_PLAN_OPTION_SPARSE_VALUES_LAYOUT:
      return sizeof(int32_t);
  }
  spx::fail(SPX_STATUS_INVALID_VALUE,
            spx::strf("option (%d) is not a spxPlanOption_t value", static_cast<int>(option)));
}

void check_value_buffer(spxPlanOption_t option, const void* value, size_t size) {
  spx::validate::not_null(value, "value");
  const size_t expected = option_size(option);
  SPX_CHECK_ARG(size == expected, "size (%zu) must be %zu bytes, the size of the option's value",
                size, expected);
}

}  // namespace

extern "C" {

spxStatus_t spxCreatePlanOptions(spxPlanOptions_t* options) {
  return spx::guard("spxCreatePlanOptions", [&] {
    spx::validate::not_null(options, "options (output pointer)");
    *options = nullptr;
    *options = new spxPlanOptions();
  });
}

spxStatus_t spxDestroyPlanOptions(spxPlanOptions_t options) {
  return spx::guard("spxDestroyPlanOptions", [&] { delete options; });
}

spxStatus_t spxPlanOptionsSet(spxPlanOptions_t options, spxPlanOption_t option, const void* value,
                              size_t size) {
  return spx::guard("spxPlanOptionsSet", [&] {
    spx::validate::not_null(options, "options");
    check_value_buffer(option, value, size);
    switch (option) {
      case SPX_PLAN_OPTION_AUTOTUNE: {
        int32_t v;
        std::memcpy(&v, value, sizeof v);
        SPX_CHECK_ARG(v == 0 || v == 1, "SPX_PLAN_OPTION_AUTOTUNE must be 0 or 1, not %d", v);
        options->autotune = v;
        return;
      }
      case SPX_PLAN_OPTION_SPARSE_VALUES_LAYOUT: {
        int32_t v;
        std::memcpy(&v, value, sizeof v);
        SPX_CHECK_ARG(v == SPX_VALUES_LAYOUT_NATIVE || v == SPX_VALUES_LAYOUT_SRBCRS,
                      "SPX_PLAN_OPTION_SPARSE_VALUES_LAYOUT must be SPX_VALUES_LAYOUT_NATIVE (0) "
                      "or SPX_VALUES_LAYOUT_SRBCRS (1), not %d",
                      v);
        options->values_layout = v;
        return;
      }
    }
  });
}

spxStatus_t spxPlanOptionsGet(spxConstPlanOptions_t options, spxPlanOption_t option, void* value,
                              size_t size) {
  return spx::guard("spxPlanOptionsGet", [&] {
    spx::validate::not_null(options, "options");
    check_value_buffer(option, value, size);
    switch (option) {
      case SPX_PLAN_OPTION_AUTOTUNE:
        std::memcpy(value, &options->autotune, sizeof options->autotune);
        return;
      case SPX_PLAN_OPTION_SPARSE_VALUES_LAYOUT:
        std::memcpy(value, &options->values_layout, sizeof options->values_layout);
        return;
    }
  });
}

}  // extern "C"
