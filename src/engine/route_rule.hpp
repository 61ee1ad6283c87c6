// The route decision's rule: sparse family or dense cuBLAS, from the option, the algorithm, and
// the two time estimates. Plain C++ (the CPU tests include it); engine/route.cpp gathers the
// inputs (builds the plans, queries the device, measures under SPX_PLAN_OPTION_AUTOTUNE).
#pragma once

#include <cstdint>

#include "spx/spx_types.h"

namespace spx::engine {

/// AUTO takes dense only when it is clearly faster: by this factor and by this many us (the
/// estimates are models; a near tie keeps the sparse family, whose plan is already built).
constexpr double kDenseMargin = 1.10;
constexpr double kDenseMinGainUs = 2.0;
/// The fallback family (and any family without a model) is predicted slower than dense above
/// this density of A (its work scales with the stored entries, dense's with m x k).
constexpr double kModelLessBreakEvenDensity = 0.01;

/// The sparse family's estimate, us per execute. `reference_us` is the model of the dense GEMM
/// the families' predicted_speedup compares against (SGEMM without TF32 for fp32, HGEMM for
/// 16-bit), `fixed_us` its fixed part: both routes pay one launch, the family's speedup divides
/// the rest. Without a model (speedup <= 0): the rest scaled by density / 1 %.
double sparse_estimate_us(double predicted_speedup, double density, double reference_us,
                          double fixed_us);

struct RouteInputs {
  int32_t option = SPX_DENSE_ROUTE_AUTO;     ///< SPX_PLAN_OPTION_DENSE_ROUTE
  spxSpMMAlg_t alg = SPX_SPMM_ALG_DEFAULT;   ///< the caller's algorithm
  bool dense_possible = false;               ///< dense_can_implement said yes
  bool empty = false;                        ///< C has no elements: nothing to win
  double sparse_us = 0, dense_us = 0;        ///< estimates (or measurements)
  bool measured = false;                     ///< the times were measured (AUTOTUNE): no margin
};

enum class Route { Sparse = 0, Dense = 1 };

/// SPX_SPMM_ALG_DENSE or ALWAYS: Dense (the caller reports a refusal as NOT_SUPPORTED). NEVER, a
/// forced sparse family, an empty product or no dense route: Sparse. AUTO under DEFAULT: Dense
/// when dense_us * kDenseMargin < sparse_us and sparse_us - dense_us >= kDenseMinGainUs; with
/// measured times, when dense_us < sparse_us.
Route decide_route(const RouteInputs& in);

}  // namespace spx::engine
