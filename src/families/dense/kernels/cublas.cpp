#include "families/dense/kernels/cublas.hpp"

#include <cublas_v2.h>
#include <dlfcn.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <mutex>
#include <utility>
#include <vector>

#include "runtime/error.hpp"

namespace spx::kernels::dense {
namespace {

/// cublasGemmEx with a cublasComputeType_t (cublas_api.h overloads the name in C++).
using GemmExFn = cublasStatus_t (*)(cublasHandle_t, cublasOperation_t, cublasOperation_t, int, int,
                                    int, const void*, const void*, cudaDataType, int, const void*,
                                    cudaDataType, int, const void*, void*, cudaDataType, int,
                                    cublasComputeType_t, cublasGemmAlgo_t);

/// The functions used, resolved from the loaded library (types from cublas_v2.h).
struct Api {
  decltype(&cublasCreate_v2) create = nullptr;
  decltype(&cublasDestroy_v2) destroy = nullptr;
  decltype(&cublasSetStream_v2) set_stream = nullptr;
  decltype(&cublasSetPointerMode_v2) set_pointer_mode = nullptr;
  decltype(&cublasSetMathMode) set_math_mode = nullptr;
  GemmExFn gemm_ex = nullptr;
  decltype(&cublasGetStatusString) status_string = nullptr;
};

Api g_api;            // written once under g_once, read-only afterwards
std::string g_error;  // likewise
std::once_flag g_once;

template <class F>
bool resolve(void* lib, const char* name, F& out, std::string& missing) {
  out = reinterpret_cast<F>(dlsym(lib, name));
  if (out == nullptr) missing += missing.empty() ? name : std::string(", ") + name;
  return out != nullptr;
}

void load() {
  const char* names[] = {"libcublas.so.13", "libcublas.so"};
  void* lib = nullptr;
  std::string tried;
  for (const char* name : names) {
    lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (lib != nullptr) break;
    const char* why = dlerror();
    tried += strf("%s%s (%s)", tried.empty() ? "" : "; ", name, why ? why : "not found");
  }
  if (lib == nullptr) {
    g_error = "cuBLAS could not be loaded: " + tried;
    return;
  }
  Api api;
  std::string missing;
  resolve(lib, "cublasCreate_v2", api.create, missing);
  resolve(lib, "cublasDestroy_v2", api.destroy, missing);
  resolve(lib, "cublasSetStream_v2", api.set_stream, missing);
  resolve(lib, "cublasSetPointerMode_v2", api.set_pointer_mode, missing);
  resolve(lib, "cublasSetMathMode", api.set_math_mode, missing);
  resolve(lib, "cublasGemmEx", api.gemm_ex, missing);
  resolve(lib, "cublasGetStatusString", api.status_string, missing);
  if (!missing.empty()) {
    g_error = "the loaded cuBLAS (libcublas.so) lacks " + missing;
    return;  // the library stays loaded; it is never unloaded
  }
  g_api = api;
}

const char* status_text(cublasStatus_t s) {
  const char* t = g_api.status_string ? g_api.status_string(s) : nullptr;
  return t ? t : "unknown cuBLAS status";
}

/// This thread's handles, one per device, destroyed when a thread other than the main one exits.
/// The main thread's are left to process exit (as PyTorch does): at exit the CUDA context may
/// already be torn down when thread-local destructors run.
struct ThreadHandles {
  std::vector<std::pair<int, cublasHandle_t>> handles;
  ~ThreadHandles() {
    if (static_cast<pid_t>(syscall(SYS_gettid)) == getpid()) return;
    for (auto& [device, h] : handles) {
      (void)device;
      if (g_api.destroy) g_api.destroy(h);
    }
  }
};
thread_local ThreadHandles t_handles;

cublasHandle_t handle_for(int device, std::string& error) {
  for (auto& [d, h] : t_handles.handles)
    if (d == device) return h;
  cublasHandle_t h = nullptr;
  const cublasStatus_t s = g_api.create(&h);
  if (s != CUBLAS_STATUS_SUCCESS) {
    error = strf("cublasCreate failed: %s", status_text(s));
    return nullptr;
  }
  // fp16 / bf16 outputs: split-K partial sums are reduced in fp32 (the compute type), not
  // rounded to the output type in between, so C is rounded once, as the sparse kernels round it
  // (H200: bf16 C, 264 x 256 x 72, beta 1 came out up to 1.2 ulp off with the default).
  const cublasStatus_t m = g_api.set_math_mode(
      h, static_cast<cublasMath_t>(CUBLAS_DEFAULT_MATH |
                                   CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION));
  if (m != CUBLAS_STATUS_SUCCESS) {
    g_api.destroy(h);
    error = strf("cublasSetMathMode failed: %s", status_text(m));
    return nullptr;
  }
  t_handles.handles.emplace_back(device, h);
  return h;
}

cudaDataType_t cuda_type(spxDataType_t t) {
  switch (t) {
    case SPX_R_16F: return CUDA_R_16F;
    case SPX_R_16BF: return CUDA_R_16BF;
    default: return CUDA_R_32F;
  }
}

cublasComputeType_t compute_type(GemmCompute c) {
  switch (c) {
    case GemmCompute::Fp32Pedantic: return CUBLAS_COMPUTE_32F_PEDANTIC;
    case GemmCompute::Tf32: return CUBLAS_COMPUTE_32F_FAST_TF32;
    case GemmCompute::Fp32: break;
  }
  return CUBLAS_COMPUTE_32F;
}

}  // namespace

const std::string& cublas_load_error() {
  std::call_once(g_once, load);
  return g_error;
}

std::string gemm(const GemmArgs& a, int device, cudaStream_t stream) {
  if (!cublas_load_error().empty()) return cublas_load_error();
  std::string error;
  cublasHandle_t h = handle_for(device, error);
  if (h == nullptr) return error;
  cublasStatus_t s = g_api.set_stream(h, stream);
  if (s == CUBLAS_STATUS_SUCCESS)
    s = g_api.set_pointer_mode(h, a.device_scalars ? CUBLAS_POINTER_MODE_DEVICE
                                                   : CUBLAS_POINTER_MODE_HOST);
  if (s != CUBLAS_STATUS_SUCCESS) return strf("setting up the cuBLAS handle: %s", status_text(s));
  s = g_api.gemm_ex(h, a.trans_first ? CUBLAS_OP_T : CUBLAS_OP_N,
                    a.trans_second ? CUBLAS_OP_T : CUBLAS_OP_N, a.m, a.n, a.k, a.alpha, a.first,
                    cuda_type(a.ab_type), a.ld_first, a.second, cuda_type(a.ab_type), a.ld_second,
                    a.beta, a.c, cuda_type(a.c_type), a.ldc, compute_type(a.compute),
                    CUBLAS_GEMM_DEFAULT);
  if (s != CUBLAS_STATUS_SUCCESS) return strf("cublasGemmEx failed: %s", status_text(s));
  return {};
}

}  // namespace spx::kernels::dense
