/*
 * libspx example: uniform sparsity in ELL (the ELL family, fp32 and fp16).
 *
 * W (out x in) is pruned on the GPU to the same number of nonzeros in every row
 * (spxPruneUniform, 75 % sparsity), then Y^T = W X^T runs in fp32, and again with fp16 values
 * and activations accumulating in fp32 into an fp32 output. The inputs are multiples of 1/256,
 * which fp16 holds exactly, so both runs share one double-precision host reference and the
 * fp32 rounding bound. The device pruning must equal the host tool's (spxHostPruneUniform).
 *
 * Without a usable GPU it does the host-side steps and says that the device steps were skipped.
 */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spx/spx.h"

#define CHECK_SPX(call)                                                                          \
  do {                                                                                           \
    spxStatus_t st_ = (call);                                                                    \
    if (st_ != SPX_STATUS_SUCCESS) {                                                             \
      fprintf(stderr, "%s:%d: %s: %s (%s)\n", __FILE__, __LINE__, #call, spxGetStatusName(st_), \
              spxGetLastErrorMessage());                                                         \
      exit(1);                                                                                   \
    }                                                                                            \
  } while (0)
#define CHECK_CUDA(call)                                                                         \
  do {                                                                                           \
    cudaError_t e_ = (call);                                                                     \
    if (e_ != cudaSuccess) {                                                                     \
      fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, cudaGetErrorString(e_));    \
      exit(1);                                                                                   \
    }                                                                                            \
  } while (0)

enum { OUT = 384, IN = 1000, BATCH = 33, WIDTH = IN / 4 };

/* A multiple of 1/256 in [-1, 1): exact in fp16, so fp16 and fp32 runs share a reference. */
static float frand256(unsigned* s) {
  *s = *s * 1664525u + 1013904223u;
  return (float)((int)((*s >> 8) & 511) - 256) / 256.0f;
}

static void* to_device(const void* host, size_t bytes) {
  void* d = NULL;
  CHECK_CUDA(cudaMalloc(&d, bytes));
  CHECK_CUDA(cudaMemcpy(d, host, bytes, cudaMemcpyHostToDevice));
  return d;
}

/* Runs Y^T = A X^T for an ELL matrix of `type` and returns the number of elements outside the
 * fp32 accumulation bound against the dense pruned matrix w (row-major). */
static int run(spxHandle_t h, cudaStream_t stream, const char* label, spxDataType_t type,
               void* d_col, void* d_val, void* d_x, const float* w, const float* x) {
  float* d_y;
  CHECK_CUDA(cudaMalloc((void**)&d_y, sizeof(float) * BATCH * OUT));
  spxSpMatDescr_t A;
  spxDnMatDescr_t Xt, Yt;
  CHECK_SPX(spxCreateEll(&A, OUT, IN, WIDTH, d_col, d_val, type));
  CHECK_SPX(spxCreateDnMat(&Xt, IN, BATCH, IN, d_x, type, SPX_ORDER_COL));
  CHECK_SPX(spxCreateDnMat(&Yt, OUT, BATCH, OUT, d_y, SPX_R_32F, SPX_ORDER_COL));
  spxPlan_t plan;
  CHECK_SPX(spxSpMM_analyze(h, A, Xt, Yt, SPX_R_32F, SPX_SPMM_ALG_DEFAULT, &plan));
  size_t ws_bytes = 0;
  void* d_ws = NULL;
  CHECK_SPX(spxPlanGetWorkspaceSize(plan, &ws_bytes));
  if (ws_bytes > 0) CHECK_CUDA(cudaMalloc(&d_ws, ws_bytes));
  const float alpha = 1.0f, beta = 0.0f;
  CHECK_SPX(spxSpMM(h, plan, &alpha, A, Xt, &beta, Yt, d_ws));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  float* y = malloc(sizeof(float) * BATCH * OUT);
  CHECK_CUDA(cudaMemcpy(y, d_y, sizeof(float) * BATCH * OUT, cudaMemcpyDeviceToHost));
  int bad = 0;
  double max_err = 0.0;
  for (int b = 0; b < BATCH; ++b)
    for (int o = 0; o < OUT; ++o) {
      double ref = 0.0, mag = 0.0;
      for (int p = 0; p < IN; ++p) {
        const double t = (double)w[(size_t)o * IN + p] * x[(size_t)b * IN + p];
        ref += t;
        mag += fabs(t);
      }
      const double err = fabs(y[(size_t)b * OUT + o] - ref);
      if (err > max_err) max_err = err;
      if (!(err <= (IN + 2) * ldexp(1.0, -24) * mag)) ++bad;
    }
  spxPlanInfo_t info;
  CHECK_SPX(spxPlanGetInfo(plan, &info));
  printf("device: %s via %s [%s]: max |err| %.2e, %d outside the bound\n", label, info.kernel,
         info.config, max_err, bad);
  CHECK_SPX(spxPlanDestroy(plan));
  CHECK_SPX(spxDestroySpMat(A));
  CHECK_SPX(spxDestroyDnMat(Xt));
  CHECK_SPX(spxDestroyDnMat(Yt));
  cudaFree(d_y);
  cudaFree(d_ws);
  free(y);
  return bad;
}

