// Internal to src/kernels/sptc: the parameters the SpMM kernel receives and the per-BLOCK_TILE
// launchers, each instantiated in its own compile unit (spmm_bt16.cu .. spmm_bt128.cu) to keep the
// build parallel.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <cstdint>

#include "device/args.hpp"

namespace spx::kernels::sptc::detail {

/// Everything the kernel reads; B is row-major (the user's, or the workspace transpose).
struct KernelParams {
  int64_t m = 0, n = 0;
  const int4* blocks = nullptr;  ///< per blockIdx.x: panel, first pair, k tiles, 0
  const int32_t* gather = nullptr;
  const int32_t* row_map = nullptr;  ///< reordered row -> row of C (-1 past m); null: identity
  const uint32_t* metadata = nullptr;
  const uint16_t* values = nullptr;
  const uint16_t* b = nullptr;
  int64_t ldb = 0;
  /// Every B row the gather names starts within 4 GiB of b (k x ldb x 2 bytes fits 32 bits):
  /// the copies then add a 32-bit byte offset to one 64-bit base.
  bool b_off32 = false;
  int tiles_per_block = 1;  ///< BN-wide n tiles one block streams through its pipeline
  DenseView C{};
  Scalars scalars{};
};

/// Which instance of a BLOCK_TILE to launch: BN (64 or 128), the cp.async B gather (aligned)
/// or the element-wise one, the resident-A kernel (BN 128, aligned, BLOCK_TILE >= 64) and its
/// dynamic shared memory.
struct LaunchShape {
  int bn = 128;
  bool aligned = true;
  bool resident = false;
  int smem = 0;  ///< resident only: bytes for the plan's longest panel
};

/// Launches the kernel of element type T (__half or __nv_bfloat16) and BLOCK_TILE BT over
/// `panels` panels.
template <class T, int BT>
cudaError_t launch_bt(const KernelParams& p, int64_t panels, const LaunchShape& shape,
                      cudaStream_t stream);

/// Loads the kernels of (T, BT) and sets their shared-memory opt-in.
template <class T, int BT>
cudaError_t load_bt();

/// The warpgroup kernel (spmm_wgmma.cu, sm_90a only; BLOCK_TILE 64 / 128, BN 64 / 128, aligned
/// row-major B): launch and shared-memory opt-in. Call only on compute capability 9.0 in a build
/// that compiled it (SPX_SPTC_SM90A).
/// interleave: the no-swizzle B layout (SPX_SPTC_WG_INTERLEAVE=1) instead of the 128-byte swizzle.
template <class T, int BT>
cudaError_t launch_wgmma(const KernelParams& p, int64_t panels, int bn, bool interleave,
                         cudaStream_t stream);
template <class T, int BT>
cudaError_t load_wgmma();

#define SPX_SPTC_DECLARE(T, BT)                                                        \
  extern template cudaError_t launch_bt<T, BT>(const KernelParams&, int64_t,           \
                                                const LaunchShape&, cudaStream_t);      \
  extern template cudaError_t load_bt<T, BT>();
SPX_SPTC_DECLARE(__half, 16)
SPX_SPTC_DECLARE(__half, 32)
SPX_SPTC_DECLARE(__half, 64)
SPX_SPTC_DECLARE(__half, 128)
SPX_SPTC_DECLARE(__nv_bfloat16, 16)
SPX_SPTC_DECLARE(__nv_bfloat16, 32)
SPX_SPTC_DECLARE(__nv_bfloat16, 64)
SPX_SPTC_DECLARE(__nv_bfloat16, 128)
#undef SPX_SPTC_DECLARE

}  // namespace spx::kernels::sptc::detail
