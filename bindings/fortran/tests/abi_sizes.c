/* The C side of test_fortran_abi: size and field offsets of spxPlanInfo_t as the C compiler lays
 * it out, for comparison with the Fortran bind(C) type spx_plan_info. */
#include <stddef.h>

#include "spx/spx.h"

size_t spx_test_plan_info_size(void) { return sizeof(spxPlanInfo_t); }

/* Offsets in declaration order; (size_t)-1 past the last field. */
size_t spx_test_plan_info_offset(int field) {
  switch (field) {
    case 0: return offsetof(spxPlanInfo_t, family);
    case 1: return offsetof(spxPlanInfo_t, kernel);
    case 2: return offsetof(spxPlanInfo_t, config);
    case 3: return offsetof(spxPlanInfo_t, workspace_bytes);
    case 4: return offsetof(spxPlanInfo_t, metadata_bytes);
    case 5: return offsetof(spxPlanInfo_t, values_bytes);
    case 6: return offsetof(spxPlanInfo_t, analyze_ms);
    case 7: return offsetof(spxPlanInfo_t, nnz);
    case 8: return offsetof(spxPlanInfo_t, padded_nnz);
    case 9: return offsetof(spxPlanInfo_t, columns_skipped);
    case 10: return offsetof(spxPlanInfo_t, reorder_retries);
    case 11: return offsetof(spxPlanInfo_t, split_k);
    case 12: return offsetof(spxPlanInfo_t, packing);
    case 13: return offsetof(spxPlanInfo_t, candidates);
    case 14: return offsetof(spxPlanInfo_t, searched);
    case 15: return offsetof(spxPlanInfo_t, predicted_speedup);
    case 16: return offsetof(spxPlanInfo_t, route);
    case 17: return offsetof(spxPlanInfo_t, reserved32);
    case 18: return offsetof(spxPlanInfo_t, sparse_estimate_us);
    case 19: return offsetof(spxPlanInfo_t, dense_estimate_us);
    case 20: return offsetof(spxPlanInfo_t, dense_bytes);
    case 21: return offsetof(spxPlanInfo_t, max_n);
    case 22: return offsetof(spxPlanInfo_t, prepared_sizes);
  }
  return (size_t)-1;
}
