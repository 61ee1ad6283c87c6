// Launchers of the SpTC family's kernels (host-callable; no device code here). The arrays the
// SpMM kernel reads are built by families/sptc/plan/storage.hpp; the configuration by config.hpp.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "device/args.hpp"
#include "families/sptc/kernels/config.hpp"

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

/// Workspace bytes for B of k x n in `order` (a row-major copy of a column-major B).
size_t workspace_bytes(int64_t k, int64_t n, spxOrder_t b_order);

/// Queues the product on `stream`. A row-major B whose rows are 16-byte aligned (ld % 8 == 0,
/// pointer 16-byte aligned) is gathered with cp.async; any other row-major B element by element;
/// a column-major B is first transposed into the workspace (row-major, aligned). A resident-A
/// configuration falls back to the streaming kernel where B is not aligned.
/// True when a row-major B at `ptr` with leading dimension ld takes the cp.async gather (and a
/// column-major B always does, through the workspace).
bool b_aligned(const void* ptr, int64_t ld, spxOrder_t order);
cudaError_t spmm(const SpmmArgs& args, const SptcConfig& cfg, cudaStream_t stream);

/// Loads every kernel a plan of this block tile may launch and opts them in to their shared
/// memory (CUDA's lazy loading would otherwise do it, and possibly wait, on the first execute).
cudaError_t spmm_load(int block_tile, bool bf16);

/// True when this build holds the sm_90a warpgroup kernel (wgmma.mma_async.sp) and a device of
/// compute capability cc_major.cc_minor can run it (9.0 only: sm_90a code runs nowhere else).
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
