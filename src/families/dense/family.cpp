#include "families/dense/family.hpp"

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>

#include "families/dense/kernels/cublas.hpp"
#include "families/dense/kernels/densify.hpp"
#include "families/dense/kernels/epilogue.hpp"
#include "families/dense/plan/gemm.hpp"
#include "families/record.hpp"
#include "families/operands.hpp"
#include "families/structure.hpp"
#include "runtime/dtype.hpp"

namespace spx::dispatch {
namespace {

bool tf32_for(const SpmmProblem& p) { return p.options.allow_tf32 == 1 && p.A.type == SPX_R_32F; }

/// The dense route's copy of A (row-major m x k) and its densify map, shared by the plans of
/// every prepared n that takes the route.
struct DenseA {
  int64_t entries = 0;
  device::Buffer pos, slot;  ///< int64[entries]: dense element and user value slot
  device::Buffer dense;      ///< row-major m x k of A's type
};

class DenseSpmm final : public SpmmKernelPlan {
 public:
  DenseSpmm(const SpmmProblem& p, const plan::CsrStructure& csr)
      : layout_(layout_for(p, p.B.cols)), type_(p.A.type), tf32_(tf32_for(p)),
        a_(std::make_shared<DenseA>()) {
    set_operands(p);
    device::check(kernels::dense::densify_load(), "loading the densify kernel");
    if (p.options.any_epilogue())
      device::check(kernels::dense::epilogue_load(), "loading the dense route's epilogue kernel");
    const plan::DensifyMap map = plan::densify_map(csr, p.A.cols);
    a_->entries = static_cast<int64_t>(map.pos.size());
    a_->pos = device::upload(map.pos, p.h.stream);
    a_->slot = device::upload(map.slot, p.h.stream);
    const size_t elem = dtype::storage_bytes(type_, 1);
    const uint64_t elems = static_cast<uint64_t>(p.A.rows) * static_cast<uint64_t>(p.A.cols);
    const bool fits = p.A.cols == 0 || (elems / static_cast<uint64_t>(p.A.cols) ==
                                            static_cast<uint64_t>(p.A.rows) &&
                                        elems <= SIZE_MAX / elem);
    SPX_EXPECTS(fits,
                SPX_STATUS_ALLOC_FAILED, "the dense copy of A (%lld x %lld) does not fit in memory",
                static_cast<long long>(p.A.rows), static_cast<long long>(p.A.cols));
    const size_t bytes = static_cast<size_t>(elems) * elem;
    try {
      a_->dense = device::Buffer(bytes);
    } catch (const Error& e) {
      fail(e.status(), strf("allocating the dense copy of A (%lld x %lld %s, %zu bytes) for the "
                            "dense route: %s",
                            static_cast<long long>(p.A.rows), static_cast<long long>(p.A.cols),
                            dtype::name(type_), bytes, e.what()));
    }
    update_values(p.h, p.A);
    device::check(cudaStreamSynchronize(p.h.stream), "densifying A into the plan");
  }

  /// A loaded plan (serialized): the dense copy and densify map of `r`.
  DenseSpmm(const SpmmProblem& p, const plan::DenseRecord& r)
      : layout_(layout_for(p, p.B.cols)), type_(r.type), tf32_(r.tf32),
        a_(std::make_shared<DenseA>()) {
    set_operands(p);
    device::check(kernels::dense::densify_load(), "loading the densify kernel");
    a_->entries = r.entries;
    a_->pos = device::upload(r.pos, p.h.stream);
    a_->slot = device::upload(r.slot, p.h.stream);
    a_->dense = device::upload(r.dense, p.h.stream);
  }

  void save(FamilyRecord& out) const override {
    plan::DenseRecord r;
    r.type = type_, r.tf32 = tf32_, r.rows = m_, r.cols = k_, r.entries = a_->entries;
    r.pos = device::array_of(a_->pos);
    r.slot = device::array_of(a_->slot);
    r.dense = device::array_of(a_->dense);
    out.v = r;
  }

