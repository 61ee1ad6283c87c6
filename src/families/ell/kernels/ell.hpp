// Launchers of the ELL family's kernels (host-callable; no device code here). The layout the
// kernels read is planned by families/ell/plan/layout.hpp, the configuration by
// plan/choice.hpp, the per-call launch (CallLaunch) by plan/call.hpp: a launcher launches what
// it is given, or refuses it (a cudaError), and decides nothing.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "device/args.hpp"
#include "families/ell/kernels/config.hpp"

namespace spx::kernels::ell {

/// C = alpha * A * B + beta * C, A in the plan's ELL + CSR-tail layout.
struct SpmmArgs {
  int64_t m = 0, k = 0, n = 0;
  int64_t stride = 0;                ///< row pitch of the ELL part in slots (a multiple of 8)
  const void* values = nullptr;      ///< T[m * stride + overflow + 8] (T = fp32 or fp16)
  const void* indices = nullptr;     ///< uint16 or int32 [m * stride + overflow + 8]
  const int32_t* row_len = nullptr;  ///< m
  const int32_t* tail_ptr = nullptr; ///< m + 1, or NULL when nothing overflows
  bool half = false;                 ///< values / B are fp16 (else fp32)
  bool index16 = false;              ///< indices are uint16
  DenseView B{}, C{};
  Scalars scalars{};
  void* workspace = nullptr;         ///< (transpose_b) k x ld_bt of B^T
  /// DenseMma: the plan's densified A and its row flags (densify_dense_a), NULL otherwise.
  const void* dense_a = nullptr;
  int sm_count = 132;                ///< SMs of the device (persistent grids)
  /// The decode kernel (staged SlotSplit) launches with programmatic dependent launch: the
  /// plan's Decision (plan/choice.hpp: sm_90 code and later).
  bool dependent_launch = false;
};

/// DenseMma's operand, kept in the plan: A (values, indices, row lengths and HYB tail of `args`)
/// summed into a dense m x dense_mma_ld(k) array followed by m int32 row flags (a non-finite
/// value; fp16: a duplicate column), dense_mma_a_bytes(m, k, value bytes) bytes at `dense`.
/// Analyze and spxPlanUpdateValues run it; executes only read it.
cudaError_t densify_dense_a(const SpmmArgs& args, void* dense, cudaStream_t stream);

/// Launches `launch.kernel` with this call's choices `launch.call` (plan/call.hpp:
/// decide_call); a column-major B is first transposed into args.workspace where the call says so.
cudaError_t spmm(const SpmmArgs& args, const EllConfig& launch, cudaStream_t stream);

/// Blocks of the kernel `cfg` launches (`bulk`: the staged SlotSplit's bulk-copy kernel) that
/// fit on one SM (the occupancy query), for persistent grids; 0 for the other kernels. The plan
/// asks once per candidate at analyze (after spmm_load) and passes it in CallLaunch::per_sm.
int resident_blocks(const KernelConfig& cfg, bool half, bool index16, int64_t k, bool bulk);

/// Loads every SpMM kernel a plan of this value/index type may launch (CUDA lazy loading would
/// otherwise load them, and possibly wait for the device, on the first execute).
/// `smem_optin`: the dynamic shared memory the staged-B kernels may opt in to.
cudaError_t spmm_load(bool half, bool index16, size_t smem_optin);

/// dst[i] = src[slot[i]] (same element type, 2 or 4 bytes), 0 where slot[i] < 0.
struct PackArgs {
  int64_t count = 0;
  const int32_t* slot = nullptr;
  const void* src = nullptr;
  void* dst = nullptr;
  int element_bytes = 4;
};
cudaError_t pack_values(const PackArgs& args, cudaStream_t stream);
cudaError_t pack_values_load();

/// Uniform pruning of a dense fp32 matrix on the device, exactly as formats/prune_uniform:
/// each row keeps its ell_width largest magnitudes (NaN largest; ties: lower column), stored in
/// increasing column order, column-major rows x ell_width.
struct PruneArgs {
  int64_t rows = 0, cols = 0, ld = 0;
  const float* dense = nullptr;
  bool row_major = true;
  int64_t ell_width = 0;
  int32_t* col_ind = nullptr;
  float* values = nullptr;
};
cudaError_t prune_uniform(const PruneArgs& args, cudaStream_t stream);
cudaError_t prune_uniform_load();

}  // namespace spx::kernels::ell
