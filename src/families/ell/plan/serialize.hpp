// The ELL family's part of a serialized plan (plain C++): the plan's copy of A (the ELL part and
// CSR tail, the slot map that re-packs values, a DenseMma dense A where one was made) and the
// layout's numbers the rule reads; a loaded plan makes each n's decision again (choice.hpp).
#pragma once

#include "runtime/serial.hpp"

namespace spx::plan {

struct EllRecord {
  int64_t rows = 0, cols = 0, width = 0, nnz = 0, overflow = 0;
  bool index16 = true, half = false, packed = false;
  int64_t stride = 0, slots = 0, alloc_slots = 0;
  serial::Array values, indices, row_len, tail_ptr, slot_map, dense_a;

  template <class F>
  void visit(F&& f) {
    f("ELL rows", rows), f("ELL cols", cols), f("ELL width", width), f("ELL nnz", nnz);
    f("ELL overflow", overflow), f("ELL index16", index16), f("ELL half", half);
    f("ELL packed", packed), f("ELL stride", stride), f("ELL slots", slots);
    f("ELL alloc_slots", alloc_slots), f("ELL values", values), f("ELL indices", indices);
    f("ELL row_len", row_len), f("ELL tail_ptr", tail_ptr), f("ELL slot_map", slot_map);
    f("ELL dense_a", dense_a);
  }
  /// INVALID_VALUE unless the slot counts agree and every array's length is the one they give
  /// (dense_a's is checked against the re-made decision by the loader).
  void validate(const char* what) const;
};

}  // namespace spx::plan
