/*
 * libspx quickstart: prune a dense weight matrix, run SpMM through libspx in each sparse format,
 * check every result against a double-precision host computation, and time it against cuBLAS
 * SGEMM on the dense matrix.
 *
 *   Y^T = W * X^T   (a linear layer Y = X W^T: W sparse m x k, X^T dense k x n, column-major)
 *
 * On a machine without a CUDA GPU it does the host-side steps (pruning, format conversion,
 * pattern checks), then says so and exits 0.
 */
#include <cublas_v2.h>
#include <cuda_runtime_api.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "spx/spx.h"

#define CHECK_SPX(call)                                                                       \
  do {                                                                                        \
    spxStatus_t st_ = (call);                                                                 \
    if (st_ != SPX_STATUS_SUCCESS) {                                                          \
      fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__, #call,               \
              spxGetStatusName(st_), spxGetLastErrorMessage());                               \
      exit(1);                                                                                \
    }                                                                                         \
  } while (0)

#define CHECK_CUDA(call)                                                                      \
  do {                                                                                        \
    cudaError_t e_ = (call);                                                                  \
    if (e_ != cudaSuccess) {                                                                  \
      fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call,                  \
              cudaGetErrorString(e_));                                                        \
      exit(1);                                                                                \
    }                                                                                         \
  } while (0)

enum { M = 512, K = 1024, N = 256 };

static float frand(unsigned* state) {
  *state = *state * 1664525u + 1013904223u;
  return (float)((*state >> 8) & 0xFFFF) / 65536.0f * 2.0f - 1.0f;
}

static void* to_device(const void* host, size_t bytes) {
  void* dev = NULL;
  CHECK_CUDA(cudaMalloc(&dev, bytes > 0 ? bytes : 1));
  if (bytes > 0) CHECK_CUDA(cudaMemcpy(dev, host, bytes, cudaMemcpyHostToDevice));
  return dev;
}

/* Dense reference in double: ref (m x n, column-major) = W_pruned (row-major) * X^T. */
static void host_reference(const float* w, const float* xt, double* ref) {
  for (int j = 0; j < N; ++j)
    for (int i = 0; i < M; ++i) {
      double acc = 0.0;
      for (int p = 0; p < K; ++p) acc += (double)w[(size_t)i * K + p] * xt[(size_t)j * K + p];
      ref[(size_t)j * M + i] = acc;
    }
}

/* Builds the dense (pruned) matrix that a sparse format represents, for the host reference. */
static void densify_nm(const float* vals, const int32_t* idx, int n, int m, int l, float* dense) {
  const int kc = K / m * n;
  memset(dense, 0, sizeof(float) * M * K);
  for (int i = 0; i < M; ++i)
    for (int q = 0; q < kc; ++q)
      dense[(size_t)i * K + (q / n) * m + idx[(size_t)(i / l) * kc + q]] = vals[(size_t)i * kc + q];
}

static void densify_ell(const float* vals, const int32_t* col, int width, float* dense) {
  memset(dense, 0, sizeof(float) * M * K);
  for (int j = 0; j < width; ++j)
    for (int i = 0; i < M; ++i)
      if (col[(size_t)j * M + i] >= 0) dense[(size_t)i * K + col[(size_t)j * M + i]] = vals[(size_t)j * M + i];
}

