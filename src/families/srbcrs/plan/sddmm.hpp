// Host side of the SR-BCRS family's SDDMM (plain C++, no CUDA): which inputs the tensor-core SDDMM
// kernels take, the decision made at analyze (srbcrs::choose: the variant, the output order, the
// workspace and the plan info text), the work list, where each output value goes (in C's own BCRS
// / CSR order or in the SR-BCRS stride-major order), and the per-call decision of where the
// kernel reads A and B (srbcrs::sddmm_operand). Kept apart from the dispatch glue so that the CPU
// tests can check every rule.
//
//   C = alpha * (A * B) .* spy(C) + beta * C,   A m x k, B k x n dense, C m x n in BCRS(V) / CSR.
//
// The kernel (src/families/srbcrs/kernels/sddmm_kernel.cuh, README there) computes, for one vector-row of C
// and 32 of its vectors (one stride of the SR-BCRS layout), D (16 x 8) += Bg^T (16 x 32) * Ar^T
// (32 x 8) on mma.sync.m16n8k32 int8: the gathered columns of B on the m = 16 side (two tiles of
// 16), the V <= 8 rows of A on the n = 8 side, 32 values of k per mma. Both operands are read
// k-contiguous (A row-major, B column-major), 16 bytes per lane, straight into registers: no
// shared memory, no transpose. 4-bit operands are unpacked to int8 in registers; 16I (L16-R16) is
// split into a signed high and an unsigned low byte and emulated with four int8 mma per step.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "families/srbcrs/plan/choice.hpp"
#include "families/srbcrs/plan/layout.hpp"
#include "spx/spx_types.h"

