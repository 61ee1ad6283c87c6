// Device-side plumbing: the RAII device buffer, the per-run GPU context (stream and library
// handles), and rotated operand copies that keep small problems from timing out of L2.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <cstdint>
#include <string>
#include <vector>

#include "spx/spx.h"
#include "spx_test/device_buffer.hpp"

namespace bench {

/// Owns one cudaMalloc allocation (none when empty): the tests' RAII buffer
/// (tests/common/include/spx_test/device_buffer.hpp), with every upload and download
/// synchronizing the device, since the timed work runs on a non-blocking stream.
using DeviceBuffer = spx::test::BasicDeviceBuffer<spx::test::CopySync::kDevice>;

/// After a case threw: whether the CUDA context is broken (a kernel fault poisons it, so every
/// later case would fail the same way); says so on stderr when it is.
bool context_broken();

/// The GPU, its stream and the library handles, created once per run. All timed work and all
/// libraries use the same non-blocking stream, so events bracket exactly the launches.
class GpuContext {
 public:
  /// Throws bench::Error if no usable GPU (main prints "no CUDA GPU" and exits 1).
  GpuContext();
  ~GpuContext();
  GpuContext(const GpuContext&) = delete;
  GpuContext& operator=(const GpuContext&) = delete;

  cudaStream_t stream() const { return stream_; }
  cublasHandle_t cublas() const { return cublas_; }
  cusparseHandle_t cusparse() const { return cusparse_; }
  spxHandle_t spx() const { return spx_; }
  size_t l2_bytes() const { return l2_bytes_; }
  std::string describe() const;  ///< "NVIDIA H100 80GB HBM3 (sm_90, 132 SMs, L2 50 MB)"

 private:
  void init();
  void release();

  int device_ = 0;
  cudaDeviceProp props_{};
  size_t l2_bytes_ = 0;
  cudaStream_t stream_ = nullptr;
  cublasHandle_t cublas_ = nullptr;
  cusparseHandle_t cusparse_ = nullptr;
  spxHandle_t spx_ = nullptr;
  DeviceBuffer cublas_workspace_;
};

/// Returns a message if this process sees no usable CUDA GPU ("" if it does).
std::string probe_gpu();

/// Whether this process sees no usable CUDA GPU; says so on stderr when it does not (a preset
/// then has nothing to measure and exits 1).
bool no_gpu_here();

/// How many copies of the rotated operands to keep so a sequence of launches streams more than
/// 3x the L2 size: 1 when fixed + rotated bytes already exceed it, else enough copies (<= 1024).
int rotation_copies(size_t l2_bytes, size_t fixed_bytes, size_t rotated_bytes);

/// `copies` copies of one operand in one allocation (256-byte aligned slots); copy i is
/// launch i % copies. Every copy starts with the same contents.
class RotatedArray {
 public:
  RotatedArray() = default;
  /// host may be null (contents zeroed). bytes is the size of one copy.
  RotatedArray(const void* host, size_t bytes, int copies);
  void* at(int64_t launch) const;
  int copies() const { return copies_; }
  size_t bytes() const { return bytes_; }

 private:
  DeviceBuffer buf_;
  size_t bytes_ = 0, stride_ = 0;
  int copies_ = 0;
};

}  // namespace bench
