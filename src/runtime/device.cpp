#include "runtime/device.hpp"

namespace spx::device {

void check(cudaError_t err, const char* what) {
  if (err != cudaSuccess) {
    cudaGetLastError();  // clear the sticky-free error so later calls start clean
    fail(SPX_STATUS_EXECUTION_FAILED, strf("%s: %s", what, cudaGetErrorString(err)));
  }
}

Buffer::Buffer(size_t bytes) : bytes_(bytes) {
  if (bytes == 0) return;
  cudaError_t err = cudaMalloc(&ptr_, bytes);
  if (err != cudaSuccess) {
    cudaGetLastError();
    ptr_ = nullptr;
    fail(SPX_STATUS_ALLOC_FAILED,
         strf("device allocation of %zu bytes failed: %s", bytes, cudaGetErrorString(err)));
  }
}

Buffer::~Buffer() {
  if (ptr_) cudaFree(ptr_);
}

Buffer::Buffer(Buffer&& other) noexcept : ptr_(other.ptr_), bytes_(other.bytes_) {
  other.ptr_ = nullptr;
  other.bytes_ = 0;
}

Buffer& Buffer::operator=(Buffer&& other) noexcept {
  if (this != &other) {
    if (ptr_) cudaFree(ptr_);
    ptr_ = other.ptr_;
    bytes_ = other.bytes_;
    other.ptr_ = nullptr;
    other.bytes_ = 0;
  }
  return *this;
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

}  // namespace spx::device