  void run(const spxContext& h, const SpmmCall& call) const override {
    if (call.C.rows == 0 || call.C.cols == 0) return;
    // The GEMM's shape follows this call's n (any n up to the prepared one).
    const plan::GemmLayout layout = plan::gemm_layout(m_, k_, call.C.cols, b_order_, c_order_);
    kernels::dense::GemmArgs g;
    g.trans_first = layout.trans_first;
    g.trans_second = layout.trans_second;
    g.m = static_cast<int>(layout.m);
    g.n = static_cast<int>(layout.n);
    g.k = static_cast<int>(layout.k);
    const void* a = a_->dense.get();
    const int lda = static_cast<int>(layout.lda);
    const int ldb = static_cast<int>(call.B.ld);
    g.first = layout.first_is_a ? a : call.B.values;
    g.ld_first = layout.first_is_a ? lda : ldb;
    g.second = layout.first_is_a ? call.B.values : a;
    g.ld_second = layout.first_is_a ? ldb : lda;
    g.ab_type = type_;
    g.c = call.C.values;
    g.ldc = static_cast<int>(call.C.ld);
    g.c_type = call.C.type;
    g.compute = type_ != SPX_R_32F ? kernels::dense::GemmCompute::Fp32
                : tf32_           ? kernels::dense::GemmCompute::Tf32
                                  : kernels::dense::GemmCompute::Fp32Pedantic;
    g.alpha = static_cast<const float*>(call.alpha);
    g.beta = static_cast<const float*>(call.beta);
    g.device_scalars = h.pointer_mode == SPX_POINTER_MODE_DEVICE;
    // With the plan's epilogue: C = alpha A B (the engine routes here only calls whose beta is 0
    // on the host), then the epilogue in place (for 16-bit C the product is rounded first).
    SPX_EXPECTS(!call.epilogue.on || dense_takes_epilogue(h, call.beta), SPX_STATUS_INTERNAL_ERROR,
                "the dense route was given an epilogue call with beta != 0 or device scalars");
    const std::string err = kernels::dense::gemm(g, h.device, h.stream);
    SPX_EXPECTS(err.empty(), SPX_STATUS_EXECUTION_FAILED, "the dense route: %s", err.c_str());
    if (call.epilogue.on)
      device::check(kernels::dense::epilogue_in_place(view_of(call.C), call.C.rows, call.C.cols,
                                                      call.epilogue, h.stream),
                    "launching the dense route's epilogue kernel");
  }

  void update_values(const spxContext& h, const spxSpMatDescr& A) override {
    if (A.value_slots() > 0) device::expect_device_pointer(A.values, "A's values");
    kernels::dense::DensifyArgs d;
    d.count = a_->entries;
    d.pos = a_->pos.as<int64_t>();
    d.slot = a_->slot.as<int64_t>();
    d.src = A.values;
    d.type = type_;
    d.dst = a_->dense.get();
    d.dst_bytes = a_->dense.bytes();
    device::check(kernels::dense::densify(d, h.stream), "launching the densify kernel");
  }

  std::string describe(int) const override {
    return plan::describe_gemm(layout_, type_, c_type_, tf32_, b_order_, c_order_);
  }

  /// cuBLAS picks its own kernel per call: another n only changes the description.
  std::unique_ptr<SpmmKernelPlan> for_columns(const SpmmProblem& p,
                                              spxPlanInfo_t& info) const override {
    auto k = std::make_unique<DenseSpmm>(*this);
    k->layout_ = layout_for(p, p.B.cols);
    k->fill_info(p, info);
    return k;
  }
  Held held() const override {
    return {a_->pos.bytes() + a_->slot.bytes(), a_->dense.bytes()};
  }

  void fill_info(const SpmmProblem& p, spxPlanInfo_t& info) const {
    info.family = SPX_SPMM_ALG_DENSE;
    std::snprintf(info.kernel, sizeof(info.kernel), "cublas_gemm_ex");
    std::snprintf(info.config, sizeof(info.config), "%s", describe(0).c_str());
    info.metadata_bytes = held().metadata;
    info.values_bytes = held().values;
    info.dense_bytes = held().values;
    info.padded_nnz = p.A.rows * p.A.cols;
    info.split_k = 1;
    info.packing = 0;
    info.route = 1;
  }

