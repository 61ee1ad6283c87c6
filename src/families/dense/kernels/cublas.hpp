// cuBLAS, loaded at run time: libspx.so has no link dependency on it (it is loaded from wheels
// where no RPATH points at the CUDA libraries). The first plan that needs it dlopen()s
// "libcublas.so.13", else "libcublas.so" (a process that already loaded that library, like
// PyTorch, gets its copy), and resolves the few functions used here with dlsym. Handles are per
// (device, thread), created on a thread's first GEMM on a device and destroyed when that thread
// exits (the main thread's are left to process exit), so concurrent executes of one plan share
// no mutable state.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

#include "spx/spx_types.h"

namespace spx::kernels::dense {

/// Loads cuBLAS once per process (later calls return the first answer). "" when it is usable,
/// else one sentence naming the libraries tried and why they failed.
const std::string& cublas_load_error();

enum class GemmCompute { Fp32Pedantic, Tf32, Fp32 };  ///< Fp32: fp16 / bf16 inputs, fp32 compute

/// One cublasGemmEx in column-major terms (see families/dense/plan/gemm.hpp).
struct GemmArgs {
  bool trans_first = false, trans_second = false;
  int m = 0, n = 0, k = 0;
  const void* first = nullptr;
  int ld_first = 1;
  const void* second = nullptr;
  int ld_second = 1;
  spxDataType_t ab_type = SPX_R_32F;
  void* c = nullptr;
  int ldc = 1;
  spxDataType_t c_type = SPX_R_32F;
  GemmCompute compute = GemmCompute::Fp32Pedantic;
  const float* alpha = nullptr;  ///< host or device by device_scalars
  const float* beta = nullptr;
  bool device_scalars = false;
};

/// Runs the GEMM on `stream` with this thread's handle for `device` (the current device).
/// "" on success, else a sentence with cuBLAS's status.
std::string gemm(const GemmArgs& a, int device, cudaStream_t stream);

}  // namespace spx::kernels::dense