int main(void) {
  unsigned seed = 99u;
  float* w = malloc(sizeof(float) * OUT * IN);
  float* x = malloc(sizeof(float) * BATCH * IN);
  for (size_t i = 0; i < (size_t)OUT * IN; ++i) w[i] = frand256(&seed);
  for (size_t i = 0; i < (size_t)BATCH * IN; ++i) x[i] = frand256(&seed);

  /* Host side: uniform pruning (WIDTH of IN per row), the dense result, its pattern check. */
  int32_t* h_col = malloc(sizeof(int32_t) * OUT * WIDTH);
  float* h_val = malloc(sizeof(float) * OUT * WIDTH);
  CHECK_SPX(spxHostPruneUniform(OUT, IN, w, IN, SPX_ORDER_ROW, WIDTH, h_col, h_val));
  float* w_pruned = calloc((size_t)OUT * IN, sizeof(float));
  for (int j = 0; j < WIDTH; ++j)
    for (int i = 0; i < OUT; ++i)  /* slot j of row i at i + j * OUT (column-major) */
      if (h_col[(size_t)j * OUT + i] >= 0) w_pruned[(size_t)i * IN + h_col[(size_t)j * OUT + i]] = h_val[(size_t)j * OUT + i];
  int ok = 0;
  CHECK_SPX(spxHostCheckUniform(OUT, IN, w_pruned, IN, SPX_ORDER_ROW, WIDTH, &ok));
  printf("host: W %d x %d pruned to %d nonzeros per row, pattern check %s\n", OUT, IN, WIDTH,
         ok ? "ok" : "FAILED");
  if (!ok) return 1;

  spxHandle_t h;
  spxStatus_t st = spxCreate(&h);
  if (st == SPX_STATUS_NOT_INITIALIZED || st == SPX_STATUS_ARCH_MISMATCH) {
    printf("no usable CUDA GPU (%s: %s): device steps skipped\n", spxGetStatusName(st),
           spxGetLastErrorMessage());
    return 0;
  }
  CHECK_SPX(st);
  cudaStream_t stream;
  CHECK_CUDA(cudaStreamCreate(&stream));
  CHECK_SPX(spxSetStream(h, stream));

  void* d_w = to_device(w, sizeof(float) * OUT * IN);
  void *d_col, *d_val;
  CHECK_CUDA(cudaMalloc(&d_col, sizeof(int32_t) * OUT * WIDTH));
  CHECK_CUDA(cudaMalloc(&d_val, sizeof(float) * OUT * WIDTH));
  CHECK_SPX(spxPruneUniform(h, OUT, IN, d_w, IN, SPX_ORDER_ROW, SPX_R_32F, WIDTH, d_col, d_val));
  int32_t* g_col = malloc(sizeof(int32_t) * OUT * WIDTH);
  float* g_val = malloc(sizeof(float) * OUT * WIDTH);
  CHECK_CUDA(cudaStreamSynchronize(stream));
  CHECK_CUDA(cudaMemcpy(g_col, d_col, sizeof(int32_t) * OUT * WIDTH, cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(g_val, d_val, sizeof(float) * OUT * WIDTH, cudaMemcpyDeviceToHost));
  if (memcmp(g_col, h_col, sizeof(int32_t) * OUT * WIDTH) != 0 ||
      memcmp(g_val, h_val, sizeof(float) * OUT * WIDTH) != 0) {
    fprintf(stderr, "spxPruneUniform differs from spxHostPruneUniform\n");
    return 1;
  }
  printf("device: spxPruneUniform matches the host pruning\n");

  void* d_x = to_device(x, sizeof(float) * BATCH * IN);
  int bad = run(h, stream, "fp32", SPX_R_32F, d_col, d_val, d_x, w_pruned, x);

  /* fp16 values and activations (exact conversions here), fp32 accumulation and output. */
  uint16_t* val16 = malloc(spxHostSizeOf(SPX_R_16F, (int64_t)OUT * WIDTH));
  uint16_t* x16 = malloc(spxHostSizeOf(SPX_R_16F, (int64_t)BATCH * IN));
  CHECK_SPX(spxHostConvertValues((int64_t)OUT * WIDTH, h_val, SPX_R_16F, val16));
  CHECK_SPX(spxHostConvertValues((int64_t)BATCH * IN, x, SPX_R_16F, x16));
  void* d_val16 = to_device(val16, spxHostSizeOf(SPX_R_16F, (int64_t)OUT * WIDTH));
  void* d_x16 = to_device(x16, spxHostSizeOf(SPX_R_16F, (int64_t)BATCH * IN));
  bad += run(h, stream, "fp16 in, fp32 out", SPX_R_16F, d_col, d_val16, d_x16, w_pruned, x);

  CHECK_SPX(spxDestroy(h));
  CHECK_CUDA(cudaStreamDestroy(stream));
  cudaFree(d_w); cudaFree(d_col); cudaFree(d_val); cudaFree(d_x); cudaFree(d_val16); cudaFree(d_x16);
  free(w); free(x); free(h_col); free(h_val); free(w_pruned); free(g_col); free(g_val); free(val16); free(x16);
  if (bad) return 1;
  printf("ELL example: both results match the host reference\n");
  return 0;
}
