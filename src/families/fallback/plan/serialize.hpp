// The fallback family's part of a serialized SpMM plan (plain C++): A as CSR, the value slot
// map and the widened values.
#pragma once

#include "runtime/serial.hpp"

namespace spx::plan {

struct FallbackRecord {
  int64_t rows = 0, nnz = 0;
  bool integer = false;
  serial::Array row_ptr, col_ind, slot, values;

  template <class F>
  void visit(F&& f) {
    f("fallback rows", rows), f("fallback nnz", nnz), f("fallback integer", integer);
    f("fallback row_ptr", row_ptr), f("fallback col_ind", col_ind), f("fallback slot", slot);
    f("fallback values", values);
  }
  void validate(const char* what) const;
};

}  // namespace spx::plan
