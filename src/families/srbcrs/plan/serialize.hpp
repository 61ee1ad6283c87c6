// The SR-BCRS family's part of a serialized SpMM plan (plain C++): A's layout at the decided
// stride (row pointers, columns in load order, the vector map that re-packs values, the values)
// and A's structure statistics, from which a loaded plan makes each n's decision again
// (choice.hpp) and checks it takes the stored stride and slot count.
#pragma once

#include "runtime/serial.hpp"
#include "spx/spx_types.h"

namespace spx::plan {

struct SrbcrsRecord {
  spxDataType_t a_type = SPX_R_8I;
  int64_t m = 0, k = 0, vec_len = 1, vector_rows = 0, slots = 0, stride = 32;
  int64_t stats_vector_rows = 0, stats_num_vectors = 0, stats_slots32 = 0, stats_slots64 = 0;
  serial::Array row_ptr, col, vec_map, values;

  template <class F>
  void visit(F&& f) {
    f("SR-BCRS a_type", a_type), f("SR-BCRS m", m), f("SR-BCRS k", k);
    f("SR-BCRS vec_len", vec_len), f("SR-BCRS vector_rows", vector_rows);
    f("SR-BCRS slots", slots), f("SR-BCRS stride", stride);
    f("SR-BCRS stats vector_rows", stats_vector_rows);
    f("SR-BCRS stats num_vectors", stats_num_vectors);
    f("SR-BCRS stats slots32", stats_slots32), f("SR-BCRS stats slots64", stats_slots64);
    f("SR-BCRS row_ptr", row_ptr), f("SR-BCRS col", col), f("SR-BCRS vec_map", vec_map);
    f("SR-BCRS values", values);
  }
  void validate(const char* what) const;
};

}  // namespace spx::plan
