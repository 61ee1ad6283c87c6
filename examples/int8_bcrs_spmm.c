/*
 * libspx example: int8 vector-sparse weights in BCRS(V) (the quantized path: SR-BCRS where the
 * library has it, its generic kernel until then; plan info says which ran).
 *
 * A quantized linear layer: W holds int8 values in V x 1 column vectors (V = 8 output rows),
 * 60 % of the vectors of every block row zero; X holds int8 activations. The product
 * accumulates exactly in int32, and with an fp32 output alpha is the dequantization scale
 * (weight scale times activation scale): Y^T = (sw * sx) * Wq Xq^T. The host builds the BCRS
 * arrays (spxHostDenseToBcrs) and the int8 values (spxHostConvertValues). Checks: the int32
 * output equals the exact integer product; the fp32 output is within a few fp32 roundings of
 * alpha times it.
 *
 * Without a usable GPU it does the host-side steps and says that the device steps were skipped.
 */
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

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

enum { OUT = 256, IN = 512, BATCH = 40, V = 8 };

static unsigned next(unsigned* s) {
  *s = *s * 1664525u + 1013904223u;
  return *s >> 8;
}

static void* to_device(const void* host, size_t bytes) {
  void* d = NULL;
  CHECK_CUDA(cudaMalloc(&d, bytes > 0 ? bytes : 1));
  if (bytes > 0) CHECK_CUDA(cudaMemcpy(d, host, bytes, cudaMemcpyHostToDevice));
  return d;
}

