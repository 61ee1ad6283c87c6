// libspx from C++ with small RAII wrappers (defined here, in the example: libspx itself is a C
// API). One product per kernel family that exists today, each checked against a double (or
// exact integer) host reference:
//   * N:M      dense fp32 W pruned to 2:4 on the GPU (spxPruneNM)            -> NM family
//   * uniform  dense fp32 W pruned to 25 % per row on the GPU (spxPruneUniform) -> ELL family
//   * int8     vector-sparse BCRS(8) int8 W, int8 X, dequantized fp32 output   -> SR-BCRS
//   * fp16     vector-sparse BCRS(8) fp16 W (90 % sparse), fp16 X, fp32 output -> SpTC reorder
// Every product is Y^T = W X^T (a linear layer) with X and Y row-major on the device.
// Without a usable GPU it says so and exits 0.
#include <cuda_runtime_api.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "spx/spx.h"

namespace {

// ---------------------------------------------------------------- the wrappers

struct SpxError : std::runtime_error {
  SpxError(spxStatus_t s, const std::string& what)
      : std::runtime_error(what + ": " + spxGetStatusName(s) + " (" + spxGetLastErrorMessage() + ")"),
        status(s) {}
  spxStatus_t status;
};

void check(spxStatus_t s, const char* what) {
  if (s != SPX_STATUS_SUCCESS) throw SpxError(s, what);
}

void check_cuda(cudaError_t e, const char* what) {
  if (e != cudaSuccess) throw std::runtime_error(std::string(what) + ": " + cudaGetErrorString(e));
}

// unique_ptr with the matching spxDestroy* as the deleter: one line per opaque type.
template <class T, spxStatus_t (*Destroy)(T*)>
struct Deleter {
  void operator()(T* p) const { Destroy(p); }
};
using Handle = std::unique_ptr<spxContext, Deleter<spxContext, spxDestroy>>;
using SpMat = std::unique_ptr<spxSpMatDescr, Deleter<const spxSpMatDescr, spxDestroySpMat>>;
using DnMat = std::unique_ptr<spxDnMatDescr, Deleter<const spxDnMatDescr, spxDestroyDnMat>>;
using Plan = std::unique_ptr<spxPlan, Deleter<spxPlan, spxPlanDestroy>>;

/// Device memory of `count` elements of T; freed with the object.
template <class T>
class DeviceArray {
 public:
  explicit DeviceArray(size_t count) : count_(count) {
    void* p = nullptr;
    check_cuda(cudaMalloc(&p, count * sizeof(T) + (count == 0)), "cudaMalloc");
    ptr_.reset(static_cast<T*>(p));
  }
  explicit DeviceArray(const std::vector<T>& host) : DeviceArray(host.size()) {
    check_cuda(cudaMemcpy(get(), host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice), "cudaMemcpy");
  }
  T* get() const { return ptr_.get(); }
  std::vector<T> download() const {
    std::vector<T> host(count_);
    check_cuda(cudaMemcpy(host.data(), get(), count_ * sizeof(T), cudaMemcpyDeviceToHost), "cudaMemcpy");
    return host;
  }

