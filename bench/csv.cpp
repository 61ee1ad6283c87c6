#include "csv.hpp"

#include <cerrno>
#include <cmath>
#include <cstring>

#include "check.hpp"

namespace bench {

const char* const kCsvHeader =
    "family,op,matrix,m,k,n,sparsity,vec,dtype,precision,baseline,ms,baseline_ms,speedup,"
    "max_rel_err,analyze_ms,config";

std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

CsvWriter::CsvWriter(const std::string& path) {
  if (path.empty()) {
    out_ = stdout;
  } else {
    out_ = std::fopen(path.c_str(), "w");
    if (!out_) throw Error(strf("cannot write %s: %s", path.c_str(), std::strerror(errno)));
    owned_ = true;
  }
  std::fprintf(out_, "%s\n", kCsvHeader);
  std::fflush(out_);
}

CsvWriter::~CsvWriter() {
  if (owned_ && out_) std::fclose(out_);
}

void CsvWriter::write(const CsvRow& r) {
  // %.6g keeps microsecond timings readable and exact enough for ratios; errors in %.3e.
  std::fprintf(out_, "%s,%s,%s,%lld,%lld,%lld,%.6g,%lld,%s,%s,%s,%.6g,%.6g,%.6g,%.3e,%.6g,%s\n",
               csv_field(r.family).c_str(), csv_field(r.op).c_str(), csv_field(r.matrix).c_str(),
               (long long)r.m, (long long)r.k, (long long)r.n, r.sparsity, (long long)r.vec,
               csv_field(r.dtype).c_str(), csv_field(r.precision).c_str(),
               csv_field(r.baseline).c_str(), r.ms, r.baseline_ms, r.speedup, r.max_rel_err,
               r.analyze_ms, csv_field(r.config).c_str());
  std::fflush(out_);
}

double geomean(const std::vector<double>& v) {
  double log_sum = 0.0;
  for (double s : v) log_sum += std::log(s);
  return std::exp(log_sum / static_cast<double>(v.size()));
}

void Summary::add(const CsvRow& row, bool counts) {
  Key key{row.family, row.op, row.baseline};
  if (counts && row.speedup > 0 && std::isfinite(row.speedup)) {
    speedups_[key].push_back(row.speedup);
    groups_[GroupKey{row.family, row.op, row.baseline,
                     row.precision.empty() ? row.dtype : row.precision, row.vec, row.n,
                     strf("%g", row.sparsity)}]
        .push_back(row.speedup);
  } else {
    ++excluded_[key];
  }
}

void Summary::print(FILE* out) const {
  std::fprintf(out, "\nsummary: %d case(s) passed, %d FAILED correctness, %d errored\n", passed_,
               failed_, errored_);
  std::map<Key, bool> keys;
  for (const auto& kv : speedups_) keys[kv.first] = true;
  for (const auto& kv : excluded_) keys[kv.first] = true;
  for (const auto& kv : keys) {
    const Key& key = kv.first;
    auto it = speedups_.find(key);
    auto ex = excluded_.find(key);
    const int excluded = ex == excluded_.end() ? 0 : ex->second;
    if (it == speedups_.end() || it->second.empty()) {
      std::fprintf(out, "  %-7s %-6s vs %-20s  geomean      n/a   (0 cases, %d excluded)\n",
                   std::get<0>(key).c_str(), std::get<1>(key).c_str(), std::get<2>(key).c_str(),
                   excluded);
      continue;
    }
    std::fprintf(out, "  %-7s %-6s vs %-20s  geomean %8.4gx  (%zu case%s%s)\n",
                 std::get<0>(key).c_str(), std::get<1>(key).c_str(), std::get<2>(key).c_str(),
                 geomean(it->second), it->second.size(), it->second.size() == 1 ? "" : "s",
                 excluded ? strf(", %d excluded", excluded).c_str() : "");
  }
  // Per group, when the run mixes several (precision, V, N, sparsity) groups.
  std::map<Key, int> group_count;
  for (const auto& kv : groups_) {
    const GroupKey& g = kv.first;
    ++group_count[Key{std::get<0>(g), std::get<1>(g), std::get<2>(g)}];
  }
  bool header = false;
  for (const auto& kv : groups_) {
    const GroupKey& g = kv.first;
    if (group_count[Key{std::get<0>(g), std::get<1>(g), std::get<2>(g)}] < 2) continue;
    if (!header) {
      std::fprintf(out, "per (precision, V, N, sparsity):\n");
      header = true;
    }
    std::fprintf(out, "  %-7s %-6s vs %-20s  %-5s V=%-2lld N=%-5lld s=%-5s geomean %8.4gx  (%zu)\n",
                 std::get<0>(g).c_str(), std::get<1>(g).c_str(), std::get<2>(g).c_str(),
                 std::get<3>(g).c_str(), (long long)std::get<4>(g), (long long)std::get<5>(g),
                 std::get<6>(g).c_str(), geomean(kv.second), kv.second.size());
  }
}

}  // namespace bench
