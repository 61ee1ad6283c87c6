// cuSPARSE SpMM baselines at their best: for each dense order (row-major first: the fast path
// of CSR_ALG2/ALG3) every algorithm of the format is checked once, ranked by a short screening
// run, and the ones within 25% of the best screened time get the full timing protocol. The
// fastest correct configuration is reported; refused ones are printed as notes.
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
  switch (t) {
    case ValueType::F32: return CUDA_R_32F;
    case ValueType::F16: return CUDA_R_16F;
    case ValueType::BF16: return CUDA_R_16BF;
    case ValueType::I8: return CUDA_R_8I;
    case ValueType::I32: return CUDA_R_32I;
    default: break;
  }
  throw Error(strf("no cuSPARSE type for %s", value_type_name(t)));
}

const char* kind_name(SparseKind k) {
  return k == SparseKind::CSR ? "CSR" : k == SparseKind::COO ? "COO" : "BELL";
}

struct AlgChoice {
  cusparseSpMMAlg_t alg;
  const char* name;
};

std::vector<AlgChoice> algorithms(SparseKind kind) {
  switch (kind) {
    case SparseKind::CSR:
      return {{CUSPARSE_SPMM_ALG_DEFAULT, "ALG_DEFAULT"},
              {CUSPARSE_SPMM_CSR_ALG1, "CSR_ALG1"},
              {CUSPARSE_SPMM_CSR_ALG2, "CSR_ALG2"},
              {CUSPARSE_SPMM_CSR_ALG3, "CSR_ALG3"}};
    case SparseKind::COO:
      return {{CUSPARSE_SPMM_ALG_DEFAULT, "ALG_DEFAULT"},
              {CUSPARSE_SPMM_COO_ALG1, "COO_ALG1"},
              {CUSPARSE_SPMM_COO_ALG2, "COO_ALG2"},
              {CUSPARSE_SPMM_COO_ALG3, "COO_ALG3"},
              {CUSPARSE_SPMM_COO_ALG4, "COO_ALG4"}};
    case SparseKind::BELL:
      return {{CUSPARSE_SPMM_ALG_DEFAULT, "ALG_DEFAULT"},
              {CUSPARSE_SPMM_BLOCKED_ELL_ALG1, "BLOCKED_ELL_ALG1"}};
  }
  return {};
}

/// A on the device in the cuSPARSE format, with a factory for fresh descriptors (each algorithm
/// gets its own, since cusparseSpMM_preprocess attaches data to the descriptor).
struct CuSparseA {
  SparseKind kind;
  ValueType type;
  int64_t rows = 0, cols = 0, nnz = 0;
  int64_t block = 1, ell_cols = 0;  // BELL
  DeviceBuffer ptr, idx, values;

  CuSpMat make() const {
    cusparseSpMatDescr_t d = nullptr;
    switch (kind) {
      case SparseKind::CSR:
        CUSPARSE_CHECK(cusparseCreateCsr(&d, rows, cols, nnz, ptr.get(), idx.get(), values.get(),
                                         CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I,
                                         CUSPARSE_INDEX_BASE_ZERO, cuda_type(type)));
        break;
      case SparseKind::COO:
        CUSPARSE_CHECK(cusparseCreateCoo(&d, rows, cols, nnz, ptr.get(), idx.get(), values.get(),
                                         CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                         cuda_type(type)));
        break;
      case SparseKind::BELL:
        CUSPARSE_CHECK(cusparseCreateBlockedEll(&d, rows, cols, block, ell_cols, idx.get(),
                                                values.get(), CUSPARSE_INDEX_32I,
                                                CUSPARSE_INDEX_BASE_ZERO, cuda_type(type)));
        break;
    }
    return CuSpMat(d);
  }
};

