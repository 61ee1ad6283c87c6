// The parameter grids of the GPU suites, host-only: odd and tail shapes, orders, scalars and
// ld padding, and which algorithms to run for an input. No CUDA, no Catch2.
#pragma once

#include <cstdint>
#include <vector>

#include "spx/spx_types.h"

namespace spx::test {

/// Families worth forcing for an input, besides DEFAULT and FALLBACK (which always run):
/// NM for NM floats, ELL for ELL / CSR floats, SPTC_REORDER for CSR / BCRS 16F / 16BF,
/// SRBCRS for CSR / BCRS integers. A forced family may answer NOT_SUPPORTED (counted, not a
/// failure); when it runs, plan info must report that family and the result must be right.
std::vector<spxSpMMAlg_t> candidate_algs(spxFormat_t format, spxDataType_t a_type);

/// The compute type the header asks for: 32F for float inputs, 32I for integer inputs.
spxDataType_t compute_type_for(spxDataType_t a_type);

struct Shape {
  int64_t m, k, n;
};
/// Odd and tail sizes: 1, 7, 33, 96, 130 in every position, plus one multi-tile shape.
const std::vector<Shape>& grid_shapes();

struct AlphaBeta {
  double alpha, beta;
};
/// (1, 0), (0.5, -2), (-1.5, 1) for float outputs; (1, 0), (2, -2), (-1, 1) for 32I outputs.
const std::vector<AlphaBeta>& alpha_betas(spxDataType_t out_type);

/// One point of a grid: shape, orders of the two dense operands, scalars, ld padding.
struct Variant {
  Shape shape;
  spxOrder_t order1, order2;  ///< SpMM: B, C; SDDMM: A, B
  AlphaBeta ab;
  int64_t ld_pad;
};
/// `count` distinct variants out of shapes x 2 x 2 orders (all of them when count >= 44),
/// spread by `salt` so different callers cover different points; scalars and ld padding rotate.
/// count is scaled by the environment variable SPX_TEST_GRID_SCALE (default 1).
std::vector<Variant> grid_variants(int count, uint64_t salt, spxDataType_t out_type);

}  // namespace spx::test
