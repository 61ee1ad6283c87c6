/*
 * libspx example: vector-wise N:M (the NM family, fp32 on CUDA cores).
 *
 * A linear layer Y = X W^T runs as Y^T = W X^T: W (out x in) is pruned to 2:4 on the GPU
 * (spxPruneNM; groups of L = 32 output rows share each window's kept columns), X (batch x in,
 * row-major) is read in place as the column-major X^T, Y (batch x out, row-major) is written as
 * the column-major Y^T. One plan serves every batch of that size. The device pruning must equal
 * the host tool's (spxHostPruneNM), and Y must match a double-precision host product within
 * the fp32 rounding bound.
 *
 * Without a usable GPU it does the host-side steps and says that the device steps were skipped.
 */
#include <cuda_runtime_api.h>
#include <math.h>
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

enum { OUT = 512, IN = 768, BATCH = 77, NN = 2, MM = 4, LL = 32, KC = IN / MM * NN };

static float frand(unsigned* s) {
  *s = *s * 1664525u + 1013904223u;
  return (float)((*s >> 8) & 0xFFFF) / 65536.0f * 2.0f - 1.0f;
}

static void* to_device(const void* host, size_t bytes) {
  void* d = NULL;
  CHECK_CUDA(cudaMalloc(&d, bytes));
  CHECK_CUDA(cudaMemcpy(d, host, bytes, cudaMemcpyHostToDevice));
  return d;
}

/* The dense OUT x IN matrix (row-major) that the N:M arrays describe. */
static void densify(const float* values, const int32_t* indices, float* w) {
  memset(w, 0, sizeof(float) * OUT * IN);
  for (int i = 0; i < OUT; ++i)
    for (int q = 0; q < KC; ++q)
      w[(size_t)i * IN + q / NN * MM + indices[(size_t)(i / LL) * KC + q]] = values[(size_t)i * KC + q];
}