 private:
  struct Free {
    void operator()(T* p) const { cudaFree(p); }
  };
  std::unique_ptr<T, Free> ptr_;
  size_t count_;
};

Handle make_handle() {
  spxHandle_t h = nullptr;
  check(spxCreate(&h), "spxCreate");
  return Handle(h);
}

DnMat make_dense(int64_t rows, int64_t cols, int64_t ld, void* data, spxDataType_t type, spxOrder_t order) {
  spxDnMatDescr_t d = nullptr;
  check(spxCreateDnMat(&d, rows, cols, ld, data, type, order), "spxCreateDnMat");
  return DnMat(d);
}

/// Y^T (out x batch) = alpha * A X^T with X (batch x in) and Y (batch x out) row-major on the
/// device; returns Y on the host and prints what ran.
template <class Out>
std::vector<Out> linear(spxHandle_t h, spxConstSpMatDescr_t A, int64_t out, int64_t in, int64_t batch,
                        void* d_x, spxDataType_t x_type, spxDataType_t y_type, spxDataType_t compute,
                        const void* alpha, const void* beta) {
  DeviceArray<Out> d_y(static_cast<size_t>(batch * out));
  DnMat Xt = make_dense(in, batch, in, d_x, x_type, SPX_ORDER_COL);
  DnMat Yt = make_dense(out, batch, out, d_y.get(), y_type, SPX_ORDER_COL);
  spxPlan_t raw = nullptr;
  check(spxSpMM_analyze(h, A, Xt.get(), Yt.get(), compute, SPX_SPMM_ALG_DEFAULT, &raw), "spxSpMM_analyze");
  Plan plan(raw);
  size_t ws_bytes = 0;
  check(spxPlanGetWorkspaceSize(plan.get(), &ws_bytes), "spxPlanGetWorkspaceSize");
  DeviceArray<unsigned char> ws(ws_bytes);
  check(spxSpMM(h, plan.get(), alpha, A, Xt.get(), beta, Yt.get(), ws_bytes ? ws.get() : nullptr), "spxSpMM");
  check_cuda(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  spxPlanInfo_t info{};
  check(spxPlanGetInfo(plan.get(), &info), "spxPlanGetInfo");
  std::printf("  ran %s [%s]\n", info.kernel, info.config);
  return d_y.download();
}

/// Elements of y (batch x out) farther from scale * w x^T (w out x in) than `ulps` fp32 units
/// of scale * sum |w x| (fp32 accumulation over `in` products: in + 2).
int count_bad(const std::vector<float>& y, const std::vector<float>& w, const std::vector<float>& x,
              int64_t out, int64_t in, int64_t batch, double scale, double ulps) {
  int bad = 0;
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t o = 0; o < out; ++o) {
      double ref = 0, mag = 0;
      for (int64_t p = 0; p < in; ++p) {
        const double t = static_cast<double>(w[o * in + p]) * x[b * in + p];
        ref += t;
        mag += std::fabs(t);
      }
      const double bound = ulps * std::ldexp(1.0, -24) * std::fabs(scale) * mag;
      if (!(std::fabs(y[b * out + o] - scale * ref) <= bound)) ++bad;
    }
  return bad;
}

/// Random V x 1 vector sparsity: each (block row, column) kept with probability `keep`, its V
/// values from `draw`; everything else zero. Returns the dense out x in matrix.
template <class Draw>
std::vector<float> vector_sparse(int64_t out, int64_t in, int64_t v, double keep, std::mt19937& rng, Draw draw) {
  std::bernoulli_distribution kept(keep);
  std::vector<float> w(out * in, 0.0f);
  for (int64_t br = 0; br < out / v; ++br)
    for (int64_t c = 0; c < in; ++c)
      if (kept(rng))
        for (int64_t r = 0; r < v; ++r) w[(br * v + r) * in + c] = draw();
  return w;
}

/// The BCRS(v) arrays of a dense row-major matrix, on the device, with values converted to `type`.
struct DeviceBcrs {
  int64_t vectors = 0;
  std::unique_ptr<DeviceArray<int32_t>> ptr, col;
  std::unique_ptr<DeviceArray<uint8_t>> values;
};

DeviceBcrs to_device_bcrs(const std::vector<float>& w, int64_t out, int64_t in, int64_t v, spxDataType_t type) {
  DeviceBcrs d;
  int32_t *ptr = nullptr, *col = nullptr;
  float* values = nullptr;
  check(spxHostDenseToBcrs(out, in, w.data(), in, SPX_ORDER_ROW, v, &d.vectors, &ptr, &col, &values),
        "spxHostDenseToBcrs");
  std::unique_ptr<int32_t, void (*)(void*)> own_ptr(ptr, spxHostFree), own_col(col, spxHostFree);
  std::unique_ptr<float, void (*)(void*)> own_values(values, spxHostFree);
  std::vector<uint8_t> converted(spxHostSizeOf(type, d.vectors * v));
  check(spxHostConvertValues(d.vectors * v, values, type, converted.data()), "spxHostConvertValues");
  d.ptr = std::make_unique<DeviceArray<int32_t>>(std::vector<int32_t>(ptr, ptr + out / v + 1));
  d.col = std::make_unique<DeviceArray<int32_t>>(std::vector<int32_t>(col, col + d.vectors));
  d.values = std::make_unique<DeviceArray<uint8_t>>(converted);
  return d;
}

/// `x` converted to `type` on the device.
DeviceArray<uint8_t> to_device_as(const std::vector<float>& x, spxDataType_t type) {
  std::vector<uint8_t> converted(spxHostSizeOf(type, static_cast<int64_t>(x.size())));
  check(spxHostConvertValues(static_cast<int64_t>(x.size()), x.data(), type, converted.data()), "spxHostConvertValues");
  return DeviceArray<uint8_t>(converted);
}

// ---------------------------------------------------------------- the four families

int nm(spxHandle_t h, std::mt19937& rng) {
  const int64_t out = 256, in = 512, batch = 48, n = 2, m = 4, l = 32, kc = in / m * n;
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> w(out * in), x(batch * in);
  for (auto& v : w) v = u(rng);
  for (auto& v : x) v = u(rng);
  DeviceArray<float> d_w(w), d_x(x), d_values(out * kc);
  DeviceArray<int32_t> d_indices(out / l * kc);
  check(spxPruneNM(h, out, in, d_w.get(), in, SPX_ORDER_ROW, SPX_R_32F, n, m, l, d_values.get(), d_indices.get()),
        "spxPruneNM");
  spxSpMatDescr_t a = nullptr;
  check(spxCreateNM(&a, out, in, n, m, l, d_values.get(), d_indices.get(), SPX_R_32F), "spxCreateNM");
  SpMat A(a);
  const float alpha = 1, beta = 0;
  std::printf("N:M 2:4, W %lld x %lld, batch %lld\n", (long long)out, (long long)in, (long long)batch);
  auto y = linear<float>(h, A.get(), out, in, batch, d_x.get(), SPX_R_32F, SPX_R_32F, SPX_R_32F, &alpha, &beta);
  // The dense pruned W from the device arrays.
  const auto values = d_values.download();
  const auto indices = d_indices.download();
  std::vector<float> wp(out * in, 0.0f);
  for (int64_t i = 0; i < out; ++i)
    for (int64_t q = 0; q < kc; ++q) wp[i * in + q / n * m + indices[i / l * kc + q]] = values[i * kc + q];
  return count_bad(y, wp, x, out, in, batch, 1.0, in + 2.0);
}

int uniform(spxHandle_t h, std::mt19937& rng) {
  const int64_t out = 192, in = 640, batch = 24, width = in / 4;
  std::uniform_real_distribution<float> u(-1, 1);
  std::vector<float> w(out * in), x(batch * in);
  for (auto& v : w) v = u(rng);
  for (auto& v : x) v = u(rng);
  DeviceArray<float> d_w(w), d_x(x), d_values(out * width);
  DeviceArray<int32_t> d_col(out * width);
  check(spxPruneUniform(h, out, in, d_w.get(), in, SPX_ORDER_ROW, SPX_R_32F, width, d_col.get(), d_values.get()),
        "spxPruneUniform");
  spxSpMatDescr_t a = nullptr;
  check(spxCreateEll(&a, out, in, width, d_col.get(), d_values.get(), SPX_R_32F), "spxCreateEll");
  SpMat A(a);
  const float alpha = 1, beta = 0;
  std::printf("uniform 75 %% sparse (ELL), W %lld x %lld, batch %lld\n", (long long)out, (long long)in, (long long)batch);
  auto y = linear<float>(h, A.get(), out, in, batch, d_x.get(), SPX_R_32F, SPX_R_32F, SPX_R_32F, &alpha, &beta);
  const auto col = d_col.download();
  const auto values = d_values.download();
  std::vector<float> wp(out * in, 0.0f);
  for (int64_t j = 0; j < width; ++j)
    for (int64_t i = 0; i < out; ++i)
      if (col[j * out + i] >= 0) wp[i * in + col[j * out + i]] = values[j * out + i];
  return count_bad(y, wp, x, out, in, batch, 1.0, in + 2.0);
}

int int8_vectors(spxHandle_t h, std::mt19937& rng) {
  const int64_t out = 128, in = 384, batch = 30, v = 8;
  std::uniform_int_distribution<int> q(-127, 127);
  const std::vector<float> w = vector_sparse(out, in, v, 0.3, rng, [&] { return static_cast<float>(q(rng)); });
  std::vector<float> x(batch * in);  // integer-valued
  for (auto& e : x) e = static_cast<float>(q(rng));
  const DeviceBcrs d = to_device_bcrs(w, out, in, v, SPX_R_8I);
  DeviceArray<uint8_t> d_x = to_device_as(x, SPX_R_8I);
  spxSpMatDescr_t a = nullptr;
  check(spxCreateBcrs(&a, out, in, v, d.vectors, d.ptr->get(), d.col->get(), d.values->get(), SPX_R_8I),
        "spxCreateBcrs");
  SpMat A(a);
  const float scale = 0.003f, beta = 0;  // weight scale x activation scale
  std::printf("int8 vector-sparse BCRS(%lld), W %lld x %lld, batch %lld, dequantized fp32 output\n", (long long)v,
              (long long)out, (long long)in, (long long)batch);
  auto y = linear<float>(h, A.get(), out, in, batch, d_x.get(), SPX_R_8I, SPX_R_32F, SPX_R_32I, &scale, &beta);
  // The integer sum is exact; its fp32 conversion and the scaling round twice: 3 ulp of
  // |alpha| sum |w x| (>= |result|) covers both.
  return count_bad(y, w, x, out, in, batch, scale, 3.0);
}

int fp16_vectors(spxHandle_t h, std::mt19937& rng) {
  const int64_t out = 256, in = 512, batch = 64, v = 8;
  // Multiples of 1/64 in [-1, 1]: exact in fp16, so the host reference uses the same values.
  std::uniform_int_distribution<int> q(-64, 64);
  const auto draw = [&] {
    int k = 0;
    while (k == 0) k = q(rng);
    return k / 64.0f;
  };
  const std::vector<float> w = vector_sparse(out, in, v, 0.1, rng, draw);
  std::vector<float> x(batch * in);
  for (auto& e : x) e = draw();
  const DeviceBcrs d = to_device_bcrs(w, out, in, v, SPX_R_16F);
  DeviceArray<uint8_t> d_x = to_device_as(x, SPX_R_16F);
  spxSpMatDescr_t a = nullptr;
  check(spxCreateBcrs(&a, out, in, v, d.vectors, d.ptr->get(), d.col->get(), d.values->get(), SPX_R_16F),
        "spxCreateBcrs");
  SpMat A(a);
  const float alpha = 1, beta = 0;
  std::printf("fp16 vector-sparse BCRS(%lld), 90 %% sparse, W %lld x %lld, batch %lld, fp32 output\n",
              (long long)v, (long long)out, (long long)in, (long long)batch);
  auto y = linear<float>(h, A.get(), out, in, batch, d_x.get(), SPX_R_16F, SPX_R_32F, SPX_R_32F, &alpha, &beta);
  // fp16 x fp16 products are exact in fp32; the fp32 accumulation over `in` terms rounds.
  return count_bad(y, w, x, out, in, batch, 1.0, in + 2.0);
}

}  // namespace

int main() {
  try {
    spxHandle_t raw = nullptr;
    const spxStatus_t st = spxCreate(&raw);
    if (st == SPX_STATUS_NOT_INITIALIZED || st == SPX_STATUS_ARCH_MISMATCH) {
      std::printf("no usable CUDA GPU (%s: %s): nothing to run\n", spxGetStatusName(st), spxGetLastErrorMessage());
      return 0;
    }
    check(st, "spxCreate");
    Handle h(raw);
    std::mt19937 rng(12345);
    const int bad =
        nm(h.get(), rng) + uniform(h.get(), rng) + int8_vectors(h.get(), rng) + fp16_vectors(h.get(), rng);
    std::printf(bad ? "%d elements outside their bounds\n" : "all four families match their references\n", bad);
    return bad ? 1 : 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
}
