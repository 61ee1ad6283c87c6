#include "families/dense/plan/gemm.hpp"

#include <algorithm>
#include <climits>
#include <cstdio>

#include "runtime/parallel.hpp"

namespace spx::plan {

std::string GemmLayout::ops() const {
  return std::string(trans_first ? "T" : "N") + (trans_second ? "T" : "N");
}

GemmLayout gemm_layout(int64_t m, int64_t k, int64_t n, spxOrder_t b_order, spxOrder_t c_order) {
  GemmLayout g;
  g.k = k;
  g.lda = std::max<int64_t>(1, k);
  if (c_order == SPX_ORDER_COL) {
    g.first_is_a = true;
    g.m = m;
    g.n = n;
    g.trans_first = true;                        // row-major A is column-major A^T
    g.trans_second = b_order == SPX_ORDER_ROW;   // row-major B is column-major B^T
  } else {
    g.first_is_a = false;
    g.m = n;
    g.n = m;
    g.trans_first = b_order == SPX_ORDER_COL;    // need B^T (n x k)
    g.trans_second = false;                      // row-major A is column-major A^T (k x m)
  }
  return g;
}

namespace {

const char* short_type(spxDataType_t t) {
  switch (t) {
    case SPX_R_32F: return "fp32";
    case SPX_R_16F: return "fp16";
    case SPX_R_16BF: return "bf16";
    default: return "?";
  }
}

const char* gemm_name(spxDataType_t t) {
  switch (t) {
    case SPX_R_32F: return "SGEMM";
    case SPX_R_16F: return "HGEMM";
    case SPX_R_16BF: return "BF16 GEMM";
    default: return "GEMM";
  }
}

const char* order_word(spxOrder_t o) { return o == SPX_ORDER_ROW ? "row" : "col"; }

}  // namespace

std::string describe_gemm(const GemmLayout& g, spxDataType_t ab_type, spxDataType_t c_type,
                          bool tf32, spxOrder_t b_order, spxOrder_t c_order) {
  const char* compute = ab_type != SPX_R_32F ? "fp32 compute"
                        : tf32               ? "TF32 tensor-core compute"
                                             : "pedantic fp32 compute";
  char out[32] = "";
  if (c_type != ab_type) std::snprintf(out, sizeof out, " -> %s", short_type(c_type));
  char buf[192];
  std::snprintf(buf, sizeof buf, "%s %s %s%s, %s, B %s, C %s (A dense row-major)",
                gemm_name(ab_type), g.ops().c_str(), short_type(ab_type), out, compute,
                order_word(b_order), order_word(c_order));
  return buf;
}

DensifyMap densify_map(const CsrStructure& csr, int64_t k) {
  DensifyMap d;
  d.pos.resize(csr.col_ind.size());
  d.slot.resize(csr.slot.size());
  const int64_t rows = static_cast<int64_t>(csr.row_ptr.size()) - 1;
  parallel::for_chunks(rows, 256, [&](int64_t r0, int64_t r1) {  // rows write their own entries
    for (int64_t r = r0; r < r1; ++r)
      for (int32_t e = csr.row_ptr[r]; e < csr.row_ptr[r + 1]; ++e) {
        d.pos[static_cast<size_t>(e)] = r * k + csr.col_ind[e];
        d.slot[static_cast<size_t>(e)] = csr.slot[e];
      }
  });
  return d;
}

bool fits_cublas_int(int64_t v) { return v >= 0 && v <= INT_MAX; }

}  // namespace spx::plan
