#include "families/operands.hpp"

#include <cstring>

namespace spx::dispatch {

const char* order_name(spxOrder_t o) { return o == SPX_ORDER_ROW ? "row" : "col"; }

kernels::DenseView view_of(const spxDnMatDescr& d) { return {d.values, d.ld, d.type, d.order}; }

kernels::Scalars scalars_of(const spxContext& h, const void* alpha, const void* beta,
                            bool integer_output) {
  kernels::Scalars s{};
  if (h.pointer_mode == SPX_POINTER_MODE_DEVICE) {
    s.alpha_dev = alpha;
    s.beta_dev = beta;
  } else if (integer_output) {
    std::memcpy(&s.alpha_i, alpha, sizeof(int32_t));
    std::memcpy(&s.beta_i, beta, sizeof(int32_t));
  } else {
    std::memcpy(&s.alpha_f, alpha, sizeof(float));
    std::memcpy(&s.beta_f, beta, sizeof(float));
  }
  return s;
}

kernels::Scalars spmm_scalars_of(const spxContext& h, const SpmmCall& call, bool integer_output) {
  kernels::Scalars s = scalars_of(h, call.alpha, call.beta, integer_output);
  s.epilogue = call.epilogue;
  return s;
}

}  // namespace spx::dispatch
