// cusparse_sddmm_best: cusparseSDDMM (C = A * B sampled at a CSR mask) at its best over the
// input types cuSPARSE offers (f32 -> f32, f16 -> f32, f16 -> f16) and the orders of the dense
// A and B. A and B are rotated; the mask's values are the output.
#include <algorithm>
#include <limits>
#include <memory>

#include "baselines.hpp"
#include "check.hpp"
#include "values.hpp"

namespace bench {

namespace {

struct SpMatDeleter {
  void operator()(cusparseSpMatDescr* d) const { cusparseDestroySpMat(d); }
};
struct DnMatDeleter {
  void operator()(cusparseDnMatDescr* d) const { cusparseDestroyDnMat(d); }
};
using CuSpMat = std::unique_ptr<cusparseSpMatDescr, SpMatDeleter>;
using CuDnMat = std::unique_ptr<cusparseDnMatDescr, DnMatDeleter>;

cudaDataType_t cuda_type(ValueType t) {
  return t == ValueType::F32 ? CUDA_R_32F : t == ValueType::F16 ? CUDA_R_16F : CUDA_R_16BF;
}

struct TypeChoice {
  ValueType in, out;
};

/// One dense operand of SDDMM (A: m x k, B: k x n) in `order`, rotated, with descriptors.
struct DenseOperand {
  int64_t rows = 0, cols = 0, ld = 0;
  RotatedArray data;
  std::vector<CuDnMat> descr;
};

void make_operand(const std::vector<float>& colmajor, int64_t rows, int64_t cols, float scale,
                  ValueType t, spxOrder_t order, int copies, DenseOperand* out) {
  out->rows = rows;
  out->cols = cols;
  out->ld = order == SPX_ORDER_ROW ? cols : rows;
  std::vector<float> scaled(colmajor);
  for (float& v : scaled) v *= scale;
  std::vector<float> laid = arrange(scaled, rows, cols, order, out->ld);
  std::vector<uint8_t> bytes = encode(laid.data(), static_cast<int64_t>(laid.size()), t);
  out->data = RotatedArray(bytes.data(), bytes.size(), copies);
  const cusparseOrder_t co = order == SPX_ORDER_ROW ? CUSPARSE_ORDER_ROW : CUSPARSE_ORDER_COL;
  for (int i = 0; i < copies; ++i) {
    cusparseDnMatDescr_t d = nullptr;
    CUSPARSE_CHECK(cusparseCreateDnMat(&d, rows, cols, out->ld, out->data.at(i), cuda_type(t), co));
    out->descr.emplace_back(d);
  }
}

}  // namespace

std::optional<BaselineResult> cusparse_sddmm_best(const BaselineEnv& env) {
  const Problem& p = env.p;
  const HostCsr& mask = p.sparse.csr;
  const int64_t m = p.spec.m, k = p.spec.k, n = p.spec.n;
  const std::string name = "cusparse_sddmm_best";
  cusparseHandle_t h = env.gpu.cusparse();
  CUSPARSE_CHECK(cusparseSetPointerMode(h, CUSPARSE_POINTER_MODE_HOST));
  const float one = 1.0f, zero = 0.0f;

  DeviceBuffer row_ptr = DeviceBuffer::from(mask.row_ptr);
  DeviceBuffer col_ind = DeviceBuffer::from(mask.col_ind);

  std::optional<BaselineResult> best;
  double best_screen = std::numeric_limits<double>::infinity();
  int refused = 0, tried = 0;
  const TypeChoice types[] = {{ValueType::F32, ValueType::F32},
                              {ValueType::F16, ValueType::F32},
                              {ValueType::F16, ValueType::F16}};
  const spxOrder_t orders[2] = {SPX_ORDER_ROW, SPX_ORDER_COL};
  for (const TypeChoice& tc : types) {
    const InputPlan in = plan_inputs(p, tc.in);
    DeviceBuffer values(std::max<size_t>(1, storage_bytes(tc.out, mask.nnz())));
    for (spxOrder_t oa : orders) {
      for (spxOrder_t ob : orders) {
        ++tried;
        std::string label = strf("CSR %s->%s A %s B %s", value_type_name(tc.in),
                                 value_type_name(tc.out), oa == SPX_ORDER_ROW ? "ROW" : "COL",
                                 ob == SPX_ORDER_ROW ? "ROW" : "COL");
        try {
          const size_t in_bytes = storage_bytes(tc.in, m * k + k * n);
          const int copies = rotation_copies(env.gpu.l2_bytes(), values.size(), in_bytes);
          DenseOperand a, b;
          make_operand(p.a, m, k, in.scale_a, tc.in, oa, copies, &a);
          make_operand(p.b, k, n, in.scale_b, tc.in, ob, copies, &b);
          cusparseSpMatDescr_t raw = nullptr;
          CUSPARSE_CHECK(cusparseCreateCsr(&raw, m, n, mask.nnz(), row_ptr.get(), col_ind.get(),
                                           values.get(), CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                           CUSPARSE_INDEX_BASE_ZERO, cuda_type(tc.out)));
          CuSpMat c(raw);
          size_t ws_bytes = 0;
          CUSPARSE_CHECK(cusparseSDDMM_bufferSize(
              h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
              a.descr[0].get(), b.descr[0].get(), &zero, c.get(), CUDA_R_32F,
              CUSPARSE_SDDMM_ALG_DEFAULT, &ws_bytes));
          DeviceBuffer ws(ws_bytes);
          CUSPARSE_CHECK(cusparseSDDMM_preprocess(
              h, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
              a.descr[0].get(), b.descr[0].get(), &zero, c.get(), CUDA_R_32F,
              CUSPARSE_SDDMM_ALG_DEFAULT, ws.get()));
          Launch launch = [&](int64_t i) {
            const size_t slot = static_cast<size_t>(i % copies);
            CUSPARSE_CHECK(cusparseSDDMM(h, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                         CUSPARSE_OPERATION_NON_TRANSPOSE, &one,
                                         a.descr[slot].get(), b.descr[slot].get(), &zero, c.get(),
                                         CUDA_R_32F, CUSPARSE_SDDMM_ALG_DEFAULT, ws.get()));
          };
          launch(0);
          CUDA_CHECK(cudaStreamSynchronize(env.gpu.stream()));
          double err = -1.0;
          if (in.checkable) {
            std::vector<uint8_t> raw_out(storage_bytes(tc.out, mask.nnz()));
            values.download(raw_out.data(), raw_out.size());
            err = max_rel_err_csr(env.ref, mask, decode(raw_out.data(), mask.nnz(), tc.out),
                                  in.ref_scale());
            if (err > kBaselineTolerance) {
              note(strf("%s: %s gives a wrong result (max_rel_err %.3g): skipped", name.c_str(),
                        label.c_str(), err));
              continue;
            }
          }
          const double s = screen_launches(env.gpu.stream(), launch, 3);
          best_screen = std::min(best_screen, s);
          if (s > 1.25 * best_screen) continue;  // clearly slower than one already seen
          const double ms = time_launches(env.gpu.stream(), launch, env.timing).ms;
          if (!best || ms < best->ms) {
            BaselineResult r;
            r.name = name;
            r.ms = ms;
            r.config = label;
            if (!in.checkable) r.config += " (not checked)";
            r.check_err = err;
            best = r;
          }
        } catch (const Refused& e) {
          ++refused;
          note(strf("%s: cuSPARSE refuses %s (%s)", name.c_str(), label.c_str(), e.what()));
        }
      }
    }
  }
  if (!best)
    note(strf("%s: no configuration ran for %lldx%lldx%lld (%d of %d refused)", name.c_str(),
              (long long)m, (long long)k, (long long)n, refused, tried));
  return best;
}

}  // namespace bench
