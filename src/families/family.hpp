// What every kernel family plugs into. A family offers, per operation, a `can_implement` test
// and a builder; the builder does all structural work once (analyze) and returns a KernelPlan
// that owns the family's device data. The plan is then run many times, read-only.
#pragma once

#include <memory>
#include <string>

#include "device/args.hpp"
#include "families/switches.hpp"
#include "runtime/objects.hpp"

namespace spx::dispatch {

struct FamilyRecord;  // families/record.hpp

/// Everything analyze knows about an SpMM C = A * B (+ C): operands, the handle's device and
/// the caller's analyze options.
struct SpmmProblem {
  const spxContext& h;
  const spxSpMatDescr& A;
  const spxDnMatDescr& B;
  const spxDnMatDescr& C;
  spxDataType_t compute_type;
  const spxPlanOptions& options;
  const Switches& switches;  ///< the SPX_* environment switches at analyze
};

/// Everything analyze knows about an SDDMM C = (A * B) .* spy(C) (+ C).
struct SddmmProblem {
  const spxContext& h;
  const spxDnMatDescr& A;
  const spxDnMatDescr& B;
  const spxSpMatDescr& C;
  spxDataType_t compute_type;
  const spxPlanOptions& options;
  const Switches& switches;  ///< the SPX_* environment switches at analyze
};

/// Per-call arguments: the scalars as the user passed them and the current dense operands.
struct SpmmCall {
  const void* alpha;
  const void* beta;
  const spxDnMatDescr& B;
  const spxDnMatDescr& C;
  void* workspace;
  /// The plan's fused epilogue (spxPlanSetEpilogue); off at analyze-time timing runs.
  kernels::Epilogue epilogue{};
};

struct SddmmCall {
  const void* alpha;
  const void* beta;
  const spxDnMatDescr& A;
  const spxDnMatDescr& B;
  const spxSpMatDescr& C;
  void* workspace;
};

class SpmmKernelPlan {
 public:
  virtual ~SpmmKernelPlan() = default;
  /// Queues the product on h.stream. Must not synchronize or allocate.
  virtual void run(const spxContext& h, const SpmmCall& call) const = 0;
  /// Re-packs values from A.values (same structure), queued on h.stream.
  virtual void update_values(const spxContext& h, const spxSpMatDescr& A) = 0;

  /// Kernel configurations spxSpMM_search may time (tile shapes, vector widths, splits).
  /// The plan runs `selected()`; a family with one configuration keeps these defaults.
  virtual int candidate_count() const { return 1; }
  virtual int selected() const { return 0; }
  virtual void select(int /*candidate*/) {}
  /// Human-readable configuration of a candidate, for spxPlanInfo_t::config.
  virtual std::string describe(int /*candidate*/) const { return {}; }
  /// Device workspace bytes run() needs (the largest over the candidates).
  virtual size_t workspace_bytes() const { return 0; }
  /// The family's own model of one execute of the selected candidate on this device, in us, for
  /// the dense route (engine/route.cpp); 0: none, the route then scales its model of dense
  /// cuBLAS by spxPlanInfo_t::predicted_speedup.
  virtual double estimate_us() const { return 0; }

  /// The plan of the same A for another number of columns: `p` is the analyzed problem with B
  /// and C of n columns. Shares this plan's device copy of A (no upload, no re-pack) and makes
  /// only the per-n decision; it may add to the shared copy here, at analyze (e.g. a layout a
  /// kernel for that n needs). Fills info's family fields as the family's build does. run()
  /// takes any n up to p's with the result (smaller n: the same kernels, fewer columns).
  virtual std::unique_ptr<SpmmKernelPlan> for_columns(const SpmmProblem& p,
                                                      spxPlanInfo_t& info) const = 0;
  /// Device bytes of the copy of A this plan shares with its for_columns plans: index and
  /// metadata arrays, and values (a dense route's dense copy counts as values).
  struct Held {
    size_t metadata = 0, values = 0;
  };
  virtual Held held() const = 0;
  /// What a serialized plan stores of this plan (families/record.hpp): the shared copy of A as
  /// device arrays (read when the record is written) and what the family's decisions read
  /// besides the problem. Each family's load_<family>_spmm makes the plan again from it.
  virtual void save(FamilyRecord& out) const = 0;
};

class SddmmKernelPlan {
 public:
  virtual ~SddmmKernelPlan() = default;
  virtual void run(const spxContext& h, const SddmmCall& call) const = 0;
};

/// A family's answer to "can you take this input?": empty when yes, else one sentence why not.
using Refusal = std::string;

}  // namespace spx::dispatch
