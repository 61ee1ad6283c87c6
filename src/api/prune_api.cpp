// Device pruning entry points (like cusparseLtSpMMAPrune). This file holds the vector-wise N:M
// pair, spxPruneNM and spxCheckNM; the kernels are in kernels/nm/prune.cu and give the same
// result as spxHostPruneNM / spxHostCheckNM. Arguments are checked in the host tools' order
// (handle, output pointer, sizes, order, leading dimension, input pointer, type, N:M parameters,
// outputs), and device arrays are checked to be device memory before any kernel runs.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "api/objects.hpp"
#include "api/validate.hpp"
#include "core/dtype.hpp"
#include "core/error.hpp"
#include "kernels/nm/launch.hpp"

namespace {

using ll = long long;

struct NmPruneInput {
  int64_t kc = 0;
};

// The dense fp32 input and the N:M parameters, checked as spxHostPruneNM checks them.
NmPruneInput check_nm_input(int64_t rows, int64_t cols, const void* dense, int64_t ld,
                            spxOrder_t order, spxDataType_t type, int64_t n, int64_t m, int64_t l) {
  SPX_CHECK_ARG(rows >= 0, "rows (%lld) must be >= 0", ll(rows));
  SPX_CHECK_ARG(cols >= 0, "cols (%lld) must be >= 0", ll(cols));
  SPX_CHECK_ARG(rows <= INT32_MAX - 1 && cols <= INT32_MAX,
                "the shape %lld x %lld does not fit the int32 indices", ll(rows), ll(cols));
  SPX_CHECK_ARG(order == SPX_ORDER_ROW || order == SPX_ORDER_COL,
                "order (%d) is not a valid spxOrder_t", static_cast<int>(order));
  const bool row_major = order == SPX_ORDER_ROW;
  const int64_t line = row_major ? cols : rows;
  const int64_t lines = row_major ? rows : cols;
  const int64_t min_ld = line > 1 ? line : 1;
  SPX_CHECK_ARG(ld >= min_ld, "ld (%lld) must be >= %lld for a %lld x %lld %s-major matrix", ll(ld),
                ll(min_ld), ll(rows), ll(cols), row_major ? "row" : "column");
  SPX_CHECK_ARG(lines <= 1 || ld <= INT64_MAX / lines, "ld (%lld) times %lld overflows int64",
                ll(ld), ll(lines));
  SPX_CHECK_ARG(rows == 0 || cols == 0 || dense != nullptr,
                "dense is NULL for a non-empty %lld x %lld matrix", ll(rows), ll(cols));
  SPX_CHECK_ARG(spx::dtype::is_valid(type), "type (%d) is not a valid spxDataType_t",
                static_cast<int>(type));
  SPX_EXPECTS(type == SPX_R_32F, SPX_STATUS_NOT_SUPPORTED,
              "device N:M pruning takes fp32 matrices only (type is %s)", spx::dtype::name(type));
  SPX_CHECK_ARG(n >= 1, "N (%lld) must be >= 1", ll(n));
  SPX_CHECK_ARG(m >= 1, "M (%lld) must be >= 1", ll(m));
  SPX_CHECK_ARG(l >= 1, "L (%lld) must be >= 1", ll(l));
  SPX_CHECK_ARG(n <= m, "N (%lld) must be <= M (%lld)", ll(n), ll(m));
  SPX_CHECK_ARG(cols % m == 0, "cols (%lld) must be a multiple of M (%lld)", ll(cols), ll(m));
  SPX_CHECK_ARG(rows % l == 0, "rows (%lld) must be a multiple of L (%lld)", ll(rows), ll(l));
  return {cols / m * n};
}

spx::kernels::nm::PruneArgs prune_args(int64_t rows, int64_t cols, const void* dense, int64_t ld,
                                       spxOrder_t order, int64_t n, int64_t m, int64_t l) {
  spx::kernels::nm::PruneArgs a;
  a.rows = rows;
  a.cols = cols;
  a.ld = ld;
  a.dense = static_cast<const float*>(dense);
  a.order = order;
  a.n = n;
  a.m = m;
  a.l = l;
  return a;
}

/// Stream-ordered scratch memory, freed (stream-ordered) on every path.
class StreamScratch {
 public:
  StreamScratch(size_t bytes, cudaStream_t stream) : stream_(stream) {
    if (bytes == 0) return;
    const cudaError_t err = cudaMallocAsync(&ptr_, bytes, stream);
    if (err != cudaSuccess) {
      cudaGetLastError();
      ptr_ = nullptr;
      spx::fail(SPX_STATUS_ALLOC_FAILED, spx::strf("device allocation of %zu bytes failed: %s",
                                                    bytes, cudaGetErrorString(err)));
    }
  }
  ~StreamScratch() {
    if (ptr_ != nullptr) cudaFreeAsync(ptr_, stream_);
  }
  StreamScratch(const StreamScratch&) = delete;
  StreamScratch& operator=(const StreamScratch&) = delete;
  void* get() const { return ptr_; }