/* Runs C = A * X^T through libspx, checks it, times it; returns the median-free mean ms. */
static void run_case(spxHandle_t h, const char* label, spxSpMatDescr_t A, const float* dense_w,
                     const float* xt, float* d_xt, float* d_c, double cublas_ms) {
  spxDnMatDescr_t B, C;
  CHECK_SPX(spxCreateDnMat(&B, K, N, K, d_xt, SPX_R_32F, SPX_ORDER_COL));
  CHECK_SPX(spxCreateDnMat(&C, M, N, M, d_c, SPX_R_32F, SPX_ORDER_COL));
  spxPlan_t plan;
  CHECK_SPX(spxSpMM_analyze(h, A, B, C, SPX_R_32F, SPX_SPMM_ALG_DEFAULT, &plan));
  size_t ws = 0;
  CHECK_SPX(spxPlanGetWorkspaceSize(plan, &ws));
  void* d_ws = NULL;
  if (ws > 0) CHECK_CUDA(cudaMalloc(&d_ws, ws));
  const float alpha = 1.0f, beta = 0.0f;
  CHECK_SPX(spxSpMM(h, plan, &alpha, A, B, &beta, C, d_ws));
  CHECK_CUDA(cudaDeviceSynchronize());

  /* Check: |spx - ref| <= (k + 2) * 2^-24 * sum|a*b| per element (fp32 accumulation bound). */
  float* c = malloc(sizeof(float) * M * N);
  double* ref = malloc(sizeof(double) * M * N);
  CHECK_CUDA(cudaMemcpy(c, d_c, sizeof(float) * M * N, cudaMemcpyDeviceToHost));
  host_reference(dense_w, xt, ref);
  double max_err = 0.0, max_ref = 0.0;
  int bad = 0;
  for (size_t e = 0; e < (size_t)M * N; ++e) {
    double err = fabs(c[e] - ref[e]);
    if (err > max_err) max_err = err;
    if (fabs(ref[e]) > max_ref) max_ref = fabs(ref[e]);
    if (!(err <= (K + 2) * ldexp(1.0, -24) * K)) bad++; /* |a|,|b| <= 1: sum|a*b| <= K */
  }

  cudaEvent_t t0, t1;
  CHECK_CUDA(cudaEventCreate(&t0));
  CHECK_CUDA(cudaEventCreate(&t1));
  const int reps = 20;
  CHECK_CUDA(cudaEventRecord(t0, 0));
  for (int r = 0; r < reps; ++r) CHECK_SPX(spxSpMM(h, plan, &alpha, A, B, &beta, C, d_ws));
  CHECK_CUDA(cudaEventRecord(t1, 0));
  CHECK_CUDA(cudaEventSynchronize(t1));
  float ms = 0.0f;
  CHECK_CUDA(cudaEventElapsedTime(&ms, t0, t1));
  ms /= reps;

  spxPlanInfo_t info;
  CHECK_SPX(spxPlanGetInfo(plan, &info));
  printf("%-10s %s: max |err| %.2e (max |ref| %.2f) %s | %.3f ms vs cuBLAS SGEMM %.3f ms (%.2fx)\n",
         label, info.kernel, max_err, max_ref, bad ? "WRONG" : "ok", ms, cublas_ms,
         cublas_ms / ms);
  printf("           config: %s; metadata %zu B, values %zu B, analyze %.2f ms\n", info.config,
         info.metadata_bytes, info.values_bytes, info.analyze_ms);
  if (bad) {
    fprintf(stderr, "%s: %d elements outside the rounding bound\n", label, bad);
    exit(1);
  }
  free(c);
  free(ref);
  cudaEventDestroy(t0);
  cudaEventDestroy(t1);
  if (d_ws) cudaFree(d_ws);
  CHECK_SPX(spxPlanDestroy(plan));
  CHECK_SPX(spxDestroyDnMat(B));
  CHECK_SPX(spxDestroyDnMat(C));
}

static double time_cublas_sgemm(const float* d_w, const float* d_xt, float* d_c) {
  cublasHandle_t cb;
  if (cublasCreate(&cb) != CUBLAS_STATUS_SUCCESS) return NAN;
  cublasSetMathMode(cb, CUBLAS_PEDANTIC_MATH); /* true fp32, no TF32 */
  const float alpha = 1.0f, beta = 0.0f;
  /* C (m x n col-major) = W (row-major m x k, i.e. col-major k x m, transposed) * X^T */
  cudaEvent_t t0, t1;
  cudaEventCreate(&t0);
  cudaEventCreate(&t1);
  const int reps = 20;
  cublasSgemm(cb, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &alpha, d_w, K, d_xt, K, &beta, d_c, M);
  cudaEventRecord(t0, 0);
  for (int r = 0; r < reps; ++r)
    cublasSgemm(cb, CUBLAS_OP_T, CUBLAS_OP_N, M, N, K, &alpha, d_w, K, d_xt, K, &beta, d_c, M);
  cudaEventRecord(t1, 0);
  cudaEventSynchronize(t1);
  float ms = 0.0f;
  cudaEventElapsedTime(&ms, t0, t1);
  cudaEventDestroy(t0);
  cudaEventDestroy(t1);
  cublasDestroy(cb);
  return ms / reps;
}

