// Runs one case through libspx: upload, descriptors, spxSpMM_analyze / spxSDDMM_analyze (timed
// on the host), one checked run against the reference, then the timing protocol.
#pragma once

#include <string>

#include "device.hpp"
#include "problem.hpp"
#include "reference.hpp"
#include "timing.hpp"

namespace bench {

struct SpxResult {
  double ms = 0.0;          ///< median execute time of one call
  double analyze_ms = 0.0;  ///< host wall time of the analyze call (device work included)
  double max_rel_err = 0.0;
  double tolerance = 0.0;
  bool pass = false;        ///< max_rel_err <= tolerance
  std::string config;       ///< spxPlanInfo kernel and config, plus the pattern of A
  int reps = 0;
  int candidates = 1;       ///< configurations the plan offers (spxPlanInfo_t::candidates)
  spxSpMMAlg_t family = SPX_SPMM_ALG_DEFAULT;  ///< spxPlanInfo_t::family (SpMM): what runs
  int route = 0;            ///< spxPlanInfo_t::route: 1 = the dense cuBLAS route
};

/// How an SpMM plan is analyzed: the algorithm passed to spxSpMM_analyzeWithOptions and, when
/// dense_route >= 0, SPX_PLAN_OPTION_DENSE_ROUTE (a spxDenseRoute_t); -1 leaves the options at
/// their defaults (dense route AUTO).
struct SpmmSelect {
  spxSpMMAlg_t alg = SPX_SPMM_ALG_DEFAULT;
  int dense_route = -1;
};

/// `order` is the order of libspx's dense operands. Throws bench::Error on a failed call; a
/// wrong result is not an exception (pass = false; the case is still timed).
/// force_candidate >= 0: the plan starts on that configuration (ELL: SPX_ELL_FORCE_CANDIDATE,
/// set around the analyze call), for --candidates.
SpxResult run_spx(const GpuContext& gpu, const Problem& p, const Reference& ref, spxOrder_t order,
                  const TimingConfig& timing, int force_candidate = -1);

/// SpMM with an explicit algorithm / dense route (spx-bench dispatch). Input libspx refuses for
/// this selection (SPX_STATUS_NOT_SUPPORTED at analyze) throws bench::Refused with its message;
/// every other failure throws bench::Error, as run_spx does.
SpxResult run_spx_spmm(const GpuContext& gpu, const Problem& p, const Reference& ref,
                       spxOrder_t order, const TimingConfig& timing, const SpmmSelect& select);

/// "NM", "ELL", "SRBCRS", "SPTC_REORDER", "FALLBACK", "DENSE" ("DEFAULT" for 0).
const char* spx_alg_name(spxSpMMAlg_t alg);

}  // namespace bench
