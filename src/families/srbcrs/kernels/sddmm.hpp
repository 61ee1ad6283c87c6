// Launchers of the SR-BCRS family's SDDMM kernels (host-callable; no device code here). The work
// list and output map are planned by families/srbcrs/plan/sddmm.hpp, the tile is in sddmm_config.hpp,
// README.md ("SDDMM") describes the design.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "device/args.hpp"

namespace spx::kernels::srbcrs {

/// Which SDDMM kernel: bit widths of A and B (8 or 4 in any mix, or both 16 for the emulated
/// L16-R16) and their signedness (16-bit operands are signed).
struct SddmmVariant {
  int a_bits = 8, b_bits = 8;
  bool a_signed = true, b_signed = true;
};

/// C = alpha * (A * B) .* spy(C) + beta * C over the plan's tasks (planning SrbcrsSddmmPlan).
struct SddmmArgs {
  int64_t m = 0, k = 0, n = 0;
  int vec_len = 1;
  int64_t tasks = 0;
  const int32_t* task_row = nullptr;  ///< tasks
  const int32_t* col = nullptr;       ///< tasks * 32, -1 for padding
  const int32_t* vec_map = nullptr;   ///< tasks * 32, -1 for padding (C's own value order)
  bool srbcrs_output = false;         ///< write C's values in the SR-BCRS stride-major order
  DenseView A{}, B{};                 ///< as the user passed them
  void* c_values = nullptr;
  spxDataType_t c_type = SPX_R_32I;
  Scalars scalars{};
  void* workspace = nullptr;  ///< srbcrs_sddmm_workspace bytes: k-contiguous copies of A and B
  int64_t workspace_a_offset = 0, workspace_b_offset = 0;
  /// Where A and B are read this call (planning srbcrs::sddmm_operand, decided per call): in
  /// place (k-contiguous, base and pitch 16-byte aligned) or copied k-contiguous into the
  /// workspace; the pitch is the bytes between A's rows / B's columns the kernel reads.
  bool a_in_place = false, b_in_place = false;
  int64_t a_pitch = 0, b_pitch = 0;
};

/// Queues the SDDMM on `stream` as decided: an operand not read in place is first copied
/// k-contiguous into the workspace. Refuses (cudaErrorInvalidValue) what it cannot run: an
/// in-place operand that is not k-contiguous (A row-major, B column-major) or not 16-byte aligned,
/// a copy without workspace, a pitch that is not a positive multiple of 16.
cudaError_t sddmm(const SddmmVariant& v, const SddmmArgs& args, cudaStream_t stream);

/// Loads the variant's kernel and the operand copy kernel (lazy loading would otherwise load
/// them, possibly waiting for the device, on the first execute).
cudaError_t sddmm_load(const SddmmVariant& v);

}  // namespace spx::kernels::srbcrs
