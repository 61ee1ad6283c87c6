#include "grid.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <numeric>

#include "runtime/dtype.hpp"

namespace spx::test {

std::vector<spxSpMMAlg_t> candidate_algs(spxFormat_t format, spxDataType_t a_type) {
  std::vector<spxSpMMAlg_t> algs = {SPX_SPMM_ALG_DEFAULT, SPX_SPMM_ALG_FALLBACK};
  const bool fp = dtype::is_float(a_type);
  const bool half = a_type == SPX_R_16F || a_type == SPX_R_16BF;
  switch (format) {
    case SPX_FORMAT_NM:
      if (fp) algs.push_back(SPX_SPMM_ALG_NM);
      break;
    case SPX_FORMAT_ELL:
      if (fp) algs.push_back(SPX_SPMM_ALG_ELL);
      break;
    case SPX_FORMAT_CSR:
      if (fp) algs.push_back(SPX_SPMM_ALG_ELL);
      if (half) algs.push_back(SPX_SPMM_ALG_SPTC_REORDER);
      if (!fp) algs.push_back(SPX_SPMM_ALG_SRBCRS);
      break;
    case SPX_FORMAT_BCRS:
      if (half) algs.push_back(SPX_SPMM_ALG_SPTC_REORDER);
      if (!fp) algs.push_back(SPX_SPMM_ALG_SRBCRS);
      break;
  }
  return algs;
}

spxDataType_t compute_type_for(spxDataType_t a_type) {
  return dtype::is_float(a_type) ? SPX_R_32F : SPX_R_32I;
}

const std::vector<Shape>& grid_shapes() {
  static const std::vector<Shape> shapes = {
      {1, 1, 1},     {7, 7, 7},    {33, 33, 33},   {1, 130, 96},  {130, 1, 33},  {96, 7, 130},
      {7, 96, 1},    {33, 130, 7}, {130, 96, 96},  {96, 33, 130}, {257, 256, 72}};
  return shapes;
}

const std::vector<AlphaBeta>& alpha_betas(spxDataType_t out_type) {
  static const std::vector<AlphaBeta> fp = {{1, 0}, {0.5, -2}, {-1.5, 1}};
  static const std::vector<AlphaBeta> i32 = {{1, 0}, {2, -2}, {-1, 1}};
  return out_type == SPX_R_32I ? i32 : fp;
}

std::vector<Variant> grid_variants(int count, uint64_t salt, spxDataType_t out_type) {
  if (const char* env = std::getenv("SPX_TEST_GRID_SCALE")) {
    const double scale = std::atof(env);
    if (scale > 0) count = std::max(1, static_cast<int>(std::lround(count * scale)));
  }
  const auto& shapes = grid_shapes();
  const int all = static_cast<int>(shapes.size()) * 4;
  int stride = 1;
  if (count < all)
    for (int s : {7, 11, 5, 3})
      if (std::gcd(s, all) == 1) {
        stride = s;
        break;
      }
  const auto& abs = alpha_betas(out_type);
  std::vector<Variant> out;
  const int take = std::min(count, all);
  for (int v = 0; v < take; ++v) {
    const int point = static_cast<int>((static_cast<uint64_t>(v) * stride + salt * 13) % all);
    Variant x;
    x.shape = shapes[point / 4];
    x.order1 = (point & 1) ? SPX_ORDER_COL : SPX_ORDER_ROW;
    x.order2 = (point & 2) ? SPX_ORDER_COL : SPX_ORDER_ROW;
    x.ab = abs[(v + salt) % abs.size()];
    x.ld_pad = (v + 2 * salt) % 3 == 1 ? 3 : 0;
    out.push_back(x);
  }
  return out;
}

}  // namespace spx::test
