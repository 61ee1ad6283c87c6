// The one RAII device buffer of the tests and spx-bench: a cudaMalloc allocation with an optional
// guard zone after its logical end. Header-only, and it uses nothing but the CUDA runtime, so
// spx-bench (which links libspx's public API alone) includes it as well as the test suites.
// libspx's own spx::device::Buffer (src/runtime/device.hpp) is internal and not exported.
//
// CopySync says what upload / download wait for around their cudaMemcpy:
//   kNone:   nothing beyond cudaMemcpy itself (the tests, which synchronize where they mean to);
//   kDevice: the whole device, before a download and after an upload (spx-bench, whose timed
//            work runs on a non-blocking stream that does not wait for the legacy default stream,
//            and whose pageable uploads may return before the DMA lands).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace spx::test {

/// Byte written into a DeviceBuffer's guard zone (after its logical end).
constexpr uint8_t kTailGuardByte = 0x5C;

enum class CopySync { kNone, kDevice };

namespace detail {

/// Throws std::runtime_error naming `what` and the CUDA error when `err` is not cudaSuccess.
inline void device_buffer_check(cudaError_t err, const std::string& what) {
  if (err == cudaSuccess) return;
  throw std::runtime_error("DeviceBuffer: " + what + " failed: " + cudaGetErrorName(err) + " (" +
                           cudaGetErrorString(err) + ")");
}

}  // namespace detail

/// cudaMalloc'ed bytes plus an optional guard zone right after them, filled with
/// kTailGuardByte; tail_intact() says whether anything wrote past the end. Move-only; no
/// allocation (get() is NULL) when both sizes are 0.
template <CopySync Sync>
class BasicDeviceBuffer {
 public:
  BasicDeviceBuffer() = default;

  explicit BasicDeviceBuffer(size_t bytes, size_t guard_bytes = 0)
      : bytes_(bytes), guard_(guard_bytes) {
    if (bytes_ + guard_ == 0) return;
    const cudaError_t err = cudaMalloc(&ptr_, bytes_ + guard_);
    if (err != cudaSuccess) {
      ptr_ = nullptr;
      detail::device_buffer_check(
          err, "cudaMalloc of " + std::to_string(bytes_ + guard_) + " bytes (" +
                   std::to_string((bytes_ + guard_) >> 20) + " MiB)");
    }
    if (guard_ > 0) {
      const cudaError_t set = cudaMemset(static_cast<uint8_t*>(ptr_) + bytes_, kTailGuardByte, guard_);
      if (set != cudaSuccess) {
        cudaFree(ptr_);
        ptr_ = nullptr;
        detail::device_buffer_check(set, "cudaMemset of the guard zone");
      }
    }
  }

  /// Allocates host.size() bytes (+ guard) and copies `host` in.
  explicit BasicDeviceBuffer(const std::vector<uint8_t>& host, size_t guard_bytes = 0)
      : BasicDeviceBuffer(host.size(), guard_bytes) {
    if (!host.empty()) upload(host.data(), host.size());
  }

  /// A buffer holding a copy of a std::vector of plain values (e.g. int32 indices).
  template <class T>
  static BasicDeviceBuffer from(const std::vector<T>& host, size_t guard_bytes = 0) {
    BasicDeviceBuffer b(host.size() * sizeof(T), guard_bytes);
    if (!host.empty()) b.upload(host.data(), host.size() * sizeof(T));
    return b;
  }

  ~BasicDeviceBuffer() {
    if (ptr_) cudaFree(ptr_);  // no check: destructors run during unwinding too
  }

  BasicDeviceBuffer(BasicDeviceBuffer&& other) noexcept
      : ptr_(std::exchange(other.ptr_, nullptr)),
        bytes_(std::exchange(other.bytes_, 0)),
        guard_(std::exchange(other.guard_, 0)) {}

  BasicDeviceBuffer& operator=(BasicDeviceBuffer&& other) noexcept {
    if (this != &other) {
      if (ptr_) cudaFree(ptr_);
      ptr_ = std::exchange(other.ptr_, nullptr);
      bytes_ = std::exchange(other.bytes_, 0);
      guard_ = std::exchange(other.guard_, 0);
    }
    return *this;
  }

  BasicDeviceBuffer(const BasicDeviceBuffer&) = delete;
  BasicDeviceBuffer& operator=(const BasicDeviceBuffer&) = delete;

  /// Device pointer (NULL when 0 bytes and no guard).
  void* get() const { return ptr_; }
  /// Logical size in bytes (the guard zone not counted).
  size_t size() const { return bytes_; }

  void upload(const void* src, size_t bytes, size_t offset = 0) {
    if (offset + bytes > bytes_) throw std::logic_error("DeviceBuffer::upload past the end");
    if (bytes == 0) return;
    detail::device_buffer_check(
        cudaMemcpy(static_cast<uint8_t*>(ptr_) + offset, src, bytes, cudaMemcpyHostToDevice),
        "cudaMemcpy to the device");
    // A pageable cudaMemcpy may return before the DMA lands.
    if (Sync == CopySync::kDevice)
      detail::device_buffer_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize after upload");
  }
  void upload(const std::vector<uint8_t>& src) { upload(src.data(), src.size()); }

  void download(void* dst, size_t bytes, size_t offset = 0) const {
    if (offset + bytes > bytes_) throw std::logic_error("DeviceBuffer::download past the end");
    if (bytes == 0) return;
    // The results may come from a non-blocking stream.
    if (Sync == CopySync::kDevice)
      detail::device_buffer_check(cudaDeviceSynchronize(), "cudaDeviceSynchronize before download");
    detail::device_buffer_check(
        cudaMemcpy(dst, static_cast<const uint8_t*>(ptr_) + offset, bytes, cudaMemcpyDeviceToHost),
        "cudaMemcpy from the device");
  }
  std::vector<uint8_t> download() const {
    std::vector<uint8_t> out(bytes_);
    download(out.data(), bytes_);
    return out;
  }

  /// True when every guard byte still holds kTailGuardByte.
  bool tail_intact() const {
    if (guard_ == 0) return true;
    std::vector<uint8_t> tail(guard_);
    detail::device_buffer_check(cudaMemcpy(tail.data(), static_cast<const uint8_t*>(ptr_) + bytes_,
                                           guard_, cudaMemcpyDeviceToHost),
                                "cudaMemcpy of the guard zone");
    for (uint8_t b : tail)
      if (b != kTailGuardByte) return false;
    return true;
  }

 private:
  void* ptr_ = nullptr;
  size_t bytes_ = 0, guard_ = 0;
};

/// The tests' buffer: copies wait for nothing more than cudaMemcpy does.
using DeviceBuffer = BasicDeviceBuffer<CopySync::kNone>;

}  // namespace spx::test