/// Builds A for cuSPARSE from the case's CSR; cols may be padded (BELL: to a multiple of the
/// block). Throws Refused when the format cannot hold this matrix.
CuSparseA build_a(const Problem& p, SparseKind kind, const InputPlan& in, int64_t block) {
  const HostCsr& csr = p.sparse.csr;
  CuSparseA a;
  a.kind = kind;
  a.type = in.type;
  a.rows = csr.rows;
  a.cols = csr.cols;
  a.nnz = csr.nnz();
  std::vector<float> vals(csr.values);
  for (float& v : vals) v *= in.scale_a;
  if (kind == SparseKind::CSR) {
    a.ptr = DeviceBuffer::from(csr.row_ptr);
    a.idx = DeviceBuffer::from(csr.col_ind);
    a.values = DeviceBuffer::from(encode(vals.data(), a.nnz, in.type));
  } else if (kind == SparseKind::COO) {
    std::vector<int32_t> rows(static_cast<size_t>(a.nnz));
    for (int64_t r = 0; r < csr.rows; ++r)
      for (int64_t j = csr.row_ptr[r]; j < csr.row_ptr[r + 1]; ++j) rows[j] = static_cast<int32_t>(r);
    a.ptr = DeviceBuffer::from(rows);
    a.idx = DeviceBuffer::from(csr.col_ind);
    a.values = DeviceBuffer::from(encode(vals.data(), a.nnz, in.type));
  } else {
    // Blocked-ELL: block x block tiles; a tile is stored when any entry of it is non-zero,
    // every block-row padded (-1) to the widest one. Values: rows x ell_cols, row-major.
    if (csr.rows % block != 0)
      throw Refused(strf("rows (%lld) not a multiple of the block size %lld", (long long)csr.rows,
                         (long long)block));
    a.block = block;
    a.cols = (csr.cols + block - 1) / block * block;
    const int64_t block_rows = csr.rows / block;
    std::vector<std::vector<int32_t>> tiles(static_cast<size_t>(block_rows));
    int64_t width = 0;
    for (int64_t br = 0; br < block_rows; ++br) {
      std::vector<int32_t>& t = tiles[br];
      for (int64_t r = br * block; r < (br + 1) * block; ++r)
        for (int64_t j = csr.row_ptr[r]; j < csr.row_ptr[r + 1]; ++j)
          t.push_back(static_cast<int32_t>(csr.col_ind[j] / block));
      std::sort(t.begin(), t.end());
      t.erase(std::unique(t.begin(), t.end()), t.end());
      width = std::max<int64_t>(width, static_cast<int64_t>(t.size()));
    }
    width = std::max<int64_t>(width, 1);
    a.ell_cols = width * block;
    std::vector<int32_t> col_ind(static_cast<size_t>(block_rows * width), -1);
    std::vector<float> dense(static_cast<size_t>(csr.rows * a.ell_cols), 0.0f);
    for (int64_t br = 0; br < block_rows; ++br) {
      const std::vector<int32_t>& t = tiles[br];
      for (size_t s = 0; s < t.size(); ++s) col_ind[br * width + s] = t[s];
      for (int64_t r = br * block; r < (br + 1) * block; ++r)
        for (int64_t j = csr.row_ptr[r]; j < csr.row_ptr[r + 1]; ++j) {
          const int32_t bc = csr.col_ind[j] / static_cast<int32_t>(block);
          const int64_t slot = std::lower_bound(t.begin(), t.end(), bc) - t.begin();
          dense[r * a.ell_cols + slot * block + csr.col_ind[j] % block] = vals[j];
        }
    }
    a.nnz = csr.rows * a.ell_cols;
    a.idx = DeviceBuffer::from(col_ind);
    a.values = DeviceBuffer::from(encode(dense.data(), a.nnz, in.type));
  }
  return a;
}

/// B and C of one dense order, rotated, with cuSPARSE descriptors.
struct DenseSet {
  spxOrder_t order;
  int64_t ldb = 0, ldc = 0;
  RotatedArray b, c;
  std::vector<CuDnMat> bd, cd;
};

void make_dense(const Problem& p, const InputPlan& in, ValueType out_type, int64_t kp,
                spxOrder_t order, size_t fixed_bytes, size_t l2, DenseSet* s) {
  const int64_t n = p.spec.n, m = p.spec.m;
  s->order = order;
  s->ldb = order == SPX_ORDER_ROW ? n : kp;
  s->ldc = order == SPX_ORDER_ROW ? n : m;
  std::vector<float> b_col = b_colmajor(p, kp, in.scale_b);
  std::vector<float> b_laid = arrange(b_col, kp, n, order, s->ldb);
  std::vector<uint8_t> b_bytes = encode(b_laid.data(), static_cast<int64_t>(b_laid.size()), in.type);
  const size_t c_bytes = storage_bytes(out_type, m * n);
  const int copies = rotation_copies(l2, fixed_bytes, b_bytes.size() + c_bytes);
  s->b = RotatedArray(b_bytes.data(), b_bytes.size(), copies);
  s->c = RotatedArray(nullptr, c_bytes, copies);
  const cusparseOrder_t co = order == SPX_ORDER_ROW ? CUSPARSE_ORDER_ROW : CUSPARSE_ORDER_COL;
  for (int i = 0; i < copies; ++i) {
    cusparseDnMatDescr_t bd = nullptr, cd = nullptr;
    CUSPARSE_CHECK(cusparseCreateDnMat(&bd, kp, n, s->ldb, s->b.at(i), cuda_type(in.type), co));
    s->bd.emplace_back(bd);
    CUSPARSE_CHECK(cusparseCreateDnMat(&cd, m, n, s->ldc, s->c.at(i), cuda_type(out_type), co));
    s->cd.emplace_back(cd);
  }
}

