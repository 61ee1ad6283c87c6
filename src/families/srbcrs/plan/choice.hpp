// Host side of the SR-BCRS family's SpMM decisions (plain C++, no CUDA), each made in one place:
//   * read_overrides: the SPX_SRBCRS_* switches, parsed once per analyze;
//   * choose: at analyze, from the inputs and the overrides, the kernel variant, the stride of the
//     plan's layout, the schedule candidates and the one that runs, the workspace, and the plan
//     info text (Decision::kernel / describe);
//   * b_source: per call (B's address and ld may change between calls), whether B is read in
//     place or copied, and its row pitch.
// family.cpp calls them; the launchers take their results and decide nothing. Kept apart from the
// dispatch glue so the CPU tests can check every rule. The SDDMM's are in plan/sddmm.hpp.
//
// The kernels (kernels/, README.md of the family) compute every tile transposed, C^T = B^T A^T,
// with `mma.sync.m16n8k32` on int8: the dense columns of B on the m = 16 side, the V <= 8 rows of
// a sparse vector on the n = 8 side. 4-bit operands are unpacked to int8 in registers (Hopper has
// no int4 tensor-core rate: m16n8k64 s4 runs at 68 TOP/s on an H200 against 1,265 for m16n8k32 s8),
// so A and B may each be 8- or 4-bit, signed or unsigned, in any mix (the mma takes .s8/.u8 for
// each operand separately). 16-bit operands (16I; "12-bit" values live there too) are emulated:
// two int8 slices each (low byte unsigned, high byte signed), one mma per pair of slices, the
// partial products shifted and added in wrapping int32: 16-bit A with any B, 16-bit B with 16-bit
// A. On sm_80 (compute capability 8.x) L4-R4 runs natively on m16n8k64 (int4 at twice the int8
// rate there) over strides of 64.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "families/candidates.hpp"
#include "families/srbcrs/plan/layout.hpp"
#include "families/switches.hpp"
#include "spx/spx_types.h"

