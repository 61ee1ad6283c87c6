// spx-host-cost: what one execute costs the calling CPU thread, against the launch of an empty
// kernel on the same stream. A layer of a model calls libspx once per token step, and at one
// token the kernel takes 5-10 us: host microseconds spent per call show up as idle GPU time in
// eager execution.
//
// The problem is a Llama-sized fp16 weight in ELL (4096 x 4096, 80 % sparse, the ELL family's
// decode kernel) analyzed for any n (SPX_PLAN_OPTION_MAX_N = -1); B and C column-major, as a
// framework passes X^T and Y^T. Per measurement: rounds of `kCalls` calls with no
// synchronization inside, each round's host wall time divided by kCalls, median over rounds;
// the device is synchronized between rounds (outside the timed region) so the launch queue
// never fills and blocks the host.
//
// Output: one line per measurement, us per call.
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include "spx/spx.h"

namespace {

__global__ void empty_kernel() {}

void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::fprintf(stderr, "%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

void check_spx(spxStatus_t s, const char* what) {
  if (s != SPX_STATUS_SUCCESS) {
    std::fprintf(stderr, "%s: %s (%s)\n", what, spxGetStatusName(s), spxGetLastErrorMessage());
    std::exit(1);
  }
}

constexpr int kCalls = 200;
constexpr int kRounds = 25;

/// Median host microseconds per call of `call` (kCalls per round, kRounds rounds).
double per_call_us(cudaStream_t stream, const std::function<void()>& call) {
  for (int i = 0; i < kCalls; ++i) call();  // warm-up: first-use costs stay out
  check_cuda(cudaStreamSynchronize(stream), "synchronizing");
  std::vector<double> us;
  for (int r = 0; r < kRounds; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kCalls; ++i) call();
    const auto t1 = std::chrono::steady_clock::now();
    us.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / kCalls);
    check_cuda(cudaStreamSynchronize(stream), "synchronizing");
  }
  std::sort(us.begin(), us.end());
  return us[us.size() / 2];
}

}  // namespace

