// The SpTC reorder family (Jigsaw: reorder to 2:4, mma.sp m16n8k32) against the CPU reference,
// forced with SPX_SPMM_ALG_SPTC_REORDER: CSR and BCRS with V in {1, 2, 4, 8, 16}; fp16 and bf16
// inputs with C of the input type or fp32; both orders of B (row-major: 16-byte cp.async gather
// when ld % 8 == 0, element gather otherwise; column-major: transposed into the workspace) and
// of C; tails in m, n and k; empty rows, empty panels and an all-zero matrix; alpha / beta
// (beta = 0 on a NaN-poisoned C); every BLOCK_TILE (SPX_SPTC_BLOCK_TILE), every candidate
// (SPX_SPTC_FORCE_CANDIDATE: BN 128 / 64, tiles per block, resident A) and several n tiles
// streamed through one block (SPX_SPTC_TILES_PER_BLOCK); BLOCK_TILE 128 (eight warps, V >= 2);
// clustered row orders (SPX_SPTC_CLUSTER=1: C rows written through the row map, both orders);
// the resident-A kernel (SPX_SPTC_RESIDENT=1, with aligned and unaligned B: the plan of the
// latter names and runs the streaming kernel); a deep pipeline (many k steps per panel); device
// pointer mode; spxSpMM_search; spxPlanUpdateValues; plan info; DEFAULT's choice; unsorted
// columns; refusals and bad structure. Tolerance: ref::tolerance (the inputs are exact in their
// type; fp32 accumulation over the row's products; rounding of the output type).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cuda_fp16.h>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "env_override.hpp"
#include "runner.hpp"
#include "spx_catch.hpp"
#include "sptc_mma_probe.hpp"

using namespace spx::test;
namespace ref = spx::ref;