int main(void) {
  int version = 0;
  CHECK_SPX(spxGetVersion(&version));
  printf("libspx %d.%d.%d quickstart: W (%d x %d) sparse, X^T (%d x %d) dense\n", version / 10000,
         version / 100 % 100, version % 100, M, K, K, N);

  /* ---- host side: prune, convert, check patterns (no GPU needed) ---- */
  unsigned seed = 12345u;
  float* w = malloc(sizeof(float) * M * K);
  float* xt = malloc(sizeof(float) * K * N);
  for (size_t i = 0; i < (size_t)M * K; ++i) w[i] = frand(&seed);
  for (size_t i = 0; i < (size_t)K * N; ++i) xt[i] = frand(&seed);

  const int nm_n = 2, nm_m = 4, nm_l = 32, kc = K / nm_m * nm_n;
  float* nm_vals = malloc(sizeof(float) * M * kc);
  int32_t* nm_idx = malloc(sizeof(int32_t) * (M / nm_l) * kc);
  CHECK_SPX(spxHostPruneNM(M, K, w, K, SPX_ORDER_ROW, nm_n, nm_m, nm_l, nm_vals, nm_idx));
  float* w_nm = malloc(sizeof(float) * M * K);
  densify_nm(nm_vals, nm_idx, nm_n, nm_m, nm_l, w_nm);
  int ok = 0;
  CHECK_SPX(spxHostCheckNM(M, K, w_nm, K, SPX_ORDER_ROW, nm_n, nm_m, nm_l, &ok));
  printf("host: pruned to %d:%d (L = %d): pattern check %s\n", nm_n, nm_m, nm_l, ok ? "ok" : "FAILED");
  if (!ok) return 1;

  const int ell_width = K / 4; /* 75 % uniform sparsity */
  float* ell_vals = malloc(sizeof(float) * M * ell_width);
  int32_t* ell_col = malloc(sizeof(int32_t) * M * ell_width);
  CHECK_SPX(spxHostPruneUniform(M, K, w, K, SPX_ORDER_ROW, ell_width, ell_col, ell_vals));
  float* w_ell = malloc(sizeof(float) * M * K);
  densify_ell(ell_vals, ell_col, ell_width, w_ell);
  CHECK_SPX(spxHostCheckUniform(M, K, w_ell, K, SPX_ORDER_ROW, ell_width, &ok));
  printf("host: pruned to uniform %d of %d per row: pattern check %s\n", ell_width, K, ok ? "ok" : "FAILED");
  if (!ok) return 1;

  int64_t nnz = 0;
  int32_t *csr_ptr = NULL, *csr_col = NULL;
  float* csr_val = NULL;
  CHECK_SPX(spxHostDenseToCsr(M, K, w_nm, K, SPX_ORDER_ROW, &nnz, &csr_ptr, &csr_col, &csr_val));
  printf("host: the 2:4 matrix as CSR has %lld nonzeros (%.1f %% sparse)\n", (long long)nnz,
         100.0 * (1.0 - (double)nnz / ((double)M * K)));

  /* ---- device side ---- */
  spxHandle_t h;
  spxStatus_t st = spxCreate(&h);
  if (st == SPX_STATUS_NOT_INITIALIZED || st == SPX_STATUS_ARCH_MISMATCH) {
    printf("no usable CUDA GPU here (%s: %s): host-side steps done, device steps skipped.\n",
           spxGetStatusName(st), spxGetLastErrorMessage());
    return 0;
  }
  CHECK_SPX(st);

  float* d_xt = to_device(xt, sizeof(float) * K * N);
  float* d_c = NULL;
  CHECK_CUDA(cudaMalloc((void**)&d_c, sizeof(float) * M * N));
  float* d_w_dense = to_device(w_nm, sizeof(float) * M * K);
  const double cublas_ms = time_cublas_sgemm(d_w_dense, d_xt, d_c);

  void* d_nm_vals = to_device(nm_vals, sizeof(float) * M * kc);
  void* d_nm_idx = to_device(nm_idx, sizeof(int32_t) * (M / nm_l) * kc);
  spxSpMatDescr_t A_nm;
  CHECK_SPX(spxCreateNM(&A_nm, M, K, nm_n, nm_m, nm_l, d_nm_vals, d_nm_idx, SPX_R_32F));
  run_case(h, "N:M 2:4", A_nm, w_nm, xt, d_xt, d_c, cublas_ms);

  void* d_ptr = to_device(csr_ptr, sizeof(int32_t) * (M + 1));
  void* d_col = to_device(csr_col, sizeof(int32_t) * nnz);
  void* d_val = to_device(csr_val, sizeof(float) * nnz);
  spxSpMatDescr_t A_csr;
  CHECK_SPX(spxCreateCsr(&A_csr, M, K, nnz, d_ptr, d_col, d_val, SPX_R_32F));
  run_case(h, "CSR", A_csr, w_nm, xt, d_xt, d_c, cublas_ms);

  void* d_ell_col = to_device(ell_col, sizeof(int32_t) * M * ell_width);
  void* d_ell_val = to_device(ell_vals, sizeof(float) * M * ell_width);
  spxSpMatDescr_t A_ell;
  CHECK_SPX(spxCreateEll(&A_ell, M, K, ell_width, d_ell_col, d_ell_val, SPX_R_32F));
  CHECK_CUDA(cudaMemcpy(d_w_dense, w_ell, sizeof(float) * M * K, cudaMemcpyHostToDevice));
  run_case(h, "ELL 75%", A_ell, w_ell, xt, d_xt, d_c, time_cublas_sgemm(d_w_dense, d_xt, d_c));

  printf("all results match the host reference.\n");
  CHECK_SPX(spxDestroySpMat(A_nm));
  CHECK_SPX(spxDestroySpMat(A_csr));
  CHECK_SPX(spxDestroySpMat(A_ell));
  CHECK_SPX(spxDestroy(h));
  cudaFree(d_xt); cudaFree(d_c); cudaFree(d_w_dense); cudaFree(d_nm_vals); cudaFree(d_nm_idx);
  cudaFree(d_ptr); cudaFree(d_col); cudaFree(d_val); cudaFree(d_ell_col); cudaFree(d_ell_val);
  spxHostFree(csr_ptr); spxHostFree(csr_col); spxHostFree(csr_val);
  free(w); free(xt); free(nm_vals); free(nm_idx); free(w_nm); free(ell_vals); free(ell_col); free(w_ell);
  return 0;
}
