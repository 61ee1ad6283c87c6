// Launchers of the SpTC family's kernels (host-callable; no device code here). The arrays the
// SpMM kernel reads are built by families/sptc/plan/storage.hpp; the configuration and the way a
// call reads B are decided by families/sptc/plan/choice.hpp (launch_config.hpp).
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "device/args.hpp"
#include "families/sptc/kernels/launch_config.hpp"

namespace spx::kernels::sptc {

/// C = alpha * A * B + beta * C with A in the plan's reorder-aware storage.
struct SpmmArgs {
  int64_t m = 0, k = 0, n = 0;
  int64_t panels = 0;
  const int32_t* blocks = nullptr;       ///< 4 per launch position (panels, longest first):
                                         ///< panel, first pair, k tiles, 0 (16-byte aligned)
  const int32_t* gather = nullptr;       ///< 64 per pair
  const int32_t* row_map = nullptr;      ///< reordered row -> row of C, or null (identity)
  int max_pairs = 0;                     ///< the longest panel's pairs (resident-A smem)
  const uint32_t* metadata = nullptr;    ///< 32 per (pair, slice)
  const void* values = nullptr;          ///< 512 16-bit values per (pair, slice)
  bool bf16 = false;                     ///< A and B are bfloat16 (else fp16)
  DenseView B{}, C{};
  Scalars scalars{};
  void* workspace = nullptr;             ///< B^T (row-major B) when B is column-major
};

/// Queues the product on `stream` with exactly the kernel and B reading of `launch`: B from the
/// user's row-major array, or (BSource::kWorkspace) the user's column-major B transposed into
/// the workspace first at row stride launch.b.ldb. Refuses (cudaErrorInvalidValue) what it
/// cannot run: the warpgroup kernel in a build without it or with an unaligned B, resident A
/// with an unaligned B, BN other than 64 / 128, BLOCK_TILE without such an instance, tiles per
/// block below 1, a transpose without a workspace.
cudaError_t spmm(const SpmmArgs& args, const SptcLaunch& launch, cudaStream_t stream);

/// Loads every kernel a plan of this block tile may launch (with_wgmma: the warpgroup kernels
/// too, which only a build holding them and a compute capability 9.0 device can) and opts them
/// in to their shared memory (CUDA's lazy loading would otherwise do it, and possibly wait, on
/// the first execute).
cudaError_t spmm_load(int block_tile, bool bf16, bool with_wgmma);

/// True when this build holds the sm_90a warpgroup kernel (wgmma.mma_async.sp) and a device of
/// compute capability cc_major.cc_minor can run it (9.0 only: sm_90a code runs nowhere else). A
/// fact of the build for plan::sptc::choose, which decides whether to use it.
bool wgmma_usable(int cc_major, int cc_minor);

/// dst[i] = slot[i] >= 0 ? src[slot[i]] : 0 over 16-bit elements (spxPlanUpdateValues).
struct PackArgs {
  int64_t count = 0;
  const int32_t* slot = nullptr;
  const uint16_t* src = nullptr;
  uint16_t* dst = nullptr;
};
cudaError_t pack_values(const PackArgs& args, cudaStream_t stream);
cudaError_t pack_values_load();

}  // namespace spx::kernels::sptc