namespace {


std::string str(const char* chars, size_t cap) { return std::string(chars, strnlen(chars, cap)); }

struct Case {
  HostSparse A;
  HostDense B, C;
  ref::Scalars s;
  std::string what;
};

struct RunOptions {
  int block_tile = 0;   ///< 16 / 32 / 64 / 128: SPX_SPTC_BLOCK_TILE
  int cluster = -1;     ///< 0 / 1: SPX_SPTC_CLUSTER (identity / clustered row order)
  bool resident = false;  ///< SPX_SPTC_RESIDENT=1
  int candidate = -1;   ///< >= 0: SPX_SPTC_FORCE_CANDIDATE
  int tiles_per_block = 0;  ///< > 0: SPX_SPTC_TILES_PER_BLOCK
  bool search = false;
  bool device_scalars = false;
  spxSpMMAlg_t alg = SPX_SPMM_ALG_SPTC_REORDER;
};

/// Analyzes and runs one case; checks the result against `e`, C's guards and the plan info.
spxPlanInfo_t run_case(spxHandle_t h, const Case& c, const ref::Expected& e, const RunOptions& o) {
  const std::string what = c.what + (o.block_tile ? ", BT " + std::to_string(o.block_tile) : "") +
                           (o.candidate >= 0 ? ", candidate " + std::to_string(o.candidate) : "") +
                           (o.tiles_per_block ? ", tiles/block " + std::to_string(o.tiles_per_block) : "") +
                           (o.cluster >= 0 ? ", cluster " + std::to_string(o.cluster) : "") +
                           (o.resident ? ", resident A" : "") +
                           (o.search ? ", searched" : "") +
                           (o.device_scalars ? ", device scalars" : "");
  INFO(what);
  const DeviceSparse A = to_device(c.A);
  const DeviceDense B = to_device(c.B);
  HostDense c_init = c.C;
  guard_padding(c_init);
  if (c.s.beta == 0) poison_dense(c_init);
  DeviceDense C = to_device(c_init, 64);

  spxPlan_t raw = nullptr;
  {
    EnvOverride bt("SPX_SPTC_BLOCK_TILE", o.block_tile ? std::to_string(o.block_tile) : "");
    EnvOverride cand("SPX_SPTC_FORCE_CANDIDATE", o.candidate >= 0 ? std::to_string(o.candidate) : "");
    EnvOverride tpb("SPX_SPTC_TILES_PER_BLOCK",
                    o.tiles_per_block > 0 ? std::to_string(o.tiles_per_block) : "");
    EnvOverride cl("SPX_SPTC_CLUSTER", o.cluster >= 0 ? std::to_string(o.cluster) : "");
    EnvOverride res("SPX_SPTC_RESIDENT", o.resident ? "1" : "");
    REQUIRE_SPX(spxSpMM_analyze(h, A.get(), B.get(), C.get(), SPX_R_32F, o.alg, &raw));
  }
  UniquePlan plan(raw);
  spxPlanInfo_t info{};
  REQUIRE_SPX(spxPlanGetInfo(plan.get(), &info));
  INFO("config: " << str(info.config, sizeof info.config));
  CHECK(info.family == SPX_SPMM_ALG_SPTC_REORDER);
  CHECK(str(info.kernel, sizeof info.kernel) ==
        (c.A.type == SPX_R_16BF ? "sptc_mma_sp_bf16" : "sptc_mma_sp_f16"));
  if (o.block_tile)
    CHECK(str(info.config, sizeof info.config).find("BLOCK_TILE " + std::to_string(o.block_tile)) == 0);
  if (o.tiles_per_block)
    CHECK(str(info.config, sizeof info.config).find(" x" + std::to_string(o.tiles_per_block) + " ") !=
          std::string::npos);
  if (o.cluster == 1 && c.A.rows > (o.block_tile ? o.block_tile : 16))
    CHECK(str(info.config, sizeof info.config).find("clustered rows") != std::string::npos);
  if (o.cluster == 0)
    CHECK(str(info.config, sizeof info.config).find("clustered rows") == std::string::npos);
  // Resident A where SPX_SPTC_RESIDENT=1 can run it: aligned B (column-major through the
  // workspace, or row-major with ld % 8 == 0: the buffers are cudaMalloc'd); never otherwise.
  const bool b_aligned = c.B.order == SPX_ORDER_COL || c.B.ld % 8 == 0;
  if (o.resident && o.candidate < 0 && o.block_tile >= 64 && c.B.cols > 64 && c.A.cols <= 512 &&
      b_aligned)
    CHECK(str(info.config, sizeof info.config).find("resident A") != std::string::npos);
  if (!b_aligned) {
    CHECK(str(info.config, sizeof info.config).find("resident A") == std::string::npos);
    CHECK(str(info.config, sizeof info.config).find("wgmma.sp") == std::string::npos);
  }
  CHECK(info.nnz == c.A.value_slots());
  CHECK(info.padded_nnz >= 0);
  CHECK(info.values_bytes == static_cast<size_t>(info.padded_nnz) * 2);
  CHECK(info.columns_skipped >= 0);
  CHECK(info.reorder_retries >= 0);
  if (c.A.cols > 0 && c.A.value_slots() > 0) CHECK(info.metadata_bytes > 0);
  CHECK(info.predicted_speedup > 0);
  CHECK(info.workspace_bytes == (c.B.order == SPX_ORDER_COL
                                     ? static_cast<size_t>(c.B.rows * ((c.B.cols + 7) / 8 * 8) * 2)
                                     : 0));
  DeviceBuffer workspace(info.workspace_bytes);

  const ScalarBytes alpha = make_scalar(c.s.alpha, c.C.type), beta = make_scalar(c.s.beta, c.C.type);
  DeviceBuffer d_alpha, d_beta;
  const void* pa = alpha.get();
  const void* pb = beta.get();
  if (o.device_scalars) {
    d_alpha = DeviceBuffer(std::vector<uint8_t>(alpha.bytes, alpha.bytes + 4));
    d_beta = DeviceBuffer(std::vector<uint8_t>(beta.bytes, beta.bytes + 4));
    pa = d_alpha.get();
    pb = d_beta.get();
    REQUIRE_SPX(spxSetPointerMode(h, SPX_POINTER_MODE_DEVICE));
  }
  if (o.search) {
    DeviceDense scratch = to_device(c_init);
    REQUIRE_SPX(spxSpMM_search(h, plan.get(), pa, A.get(), B.get(), pb, scratch.get(), workspace.get()));
    REQUIRE_SPX(spxPlanGetInfo(plan.get(), &info));
    if (info.candidates > 1) CHECK(info.searched == 1);
  }
  const spxStatus_t st = spxSpMM(h, plan.get(), pa, A.get(), B.get(), pb, C.get(), workspace.get());
  spxSetPointerMode(h, SPX_POINTER_MODE_HOST);
  REQUIRE(st == SPX_STATUS_SUCCESS);
  device_sync();
  const CheckResult r = check_dense_output(download(C, c_init), c_init, e);
  INFO(r.report);
  CHECK(r.ok);
  CHECK(C.buf.tail_intact());
  return info;
}

struct Types {
  spxDataType_t in, out;
};
const Types kTypes[] = {{SPX_R_16F, SPX_R_16F},
                        {SPX_R_16F, SPX_R_32F},
                        {SPX_R_16BF, SPX_R_16BF},
                        {SPX_R_16BF, SPX_R_32F}};
const double kAlphaBeta[][2] = {{1, 0}, {0.5, -2}, {-1.5, 1}};

Case make_case(Rng& rng, const FormatSpec& f, int64_t m, int64_t k, int64_t n, Types t,
               spxOrder_t bo, spxOrder_t co, int ab, int64_t ld_pad, double density) {
  Case c;
  const ValueDist dist = operand_dist(t.in, k, t.out);
  m = round_up(m, f.row_unit());
  c.A = random_sparse(rng, f, m, k, dist, density);
  c.B = random_dense(rng, k, n, bo, dist, ld_pad);
  c.C = random_dense(rng, m, n, co, output_dist(t.out), ld_pad);
  c.s = {kAlphaBeta[ab][0], kAlphaBeta[ab][1]};
  c.what = f.name() + " " + type_name(t.in) + "->" + type_name(t.out) + " " + std::to_string(m) +
           "x" + std::to_string(k) + "x" + std::to_string(n) + " density " +
           std::to_string(density) + " B " + order_name(bo) + " C " + order_name(co) + " alpha " +
           std::to_string(c.s.alpha) + " beta " + std::to_string(c.s.beta) + " ld_pad " +
           std::to_string(ld_pad);
  return c;
}

std::vector<FormatSpec> sptc_formats() {
  return {csr_spec(), bcrs_spec(1), bcrs_spec(2), bcrs_spec(4), bcrs_spec(8), bcrs_spec(16)};
}

}  // namespace