 private:
  void* ptr_ = nullptr;
  cudaStream_t stream_;
};

}  // namespace

extern "C" {

spxStatus_t spxPruneNM(spxHandle_t handle, int64_t rows, int64_t cols, const void* dense, int64_t ld,
                       spxOrder_t order, spxDataType_t type, int64_t n, int64_t m, int64_t l,
                       void* values, void* indices) {
  return spx::guard("spxPruneNM", [&] {
    spx::validate::handle(handle);
    const NmPruneInput in = check_nm_input(rows, cols, dense, ld, order, type, n, m, l);
    SPX_CHECK_ARG(rows * in.kc == 0 || values != nullptr, "values is NULL");
    SPX_CHECK_ARG(rows * in.kc == 0 || indices != nullptr, "indices is NULL");
    if (rows == 0 || cols == 0) return;
    spx::device::DeviceGuard on_device(handle->device);
    spx::device::expect_device_pointer(dense, "dense");
    spx::device::expect_device_pointer(values, "values");
    spx::device::expect_device_pointer(indices, "indices");
    spx::device::check(spx::kernels::nm::prune_load(), "loading the N:M pruning kernels");
    spx::kernels::nm::PruneArgs a = prune_args(rows, cols, dense, ld, order, n, m, l);
    const size_t entries = static_cast<size_t>(rows / l * cols);
    StreamScratch scratch(entries * (sizeof(double) + 1), handle->stream);
    a.norms = static_cast<double*>(scratch.get());
    a.values = static_cast<float*>(values);
    a.indices = static_cast<int32_t*>(indices);
    spx::device::check(spx::kernels::nm::prune(a, handle->stream), "launching the N:M pruning kernels");
  });
}

spxStatus_t spxCheckNM(spxHandle_t handle, int64_t rows, int64_t cols, const void* dense, int64_t ld,
                       spxOrder_t order, spxDataType_t type, int64_t n, int64_t m, int64_t l,
                       int* ok) {
  return spx::guard("spxCheckNM", [&] {
    spx::validate::handle(handle);
    spx::validate::not_null(ok, "ok");
    check_nm_input(rows, cols, dense, ld, order, type, n, m, l);
    if (rows == 0 || cols == 0) {
      *ok = 1;
      return;
    }
    spx::device::DeviceGuard on_device(handle->device);
    spx::device::expect_device_pointer(dense, "dense");
    spx::device::check(spx::kernels::nm::prune_load(), "loading the N:M pattern check kernel");
    const spx::kernels::nm::PruneArgs a = prune_args(rows, cols, dense, ld, order, n, m, l);
    StreamScratch flag(sizeof(int), handle->stream);
    int* violation = static_cast<int*>(flag.get());
    spx::device::check(cudaMemsetAsync(violation, 0, sizeof(int), handle->stream),
                       "clearing the N:M check flag");
    spx::device::check(spx::kernels::nm::check(a, violation, handle->stream),
                       "launching the N:M pattern check kernel");
    int host_flag = 0;
    spx::device::check(cudaMemcpyAsync(&host_flag, violation, sizeof(int), cudaMemcpyDeviceToHost,
                                       handle->stream),
                       "reading the N:M check result");
    spx::device::check(cudaStreamSynchronize(handle->stream), "waiting for the N:M check");
    *ok = host_flag == 0 ? 1 : 0;
  });
}

}  // extern "C"
