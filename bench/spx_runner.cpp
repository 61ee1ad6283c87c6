#include "spx_runner.hpp"

#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "check.hpp"
#include "values.hpp"

namespace bench {

namespace {

struct SpMatDeleter {
  void operator()(spxSpMatDescr* d) const { spxDestroySpMat(d); }
};
struct DnMatDeleter {
  void operator()(spxDnMatDescr* d) const { spxDestroyDnMat(d); }
};
struct PlanDeleter {
  void operator()(spxPlan* p) const { spxPlanDestroy(p); }
};
using SpMat = std::unique_ptr<spxSpMatDescr, SpMatDeleter>;
using DnMat = std::unique_ptr<spxDnMatDescr, DnMatDeleter>;
using Plan = std::unique_ptr<spxPlan, PlanDeleter>;

/// Device copies of a sparse operand's arrays, in the format the user hands to libspx.
struct DeviceSparse {
  DeviceBuffer ptr, idx, values;
  size_t bytes() const { return ptr.size() + idx.size() + values.size(); }
};

DeviceSparse upload_sparse(const SparseOperand& s, bool zero_values) {
  DeviceSparse d;
  if (!s.ptr.empty()) d.ptr = DeviceBuffer::from(s.ptr);
  d.idx = DeviceBuffer::from(s.idx);
  if (zero_values) {
    d.values = DeviceBuffer(std::max<size_t>(1, storage_bytes(s.type, s.value_slots())));
    CUDA_CHECK(cudaMemset(d.values.get(), 0, d.values.size()));
    CUDA_CHECK(cudaDeviceSynchronize());
  } else {
    d.values = DeviceBuffer::from(spx_encode(s.values.data(), s.value_slots(), s.type));
  }
  return d;
}

SpMat create_sparse(const SparseOperand& s, const DeviceSparse& d) {
  spxSpMatDescr_t out = nullptr;
  const spxDataType_t t = to_spx(s.type);
  switch (s.format) {
    case SPX_FORMAT_CSR:
      SPX_CHECK(spxCreateCsr(&out, s.rows, s.cols, static_cast<int64_t>(s.idx.size()),
                             d.ptr.get(), d.idx.get(), d.values.get(), t));
      break;
    case SPX_FORMAT_BCRS:
      SPX_CHECK(spxCreateBcrs(&out, s.rows, s.cols, s.vec_len, static_cast<int64_t>(s.idx.size()),
                              d.ptr.get(), d.idx.get(), d.values.get(), t));
      break;
    case SPX_FORMAT_NM:
      SPX_CHECK(spxCreateNM(&out, s.rows, s.cols, s.nm_n, s.nm_m, s.nm_l, d.values.get(),
                            d.idx.get(), t));
      break;
    case SPX_FORMAT_ELL:
      SPX_CHECK(spxCreateEll(&out, s.rows, s.cols, s.ell_width, d.idx.get(), d.values.get(), t));
      break;
  }
  return SpMat(out);
}

/// One dense operand, rotated: `copies` device copies and a libspx descriptor for each.
struct RotatedDense {
  int64_t rows = 0, cols = 0, ld = 0;
  ValueType type = ValueType::F32;
  RotatedArray data;
  std::vector<DnMat> descr;
  spxDnMatDescr_t at(int64_t i) const { return descr[static_cast<size_t>(i % descr.size())].get(); }
};

size_t dense_bytes(int64_t rows, int64_t cols, ValueType t, spxOrder_t order) {
  return storage_bytes(t, dense_elements(rows, cols, order, natural_ld(rows, cols, order, t)));
}

/// host_colmajor null: an output (zero-filled).
void make_rotated(const std::vector<float>* host_colmajor, int64_t rows, int64_t cols,
                  ValueType t, spxOrder_t order, int copies, RotatedDense* out) {
  out->rows = rows;
  out->cols = cols;
  out->type = t;
  out->ld = natural_ld(rows, cols, order, t);
  const int64_t elems = dense_elements(rows, cols, order, out->ld);
  if (host_colmajor) {
    std::vector<float> laid = arrange(*host_colmajor, rows, cols, order, out->ld);
    std::vector<uint8_t> bytes = spx_encode(laid.data(), elems, t);
    out->data = RotatedArray(bytes.data(), bytes.size(), copies);
  } else {
    out->data = RotatedArray(nullptr, storage_bytes(t, elems), copies);
  }
  out->descr.clear();
  for (int i = 0; i < copies; ++i) {
    spxDnMatDescr_t d = nullptr;
    SPX_CHECK(spxCreateDnMat(&d, rows, cols, out->ld, out->data.at(i), to_spx(t), order));
    out->descr.emplace_back(d);
  }
}

/// alpha = 1, beta = 0 in the scalar type libspx reads for this output type.
struct Scalars {
  float f_alpha = 1.0f, f_beta = 0.0f;
  int32_t i_alpha = 1, i_beta = 0;
  bool integer = false;
  const void* alpha() const { return integer ? static_cast<const void*>(&i_alpha) : &f_alpha; }
  const void* beta() const { return integer ? static_cast<const void*>(&i_beta) : &f_beta; }
};

std::string plan_config(const spxPlan* plan, const SparseOperand& s) {
  spxPlanInfo_t info{};
  SPX_CHECK(spxPlanGetInfo(plan, &info));
  std::string out = info.kernel;
  if (info.config[0]) out += std::string(" [") + info.config + "]";
  return out + " A=" + s.describe();
}

double elapsed_ms(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

struct OptionsDeleter {
  void operator()(spxPlanOptions* o) const { spxDestroyPlanOptions(o); }
};
using PlanOptions = std::unique_ptr<spxPlanOptions, OptionsDeleter>;

SpxResult run_spmm(const GpuContext& gpu, const Problem& p, const Reference& ref,
                   spxOrder_t order, const TimingConfig& timing, int force_candidate,
                   const SpmmSelect* explicit_select = nullptr) {
  const SpmmSelect select = explicit_select ? *explicit_select : SpmmSelect{};
  const int64_t m = p.spec.m, k = p.spec.k, n = p.spec.n;
  DeviceSparse da = upload_sparse(p.sparse, false);
  SpMat a = create_sparse(p.sparse, da);

  const int copies = rotation_copies(gpu.l2_bytes(), da.bytes(),
                                     dense_bytes(k, n, p.b_type, order) +
                                         dense_bytes(m, n, p.c_type, order));
  RotatedDense b, c;
  make_rotated(&p.b, k, n, p.b_type, order, copies, &b);
  make_rotated(nullptr, m, n, p.c_type, order, copies, &c);

  const bool integer = is_integer(p.a_type);
  const spxDataType_t compute = integer ? SPX_R_32I : SPX_R_32F;
  Scalars sc;
  sc.integer = p.c_type == ValueType::I32;

  SpxResult res;
  spxPlan_t raw_plan = nullptr;
  CUDA_CHECK(cudaDeviceSynchronize());
  auto t0 = std::chrono::steady_clock::now();
  if (force_candidate >= 0)
    setenv("SPX_ELL_FORCE_CANDIDATE", std::to_string(force_candidate).c_str(), 1);
  PlanOptions options;
  if (select.dense_route >= 0) {
    spxPlanOptions_t o = nullptr;
    SPX_CHECK(spxCreatePlanOptions(&o));
    options.reset(o);
    const int32_t route = select.dense_route;
    SPX_CHECK(spxPlanOptionsSet(o, SPX_PLAN_OPTION_DENSE_ROUTE, &route, sizeof route));
  }
  const spxStatus_t st = spxSpMM_analyzeWithOptions(gpu.spx(), a.get(), b.at(0), c.at(0), compute,
                                                    select.alg, options.get(), &raw_plan);
  if (force_candidate >= 0) unsetenv("SPX_ELL_FORCE_CANDIDATE");
  if (st == SPX_STATUS_NOT_SUPPORTED && explicit_select) {
    const char* why = spxGetLastErrorMessage();
    throw Refused(strf("%s: %s", spx_alg_name(select.alg), why && *why ? why : "not supported"));
  }
  SPX_CHECK(st);
  Plan plan(raw_plan);
  CUDA_CHECK(cudaDeviceSynchronize());
  res.analyze_ms = elapsed_ms(t0);
  res.config = plan_config(plan.get(), p.sparse);
  {
    spxPlanInfo_t info{};
    SPX_CHECK(spxPlanGetInfo(plan.get(), &info));
    res.candidates = info.candidates;
    res.family = info.family;
    res.route = info.route;
  }

  size_t ws_bytes = 0;
  SPX_CHECK(spxPlanGetWorkspaceSize(plan.get(), &ws_bytes));
  DeviceBuffer ws(ws_bytes);

  // Checked run. C starts as all-ones bytes (NaN for floats, -1 for int32), so an element the
  // kernel forgets to write shows up as an error.
  const size_t c_bytes = c.data.bytes();
  CUDA_CHECK(cudaMemset(c.data.at(0), 0xFF, c_bytes));
  CUDA_CHECK(cudaDeviceSynchronize());
  SPX_CHECK(spxSpMM(gpu.spx(), plan.get(), sc.alpha(), a.get(), b.at(0), sc.beta(), c.at(0),
                    ws.get()));
  CUDA_CHECK(cudaStreamSynchronize(gpu.stream()));
  std::vector<uint8_t> raw(c_bytes);
  CUDA_CHECK(cudaMemcpy(raw.data(), c.data.at(0), c_bytes, cudaMemcpyDeviceToHost));
  std::vector<double> out = decode(raw.data(), dense_elements(m, n, order, c.ld), p.c_type);
  res.max_rel_err = max_rel_err_dense(ref, out, order, c.ld);
  res.tolerance = tolerance(p.c_type, k);
  res.pass = res.max_rel_err <= res.tolerance;
  // A failed case is still timed so its rows are complete; main marks it FAIL and keeps it out
  // of the geomeans.

  Launch launch = [&](int64_t i) {
    SPX_CHECK(spxSpMM(gpu.spx(), plan.get(), sc.alpha(), a.get(), b.at(i), sc.beta(), c.at(i),
                      ws.get()));
  };
  TimingResult t = time_launches(gpu.stream(), launch, timing);
  res.ms = t.ms;
  res.reps = t.reps;
  return res;
}

SpxResult run_sddmm(const GpuContext& gpu, const Problem& p, const Reference& ref,
                    spxOrder_t order, const TimingConfig& timing) {
  const int64_t m = p.spec.m, k = p.spec.k, n = p.spec.n;
  DeviceSparse dc = upload_sparse(p.sparse, true);
  SpMat c = create_sparse(p.sparse, dc);

  // A takes `order` and B the other one: the default (A row-major, B column-major) has both
  // k-contiguous, the NT layout of Q K^T (libspx's fast path; cuSPARSE's baseline tries every
  // order pair itself).
  const spxOrder_t b_order = order == SPX_ORDER_ROW ? SPX_ORDER_COL : SPX_ORDER_ROW;
  const int copies = rotation_copies(gpu.l2_bytes(), dc.bytes(),
                                     dense_bytes(m, k, p.a_type, order) +
                                         dense_bytes(k, n, p.b_type, b_order));
  RotatedDense a, b;
  make_rotated(&p.a, m, k, p.a_type, order, copies, &a);
  make_rotated(&p.b, k, n, p.b_type, b_order, copies, &b);

  const spxDataType_t compute = is_integer(p.a_type) ? SPX_R_32I : SPX_R_32F;
  Scalars sc;
  sc.integer = p.c_type == ValueType::I32;

  SpxResult res;
  spxPlan_t raw_plan = nullptr;
  CUDA_CHECK(cudaDeviceSynchronize());
  auto t0 = std::chrono::steady_clock::now();
  SPX_CHECK(spxSDDMM_analyze(gpu.spx(), a.at(0), b.at(0), c.get(), compute, SPX_SPMM_ALG_DEFAULT,
                             &raw_plan));
  Plan plan(raw_plan);
  CUDA_CHECK(cudaDeviceSynchronize());
  res.analyze_ms = elapsed_ms(t0);
  res.config = plan_config(plan.get(), p.sparse);

  size_t ws_bytes = 0;
  SPX_CHECK(spxPlanGetWorkspaceSize(plan.get(), &ws_bytes));
  DeviceBuffer ws(ws_bytes);

  CUDA_CHECK(cudaMemset(dc.values.get(), 0xFF, dc.values.size()));
  CUDA_CHECK(cudaDeviceSynchronize());
  SPX_CHECK(spxSDDMM(gpu.spx(), plan.get(), sc.alpha(), a.at(0), b.at(0), sc.beta(), c.get(),
                     ws.get()));
  CUDA_CHECK(cudaStreamSynchronize(gpu.stream()));
  std::vector<uint8_t> raw(storage_bytes(p.c_type, p.sparse.value_slots()));
  dc.values.download(raw.data(), raw.size());
  std::vector<double> out = decode(raw.data(), p.sparse.value_slots(), p.c_type);
  res.max_rel_err = max_rel_err_sparse(ref, p.sparse, out);
  res.tolerance = tolerance(p.c_type, k);
  res.pass = res.max_rel_err <= res.tolerance;

  Launch launch = [&](int64_t i) {
    SPX_CHECK(spxSDDMM(gpu.spx(), plan.get(), sc.alpha(), a.at(i), b.at(i), sc.beta(), c.get(),
                       ws.get()));
  };
  TimingResult t = time_launches(gpu.stream(), launch, timing);
  res.ms = t.ms;
  res.reps = t.reps;
  return res;
}

}  // namespace

const char* spx_alg_name(spxSpMMAlg_t alg) {
  switch (alg) {
    case SPX_SPMM_ALG_DEFAULT: return "DEFAULT";
    case SPX_SPMM_ALG_NM: return "NM";
    case SPX_SPMM_ALG_ELL: return "ELL";
    case SPX_SPMM_ALG_SRBCRS: return "SRBCRS";
    case SPX_SPMM_ALG_SPTC_REORDER: return "SPTC_REORDER";
    case SPX_SPMM_ALG_FALLBACK: return "FALLBACK";
    case SPX_SPMM_ALG_DENSE: return "DENSE";
  }
  return "?";
}

SpxResult run_spx_spmm(const GpuContext& gpu, const Problem& p, const Reference& ref,
                       spxOrder_t order, const TimingConfig& timing, const SpmmSelect& select) {
  return run_spmm(gpu, p, ref, order, timing, -1, &select);
}

SpxResult run_spx(const GpuContext& gpu, const Problem& p, const Reference& ref, spxOrder_t order,
                  const TimingConfig& timing, int force_candidate) {
  return p.spec.op == Op::SPMM ? run_spmm(gpu, p, ref, order, timing, force_candidate)
                               : run_sddmm(gpu, p, ref, order, timing);
}

}  // namespace bench
