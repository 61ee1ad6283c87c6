#include "family_baselines.hpp"

namespace bench {

namespace {

void add(std::vector<BaselineResult>* out, std::optional<BaselineResult> r) {
  if (r) out->push_back(std::move(*r));
}

}  // namespace

std::vector<BaselineResult> run_family_baselines(const BaselineEnv& env) {
  const Problem& p = env.p;
  const ValueType t = p.a_type;
  std::vector<BaselineResult> out;
  switch (p.spec.family) {
    case Family::NM:
      if (t == ValueType::F32) {
        if (env.wants("cublas_sgemm_fp32")) add(&out, cublas_gemm(env, GemmKind::SGEMM_FP32));
        if (env.wants("cublas_sgemm_tf32")) add(&out, cublas_gemm(env, GemmKind::SGEMM_TF32));
        if (env.wants("cusparse_csr"))
          add(&out, cusparse_spmm_best(env, SparseKind::CSR, t, "cusparse_csr"));
        if (env.wants("cusparse_coo"))
          add(&out, cusparse_spmm_best(env, SparseKind::COO, t, "cusparse_coo"));
      } else {
        add(&out, cublas_gemm(env, GemmKind::HGEMM));
        add(&out, cusparse_spmm_best(env, SparseKind::CSR, t, "cusparse_csr"));
      }
      break;
    case Family::ELL:
      if (env.wants("cusparse_csr"))
        add(&out, cusparse_spmm_best(env, SparseKind::CSR, t, "cusparse_csr"));
      if (env.wants("cusparse_coo"))
        add(&out, cusparse_spmm_best(env, SparseKind::COO, t, "cusparse_coo"));
      if (env.wants("cublas") || env.wants("cublas_hgemm"))
        add(&out, cublas_gemm(env, t == ValueType::F32 ? GemmKind::SGEMM_FP32 : GemmKind::HGEMM));
      break;
    case Family::SRBCRS:
      if (p.spec.op == Op::SPMM) {
        // Both int8 searches and their best, or the one --baselines names.
        if (env.wants("cusparse_csr") && env.wants("cusparse_bell")) {
          for (BaselineResult& r : cusparse_int8_rows(env)) out.push_back(std::move(r));
        } else if (env.wants("cusparse_csr")) {
          add(&out, cusparse_spmm_best(env, SparseKind::CSR, ValueType::I8, "cusparse_csr"));
        } else if (env.wants("cusparse_bell")) {
          add(&out, cusparse_spmm_best(env, SparseKind::BELL, ValueType::I8, "cusparse_bell"));
        }
        if (env.wants("cublas_int8")) add(&out, cublas_gemm(env, GemmKind::INT8));
        if (env.wants("cublas_hgemm")) add(&out, cublas_gemm(env, GemmKind::HGEMM));
      } else {
        add(&out, cublas_gemm(env, GemmKind::HGEMM));
        add(&out, cusparse_sddmm_best(env));
      }
      break;
    case Family::SPTC:
      if (env.wants("cublas_hgemm")) add(&out, cublas_gemm(env, GemmKind::HGEMM));
      if (env.wants("cusparse_csr"))
        add(&out, cusparse_spmm_best(env, SparseKind::CSR, t, "cusparse_csr"));
      if (env.wants("cusparse_bell"))
        add(&out, cusparse_spmm_best(env, SparseKind::BELL, t, "cusparse_bell"));
      if (env.wants("cusparselt")) add(&out, cusparselt_spmm(env));
      break;
  }
  return out;
}

}  // namespace bench
