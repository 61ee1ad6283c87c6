#include "runtime/device.hpp"

namespace spx::device {

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    cudaGetLastError();  // clear the sticky-free error so later calls start clean
    fail(SPX_STATUS_EXECUTION_FAILED, strf("%s: %s", what, cudaGetErrorString(err)));
  }
}

namespace {

thread_local cudaStream_t release_stream = nullptr;

/// Whether `device` supports stream-ordered allocation (cudaDevAttrMemoryPoolsSupported).
bool pools_supported(int device) {
  int yes = 0;
  if (cudaDeviceGetAttribute(&yes, cudaDevAttrMemoryPoolsSupported, device) != cudaSuccess) {
    cudaGetLastError();
    return false;
  }
  return yes != 0;
}

}  // namespace

cudaStream_t internal_stream(int device, StreamRole role) {
  static std::mutex mutex;
  static std::vector<cudaStream_t> streams;  // [device * 2 + role]
  std::lock_guard<std::mutex> lock(mutex);
  if (device < 0) return nullptr;
  const size_t i = static_cast<size_t>(device) * 2 + static_cast<size_t>(role);
  if (streams.size() <= i) streams.resize(i + 1);
  cudaStream_t& s = streams[i];
  if (s == nullptr) check(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking),
                          "creating the library's internal stream");
  return s;
}

Buffer::Buffer(size_t bytes) : bytes_(bytes) {
  if (bytes == 0) return;
  int dev = 0;
  check(cudaGetDevice(&dev), "querying the current device");
  cudaError_t err;
  if (pools_supported(dev)) {
    const cudaStream_t s = internal_stream(dev, StreamRole::Allocate);
    err = cudaMallocAsync(&ptr_, bytes, s);
    if (err == cudaSuccess) err = cudaStreamSynchronize(s);  // ready for any stream on return
    pooled_ = err == cudaSuccess;
  } else {
    err = cudaMalloc(&ptr_, bytes);
  }
  if (err != cudaSuccess) {
    cudaGetLastError();
    if (ptr_ != nullptr) cudaFree(ptr_);
    ptr_ = nullptr;
    fail(SPX_STATUS_ALLOC_FAILED,
         strf("device allocation of %zu bytes failed: %s", bytes, cudaGetErrorString(err)));
  }
}

void Buffer::release() {
  if (ptr_ == nullptr) return;
  if (pooled_ && release_stream != nullptr)
    cudaFreeAsync(ptr_, release_stream);
  else
    cudaFree(ptr_);
  ptr_ = nullptr;
}

Buffer::~Buffer() { release(); }

Buffer::Buffer(Buffer&& other) noexcept
    : ptr_(other.ptr_), bytes_(other.bytes_), pooled_(other.pooled_) {
  other.ptr_ = nullptr;
  other.bytes_ = 0;
}

Buffer& Buffer::operator=(Buffer&& other) noexcept {
  if (this != &other) {
    release();
    ptr_ = other.ptr_;
    bytes_ = other.bytes_;
    pooled_ = other.pooled_;
    other.ptr_ = nullptr;
    other.bytes_ = 0;
  }
  return *this;
}

ReleaseScope::ReleaseScope(cudaStream_t stream) : previous_(release_stream) {
  release_stream = stream;
}

ReleaseScope::~ReleaseScope() { release_stream = previous_; }

RelaxedCaptureMode::RelaxedCaptureMode() {
  previous_ = cudaStreamCaptureModeRelaxed;
  cudaThreadExchangeStreamCaptureMode(&previous_);
}

RelaxedCaptureMode::~RelaxedCaptureMode() { cudaThreadExchangeStreamCaptureMode(&previous_); }

void UseTracker::record(cudaStream_t stream) {
  // Work queued while `stream` is being captured does not run now: it runs when the graph is
  // launched, which the plan cannot track (an event recorded in a capture cannot be waited on
  // outside it). Such uses are not recorded; the header asks that a graph holding an execute
  // of a plan is not launched after the plan is destroyed.
  cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &capture) != cudaSuccess) {
    cudaGetLastError();
    return;
  }
  if (capture != cudaStreamCaptureStatusNone) return;
  std::lock_guard<std::mutex> lock(mutex_);
  for (const Use& u : uses_)
    if (u.stream == stream) {
      check(cudaEventRecord(u.event, stream), "recording the plan's use of a stream");
      return;
    }
  cudaEvent_t ev = nullptr;
  check(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming), "creating an event");
  const cudaError_t err = cudaEventRecord(ev, stream);
  if (err != cudaSuccess) {
    cudaEventDestroy(ev);
    check(err, "recording the plan's use of a stream");
  }
  uses_.push_back({stream, ev});
}

void UseTracker::order_after(cudaStream_t stream) const {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const Use& u : uses_) cudaStreamWaitEvent(stream, u.event, 0);
}

UseTracker::~UseTracker() {
  for (const Use& u : uses_) cudaEventDestroy(u.event);
}

void expect_device_pointer(const void* ptr, const char* name) {
  cudaPointerAttributes attr{};
  cudaError_t err = cudaPointerGetAttributes(&attr, ptr);
  if (err != cudaSuccess) {
    cudaGetLastError();
    fail(SPX_STATUS_INVALID_VALUE, strf("%s is not a valid pointer (%s)", name, cudaGetErrorString(err)));
  }
  SPX_CHECK_ARG(attr.type == cudaMemoryTypeDevice || attr.type == cudaMemoryTypeManaged,
                "%s is not a device pointer (host memory cannot be read by the kernels)", name);
}

DeviceGuard::DeviceGuard(int device) {
  check(cudaGetDevice(&previous_), "querying the current device");
  if (previous_ != device) {
    check(cudaSetDevice(device), "switching to the handle's device");
    switched_ = true;
  }
}

DeviceGuard::~DeviceGuard() {
  if (switched_) cudaSetDevice(previous_);
}

Buffer upload(const serial::Array& a, cudaStream_t stream) {
  const size_t bytes = static_cast<size_t>(a.bytes);
  Buffer buf(bytes);
  if (bytes > 0)
    check(cudaMemcpyAsync(buf.get(), a.data, bytes, cudaMemcpyHostToDevice, stream),
          "copying a loaded plan's data to the device");
  return buf;
}

namespace {
std::mutex pin_mutex;
}  // namespace

PinnedRange::PinnedRange(const void* p, size_t bytes, cudaStream_t stream) : stream_(stream) {
  if (p == nullptr || bytes < kMinBytes) return;
  lock_ = std::unique_lock<std::mutex>(pin_mutex);
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, p) != cudaSuccess) {
    cudaGetLastError();
    return;
  }
  if (attr.type != cudaMemoryTypeUnregistered) return;  // pinned already, or not host memory
  void* q = const_cast<void*>(p);
  if (cudaHostRegister(q, bytes, cudaHostRegisterReadOnly) == cudaSuccess)
    registered_ = q;
  else
    cudaGetLastError();  // e.g. no read-only registration here: the copies stage instead
}

PinnedRange::~PinnedRange() {
  if (registered_ == nullptr) return;
  cudaStreamSynchronize(stream_);
  if (cudaHostUnregister(registered_) != cudaSuccess) cudaGetLastError();
}

}  // namespace spx::device