namespace {

uint16_t f16_bits(float x) {
  const __half h = __float2half_rn(x);
  uint16_t u;
  std::memcpy(&u, &h, 2);
  return u;
}
uint32_t pack2(float lo, float hi) {
  return static_cast<uint32_t>(f16_bits(lo)) | static_cast<uint32_t>(f16_bits(hi)) << 16;
}

}  // namespace

TEST_CASE("SpTC: mma.sp m16n8k32 fragment and metadata layouts the storage relies on", "[sptc]") {
  // A 16 x 32 with two nonzeros at random positions of every chunk of 4, B 32 x 8: small
  // integers (exact in f16 and in the f32 result). The registers are built exactly as
  // formats/sptc_storage lays them out: A lane 4 g + t = {(g, chunk t), (g + 8, chunk t),
  // (g, chunk t + 4), (g + 8, chunk t + 4)}, two values each, lower position first; metadata
  // lanes 4 g + 2 sel + j: row g chunks 4 j .. 4 j + 3 in bits [0, 16), row g + 8 in [16, 32).
  // A second, wrong layout (lane 4 g + 2 sel: all 8 chunks of row g; + 1: row g + 8) is run too
  // and must disagree, so the check can fail.
  Rng rng(70000);
  float a[16][32] = {}, b[32][8];
  int pos[16][8][2];
  for (int r = 0; r < 16; ++r)
    for (int c = 0; c < 8; ++c) {
      const int i0 = static_cast<int>(rng.uniform_int(0, 2));
      const int i1 = static_cast<int>(rng.uniform_int(i0 + 1, 3));
      pos[r][c][0] = i0;
      pos[r][c][1] = i1;
      a[r][4 * c + i0] = static_cast<float>(rng.uniform_int(1, 7));
      a[r][4 * c + i1] = -static_cast<float>(rng.uniform_int(1, 7));
    }
  for (auto& row : b)
    for (float& x : row) x = static_cast<float>(rng.uniform_int(-4, 4));
  uint32_t ra[128], rb[128];
  for (int l = 0; l < 32; ++l) {
    const int g = l / 4, t = l % 4;
    for (int reg = 0; reg < 4; ++reg) {
      const int r = g + (reg & 1) * 8, c = t + (reg >> 1) * 4;
      ra[4 * l + reg] = pack2(a[r][4 * c + pos[r][c][0]], a[r][4 * c + pos[r][c][1]]);
      rb[4 * l + reg] = pack2(b[8 * reg + 2 * t][g], b[8 * reg + 2 * t + 1][g]);
    }
  }
  auto nib = [&](int r, int c) { return static_cast<uint32_t>(pos[r][c][0] | pos[r][c][1] << 2); };
  for (int sel = 0; sel < 2; ++sel)
    for (int layout = 0; layout < 2; ++layout) {
      uint32_t re[32];
      for (int l = 0; l < 32; ++l) {
        const int g = l / 4, j = l % 4 - 2 * sel;
        uint32_t w = 0xEEEEEEEEu;  // valid (positions 2, 3) but wrong: lanes the selector skips
        if (j == 0 || j == 1) {
          w = 0;
          for (int c = 0; c < 4; ++c) {
            if (layout == 0) {
              w |= nib(g, 4 * j + c) << (4 * c);
              w |= nib(g + 8, 4 * j + c) << (16 + 4 * c);
            } else {
              w |= nib(g + 8 * j, c) << (4 * c);
              w |= nib(g + 8 * j, c + 4) << (16 + 4 * c);
            }
          }
        }
        re[l] = w;
      }
      float d[128];
      REQUIRE(sptc_probe_mma_sp(ra, rb, re, sel, d) == 0);
      int wrong = 0;
      for (int l = 0; l < 32; ++l)
        for (int i = 0; i < 4; ++i) {
          const int r = l / 4 + (i >= 2 ? 8 : 0), col = 2 * (l % 4) + (i & 1);
          double want = 0;
          for (int q = 0; q < 32; ++q) want += static_cast<double>(a[r][q]) * b[q][col];
          wrong += d[4 * l + i] == static_cast<float>(want) ? 0 : 1;
        }
      INFO("selector " << sel << ", layout " << (layout == 0 ? "libspx" : "alternative") << ": "
                       << wrong << " of 128 outputs wrong");
      if (layout == 0)
        CHECK(wrong == 0);
      else
        CHECK(wrong > 0);
    }
}

