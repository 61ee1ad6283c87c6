// The NM family's part of a serialized plan (plain C++): the plan's copy of A (values re-laid
// out for the stage geometry, the index layout) and A's host indices, from which a loaded plan
// makes the decisions of every n again (choice.hpp) and checks they fit the stored geometry.
#pragma once

#include "runtime/serial.hpp"

namespace spx::plan {

struct NmRecord {
  int64_t rows = 0, cols = 0, n = 0, m = 0, l = 0;  ///< A (must be the plan's)
  bool packing = false;
  int64_t pack_capacity = 0, metadata_bytes = 0;
  int64_t kc_pad = 0, rows_pad = 0, groups_pad = 0, stages = 0;  ///< the stage geometry
  serial::Array a_t, ridx, col_info, col_count;  ///< device arrays
  serial::Array indices;  ///< A's indices, groups x kc int32 (the packing statistics)

  template <class F>
  void visit(F&& f) {
    f("NM rows", rows), f("NM cols", cols), f("NM n", n), f("NM m", m), f("NM l", l);
    f("NM packing", packing), f("NM pack_capacity", pack_capacity);
    f("NM metadata_bytes", metadata_bytes), f("NM kc_pad", kc_pad), f("NM rows_pad", rows_pad);
    f("NM groups_pad", groups_pad), f("NM stages", stages);
    f("NM a_t", a_t), f("NM ridx", ridx), f("NM col_info", col_info);
    f("NM col_count", col_count), f("NM indices", indices);
  }
  /// INVALID_VALUE unless every array's length is the one its fields give.
  void validate(const char* what) const;
};

}  // namespace spx::plan
