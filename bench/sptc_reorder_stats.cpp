// spx-sptc-stats: how often the SpTC multi-granularity reorder succeeds on DLMC matrices, per
// BLOCK_TILE, vector length and sparsity (the Jigsaw paper's Fig. 11), and what it costs. Host
// only (no GPU): it runs the plan's own reorder (formats/sptc_reorder) on each .smtx file
// dilated to V x 1 vectors.
//
// A reorder "succeeds" on a matrix, as in the paper, when every panel satisfies 2:4 without its
// reordered k (kept columns + retry padding, in whole 32-wide k tiles) exceeding the matrix's k.
//
//   spx-sptc-stats --dlmc DIR [--vec 2,4,8] [--sparsity 0.8,0.9,0.95,0.98] [--csv FILE]
//                  [--threads T] [--max-files N]
//
// One CSV row per (sparsity, V, BLOCK_TILE): matrices, success rate, mean share of panels within
// k, mean retries per 16-column unit, padding share of the reordered k, mean reorder ms, and how
// often the plan's cost model picks that BLOCK_TILE.
#include <algorithm>
#include <array>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <cmath>
#include <filesystem>

#include "formats/smtx.hpp"
#include "families/sptc/plan/reorder.hpp"

namespace {

struct Options {
  std::string dlmc, csv;
  std::vector<int64_t> vecs = {2, 4, 8};
  std::vector<double> sparsities = {0.8, 0.9, 0.95, 0.98};
  int threads = 0;
  int64_t max_files = 0;  ///< per sparsity level; 0 = all
};

template <class T>
bool parse_list(const char* text, std::vector<T>* out) {
  out->clear();
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    std::stringstream one(item);
    T v;
    if (!(one >> v)) return false;
    out->push_back(v);
  }
  return !out->empty();
}

