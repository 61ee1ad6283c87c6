// Device pruning to vector-wise N:M and the pattern check, bit-exact with the host tools
// (formats/prune_nm.cpp, formats/check_pattern.cpp):
//  * the ranking key of a column is its squared L2 norm over the group's rows, summed in double
//    in row order from 0.0, each term squared_key(v) = k * k with k = |v| (NaN -> +inf) — the
//    square of a float is exact in double, so contraction into an FMA cannot change a bit;
//  * a column is kept when fewer than n columns of its window rank above it (larger norm, or
//    equal norm and lower column): the host's stable sort by descending norm, then the first n;
//  * kept columns are stored in increasing order, values copied bit for bit.
// Three passes over scratch memory: norms (double per group and column), kept flags, output.
#include <math_constants.h>

#include "families/nm/kernels/launch.hpp"

namespace spx::kernels::nm {
namespace {

constexpr int kThreads = 256;

unsigned grid_for(int64_t count) {
  const int64_t blocks = (count + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 65535 * 8 ? blocks : 65535 * 8);
}

__device__ __forceinline__ float element(const PruneArgs& a, int64_t r, int64_t c) {
  return a.dense[a.order == SPX_ORDER_ROW ? r * a.ld + c : r + c * a.ld];
}

__device__ __forceinline__ double squared_key(float v) {
  const double k = isnan(v) ? CUDART_INF : fabs(static_cast<double>(v));
  return __dmul_rn(k, k);
}

__global__ void norms_kernel(PruneArgs a) {
  const int64_t groups = a.rows / a.l, total = groups * a.cols;
  for (int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; t < total;
       t += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t g = t / a.cols, c = t % a.cols;
    double sum = 0.0;
    for (int64_t r = 0; r < a.l; ++r) sum = __dadd_rn(sum, squared_key(element(a, g * a.l + r, c)));
    a.norms[t] = sum;
  }
}

// flags[g][c] = 1 when column c is among the n best of its window for group g.
__global__ void rank_kernel(PruneArgs a, unsigned char* flags) {
  const int64_t groups = a.rows / a.l, total = groups * a.cols;
  for (int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; t < total;
       t += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t c = t % a.cols, p = c % a.m;
    const double* window = a.norms + (t - p);
    const double mine = window[p];
    int64_t above = 0;
    for (int64_t q = 0; q < a.m && above < a.n; ++q)
      above += (window[q] > mine) || (window[q] == mine && q < p);
    flags[t] = above < a.n ? 1 : 0;
  }
}

__global__ void gather_kernel(PruneArgs a, const unsigned char* flags) {
  const int64_t groups = a.rows / a.l, total = groups * a.cols, kc = a.cols / a.m * a.n;
  for (int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; t < total;
       t += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    if (!flags[t]) continue;
    const int64_t g = t / a.cols, c = t % a.cols, p = c % a.m, w = c / a.m;
    int64_t before = 0;
    for (int64_t q = t - p; q < t; ++q) before += flags[q];
    const int64_t slot = w * a.n + before;
    a.indices[g * kc + slot] = static_cast<int32_t>(p);
    for (int64_t r = 0; r < a.l; ++r) a.values[(g * a.l + r) * kc + slot] = element(a, g * a.l + r, c);
  }
}

__global__ void check_kernel(PruneArgs a, int* violation) {
  const int64_t groups = a.rows / a.l, windows = a.cols / a.m, total = groups * windows;
  for (int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; t < total;
       t += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t g = t / windows, w = t % windows;
    int64_t used = 0;
    for (int64_t p = 0; p < a.m; ++p) {
      bool any = false;
      for (int64_t r = 0; r < a.l && !any; ++r) any = element(a, g * a.l + r, w * a.m + p) != 0.0f;
      if (any && ++used > a.n) {
        atomicExch(violation, 1);
        break;
      }
    }
  }
}

}  // namespace

cudaError_t prune(const PruneArgs& a, cudaStream_t stream) {
  const int64_t total = a.rows / a.l * a.cols;
  if (total == 0) return cudaSuccess;
  unsigned char* flags = reinterpret_cast<unsigned char*>(a.norms + total);
  norms_kernel<<<grid_for(total), kThreads, 0, stream>>>(a);
  rank_kernel<<<grid_for(total), kThreads, 0, stream>>>(a, flags);
  gather_kernel<<<grid_for(total), kThreads, 0, stream>>>(a, flags);
  return cudaGetLastError();
}

cudaError_t check(const PruneArgs& a, int* violation, cudaStream_t stream) {
  const int64_t total = a.rows / a.l * (a.cols / a.m);
  if (total == 0) return cudaSuccess;
  check_kernel<<<grid_for(total), kThreads, 0, stream>>>(a, violation);
  return cudaGetLastError();
}

cudaError_t prune_load() {
  cudaFuncAttributes attr;
  cudaError_t err = cudaFuncGetAttributes(&attr, norms_kernel);
  if (err == cudaSuccess) err = cudaFuncGetAttributes(&attr, rank_kernel);
  if (err == cudaSuccess) err = cudaFuncGetAttributes(&attr, gather_kernel);
  if (err == cudaSuccess) err = cudaFuncGetAttributes(&attr, check_kernel);
  return err;
}

}  // namespace spx::kernels::nm
