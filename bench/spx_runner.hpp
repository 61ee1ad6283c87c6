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
};

/// `order` is the order of libspx's dense operands. Throws bench::Error on a failed call; a
/// wrong result is not an exception (pass = false; the case is still timed).
/// force_candidate >= 0: the plan starts on that configuration (ELL: SPX_ELL_FORCE_CANDIDATE,
/// set around the analyze call), for --candidates.
SpxResult run_spx(const GpuContext& gpu, const Problem& p, const Reference& ref, spxOrder_t order,
                  const TimingConfig& timing, int force_candidate = -1);

}  // namespace bench
