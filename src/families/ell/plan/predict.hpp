// The time model behind spxPlanInfo_t::predicted_speedup for ELL plans: microseconds of the
// chosen kernel and of dense cuBLAS (HGEMM for fp16, SGEMM without TF32 for fp32) on the
// densified matrix, each a fixed cost plus the larger of a bytes term and a work term, with the
// constants fitted to the H100 paper-grid run (docs/benchmarks.md, ELL section: the predicted
// speedup within x1.22 of the measured one on average over its 88 cases, x1.8 at worst); the
// fp16 decode kernel (slot_staged_f16_us) adds its terms instead, fitted to H200 decode shapes.
// An estimate to tell a user whether the sparse plan pays off, and the dense route's estimate
// of the sparse side (engine/route.cpp), not a measurement: spx-bench measures. Plain C++ (the
// plan and the CPU tests include it).
#pragma once

#include <algorithm>
#include <cmath>
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

/// The fp16 decode kernel (staged SlotSplit, n <= 16), us: a fixed 2.5 us, plus A's bytes at
/// ~5.5 TB/s (from L2 while A is <= 40 MB across calls, ~2.5 TB/s beyond) read once whatever
/// the chunks, plus B's chunk copied into every SM by the threads at ~6 TB/s (the TMA unit's
/// bulk copy overlaps: not counted), plus the row loop's multiply-adds (nnz x n) at ~13 TMAC/s
/// divided by the fill of the persistent grid: rows x chunks over passes x the rows one pass
/// holds (SMs x threads / (lanes x parts)); a pass part empty keeps its SMs' issue slots idle.
/// Time so grows about linearly in n, t(n) ~ t(1) (1 + c (n - 1)), c ~0.05 at 4096^2 and ~0.1
/// at 11008 x 4096 (fill 0.65: 11008 rows of 8 lanes against 132 x 1024 / 8 per pass).
/// Fitted (max error 10 %) to H200 fp16 80 % (width k / 5), kernel time in us, column-major B
/// (threads copy) unless "row": 4096^2 x 1 / 8 / 16: 5.3 / 8.8 / 10.4-11.8 (model 5.4 / 8.5 /
/// 12.1), row x 8 / 16: 7.6 / 9.4 (7.1 / 9.2); 11008 x 4096 x 1 / 8 / 16: 10.5 / 17.9 /
/// 28.4-29.3 (10.3 / 19.1 / 29.0), row x 8 / 16: 16.2 / 27.1 (17.6 / 26.1); 4096 x 11008 x 1 /
/// 8 / 16: 11.0 / ~17 / 25.9-26.2 (10.3 / 18.7 / 24.4), row x 16: 26.0 (24.4). The earlier model
/// (max of A's bytes and the gathers at 10 TMAC/s, B's copy at 5 TB/s) said 20.9 us at 11008 x
/// 4096 x 16 and 29.8 at 4096 x 11008 x 16: the order of the two reversed.
inline double slot_staged_f16_us(const EllInputs& s, const SlotStagedConfig& c, const EllWork& w) {
  const double a_bytes = static_cast<double>(w.slots) * (s.value_bytes + w.index_bytes) +
                         static_cast<double>(s.m) * 4.0;
  const double a_rate = a_bytes <= 40.0e6 ? 5.5e6 : 2.5e6;  // bytes per us
  const double copy = c.bulk_copy ? 0.0
                                  : static_cast<double>(s.sm_count) *
                                        static_cast<double>(slot_stage_bytes(s.k, c.nt, s.value_bytes)) /
                                        6.0e6;
  const double chunks = static_cast<double>((s.n + c.nt - 1) / c.nt);
  const double rows = static_cast<double>(s.m) * chunks;
  const double per_pass = static_cast<double>(s.sm_count) *
                          slot_staged_threads(c.nt, s.value_bytes, c.col_parts) /
                          (static_cast<double>(c.lanes) * c.col_parts);
  const double fill = rows > 0 ? rows / (std::ceil(rows / per_pass) * per_pass) : 1.0;
  const double macs = static_cast<double>(w.nnz) * static_cast<double>(s.n);
  return 2.5 + a_bytes / a_rate + copy + macs / (13.0e6 * fill);
}

/// Estimated microseconds of one execute of `c`.
inline double predict_sparse_us(const EllInputs& s, const KernelConfig& c, const EllWork& w) {
  const double macs = static_cast<double>(w.nnz) * static_cast<double>(s.n);
  const bool half = s.value_bytes == 2;
  double us = 0;
  const auto* staged = std::get_if<SlotStagedConfig>(&c);
  switch (kind_of(c)) {
    case KernelKind::SlotSplit: {
      if (half && staged != nullptr) {
        us = slot_staged_f16_us(s, *staged, w);
        break;
      }
      const bool stage_b = staged != nullptr;
      const int nt = staged ? staged->nt : std::get<SlotSplitConfig>(c).nt;
      const int col_parts = staged ? staged->col_parts : 1;
      const bool bulk_copy = staged && staged->bulk_copy;
      // fp32, and fp16 without staging. Decode: launch and first latencies (3 us back to back
      // with programmatic dependent launch; 4.5 before it), B's chunk staged by every SM through
      // L2 (~5 TB/s), then A's bytes (~5 TB/s while A fits in L2 across calls, as in the bench,
      // ~2.5 TB/s from DRAM) or the gathers (staged: ~6.5 TMAC/s with 1024-thread blocks, ~3
      // with 512; from L1: ~1.5). Refit on the 20 decode cases of a decode-tuning experiment
      // (H100, README notes 10): within x1.14 on average, x1.43 at worst (fp32 4096^2 x 16 at
      // 80 %); it was x1.23.
      const double a_bytes = static_cast<double>(w.slots) * (s.value_bytes + w.index_bytes) +
                             static_cast<double>(s.m) * 4.0;
      const double stage = stage_b ? static_cast<double>(s.sm_count) *
                                           static_cast<double>(slot_stage_bytes(s.k, nt, s.value_bytes))
                                     : 0.0;
      const double a_rate = a_bytes <= 40.0e6 ? 5.0e6 : 2.5e6;
      // The TMA unit's bulk copy of B (sm_90, one chunk of whole rows) moves the chunk ~3x as
      // fast as the threads and leaves the row loop the issue slots (H100, fp32 4096^2 x 8 at
      // 80 / 95 %: 8.8 / 5.2 us, ~6 TMAC/s).
      const double stage_rate = bulk_copy ? 15.0e6 : 5.0e6;
      const bool wide = nt / col_parts * s.value_bytes > 16;  // 512-thread blocks
      const double gather_rate = !stage_b ? 1.5e6
                                 : !wide    ? 6.5e6
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
