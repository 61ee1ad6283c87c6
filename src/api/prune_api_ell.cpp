// spxPruneUniform: uniform pruning of a dense fp32 matrix in device memory, the same result as
// spxHostPruneUniform (families/ell/kernels/pack_prune.cu explains why a per-row top-ell_width selection
// is exactly the host's column-l2 algorithm). Arguments are checked in the host tool's order.
#include <cstdint>

#include "runtime/objects.hpp"
#include "api/validate.hpp"
#include "families/ell/kernels/ell.hpp"

namespace {

using ll = long long;

}  // namespace

extern "C" spxStatus_t spxPruneUniform(spxHandle_t handle, int64_t rows, int64_t cols,
                                       const void* dense, int64_t ld, spxOrder_t order,
                                       spxDataType_t type, int64_t ell_width, void* col_ind,
                                       void* values) {
  return spx::guard("spxPruneUniform", [&] {
    spx::validate::handle(handle);
    spx::validate::dense_input(rows, cols, dense, ld, order);
    spx::validate::data_type(type, "type");
    SPX_EXPECTS(type == SPX_R_32F, SPX_STATUS_NOT_SUPPORTED,
                "spxPruneUniform takes fp32 (SPX_R_32F) matrices only");
    SPX_CHECK_ARG(ell_width >= 1, "ell_width (%lld) must be >= 1", ll(ell_width));
    SPX_CHECK_ARG(ell_width <= cols, "ell_width (%lld) must be <= cols (%lld)", ll(ell_width),
                  ll(cols));
    SPX_CHECK_ARG(rows == 0 || col_ind != nullptr, "col_ind is NULL");
    SPX_CHECK_ARG(rows == 0 || values != nullptr, "values is NULL");
    if (rows == 0) return;
    spx::device::DeviceGuard on_device(handle->device);
    spx::device::expect_device_pointer(dense, "dense");
    spx::device::expect_device_pointer(col_ind, "col_ind");
    spx::device::expect_device_pointer(values, "values");
    spx::kernels::ell::PruneArgs a;
    a.rows = rows;
    a.cols = cols;
    a.ld = ld;
    a.dense = static_cast<const float*>(dense);
    a.row_major = order == SPX_ORDER_ROW;
    a.ell_width = ell_width;
    a.col_ind = static_cast<int32_t*>(col_ind);
    a.values = static_cast<float*>(values);
    spx::device::check(spx::kernels::ell::prune_uniform_load(), "loading the pruning kernel");
    spx::device::check(spx::kernels::ell::prune_uniform(a, handle->stream),
                       "launching the uniform pruning kernel");
  });
}
