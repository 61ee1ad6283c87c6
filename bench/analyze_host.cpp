// spx-analyze-host: where a family's analyze spends its host time, stage by stage, on the inputs
// of the analyze table (bench/analyze_inputs.hpp). No GPU: it runs the families' own host
// planning (compiled in, as libspx hides its internals) in the order their build runs it, and
// prints one CSV row per (input, sparsity, stage) with the stage's wall milliseconds.
//
//   spx-analyze-host [--shape RxC] [--sparsity 0.5,0.8,0.95] [--inputs nm_f32,ell_f16,...]
//                    [--n 256] [--reps 1]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include "analyze_inputs.hpp"
#include "families/ell/plan/layout.hpp"
#include "families/nm/plan/choice.hpp"
#include "families/nm/plan/layout.hpp"
#include "families/sptc/plan/reorder.hpp"
#include "families/sptc/plan/storage.hpp"
#include "families/srbcrs/plan/layout.hpp"

namespace {

using bench::analyze::Input;
using bench::analyze::Structure;
using Clock = std::chrono::steady_clock;

double ms_since(Clock::time_point t) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

struct Timer {
  const Structure& s;
  Clock::time_point t = Clock::now();
  double total = 0;
  void lap(const char* stage) {
    const double ms = ms_since(t);
    total += ms;
    std::printf("%s,%.2f,%s,%.3f\n", bench::analyze::input_name(s.input), s.sparsity, stage, ms);
    std::fflush(stdout);
    t = Clock::now();
  }
};

volatile int64_t g_sink = 0;  // keeps results alive

void run_nm(const Structure& s, int64_t n) {
  namespace pnm = spx::plan::nm;
  Timer t{s};
  spx::plan::NmDims dims{s.rows, s.cols, s.n, s.m, s.l};
  spx::plan::validate_nm_indices(dims, s.idx.data());
  t.lap("validate");
  pnm::Inputs in;
  in.dims = dims;
  in.n_cols = n;
  in.b_ld = n;
  in.sm_count = 132;
  in.code_arch = 90;
  in.smem_optin = 232448;
  in.tensor_maps = true;
  in.indices = s.idx.data();
  in.stream_k_blocks_per_sm = [](spx::kernels::nm::TileId, int64_t) { return 1; };
  const pnm::Decision d = pnm::choose(in, pnm::Overrides{});
  t.lap("choose");
  const auto layout = spx::plan::nm_build_layout(d.dims, s.idx.data(), d.staging, d.packing,
                                                 spx::kernels::nm::kPackTileRows, d.pack_capacity);
  g_sink += static_cast<int64_t>(layout.ridx.size());
  t.lap("layout");
  for (int64_t cols = 1; cols <= 4096; cols *= 2) {
    in.n_cols = cols;
    in.b_ld = cols;
    g_sink += pnm::choose(in, pnm::Overrides{}).staging.stages;
  }
  t.lap("choose_every_n");
}

void run_ell(const Structure& s) {
  Timer t{s};
  // What the family's build runs for an ELL input: the layout straight from the ELL arrays.
  const spx::plan::EllLayout l =
      spx::plan::plan_ell_layout_ell(s.rows, s.cols, s.ell_width, s.idx.data());
  t.lap("layout");
  g_sink += static_cast<int64_t>(l.col16().size());
  t.lap("col16");
}

void run_srbcrs(const Structure& s) {
  Timer t{s};
  spx::plan::BcrsView view;
  view.rows = s.rows;
  view.cols = s.cols;
  view.vec_len = s.vec_len;
  view.block_row_ptr = s.ptr.data();
  view.block_col = s.idx.data();
  view.num_vectors = s.entries;
  const auto stats = spx::plan::srbcrs_structure_stats(view);
  g_sink += stats.slots32;
  t.lap("stats");
  spx::plan::SrbcrsConfig cfg;
  cfg.stride = 32;
  cfg.type = SPX_R_8I;
  cfg.host_values = false;
  const auto layout = spx::plan::srbcrs_build_structure(view, cfg);
  g_sink += layout.slots;
  t.lap("layout");
}

void run_sptc(const Structure& s, int64_t n) {
  Timer t{s};
  const spx::plan::SortedBcrs sorted = spx::plan::sptc_sort_structure(
      s.rows, s.cols, s.vec_len, s.entries, s.ptr.data(), s.idx.data());
  t.lap("sort");
  spx::plan::SptcReorderConfig cfg;
  cfg.row_order = spx::plan::sptc_default_row_order(n);
  std::array<double, spx::plan::kSptcMaxBlockTiles> costs{};
  const spx::plan::SptcLayout layout =
      spx::plan::choose_block_tile(sorted.view(), cfg, spx::plan::sptc_b_row_cost(n), &costs);
  std::printf("# block tile %lld, costs %.0f %.0f %.0f %.0f, retries %lld\n",
              static_cast<long long>(layout.block_tile), costs[0], costs[1], costs[2], costs[3],
              static_cast<long long>(layout.stats.retries));
  t.lap("choose_block_tile");
  const spx::plan::SptcStorage storage = spx::plan::sptc_build_storage(layout, sorted.vector_slot);
  t.lap("storage");
  g_sink += static_cast<int64_t>(spx::plan::sptc_block_records(storage).size());
  t.lap("block_records");
}

std::vector<std::string> split(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream ss(text);
  for (std::string item; std::getline(ss, item, ',');) out.push_back(item);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  int64_t rows = 11008, cols = 4096, n = 256;
  int reps = 1;
  std::vector<double> levels = {0.5, 0.8, 0.95};
  std::vector<std::string> inputs;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string arg = argv[i], value = argv[i + 1];
    if (arg == "--shape") {
      std::sscanf(value.c_str(), "%ldx%ld", &rows, &cols);
    } else if (arg == "--sparsity") {
      levels.clear();
      for (const std::string& v : split(value)) levels.push_back(std::atof(v.c_str()));
    } else if (arg == "--inputs") {
      inputs = split(value);
    } else if (arg == "--n") {
      n = std::atol(value.c_str());
    } else if (arg == "--reps") {
      reps = std::atoi(value.c_str());
    } else {
      std::fprintf(stderr, "unknown option %s\n", arg.c_str());
      return 2;
    }
  }
  std::printf("input,sparsity,stage,ms\n");
  for (int k = 0; k < bench::analyze::kInputCount; ++k) {
    const Input in = static_cast<Input>(k);
    const std::string name = bench::analyze::input_name(in);
    bool wanted = inputs.empty();
    for (const std::string& w : inputs) wanted = wanted || w == name;
    if (!wanted) continue;
    for (double level : levels) {
      const Structure s = bench::analyze::make_structure(in, rows, cols, level);
      for (int r = 0; r < reps; ++r) {
        switch (in) {
          case Input::NmF32: run_nm(s, n); break;
          case Input::EllF16:
          case Input::EllF32: run_ell(s); break;
          case Input::SrbcrsBcrs:
          case Input::SrbcrsCsr: run_srbcrs(s); break;
          case Input::SptcBcrs:
          case Input::SptcCsr: run_sptc(s, n); break;
        }
      }
    }
  }
  return 0;
}
