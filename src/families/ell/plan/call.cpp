#include "families/ell/plan/call.hpp"

#include <cstdint>

namespace spx::plan {
namespace {

bool aligned(const void* p, int bytes) { return reinterpret_cast<uintptr_t>(p) % bytes == 0; }

/// Vector loads of `bytes` from rows at b with leading dimension ld (elements of `elem` bytes).
bool rows_aligned(const void* b, int64_t ld, int elem, int bytes) {
  return aligned(b, bytes) && (ld * elem) % bytes == 0;
}

}  // namespace

kernels::ell::StagedCopy staged_copy(const SlotStagedConfig& c, const EllInputs& s,
                                     const EllCall& call) {
  const int elem = s.value_bytes;
  const int64_t chunk_bytes = s.k * c.nt * elem;
  kernels::ell::StagedCopy out;
  out.bulk = c.bulk_copy && s.b_row_major && s.n == c.nt && call.ldb == c.nt &&
             c.col_parts == 1 && s.index16 && aligned(call.b, 16) && chunk_bytes % 16 == 0;
  out.b_vec = s.b_row_major && c.nt * elem >= 16 && s.n % c.nt == 0 &&
              rows_aligned(call.b, call.ldb, elem, 16);
  // Column-major B (a framework's activations, X^T): 16-byte pieces down each column.
  out.b_col_vec = !s.b_row_major && c.nt * elem >= 16 && rows_aligned(call.b, call.ldb, elem, 16);
  out.async = call.ldb == c.nt && chunk_bytes <= (int64_t{64} << 10);
  out.threads = slot_staged_threads(c.nt, elem, c.col_parts);
  return out;
}

kernels::ell::CallLaunch decide_call(const KernelConfig& c, const EllInputs& s, const EllCall& call,
                                     const EllOccupancy& occupancy) {
  const int elem = s.value_bytes;
  kernels::ell::CallLaunch l;
  l.b_rows = call.b;
  l.ldb = call.ldb;
  l.per_sm = occupancy.per_sm;
  if (const auto* st = std::get_if<SlotStagedConfig>(&c)) {
    l.staged = staged_copy(*st, s, call);
    if (l.staged.bulk) l.per_sm = occupancy.bulk;
    return l;
  }
  if (const auto* g = std::get_if<SlotSplitConfig>(&c)) {
    // Vector loads of B's rows need every row start (and the chunk offsets) aligned to the load.
    const int vb = g->nt * elem >= 16 ? 16 : g->nt * elem;
    l.b_vec = s.b_row_major && s.n % g->nt == 0 && rows_aligned(call.b, call.ldb, elem, vb);
    return l;
  }
  // The row kernels read B's rows: a column-major B is transposed into the workspace first
  // (rows of bt_ld(n), 16-byte aligned); with k == 0 there are no rows of B to read.
  if (transposes_b(c)) {
    l.ldb = bt_ld(s.n);
    l.transpose = s.k > 0;
    l.b_rows = l.transpose ? call.workspace : nullptr;
  }
  const int vb = std::holds_alternative<RowTileConfig>(c) ? std::get<RowTileConfig>(c).vn * elem : 16;
  l.b_vec = rows_aligned(l.b_rows, l.ldb, elem, vb);
  return l;
}

}  // namespace spx::plan