/// Vectors of the format (CSR: 1).
int64_t vec_of(const FormatSpec& f) { return f.format == SPX_FORMAT_BCRS ? f.vec_len : 1; }

TEST_CASE("SpTC every V, BLOCK_TILE and candidate; fp16 / bf16; orders; tails", "[sptc]") {
  UniqueHandle h = make_handle();
  const int64_t ns[] = {1, 7, 33, 64, 72, 130, 256};
  const double densities[] = {0.05, 0.2, 0.45, 0.8};
  const spxOrder_t orders[][2] = {{SPX_ORDER_ROW, SPX_ORDER_ROW},
                                  {SPX_ORDER_COL, SPX_ORDER_COL},
                                  {SPX_ORDER_ROW, SPX_ORDER_COL},
                                  {SPX_ORDER_COL, SPX_ORDER_ROW}};
  uint64_t seed = 71000;
  int variant = 0;
  for (const FormatSpec& f : sptc_formats())
    for (const Types& t : kTypes)
      for (int bt : {16, 32, 64, 128}) {
        if (bt / vec_of(f) > 64) continue;  // BLOCK_TILE 128 needs V >= 2
        Rng rng(seed++);
        const int oi = variant % 4;
        const int64_t n = ns[variant % 7];
        const int64_t m = 50 + 23 * (variant % 5) + (bt == 128 ? 150 : 0);  // row tails
        const int64_t k = 37 + 41 * (variant % 6);   // k tails (not a multiple of 4 or 32)
        const int64_t ld_pad = variant % 5 == 4 ? 3 : 0;
        const Case c = make_case(rng, f, m, k, n, t, orders[oi][0], orders[oi][1], variant % 3,
                                 ld_pad, densities[variant % 4]);
        const ref::Expected e = ref::spmm(c.A, c.B, c.C, c.s);
        REQUIRE_FALSE(vacuous_expectation(e));
        RunOptions o;
        o.block_tile = bt;
        o.cluster = variant % 2;  // half the cases through a clustered row order
        const spxPlanInfo_t info = run_case(h.get(), c, e, o);
        for (int i = 0; i < info.candidates; ++i) {
          o.candidate = i;
          run_case(h.get(), c, e, o);
        }
        // Several n tiles streamed through one block's pipeline (the rule picks one tile per
        // block at these sizes): 2 and 3 tiles, n not a multiple of the block's span; with A
        // resident where the BLOCK_TILE has that kernel.
        o.candidate = -1;
        o.tiles_per_block = 2 + variant % 2;
        run_case(h.get(), c, e, o);
        if (bt >= 64) {
          o.resident = true;
          run_case(h.get(), c, e, o);
        }
        ++variant;
      }
}

