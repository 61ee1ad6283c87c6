// Handle lifecycle: device discovery, architecture check, stream and pointer mode.
#include <cuda_runtime_api.h>

#include <memory>

#include "runtime/objects.hpp"
#include "api/validate.hpp"
#include "runtime/log.hpp"
#include "device/code_arch.hpp"

extern "C" {

spxStatus_t spxCreate(spxHandle_t* handle) {
  return spx::guard("spxCreate", [&] {
    spx::validate::not_null(handle, "handle (output pointer)");
    *handle = nullptr;
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess || count == 0) {
      cudaGetLastError();
      spx::fail(SPX_STATUS_NOT_INITIALIZED,
                spx::strf("no CUDA device is available (%s)",
                          err != cudaSuccess ? cudaGetErrorString(err) : "device count is 0"));
    }
    auto h = std::make_unique<spxContext>();
    spx::device::check(cudaGetDevice(&h->device), "querying the current device");
    cudaDeviceProp prop{};
    spx::device::check(cudaGetDeviceProperties(&prop, h->device), "reading device properties");
    SPX_EXPECTS(prop.major >= 8, SPX_STATUS_ARCH_MISMATCH,
                "device %d (%s) is sm_%d%d; libspx needs sm_80 or newer", h->device, prop.name,
                prop.major, prop.minor);
    h->cc_major = prop.major;
    h->cc_minor = prop.minor;
    h->code_arch = spx::kernels::device_code_arch();
    h->sm_count = prop.multiProcessorCount;
    h->smem_per_block_optin = prop.sharedMemPerBlockOptin;
    // The streams plan memory is allocated and released on, made now: creating a stream later
    // (at a plan's destroy) could fall inside a stream capture, where it is not allowed.
    spx::device::internal_stream(h->device, spx::device::StreamRole::Allocate);
    spx::device::internal_stream(h->device, spx::device::StreamRole::Release);
    spx::log::info("spxCreate: device %d %s sm_%d%d, %d SMs, device code for compute_%d",
                   h->device, prop.name, prop.major, prop.minor, prop.multiProcessorCount,
                   h->code_arch);
    *handle = h.release();
  });
}

spxStatus_t spxDestroy(spxHandle_t handle) {
  return spx::guard("spxDestroy", [&] { delete handle; });
}

spxStatus_t spxSetStream(spxHandle_t handle, spxStream_t stream) {
  return spx::guard("spxSetStream", [&] {
    spx::validate::handle(handle);
    handle->stream = stream;
  });
}

spxStatus_t spxGetStream(spxHandle_t handle, spxStream_t* stream) {
  return spx::guard("spxGetStream", [&] {
    spx::validate::handle(handle);
    spx::validate::not_null(stream, "stream (output pointer)");
    *stream = handle->stream;
  });
}

spxStatus_t spxSetPointerMode(spxHandle_t handle, spxPointerMode_t mode) {
  return spx::guard("spxSetPointerMode", [&] {
    spx::validate::handle(handle);
    SPX_CHECK_ARG(mode == SPX_POINTER_MODE_HOST || mode == SPX_POINTER_MODE_DEVICE,
                  "mode (%d) is not a valid spxPointerMode_t", static_cast<int>(mode));
    handle->pointer_mode = mode;
  });
}

spxStatus_t spxGetPointerMode(spxHandle_t handle, spxPointerMode_t* mode) {
  return spx::guard("spxGetPointerMode", [&] {
    spx::validate::handle(handle);
    spx::validate::not_null(mode, "mode (output pointer)");
    *mode = handle->pointer_mode;
  });
}

}  // extern "C"