int main(void) {
  unsigned seed = 7u;
  /* Integer-valued floats: int8 weights with vector sparsity, int8 activations (X^T, IN x BATCH
   * column-major = X row-major BATCH x IN). */
  float* wq = calloc((size_t)OUT * IN, sizeof(float));
  for (int br = 0; br < OUT / V; ++br)
    for (int c = 0; c < IN; ++c)
      if (next(&seed) % 10 < 4)  /* keep 40 % of the vectors */
        for (int r = 0; r < V; ++r) wq[(size_t)(br * V + r) * IN + c] = (float)((int)(next(&seed) % 255) - 127);
  float* xq = malloc(sizeof(float) * BATCH * IN);
  for (size_t i = 0; i < (size_t)BATCH * IN; ++i) xq[i] = (float)((int)(next(&seed) % 255) - 127);
  const float weight_scale = 0.0123f, input_scale = 0.0456f;

  /* Host side: BCRS(V) arrays and int8 values. */
  int64_t num_vectors = 0;
  int32_t *block_row_ptr = NULL, *block_col = NULL;
  float* values = NULL;
  CHECK_SPX(spxHostDenseToBcrs(OUT, IN, wq, IN, SPX_ORDER_ROW, V, &num_vectors, &block_row_ptr,
                               &block_col, &values));
  int8_t* values8 = malloc(spxHostSizeOf(SPX_R_8I, num_vectors * V));
  int8_t* x8 = malloc(spxHostSizeOf(SPX_R_8I, (int64_t)BATCH * IN));
  CHECK_SPX(spxHostConvertValues(num_vectors * V, values, SPX_R_8I, values8));
  CHECK_SPX(spxHostConvertValues((int64_t)BATCH * IN, xq, SPX_R_8I, x8));
  printf("host: W %d x %d int8 in %lld vectors of %d x 1 (%.0f %% of the vectors kept)\n", OUT, IN,
         (long long)num_vectors, V, 100.0 * num_vectors / ((double)OUT / V * IN));

  spxHandle_t h;
  spxStatus_t st = spxCreate(&h);
  if (st == SPX_STATUS_NOT_INITIALIZED || st == SPX_STATUS_ARCH_MISMATCH) {
    printf("no usable CUDA GPU (%s: %s): device steps skipped\n", spxGetStatusName(st),
           spxGetLastErrorMessage());
    return 0;
  }
  CHECK_SPX(st);

  void* d_ptr = to_device(block_row_ptr, sizeof(int32_t) * (OUT / V + 1));
  void* d_col = to_device(block_col, sizeof(int32_t) * num_vectors);
  void* d_val = to_device(values8, spxHostSizeOf(SPX_R_8I, num_vectors * V));
  void* d_x = to_device(x8, spxHostSizeOf(SPX_R_8I, (int64_t)BATCH * IN));
  void *d_y32, *d_yf;
  CHECK_CUDA(cudaMalloc(&d_y32, sizeof(int32_t) * BATCH * OUT));
  CHECK_CUDA(cudaMalloc(&d_yf, sizeof(float) * BATCH * OUT));

  spxSpMatDescr_t A;
  spxDnMatDescr_t Xt, Y32, Yf;
  CHECK_SPX(spxCreateBcrs(&A, OUT, IN, V, num_vectors, d_ptr, d_col, d_val, SPX_R_8I));
  CHECK_SPX(spxCreateDnMat(&Xt, IN, BATCH, IN, d_x, SPX_R_8I, SPX_ORDER_COL));
  CHECK_SPX(spxCreateDnMat(&Y32, OUT, BATCH, OUT, d_y32, SPX_R_32I, SPX_ORDER_COL));
  CHECK_SPX(spxCreateDnMat(&Yf, OUT, BATCH, OUT, d_yf, SPX_R_32F, SPX_ORDER_COL));

  /* int32 output: alpha and beta are int32. fp32 output: alpha dequantizes. */
  spxPlan_t plan32, planf;
  CHECK_SPX(spxSpMM_analyze(h, A, Xt, Y32, SPX_R_32I, SPX_SPMM_ALG_DEFAULT, &plan32));
  CHECK_SPX(spxSpMM_analyze(h, A, Xt, Yf, SPX_R_32I, SPX_SPMM_ALG_DEFAULT, &planf));
  size_t ws32 = 0, wsf = 0;
  void *d_ws32 = NULL, *d_wsf = NULL;
  CHECK_SPX(spxPlanGetWorkspaceSize(plan32, &ws32));
  CHECK_SPX(spxPlanGetWorkspaceSize(planf, &wsf));
  if (ws32 > 0) CHECK_CUDA(cudaMalloc(&d_ws32, ws32));
  if (wsf > 0) CHECK_CUDA(cudaMalloc(&d_wsf, wsf));
  const int32_t one = 1, zero = 0;
  const float scale = weight_scale * input_scale, fzero = 0.0f;
  CHECK_SPX(spxSpMM(h, plan32, &one, A, Xt, &zero, Y32, d_ws32));
  CHECK_SPX(spxSpMM(h, planf, &scale, A, Xt, &fzero, Yf, d_wsf));
  CHECK_CUDA(cudaDeviceSynchronize());
  int32_t* y32 = malloc(sizeof(int32_t) * BATCH * OUT);
  float* yf = malloc(sizeof(float) * BATCH * OUT);
  CHECK_CUDA(cudaMemcpy(y32, d_y32, sizeof(int32_t) * BATCH * OUT, cudaMemcpyDeviceToHost));
  CHECK_CUDA(cudaMemcpy(yf, d_yf, sizeof(float) * BATCH * OUT, cudaMemcpyDeviceToHost));

  /* Exact integer reference; the fp32 output rounds the int32 sum and the scaling (<= 3 ulp). */
  int bad_int = 0, bad_float = 0;
  for (int b = 0; b < BATCH; ++b)
    for (int o = 0; o < OUT; ++o) {
      int64_t exact = 0;
      for (int p = 0; p < IN; ++p)
        exact += (int64_t)wq[(size_t)o * IN + p] * (int64_t)xq[(size_t)b * IN + p];
      if (y32[(size_t)b * OUT + o] != exact) ++bad_int;
      const double ref = (double)scale * (double)exact;
      if (!(fabs(yf[(size_t)b * OUT + o] - ref) <= 3.0 * ldexp(1.0, -24) * fabs(ref))) ++bad_float;
    }
  spxPlanInfo_t info;
  CHECK_SPX(spxPlanGetInfo(planf, &info));
  printf("device: int8 x int8 via %s [%s]\n", info.kernel, info.config);
  printf("device: int32 output %s; dequantized fp32 output (alpha = %.3g): %d outside the bound\n",
         bad_int ? "WRONG" : "exact", scale, bad_float);

  CHECK_SPX(spxPlanDestroy(plan32));
  CHECK_SPX(spxPlanDestroy(planf));
  CHECK_SPX(spxDestroySpMat(A));
  CHECK_SPX(spxDestroyDnMat(Xt));
  CHECK_SPX(spxDestroyDnMat(Y32));
  CHECK_SPX(spxDestroyDnMat(Yf));
  CHECK_SPX(spxDestroy(h));
  cudaFree(d_ptr); cudaFree(d_col); cudaFree(d_val); cudaFree(d_x); cudaFree(d_y32); cudaFree(d_yf);
  cudaFree(d_ws32); cudaFree(d_wsf);
  spxHostFree(block_row_ptr); spxHostFree(block_col); spxHostFree(values);
  free(wq); free(xq); free(values8); free(x8); free(y32); free(yf);
  if (bad_int || bad_float) return 1;
  printf("int8 BCRS example: both results match the exact integer reference\n");
  return 0;
}
