#include "device.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>

#include "check.hpp"

namespace bench {

std::string probe_gpu() {
  int count = 0;
  cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) return strf("cudaGetDeviceCount: %s", cudaGetErrorString(err));
  if (count == 0) return "cudaGetDeviceCount found 0 devices";
  return "";
}

bool no_gpu_here() {
  const std::string problem = probe_gpu();
  if (problem.empty()) return false;
  std::fprintf(stderr, "spx-bench: no CUDA GPU available (%s); nothing can be measured here.\n",
               problem.c_str());
  return true;
}

GpuContext::GpuContext() {
  try {
    init();
  } catch (...) {
    release();
    throw;
  }
}

void GpuContext::init() {
  std::string problem = probe_gpu();
  if (!problem.empty()) throw Error(problem);
  CUDA_CHECK(cudaGetDevice(&device_));
  CUDA_CHECK(cudaGetDeviceProperties(&props_, device_));
  int l2 = 0;
  CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device_));
  l2_bytes_ = l2 > 0 ? static_cast<size_t>(l2) : size_t{50} << 20;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));

  CUBLAS_CHECK(cublasCreate(&cublas_));
  CUBLAS_CHECK(cublasSetStream(cublas_, stream_));
  // An explicit workspace keeps cuBLAS from allocating inside CUDA graph capture (--graph);
  // 32 MiB is what cuBLAS recommends for Hopper.
  cublas_workspace_ = DeviceBuffer(size_t{32} << 20);
  CUBLAS_CHECK(cublasSetWorkspace(cublas_, cublas_workspace_.get(), cublas_workspace_.size()));

  // cuSPARSE logs every refused configuration to stderr by itself; the bench already prints one
  // note per refusal, so keep its logger quiet unless the user asked for it.
  if (!std::getenv("CUSPARSE_LOG_LEVEL")) CUSPARSE_CHECK(cusparseLoggerSetLevel(0));
  CUSPARSE_CHECK(cusparseCreate(&cusparse_));
  CUSPARSE_CHECK(cusparseSetStream(cusparse_, stream_));

  SPX_CHECK(spxCreate(&spx_));
  SPX_CHECK(spxSetStream(spx_, reinterpret_cast<spxStream_t>(stream_)));
}

GpuContext::~GpuContext() { release(); }

void GpuContext::release() {
  if (spx_) spxDestroy(spx_);
  if (cusparse_) cusparseDestroy(cusparse_);
  if (cublas_) cublasDestroy(cublas_);
  if (stream_) cudaStreamDestroy(stream_);
  spx_ = nullptr;
  cusparse_ = nullptr;
  cublas_ = nullptr;
  stream_ = nullptr;
}

std::string GpuContext::describe() const {
  return strf("%s (sm_%d%d, %d SMs, L2 %.0f MB, %.0f GB)", props_.name, props_.major,
              props_.minor, props_.multiProcessorCount, l2_bytes_ / 1048576.0,
              props_.totalGlobalMem / 1073741824.0);
}

int rotation_copies(size_t l2_bytes, size_t fixed_bytes, size_t rotated_bytes) {
  const size_t target = 3 * l2_bytes;
  if (fixed_bytes + rotated_bytes >= target || rotated_bytes == 0) return 1;
  size_t copies = (target - fixed_bytes + rotated_bytes - 1) / rotated_bytes;
  return static_cast<int>(std::min<size_t>(std::max<size_t>(copies, 1), 1024));
}

RotatedArray::RotatedArray(const void* host, size_t bytes, int copies)
    : bytes_(bytes), stride_((bytes + 255) / 256 * 256), copies_(std::max(copies, 1)) {
  buf_ = DeviceBuffer(std::max<size_t>(stride_, 256) * copies_);
  char* base = static_cast<char*>(buf_.get());
  if (host) {
    buf_.upload(host, bytes, 0);
    for (int i = 1; i < copies_; ++i)
      CUDA_CHECK(cudaMemcpy(base + i * stride_, base, bytes, cudaMemcpyDeviceToDevice));
  } else {
    CUDA_CHECK(cudaMemset(base, 0, buf_.size()));
  }
  CUDA_CHECK(cudaDeviceSynchronize());
}

void* RotatedArray::at(int64_t launch) const {
  return static_cast<char*>(buf_.get()) + static_cast<size_t>(launch % copies_) * stride_;
}

bool context_broken() {
  const cudaError_t sticky = cudaDeviceSynchronize();
  if (sticky == cudaSuccess) return false;
  std::fprintf(stderr, "spx-bench: the CUDA context is broken (%s); stopping the run.\n",
               cudaGetErrorString(sticky));
  return true;
}

}  // namespace bench
