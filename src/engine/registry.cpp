#include "engine/registry.hpp"

#include <vector>

#include "families/ell/family.hpp"
#include "families/fallback/family.hpp"
#include "families/nm/family.hpp"
#include "families/srbcrs/family.hpp"
#include "families/srbcrs/sddmm_family.hpp"
#include "families/sptc/family.hpp"

namespace spx::dispatch {
namespace {

/// One row per fast family, in the order SPX_SPMM_ALG_DEFAULT prefers them. `can_implement`
/// returns an empty Refusal when the family takes the problem.
struct SpmmFamily {
  spxSpMMAlg_t id;
  Refusal (*can_implement)(const SpmmProblem&);
  std::unique_ptr<SpmmKernelPlan> (*build)(const SpmmProblem&, spxPlanInfo_t&);
};
struct SddmmFamily {
  spxSDDMMAlg_t id;
  Refusal (*can_implement)(const SddmmProblem&);
  std::unique_ptr<SddmmKernelPlan> (*build)(const SddmmProblem&, spxPlanInfo_t&);
};

// The fast families register here as they land (NM, ELL, SR-BCRS, SpTC reorder).
const std::vector<SpmmFamily>& spmm_families() {
  static const std::vector<SpmmFamily> table = {
      {SPX_SPMM_ALG_NM, nm_can_implement, build_nm_spmm},
      {SPX_SPMM_ALG_ELL, ell_can_implement, build_ell_spmm},
      {SPX_SPMM_ALG_SRBCRS, srbcrs_can_implement, build_srbcrs_spmm},
      {SPX_SPMM_ALG_SPTC_REORDER, sptc_can_implement, build_sptc_spmm},
  };
  return table;
}
const std::vector<SddmmFamily>& sddmm_families() {
  static const std::vector<SddmmFamily> table = {
      {SPX_SPMM_ALG_SRBCRS, srbcrs_sddmm_can_implement, build_srbcrs_sddmm},
  };
  return table;
}

const char* family_name(spxSpMMAlg_t alg) {
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

void check_alg(spxSpMMAlg_t alg) {
  SPX_CHECK_ARG(alg >= SPX_SPMM_ALG_DEFAULT && alg <= SPX_SPMM_ALG_DENSE,
                "alg (%d) is not a valid algorithm value", static_cast<int>(alg));
}

/// Walks the table: a forced family answers for itself; DEFAULT takes the first that accepts.
template <class Family, class Problem, class Fallback>
auto choose(const std::vector<Family>& families, const Problem& p, spxSpMMAlg_t alg, spxPlanInfo_t& info,
            Fallback&& fallback) {
  check_alg(alg);
  for (const Family& f : families) {
    if (alg != SPX_SPMM_ALG_DEFAULT && alg != f.id) continue;
    const Refusal why = f.can_implement(p);
    if (why.empty()) return f.build(p, info);
    SPX_EXPECTS(alg == SPX_SPMM_ALG_DEFAULT, SPX_STATUS_NOT_SUPPORTED, "the %s family cannot take this input: %s",
                family_name(f.id), why.c_str());
  }
  SPX_EXPECTS(alg == SPX_SPMM_ALG_DEFAULT || alg == SPX_SPMM_ALG_FALLBACK, SPX_STATUS_NOT_SUPPORTED,
              "the %s kernel family is not in this version of libspx; use SPX_SPMM_ALG_DEFAULT "
              "or SPX_SPMM_ALG_FALLBACK",
              family_name(alg));
  return fallback(p, info);
}

/// The SR-BCRS values layout (SPX_PLAN_OPTION_SPARSE_VALUES_LAYOUT) is read and written by the
/// SR-BCRS family only: with it DEFAULT means SRBCRS (whose refusal is then NOT_SUPPORTED), and
/// any other forced family is NOT_SUPPORTED.
spxSpMMAlg_t alg_for_layout(const spxPlanOptions& options, spxSpMMAlg_t alg) {
  if (options.values_layout == SPX_VALUES_LAYOUT_NATIVE) return alg;
  check_alg(alg);
  SPX_EXPECTS(alg == SPX_SPMM_ALG_DEFAULT || alg == SPX_SPMM_ALG_SRBCRS, SPX_STATUS_NOT_SUPPORTED,
              "the SR-BCRS values layout is read and written by the SRBCRS family only, not by "
              "the %s family",
              family_name(alg));
  return SPX_SPMM_ALG_SRBCRS;
}

}  // namespace

std::unique_ptr<SpmmKernelPlan> build_spmm(const SpmmProblem& p, spxSpMMAlg_t alg,
                                           spxPlanInfo_t& info) {
  SPX_EXPECTS(alg != SPX_SPMM_ALG_DENSE, SPX_STATUS_INTERNAL_ERROR,
              "the dense route is built by engine/route.cpp, not from the family table");
  return choose(spmm_families(), p, alg_for_layout(p.options, alg), info, build_fallback_spmm);
}

std::unique_ptr<SddmmKernelPlan> build_sddmm(const SddmmProblem& p, spxSDDMMAlg_t alg,
                                             spxPlanInfo_t& info) {
  SPX_EXPECTS(alg != SPX_SPMM_ALG_DENSE, SPX_STATUS_NOT_SUPPORTED,
              "the dense route (SPX_SPMM_ALG_DENSE) is for SpMM only; SDDMM has no dense path");
  return choose(sddmm_families(), p, alg_for_layout(p.options, alg), info, build_fallback_sddmm);
}

}  // namespace spx::dispatch