/// Runs the whole search for one (format, value type). Returns the best, or nullopt after notes.
std::optional<BaselineResult> search(const BaselineEnv& env, const std::vector<SparseKind>& kinds,
                                     ValueType type, const std::string& name) {
  const Problem& p = env.p;
  const InputPlan in = plan_inputs(p, type);
  const bool int8 = type == ValueType::I8;
  const ValueType out_type = int8 ? ValueType::I32 : type;
  const cudaDataType_t compute = int8 ? CUDA_R_32I : CUDA_R_32F;
  const float f_one = 1.0f, f_zero = 0.0f;
  const int32_t i_one = 1, i_zero = 0;
  const void* alpha = int8 ? static_cast<const void*>(&i_one) : &f_one;
  const void* beta = int8 ? static_cast<const void*>(&i_zero) : &f_zero;
  cusparseHandle_t h = env.gpu.cusparse();
  CUSPARSE_CHECK(cusparseSetPointerMode(h, CUSPARSE_POINTER_MODE_HOST));

  std::optional<BaselineResult> best;
  double best_screen = std::numeric_limits<double>::infinity();
  int refused = 0, tried = 0;
  std::string shape = strf("%lldx%lldx%lld", (long long)p.spec.m, (long long)p.spec.k,
                           (long long)p.spec.n);

  for (SparseKind kind : kinds) {
    const int64_t block = std::max<int64_t>(1, p.sparse.vec_len);
    CuSparseA a;
    try {
      a = build_a(p, kind, in, block);
    } catch (const Refused& e) {
      note(strf("%s: %s %s cannot hold this matrix (%s)", name.c_str(), kind_name(kind),
                value_type_name(type), e.what()));
      continue;
    }
    const int64_t kp = a.cols;  // BELL pads K to a multiple of the block
    const size_t a_bytes = a.ptr.size() + a.idx.size() + a.values.size();
    for (spxOrder_t order : {SPX_ORDER_ROW, SPX_ORDER_COL}) {
      DenseSet d;
      make_dense(p, in, out_type, kp, order, a_bytes, env.gpu.l2_bytes(), &d);
      const char* oname = order == SPX_ORDER_ROW ? "ROW" : "COL";
      struct Screened {
        AlgChoice alg;
        double screen_ms;
        double err;
        std::shared_ptr<CuSpMat> descr;
        std::shared_ptr<DeviceBuffer> ws;
      };
      std::vector<Screened> ok;
      for (const AlgChoice& alg : algorithms(kind)) {
        ++tried;
        std::string label = strf("%s %s %s/%s", kind_name(kind), value_type_name(type), oname,
                                 alg.name);
        try {
          auto descr = std::make_shared<CuSpMat>(a.make());
          size_t ws_bytes = 0;
          CUSPARSE_CHECK(cusparseSpMM_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                                 CUSPARSE_OPERATION_NON_TRANSPOSE, alpha,
                                                 descr->get(), d.bd[0].get(), beta,
                                                 d.cd[0].get(), compute, alg.alg, &ws_bytes));
          auto ws = std::make_shared<DeviceBuffer>(ws_bytes);
          // Optional in cuSPARSE, and what a user calling SpMM many times does (ALG1/ALG3 gain).
          CUSPARSE_CHECK(cusparseSpMM_preprocess(h, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                                 CUSPARSE_OPERATION_NON_TRANSPOSE, alpha,
                                                 descr->get(), d.bd[0].get(), beta,
                                                 d.cd[0].get(), compute, alg.alg, ws->get()));
          Launch launch = [&, descr, ws](int64_t i) {
            const size_t slot = static_cast<size_t>(i % static_cast<int64_t>(d.bd.size()));
            CUSPARSE_CHECK(cusparseSpMM(h, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                        CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, descr->get(),
                                        d.bd[slot].get(), beta, d.cd[slot].get(), compute,
                                        alg.alg, ws->get()));
          };
          launch(0);
          CUDA_CHECK(cudaStreamSynchronize(env.gpu.stream()));
          double err = -1.0;
          if (in.checkable) {
            std::vector<uint8_t> raw(d.c.bytes());
            CUDA_CHECK(cudaMemcpy(raw.data(), d.c.at(0), raw.size(), cudaMemcpyDeviceToHost));
            err = max_rel_err_dense(env.ref, decode(raw.data(), p.spec.m * p.spec.n, out_type),
                                    order, d.ldc, in.ref_scale());
            if (err > kBaselineTolerance) {
              note(strf("%s: %s gives a wrong result (max_rel_err %.3g): skipped", name.c_str(),
                        label.c_str(), err));
              continue;
            }
          }
          double s = screen_launches(env.gpu.stream(), launch, 3);
          ok.push_back({alg, s, err, descr, ws});
          best_screen = std::min(best_screen, s);
        } catch (const Refused& e) {
          ++refused;
          note(strf("%s: cuSPARSE refuses %s (%s)", name.c_str(), label.c_str(), e.what()));
        }
      }
      for (Screened& s : ok) {
        if (s.screen_ms > 1.25 * best_screen) continue;  // clearly slower: not worth timing
        auto descr = s.descr;
        auto ws = s.ws;
        const cusparseSpMMAlg_t alg = s.alg.alg;
        Launch launch = [&, descr, ws, alg](int64_t i) {
          const size_t slot = static_cast<size_t>(i % static_cast<int64_t>(d.bd.size()));
          CUSPARSE_CHECK(cusparseSpMM(h, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                      CUSPARSE_OPERATION_NON_TRANSPOSE, alpha, descr->get(),
                                      d.bd[slot].get(), beta, d.cd[slot].get(), compute, alg,
                                      ws->get()));
        };
        double ms = time_launches(env.gpu.stream(), launch, env.timing).ms;
        if (!best || ms < best->ms) {
          BaselineResult r;
          r.name = name;
          r.ms = ms;
          r.config = strf("%s %s %s/%s", kind_name(kind), value_type_name(type), oname,
                          s.alg.name);
          if (kind == SparseKind::BELL) r.config += strf(" block=%lld", (long long)block);
          if (!in.checkable) r.config += " (values saturated: not checked)";
          r.check_err = s.err;
          r.check_ok = true;
          best = r;
        }
      }
    }
  }
  if (!best)
    note(strf("%s: no configuration ran for %s %s (%d of %d refused)", name.c_str(),
              shape.c_str(), value_type_name(type), refused, tried));
  return best;
}

}  // namespace

