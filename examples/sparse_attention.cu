// libspx example: one quantized self-attention head with a sparse mask, as in Magicube's sparse
// Transformer (Sec. V-C): O = softmax((Q K^T) .* M / sqrt(d)) V.
//
//   1. SDDMM   S = (sq sk / sqrt(d)) * (Qq Kq^T) .* spy(M)    int8 x int8 -> fp16, on the mask
//   2. softmax over each sparse row of S, re-quantized to 8-bit unsigned, normalization deferred:
//              Pq = round(255 exp(S - rowmax)) (the row's largest entry is 255), r = sum_j Pq
//              (this example's own small kernel)
//   3. SpMM    O' = sv * Pq Vq                                 8U x int8 -> fp32
//   4. O = O' / r per row (the example's own kernel): the softmax's normalization, exact in the
//      integers r, so Pq keeps the full 8-bit resolution of every row (p = 1/200 in a row of 200
//      would be 1 or 2 steps of 1/255: a 40 % error per entry).
//
// The mask M is L x L with V x 1 vectors (V = 8), 90 % of the vectors of every vector-row dropped
// (the diagonal vector kept). S and P live in the SR-BCRS values layout
// (SPX_PLAN_OPTION_SPARSE_VALUES_LAYOUT = SPX_VALUES_LAYOUT_SRBCRS): the SDDMM writes S where the
// softmax reads it, the softmax writes Pq where the SpMM plan reads it, and spxPlanUpdateValues is
// an element-for-element pass (no gather, no re-layout). spxHostSrbcrsSlotPtr gives the softmax
// where each row's values are.
//
// Checks: (a) the GPU's Pq is within half an 8-bit step of the host's 255 exp(S - max) of the
// GPU's own S; (b) O equals the host's exact integer product of that Pq with Vq, scaled by sv / r
// (three fp32 roundings: 2^-24 each); (c) O against a dense fp32 attention of the unquantized Q,
// K, V: the quantization error, printed, and required below 2 % of max |O| (int8 Q, K and V are
// steps of 1/127 of their range, 8-bit P of 1/255 of its row's largest entry; averaging over the
// ~200 entries of a row keeps the result's error well under one step). Then the time of the four
// steps. Without a usable GPU the host steps run and the device steps are skipped (exit 0).
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

#include "spx/spx.h"

#define CHECK_SPX(call)                                                                          \
  do {                                                                                           \
    spxStatus_t st_ = (call);                                                                    \
    if (st_ != SPX_STATUS_SUCCESS) {                                                             \
      std::fprintf(stderr, "%s:%d: %s: %s (%s)\n", __FILE__, __LINE__, #call,                    \
                   spxGetStatusName(st_), spxGetLastErrorMessage());                             \
      std::exit(1);                                                                              \
    }                                                                                            \
  } while (0)
#define CHECK_CUDA(call)                                                                         \
  do {                                                                                           \
    cudaError_t e_ = (call);                                                                     \
    if (e_ != cudaSuccess) {                                                                     \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_)); \
      std::exit(1);                                                                              \
    }                                                                                            \
  } while (0)

