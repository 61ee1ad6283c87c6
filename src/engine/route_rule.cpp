#include "engine/route_rule.hpp"

#include <algorithm>

namespace spx::engine {

double sparse_estimate_us(double predicted_speedup, double density, double reference_us,
                          double fixed_us) {
  const double work = std::max(0.0, reference_us - fixed_us);
  if (predicted_speedup > 0) return fixed_us + work / predicted_speedup;
  return fixed_us + work * std::max(0.0, density) / kModelLessBreakEvenDensity;
}

Route decide_route(const RouteInputs& in) {
  if (in.alg == SPX_SPMM_ALG_DENSE || in.option == SPX_DENSE_ROUTE_ALWAYS) return Route::Dense;
  if (in.option == SPX_DENSE_ROUTE_NEVER || in.alg != SPX_SPMM_ALG_DEFAULT) return Route::Sparse;
  if (!in.dense_possible || in.empty) return Route::Sparse;
  if (in.measured) return in.dense_us < in.sparse_us ? Route::Dense : Route::Sparse;
  const bool clearly_faster = in.dense_us * kDenseMargin < in.sparse_us &&
                              in.sparse_us - in.dense_us >= kDenseMinGainUs;
  return clearly_faster ? Route::Dense : Route::Sparse;
}

}  // namespace spx::engine
