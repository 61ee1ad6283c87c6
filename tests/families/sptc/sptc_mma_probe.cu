// One warp-wide mma.sp::ordered_metadata m16n8k32 (f16 x f16 -> f32) with every lane's registers
// supplied by the host: lets test_sptc check the PTX fragment and metadata layouts the SpTC
// family's storage is built on (A fragment, metadata register, sparsity selector, B, C/D).
#include <cuda_runtime.h>

#include <cstdint>

#include "sptc_mma_probe.hpp"

namespace {

template <int SEL>
__global__ void probe_kernel(const uint32_t* a, const uint32_t* b, const uint32_t* e, float* d) {
  const int l = threadIdx.x;
  float c[4] = {0.f, 0.f, 0.f, 0.f};
  asm volatile(
      "mma.sp::ordered_metadata.sync.aligned.m16n8k32.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, "
      "{%4, %5, %6, %7}, {%8, %9, %10, %11}, {%0, %1, %2, %3}, %12, %13;\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[4 * l]), "r"(a[4 * l + 1]), "r"(a[4 * l + 2]), "r"(a[4 * l + 3]), "r"(b[4 * l]),
        "r"(b[4 * l + 1]), "r"(b[4 * l + 2]), "r"(b[4 * l + 3]), "r"(e[l]), "n"(SEL));
  for (int i = 0; i < 4; ++i) d[4 * l + i] = c[i];
}

}  // namespace

int sptc_probe_mma_sp(const uint32_t* a, const uint32_t* b, const uint32_t* e, int selector,
                      float* d) {
  uint32_t *da = nullptr, *db = nullptr, *de = nullptr;
  float* dd = nullptr;
  cudaError_t err = cudaMalloc(&da, 128 * 4);
  if (err == cudaSuccess) err = cudaMalloc(&db, 128 * 4);
  if (err == cudaSuccess) err = cudaMalloc(&de, 32 * 4);
  if (err == cudaSuccess) err = cudaMalloc(&dd, 128 * 4);
  if (err == cudaSuccess) err = cudaMemcpy(da, a, 128 * 4, cudaMemcpyHostToDevice);
  if (err == cudaSuccess) err = cudaMemcpy(db, b, 128 * 4, cudaMemcpyHostToDevice);
  if (err == cudaSuccess) err = cudaMemcpy(de, e, 32 * 4, cudaMemcpyHostToDevice);
  if (err == cudaSuccess) {
    if (selector == 0)
      probe_kernel<0><<<1, 32>>>(da, db, de, dd);
    else
      probe_kernel<1><<<1, 32>>>(da, db, de, dd);
    err = cudaGetLastError();
  }
  if (err == cudaSuccess) err = cudaMemcpy(d, dd, 128 * 4, cudaMemcpyDeviceToHost);
  cudaFree(da);
  cudaFree(db);
  cudaFree(de);
  cudaFree(dd);
  return static_cast<int>(err);
}