TEST_CASE("SpTC deep pipeline, aligned and element B gathers, every BLOCK_TILE", "[sptc]") {
  // k = 1000 at density 0.3: tens of k steps per panel (the index ring wraps many times).
  UniqueHandle h = make_handle();
  uint64_t seed = 72000;
  for (const FormatSpec& f : {csr_spec(), bcrs_spec(4), bcrs_spec(16)})
    for (int bt : {16, 32, 64, 128})
      for (int64_t ld_pad : {0, 3}) {  // row-major B: ld 136 (aligned) / 139 (element gather)
        if (bt / vec_of(f) > 64) continue;
        Rng rng(seed++);
        const Types t = kTypes[seed % 4];
        const Case c = make_case(rng, f, 257, 1000, 136, t, SPX_ORDER_ROW,
                                 ld_pad ? SPX_ORDER_COL : SPX_ORDER_ROW,
                                 static_cast<int>(seed % 3), ld_pad, 0.3);
        const ref::Expected e = ref::spmm(c.A, c.B, c.C, c.s);
        RunOptions o;
        o.block_tile = bt;
        o.cluster = static_cast<int>(seed % 2);
        run_case(h.get(), c, e, o);
        o.tiles_per_block = 3;  // n = 136: 2 tiles of BN 128 or 3 of BN 64 in one block
        run_case(h.get(), c, e, o);
        if (bt >= 64) {  // long panels: A of up to 16 pairs resident (ld_pad 3: streaming)
          o.resident = true;
          o.tiles_per_block = 2;
          run_case(h.get(), c, e, o);
        }
      }
}

TEST_CASE("SpTC warpgroup kernel (wgmma.sp, sm_90a) on compute capability 9.0, both B layouts",
          "[sptc]") {
#if defined(SPX_TEST_SPTC_SM90A)
  int dev = 0, major = 0, minor = 0;
  REQUIRE(cudaGetDevice(&dev) == cudaSuccess);
  REQUIRE(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev) == cudaSuccess);
  REQUIRE(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev) == cudaSuccess);
  if (major != 9 || minor != 0) {
    WARN("not a compute capability 9.0 device: the warpgroup kernel is not used");
    return;
  }
  // Long panels (tens of k steps), several n tiles per block, n tails, both C types; aligned
  // row-major B (the kernel's only B). SPX_SPTC_WGMMA=1 makes it the plan's choice wherever it
  // fits, 0 gives the mma.sync kernel back; SPX_SPTC_WG_INTERLEAVE=1 stages B in the no-swizzle
  // layout (the plan's configuration says "interleaved B").
  EnvOverride on("SPX_SPTC_WGMMA", "1");
  UniqueHandle h = make_handle();
  uint64_t seed = 77000;
  for (const FormatSpec& f : {bcrs_spec(8), bcrs_spec(2), csr_spec()})
    for (int bt : {64, 128})
      for (const Types& t : kTypes) {
        if (bt / vec_of(f) > 64) continue;
        Rng rng(seed++);
        // n = 296: 16-byte aligned rows of B (ld = n), a 40-column tail after two BN 128 tiles.
        const Case c = make_case(rng, f, 333, 900, 296, t, SPX_ORDER_ROW, SPX_ORDER_ROW,
                                 static_cast<int>(seed % 3), 0, 0.15);
        const ref::Expected e = ref::spmm(c.A, c.B, c.C, c.s);
        RunOptions o;
        o.block_tile = bt;
        o.cluster = static_cast<int>(seed % 2);
        spxPlanInfo_t info = run_case(h.get(), c, e, o);
        CHECK(str(info.config, sizeof info.config).find("wgmma.sp") != std::string::npos);
        CHECK(str(info.config, sizeof info.config).find("interleaved B") == std::string::npos);
        o.tiles_per_block = 2;
        info = run_case(h.get(), c, e, o);
        CHECK(str(info.config, sizeof info.config).find("wgmma.sp") != std::string::npos);
        o.tiles_per_block = 0;
        {
          EnvOverride interleave("SPX_SPTC_WG_INTERLEAVE", "1");
          info = run_case(h.get(), c, e, o);
          CHECK(str(info.config, sizeof info.config).find("wgmma.sp interleaved B") !=
                std::string::npos);
        }
        EnvOverride off("SPX_SPTC_WGMMA", "0");
        info = run_case(h.get(), c, e, o);
        CHECK(str(info.config, sizeof info.config).find("wgmma.sp") == std::string::npos);
      }
