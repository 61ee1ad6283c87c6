// Which baselines each family is measured against (docs/benchmark-protocol.md, "Baselines"):
//   nm      f32: cublas_sgemm_fp32, cublas_sgemm_tf32, cusparse_csr (f32), cusparse_coo (f32)
//           f16/bf16: cublas_hgemm, cusparse_csr (same type)
//   ell     cusparse_csr (best, same dtype), cusparse_coo, cublas_sgemm_fp32 (f32) / cublas_hgemm (f16)
//   srbcrs  spmm: cusparse_csr and cusparse_bell in int8 and the faster of them as
//           cusparse_int8_best (one fp16 cusparse_csr if int8 is refused), cublas_int8, cublas_hgemm
//           sddmm: cublas_hgemm (the dense product), cusparse_sddmm_best
//   sptc    cublas_hgemm, cusparse_csr (f16), cusparse_bell (f16, block V); cuSPARSELt is only
//           detected in this version (one line at the start of the run)
#pragma once

#include <vector>

#include "baselines.hpp"

namespace bench {

/// Runs the family's baselines in the order above; refused ones are left out after a note.
std::vector<BaselineResult> run_family_baselines(const BaselineEnv& env);

}  // namespace bench
