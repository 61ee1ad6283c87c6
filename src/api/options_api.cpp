// Analyze options: a small host object the caller fills one setting at a time (like
// cusparseLtMatmulAlgSetAttribute), read by the *_analyzeWithOptions calls. Host-only: these
// calls work (and are tested) without a GPU.
#include <cstring>
#include <new>

#include "runtime/objects.hpp"
#include "api/validate.hpp"

namespace {

/// Where an option lives and which values it takes. Every option today is an int32_t; the
/// caller's `size` is checked against that.
struct OptionField {
  int32_t spxPlanOptions::*member;
  const char* name;
  const char* range;  ///< the accepted values, as the error message states them
  bool (*valid)(int32_t);
};

OptionField field(spxPlanOption_t option) {
  switch (option) {
    case SPX_PLAN_OPTION_AUTOTUNE:
      return {&spxPlanOptions::autotune, "SPX_PLAN_OPTION_AUTOTUNE", "0 or 1",
              [](int32_t v) { return v == 0 || v == 1; }};
    case SPX_PLAN_OPTION_SPARSE_VALUES_LAYOUT:
      return {&spxPlanOptions::values_layout, "SPX_PLAN_OPTION_SPARSE_VALUES_LAYOUT",
              "SPX_VALUES_LAYOUT_NATIVE (0) or SPX_VALUES_LAYOUT_SRBCRS (1)", [](int32_t v) {
                return v == SPX_VALUES_LAYOUT_NATIVE || v == SPX_VALUES_LAYOUT_SRBCRS;
              }};
    case SPX_PLAN_OPTION_DENSE_ROUTE:
      return {&spxPlanOptions::dense_route, "SPX_PLAN_OPTION_DENSE_ROUTE",
              "SPX_DENSE_ROUTE_AUTO (0), SPX_DENSE_ROUTE_NEVER (1), SPX_DENSE_ROUTE_ALWAYS (2) or "
              "SPX_DENSE_ROUTE_AUTO_EVERY_N (3)",
              [](int32_t v) {
                return v == SPX_DENSE_ROUTE_AUTO || v == SPX_DENSE_ROUTE_NEVER ||
                       v == SPX_DENSE_ROUTE_ALWAYS || v == SPX_DENSE_ROUTE_AUTO_EVERY_N;
              }};
    case SPX_PLAN_OPTION_ALLOW_TF32:
      return {&spxPlanOptions::allow_tf32, "SPX_PLAN_OPTION_ALLOW_TF32", "0 or 1",
              [](int32_t v) { return v == 0 || v == 1; }};
    case SPX_PLAN_OPTION_MAX_N:
      return {&spxPlanOptions::max_n, "SPX_PLAN_OPTION_MAX_N",
              "-1 (any n), 0 (the analyzed n) or a positive bound",
              [](int32_t v) { return v >= -1; }};
    case SPX_PLAN_OPTION_EPILOGUE_ACTIVATION:
      return {&spxPlanOptions::epilogue_activation, "SPX_PLAN_OPTION_EPILOGUE_ACTIVATION",
              "SPX_ACTIVATION_NONE (0), SPX_ACTIVATION_RELU (1), SPX_ACTIVATION_GELU_TANH (2) or "
              "SPX_ACTIVATION_SILU (3)",
              [](int32_t v) { return v >= SPX_ACTIVATION_NONE && v <= SPX_ACTIVATION_SILU; }};
    case SPX_PLAN_OPTION_EPILOGUE_BIAS:
      return {&spxPlanOptions::epilogue_bias, "SPX_PLAN_OPTION_EPILOGUE_BIAS", "0 or 1",
              [](int32_t v) { return v == 0 || v == 1; }};
    case SPX_PLAN_OPTION_EPILOGUE_SCALE:
      return {&spxPlanOptions::epilogue_scale, "SPX_PLAN_OPTION_EPILOGUE_SCALE", "0 or 1",
              [](int32_t v) { return v == 0 || v == 1; }};
  }
  spx::fail(SPX_STATUS_INVALID_VALUE,
            spx::strf("option (%d) is not a spxPlanOption_t value", static_cast<int>(option)));
}

/// The option's field, after checking the caller's value buffer against its type.
OptionField checked_field(spxPlanOption_t option, const void* value, size_t size) {
  spx::validate::not_null(value, "value");
  const OptionField f = field(option);
  SPX_CHECK_ARG(size == sizeof(int32_t),
                "size (%zu) must be %zu bytes, the size of the option's value", size,
                sizeof(int32_t));
  return f;
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
    const OptionField f = checked_field(option, value, size);
    int32_t v;
    std::memcpy(&v, value, sizeof v);
    SPX_CHECK_ARG(f.valid(v), "%s must be %s, not %d", f.name, f.range, v);
    options->*f.member = v;
  });
}

spxStatus_t spxPlanOptionsGet(spxConstPlanOptions_t options, spxPlanOption_t option, void* value,
                              size_t size) {
  return spx::guard("spxPlanOptionsGet", [&] {
    spx::validate::not_null(options, "options");
    const OptionField f = checked_field(option, value, size);
    std::memcpy(value, &(options->*f.member), sizeof(int32_t));
  });
}

}  // extern "C"