#else
  WARN("the library was not built for sm_90: no warpgroup kernel");
#endif
}

TEST_CASE("SpTC empty rows, empty panels, all-zero matrix, unsorted columns", "[sptc]") {
  UniqueHandle h = make_handle();
  Rng rng(73000);
  const Types t = kTypes[1];
  // All-zero matrix: C = beta * C (alpha * 0), every panel empty.
  for (double beta : {0.0, -2.0}) {
    Case c = make_case(rng, bcrs_spec(8), 96, 100, 140, t, SPX_ORDER_ROW, SPX_ORDER_ROW, 0, 0, 0.0);
    REQUIRE(c.A.idx.empty());
    c.s = {1.5, beta};
    run_case(h.get(), c, ref::spmm(c.A, c.B, c.C, c.s), {});
    RunOptions o;
    o.tiles_per_block = 2;
    run_case(h.get(), c, ref::spmm(c.A, c.B, c.C, c.s), o);
  }
  // Only the first and the last block rows hold vectors: empty panels in between.
  {
    Case c = make_case(rng, bcrs_spec(16), 160, 90, 50, t, SPX_ORDER_ROW, SPX_ORDER_COL, 1, 0, 0.3);
    HostSparse& a = c.A;
    const int64_t brows = a.rows / 16;
    std::vector<int32_t> ptr = {0}, idx;
    for (int64_t br = 0; br < brows; ++br) {
      if (br == 0 || br == brows - 1)
        for (int32_t col = static_cast<int32_t>(br % 3); col < a.cols; col += 3) idx.push_back(col);
      ptr.push_back(static_cast<int32_t>(idx.size()));
    }
    a.ptr = ptr;
    a.idx = idx;
    a.values = random_values(rng, operand_dist(t.in, a.cols, t.out), a.value_slots());
    for (int bt : {16, 64})
      for (int tpb : {0, 2}) {
        RunOptions o;
        o.block_tile = bt;
        o.tiles_per_block = tpb;
        run_case(h.get(), c, ref::spmm(c.A, c.B, c.C, c.s), o);
      }
  }
  // Unsorted columns within rows (CSR and BCRS): the plan sorts them, values follow.
  for (const FormatSpec& f : {csr_spec(), bcrs_spec(2)}) {
    Case c = make_case(rng, f, 70, 120, 33, kTypes[2], SPX_ORDER_COL, SPX_ORDER_ROW, 2, 0, 0.25);
    HostSparse& a = c.A;
    const int64_t v = a.vec_len > 0 && a.format == SPX_FORMAT_BCRS ? a.vec_len : 1;
    const size_t eb = 2;
    for (size_t r = 0; r + 1 < a.ptr.size(); ++r) {
      const int32_t b = a.ptr[r], e = a.ptr[r + 1];
      for (int32_t i = b, j = e - 1; i < j; ++i, --j) {  // reverse the row, values with it
        std::swap(a.idx[i], a.idx[j]);
        for (int64_t x = 0; x < static_cast<int64_t>(v * eb); ++x)
          std::swap(a.values[i * v * eb + x], a.values[j * v * eb + x]);
      }
    }
    c.what += ", rows reversed";
    run_case(h.get(), c, ref::spmm(c.A, c.B, c.C, c.s), {});
  }
}

