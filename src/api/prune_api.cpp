// Device pruning entry points (like cusparseLtSpMMAPrune). This file holds the vector-wise N:M
// pair, spxPruneNM and spxCheckNM; the kernels are in families/nm/kernels/prune.cu and give the same
// result as spxHostPruneNM / spxHostCheckNM. Arguments are checked in the host tools' order
// (handle, output pointer, sizes, order, leading dimension, input pointer, type, N:M parameters,
// outputs), and device arrays are checked to be device memory before any kernel runs.
#include <cuda_runtime_api.h>

#include <cstdint>

#include "runtime/objects.hpp"
#include "api/validate.hpp"
#include "runtime/dtype.hpp"
#include "runtime/error.hpp"
#include "families/nm/kernels/launch.hpp"

namespace {

struct NmPruneInput {
  int64_t kc = 0;
};

// The dense fp32 input and the N:M parameters, checked as spxHostPruneNM checks them.
NmPruneInput check_nm_input(int64_t rows, int64_t cols, const void* dense, int64_t ld,
                            spxOrder_t order, spxDataType_t type, int64_t n, int64_t m, int64_t l) {
  spx::validate::dense_input(rows, cols, dense, ld, order);
  spx::validate::data_type(type, "type");
  SPX_EXPECTS(type == SPX_R_32F, SPX_STATUS_NOT_SUPPORTED,
              "device N:M pruning takes fp32 matrices only (type is %s)", spx::dtype::name(type));
  spx::validate::nm_parameters(rows, cols, n, m, l);
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