namespace spx::plan {

/// Which L4-R4 path: the rule's (native int4 on compute capability 8.x), or one forced
/// (SPX_SRBCRS_FORCE_INT4=native|unpacked).
enum class SrbcrsInt4Path { Rule, Native, Unpacked };

/// The kernel variant the family runs.
struct SrbcrsChoice {
  int a_bits = 8, b_bits = 8;  ///< 16 (two int8 slices), 8 or 4
  bool a_signed = true, b_signed = true;
  bool native_int4 = false;         ///< L4-R4 on m16n8k64 (stride 64) instead of unpacking
  int64_t stride = 32;              ///< slots per stride of the plan's layout (= mma k)
  int64_t warp_cols = 64;           ///< dense columns per warp (32 for 16-bit B)
  int a_slices() const { return a_bits == 16 ? 2 : 1; }
  int b_slices() const { return b_bits == 16 ? 2 : 1; }
  std::string precision() const;    ///< "l8r8", "l4r4", "l8r4", "l4r8", "l16r8", ...
  std::string kernel_name() const;  ///< "srbcrs_spmm_l8r8", ...
  /// How the operands reach the tensor cores, for the plan info: "m16n8k32 transposed" plus ",
  /// A in 2 int8 slices", ", B in 2 int8 slices", ", int4 unpacked to int8" where they apply, or
  /// "native int4 m16n8k64 transposed".
  std::string path() const;
};

/// The rule for L4-R4: native int4 (m16n8k64) where int4 has its own tensor-core rate, compute
/// capability 8.x (twice the int8 rate); unpacked to int8 elsewhere (sm_90 runs m16n8k64 at 68
/// TOP/s, 18x slower than int8 m16n8k32).
bool srbcrs_native_int4_pays(int cc_major);

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
/// fewer strides each finish sooner); row order. warp_cols: 64, or 32 for 16-bit B; stride: 32,
/// or 64 on the native int4 path.
SrbcrsSchedule srbcrs_schedule(int64_t vector_rows, int64_t n, int64_t slots, int sm_count,
                               int64_t warp_cols = 64, int64_t stride = 32);

/// What spxSpMM_search may time: `chosen` first, then every other split in {1, 2, 4} x order.
std::vector<SrbcrsSchedule> srbcrs_schedules(const SrbcrsSchedule& chosen);

/// Row pitch in bytes of the row-major, 16-byte aligned copy of B the kernels read when B is
/// column-major or its rows are not 16-byte aligned: n elements of `b_bits` (16, 8 or 4), rounded
/// up to 16 B.
int64_t srbcrs_b_pitch(int64_t n, int b_bits);

/// Workspace bytes of a call: room for that copy of B (k rows), 0 when there is nothing to copy.
int64_t srbcrs_workspace_bytes(int64_t k, int64_t n, int b_bits);

/// True when a row-major B can be read in place: 16-byte aligned base and row pitch.
bool srbcrs_b_direct(bool b_row_major, uintptr_t b_address, int64_t ld, int b_bits);

namespace srbcrs {

/// Every SPX_SRBCRS_* switch the family honours (SpMM and SDDMM), parsed once per analyze by
/// read_overrides; the defaults leave every decision to the rules.
struct Overrides {
  int split = 0;                               ///< 1, 2 or 4: forced warps per tile; 0: rule
  int tile_major = -1;                         ///< 0 row / 1 tile: forced order; -1: rule
  SrbcrsInt4Path int4 = SrbcrsInt4Path::Rule;  ///< forced L4-R4 path
};

/// Parses the family's switches from the analyze snapshot (a value that does not parse is ignored
/// with an info line, as if unset):
///   SPX_SRBCRS_FORCE_SPLIT=1|2|4        SpMM: warps per output tile of the schedule that runs.
///   SPX_SRBCRS_FORCE_ORDER=row|tile     SpMM: tile order of the schedule that runs.
///   SPX_SRBCRS_FORCE_INT4=native|unpacked  SpMM L4-R4: m16n8k64 / int4 unpacked to int8.
Overrides read_overrides(const dispatch::Switches& switches);

/// What the SpMM decision looks at: the descriptors, the device and A's structure.
struct Inputs {
  spxFormat_t format = SPX_FORMAT_BCRS;
  int64_t vec_len = 1;  ///< BCRS V (CSR: 1)
  spxDataType_t a_type = SPX_R_8I, b_type = SPX_R_8I, c_type = SPX_R_32I;
  spxDataType_t compute_type = SPX_R_32I;
  spxOrder_t b_order = SPX_ORDER_ROW, c_order = SPX_ORDER_ROW;
  int64_t rows = 0, cols = 0, n = 0;  ///< A is rows x cols, B cols x n
  /// A's values arrive in the SR-BCRS values layout (SPX_VALUES_LAYOUT_SRBCRS: stride 32).
  bool a_values_srbcrs = false;
  int cc_major = 9;    ///< compute capability major
  int sm_count = 132;  ///< SMs of the device (the schedule rule's grid target)
  /// A's structure (srbcrs_structure_stats); refusal does not look at it.
  SrbcrsStructureStats structure;
};

/// Empty when the SR-BCRS kernels take the problem, else one sentence why not (the family's
/// refusal: SPX_SPMM_ALG_DEFAULT then falls back, a forced SRBCRS is NOT_SUPPORTED).
std::string refusal(const Inputs& in);

/// The SpMM plan's decision: what runs, what spxSpMM_search may time instead, and what plan info
/// says about it.
struct Decision {
  SrbcrsChoice variant;  ///< the kernel, its layout stride and warp columns
  /// Schedules: the rule's first, then the other five; selected: the rule's, or the forced one.
  dispatch::CandidateSet<SrbcrsSchedule> schedules{"SR-BCRS"};
  int64_t slots = 0;            ///< slots of A's layout at variant.stride
  int64_t workspace_bytes = 0;  ///< srbcrs_workspace_bytes: the copy of B a call may need
  /// What the description names besides the variant and the schedule (copied from the inputs).
  int64_t vec_len = 1;
  spxOrder_t b_order = SPX_ORDER_ROW, c_order = SPX_ORDER_ROW;
  spxDataType_t c_type = SPX_R_32I;
  bool a_values_srbcrs = false;

  const SrbcrsSchedule& schedule() const { return schedules.chosen(); }
  /// spxPlanInfo_t::kernel: "srbcrs_spmm_l8r8", ...
  std::string kernel() const;
  /// spxPlanInfo_t::config of candidate `c` (the selected one without argument), e.g. "l8r8
  /// m16n8k32 transposed (V=8 on n8); stride 32, warp 64 cols, 4 stages; B row (in place if 16 B
  /// aligned); C 32I row; split 1, row order".
  std::string describe(int c) const;
  std::string describe() const { return describe(schedules.selected()); }
};

/// The decision for inputs `refusal` accepted (INTERNAL_ERROR otherwise; NOT_SUPPORTED when A's
/// values are in the SR-BCRS layout, stride 32, and the native int4 path, stride 64, is forced or
/// chosen).
Decision choose(const Inputs& in, const Overrides& o);

/// Where the kernel reads B in one call: in place (row-major, base and row pitch 16-byte aligned)
/// or from a row-major copy in the workspace; pitch = bytes between the rows it reads.
struct BSource {
  bool in_place = false;
  int64_t pitch = 0;
};
/// The per-call decision for B (d's B bits; B's order, address and leading dimension; n columns).
BSource b_source(const Decision& d, spxOrder_t b_order, uintptr_t address, int64_t ld, int64_t n);

}  // namespace srbcrs
}  // namespace spx::plan
