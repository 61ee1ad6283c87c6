// Device side of the tests: checked CUDA calls, RAII wrappers of the spx handle / descriptors /
// plan, and helpers that upload a HostSparse / HostDense and create the matching descriptor.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "host_builders.hpp"
#include "spx_test/device_buffer.hpp"
#include "spx/spx.h"

namespace spx::test {

/// True when a CUDA device is present and device 0 is sm_80 or newer. Never throws.
bool gpu_available();

/// Throws std::runtime_error naming the call when `err` is not cudaSuccess.
void cuda_check(cudaError_t err, const char* expr, const char* file, int line);
#define SPX_CUDA_CHECK(expr) ::spx::test::cuda_check((expr), #expr, __FILE__, __LINE__)

/// Throws std::runtime_error with the status name and spxGetLastErrorMessage when `st` is not
/// SPX_STATUS_SUCCESS (for setup steps inside helpers; tests use REQUIRE_SPX).
void spx_check(spxStatus_t st, const char* expr, const char* file, int line);
#define SPX_CHECK_OK(expr) ::spx::test::spx_check((expr), #expr, __FILE__, __LINE__)

// DeviceBuffer (an RAII device allocation with a guard zone, shared with spx-bench) and
// kTailGuardByte come from spx_test/device_buffer.hpp; DeviceBuffer::from uploads a std::vector.

// ---------------------------------------------------------------- RAII spx objects

struct HandleDeleter {
  void operator()(spxContext* h) const { spxDestroy(h); }
};
struct SpMatDeleter {
  void operator()(spxSpMatDescr* d) const { spxDestroySpMat(d); }
};
struct DnMatDeleter {
  void operator()(spxDnMatDescr* d) const { spxDestroyDnMat(d); }
};
struct PlanDeleter {
  void operator()(spxPlan* p) const { spxPlanDestroy(p); }
};
using UniqueHandle = std::unique_ptr<spxContext, HandleDeleter>;
using UniqueSpMat = std::unique_ptr<spxSpMatDescr, SpMatDeleter>;
using UniqueDnMat = std::unique_ptr<spxDnMatDescr, DnMatDeleter>;
using UniquePlan = std::unique_ptr<spxPlan, PlanDeleter>;

/// spxCreate, checked.
UniqueHandle make_handle();

/// A stream created with cudaStreamCreateWithFlags(NonBlocking), destroyed on scope exit.
class Stream {
 public:
  Stream();
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return s_; }
  spxStream_t spx() const { return reinterpret_cast<spxStream_t>(s_); }
  void sync() const;

 private:
  cudaStream_t s_ = nullptr;
};

/// A HostSparse on the device with its descriptor. The values buffer has a guard zone of
/// `values_guard` bytes (used for SDDMM outputs).
struct DeviceSparse {
  DeviceBuffer ptr, idx, values;
  UniqueSpMat descr;
  spxSpMatDescr_t get() const { return descr.get(); }
};

/// Uploads `s` and creates the descriptor of its format (checked).
DeviceSparse to_device(const HostSparse& s, size_t values_guard = 0);
/// Creates a descriptor for `s`'s shape and format over already uploaded arrays.
UniqueSpMat make_sparse_descr(const HostSparse& s, void* ptr, void* idx, void* values);
/// A copy of `like` whose values are downloaded from d.values.
HostSparse download_values(const DeviceSparse& d, const HostSparse& like);

/// A HostDense on the device with its descriptor; the buffer has a guard zone of `guard` bytes.
struct DeviceDense {
  DeviceBuffer buf;
  UniqueDnMat descr;
  spxDnMatDescr_t get() const { return descr.get(); }
};

DeviceDense to_device(const HostDense& d, size_t guard = 0);
UniqueDnMat make_dense_descr(const HostDense& d, void* values);
/// A copy of `like` whose data is downloaded from d.buf.
HostDense download(const DeviceDense& d, const HostDense& like);

/// alpha / beta in the representation the library reads: float, or int32 when the output is 32I.
struct ScalarBytes {
  alignas(8) unsigned char bytes[8] = {};
  const void* get() const { return bytes; }
};
ScalarBytes make_scalar(double v, spxDataType_t out_type);

/// Waits for the device and throws if a kernel failed (a sticky or asynchronous error).
void device_sync();

}  // namespace spx::test