namespace {

constexpr int L = 2048;           // sequence length
constexpr int D = 64;             // head dimension
constexpr int VEC = 8;            // mask vectors: VEC x 1
constexpr double kKeep = 0.10;    // 90 % of the vectors dropped
constexpr int kStride = 32;       // slots per stride of the SR-BCRS layout

/// Element of (slot s, row v) in the SR-BCRS values layout (spx_types.h, spxValuesLayout_t).
__host__ __device__ inline int64_t srbcrs_element(int64_t s, int v) {
  return (s / kStride) * kStride * VEC + v * kStride + s % kStride;
}

/// Symmetric int8 quantization: q = round(x / scale), scale = max |x| / 127.
float quantize(const std::vector<float>& x, std::vector<int8_t>* q) {
  float m = 0;
  for (float v : x) m = std::max(m, std::fabs(v));
  const float scale = m > 0 ? m / 127.0f : 1.0f;
  q->resize(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    (*q)[i] = static_cast<int8_t>(std::lrint(std::max(-127.0f, std::min(127.0f, x[i] / scale))));
  return scale;
}

/// One warp per row of S: the row's entries are the count vectors of its vector-row, row v of
/// each. Pq = round(255 exp(s - rowmax)) (8-bit unsigned; the row's largest is 255) and
/// row_sum = sum of the row's Pq (the deferred normalization). Padding is not touched (the Pq
/// array starts zeroed, as the SpMM needs).
__global__ void softmax_requantize(const __half* s, uint8_t* pq, int32_t* row_sum,
                                   const int32_t* slot_ptr, const int32_t* block_row_ptr,
                                   int rows) {
  const int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32, lane = threadIdx.x % 32;
  if (row >= rows) return;
  const int vr = row / VEC, v = row % VEC;
  const int64_t first = slot_ptr[vr];
  const int count = block_row_ptr[vr + 1] - block_row_ptr[vr];
  float m = -INFINITY;
  for (int j = lane; j < count; j += 32) m = fmaxf(m, __half2float(s[srbcrs_element(first + j, v)]));
  for (int o = 16; o > 0; o /= 2) m = fmaxf(m, __shfl_xor_sync(0xFFFFFFFFu, m, o));
  int sum = 0;
  for (int j = lane; j < count; j += 32) {
    const int64_t e = srbcrs_element(first + j, v);
    const int x = static_cast<int>(fminf(255.0f, rintf(255.0f * expf(__half2float(s[e]) - m))));
    pq[e] = static_cast<uint8_t>(x);
    sum += x;
  }
  for (int o = 16; o > 0; o /= 2) sum += __shfl_xor_sync(0xFFFFFFFFu, sum, o);
  if (lane == 0) row_sum[row] = sum;
}

/// O[i, :] /= row_sum[i]: the softmax's normalization, after the SpMM.
__global__ void normalize_rows(float* o, const int32_t* row_sum, int rows, int cols) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < rows * cols) o[i] /= static_cast<float>(row_sum[i / cols]);
}

template <class T>
T* to_device(const std::vector<T>& h) {
  T* d = nullptr;
  CHECK_CUDA(cudaMalloc(&d, std::max<size_t>(1, h.size() * sizeof(T))));
  if (!h.empty()) CHECK_CUDA(cudaMemcpy(d, h.data(), h.size() * sizeof(T), cudaMemcpyHostToDevice));
  return d;
}

}  // namespace

