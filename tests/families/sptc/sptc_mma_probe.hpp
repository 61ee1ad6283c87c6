// Host entry of sptc_mma_probe.cu (no CUDA headers needed by the caller).
#pragma once

#include <cstdint>

/// Runs one mma.sp::ordered_metadata m16n8k32 f16 -> f32 with C = 0 and the given sparsity
/// selector (0 or 1) on one warp. a, b: 32 lanes x 4 registers; e: 32 metadata registers;
/// d: 32 lanes x 4 floats out. Returns the cudaError_t value (0 on success).
int sptc_probe_mma_sp(const uint32_t* a, const uint32_t* b, const uint32_t* e, int selector,
                      float* d);
