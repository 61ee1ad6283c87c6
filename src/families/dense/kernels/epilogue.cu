#include "families/dense/kernels/epilogue.hpp"

#include "device/elements.cuh"
#include "device/epilogue.cuh"

namespace spx::kernels::dense {
namespace {

constexpr int kThreads = 256;

// One thread per element along C's storage order (coalesced); the row of element t gives the
// bias and scale.
__global__ void epilogue_kernel(DenseView C, int64_t m, int64_t n, Epilogue e) {
  const int64_t total = m * n;
  const bool row_major = C.order == SPX_ORDER_ROW;
  for (int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; t < total;
       t += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t r = row_major ? t / n : t % m;
    const int64_t c = row_major ? t % n : t / m;
    const int64_t i = linear(C, r, c);
    store_float(C.ptr, C.type, i, apply_epilogue(e, r, load_float(C.ptr, C.type, i)));
  }
}

}  // namespace

cudaError_t epilogue_in_place(const DenseView& C, int64_t m, int64_t n, const Epilogue& e,
                              cudaStream_t stream) {
  const int64_t total = m * n;
  if (total == 0 || !e.on) return cudaSuccess;
  const int64_t blocks = (total + kThreads - 1) / kThreads;
  epilogue_kernel<<<static_cast<unsigned>(blocks < 65535 * 8 ? blocks : 65535 * 8), kThreads, 0,
                    stream>>>(C, m, n, e);
  return cudaGetLastError();
}

cudaError_t epilogue_load() {
  cudaFuncAttributes attr;
  return cudaFuncGetAttributes(&attr, epilogue_kernel);
}

}  // namespace spx::kernels::dense
