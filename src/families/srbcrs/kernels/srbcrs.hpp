// Launchers of the SR-BCRS family's kernels (host-callable; no device code here). The layout the
// SpMM kernel reads is planned by families/srbcrs/plan/layout.hpp, the variant by
// families/srbcrs/plan/choice.hpp, the tile by config.hpp. README.md describes the design.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "device/args.hpp"

namespace spx::kernels::srbcrs {

/// Which kernel variant: bit widths (16 = two int8 slices, 8 or 4) and signedness of each operand,
/// and for L4-R4 whether the native int4 mma (m16n8k64, stride 64) runs instead of the unpacking.
struct Variant {
  int a_bits = 8, b_bits = 8;
  bool a_signed = true, b_signed = true;
  bool native_int4 = false;
};

/// C = alpha * A * B + beta * C with A in the plan's SR-BCRS layout (stride 32; 64 native int4).
struct SpmmArgs {
  int64_t m = 0, k = 0, n = 0;
  int vec_len = 1;                   ///< V in {1, 2, 4, 8}
  int64_t vector_rows = 0;           ///< m / V
  const int32_t* row_ptr = nullptr;  ///< 2 * vector_rows + 1 (the layout's; even entries used)
  const int32_t* col = nullptr;      ///< slots, load order, -1 for padding
  const void* values = nullptr;      ///< pack_values' layout of the plan's values
  DenseView B{};                     ///< as the user passed it
  DenseView C{};
  Scalars scalars{};
  void* workspace = nullptr;  ///< srbcrs_workspace_bytes: B copied row-major and aligned
  int split = 1;              ///< warps per output tile: 1, 2 or 4 (planning SrbcrsSchedule)
  bool tile_major = false;    ///< tile order (planning SrbcrsSchedule)
  /// Where B is read this call (planning srbcrs::b_source, decided per call): in place (B
  /// row-major, base and b_pitch 16-byte aligned), or copied row-major into the workspace.
  bool b_in_place = false;
  int64_t b_pitch = 0;  ///< bytes between the B rows the kernel reads (B's own, or the copy's)
};

/// Queues the product on `stream` as decided: B read in place, or first copied row-major into
/// the workspace with the given pitch. Refuses (cudaErrorInvalidValue) what it cannot run: a
/// split other than 1, 2, 4, an in-place B that is not row-major with 16-byte aligned base and
/// pitch, a copy without workspace, a pitch that is not a positive multiple of 16.
cudaError_t spmm(const Variant& v, const SpmmArgs& args, cudaStream_t stream);

/// Loads the SpMM kernel of a variant and the B copy kernel (CUDA lazy loading would otherwise
/// load them, possibly waiting for the device, on the first execute).
cudaError_t spmm_load(const Variant& v);

/// Re-packs the user's BCRS / CSR values into the layout's stride-major order (analyze and
/// spxPlanUpdateValues): element (slot, v) <- user element vec_map[slot] * V + v, 0 for padding.
/// 8- and 4-bit: stride g is V rows of `stride` elements. 16-bit: stride g is slice 0 (low bytes)
/// then slice 1 (high bytes), each V rows of `stride` bytes (map::slice_byte); the same bytes as
/// planning's srbcrs_sliced_values.
struct PackArgs {
  int64_t slots = 0;  ///< multiple of stride
  int64_t stride = 32;  ///< slots per stride (32; 64 on the native int4 path)
  int vec_len = 1;
  int bits = 8;                      ///< 16, 8 or 4 (raw bits: signedness does not matter)
  const int32_t* vec_map = nullptr;  ///< slots, natural order, -1 for padding
  const void* src = nullptr;         ///< user values
  void* dst = nullptr;               ///< storage_bytes(slots * V)
  /// src is in the SR-BCRS values layout (SPX_VALUES_LAYOUT_SRBCRS; stride must be 32): element
  /// (slot, v) is read from the same element index instead of through vec_map (padding still 0).
  bool src_srbcrs = false;
};
cudaError_t pack_values(const PackArgs& args, cudaStream_t stream);
cudaError_t pack_values_load();

}  // namespace spx::kernels::srbcrs
