#include "check.hpp"

#include <cstdarg>
#include <cstdio>

namespace bench {

std::string strf(const char* fmt, ...) {
  va_list args;
  va_start(args, fmt);
  va_list copy;
  va_copy(copy, args);
  int len = std::vsnprintf(nullptr, 0, fmt, copy);
  va_end(copy);
  std::string out(len > 0 ? static_cast<size_t>(len) : 0, '\0');
  if (len > 0) std::vsnprintf(&out[0], out.size() + 1, fmt, args);
  va_end(args);
  return out;
}

const char* cublas_status_name(cublasStatus_t st) {
  switch (st) {
    case CUBLAS_STATUS_SUCCESS: return "CUBLAS_STATUS_SUCCESS";
    case CUBLAS_STATUS_NOT_INITIALIZED: return "CUBLAS_STATUS_NOT_INITIALIZED";
    case CUBLAS_STATUS_ALLOC_FAILED: return "CUBLAS_STATUS_ALLOC_FAILED";
    case CUBLAS_STATUS_INVALID_VALUE: return "CUBLAS_STATUS_INVALID_VALUE";
    case CUBLAS_STATUS_ARCH_MISMATCH: return "CUBLAS_STATUS_ARCH_MISMATCH";
    case CUBLAS_STATUS_MAPPING_ERROR: return "CUBLAS_STATUS_MAPPING_ERROR";
    case CUBLAS_STATUS_EXECUTION_FAILED: return "CUBLAS_STATUS_EXECUTION_FAILED";
    case CUBLAS_STATUS_INTERNAL_ERROR: return "CUBLAS_STATUS_INTERNAL_ERROR";
    case CUBLAS_STATUS_NOT_SUPPORTED: return "CUBLAS_STATUS_NOT_SUPPORTED";
    case CUBLAS_STATUS_LICENSE_ERROR: return "CUBLAS_STATUS_LICENSE_ERROR";
  }
  return "CUBLAS_STATUS_<unknown>";
}

static std::string where(const char* call, const char* file, int line) {
  return strf("%s (%s:%d)", call, file, line);
}

/// "cusparseSpMM_bufferSize(h, ...)" -> "cusparseSpMM_bufferSize": refusals are printed as notes
/// on every sweep, where the function name says enough.
static std::string function_of(const char* call) {
  std::string s = call;
  return s.substr(0, s.find('('));
}

void throw_cuda(cudaError_t err, const char* call, const char* file, int line) {
  throw Error(strf("CUDA error %s: %s in %s", cudaGetErrorName(err), cudaGetErrorString(err),
                   where(call, file, line).c_str()));
}

void throw_cublas(cublasStatus_t st, const char* call, const char* file, int line) {
  if (st == CUBLAS_STATUS_NOT_SUPPORTED || st == CUBLAS_STATUS_ARCH_MISMATCH)
    throw Refused(strf("%s from %s", cublas_status_name(st), function_of(call).c_str()));
  throw Error(strf("cuBLAS error %s in %s", cublas_status_name(st), where(call, file, line).c_str()));
}

void throw_cusparse(cusparseStatus_t st, const char* call, const char* file, int line) {
  // cuSPARSE answers an unsupported type/layout/algorithm combination with NOT_SUPPORTED and
  // sometimes with INVALID_VALUE: both mean "this configuration cannot run", not a bench bug.
  if (st == CUSPARSE_STATUS_NOT_SUPPORTED || st == CUSPARSE_STATUS_INVALID_VALUE ||
      st == CUSPARSE_STATUS_ARCH_MISMATCH)
    throw Refused(strf("%s from %s", cusparseGetErrorName(st), function_of(call).c_str()));
  throw Error(strf("cuSPARSE error %s (%s) in %s", cusparseGetErrorName(st),
                   cusparseGetErrorString(st), where(call, file, line).c_str()));
}

void throw_spx(spxStatus_t st, const char* call, const char* file, int line) {
  const char* detail = spxGetLastErrorMessage();
  throw Error(strf("libspx error %s: %s in %s", spxGetStatusName(st),
                   (detail && *detail) ? detail : spxGetStatusString(st),
                   where(call, file, line).c_str()));
}

}  // namespace bench