 private:
  static plan::GemmLayout layout_for(const SpmmProblem& p, int64_t n) {
    return plan::gemm_layout(p.A.rows, p.A.cols, n, p.B.order, p.C.order);
  }
  void set_operands(const SpmmProblem& p) {
    m_ = p.A.rows;
    k_ = p.A.cols;
    b_order_ = p.B.order;
    c_order_ = p.C.order;
    c_type_ = p.C.type;
  }

  plan::GemmLayout layout_;  ///< at the prepared n (the description)
  spxDataType_t type_;
  bool tf32_;
  std::shared_ptr<DenseA> a_;
  int64_t m_ = 0, k_ = 0;
  spxOrder_t b_order_ = SPX_ORDER_ROW, c_order_ = SPX_ORDER_ROW;
  spxDataType_t c_type_ = SPX_R_32F;
};

}  // namespace

bool dense_takes_epilogue(const spxContext& h, const void* beta) {
  if (h.pointer_mode != SPX_POINTER_MODE_HOST) return false;
  float b;
  std::memcpy(&b, beta, sizeof b);
  return b == 0.0f;
}

Refusal dense_can_implement(const SpmmProblem& p) {
  const spxDataType_t t = p.A.type;
  if (t != SPX_R_32F && t != SPX_R_16F && t != SPX_R_16BF)
    return strf("the dense route runs 32F, 16F and 16BF inputs only, not %s (integer products "
                "stay on the sparse families)",
                dtype::name(t));
  if (p.options.values_layout != SPX_VALUES_LAYOUT_NATIVE)
    return "the dense route reads A's values in the native layout only";
  for (const int64_t v : {p.A.rows, p.A.cols, p.B.cols, p.B.ld, p.C.ld})
    if (!plan::fits_cublas_int(v))
      return strf("a size or leading dimension (%lld) exceeds cuBLAS's 32-bit int",
                  static_cast<long long>(v));
  if (p.switches.flag("SPX_DENSE_NO_CUBLAS") == 1)
    return "cuBLAS (libcublas.so.13 / libcublas.so) is unavailable: SPX_DENSE_NO_CUBLAS=1";
  const std::string& err = kernels::dense::cublas_load_error();
  if (!err.empty()) return err;
  return {};
}

plan::GemmSize dense_gemm_size(const SpmmProblem& p, bool tf32) {
  plan::GemmSize g;
  g.m = p.A.rows;
  g.k = p.A.cols;
  g.n = p.B.cols;
  g.in_bytes = static_cast<int>(dtype::storage_bytes(p.A.type, 1));
  g.out_bytes = static_cast<int>(dtype::storage_bytes(p.C.type, 1));
  g.math = p.A.type != SPX_R_32F ? plan::GemmMath::Half
           : tf32                ? plan::GemmMath::Tf32
                                 : plan::GemmMath::Fp32;
  return g;
}

std::unique_ptr<SpmmKernelPlan> load_dense_spmm(const SpmmProblem& p, const plan::DenseRecord& r) {
  SPX_EXPECTS(r.rows == p.A.rows && r.cols == p.A.cols && r.type == p.A.type &&
                  r.tf32 == tf32_for(p),
              SPX_STATUS_INVALID_VALUE,
              "serialized plan is invalid: its dense record is not A's shape and type");
  return std::make_unique<DenseSpmm>(p, r);
}

std::unique_ptr<SpmmKernelPlan> build_dense_spmm(const SpmmProblem& p, spxPlanInfo_t& info) {
  const plan::CsrStructure csr = to_csr(p.A, download_structure(p.h, p.A));
  auto k = std::make_unique<DenseSpmm>(p, csr);
  k->fill_info(p, info);
  return k;
}

}  // namespace spx::dispatch
