// Command line of spx-bench (docs/benchmark-protocol.md describes what it measures).
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "spx/spx.h"
#include "types.hpp"

namespace bench {

struct Shape {
  int64_t m = 0, k = 0, n = 0;
};

/// Which operations to run (SDDMM exists for SR-BCRS only in this version).
enum class OpChoice { DEFAULT, SPMM, SDDMM, BOTH };

/// Everything the command line says. Empty lists mean "the family's default".
struct Options {
  std::vector<Family> families;  ///< one family, or all four for `all` (empty for `dispatch`)
  bool all = false;
  std::vector<Shape> shapes;
  std::vector<double> sparsities;
  bool has_dtype = false;
  ValueType dtype = ValueType::F32;
  bool has_precision = false;
  Precision precision;
  std::vector<int64_t> vecs;
  std::vector<int64_t> ns;
  std::string dlmc_dir;
  std::string csv_file;
  bool quick = false;
  int reps = 0;  ///< 0 = choose per kernel so that a round lasts >= 2 ms (at least 10)
  spxOrder_t order = SPX_ORDER_ROW;  ///< order of libspx's dense operands B and C
  bool graph = false;
  OpChoice op = OpChoice::DEFAULT;
  std::string preset;  ///< --preset NAME: a named case list of one family (see cases.cpp); "" = none
  bool list = false;   ///< --list: print the cases that would run and exit before any CUDA call
  std::vector<std::string> baselines;  ///< --baselines: the sptc / srbcrs / ell baselines to run (empty = all)
  bool candidates = false;  ///< --candidates: also time every configuration of the plan (ell)
  bool dispatch = false;    ///< `spx-bench dispatch`: DEFAULT against every candidate (dispatch.hpp)
  std::vector<std::string> formats;  ///< --format (dispatch): csr, ell, bcrs, nm (empty = all)
};

enum class ParseStatus { OK, HELP, USAGE_ERROR };

/// Parses argv; on USAGE_ERROR *error says what was wrong. Accepts "--opt value" and "--opt=value".
ParseStatus parse_args(int argc, char** argv, Options* opts, std::string* error);

void print_usage(FILE* out);

}  // namespace bench
