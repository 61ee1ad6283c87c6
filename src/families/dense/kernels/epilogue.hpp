// The dense route's fused epilogue: cublasGemmEx writes alpha * A * B into C (beta 0), then one
// kernel applies the plan's epilogue to C in place: C = act(scale[r] * C + bias[r]), in fp32.
// Only for calls with beta = 0 given on the host (the engine runs the others on the sparse
// family's decision for the same n: engine/README.md).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "device/args.hpp"

namespace spx::kernels::dense {

/// C (m x n, any order, 32F / 16F / 16BF) = epilogue(C) in place, queued on `stream`.
cudaError_t epilogue_in_place(const DenseView& C, int64_t m, int64_t n, const Epilogue& e,
                              cudaStream_t stream);
/// Loads the kernel now (lazy module loading: analyze calls it so that execute never waits).
cudaError_t epilogue_load();

}  // namespace spx::kernels::dense
