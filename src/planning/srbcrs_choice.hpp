// Host side of the SR-BCRS family's kernel choice (plain C++, no CUDA): which inputs the
// tensor-core kernels take, which kernel variant runs them, the stride of the plan's layout and the
// workspace a call needs. Kept apart from the dispatch glue so the CPU tests can check every rule.
//
// The kernels (src/kernels/srbcrs, README there) compute every tile transposed, C^T = B^T A^T,
// with `mma.sync.m16n8k32` on int8: the dense columns of B on the m = 16 side, the V <= 8 rows of
// a sparse vector on the n = 8 side. 4-bit operands are unpacked to int8 in registers (Hopper has
// no int4 tensor-core rate: m16n8k64 s4 runs at 68 TOP/s on an H200 against 1,265 for m16n8k32 s8;
// the same unpacking path runs on sm_80), so A and B may each be 8- or 4-bit, signed or unsigned,
// in any mix (the mma takes .s8/.u8 for each operand separately).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "spx/spx_types.h"

namespace spx::plan {

/// What the choice looks at (all from the descriptors and the device).
struct SrbcrsProblem {
  spxFormat_t format = SPX_FORMAT_BCRS;
  int64_t vec_len = 1;  ///< BCRS V (CSR: 1)
  spxDataType_t a_type = SPX_R_8I, b_type = SPX_R_8I, c_type = SPX_R_32I;
  spxDataType_t compute_type = SPX_R_32I;
  int cc_major = 9;
  int64_t rows = 0, cols = 0, n = 0;  ///< A is rows x cols, B cols x n
};

/// The kernel variant the family runs.
struct SrbcrsChoice {
  int a_bits = 8, b_bits = 8;  ///< 8 or 4
  bool a_signed = true, b_signed = true;
  int64_t stride = 32;              ///< slots per stride of the plan's layout (= mma k)
  std::string precision() const;    ///< "l8r8", "l4r4", "l8r4", "l4r8"
  std::string kernel_name() const;  ///< "srbcrs_spmm_l8r8", ...
};

/// Empty when the SR-BCRS kernels take the problem, else one sentence why not (the family's
/// refusal: SPX_SPMM_ALG_DEFAULT then falls back, a forced SRBCRS is NOT_SUPPORTED).
std::string srbcrs_refusal(const SrbcrsProblem& p);

/// The variant for a problem srbcrs_refusal accepted.
SrbcrsChoice srbcrs_choose(const SrbcrsProblem& p);

/// How the grid is laid out over the output tiles (one vector-row x 64 columns each).
struct SrbcrsSchedule {
  /// Warps of a block sharing one tile, each taking every split-th stride of the vector-row
  /// (1, 2 or 4); their int32 partial sums are added in shared memory before the epilogue.
  int split = 1;
  /// Tile order: false = the column tiles of a vector-row are consecutive (its indices and values
  /// are read once into L1); true = the vector-rows of a column tile are consecutive (the warps
  /// running together gather from the same 64-column strip of B).
  bool tile_major = false;
  std::string describe() const;  ///< "split 2, row order"
  bool operator==(const SrbcrsSchedule& o) const {
    return split == o.split && tile_major == o.tile_major;
  }
};

/// The rule: split a tile over more warps while the grid has fewer than 16 warps per SM and every
/// warp still gets at least one stride on average (short grids are latency-bound: more warps with
/// fewer strides each finish sooner); row order.
SrbcrsSchedule srbcrs_schedule(int64_t vector_rows, int64_t n, int64_t slots, int sm_count);

/// What spxSpMM_search may time: `chosen` first, then every other split in {1, 2, 4} x order.
std::vector<SrbcrsSchedule> srbcrs_schedules(const SrbcrsSchedule& chosen);

/// Row pitch in bytes of the row-major, 16-byte aligned copy of B the kernels read when B is
/// column-major or its rows are not 16-byte aligned: n elements of `b_bits`, rounded up to 16 B.
int64_t srbcrs_b_pitch(int64_t n, int b_bits);

/// Workspace bytes of a call: room for that copy of B (k rows), 0 when there is nothing to copy.
int64_t srbcrs_workspace_bytes(int64_t k, int64_t n, int b_bits);

/// True when a row-major B can be read in place: 16-byte aligned base and row pitch.
bool srbcrs_b_direct(bool b_row_major, uintptr_t b_address, int64_t ld, int b_bits);

}  // namespace spx::plan