int main() {
  constexpr int64_t m = 4096, k = 4096, width = 819, max_cols = 16;
  spxHandle_t h = nullptr;
  const spxStatus_t created = spxCreate(&h);
  if (created != SPX_STATUS_SUCCESS) {
    std::printf("no usable GPU (%s): nothing measured\n", spxGetStatusName(created));
    return 0;
  }
  cudaStream_t stream;
  check_cuda(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "creating a stream");
  check_spx(spxSetStream(h, stream), "spxSetStream");

  // ELL slots column-major (slot j of row i at i + j m); columns (5 j + i) mod k are distinct
  // within a row because 5 (width - 1) < k.
  std::vector<int32_t> col(static_cast<size_t>(m * width));
  std::vector<__half> val(col.size());
  for (int64_t j = 0; j < width; ++j)
    for (int64_t i = 0; i < m; ++i) {
      col[static_cast<size_t>(i + j * m)] = static_cast<int32_t>((5 * j + i) % k);
      val[static_cast<size_t>(i + j * m)] = __float2half(static_cast<float>((i + j) % 7 - 3) / 8);
    }
  void *d_col, *d_val, *d_b, *d_c;
  check_cuda(cudaMalloc(&d_col, col.size() * sizeof(int32_t)), "cudaMalloc");
  check_cuda(cudaMalloc(&d_val, val.size() * sizeof(__half)), "cudaMalloc");
  check_cuda(cudaMalloc(&d_b, static_cast<size_t>(k * max_cols) * sizeof(__half)), "cudaMalloc");
  check_cuda(cudaMalloc(&d_c, static_cast<size_t>(m * max_cols) * sizeof(__half)), "cudaMalloc");
  check_cuda(cudaMemcpy(d_col, col.data(), col.size() * sizeof(int32_t), cudaMemcpyHostToDevice),
             "cudaMemcpy");
  check_cuda(cudaMemcpy(d_val, val.data(), val.size() * sizeof(__half), cudaMemcpyHostToDevice),
             "cudaMemcpy");
  check_cuda(cudaMemset(d_b, 0, static_cast<size_t>(k * max_cols) * sizeof(__half)), "cudaMemset");

  spxSpMatDescr_t A;
  spxDnMatDescr_t B, C;
  check_spx(spxCreateEll(&A, m, k, width, d_col, d_val, SPX_R_16F), "spxCreateEll");
  check_spx(spxCreateDnMat(&B, k, max_cols, k, d_b, SPX_R_16F, SPX_ORDER_COL), "spxCreateDnMat");
  check_spx(spxCreateDnMat(&C, m, max_cols, m, d_c, SPX_R_16F, SPX_ORDER_COL), "spxCreateDnMat");
  spxPlanOptions_t opts;
  check_spx(spxCreatePlanOptions(&opts), "spxCreatePlanOptions");
  const int32_t any_n = -1;
  check_spx(spxPlanOptionsSet(opts, SPX_PLAN_OPTION_MAX_N, &any_n, sizeof any_n), "MAX_N");
  spxPlan_t plan;
  check_spx(spxSpMM_analyzeWithOptions(h, A, B, C, SPX_R_32F, SPX_SPMM_ALG_DEFAULT, opts, &plan),
            "spxSpMM_analyzeWithOptions");
  size_t ws_bytes = 0;
  check_spx(spxPlanGetWorkspaceSize(plan, &ws_bytes), "spxPlanGetWorkspaceSize");
  void* d_ws = nullptr;
  if (ws_bytes > 0) check_cuda(cudaMalloc(&d_ws, ws_bytes), "cudaMalloc");
  const float alpha = 1.0f, beta = 0.0f;
  spxPlanInfo_t info;
  check_spx(spxPlanGetInfo(plan, &info), "spxPlanGetInfo");
  std::printf("plan: %s [%s], route %d\n", info.kernel, info.config, static_cast<int>(info.route));

  cudaEvent_t ev;
  check_cuda(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming), "cudaEventCreate");
  const double launch = per_call_us(stream, [&] { empty_kernel<<<1, 32, 0, stream>>>(); });
  const double record = per_call_us(stream, [&] { cudaEventRecord(ev, stream); });
  const double capturing = per_call_us(stream, [&] {
    cudaStreamCaptureStatus s;
    cudaStreamIsCapturing(stream, &s);
  });
  std::printf("empty kernel launch          %6.2f us per call\n", launch);
  std::printf("cudaEventRecord              %6.2f us per call\n", record);
  std::printf("cudaStreamIsCapturing        %6.2f us per call\n", capturing);
  for (int64_t n : {int64_t{1}, int64_t{16}}) {
    const double exec = per_call_us(stream, [&] {
      check_spx(spxSpMM_execute(h, plan, n, &alpha, d_b, k, &beta, d_c, m, d_ws), "execute");
    });
    std::printf("spxSpMM_execute n=%-3lld        %6.2f us per call (%.2f above the empty launch)\n",
                static_cast<long long>(n), exec, exec - launch);
  }
  const double desc = per_call_us(stream, [&] {
    check_spx(spxSpMM(h, plan, &alpha, A, B, &beta, C, d_ws), "spxSpMM");
  });
  std::printf("spxSpMM (descriptors) n=16   %6.2f us per call (%.2f above the empty launch)\n", desc,
              desc - launch);

  check_cuda(cudaStreamSynchronize(stream), "synchronizing");
  spxPlanDestroy(plan);
  spxDestroyPlanOptions(opts);
  spxDestroySpMat(A);
  spxDestroyDnMat(B);
  spxDestroyDnMat(C);
  cudaEventDestroy(ev);
  cudaFree(d_col);
  cudaFree(d_val);
  cudaFree(d_b);
  cudaFree(d_c);
  cudaFree(d_ws);
  cudaStreamDestroy(stream);
  spxDestroy(h);
  return 0;
}
