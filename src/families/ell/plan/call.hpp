// What run() decides per call, where only the call knows: B's pointer and leading dimension
// (an execute may pass another B of the analyzed shape, type and order) and the workspace.
// run() calls decide_call() before launching; the launcher receives the result
// (kernels::ell::CallLaunch) and only refuses what it cannot take. Plain C++ (no CUDA).
#pragma once

#include <cstdint>

#include "families/ell/plan/choice.hpp"

namespace spx::plan {

/// Resident blocks per SM of a candidate's kernel (persistent grids), queried once at analyze
/// (kernels/ell.hpp: resident_blocks); `bulk`: of the staged SlotSplit's bulk-copy kernel.
struct EllOccupancy {
  int per_sm = 0;
  int bulk = 0;
};

/// This call's operands as the decisions see them.
struct EllCall {
  const void* b = nullptr;  ///< B's values
  int64_t ldb = 0;          ///< B's leading dimension
  void* workspace = nullptr;
};

/// The staged SlotSplit's copy of B's chunk on this call:
///   * the TMA unit's bulk copy where the configuration asks for it (the rule, from the shape:
///     slot_bulk_fits) and this B is one block of whole rows: ld == NT, 16-byte aligned;
///   * else the threads, with 16-byte pieces (b_vec) where B is row-major, the chunk whole rows
///     of >= 16 bytes, n a multiple of NT, B and its rows 16-byte aligned;
///   * by cp.async (async) where the chunk is B's whole rows (ld == NT, one contiguous block) of
///     at most 64 KiB: measured faster there (fp16 4096^2 x 8, 80 / 90 %: 11.4 / 8.3 us ->
///     10.5 / 7.6); where the chunk is half of each row (4096^2 x 16, two chunks of 8 columns)
///     measured slower (15.3 / 11.7 -> 18.4 / 14.7 us), and so where it is 128 KiB of whole rows
///     (4096^2 x 16 at 80 %, NT 16: 19.5 us against 12.7 with the loads and stores; two column
///     parts 21.8 against 13.6: ncu shows the copy loop waiting on a full MIO queue);
///   * threads per block: slot_staged_threads (the kernel's launch bounds).
kernels::ell::StagedCopy staged_copy(const SlotStagedConfig& c, const EllInputs& s,
                                     const EllCall& call);

/// Everything the launcher of `c` needs beyond the configuration for this call: B's rows as the
/// kernel reads them (B^T in the workspace for a transposing configuration, none when k == 0),
/// whether vector loads of them are aligned, the resident blocks of the kernel it launches and,
/// for the staged SlotSplit, staged_copy.
kernels::ell::CallLaunch decide_call(const KernelConfig& c, const EllInputs& s, const EllCall& call,
                                     const EllOccupancy& occupancy);

}  // namespace spx::plan
