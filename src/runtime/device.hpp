// Thin CUDA runtime helpers for the API layer: checked calls, an owning device buffer, a guard
// that switches to the handle's device, and a check that a pointer really is device memory.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "runtime/error.hpp"

namespace spx::device {

/// Throws spx::Error(EXECUTION_FAILED, "<what>: <cuda error string>") when err != cudaSuccess.
void check(cudaError_t err, const char* what);

/// Owning device allocation (cudaMalloc / cudaFree). Move-only.
class Buffer {
 public:
  Buffer() = default;
  explicit Buffer(size_t bytes);
  ~Buffer();
  Buffer(Buffer&& other) noexcept;
  Buffer& operator=(Buffer&& other) noexcept;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;

  void* get() const { return ptr_; }
  size_t bytes() const { return bytes_; }
  template <class T>
  T* as() const { return static_cast<T*>(ptr_); }

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
};

/// Uploads a host vector into a new device buffer on `stream` (synchronous w.r.t. the host data).
template <class T>
Buffer upload(const std::vector<T>& host, cudaStream_t stream) {
  Buffer buf(host.size() * sizeof(T));
  if (!host.empty()) {
    check(cudaMemcpyAsync(buf.get(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice,
                          stream),
          "copying plan data to the device");
    check(cudaStreamSynchronize(stream), "copying plan data to the device");
  }
  return buf;
}

/// Copies `count` elements of T from device memory into a host vector (blocks on `stream`).
template <class T>
std::vector<T> download(const void* dev, int64_t count, cudaStream_t stream) {
  std::vector<T> host(static_cast<size_t>(count));
  if (count > 0) {
    check(cudaMemcpyAsync(host.data(), dev, host.size() * sizeof(T), cudaMemcpyDeviceToHost,
                          stream),
          "reading the sparse structure from the device");
    check(cudaStreamSynchronize(stream), "reading the sparse structure from the device");
  }
  return host;
}

/// Throws INVALID_VALUE ("<name> is not a device pointer") unless ptr is device or managed memory.
void expect_device_pointer(const void* ptr, const char* name);

/// Makes `device` current for the guard's lifetime and restores the previous one after.
class DeviceGuard {
 public:
  explicit DeviceGuard(int device);
  ~DeviceGuard();
  DeviceGuard(const DeviceGuard&) = delete;
  DeviceGuard& operator=(const DeviceGuard&) = delete;

 private:
  int previous_ = -1;
  bool switched_ = false;
};

}  // namespace spx::device