/// Sorted .smtx files under dir whose folder names the sparsity `level` ("…/0.9/x.smtx").
std::vector<std::string> smtx_files(const std::string& dir, double level) {
  namespace fs = std::filesystem;
  std::vector<std::string> out;
  for (const auto& e : fs::recursive_directory_iterator(dir)) {
    if (!e.is_regular_file() || e.path().extension() != ".smtx") continue;
    const std::string folder = e.path().parent_path().filename().string();
    char* end = nullptr;
    const double v = std::strtod(folder.c_str(), &end);
    if (end != folder.c_str() && *end == '\0' && std::fabs(v - level) < 1e-9)
      out.push_back(e.path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

void usage(FILE* f) {
  std::fprintf(f,
               "usage: spx-sptc-stats --dlmc DIR [--vec 2,4,8] [--sparsity 0.8,0.9,0.95,0.98]\n"
               "                      [--csv FILE] [--threads T] [--max-files N]\n");
}

/// Sums over the matrices of one (sparsity, V, BLOCK_TILE).
struct Cell {
  int64_t matrices = 0, successes = 0, chosen = 0;
  double panel_share = 0, retries_per_unit = 0, padding_share = 0, ms = 0;
};

}  // namespace

int main(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const char* v = i + 1 < argc ? argv[i + 1] : nullptr;
    auto need = [&]() {
      if (v == nullptr) {
        std::fprintf(stderr, "spx-sptc-stats: %s needs a value\n", a.c_str());
        std::exit(2);
      }
      ++i;
      return v;
    };
    if (a == "--dlmc") o.dlmc = need();
    else if (a == "--csv") o.csv = need();
    else if (a == "--vec") { if (!parse_list(need(), &o.vecs)) { usage(stderr); return 2; } }
    else if (a == "--sparsity") { if (!parse_list(need(), &o.sparsities)) { usage(stderr); return 2; } }
    else if (a == "--threads") o.threads = std::atoi(need());
    else if (a == "--max-files") o.max_files = std::atoll(need());
    else if (a == "-h" || a == "--help") { usage(stdout); return 0; }
    else { usage(stderr); return 2; }
  }
  if (o.dlmc.empty()) {
    usage(stderr);
    return 2;
  }
  try {
    constexpr int kTiles = spx::plan::kSptcMaxBlockTiles;
    const int tiles[kTiles] = {16, 32, 64, 128};  // 128: V >= 2 only
    std::map<std::pair<double, int64_t>, std::array<Cell, kTiles>> cells;
    for (double level : o.sparsities) {
      std::vector<std::string> files = smtx_files(o.dlmc, level);
      if (o.max_files > 0 && static_cast<int64_t>(files.size()) > o.max_files)
        files.resize(static_cast<size_t>(o.max_files));
      std::fprintf(stderr, "sparsity %.2f: %zu files\n", level, files.size());
      for (const std::string& file : files) {
        const spx::plan::CsrPattern f = spx::plan::read_smtx(file);
        for (int64_t v : o.vecs) {
          // Dilation to V x 1 vectors is the BCRS(V) reading of the file's rows.
          spx::plan::BcrsView view;
          view.rows = f.rows * v;
          view.cols = f.cols;
          view.vec_len = v;
          view.block_row_ptr = f.row_ptr.data();
          view.block_col = f.col_ind.data();
          view.num_vectors = static_cast<int64_t>(f.col_ind.size());
          spx::plan::SptcReorderConfig cfg;
          cfg.threads = o.threads;
          std::array<Cell, kTiles>& row = cells[{level, v}];
          std::array<double, kTiles> costs{};
          const int count = v >= 2 ? kTiles : kTiles - 1;
          for (int t = 0; t < count; ++t) {
            cfg.block_tile = tiles[t];
            const spx::plan::SptcLayout L = spx::plan::sptc_reorder(view, cfg);
            const spx::plan::SptcReorderStats& s = L.stats;
            Cell& c = row[static_cast<size_t>(t)];
            ++c.matrices;
            c.successes += s.panels_within_cols == L.panels ? 1 : 0;
            c.panel_share += L.panels > 0 ? static_cast<double>(s.panels_within_cols) / L.panels : 1.0;
            c.retries_per_unit += s.units > 0 ? static_cast<double>(s.retries) / s.units : 0.0;
            const double k_total = static_cast<double>(L.col_idx.size());
            c.padding_share += k_total > 0 ? s.padding_columns / k_total : 0.0;
            c.ms += s.seconds * 1e3;
            costs[static_cast<size_t>(t)] = spx::plan::sptc_layout_cost(L, spx::plan::kSptcBRowCost);
          }
          // The plan's choice (choose_block_tile's rule: lowest cost, ties to the larger tile).
          int best = 0;
          for (int t = 1; t < count; ++t)
            if (costs[static_cast<size_t>(t)] <= costs[static_cast<size_t>(best)]) best = t;
          ++row[static_cast<size_t>(best)].chosen;
        }
      }
    }
    FILE* out = o.csv.empty() ? stdout : std::fopen(o.csv.c_str(), "w");
    if (out == nullptr) {
      std::fprintf(stderr, "spx-sptc-stats: cannot write %s\n", o.csv.c_str());
      return 1;
    }
    std::fprintf(out, "sparsity,vec,block_tile,matrices,success_rate,panels_within_k,"
                      "retries_per_unit,padding_share,reorder_ms_mean,chosen_share\n");
    for (const auto& [key, row] : cells)
      for (int t = 0; t < kTiles; ++t) {
        const Cell& c = row[static_cast<size_t>(t)];
        if (c.matrices == 0) continue;  // BLOCK_TILE 128 at V = 1
        const double n = std::max<int64_t>(1, c.matrices);
        std::fprintf(out, "%.2f,%lld,%d,%lld,%.4f,%.4f,%.4f,%.4f,%.2f,%.4f\n", key.first,
                     static_cast<long long>(key.second), tiles[t],
                     static_cast<long long>(c.matrices), c.successes / n, c.panel_share / n,
                     c.retries_per_unit / n, c.padding_share / n, c.ms / n, c.chosen / n);
      }
    if (out != stdout) std::fclose(out);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "spx-sptc-stats: %s\n", e.what());
    return 1;
  }
  return 0;
}
