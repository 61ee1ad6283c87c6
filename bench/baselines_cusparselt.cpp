// cuSPARSELt baseline (sptc): the densified A magnitude-pruned to 2:4 (the two largest of every 4
// along k, on the host), compressed by cuSPARSELt, and multiplied with the best algorithm
// cusparseLtMatmulSearch finds. That is what a user with a 2:4 matrix
// of this shape gets from NVIDIA's sparse tensor-core library; the pruned matrix is not A, so
// the result is checked against cuBLAS on the pruned matrix, not against A's reference.
//
// The library is loaded at run time (cusparselt_probe: no build dependency); its handles are
// opaque byte blobs passed by pointer, so generously sized buffers stand in for them. The enum
// values are those of cusparseLt.h 0.6 (stable since 0.5); a compute type the library refuses is
// retried with the 16F value and the config says which one ran.
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "baselines.hpp"
#include "check.hpp"
#include "cusparselt_probe.hpp"
#include "values.hpp"

namespace bench {

namespace {

/// Every cuSPARSELt object is an opaque struct the caller allocates (13 KB in 0.6); 64 KB each.
struct Blob {
  alignas(64) uint8_t data[65536];
};

constexpr int kSparsity50 = 0;         // CUSPARSELT_SPARSITY_50_PERCENT
constexpr int kAlgDefault = 0;         // CUSPARSELT_MATMUL_ALG_DEFAULT
constexpr int kCompute32F = 2;         // CUSPARSE_COMPUTE_32F
constexpr int kCompute16F = 1;         // CUSPARSE_COMPUTE_16F

using InitFn = cusparseStatus_t (*)(void*);
using DestroyFn = cusparseStatus_t (*)(const void*);
using DenseInitFn = cusparseStatus_t (*)(const void*, void*, int64_t, int64_t, int64_t, uint32_t,
                                         cudaDataType, cusparseOrder_t);
using StructInitFn = cusparseStatus_t (*)(const void*, void*, int64_t, int64_t, int64_t, uint32_t,
                                          cudaDataType, cusparseOrder_t, int);
using MatDestroyFn = cusparseStatus_t (*)(const void*);
using MatmulInitFn = cusparseStatus_t (*)(const void*, void*, cusparseOperation_t,
                                          cusparseOperation_t, const void*, const void*,
                                          const void*, const void*, int);
using AlgInitFn = cusparseStatus_t (*)(const void*, void*, const void*, int);
using PlanInitFn = cusparseStatus_t (*)(const void*, void*, const void*, const void*);
using PlanDestroyFn = cusparseStatus_t (*)(const void*);
using WorkspaceFn = cusparseStatus_t (*)(const void*, const void*, size_t*);
using PruneCheckFn = cusparseStatus_t (*)(const void*, const void*, const void*, int*, cudaStream_t);
using CompSizeFn = cusparseStatus_t (*)(const void*, const void*, size_t*, size_t*);
using CompressFn = cusparseStatus_t (*)(const void*, const void*, const void*, void*, void*,
                                        cudaStream_t);
using MatmulFn = cusparseStatus_t (*)(const void*, const void*, const void*, const void*,
                                      const void*, const void*, const void*, void*, void*,
                                      cudaStream_t*, int32_t);

struct Api {
  InitFn init = nullptr;
  DestroyFn destroy = nullptr;
  DenseInitFn dense_init = nullptr;
  StructInitFn struct_init = nullptr;
  MatDestroyFn mat_destroy = nullptr;
  MatmulInitFn matmul_init = nullptr;
  AlgInitFn alg_init = nullptr;
  PlanInitFn plan_init = nullptr;
  PlanDestroyFn plan_destroy = nullptr;
  WorkspaceFn workspace = nullptr;
  PruneCheckFn prune_check = nullptr;
  CompSizeFn comp_size = nullptr;
  CompressFn compress = nullptr;
  MatmulFn matmul = nullptr;
  MatmulFn search = nullptr;
  std::string error;  ///< why the API is unusable ("" when every symbol resolved)
};

template <class F>
void bind(void* lib, const char* name, F* fn, std::string* error) {
  *fn = reinterpret_cast<F>(dlsym(lib, name));
  if (*fn == nullptr && error->empty()) *error = std::string("symbol ") + name + " missing";
}

const Api& api() {
  static const Api a = [] {
    Api x;
    const std::string path = find_cusparselt();
    if (path.empty()) {
      x.error = cusparselt_status_line();
      return x;
    }
    void* lib = dlopen(path.c_str(), RTLD_LAZY | RTLD_LOCAL);
    if (lib == nullptr) {
      x.error = "dlopen " + path + " failed";
      return x;
    }
    bind(lib, "cusparseLtInit", &x.init, &x.error);
    bind(lib, "cusparseLtDestroy", &x.destroy, &x.error);
    bind(lib, "cusparseLtDenseDescriptorInit", &x.dense_init, &x.error);
    bind(lib, "cusparseLtStructuredDescriptorInit", &x.struct_init, &x.error);
    bind(lib, "cusparseLtMatDescriptorDestroy", &x.mat_destroy, &x.error);
    bind(lib, "cusparseLtMatmulDescriptorInit", &x.matmul_init, &x.error);
    bind(lib, "cusparseLtMatmulAlgSelectionInit", &x.alg_init, &x.error);
    bind(lib, "cusparseLtMatmulPlanInit", &x.plan_init, &x.error);
    bind(lib, "cusparseLtMatmulPlanDestroy", &x.plan_destroy, &x.error);
    bind(lib, "cusparseLtMatmulGetWorkspace", &x.workspace, &x.error);
    bind(lib, "cusparseLtSpMMAPruneCheck", &x.prune_check, &x.error);
    bind(lib, "cusparseLtSpMMACompressedSize", &x.comp_size, &x.error);
    bind(lib, "cusparseLtSpMMACompress", &x.compress, &x.error);
    bind(lib, "cusparseLtMatmul", &x.matmul, &x.error);
    bind(lib, "cusparseLtMatmulSearch", &x.search, &x.error);
    return x;
  }();
  return a;
}

#define LT_CHECK(call)                                                                    \
  do {                                                                                    \
    const cusparseStatus_t lt_st_ = (call);                                               \
    if (lt_st_ != CUSPARSE_STATUS_SUCCESS)                                                \
      throw Refused(strf("%s returned %d", #call, static_cast<int>(lt_st_)));             \
  } while (0)

/// The objects of one run, destroyed in reverse order of creation.
struct Session {
  const Api& a;
  std::unique_ptr<Blob> handle = std::make_unique<Blob>(), mat_a = std::make_unique<Blob>(),
                        mat_b = std::make_unique<Blob>(), mat_c = std::make_unique<Blob>(),
                        matmul = std::make_unique<Blob>(), alg = std::make_unique<Blob>(),
                        plan = std::make_unique<Blob>();
  bool has_handle = false, has_a = false, has_b = false, has_c = false, has_plan = false;
  explicit Session(const Api& api) : a(api) {}
  ~Session() {
    if (has_plan) a.plan_destroy(plan.get());
    if (has_c) a.mat_destroy(mat_c.get());
    if (has_b) a.mat_destroy(mat_b.get());
    if (has_a) a.mat_destroy(mat_a.get());
    if (has_handle) a.destroy(handle.get());
  }
};

}  // namespace

std::optional<BaselineResult> cusparselt_spmm(const BaselineEnv& env) {
  const Api& a = api();
  if (!a.error.empty()) {
    note("cusparselt baseline not run: " + a.error);
    return std::nullopt;
  }
  const Problem& p = env.p;
  const int64_t m = p.spec.m, k = p.spec.k, n = p.spec.n;
  const bool bf16 = p.a_type == ValueType::BF16;
  const ValueType t = bf16 ? ValueType::BF16 : ValueType::F16;
  const cudaDataType dt = bf16 ? CUDA_R_16BF : CUDA_R_16F;
  // A row-major m x k (2:4 along k), B column-major k x n, C column-major m x n ("TN").
  const int64_t kp = (k + 15) / 16 * 16, mp = (m + 15) / 16 * 16, np = (n + 15) / 16 * 16;
  BaselineResult res;
  res.name = "cusparselt";
  try {
    Session s(a);
    LT_CHECK(a.init(s.handle.get()));
    s.has_handle = true;
    LT_CHECK(a.struct_init(s.handle.get(), s.mat_a.get(), mp, kp, kp, 16, dt, CUSPARSE_ORDER_ROW,
                           kSparsity50));
    s.has_a = true;
    LT_CHECK(a.dense_init(s.handle.get(), s.mat_b.get(), kp, np, kp, 16, dt, CUSPARSE_ORDER_COL));
    s.has_b = true;
    LT_CHECK(a.dense_init(s.handle.get(), s.mat_c.get(), mp, np, mp, 16, dt, CUSPARSE_ORDER_COL));
    s.has_c = true;
    int compute = kCompute32F;
    if (a.matmul_init(s.handle.get(), s.matmul.get(), CUSPARSE_OPERATION_NON_TRANSPOSE,
                      CUSPARSE_OPERATION_NON_TRANSPOSE, s.mat_a.get(), s.mat_b.get(),
                      s.mat_c.get(), s.mat_c.get(), compute) != CUSPARSE_STATUS_SUCCESS) {
      compute = kCompute16F;
      LT_CHECK(a.matmul_init(s.handle.get(), s.matmul.get(), CUSPARSE_OPERATION_NON_TRANSPOSE,
                             CUSPARSE_OPERATION_NON_TRANSPOSE, s.mat_a.get(), s.mat_b.get(),
                             s.mat_c.get(), s.mat_c.get(), compute));
    }
    LT_CHECK(a.alg_init(s.handle.get(), s.alg.get(), s.matmul.get(), kAlgDefault));
    LT_CHECK(a.plan_init(s.handle.get(), s.plan.get(), s.matmul.get(), s.alg.get()));
    s.has_plan = true;

    // A densified (padded with zeros to multiples of 16) and magnitude-pruned to 2:4 along k on
    // the host: in every row's chunk of 4 the two largest |a| stay (ties: the lower column).
    // cusparseLtSpMMAPruneCheck then confirms the pattern; the config says what it answered.
    std::vector<float> a_host(static_cast<size_t>(mp * kp), 0.0f);
    int64_t kept = 0;
    {
      const std::vector<float> dense = dense_a_rowmajor(p, k, 1.0f);
      for (int64_t r = 0; r < m; ++r)
        for (int64_t c = 0; c < k; ++c) a_host[r * kp + c] = dense[r * k + c];
      for (int64_t r = 0; r < mp; ++r)
        for (int64_t c0 = 0; c0 < kp; c0 += 4) {
          float* q = &a_host[r * kp + c0];
          int first = 0;
          for (int i = 1; i < 4; ++i)
            if (std::fabs(q[i]) > std::fabs(q[first])) first = i;
          int second = first == 0 ? 1 : 0;
          for (int i = 0; i < 4; ++i)
            if (i != first && std::fabs(q[i]) > std::fabs(q[second])) second = i;
          for (int i = 0; i < 4; ++i)
            if (i != first && i != second) q[i] = 0.0f;
          for (int i = 0; i < 4; ++i) kept += q[i] != 0.0f;
        }
    }
    DeviceBuffer d_a = DeviceBuffer::from(encode(a_host.data(), mp * kp, t));
    cudaStream_t stream = env.gpu.stream();
    DeviceBuffer d_valid(sizeof(int));
    CUDA_CHECK(cudaMemset(d_valid.get(), 0xFF, sizeof(int)));
    LT_CHECK(a.prune_check(s.handle.get(), s.matmul.get(), d_a.get(),
                           static_cast<int*>(d_valid.get()), stream));
    int valid = -1;
    CUDA_CHECK(cudaStreamSynchronize(stream));
    d_valid.download(&valid, sizeof valid);
    size_t comp_bytes = 0, comp_buffer = 0;
    LT_CHECK(a.comp_size(s.handle.get(), s.plan.get(), &comp_bytes, &comp_buffer));
    DeviceBuffer d_comp(comp_bytes), d_comp_buf(comp_buffer > 0 ? comp_buffer : 1);
    LT_CHECK(a.compress(s.handle.get(), s.plan.get(), d_a.get(), d_comp.get(), d_comp_buf.get(),
                        stream));

    std::vector<float> b_host = b_colmajor(p, kp, 1.0f);
    std::vector<float> b_pad(static_cast<size_t>(kp * np), 0.0f);
    std::copy(b_host.begin(), b_host.end(), b_pad.begin());
    std::vector<uint8_t> b_bytes = encode(b_pad.data(), kp * np, t);
    const size_t c_bytes = storage_bytes(t, mp * np);
    const int copies = rotation_copies(env.gpu.l2_bytes(), comp_bytes, b_bytes.size() + c_bytes);
    RotatedArray b(b_bytes.data(), b_bytes.size(), copies);
    RotatedArray c(nullptr, c_bytes, copies);
    const float one = 1.0f, zero = 0.0f;
    size_t ws_bytes = 0;
    LT_CHECK(a.workspace(s.handle.get(), s.plan.get(), &ws_bytes));
    DeviceBuffer ws(ws_bytes > 0 ? ws_bytes : 1);
    LT_CHECK(a.search(s.handle.get(), s.plan.get(), &one, d_comp.get(), b.at(0), &zero, c.at(0),
                      c.at(0), ws.get(), &stream, 1));
    size_t ws_after = 0;
    LT_CHECK(a.workspace(s.handle.get(), s.plan.get(), &ws_after));
    if (ws_after > ws.size()) ws = DeviceBuffer(ws_after);

    Launch launch = [&](int64_t i) {
      LT_CHECK(a.matmul(s.handle.get(), s.plan.get(), &one, d_comp.get(), b.at(i), &zero, c.at(i),
                        c.at(i), ws.get(), &stream, 1));
    };
    launch(0);
    CUDA_CHECK(cudaStreamSynchronize(stream));

    // Check: cuBLAS on the same pruned matrix (A row-major = op T of a column-major kp x mp).
    DeviceBuffer ref_c(storage_bytes(ValueType::F32, mp * np));
    cublasHandle_t h = env.gpu.cublas();
    CUBLAS_CHECK(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));
    CUBLAS_CHECK(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(mp),
                              static_cast<int>(np), static_cast<int>(kp), &one, d_a.get(), dt,
                              static_cast<int>(kp), b.at(0), dt, static_cast<int>(kp), &zero,
                              ref_c.get(), CUDA_R_32F, static_cast<int>(mp), CUBLAS_COMPUTE_32F,
                              CUBLAS_GEMM_DEFAULT));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    std::vector<uint8_t> raw_c(c_bytes), raw_ref(ref_c.size());
    CUDA_CHECK(cudaMemcpy(raw_c.data(), c.at(0), c_bytes, cudaMemcpyDeviceToHost));
    ref_c.download(raw_ref.data(), raw_ref.size());
    const std::vector<double> got = decode(raw_c.data(), mp * np, t);
    const std::vector<double> want = decode(raw_ref.data(), mp * np, ValueType::F32);
    double scale = 0, err = 0;
    for (double x : want) scale = std::max(scale, std::fabs(x));
    for (size_t i = 0; i < got.size(); ++i) err = std::max(err, std::fabs(got[i] - want[i]));
    res.check_err = scale > 0 ? err / scale : err;
    res.check_ok = res.check_err <= kBaselineTolerance;
    res.config = strf("2:4 magnitude-pruned A (%.1f%% of A's entries kept; PruneCheck %s), TN %s, "
                      "compute %s%s",
                      p.sparse.csr.nnz() > 0 ? 100.0 * static_cast<double>(kept) /
                                                   static_cast<double>(p.sparse.csr.nnz())
                                             : 100.0,
                      valid == 0 ? "ok" : strf("answered %d", valid).c_str(),
                      bf16 ? "bf16" : "f16", compute == kCompute32F ? "32F" : "16F",
                      (kp != k || mp != m || np != n) ? " (sizes padded to 16)" : "");
    res.ms = time_launches(stream, launch, env.timing).ms;
  } catch (const Refused& e) {
    note(strf("cusparselt refused %lldx%lldx%lld: %s", static_cast<long long>(m),
              static_cast<long long>(k), static_cast<long long>(n), e.what()));
    return std::nullopt;
  }
  return res;
}

}  // namespace bench
