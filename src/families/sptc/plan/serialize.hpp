// The SpTC family's part of a serialized plan (plain C++): the reordered 2:4 storage (panel
// records, gather, metadata, the value slot map, values, the clustered row map) and the
// decision's inputs with the reorder's statistics, so that a loaded plan makes each n's kernel
// choice again (choice.hpp) without reordering A.
#pragma once

#include "runtime/serial.hpp"
#include "spx/spx_types.h"

namespace spx::plan {

struct SptcRecord {
  // plan::sptc::Inputs at the analyzed n
  int64_t m = 0, k = 0, n = 0;
  bool bf16 = false, b_aligned = true, wgmma_usable = false, clustered = false;
  spxOrder_t b_order = SPX_ORDER_ROW, c_order = SPX_ORDER_ROW;
  spxDataType_t c_type = SPX_R_16F;
  int32_t sm_count = 0, block_tile = 32, max_pairs = 0;
  int64_t smem_optin = 0, panels = 0, tiles = 0, slices = 0;
  int64_t columns_skipped = 0, retries = 0, padding_columns = 0;
  double dense_fraction = 0;
  // the storage
  int64_t slots = 0;
  double work_k_positions = 0, work_block_tile = 0, work_a_bytes = 0;
  serial::Array row_map, blocks, gather, metadata, value_slot, values;

  template <class F>
  void visit(F&& f) {
    f("SpTC m", m), f("SpTC k", k), f("SpTC n", n), f("SpTC bf16", bf16);
    f("SpTC b_aligned", b_aligned), f("SpTC wgmma_usable", wgmma_usable);
    f("SpTC clustered", clustered), f("SpTC b_order", b_order), f("SpTC c_order", c_order);
    f("SpTC c_type", c_type), f("SpTC sm_count", sm_count), f("SpTC block_tile", block_tile);
    f("SpTC max_pairs", max_pairs), f("SpTC smem_optin", smem_optin), f("SpTC panels", panels);
    f("SpTC tiles", tiles), f("SpTC slices", slices);
    f("SpTC columns_skipped", columns_skipped), f("SpTC retries", retries);
    f("SpTC padding_columns", padding_columns), f("SpTC dense_fraction", dense_fraction);
    f("SpTC slots", slots), f("SpTC work k_positions", work_k_positions);
    f("SpTC work block_tile", work_block_tile), f("SpTC work a_bytes", work_a_bytes);
    f("SpTC row_map", row_map), f("SpTC blocks", blocks), f("SpTC gather", gather);
    f("SpTC metadata", metadata), f("SpTC value_slot", value_slot), f("SpTC values", values);
  }
  void validate(const char* what) const;
};

}  // namespace spx::plan