namespace spx::plan {

/// Where SDDMM writes C's values (and, for SpMM, where A's values are read from).
enum class ValuesLayout {
  /// The descriptor's own order: BCRS value (vector e, row v) at e * V + v (CSR: entry e).
  Format = 0,
  /// The SR-BCRS stride-major order with stride 32 (srbcrs_layout.hpp, "values"): vector-row i's
  /// j-th vector sits in slot s = srbcrs_row_ptr[i] + j (every vector-row padded to whole strides
  /// of 32 slots) and its row v at element (s / 32) * 32 V + v * 32 + s % 32; padding elements
  /// are written 0. The array holds srbcrs_row_ptr[R] * V elements.
  Srbcrs = 1,
};

/// Slots per stride of the SR-BCRS values layout SDDMM writes and the work unit of one warp.
inline constexpr int64_t kSddmmStride = 32;

/// The workspace of a call: room for k-contiguous copies of A (m rows) and B (n columns), each
/// 256-byte aligned; spxPlanGetWorkspaceSize always reserves both (alignment is known at execute).
struct SrbcrsSddmmWorkspace {
  int64_t a_offset = 0, b_offset = 0, bytes = 0;
};

/// The kernel variant: bits (8, 4, or 16 for the emulated L16-R16) and signedness of A and B.
struct SrbcrsSddmmChoice {
  int a_bits = 8, b_bits = 8;
  bool a_signed = true, b_signed = true;
  bool emulated() const { return a_bits == 16; }  ///< L16-R16: four int8 mma per step
  std::string precision() const;                  ///< "l8r8", "l4r8", ..., "l16r16"
  std::string kernel_name() const;                ///< "srbcrs_sddmm_l8r8", ...
};

namespace srbcrs {

/// What the SDDMM decision looks at (all from the descriptors, the options and the device).
struct SddmmInputs {
  spxFormat_t format = SPX_FORMAT_BCRS;  ///< C's format
  int64_t vec_len = 1;                   ///< C's V (CSR: 1)
  spxDataType_t a_type = SPX_R_8I, b_type = SPX_R_8I, c_type = SPX_R_32I;
  spxDataType_t compute_type = SPX_R_32I;
  spxOrder_t a_order = SPX_ORDER_ROW, b_order = SPX_ORDER_COL;
  ValuesLayout output = ValuesLayout::Format;  ///< SPX_PLAN_OPTION_SPARSE_VALUES_LAYOUT
  int cc_major = 9;
  int64_t m = 0, k = 0, n = 0;
  int64_t num_vectors = 0;  ///< C's stored vectors (CSR: entries)
};

/// Empty when the SR-BCRS SDDMM kernels take the problem, else one sentence why not (DEFAULT then
/// uses the fallback, a forced SRBCRS is NOT_SUPPORTED).
std::string refusal(const SddmmInputs& in);

/// The SDDMM plan's decision (one configuration: spxSpMM_search has nothing to time).
struct SddmmDecision {
  SrbcrsSddmmChoice variant;
  ValuesLayout output = ValuesLayout::Format;  ///< where C's values are written
  SrbcrsSddmmWorkspace workspace;              ///< copies of A and B a call may need
  /// What the description names besides the variant (copied from the inputs).
  int64_t vec_len = 1;
  spxOrder_t a_order = SPX_ORDER_ROW, b_order = SPX_ORDER_COL;
  spxDataType_t c_type = SPX_R_32I;
  /// spxPlanInfo_t::kernel: "srbcrs_sddmm_l8r8", ...
  std::string kernel() const;
  /// spxPlanInfo_t::config, e.g. "l8r8 m16n8k32 transposed (B cols on m16, V=4 rows of A on n8);
  /// 32 slots per warp, k step 64; A row, B col; C 32I in its own order".
  std::string describe() const;
};

/// The decision for inputs `refusal` accepted (INTERNAL_ERROR otherwise). No SPX_SRBCRS_* switch
/// steers the SDDMM today; it takes the family's overrides so that one struct serves both plans.
SddmmDecision choose(const SddmmInputs& in, const Overrides& o);

/// Where the kernel reads one operand in one call: in place (k-contiguous, base and pitch 16-byte
/// aligned) or from a k-contiguous copy in the workspace; pitch = bytes between its rows (A) or
/// columns (B).
struct OperandSource {
  bool in_place = false;
  int64_t pitch = 0;
};
/// The per-call decision for an operand of k values per row / column of `bits`: k_contiguous = A
/// row-major / B column-major; its address and leading dimension as passed to this call.
OperandSource sddmm_operand(bool k_contiguous, uintptr_t address, int64_t ld, int64_t k, int bits);

}  // namespace srbcrs

/// The first slot of every vector-row in the SR-BCRS layout: out[i] for i < R, out[R] = total
/// slots (a multiple of 32). block_row_ptr has R + 1 entries, starts at 0 and does not decrease
/// (INVALID_VALUE otherwise; NOT_SUPPORTED when the slot count or slots * V exceeds int32).
std::vector<int32_t> srbcrs_slot_ptr(int64_t vector_rows, const int32_t* block_row_ptr,
                                     int64_t vec_len);

/// The plan's work list and output map, built from C's structure (validated; INVALID_VALUE for
/// bad structure). One task = one stride of 32 slots of one vector-row = one warp of the kernel.
struct SrbcrsSddmmPlan {
  int64_t m = 0, n = 0, vec_len = 1, vector_rows = 0;
  int64_t num_vectors = 0;
  int64_t slots = 0;               ///< tasks * 32
  std::vector<int32_t> task_row;   ///< tasks: the vector-row of each task (device)
  HostVector<int32_t> col;         ///< slots: C's column (= B's column) of each slot, -1 padding (device)
  HostVector<int32_t> vec_map;     ///< slots: C's vector index of each slot, -1 padding (device, Format layout)
  int64_t tasks() const { return static_cast<int64_t>(task_row.size()); }
  int64_t padded_elements() const { return slots * vec_len; }
};
SrbcrsSddmmPlan srbcrs_sddmm_plan(const BcrsView& c);

/// Element of C's values array that receives value (slot, v) under `layout`; -1 when nothing is
/// written there (a padding slot under the Format layout). Srbcrs padding slots get element
/// indices (the kernel writes 0 there).
int64_t srbcrs_sddmm_output_element(const SrbcrsSddmmPlan& p, ValuesLayout layout, int64_t slot,
                                    int64_t v);

/// Bytes of one k-contiguous row (A) or column (B) of k elements of `bits` in the copy the kernel
/// reads when an operand cannot be read in place, rounded up to 16 bytes.
int64_t srbcrs_sddmm_pitch(int64_t k, int bits);

/// True when an operand can be read in place: its k dimension is contiguous (A row-major, B
/// column-major), and its base address and its pitch (ld elements of `bits`) are 16-byte aligned.
bool srbcrs_sddmm_direct(bool k_contiguous, uintptr_t address, int64_t ld, int bits);

/// The workspace of a call (see SrbcrsSddmmWorkspace).
SrbcrsSddmmWorkspace srbcrs_sddmm_workspace(int64_t m, int64_t k, int64_t n, int a_bits,
                                            int b_bits);

}  // namespace spx::plan