std::optional<BaselineResult> cusparse_spmm_best(const BaselineEnv& env, SparseKind kind,
                                                 ValueType type, const std::string& name) {
  return search(env, {kind}, type, name);
}

std::vector<BaselineResult> cusparse_int8_rows(const BaselineEnv& env) {
  std::vector<BaselineResult> out;
  std::optional<BaselineResult> csr = search(env, {SparseKind::CSR}, ValueType::I8, "cusparse_csr");
  std::optional<BaselineResult> bell =
      search(env, {SparseKind::BELL}, ValueType::I8, "cusparse_bell");
  if (csr) out.push_back(*csr);
  if (bell) out.push_back(*bell);
  if (csr || bell) {
    // The faster of the two, as measured above (no second timing).
    BaselineResult best = (csr && (!bell || csr->ms <= bell->ms)) ? *csr : *bell;
    best.config = (best.name == "cusparse_csr" ? "CSR: " : "BELL: ") + best.config;
    best.name = "cusparse_int8_best";
    out.push_back(best);
    return out;
  }
  note("cusparse_int8_best: cuSPARSE took no int8 configuration; measuring fp16 CSR instead "
       "(row cusparse_csr)");
  if (std::optional<BaselineResult> f16 =
          search(env, {SparseKind::CSR}, ValueType::F16, "cusparse_csr"))
    out.push_back(*f16);
  return out;
}

}  // namespace bench
