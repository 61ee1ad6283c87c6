#include "families/sptc/plan/serialize.hpp"

#include "families/sptc/plan/storage.hpp"

namespace spx::plan {

void SptcRecord::validate(const char* what) const {
  using serial::expect;
  using serial::mul;
  constexpr int64_t kDim = int64_t{1} << 31;
  for (const int64_t v : {m, k, n, panels, tiles, slices, slots, smem_optin})
    expect(v >= 0 && v <= kDim * 64, what, "SpTC size", "is out of range");
  expect(block_tile == 16 || block_tile == 32 || block_tile == 64 || block_tile == 128, what,
         "SpTC block_tile", "is not 16, 32, 64 or 128");
  expect(b_order >= SPX_ORDER_ROW && b_order <= SPX_ORDER_COL && c_order >= SPX_ORDER_ROW &&
             c_order <= SPX_ORDER_COL && (c_type == SPX_R_16F || c_type == SPX_R_16BF ||
                                          c_type == SPX_R_32F),
         what, "SpTC orders", "or C type are not valid");
  expect(max_pairs >= 0 && sm_count >= 0, what, "SpTC max_pairs", "is negative");
  const uint64_t pairs = gather.bytes / (4 * kSptcPairK);
  expect(gather.bytes % (4 * kSptcPairK) == 0, what, "SpTC gather", "is not whole pairs");
  expect(metadata.bytes == mul(mul(pairs, slices), 4 * kSptcMetaPerSlice), what,
         "SpTC metadata", "does not hold pairs x slices x 32 words");
  expect(value_slot.bytes == mul(mul(pairs, slices), 4 * 2 * kSptcTileValues) &&
             value_slot.bytes == mul(slots, 4),
         what, "SpTC value_slot", "does not hold pairs x slices x 512 slots");
  expect(values.bytes == mul(slots, 2), what, "SpTC values", "does not hold one half per slot");
  expect(blocks.bytes == mul(panels, 16), what, "SpTC blocks", "does not hold 4 int32 per panel");
  expect(row_map.bytes == (clustered ? mul(mul(panels, block_tile), 4) : 0), what,
         "SpTC row_map", "does not hold panels x block_tile int32 (or nothing unclustered)");
}

}  // namespace spx::plan