int main(void) {
  unsigned seed = 2024u;
  float* w = malloc(sizeof(float) * OUT * IN);
  float* x = malloc(sizeof(float) * BATCH * IN);
  for (size_t i = 0; i < (size_t)OUT * IN; ++i) w[i] = frand(&seed);
  for (size_t i = 0; i < (size_t)BATCH * IN; ++i) x[i] = frand(&seed);

  /* Host side: the reference pruning and its pattern check (no GPU needed). */
  float* h_values = malloc(sizeof(float) * OUT * KC);
  int32_t* h_indices = malloc(sizeof(int32_t) * (OUT / LL) * KC);
  float* w_pruned = malloc(sizeof(float) * OUT * IN);
  CHECK_SPX(spxHostPruneNM(OUT, IN, w, IN, SPX_ORDER_ROW, NN, MM, LL, h_values, h_indices));
  densify(h_values, h_indices, w_pruned);
  int ok = 0;
  CHECK_SPX(spxHostCheckNM(OUT, IN, w_pruned, IN, SPX_ORDER_ROW, NN, MM, LL, &ok));
  printf("host: W %d x %d pruned to %d:%d (L = %d), pattern check %s\n", OUT, IN, NN, MM, LL,
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

  /* Device pruning: the same values and indices as the host tool. */
  void* d_w = to_device(w, sizeof(float) * OUT * IN);
  void *d_values, *d_indices;
  CHECK_CUDA(cudaMalloc(&d_values, sizeof(float) * OUT * KC));
  CHECK_CUDA(cudaMalloc(&d_indices, sizeof(int32_t) * (OUT / LL) * KC));
  CHECK_SPX(spxPruneNM(h, OUT, IN, d_w, IN, SPX_ORDER_ROW, SPX_R_32F, NN, MM, LL, d_values, d_indices));
  CHECK_SPX(spxCheckNM(h, OUT, IN, d_w, IN, SPX_ORDER_ROW, SPX_R_32F, NN, MM, LL, &ok));
  printf("device: the dense W %s 2:4 (expected: it does not)\n", ok ? "satisfies" : "does not satisfy");
  float* g_values = malloc(sizeof(float) * OUT * KC);
  int32_t* g_indices = malloc(sizeof(int32_t) * (OUT / LL) * KC);
  CHECK_CUDA(cudaMemcpy(g_values, d_values, sizeof(float) * OUT * KC, cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(g_indices, d_indices, sizeof(int32_t) * (OUT / LL) * KC, cudaMemcpyDeviceToHost));
  if (memcmp(g_values, h_values, sizeof(float) * OUT * KC) != 0 ||
      memcmp(g_indices, h_indices, sizeof(int32_t) * (OUT / LL) * KC) != 0) {
    fprintf(stderr, "spxPruneNM differs from spxHostPruneNM\n");
    return 1;
  }
  printf("device: spxPruneNM matches the host pruning\n");

  /* Y^T (OUT x BATCH, col-major, ld OUT) = W (N:M) * X^T (IN x BATCH, col-major, ld IN). */
  void* d_x = to_device(x, sizeof(float) * BATCH * IN);
  float* d_y;
  CHECK_CUDA(cudaMalloc((void**)&d_y, sizeof(float) * BATCH * OUT));
  spxSpMatDescr_t A;
  spxDnMatDescr_t Xt, Yt;
  CHECK_SPX(spxCreateNM(&A, OUT, IN, NN, MM, LL, d_values, d_indices, SPX_R_32F));
  CHECK_SPX(spxCreateDnMat(&Xt, IN, BATCH, IN, d_x, SPX_R_32F, SPX_ORDER_COL));
  CHECK_SPX(spxCreateDnMat(&Yt, OUT, BATCH, OUT, d_y, SPX_R_32F, SPX_ORDER_COL));
  spxPlan_t plan;
  CHECK_SPX(spxSpMM_analyze(h, A, Xt, Yt, SPX_R_32F, SPX_SPMM_ALG_DEFAULT, &plan));
  size_t ws_bytes = 0;
  void* d_ws = NULL;
  CHECK_SPX(spxPlanGetWorkspaceSize(plan, &ws_bytes));
  if (ws_bytes > 0) CHECK_CUDA(cudaMalloc(&d_ws, ws_bytes));
  const float alpha = 1.0f, beta = 0.0f;
  for (int rep = 0; rep < 3; ++rep)  /* execute many: the analysis is done once */
    CHECK_SPX(spxSpMM(h, plan, &alpha, A, Xt, &beta, Yt, d_ws));
  CHECK_CUDA(cudaStreamSynchronize(stream));
  float* y = malloc(sizeof(float) * BATCH * OUT);
  CHECK_CUDA(cudaMemcpy(y, d_y, sizeof(float) * BATCH * OUT, cudaMemcpyDeviceToHost));

  /* Check every element: |y - ref| <= (IN + 2) * 2^-24 * sum |w x| (fp32 accumulation). */
  int bad = 0;
  double max_err = 0.0;
  for (int b = 0; b < BATCH; ++b)
    for (int o = 0; o < OUT; ++o) {
      double ref = 0.0, mag = 0.0;
      for (int p = 0; p < IN; ++p) {
        const double t = (double)w_pruned[(size_t)o * IN + p] * x[(size_t)b * IN + p];
        ref += t;
        mag += fabs(t);
      }
      const double err = fabs(y[(size_t)b * OUT + o] - ref);
      if (err > max_err) max_err = err;
      if (!(err <= (IN + 2) * ldexp(1.0, -24) * mag)) ++bad;
    }
  spxPlanInfo_t info;
  CHECK_SPX(spxPlanGetInfo(plan, &info));
  printf("device: Y = X W^T via %s [%s]: max |err| %.2e, %d elements outside the bound\n", info.kernel,
         info.config, max_err, bad);

  CHECK_SPX(spxPlanDestroy(plan));
  CHECK_SPX(spxDestroySpMat(A));
  CHECK_SPX(spxDestroyDnMat(Xt));
  CHECK_SPX(spxDestroyDnMat(Yt));
  CHECK_SPX(spxDestroy(h));
  CHECK_CUDA(cudaStreamDestroy(stream));
  cudaFree(d_w); cudaFree(d_values); cudaFree(d_indices); cudaFree(d_x); cudaFree(d_y); cudaFree(d_ws);
  free(w); free(x); free(h_values); free(h_indices); free(w_pruned); free(g_values); free(g_indices); free(y);
  if (bad) return 1;
  printf("N:M example: the result matches the host reference\n");
  return 0;
}
