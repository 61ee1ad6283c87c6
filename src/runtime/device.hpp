// Thin CUDA runtime helpers for the API layer: checked calls, an owning device buffer, a guard
// that switches to the handle's device, and a check that a pointer really is device memory.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <vector>

#include "runtime/error.hpp"
#include "runtime/host_vector.hpp"
#include "runtime/parallel.hpp"
#include "runtime/serial.hpp"

namespace spx::device {

/// Throws spx::Error(EXECUTION_FAILED, "<what>: <cuda error string>") when err != cudaSuccess.
void check(cudaError_t err, const char* what);

/// The library's own streams on a device (non-blocking, created on first use, kept for the
/// process): plan buffers are allocated on one and released on the other, so that a release
/// waiting for a plan's work never delays another plan's allocation.
enum class StreamRole { Allocate = 0, Release = 1 };
cudaStream_t internal_stream(int device, StreamRole role);

/// Owning device allocation. Allocated from the device's stream-ordered pool (cudaMallocAsync on
/// the Allocate internal stream, ready on return) where the device has one, else cudaMalloc. Freed with
/// cudaFreeAsync on the stream of an active ReleaseScope (no host wait, no device-wide stall: the
/// scope's stream is ordered after the buffer's last use), else with cudaFree. Move-only.
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
  void release();
  void* ptr_ = nullptr;
  size_t bytes_ = 0;
  bool pooled_ = false;  ///< from cudaMallocAsync (may be freed in stream order)
};

/// While alive, Buffers destroyed on this thread are freed in the order of `stream` instead of
/// with cudaFree (which waits for the whole device).
class ReleaseScope {
 public:
  explicit ReleaseScope(cudaStream_t stream);
  ~ReleaseScope();
  ReleaseScope(const ReleaseScope&) = delete;
  ReleaseScope& operator=(const ReleaseScope&) = delete;

 private:
  cudaStream_t previous_;
};

/// While alive, this thread's stream-capture mode is relaxed: stream-ordered calls on streams that
/// are not capturing (cudaFreeAsync on the release stream) stay legal while another stream
/// captures in global mode, which would otherwise refuse them and invalidate that capture.
class RelaxedCaptureMode {
 public:
  RelaxedCaptureMode();
  ~RelaxedCaptureMode();
  RelaxedCaptureMode(const RelaxedCaptureMode&) = delete;
  RelaxedCaptureMode& operator=(const RelaxedCaptureMode&) = delete;

 private:
  cudaStreamCaptureMode previous_ = cudaStreamCaptureModeRelaxed;
};

/// Where an object's device work was queued: one event per stream, recorded after each use, so
/// that the object can be released once its own work is done without waiting for anything else.
/// Thread-safe (a plan may be executed by several threads at once).
class UseTracker {
 public:
  UseTracker() = default;
  ~UseTracker();
  UseTracker(const UseTracker&) = delete;
  UseTracker& operator=(const UseTracker&) = delete;

  /// Records that work using the object was just queued on `stream`. Nothing is recorded while
  /// `stream` is being captured (that work runs when the graph is launched, which is not tracked).
  void record(cudaStream_t stream);
  /// Makes `stream` wait (on the device) for every recorded use.
  void order_after(cudaStream_t stream) const;

 private:
  struct Use {
    cudaStream_t stream;
    cudaEvent_t event;
  };
  mutable std::mutex mutex_;
  std::vector<Use> uses_;
};

/// Uploads a host vector into a new device buffer on `stream` (synchronous w.r.t. the host data).
template <class T, class Alloc>
Buffer upload(const std::vector<T, Alloc>& host, cudaStream_t stream) {
  Buffer buf(host.size() * sizeof(T));
  if (!host.empty()) {
    check(cudaMemcpyAsync(buf.get(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice,
                          stream),
          "copying plan data to the device");
    check(cudaStreamSynchronize(stream), "copying plan data to the device");
  }
  return buf;
}

/// A loaded plan's array (a view into the caller's bytes) in a new device buffer, queued on
/// `stream` without waiting (a pageable source may be reused on return: the driver has staged it).
Buffer upload(const serial::Array& a, cudaStream_t stream);

/// A device buffer as an array of a plan's record (what spxPlanSerialize reads back).
inline serial::Array array_of(const Buffer& b) { return {b.get(), b.bytes()}; }

/// Copies `count` elements of T from device memory into a host vector (blocks on `stream`; the
/// vector is not zeroed first).
template <class T>
HostVector<T> download(const void* dev, int64_t count, cudaStream_t stream) {
  HostVector<T> host(static_cast<size_t>(count));
  // The fresh pages are touched in parallel first: the copy into pageable memory would otherwise
  // take every first-touch page fault on one thread.
  constexpr int64_t kPage = 4096 / sizeof(T) > 0 ? 4096 / sizeof(T) : 1;
  parallel::for_chunks((count + kPage - 1) / kPage, 256, [&](int64_t p0, int64_t p1) {
    for (int64_t p = p0; p < p1; ++p) host[static_cast<size_t>(p * kPage)] = T{};
  });
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

/// Page-locks a host range (read-only) for the guard's lifetime, so that copies from it go
/// straight to the DMA engine instead of through the driver's pageable staging: on an H200, 72 MB
/// upload in 9 ms pageable, and in 1.4 ms pinned after a 3-4 ms registration. Ranges under
/// kMinBytes, memory CUDA already knows (pinned, managed, device) and ranges the driver will not
/// register are left as they are (the copies then stage as before). One guard at a time in the
/// process: a second one would see the first's pages as pinned and could outlive them. The
/// destructor waits for `stream` before unpinning (an exception may leave copies queued).
class PinnedRange {
 public:
  static constexpr size_t kMinBytes = size_t{8} << 20;
  PinnedRange(const void* p, size_t bytes, cudaStream_t stream);
  ~PinnedRange();
  PinnedRange(const PinnedRange&) = delete;
  PinnedRange& operator=(const PinnedRange&) = delete;

 private:
  std::unique_lock<std::mutex> lock_;
  cudaStream_t stream_ = nullptr;
  void* registered_ = nullptr;
};

}  // namespace spx::device
