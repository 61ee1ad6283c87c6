// The SpTC reorder of libspx before the fast analyze (unit search, panels, BLOCK_TILE choice),
// kept verbatim under ref:: with ref_ names as the reference the CPU tests compare the current
// reorder with: its layouts must stay byte-identical.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "families/sptc/plan/reorder.hpp"

namespace ref {

spx::plan::SptcUnitGrouping ref_group_unit(const std::array<uint64_t, 16>& masks,
                                           uint32_t real_positions, bool prefer_conflict_free,
                                           int64_t max_pair_checks);
void ref_validate_bcrs_structure(const spx::plan::BcrsView& a);
spx::plan::SptcLayout ref_sptc_reorder(const spx::plan::BcrsView& a,
                                       const spx::plan::SptcReorderConfig& config,
                                       const std::vector<int32_t>& row_order);
spx::plan::SptcLayout ref_choose_block_tile(
    const spx::plan::BcrsView& a, spx::plan::SptcReorderConfig config, double b_row_cost,
    std::array<double, spx::plan::kSptcMaxBlockTiles>* costs);

}  // namespace ref