TEST_CASE("SpTC device pointer mode, search, DEFAULT's choice", "[sptc]") {
  UniqueHandle h = make_handle();
  Rng rng(74000);
  for (const Types& t : kTypes) {
    const Case c = make_case(rng, bcrs_spec(8), 200, 300, 200, t, SPX_ORDER_ROW, SPX_ORDER_ROW,
                             1, 0, 0.15);
    const ref::Expected e = ref::spmm(c.A, c.B, c.C, c.s);
    RunOptions o;
    o.device_scalars = true;
    run_case(h.get(), c, e, o);
    o = {};
    o.search = true;
    run_case(h.get(), c, e, o);
    o = {};
    o.alg = SPX_SPMM_ALG_DEFAULT;  // BCRS fp16 / bf16: DEFAULT takes the SpTC family
    run_case(h.get(), c, e, o);
  }
  // CSR bf16 (the ELL family takes no bf16): DEFAULT takes SpTC too.
  const Case c = make_case(rng, csr_spec(), 90, 64, 20, kTypes[3], SPX_ORDER_COL, SPX_ORDER_COL,
                           0, 0, 0.3);
  RunOptions o;
  o.alg = SPX_SPMM_ALG_DEFAULT;
  run_case(h.get(), c, ref::spmm(c.A, c.B, c.C, c.s), o);
}

TEST_CASE("SpTC spxPlanUpdateValues re-packs values without re-analysis", "[sptc]") {
  UniqueHandle h = make_handle();
  uint64_t seed = 75000;
  for (const Types& t : kTypes)
    for (const FormatSpec& f : {csr_spec(), bcrs_spec(4)}) {
      Rng rng(seed++);
      Case c = make_case(rng, f, 80, 150, 48, t, SPX_ORDER_ROW, SPX_ORDER_ROW, 1, 0, 0.3);
      INFO(c.what);
      DeviceSparse A = to_device(c.A);
      const DeviceDense B = to_device(c.B);
      DeviceDense C = to_device(c.C);
      spxPlan_t raw = nullptr;
      REQUIRE_SPX(spxSpMM_analyze(h.get(), A.get(), B.get(), C.get(), SPX_R_32F,
                                  SPX_SPMM_ALG_SPTC_REORDER, &raw));
      UniquePlan plan(raw);
      spxPlanInfo_t before{};
      REQUIRE_SPX(spxPlanGetInfo(plan.get(), &before));
      HostSparse a2 = c.A;
      a2.values = random_values(rng, operand_dist(t.in, 150, t.out), a2.value_slots());
      A.values.upload(a2.values);
      REQUIRE_SPX(spxPlanUpdateValues(h.get(), plan.get(), A.get()));
      spxPlanInfo_t after{};
      REQUIRE_SPX(spxPlanGetInfo(plan.get(), &after));
      CHECK(after.analyze_ms == before.analyze_ms);  // no new analysis
      const ScalarBytes alpha = make_scalar(c.s.alpha, c.C.type), beta = make_scalar(c.s.beta, c.C.type);
      REQUIRE_SPX(spxSpMM(h.get(), plan.get(), alpha.get(), A.get(), B.get(), beta.get(), C.get(), nullptr));
      device_sync();
      const ref::Expected e = ref::spmm(a2, c.B, c.C, c.s);
      const CheckResult r = check_dense_output(download(C, c.C), c.C, e);
      INFO(r.report);
      CHECK(r.ok);
    }
}

