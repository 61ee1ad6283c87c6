// The time model behind spxPlanInfo_t::predicted_speedup for ELL plans: microseconds of the
// chosen kernel and of dense cuBLAS (HGEMM for fp16, SGEMM without TF32 for fp32) on the
// densified matrix, each a fixed cost plus the larger of a bytes term and a work term, with the
// constants fitted to the H100 paper-grid run (docs/benchmarks.md, ELL section: the predicted
// speedup within x1.22 of the measured one on average over its 88 cases, x1.8 at worst). An estimate to tell a user whether the sparse plan pays off, not a
// measurement: spx-bench measures. Plain C++ (the plan and the CPU tests include it).
#pragma once

#include <algorithm>
#include <cstdint>

#include "families/ell/plan/choice.hpp"

namespace spx::plan {

/// What the model needs beyond the shape.
struct EllWork {
  int64_t slots = 0;      ///< plan slots read (ELL part with its padding + overflow)
  int64_t nnz = 0;        ///< entries of the matrix (the useful multiply-adds are nnz x n)
  int index_bytes = 2;    ///< 2 or 4
  int out_bytes = 2;      ///< bytes of one C element
};

/// Estimated microseconds of one execute of `c`.
inline double predict_sparse_us(const EllInputs& s, const KernelConfig& c, const EllWork& w) {
  const double macs = static_cast<double>(w.nnz) * static_cast<double>(s.n);
  const bool half = s.value_bytes == 2;
  double us = 0;
  const auto* staged = std::get_if<SlotStagedConfig>(&c);
  switch (kind_of(c)) {
    case KernelKind::SlotSplit: {
      const bool stage_b = staged != nullptr;
      const int nt = staged ? staged->nt : std::get<SlotSplitConfig>(c).nt;
      const int col_parts = staged ? staged->col_parts : 1;
      const bool bulk_copy = staged && staged->bulk_copy;
      // Decode: launch and first latencies (3 us back to back with programmatic dependent
      // launch; 4.5 before it), B's chunk staged by every SM through L2 (~5 TB/s), then A's
      // bytes (~5 TB/s while A fits in L2 across calls, as in the bench, ~2.5 TB/s from DRAM) or
      // the gathers (staged: ~6.5 TMAC/s with 1024-thread blocks, ~4 fp16 and ~3 fp32 with 512;
      // from L1: ~1.5). Refit on the 20 decode cases of a decode-tuning experiment (H100, README notes
      // 10): within x1.14 on average, x1.43 at worst (fp32 4096^2 x 16 at 80 %); it was x1.23.
      const double a_bytes = static_cast<double>(w.slots) * (s.value_bytes + w.index_bytes) +
                             static_cast<double>(s.m) * 4.0;
      const double stage = stage_b ? static_cast<double>(s.sm_count) *
                                           static_cast<double>(slot_stage_bytes(s.k, nt, s.value_bytes))
                                     : 0.0;
      const double a_rate = a_bytes <= 40.0e6 ? 5.0e6 : 2.5e6;
      // The TMA unit's bulk copy of B (sm_90, one chunk of whole rows) moves the chunk ~3x as
      // fast as the threads and leaves the row loop the issue slots (H100, 4096^2 at 70 - 95 %:
      // fp16 x 16 11.8 / 9.4 / 6.9 / 5.1 us, the model 12.2 / 9.5 / 6.8 / 5.5; fp32 x 8 at 80 /
      // 95 %: 8.8 / 5.2, ~6 TMAC/s).
      const double stage_rate = bulk_copy ? 15.0e6 : 5.0e6;
      // fp16 NT 16 in one chunk (512 threads; the rule takes it where slot_wide_rows_pay):
      // ~10 TMAC/s since its copy of B runs in batches (docs/notes/ell.md, note 12: fp16 4096^2 x 16 at 80
      // / 90 %, 11.3 / 8.6 us; the model says 11.8 / 9.2).
      const bool wide = nt / col_parts * s.value_bytes > 16;  // 512-thread blocks
      const bool wide16 = wide && half && nt == 16 && col_parts == 1;
      const double gather_rate = !stage_b ? 1.5e6
                                 : !wide    ? 6.5e6
                                 : wide16   ? 10.0e6
                                 : half     ? 4.0e6
                                 : bulk_copy ? 6.0e6
                                               : 3.0e6;
      us = 3.0 + stage / stage_rate + std::max(a_bytes / a_rate, macs / gather_rate);
      break;
    }
    case KernelKind::RowMma:     // tensor cores, bound by shared-memory gathers: ~10 TMAC/s
    case KernelKind::RowStaged:  // FFMA from staged B: ~8 TMAC/s fp16, ~5.4 fp32
    case KernelKind::RowTile:    // FFMA from global B
      us = row_kernel_model_us(s, kind_of(c), macs);
      break;
    case KernelKind::DenseMma:  // densify + tensor-core tiles: the rule's model (choice.hpp)
      us = dense_mma_model_us(s, std::get<DenseMmaConfig>(c).tile_rows);
      break;
  }
  if (transposes_b(c))  // B^T written to and read from the workspace
    us += 2.0 * static_cast<double>(s.k) * static_cast<double>(s.n) * s.value_bytes / 2.5e6;
  return std::max(us, 5.0);  // launch floor (fp16 128^3: 6.3 us measured)
}

/// Estimated microseconds of dense cuBLAS on the densified matrix: HGEMM ~650 TFLOP/s and
/// ~3 TB/s (~4.5 TB/s for n > 1 while A fits in L2 across calls), 7.5 us at least; SGEMM fp32
/// without TF32 ~42 TFLOP/s and ~1.35 TB/s (2.4 TB/s at n = 1, a GEMV), 12 us at least.
inline double predict_dense_us(const EllInputs& s, int out_bytes) {
  const double m = static_cast<double>(s.m), k = static_cast<double>(s.k), n = static_cast<double>(s.n);
  const double bytes = (m * k + k * n) * s.value_bytes + m * n * out_bytes;
  const double flops = 2.0 * m * n * k;
  if (s.value_bytes == 2) {
    const double rate = s.n > 1 && bytes <= 40.0e6 ? 4.5e6 : 3.0e6;
    return std::max(7.5, 4.0 + std::max(bytes / rate, flops / 650.0e6));
  }
  const double rate = s.n == 1 ? 2.4e6 : 1.35e6;
  return std::max(12.0, 4.0 + std::max(bytes / rate, flops / 42.0e6));
}

}  // namespace spx::plan
