// The CSV of docs/benchmark-protocol.md (one row per case and baseline) and the closing summary: geomean
// speedup per (family, op, baseline) over the cases that passed their correctness check, then per
// (precision, V, N, sparsity) group when a run holds more than one.
#pragma once

#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace bench {

/// The geometric mean of positive ratios (v not empty).
double geomean(const std::vector<double>& v);

/// Column order of the CSV, fixed by docs/benchmark-protocol.md.
extern const char* const kCsvHeader;

struct CsvRow {
  std::string family, op, matrix;
  int64_t m = 0, k = 0, n = 0;
  double sparsity = 0.0;
  int64_t vec = 0;
  std::string dtype, precision, baseline;
  double ms = 0.0, baseline_ms = 0.0, speedup = 0.0, max_rel_err = 0.0, analyze_ms = 0.0;
  std::string config;
};

/// Writes the header, then rows as they come (flushed, so a crash keeps what was measured).
class CsvWriter {
 public:
  /// path empty: stdout. Throws bench::Error if the file cannot be opened.
  explicit CsvWriter(const std::string& path);
  ~CsvWriter();
  CsvWriter(const CsvWriter&) = delete;
  CsvWriter& operator=(const CsvWriter&) = delete;
  void write(const CsvRow& row);

 private:
  FILE* out_ = nullptr;
  bool owned_ = false;
};

/// RFC 4180 quoting when a field holds a comma, quote or newline.
std::string csv_field(const std::string& s);

/// Collects the speedups that count and prints the closing summary on stderr.
class Summary {
 public:
  void add(const CsvRow& row, bool counts);
  void case_failed() { ++failed_; }
  void case_errored() { ++errored_; }
  void case_passed() { ++passed_; }
  int failed() const { return failed_; }
  int errored() const { return errored_; }
  void print(FILE* out) const;

 private:
  using Key = std::tuple<std::string, std::string, std::string>;  // family, op, baseline
  /// family, op, baseline, then the group: precision (or dtype), V, N, sparsity ("%g").
  using GroupKey = std::tuple<std::string, std::string, std::string, std::string, int64_t,
                              int64_t, std::string>;
  std::map<Key, std::vector<double>> speedups_;
  std::map<GroupKey, std::vector<double>> groups_;
  std::map<Key, int> excluded_;
  int passed_ = 0, failed_ = 0, errored_ = 0;
};

}  // namespace bench
