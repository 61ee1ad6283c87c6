// Choosing among a plan's kernel configurations by timing them on the handle's stream: shared by
// spxSpMM_search (the caller's operands, C restored) and analyze's SPX_PLAN_OPTION_AUTOTUNE
// (the caller's B, a scratch C). Families only expose candidate_count / select / describe.
#pragma once

#include "runtime/objects.hpp"
#include "families/family.hpp"

namespace spx::plan {

/// Bytes a dense matrix's storage spans as its descriptor lays it out (ld between lines).
size_t dense_span_bytes(const spxDnMatDescr& d);

/// Times every candidate of e.spmm (one prepared n's kernel plan) with `call` (median of 3 rounds of 5 back-to-back runs,
/// after a warm-up) and selects the fastest in the plan; `who` prefixes the log lines. Overwrites
/// call.C. With one candidate it does nothing. Records the choice in e.info (config,
/// searched). Blocks until the timing is done.
void select_fastest_candidate(const spxContext& h, PreparedN& e, const dispatch::SpmmCall& call,
                              const char* who);

/// SPX_PLAN_OPTION_AUTOTUNE: select_fastest_candidate with alpha = 1, beta = 0 (host scalars),
/// the caller's B and a scratch C and workspace of the plan's sizes, so the caller's C is
/// neither read nor written.
void autotune_spmm(const spxContext& h, PreparedN& e, const spxDnMatDescr& B,
                   const spxDnMatDescr& C);

/// Microseconds of one run of kernel plan `k` (its selected candidate), the median of
/// select_fastest_candidate's rounds, with alpha = 1, beta = 0 (host scalars), the caller's B and
/// a scratch C and workspace (the caller's C is neither read nor written). Blocks until done.
double time_spmm_us(const spxContext& h, const dispatch::SpmmKernelPlan& k, const spxDnMatDescr& B,
                    const spxDnMatDescr& C);

}  // namespace spx::plan
