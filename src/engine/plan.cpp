#include "engine/plan.hpp"

#include <algorithm>
#include <cstdint>

#include "engine/autotune.hpp"
#include "engine/operand_checks.hpp"
#include "engine/overrides.hpp"
#include "engine/prepared.hpp"
#include "engine/registry.hpp"
#include "families/dense/family.hpp"
#include "runtime/dtype.hpp"
#include "runtime/elapsed.hpp"
#include "runtime/log.hpp"

spxPlan::spxPlan() = default;
spxPlan::~spxPlan() = default;

namespace spx::plan {
using engine::check_dense;
using engine::check_scalars;
using engine::check_sparse;
using engine::check_workspace;

namespace {

std::unique_ptr<spxPlan> new_plan(const spxContext& h, Operation op, spxDataType_t compute_type,
                                  const spxSpMatDescr& sparse, const spxDnMatDescr& dense_in,
                                  const spxDnMatDescr& dense_out) {
  auto p = std::make_unique<spxPlan>();
  p->op = op;
  p->device = h.device;
  p->made_on = h;
  p->compute_type = compute_type;
  p->sparse = SparseSignature::of(sparse);
  p->dense_in = DenseSignature::of(dense_in);
  p->dense_out = DenseSignature::of(dense_out);
  p->info.split_k = 1;
  p->info.nnz = sparse.value_slots();
  return p;
}

/// The combinations the fused epilogue cannot take, refused before any work. The dense route's
/// refusal is dense_can_implement's (AUTO then stays on the sparse family).
void check_epilogue_options(const spxPlanOptions& options, const spxDnMatDescr& C) {
  if (!options.any_epilogue()) return;
  SPX_EXPECTS(C.type != SPX_R_32I, SPX_STATUS_NOT_SUPPORTED,
              "the fused epilogue (SPX_PLAN_OPTION_EPILOGUE_ACTIVATION / _BIAS / _SCALE) computes "
              "in fp32 and needs C of type 32F, 16F or 16BF, not 32I (integer output)");
}

void log_choice(const char* op, const spxPlan& p, int64_t m, int64_t k, int64_t n) {
  log::info("%s: %lld x %lld x %lld, nnz %lld -> %s [%s], analyze %.3f ms", op,
            static_cast<long long>(m), static_cast<long long>(k), static_cast<long long>(n),
            static_cast<long long>(p.info.nnz), p.info.kernel, p.info.config, p.info.analyze_ms);
}

}  // namespace

std::unique_ptr<spxPlan> analyze_spmm(const spxContext& h, const spxSpMatDescr& A,
                                      const spxDnMatDescr& B, const spxDnMatDescr& C,
                                      spxDataType_t compute_type, spxSpMMAlg_t alg,
                                      const spxPlanOptions& options) {
  const auto start = Clock::now();
  check_sparse(A, "A");
  check_dense(B, "B");
  check_dense(C, "C");
  check_epilogue_options(options, C);
  auto p = new_plan(h, Operation::SpMM, compute_type, A, B, C);
  const dispatch::Switches switches = engine::read_switches();
  p->b_ld = B.ld;
  p->c_ld = C.ld;
  p->b_align = static_cast<int32_t>(reinterpret_cast<uintptr_t>(B.values) % 256);
  p->options = options;
  p->switches = switches.entries();
  // The sparse family, then per prepared n the route decision (and SPX_PLAN_OPTION_AUTOTUNE at
  // the analyzed n): engine/prepared.cpp, engine/route.cpp.
  engine::prepare_spmm({h, A, B, C, compute_type, options, switches}, alg, *p);
  p->info.analyze_ms = ms_since(start);
  p->uses.record(h.stream);
  log_choice("spxSpMM_analyze", *p, A.rows, A.cols, B.cols);
  return p;
}

std::unique_ptr<spxPlan> analyze_sddmm(const spxContext& h, const spxDnMatDescr& A,
                                       const spxDnMatDescr& B, const spxSpMatDescr& C,
                                       spxDataType_t compute_type, spxSDDMMAlg_t alg,
                                       const spxPlanOptions& options) {
  const auto start = Clock::now();
  check_dense(A, "A");
  check_dense(B, "B");
  check_sparse(C, "C");
  SPX_EXPECTS(!options.any_epilogue(), SPX_STATUS_NOT_SUPPORTED,
              "the fused epilogue (SPX_PLAN_OPTION_EPILOGUE_ACTIVATION / _BIAS / _SCALE) is for "
              "SpMM plans; an SDDMM plan takes none");
  SPX_CHECK_ARG(options.max_n == 0,
                "SPX_PLAN_OPTION_MAX_N is for SpMM plans: an SDDMM's n is its sparse C's");
  auto p = new_plan(h, Operation::SDDMM, compute_type, C, A, B);
  const dispatch::Switches switches = engine::read_switches();
  p->sddmm = dispatch::build_sddmm({h, A, B, C, compute_type, options, switches}, alg, p->info);
  p->info.candidates = 1;
  p->info.prepared_sizes = 1;
  p->info.max_n = C.cols;
  p->info.analyze_ms = ms_since(start);
  p->uses.record(h.stream);
  log_choice("spxSDDMM_analyze", *p, A.rows, A.cols, B.cols);
  return p;
}

void update_values(const spxContext& h, spxPlan& plan, const spxSpMatDescr& A) {
  check_sparse(A, "A");
  // Every prepared n shares these two copies of A.
  if (plan.sparse_source) plan.sparse_source->update_values(h, A);
  if (plan.dense_source) plan.dense_source->update_values(h, A);
  plan.uses.record(h.stream);
}

spxDnMatDescr column_slice(const spxDnMatDescr& d, int64_t first, int64_t n) {
  spxDnMatDescr s = d;
  s.cols = n;
  const int64_t elements = d.order == SPX_ORDER_ROW ? first : first * d.ld;
  // Slices start at multiples of the prepared size (a power of two or an even bound), so a 4-bit
  // element offset is whole bytes.
  s.values = static_cast<char*>(d.values) + dtype::bits(d.type) * elements / 8;
  return s;
}

void execute_spmm(const spxContext& h, const spxPlan& plan, const void* alpha,
                  const spxDnMatDescr& B, const void* beta, const spxDnMatDescr& C,
                  void* workspace) {
  check_scalars(h, alpha, beta);
  check_dense(B, "B");
  check_dense(C, "C");
  check_workspace(plan, workspace);
  run_spmm(h, plan, alpha, B, beta, C, workspace);
}

kernels::Epilogue epilogue_of(const spxPlan& plan) {
  const spxPlanOptions& o = plan.options;
  return {plan.epilogue.bias, plan.epilogue.scale, o.epilogue_activation, o.any_epilogue() ? 1 : 0};
}

namespace {

/// What runs a call of the prepared decision e: its kernel plan, or, for a dense-routed n of a
/// plan with an epilogue, the sparse family's decision when the dense route cannot take the call
/// (beta != 0 or device scalars: families/dense/family.hpp).
const dispatch::SpmmKernelPlan& runner(const spxContext& h, const PreparedN& e, const void* beta) {
  if (e.sparse_for_epilogue && !dispatch::dense_takes_epilogue(h, beta))
    return *e.sparse_for_epilogue;
  return *e.spmm;
}

}  // namespace

void run_spmm(const spxContext& h, const spxPlan& plan, const void* alpha, const spxDnMatDescr& B,
              const void* beta, const spxDnMatDescr& C, void* workspace) {
  const kernels::Epilogue epilogue = epilogue_of(plan);
  const int64_t n = C.cols;
  const int64_t top = plan.prepared.back().n_hi;
  if (n <= top) {
    const PreparedN& e = plan.prepared_for(n);
    runner(h, e, beta).run(h, {alpha, beta, B, C, workspace, epilogue});
    log::trace("spxSpMM: %s, n = %lld, on stream %p", e.info.kernel, static_cast<long long>(n),
               static_cast<void*>(h.stream));
  } else {
    // Any n (SPX_PLAN_OPTION_MAX_N = -1): slices of the largest prepared size, in stream order.
    const PreparedN& e = plan.prepared.back();
    for (int64_t first = 0; first < n; first += top) {
      const int64_t cols = std::min(top, n - first);
      const spxDnMatDescr b = column_slice(B, first, cols), c = column_slice(C, first, cols);
      runner(h, plan.prepared_for(cols), beta).run(h, {alpha, beta, b, c, workspace, epilogue});
    }
    log::trace("spxSpMM: %s, n = %lld in slices of %lld, on stream %p", e.info.kernel,
               static_cast<long long>(n), static_cast<long long>(top), static_cast<void*>(h.stream));
  }
  plan.uses.record(h.stream);
}

void execute_sddmm(const spxContext& h, const spxPlan& plan, const void* alpha,
                   const spxDnMatDescr& A, const spxDnMatDescr& B, const void* beta,
                   const spxSpMatDescr& C, void* workspace) {
  check_scalars(h, alpha, beta);
  check_dense(A, "A");
  check_dense(B, "B");
  check_sparse(C, "C");
  check_workspace(plan, workspace);
  plan.sddmm->run(h, {alpha, beta, A, B, C, workspace});
  plan.uses.record(h.stream);
  log::trace("spxSDDMM: %s on stream %p", plan.info.kernel, static_cast<void*>(h.stream));
}

}  // namespace spx::plan
