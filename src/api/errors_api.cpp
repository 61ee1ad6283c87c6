// Statuses, messages and version: the C entry points that never fail.
#include "runtime/error.hpp"
#include "spx/spx.h"

extern "C" {

const char* spxGetStatusName(spxStatus_t status) { return spx::status_name(status); }

const char* spxGetStatusString(spxStatus_t status) {
  switch (status) {
    case SPX_STATUS_SUCCESS: return "the operation completed successfully";
    case SPX_STATUS_NOT_INITIALIZED: return "no usable CUDA device or driver";
    case SPX_STATUS_ALLOC_FAILED: return "a host or device memory allocation failed";
    case SPX_STATUS_INVALID_VALUE: return "an argument was invalid";
    case SPX_STATUS_ARCH_MISMATCH: return "the device is older than sm_80, which libspx requires";
    case SPX_STATUS_EXECUTION_FAILED: return "a CUDA call or kernel launch failed";
    case SPX_STATUS_INTERNAL_ERROR: return "an internal libspx error";
    case SPX_STATUS_NOT_SUPPORTED: return "valid input this version or algorithm does not support";
    case SPX_STATUS_IO_ERROR: return "a file could not be read or parsed";
  }
  return "unknown status value";
}

const char* spxGetLastErrorMessage(void) { return spx::last_error(); }

spxStatus_t spxGetVersion(int* version) {
  return spx::guard("spxGetVersion", [&] {
    SPX_CHECK_ARG(version != nullptr, "version is NULL");
    *version = SPX_VERSION;
  });
}

}  // extern "C"