int main() {
  std::mt19937 rng(2022);
  std::uniform_real_distribution<float> uni(-1.0f, 1.0f);
  std::vector<float> q(L * D), k(L * D), vm(L * D);  // row-major L x D
  for (float& x : q) x = uni(rng);
  for (float& x : k) x = uni(rng);
  for (float& x : vm) x = uni(rng);

  // The mask: BCRS(VEC), each vector-row keeps ~10 % of the columns and its diagonal vector.
  const int vrows = L / VEC;
  std::vector<int32_t> block_row_ptr(vrows + 1, 0), block_col;
  std::uniform_real_distribution<double> u01(0.0, 1.0);
  for (int r = 0; r < vrows; ++r) {
    for (int c = 0; c < L; ++c)
      if (c == r * VEC || u01(rng) < kKeep) block_col.push_back(c);
    block_row_ptr[r + 1] = static_cast<int32_t>(block_col.size());
  }
  const int64_t nvec = static_cast<int64_t>(block_col.size());
  std::vector<int32_t> slot_ptr(vrows + 1);
  CHECK_SPX(spxHostSrbcrsSlotPtr(vrows, block_row_ptr.data(), VEC, slot_ptr.data()));
  const int64_t elements = int64_t{slot_ptr[vrows]} * VEC;

  std::vector<int8_t> qq, kq, vq;
  const float sq = quantize(q, &qq), sk = quantize(k, &kq), sv = quantize(vm, &vq);
  const float s_scale = sq * sk / std::sqrt(static_cast<float>(D));

  // Dense fp32 attention of the unquantized Q, K, V on the mask (the reference).
  std::vector<float> o_ref(static_cast<size_t>(L) * D, 0.0f);
  {
    std::vector<double> srow;
    for (int i = 0; i < L; ++i) {
      const int r = i / VEC;
      srow.clear();
      double m = -1e300;
      for (int e = block_row_ptr[r]; e < block_row_ptr[r + 1]; ++e) {
        double dot = 0;
        for (int t = 0; t < D; ++t) dot += double(q[i * D + t]) * k[block_col[e] * D + t];
        srow.push_back(dot / std::sqrt(double(D)));
        m = std::max(m, srow.back());
      }
      double sum = 0;
      for (double& x : srow) sum += (x = std::exp(x - m));
      for (int e = block_row_ptr[r]; e < block_row_ptr[r + 1]; ++e) {
        const double p = srow[e - block_row_ptr[r]] / sum;
        for (int t = 0; t < D; ++t) o_ref[i * D + t] += static_cast<float>(p * vm[block_col[e] * D + t]);
      }
    }
  }
  std::printf("host: L = %d, d = %d, mask %d x %d in %lld vectors of %d x 1 (%.1f %% sparse), "
              "SR-BCRS layout %lld elements\n",
              L, D, L, L, static_cast<long long>(nvec), VEC,
              100.0 * (1.0 - double(nvec) * VEC / (double(L) * L)), static_cast<long long>(elements));

  spxHandle_t h;
  const spxStatus_t st = spxCreate(&h);
  if (st == SPX_STATUS_NOT_INITIALIZED || st == SPX_STATUS_ARCH_MISMATCH) {
    std::printf("no usable CUDA GPU (%s: %s): device steps skipped\n", spxGetStatusName(st),
                spxGetLastErrorMessage());
    return 0;
  }
  CHECK_SPX(st);

  int32_t* d_ptr = to_device(block_row_ptr);
  int32_t* d_col = to_device(block_col);
  int32_t* d_slot = to_device(slot_ptr);
  int8_t* d_q = to_device(qq);
  int8_t* d_k = to_device(kq);
  int8_t* d_v = to_device(vq);
  __half* d_s = nullptr;
  uint8_t* d_p = nullptr;
  float* d_o = nullptr;
  int32_t* d_sum = nullptr;
  CHECK_CUDA(cudaMalloc(&d_sum, sizeof(int32_t) * L));
  CHECK_CUDA(cudaMalloc(&d_s, elements * sizeof(__half)));
  CHECK_CUDA(cudaMalloc(&d_p, elements));
  CHECK_CUDA(cudaMemset(d_p, 0, elements));  // padding of Pq stays 0
  CHECK_CUDA(cudaMalloc(&d_o, sizeof(float) * L * D));

  // Descriptors: Q (L x D row-major), K^T (D x L column-major = K row-major), S and P on the
  // mask's structure with values in the SR-BCRS layout, V (L x D row-major), O (L x D).
  spxDnMatDescr_t Q, Kt, Vd, O;
  spxSpMatDescr_t S, P;
  CHECK_SPX(spxCreateDnMat(&Q, L, D, D, d_q, SPX_R_8I, SPX_ORDER_ROW));
  CHECK_SPX(spxCreateDnMat(&Kt, D, L, D, d_k, SPX_R_8I, SPX_ORDER_COL));
  CHECK_SPX(spxCreateDnMat(&Vd, L, D, D, d_v, SPX_R_8I, SPX_ORDER_ROW));
  CHECK_SPX(spxCreateDnMat(&O, L, D, D, d_o, SPX_R_32F, SPX_ORDER_ROW));
  CHECK_SPX(spxCreateBcrs(&S, L, L, VEC, nvec, d_ptr, d_col, d_s, SPX_R_16F));
  CHECK_SPX(spxCreateBcrs(&P, L, L, VEC, nvec, d_ptr, d_col, d_p, SPX_R_8U));

  spxPlanOptions_t opts;
  CHECK_SPX(spxCreatePlanOptions(&opts));
  const int32_t layout = SPX_VALUES_LAYOUT_SRBCRS;
  CHECK_SPX(spxPlanOptionsSet(opts, SPX_PLAN_OPTION_SPARSE_VALUES_LAYOUT, &layout, sizeof layout));
  spxPlan_t sddmm_plan, spmm_plan;
  CHECK_SPX(spxSDDMM_analyzeWithOptions(h, Q, Kt, S, SPX_R_32I, SPX_SPMM_ALG_DEFAULT, opts,
                                        &sddmm_plan));
  CHECK_SPX(spxSpMM_analyzeWithOptions(h, P, Vd, O, SPX_R_32I, SPX_SPMM_ALG_DEFAULT, opts,
                                       &spmm_plan));
  CHECK_SPX(spxDestroyPlanOptions(opts));
  spxPlanInfo_t info1, info2;
  CHECK_SPX(spxPlanGetInfo(sddmm_plan, &info1));
  CHECK_SPX(spxPlanGetInfo(spmm_plan, &info2));
  std::printf("SDDMM: %s [%s]\nSpMM:  %s [%s]\n", info1.kernel, info1.config, info2.kernel,
              info2.config);
  if (info1.padded_nnz != elements || info2.padded_nnz != elements) {
    std::fprintf(stderr, "plan padded_nnz %lld / %lld != %lld SR-BCRS elements\n",
                 static_cast<long long>(info1.padded_nnz), static_cast<long long>(info2.padded_nnz),
                 static_cast<long long>(elements));
    return 1;
  }
  size_t ws1 = 0, ws2 = 0;
  CHECK_SPX(spxPlanGetWorkspaceSize(sddmm_plan, &ws1));
  CHECK_SPX(spxPlanGetWorkspaceSize(spmm_plan, &ws2));
  void* d_ws = nullptr;
  if (std::max(ws1, ws2) > 0) CHECK_CUDA(cudaMalloc(&d_ws, std::max(ws1, ws2)));

  cudaStream_t stream = nullptr;
  const float zero = 0.0f, o_scale = sv;
  auto forward = [&] {
    CHECK_SPX(spxSDDMM(h, sddmm_plan, &s_scale, Q, Kt, &zero, S, d_ws));
    const int warps = 8;
    softmax_requantize<<<(L + warps - 1) / warps, 32 * warps, 0, stream>>>(d_s, d_p, d_sum, d_slot,
                                                                          d_ptr, L);
    CHECK_CUDA(cudaGetLastError());
    CHECK_SPX(spxPlanUpdateValues(h, spmm_plan, P));  // P is already in the plan's layout
    CHECK_SPX(spxSpMM(h, spmm_plan, &o_scale, P, Vd, &zero, O, d_ws));
    normalize_rows<<<(L * D + 255) / 256, 256, 0, stream>>>(d_o, d_sum, L, D);
    CHECK_CUDA(cudaGetLastError());
  };
  forward();
  CHECK_CUDA(cudaDeviceSynchronize());

  std::vector<__half> s_gpu(elements);
  std::vector<uint8_t> p_gpu(elements);
  std::vector<float> o_gpu(static_cast<size_t>(L) * D);
  CHECK_CUDA(cudaMemcpy(s_gpu.data(), d_s, elements * sizeof(__half), cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(p_gpu.data(), d_p, elements, cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(o_gpu.data(), d_o, sizeof(float) * L * D, cudaMemcpyDeviceToHost));

  // (a) Pq against the host's 255 exp(S - max) of the GPU's S; (b) O against the exact integer
  // SpMM of the GPU's Pq and Vq, times sv / row sum (float(acc), * sv, / r: three fp32 roundings).
  int p_off = 0;
  double o_int_err = 0, o_ref_err = 0, o_max = 0;
  for (int i = 0; i < L; ++i) {
    const int r = i / VEC, v = i % VEC, count = block_row_ptr[r + 1] - block_row_ptr[r];
    double m = -1e300;
    for (int j = 0; j < count; ++j) m = std::max(m, double(__half2float(s_gpu[srbcrs_element(slot_ptr[r] + j, v)])));
    std::vector<int64_t> acc(D, 0);
    int64_t row_sum = 0;
    for (int j = 0; j < count; ++j) {
      const int64_t e = srbcrs_element(slot_ptr[r] + j, v);
      const double want = 255.0 * std::exp(double(__half2float(s_gpu[e])) - m);
      if (std::fabs(double(p_gpu[e]) - want) > 0.5 + 1e-3) ++p_off;
      row_sum += p_gpu[e];
      const int col = block_col[block_row_ptr[r] + j];
      for (int t = 0; t < D; ++t) acc[t] += int64_t{p_gpu[e]} * vq[col * D + t];
    }
    for (int t = 0; t < D; ++t) {
      const double exact = double(o_scale) * double(acc[t]) / double(row_sum);
      o_int_err = std::max(o_int_err, std::fabs(o_gpu[i * D + t] - exact) / (std::fabs(exact) + 1e-30));
      o_ref_err = std::max(o_ref_err, std::fabs(double(o_gpu[i * D + t]) - o_ref[i * D + t]));
      o_max = std::max(o_max, std::fabs(double(o_ref[i * D + t])));
    }
  }
  int pad_nonzero = 0;
  for (int r = 0; r < vrows; ++r)
    for (int64_t s = slot_ptr[r] + (block_row_ptr[r + 1] - block_row_ptr[r]); s < slot_ptr[r + 1]; ++s)
      for (int v = 0; v < VEC; ++v)
        pad_nonzero += __half2float(s_gpu[srbcrs_element(s, v)]) != 0.0f;
  const double rel_ref = o_ref_err / o_max;
  std::printf("check: Pq off the host softmax by more than half a step: %d of %lld; S padding not 0: "
              "%d; O vs exact integer SpMM: max rel err %.2e; O vs dense fp32 attention: max err "
              "%.3e (%.2f %% of max |O| = %.3f)\n",
              p_off, static_cast<long long>(nvec * VEC), pad_nonzero, o_int_err, o_ref_err,
              100 * rel_ref, o_max);
  const bool ok = p_off == 0 && pad_nonzero == 0 && o_int_err <= 3 * std::ldexp(1.0, -24) * 1.000001 &&
                  rel_ref < 0.02;

  // Time: the forward (SDDMM, softmax, update, SpMM) back to back.
  cudaEvent_t t0, t1;
  CHECK_CUDA(cudaEventCreate(&t0));
  CHECK_CUDA(cudaEventCreate(&t1));
  const int reps = 50;
  for (int i = 0; i < 5; ++i) forward();
  CHECK_CUDA(cudaEventRecord(t0, stream));
  for (int i = 0; i < reps; ++i) forward();
  CHECK_CUDA(cudaEventRecord(t1, stream));
  CHECK_CUDA(cudaEventSynchronize(t1));
  float ms = 0;
  CHECK_CUDA(cudaEventElapsedTime(&ms, t0, t1));
  std::printf("time: %.1f us per attention head (SDDMM + softmax + update + SpMM + normalize, "
              "mean of %d)\n",
              1000.0 * ms / reps, reps);

  spxPlanDestroy(sddmm_plan);
  spxPlanDestroy(spmm_plan);
  spxDestroySpMat(S);
  spxDestroySpMat(P);
  spxDestroyDnMat(Q);
  spxDestroyDnMat(Kt);
  spxDestroyDnMat(Vd);
  spxDestroyDnMat(O);
  spxDestroy(h);
  for (void* p : {static_cast<void*>(d_ptr), static_cast<void*>(d_col), static_cast<void*>(d_slot),
                  static_cast<void*>(d_q), static_cast<void*>(d_k), static_cast<void*>(d_v),
                  static_cast<void*>(d_s), static_cast<void*>(d_p), static_cast<void*>(d_o),
                  static_cast<void*>(d_sum), d_ws})
    cudaFree(p);
  std::printf("%s\n", ok ? "sparse_attention: OK" : "sparse_attention: FAILED");
  return ok ? 0 : 1;
}
