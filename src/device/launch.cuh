// Launch helper shared by the families (host side).
#pragma once

#include <cuda_runtime.h>

namespace spx::kernels {

/// Launches `kernel` with programmatic stream serialization (sm_90's programmatic dependent
/// launch): its blocks may start before the previous kernel of the stream has finished, as soon
/// as that kernel's blocks have all triggered (or exited). The kernel must wait
/// (`griddepcontrol.wait` / cudaGridDependencySynchronize) or otherwise synchronize before it
/// reads what that kernel writes.
template <class... Params, class... Args>
cudaError_t launch_programmatic(void (*kernel)(Params...), dim3 grid, dim3 block, size_t smem,
                                cudaStream_t stream, Args&&... args) {
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t cfg{};
  cfg.gridDim = grid;
  cfg.blockDim = block;
  cfg.dynamicSmemBytes = smem;
  cfg.stream = stream;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  return cudaLaunchKernelEx(&cfg, kernel, static_cast<Args&&>(args)...);
}

}  // namespace spx::kernels
