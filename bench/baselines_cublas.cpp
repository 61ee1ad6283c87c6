// Dense cuBLAS baselines: the product of the densified A with B, as a user without libspx runs
// it. All use cublasGemmEx in the "TN" layout: A row-major (op T of a column-major K x M),
// B column-major K x N, C column-major M x N. int8 pads K to a multiple of 16 and ldc to a
// multiple of 4 with zeros (cuBLAS's int8 tensor-core kernels need aligned leading dimensions;
// the padded product is the same), which the config column says.
#include <algorithm>
#include <cstring>

#include "baselines.hpp"
#include "check.hpp"
#include "values.hpp"

namespace bench {

namespace {

struct GemmSpec {
  const char* name;
  ValueType in, out;
  cudaDataType_t cuda_in, cuda_out;
  cublasComputeType_t compute;
  const char* desc;
};

GemmSpec gemm_spec(GemmKind kind, ValueType case_type) {
  switch (kind) {
    case GemmKind::SGEMM_FP32:
      return {"cublas_sgemm_fp32", ValueType::F32, ValueType::F32, CUDA_R_32F, CUDA_R_32F,
              CUBLAS_COMPUTE_32F_PEDANTIC, "fp32 COMPUTE_32F_PEDANTIC"};
    case GemmKind::SGEMM_TF32:
      return {"cublas_sgemm_tf32", ValueType::F32, ValueType::F32, CUDA_R_32F, CUDA_R_32F,
              CUBLAS_COMPUTE_32F_FAST_TF32, "fp32 COMPUTE_32F_FAST_TF32"};
    case GemmKind::HGEMM:
      if (case_type == ValueType::BF16)
        return {"cublas_hgemm", ValueType::BF16, ValueType::BF16, CUDA_R_16BF, CUDA_R_16BF,
                CUBLAS_COMPUTE_32F, "bf16 in/out COMPUTE_32F"};
      return {"cublas_hgemm", ValueType::F16, ValueType::F16, CUDA_R_16F, CUDA_R_16F,
              CUBLAS_COMPUTE_32F, "f16 in/out COMPUTE_32F"};
    case GemmKind::INT8:
      return {"cublas_int8", ValueType::I8, ValueType::I32, CUDA_R_8I, CUDA_R_32I,
              CUBLAS_COMPUTE_32I, "i8 in i32 out COMPUTE_32I"};
  }
  throw Error("unknown GemmKind");
}

int64_t round_up(int64_t x, int64_t to) { return (x + to - 1) / to * to; }

}  // namespace

std::optional<BaselineResult> cublas_gemm(const BaselineEnv& env, GemmKind kind) {
  const Problem& p = env.p;
  const GemmSpec spec = gemm_spec(kind, p.a_type);
  const int64_t m = p.spec.m, k = p.spec.k, n = p.spec.n;
  const bool int8 = kind == GemmKind::INT8;
  const int64_t kp = int8 ? round_up(k, 16) : k;
  const int64_t ldc = int8 ? round_up(m, 4) : m;
  if (m > INT32_MAX || n > INT32_MAX || kp > INT32_MAX) {
    note(strf("%s: sizes beyond int32 are not supported by cublasGemmEx", spec.name));
    return std::nullopt;
  }
  const InputPlan in = plan_inputs(p, spec.in);

  std::vector<float> a_host = dense_a_rowmajor(p, kp, in.scale_a);
  DeviceBuffer a = DeviceBuffer::from(encode(a_host.data(), m * kp, spec.in));
  std::vector<float> b_host = b_colmajor(p, kp, in.scale_b);
  std::vector<uint8_t> b_bytes = encode(b_host.data(), kp * n, spec.in);
  const size_t c_bytes = storage_bytes(spec.out, ldc * n);
  const int copies = rotation_copies(env.gpu.l2_bytes(), a.size(), b_bytes.size() + c_bytes);
  RotatedArray b(b_bytes.data(), b_bytes.size(), copies);
  RotatedArray c(nullptr, c_bytes, copies);

  const float f_one = 1.0f, f_zero = 0.0f;
  const int32_t i_one = 1, i_zero = 0;
  const void* alpha = int8 ? static_cast<const void*>(&i_one) : &f_one;
  const void* beta = int8 ? static_cast<const void*>(&i_zero) : &f_zero;
  cublasHandle_t h = env.gpu.cublas();
  CUBLAS_CHECK(cublasSetPointerMode(h, CUBLAS_POINTER_MODE_HOST));

  Launch launch = [&](int64_t i) {
    CUBLAS_CHECK(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(m),
                              static_cast<int>(n), static_cast<int>(kp), alpha, a.get(),
                              spec.cuda_in, static_cast<int>(kp), b.at(i), spec.cuda_in,
                              static_cast<int>(kp), beta, c.at(i), spec.cuda_out,
                              static_cast<int>(ldc), spec.compute, CUBLAS_GEMM_DEFAULT));
  };

  BaselineResult res;
  res.name = spec.name;
  res.config = strf("TN %s", spec.desc);
  if (kp != k || ldc != m)
    res.config += strf(" K padded %lld->%lld ldc %lld", (long long)k, (long long)kp,
                       (long long)ldc);
  try {
    launch(0);  // checked run
    CUDA_CHECK(cudaStreamSynchronize(env.gpu.stream()));
  } catch (const Refused& e) {
    note(strf("%s (%s) refused for %lldx%lldx%lld: %s", spec.name, res.config.c_str(),
              (long long)m, (long long)k, (long long)n, e.what()));
    return std::nullopt;
  }
  if (in.checkable) {
    std::vector<uint8_t> raw(c_bytes);
    CUDA_CHECK(cudaMemcpy(raw.data(), c.at(0), c_bytes, cudaMemcpyDeviceToHost));
    std::vector<double> out = decode(raw.data(), ldc * n, spec.out);
    res.check_err = max_rel_err_dense(env.ref, out, SPX_ORDER_COL, ldc, in.ref_scale());
    res.check_ok = res.check_err <= kBaselineTolerance;
  } else {
    res.config += " (values saturated to the input type: not checked)";
  }
  res.ms = time_launches(env.gpu.stream(), launch, env.timing).ms;
  return res;
}

}  // namespace bench
