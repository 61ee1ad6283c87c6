// Launchers of the NM family's kernels (host side; no device code here) and the kernels'
// argument structs. The kernels themselves are in spmm_tiles_*.cu (the SpMM tiles, explicit
// instantiations), spmm_bulk.cu and stream_b.cu (sm_90), aux.cu (launch dispatcher, value
// re-layout, split-K reduction) and prune.cu (device pruning). What a launch runs is decided by
// the plan (plan/choice.hpp) and arrives as kernels/spmm_config.hpp's structs.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "device/args.hpp"
#include "families/nm/kernels/config.hpp"
#include "families/nm/kernels/spmm_config.hpp"
#include "families/nm/kernels/stream_k.hpp"

namespace spx::kernels::nm {

/// A column-major B copied row-major *beside* the tensor-copy kernel (sm_90, "streamed"): a copy
/// kernel of one small block per SM (no shared memory, few registers, so it fits next to the
/// product's two blocks) writes B row-major into the workspace in chunks of kStreamChunkRows rows
/// x one panel of the tile's BN columns, in the order the product's tiles need them, and raises
/// one flag per chunk; the product is launched as its programmatic dependent (it starts once
/// every copy block has started, so the copy always completes: no deadlock however the blocks
/// are placed) and each tile's producer waits for the flags of a stage's rows before its tensor
/// copy. The serial copy (stage_b_row_major) made every tile wait for all of B: 0.065 ms at
/// 4096^2 on H100, 1-5 % of the product at the acceptance shapes.
struct StreamedB {
  const float* src = nullptr;  ///< column-major k x n
  int64_t ld_src = 0;
  float* staged = nullptr;  ///< row-major k x ld_staged: the B the product's tensor map reads
  int64_t ld_staged = 0;
  uint32_t* flags = nullptr;  ///< [panels][chunks], reset by the copy kernel itself; a chunk
                              ///< is copied when its flag reaches kStreamFlagDone
  int chunks = 0;             ///< ceil(k / kStreamChunkRows)
  int panels = 0;             ///< ceil(n / BN)
  int panel_group = 1;  ///< panels whose tiles run at once (chunks are copied in that order)
  int copy_blocks = 0;  ///< one per SM; 0: off (no streamed copy in this launch)
};
/// A chunk's flag counts the copy block's warps that finished their part of it (stream_b.cu).
constexpr uint32_t kStreamFlagDone = 4;

/// Stream-K on the tensor-copy kernel (stream_k.hpp): the schedule, and the workspace its parts
/// meet in. Off when schedule.blocks == 0. Not with a streamed B (StreamedB above): its copy's
/// block does not fit beside two stream-K blocks (232 registers each) on an SM. Only with the
/// last-finisher producer (producer_last).
struct StreamKArgs {
  StreamKSchedule schedule{};
  int64_t m_tiles = 0;           ///< tile t is m-tile t % m_tiles, n-tile t / m_tiles
  float* partials = nullptr;     ///< [schedule.slots()][BM * BN]: the parts' partial products
  uint32_t* counters = nullptr;  ///< [region tiles][warps per block], zero when the launch starts
};

/// Everything one NM SpMM launch needs. The A side is the plan's copy: values re-laid out as
/// a_t[kc_pad][rows_pad] (slot-major, zero padding) and the stage-relative rows ridx.
struct SpmmArgs {
  int64_t m = 0, n = 0, k = 0;          ///< C is m x n, reduction over k
  int64_t l = 0;                        ///< rows per group
  int w_s = 0, k_s = 0, rows_s = 0;     ///< stage: slots, B rows spanned, B rows held in smem
  int stages = 0;                       ///< stages of the whole reduction
  int depth = 2;                        ///< stage buffers in flight (2 or 3)
  /// sm_90: the bulk-copy kernel (spmm_bulk.cuh). Needs a row-major B with ld % 4 == 0, a
  /// 16-byte aligned pointer and rows readable up to n rounded up to 4 floats (bulk_allowed).
  bool bulk = false;
  int box_rows = 0;  ///< bulk: B rows per tensor copy (a divisor of k_s, at most 256)
  /// bulk: the warp finishing a stage last refills its buffer (else warp 0 waits and refills).
  bool producer_last = true;
  StreamedB streamed{};  ///< bulk: a column-major B copied beside the product (copy_blocks > 0)
  int stages_per_split = 0, split = 1;  ///< split-K: blockIdx.z takes stages_per_split stages
  const float* a_t = nullptr;           ///< [kc_pad][rows_pad]
  int64_t rows_pad = 0, kc_pad = 0;
  const uint16_t* ridx = nullptr;  ///< [rows_pad / l][kc_pad]
  bool packing = false;
  const uint16_t* col_info = nullptr;  ///< [tiles][stages][pack_capacity] (packing)
  const int32_t* col_count = nullptr;  ///< [tiles][stages] (packing)
  int pack_capacity = 0;
  DenseView B{}, C{};
  Scalars scalars{};
  float* workspace = nullptr;  ///< split > 1: split partial products of C, in C's order, ld m or n
  /// bulk, split == 1: stream-K (last, after every field the other kernels read).
  StreamKArgs stream_k{};
};

/// The driver's cuTensorMapEncodeTiled through the runtime (libspx does not link libcuda), or
/// nullptr when the driver has none. Analyze looks it up once and the plan hands it to every
/// tensor-copy launch (SpmmCommon::tensor_map_encoder).
void* tensor_map_encoder();
/// The tensor-copy kernel (sm_90, spmm_bulk.cuh) with a decided launch (the plan's choice:
/// box_rows, the streamed copy's geometry, the stream-K schedule in `a`): encodes the A and B
/// tensor maps with `encoder` and launches the variant `a` asks for (streamed B: after the copy
/// kernel, as its programmatic dependent). Refuses (cudaErrorInvalidValue) what it cannot take.
cudaError_t spmm_bulk(TileId tile, const SpmmArgs& a, void* encoder, int copy_grid,
                      cudaStream_t stream);
cudaError_t spmm_bulk_load(size_t smem_optin);
/// Blocks per SM of the tile's stream-K kernel (spmm_bulk.cuh, kStreamK) with `smem_bytes` of
/// dynamic shared memory; 0 when the tile has none (config.hpp: has_stream_k_kernel).
int spmm_bulk_stream_k_occupancy(TileId tile, int64_t smem_bytes);
/// The streamed copy kernel (stream_b.cu) on `copy_grid` blocks with the decided geometry in
/// `s` (launched as it is; `grid_x`: the product's blocks along m): queued on `stream` before
/// the product, which must then be launched as its programmatic dependent.
cudaError_t stream_b_launch(StreamedB& s, int64_t k, int64_t n, int64_t bn, int64_t grid_x,
                            int64_t copy_grid, cudaStream_t stream);
cudaError_t stream_b_load();

/// Queues C = alpha * A * B + beta * C as decided: the plan's common part, one decided
/// configuration (tile and mainloop; plan/choice.hpp), this call's operands. Runs the row-major
/// copy of a column-major B first where the configuration reads one (made before the kernel,
/// or streamed beside it), converts everything into the kernels' SpmmArgs, and runs the split-K
/// reduction after a split launch. Decides nothing; refuses what it cannot take.
cudaError_t spmm(const SpmmCommon& common, const SpmmConfig& config, const SpmmOperands& ops,
                 cudaStream_t stream);

/// Loads every kernel of the family now and allows them `smem_optin` bytes of dynamic shared
/// memory (with CUDA's lazy loading the first launch of a kernel could block: analyze calls this).
cudaError_t spmm_load(size_t smem_optin);

/// A column-major B copied row-major (k x n, ld = staged_b_ld(n)) into the workspace before the
/// SpMM: the row-major loader issues 16-byte copies of contiguous B rows, where a column-major B
/// needs 4-byte copies (4x the copy instructions, measured 1.3-1.7x slower overall on H200). The
/// copy reads and writes k * n floats once, a few percent of the product at the shapes the family
/// is built for, and the plan keeps the direct column-major path as a search candidate.
struct StageBArgs {
  int64_t k = 0, n = 0, ld_out = 0;  ///< ld_out = staged_b_ld(n)
  DenseView B{};         ///< column-major, fp32
  float* out = nullptr;  ///< k x staged_b_ld(n), row-major, 16-byte aligned
};
cudaError_t stage_b_row_major(const StageBArgs& a, cudaStream_t stream);

/// a_t[u][r] = values[r * kc + u] for r < rows, u < kc (the rest of a_t is left as it is).
struct RelayoutArgs {
  int64_t rows = 0, kc = 0, rows_pad = 0;
  const float* values = nullptr;
  float* a_t = nullptr;
};
cudaError_t relayout_values(const RelayoutArgs& a, cudaStream_t stream);
/// Loads the relayout and B-staging kernels.
cudaError_t relayout_load();

/// Device pruning (spxPruneNM / spxCheckNM): the same result as the host's prune_nm / fits_nm.
struct PruneArgs {
  int64_t rows = 0, cols = 0, ld = 0;
  const float* dense = nullptr;
  spxOrder_t order = SPX_ORDER_ROW;
  int64_t n = 0, m = 0, l = 0;
  float* values = nullptr;     ///< rows x kc
  int32_t* indices = nullptr;  ///< (rows / l) x kc
  double* norms = nullptr;     ///< scratch: (rows / l) x cols squared group norms
};
cudaError_t prune(const PruneArgs& a, cudaStream_t stream);
/// Sets *violation (device int, zeroed by the caller) to 1 when some (group, window) uses more
/// than n columns.
cudaError_t check(const PruneArgs& a, int* violation, cudaStream_t stream);
cudaError_t prune_load();

}  // namespace spx::kernels::nm
