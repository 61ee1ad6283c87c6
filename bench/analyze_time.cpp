// spx-analyze-bench: how long spxSpMM_analyzeWithOptions takes, per family input (the analyze
// table's: bench/analyze_inputs.hpp), shape and sparsity, with the default options and with
// SPX_PLAN_OPTION_MAX_N = -1 (decisions for every power of two up to 4096). One CSV row per
// (shape, input, sparsity, max_n): the wall time of the call until it returns (median of the
// repetitions; the first is reported too: it loads the family's kernels, cuBLAS for the dense
// route), the plan info's analyze_ms (median), the family and kernel chosen.
//
//   spx-analyze-bench [--shapes 4096x4096,11008x4096,4096x11008] [--sparsity 0.5,0.8,0.95]
//                     [--inputs nm_f32,...] [--n 256] [--max-n 0,-1] [--reps 3]
//                     [--budget-s 150] [--csv FILE]
//
// Uses libspx's public API only, so the same binary times any libspx.so (LD_LIBRARY_PATH). An
// analyze slower than one second is not repeated; past --budget-s no new case starts.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "analyze_inputs.hpp"
#include "spx/spx.h"

namespace {

using bench::analyze::Input;
using bench::analyze::Structure;
using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

#define CUDA_OK(x)                                                                  \
  do {                                                                              \
    cudaError_t e_ = (x);                                                           \
    if (e_ != cudaSuccess) {                                                        \
      std::fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                 \
      std::exit(1);                                                                 \
    }                                                                               \
  } while (0)

struct DeviceArray {
  void* p = nullptr;
  explicit DeviceArray(size_t bytes) {
    CUDA_OK(cudaMalloc(&p, std::max<size_t>(bytes, 16)));
    CUDA_OK(cudaMemset(p, 0, std::max<size_t>(bytes, 16)));
  }
  template <class T>
  explicit DeviceArray(const std::vector<T>& host) : DeviceArray(host.size() * sizeof(T)) {
    if (!host.empty())
      CUDA_OK(cudaMemcpy(p, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice));
  }
  ~DeviceArray() { cudaFree(p); }
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
};

struct Types {
  spxDataType_t a, b, c, compute;
  size_t a_bytes, b_bytes, c_bytes;
};

Types types_of(Input in) {
  switch (in) {
    case Input::NmF32:
    case Input::EllF32: return {SPX_R_32F, SPX_R_32F, SPX_R_32F, SPX_R_32F, 4, 4, 4};
    case Input::EllF16:
    case Input::SptcBcrs:
    case Input::SptcCsr: return {SPX_R_16F, SPX_R_16F, SPX_R_16F, SPX_R_32F, 2, 2, 2};
    case Input::SrbcrsBcrs:
    case Input::SrbcrsCsr: return {SPX_R_8I, SPX_R_8I, SPX_R_32I, SPX_R_32I, 1, 1, 4};
  }
  return {};
}

/// The algorithm each input is analyzed with: DEFAULT, except SpTC's CSR input, which DEFAULT
/// gives to the ELL family (random rows are near-uniform).
spxSpMMAlg_t alg_of(Input in) {
  return in == Input::SptcCsr ? SPX_SPMM_ALG_SPTC_REORDER : SPX_SPMM_ALG_DEFAULT;
}

const char* family_name(spxSpMMAlg_t f) {
  switch (f) {
    case SPX_SPMM_ALG_NM: return "NM";
    case SPX_SPMM_ALG_ELL: return "ELL";
    case SPX_SPMM_ALG_SRBCRS: return "SRBCRS";
    case SPX_SPMM_ALG_SPTC_REORDER: return "SPTC";
    case SPX_SPMM_ALG_FALLBACK: return "FALLBACK";
    case SPX_SPMM_ALG_DENSE: return "DENSE";
    default: return "?";
  }
}

template <class T>
std::vector<T> parse_list(const std::string& text) {
  std::vector<T> out;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) {
    std::stringstream one(item);
    T v;
    one >> v;
    out.push_back(v);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> shapes = {"4096x4096", "11008x4096", "4096x11008"}, inputs;
  std::vector<double> levels = {0.5, 0.8, 0.95};
  std::vector<int> max_ns = {0, -1};
  int64_t n = 256;
  int reps = 3;
  double budget_s = 150;
  std::string csv;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string arg = argv[i], value = argv[i + 1];
    if (arg == "--shapes") shapes = parse_list<std::string>(value);
    else if (arg == "--sparsity") levels = parse_list<double>(value);
    else if (arg == "--inputs") inputs = parse_list<std::string>(value);
    else if (arg == "--n") n = std::atoll(value.c_str());
    else if (arg == "--max-n") max_ns = parse_list<int>(value);
    else if (arg == "--reps") reps = std::max(1, std::atoi(value.c_str()));
    else if (arg == "--budget-s") budget_s = std::atof(value.c_str());
    else if (arg == "--csv") csv = value;
    else {
      std::fprintf(stderr, "unknown option %s\n", arg.c_str());
      return 2;
    }
  }
  FILE* out = csv.empty() ? stdout : std::fopen(csv.c_str(), "w");
  if (out == nullptr) return 2;
  spxHandle_t h = nullptr;
  if (spxCreate(&h) != SPX_STATUS_SUCCESS) {
    std::fprintf(stderr, "spxCreate failed: %s\n", spxGetLastErrorMessage());
    return 1;
  }
  cudaDeviceProp prop{};
  CUDA_OK(cudaGetDeviceProperties(&prop, 0));
  int version = 0;
  spxGetVersion(&version);
  std::fprintf(stderr, "device %s, libspx %d, n %lld\n", prop.name, version, static_cast<long long>(n));
  std::fprintf(out, "m,k,n,input,sparsity,max_n,family,wall_ms,first_wall_ms,info_ms,reps,kernel\n");
  const auto start = Clock::now();
  int failures = 0;
  for (const std::string& shape : shapes) {
    long long m = 0, k = 0;
    std::sscanf(shape.c_str(), "%lldx%lld", &m, &k);
    for (int idx = 0; idx < bench::analyze::kInputCount; ++idx) {
      const Input in = static_cast<Input>(idx);
      const std::string name = bench::analyze::input_name(in);
      if (!inputs.empty() && std::find(inputs.begin(), inputs.end(), name) == inputs.end()) continue;
      const Types t = types_of(in);
      for (double level : levels) {
        if (seconds_since(start) > budget_s) {
          std::fprintf(stderr, "budget of %.0f s spent: %s %lldx%lld %.2f not run\n", budget_s,
                       name.c_str(), m, k, level);
          continue;
        }
        const Structure s = bench::analyze::make_structure(in, m, k, level);
        DeviceArray ptr(s.ptr), ind(s.idx);
        DeviceArray values(static_cast<size_t>(s.value_slots()) * t.a_bytes);
        DeviceArray b(static_cast<size_t>(k * n) * t.b_bytes), c(static_cast<size_t>(m * n) * t.c_bytes);
        spxSpMatDescr_t A = nullptr;
        switch (in) {
          case Input::NmF32:
            spxCreateNM(&A, m, k, s.n, s.m, s.l, values.p, ind.p, t.a);
            break;
          case Input::EllF16:
          case Input::EllF32:
            spxCreateEll(&A, m, k, s.ell_width, ind.p, values.p, t.a);
            break;
          case Input::SrbcrsBcrs:
          case Input::SptcBcrs:
            spxCreateBcrs(&A, m, k, s.vec_len, s.entries, ptr.p, ind.p, values.p, t.a);
            break;
          default:
            spxCreateCsr(&A, m, k, s.entries, ptr.p, ind.p, values.p, t.a);
            break;
        }
        spxDnMatDescr_t B = nullptr, C = nullptr;
        spxCreateDnMat(&B, k, n, n, b.p, t.b, SPX_ORDER_ROW);
        spxCreateDnMat(&C, m, n, n, c.p, t.c, SPX_ORDER_ROW);
        for (int max_n : max_ns) {
          spxPlanOptions_t options = nullptr;
          spxCreatePlanOptions(&options);
          const int32_t value = max_n;
          spxPlanOptionsSet(options, SPX_PLAN_OPTION_MAX_N, &value, sizeof(value));
          std::vector<double> ms, wall;
          spxPlanInfo info{};
          for (int r = 0; r < reps; ++r) {
            spxPlan_t plan = nullptr;
            const auto t0 = Clock::now();
            const spxStatus_t st =
                spxSpMM_analyzeWithOptions(h, A, B, C, t.compute, alg_of(in), options, &plan);
            const double wall_ms = 1e3 * seconds_since(t0);
            if (st != SPX_STATUS_SUCCESS) {
              std::fprintf(stderr, "%s %lldx%lld %.2f max_n %d: %s (%s)\n", name.c_str(), m, k,
                           level, max_n, spxGetStatusName(st), spxGetLastErrorMessage());
              ++failures;
              break;
            }
            spxPlanGetInfo(plan, &info);
            spxPlanDestroy(plan);
            ms.push_back(info.analyze_ms);
            wall.push_back(wall_ms);
            if (wall_ms > 1000) break;
          }
          spxDestroyPlanOptions(options);
          if (ms.empty()) continue;
          const double first = wall.front();
          std::sort(ms.begin(), ms.end());
          std::sort(wall.begin(), wall.end());
          std::fprintf(out, "%lld,%lld,%lld,%s,%.3f,%d,%s,%.2f,%.2f,%.2f,%zu,%s\n", m, k,
                       static_cast<long long>(n), name.c_str(), s.sparsity, max_n,
                       family_name(info.family), wall[wall.size() / 2], first, ms[ms.size() / 2],
                       wall.size(), info.kernel);
          std::fflush(out);
        }
        spxDestroyDnMat(B);
        spxDestroyDnMat(C);
        spxDestroySpMat(A);
      }
    }
  }
  spxDestroy(h);
  if (out != stdout) std::fclose(out);
  return failures == 0 ? 0 : 1;
}
