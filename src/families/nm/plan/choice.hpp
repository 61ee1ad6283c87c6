// THE choice of the NM family (plain C++, no CUDA): which kernel, tile, stage geometry, packing,
// split-K, handling of a column-major B and stream-K a plan runs, and the candidates
// spxSpMM_search may time instead. One function, `choose(inputs, overrides)`, called once by
// analyze (family.cpp); the plan stores its Decision and the launchers receive the decided
// configuration (kernels/spmm_config.hpp). The only choice left to a call is `config_for_call`:
// whether this call's B (pointer, leading dimension) can be read by the tensor copies at all.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "families/candidates.hpp"
#include "families/nm/kernels/config.hpp"
#include "families/nm/kernels/spmm_config.hpp"
#include "families/nm/kernels/stream_k.hpp"
#include "families/nm/plan/layout.hpp"
#include "families/switches.hpp"

namespace spx::plan::nm {

using kernels::nm::SpmmConfig;
using kernels::nm::TileId;

/// Every SPX_NM* switch the family honours, parsed once per analyze from the switch snapshot
/// (read_overrides; src/families/nm/README.md lists them). The defaults are the rule's.
struct Overrides {
  int force_packing = -1;      ///< SPX_NM_FORCE_PACKING=0|1: non-packed / packed where it fits
  int force_tile = -1;         ///< SPX_NM_FORCE_TILE=<name>: that tile (TileId) where it fits
  int force_split = 0;         ///< SPX_NM_FORCE_SPLIT=S >= 1: split-K into min(S, 64) parts
  bool stage_b = true;         ///< SPX_NM_STAGE_B=0: a column-major B is read directly
  bool stream_b = true;        ///< SPX_NM_STREAM_B=0: B's row-major copy runs before the kernel
  int stream_k = -1;           ///< SPX_NM_STREAM_K=0|1: stream-K off / wherever it applies
  int64_t stream_k_slots = 0;  ///< SPX_NM_STREAM_K_SLOTS=n >= 2: plan stream-K for n block slots
  bool producer_last = true;   ///< SPX_NM_PRODUCER=0: warp 0 is the tensor-copy producer
};
Overrides read_overrides(const dispatch::Switches& switches);

/// What the choice needs to know, nothing else: A's shape and the host copy of its indices, the
/// dense operands' shape and order as analyze saw them, the device.
struct Inputs {
  NmDims dims;         ///< A: rows, cols, N, M, L
  int64_t n_cols = 0;  ///< columns of B and C
  bool b_col_major = false, c_col_major = false;
  int64_t b_ld = 0;       ///< B's leading dimension at analyze
  bool b_aligned = true;  ///< B's pointer at analyze is 16-byte aligned
  int sm_count = 1;
  int code_arch = 0;         ///< the architecture the library's device code runs as (90: sm_90)
  int64_t smem_optin = 0;    ///< shared memory a block may opt in to
  bool tensor_maps = false;  ///< the driver has the tensor-map encoder
  /// A's indices on the host (groups x kc), for the packed stages' union statistics; nullptr:
  /// none (can_implement's fit test).
  const int32_t* indices = nullptr;
  /// Blocks per SM of the tile's stream-K kernel with that much dynamic shared memory (0: the
  /// tile has none); the device's occupancy calculator in the library, a stub in the CPU tests.
  std::function<int(TileId, int64_t)> stream_k_blocks_per_sm;
};

/// The tile and split-K the shape asks for (choose_tile).
struct TileChoice {
  TileId tile = TileId::Huge;
  int split = 1;
};
/// Among the tiles that fit (`fits[id]`): the best tile efficiency (`tensor_copies`: on sm_90's
/// tensor-copy kernel, where Wide ranks above Huge) x utilization of the SMs (blocks over whole
/// waves); split-K (at most 16 parts, at least 2 stages each) when even the best tile leaves
/// more than half of the block slots empty and there are at least 4 stages.
TileChoice choose_tile(int64_t m, int64_t n, int64_t stages, int sm_count,
                       const bool fits[kernels::nm::kTileCount], bool tensor_copies = false);

/// One configuration the plan may run, and the cp.async configuration that runs instead when a
/// call's B cannot be read by the tensor copies (equal to `config` for a cp.async config).
struct Candidate {
  SpmmConfig config;
  SpmmConfig fallback;
  bool operator==(const Candidate& o) const { return config == o.config; }
};

/// The plan's decision: the stage geometry and packing every candidate shares, the candidates
/// (the rule's choice first, or the one SPX_NM_FORCE_* made the rule's choice), and what the
/// model predicts.
struct Decision {
  NmDims dims;
  int64_t n_cols = 0;
  bool b_col_major = false, c_col_major = false;
  int depth = 2;      ///< stage buffers in flight
  NmStaging staging;  ///< the chosen stage geometry
  bool packing = false;
  int64_t rows_s = 0;  ///< B rows a stage holds (k_s, or the pack capacity when packing)
  int64_t pack_capacity = 0;
  NmPackingDecision model;       ///< the Eq. 3 model's numbers on the shape's tile
  bool packing_forced = false;   ///< SPX_NM_FORCE_PACKING was set
  double predicted_speedup = 0;  ///< modelled time of dense SGEMM over the chosen candidate's
  dispatch::CandidateSet<Candidate> candidates{"NM"};

  const SpmmConfig& chosen() const { return candidates.chosen().config; }
  /// Plan info's config string of candidate i (spxPlanInfo_t::config prints it verbatim).
  std::string describe(int i) const;
  std::string describe() const { return describe(candidates.selected()); }
  /// Workspace the plan needs: the most any candidate (or its fallback) takes.
  int64_t workspace_bytes() const;
};

/// Whether any stage fits the device (can_implement): a 2-deep stage of some tile, packed or not.
bool any_stage_fits(const Inputs& in);

/// The decision. `in.indices` must be set (the packing model's statistics).
Decision choose(const Inputs& in, const Overrides& ov);

/// One call's B as the tensor copies would read it: its order is the plan's; its pointer and
/// leading dimension (and the workspace's address, where a row-major copy of B is made) may
/// differ from call to call.
struct CallB {
  int64_t ld = 0;
  uintptr_t address = 0;
  uintptr_t workspace = 0;
};
/// The configuration this call runs: `c.config`, or where that is a tensor-copy configuration
/// whose B the copies cannot read (row-major B with ld % 4 != 0 or a pointer off 16 bytes, or a
/// row-major copy in a workspace off 16 bytes), `c.fallback` (the cp.async kernel).
const SpmmConfig& config_for_call(const Candidate& c, const CallB& b);

}  // namespace spx::plan::nm