TEST_CASE("SpTC refusals and bad structure", "[sptc][bad]") {
  UniqueHandle h = make_handle();
  Rng rng(76000);
  const auto analyze = [&](const HostSparse& a, spxDataType_t bt, spxDataType_t ct,
                           spxSpMMAlg_t alg, spxOrder_t bo = SPX_ORDER_ROW) {
    const DeviceSparse A = to_device(a);
    const DeviceDense B = to_device(random_dense(rng, a.cols, 8, bo, operand_dist(bt, a.cols, ct)));
    const DeviceDense C = to_device(random_dense(rng, a.rows, 8, SPX_ORDER_ROW, output_dist(ct)));
    spxPlan_t p = nullptr;
    const spxStatus_t st = spxSpMM_analyze(h.get(), A.get(), B.get(), C.get(), SPX_R_32F, alg, &p);
    spxPlanInfo_t info{};
    if (st == SPX_STATUS_SUCCESS) {
      spxPlanGetInfo(p, &info);
      spxPlanDestroy(p);
    }
    return std::make_pair(st, info.family);
  };
  const ValueDist f16 = operand_dist(SPX_R_16F, 64, SPX_R_16F);
  // fp32 CSR, ELL fp16 and NM fp16 inputs: forced SpTC is NOT_SUPPORTED.
  {
    const HostSparse a = random_csr(rng, 32, 64, operand_dist(SPX_R_32F, 64, SPX_R_32F));
    CHECK(analyze(a, SPX_R_32F, SPX_R_32F, SPX_SPMM_ALG_SPTC_REORDER).first == SPX_STATUS_NOT_SUPPORTED);
    const HostSparse e = random_ell(rng, 32, 64, 8, f16);
    CHECK(analyze(e, SPX_R_16F, SPX_R_16F, SPX_SPMM_ALG_SPTC_REORDER).first == SPX_STATUS_NOT_SUPPORTED);
    const HostSparse nm = random_nm(rng, 32, 64, 2, 4, 2, f16);
    CHECK(analyze(nm, SPX_R_16F, SPX_R_16F, SPX_SPMM_ALG_SPTC_REORDER).first == SPX_STATUS_NOT_SUPPORTED);
  }
  // A repeated column in a block row: forced SpTC is NOT_SUPPORTED, DEFAULT runs the fallback.
  {
    HostSparse a = random_bcrs(rng, 32, 64, 4, f16, 0.3);
    size_t r = 0;
    while (a.ptr[r + 1] - a.ptr[r] < 2) ++r;
    a.idx[a.ptr[r] + 1] = a.idx[a.ptr[r]];
    const auto forced = analyze(a, SPX_R_16F, SPX_R_16F, SPX_SPMM_ALG_SPTC_REORDER);
    CHECK(forced.first == SPX_STATUS_NOT_SUPPORTED);
    CHECK(std::string(spxGetLastErrorMessage()).find("repeats column") != std::string::npos);
    const auto dflt = analyze(a, SPX_R_16F, SPX_R_16F, SPX_SPMM_ALG_DEFAULT);
    CHECK(dflt.first == SPX_STATUS_SUCCESS);
    CHECK(dflt.second == SPX_SPMM_ALG_FALLBACK);
  }
  // Bad structure: INVALID_VALUE (forced and DEFAULT), never a crash.
  {
    HostSparse a = random_bcrs(rng, 32, 64, 8, f16, 0.3);
    a.idx[0] = 64;
    CHECK(analyze(a, SPX_R_16F, SPX_R_16F, SPX_SPMM_ALG_SPTC_REORDER).first == SPX_STATUS_INVALID_VALUE);
    CHECK(analyze(a, SPX_R_16F, SPX_R_16F, SPX_SPMM_ALG_DEFAULT).first == SPX_STATUS_INVALID_VALUE);
    HostSparse b = random_csr(rng, 32, 64, f16, 0.3);
    b.ptr[5] = b.ptr[6] + 1;
    CHECK(analyze(b, SPX_R_16F, SPX_R_16F, SPX_SPMM_ALG_SPTC_REORDER).first == SPX_STATUS_INVALID_VALUE);
  }
  // A column-major B needs the workspace: NULL is INVALID_VALUE at execute.
  {
    const HostSparse a = random_bcrs(rng, 32, 64, 2, f16, 0.3);
    const DeviceSparse A = to_device(a);
    const DeviceDense B = to_device(random_dense(rng, 64, 8, SPX_ORDER_COL, f16));
    HostDense c_host = random_dense(rng, 32, 8, SPX_ORDER_ROW, output_dist(SPX_R_16F));
    DeviceDense C = to_device(c_host);
    spxPlan_t p = nullptr;
    REQUIRE_SPX(spxSpMM_analyze(h.get(), A.get(), B.get(), C.get(), SPX_R_32F,
                                SPX_SPMM_ALG_SPTC_REORDER, &p));
    UniquePlan plan(p);
    size_t ws = 0;
    REQUIRE_SPX(spxPlanGetWorkspaceSize(p, &ws));
    CHECK(ws == 64 * 8 * 2);
    const ScalarBytes one = make_scalar(1.0, SPX_R_16F), zero = make_scalar(0.0, SPX_R_16F);
    CHECK_SPX_INVALID(spxSpMM(h.get(), p, one.get(), A.get(), B.get(), zero.get(), C.get(), nullptr));
    device_sync();
    CHECK(same_bytes(download(C, c_host), c_host));  // the rejected call left C untouched
  }
}
