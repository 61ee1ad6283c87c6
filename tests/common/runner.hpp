// Runs one SpMM / SDDMM problem on the GPU under several algorithms and checks each result
// against the CPU reference; and the parameter grids the GPU suites walk.
// Failures are reported through Catch2 (FAIL_CHECK with the full case description), so a grid
// keeps going after a failed case and the log names every failing configuration.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "compare.hpp"
#include "device.hpp"
#include "grid.hpp"

namespace spx::test {

// ---------------------------------------------------------------- problems

struct SpmmProblem {
  HostSparse A;  ///< m x k
  HostDense B;   ///< k x n
  HostDense C;   ///< m x n: old values (read when beta != 0)
  spxDataType_t compute = SPX_R_32F;
  ref::Scalars s;
  std::string what;  ///< description printed with every failure
};

struct SddmmProblem {
  HostDense A;   ///< m x k
  HostDense B;   ///< k x n
  HostSparse C;  ///< m x n pattern with old values
  spxDataType_t compute = SPX_R_32F;
  ref::Scalars s;
  std::string what;
};

/// What happened to the runs of one problem, and over a whole grid.
struct RunStats {
  std::array<int64_t, 7> ran{};            ///< per alg (DENSE included): runs that analyzed and executed
  std::array<int64_t, 7> not_supported{};  ///< per alg: analyze said NOT_SUPPORTED
  std::map<std::string, int64_t> kernels;  ///< kernel name (plan info) -> runs
  int64_t failed = 0;                      ///< runs with any failed check
  int64_t problems = 0;
  std::string summary() const;
  /// The closing assertions of a grid test: at least one run analyzed and executed, and none
  /// failed (each failure was already reported on its own, with its plan).
  void check_complete() const;
};

/// Uploads the problem once, then for every alg: C (poisoned with NaN when beta == 0, guard in
/// its ld padding and after its end) -> analyze -> execute -> compare with `expected`
/// (ref::spmm of the clean problem) -> check guards. Returns the number of failed runs.
int run_spmm(spxHandle_t h, const SpmmProblem& p, const ref::Expected& expected,
             const std::vector<spxSpMMAlg_t>& algs, RunStats& stats);
/// The same for SDDMM (C's values poisoned when beta == 0; ELL padded slots guarded).
int run_sddmm(spxHandle_t h, const SddmmProblem& p, const ref::Expected& expected,
              const std::vector<spxSpMMAlg_t>& algs, RunStats& stats);

/// ref::spmm / ref::sddmm of the problem, then run_spmm / run_sddmm with candidate_algs.
int check_spmm(spxHandle_t h, const SpmmProblem& p, RunStats& stats);
int check_sddmm(spxHandle_t h, const SddmmProblem& p, RunStats& stats);

// ---------------------------------------------------------------- grids

/// The variants x formats x types grid of SpMM for one type combination and one format.
/// Shapes are rounded up to what the format needs (rows % V, rows % l, k % m).
struct SpmmGrid {
  FormatSpec format;
  spxDataType_t a_type, b_type, c_type;
  int variants = 44;
  uint64_t seed = 1;
};
void run_spmm_grid(spxHandle_t h, const SpmmGrid& g, RunStats& stats);

/// The SDDMM grid: C (m x n) in `format`, A m x k, B k x n.
struct SddmmGrid {
  FormatSpec format;
  spxDataType_t a_type, b_type, c_type;
  int variants = 44;
  uint64_t seed = 1;
};
void run_sddmm_grid(spxHandle_t h, const SddmmGrid& g, RunStats& stats);

/// Stop a grid after this many failed runs (keeps a systematic bug's log readable).
constexpr int64_t kMaxFailuresPerTest = 25;

}  // namespace spx::test
