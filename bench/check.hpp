// Status checks for every CUDA, cuBLAS, cuSPARSE and libspx call of spx-bench. A failed call
// throws bench::Error with the call's text, its status name and the source line, so a case that
// goes wrong reports exactly which call failed instead of producing a wrong row.
#pragma once

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusparse.h>

#include <stdexcept>
#include <string>

#include "spx/spx.h"

namespace bench {

/// Any failure inside one case: the case is reported as ERROR and the run goes on (unless the
/// CUDA context itself is broken, which main checks after every failed case).
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A library refused a combination (cuSPARSE NOT_SUPPORTED and the like): not a bench failure,
/// the caller prints a note and skips that configuration.
class Refused : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

[[noreturn]] void throw_cuda(cudaError_t err, const char* call, const char* file, int line);
[[noreturn]] void throw_cublas(cublasStatus_t st, const char* call, const char* file, int line);
[[noreturn]] void throw_cusparse(cusparseStatus_t st, const char* call, const char* file, int line);
[[noreturn]] void throw_spx(spxStatus_t st, const char* call, const char* file, int line);

const char* cublas_status_name(cublasStatus_t st);

/// printf-style formatting into a std::string.
std::string strf(const char* fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;

}  // namespace bench

#define CUDA_CHECK(call)                                                     \
  do {                                                                       \
    cudaError_t bench_err_ = (call);                                         \
    if (bench_err_ != cudaSuccess)                                           \
      ::bench::throw_cuda(bench_err_, #call, __FILE__, __LINE__);            \
  } while (0)

#define CUBLAS_CHECK(call)                                                   \
  do {                                                                       \
    cublasStatus_t bench_st_ = (call);                                       \
    if (bench_st_ != CUBLAS_STATUS_SUCCESS)                                  \
      ::bench::throw_cublas(bench_st_, #call, __FILE__, __LINE__);           \
  } while (0)

#define CUSPARSE_CHECK(call)                                                 \
  do {                                                                       \
    cusparseStatus_t bench_st_ = (call);                                     \
    if (bench_st_ != CUSPARSE_STATUS_SUCCESS)                                \
      ::bench::throw_cusparse(bench_st_, #call, __FILE__, __LINE__);         \
  } while (0)

#define SPX_CHECK(call)                                                      \
  do {                                                                       \
    spxStatus_t bench_st_ = (call);                                          \
    if (bench_st_ != SPX_STATUS_SUCCESS)                                     \
      ::bench::throw_spx(bench_st_, #call, __FILE__, __LINE__);              \
  } while (0)
