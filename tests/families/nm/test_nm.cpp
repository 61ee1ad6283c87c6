// The NM family (vector-wise N:M SpMM on CUDA cores) against the CPU reference, forced with
// SPX_SPMM_ALG_NM: every N:M with M in {4, 8, 16, 32, 64, 128} and every L in {16, 32, 64, 128},
// packing forced on and off; every tile with and without split-K, both orders of B and C, tails
// in n, ld padding, alpha/beta (beta = 0 on a NaN-poisoned C); device pointer mode;
// spxPlanUpdateValues; spxSpMM_search; plan info; refusals; and the device pruning helpers
// spxPruneNM / spxCheckNM bit for bit against spxHostPruneNM / spxHostCheckNM, with their
// bad-argument walk. Overrides of the plan's choices go through the family's documented
// environment variables (SPX_NM_FORCE_PACKING, SPX_NM_FORCE_TILE, SPX_NM_FORCE_SPLIT).
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "env_override.hpp"
#include "runner.hpp"
#include "spx_catch.hpp"

using namespace spx::test;
namespace ref = spx::ref;

namespace {


std::string info_config(const spxPlanInfo_t& info) {
  return std::string(info.config, strnlen(info.config, sizeof info.config));
}

struct NmCase {
  int64_t m = 32, k = 16, n = 8;
  int64_t N = 2, M = 4, L = 16;
  spxOrder_t b_order = SPX_ORDER_COL, c_order = SPX_ORDER_COL;
  double alpha = 1, beta = 0;
  int64_t ld_pad = 0;
  int packing = -1;  ///< -1: the model decides; 0 / 1: forced
  int split = 0;     ///< 0: the plan decides; >= 1: forced
  std::string tile;  ///< "": the plan decides
  int stage_b = -1;  ///< column-major B staged row-major: -1 default, 0 / 1 forced
  int stream_b = -1;  ///< that copy streamed beside the tensor-copy kernel: -1 default, 0 off
  int stream_k = -1;  ///< stream-K: -1 default (where it pays), 0 off, 1 wherever it applies
  int64_t sk_slots = 0;  ///< > 0: the block slots stream-K plans for (SPX_NM_STREAM_K_SLOTS)
  int producer = -1;  ///< tensor-copy pipeline: -1 default (last finisher), 0 warp 0 (SPX_NM_PRODUCER)
  /// Call once into a scratch C with the same workspace before the checked call (state the plan
  /// leaves in the workspace, e.g. the streamed copy's flags, must not leak into the next call).
  bool call_twice = false;
  bool device_scalars = false;
  /// Execute with a copy of B 4 bytes off 16-byte alignment (the plan saw an aligned B): the
  /// tensor copies cannot read it, so the call runs on the cp.async kernel.
  bool b_misaligned_at_execute = false;
  uint64_t seed = 1;

  std::string what() const {
    return std::to_string(N) + ":" + std::to_string(M) + " L " + std::to_string(L) + ", " +
           std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n) + ", B " +
           order_name(b_order) + " C " + order_name(c_order) + ", alpha " + std::to_string(alpha) +
           " beta " + std::to_string(beta) + ", ld pad " + std::to_string(ld_pad) + ", packing " +
           std::to_string(packing) + ", split " + std::to_string(split) + ", tile '" + tile +
           "', stage B " + std::to_string(stage_b) + " stream B " + std::to_string(stream_b) +
           " stream-K " + std::to_string(stream_k) + " slots " + std::to_string(sk_slots) +
           " producer " + std::to_string(producer) +
           (call_twice ? ", called twice" : "") + (device_scalars ? ", device scalars" : "") +
           (b_misaligned_at_execute ? ", B misaligned at execute" : "") + ", seed " +
           std::to_string(seed);
  }
};

/// A case of the given shape (A m x k, B k x n) and N:M pattern in groups of L rows.
NmCase shaped_case(int64_t m, int64_t k, int64_t n, int64_t N, int64_t M, int64_t L) {
  NmCase c;
  c.m = m;
  c.k = k;
  c.n = n;
  c.N = N;
  c.M = M;
  c.L = L;
  return c;
}

struct NmOperands {
  HostSparse A;
  HostDense B, C;
};

NmOperands make_operands(const NmCase& c) {
  Rng rng(c.seed);
  NmOperands o;
  const ValueDist dist = operand_dist(SPX_R_32F, c.k, SPX_R_32F);
  o.A = random_nm(rng, c.m, c.k, c.N, c.M, c.L, dist);
  o.B = random_dense(rng, c.k, c.n, c.b_order, dist, c.ld_pad);
  o.C = random_dense(rng, c.m, c.n, c.c_order, output_dist(SPX_R_32F), c.ld_pad);
  return o;
}

/// Analyzes (forced NM, with the case's overrides), executes once, compares with the reference
/// and checks the plan info. Returns the plan info; failures are reported through Catch.
spxPlanInfo_t run_case(spxHandle_t h, const NmCase& c, int64_t* failures) {
  const NmOperands o = make_operands(c);
  const ref::Expected e = ref::spmm(o.A, o.B, o.C, {c.alpha, c.beta});
  HostDense c_init = o.C;
  guard_padding(c_init);
  if (c.beta == 0) poison_dense(c_init);
  const DeviceSparse dA = to_device(o.A);
  const DeviceDense dB = to_device(o.B);
  DeviceDense dC = to_device(c_init, 256);

  spxPlanInfo_t info{};
  spxPlan_t raw = nullptr;
  spxStatus_t st;
  {
    EnvOverride p("SPX_NM_FORCE_PACKING", c.packing < 0 ? "" : std::to_string(c.packing));
    EnvOverride s("SPX_NM_FORCE_SPLIT", c.split <= 0 ? "" : std::to_string(c.split));
    EnvOverride t("SPX_NM_FORCE_TILE", c.tile);
    EnvOverride b("SPX_NM_STAGE_B", c.stage_b < 0 ? "" : std::to_string(c.stage_b));
    EnvOverride f("SPX_NM_STREAM_B", c.stream_b < 0 ? "" : std::to_string(c.stream_b));
    EnvOverride k("SPX_NM_STREAM_K", c.stream_k < 0 ? "" : std::to_string(c.stream_k));
    EnvOverride ks("SPX_NM_STREAM_K_SLOTS", c.sk_slots <= 0 ? "" : std::to_string(c.sk_slots));
    EnvOverride pr("SPX_NM_PRODUCER", c.producer < 0 ? "" : std::to_string(c.producer));
    st = spxSpMM_analyze(h, dA.get(), dB.get(), dC.get(), SPX_R_32F, SPX_SPMM_ALG_NM, &raw);
  }
  if (st != SPX_STATUS_SUCCESS) {
    FAIL_CHECK(c.what() << ": analyze returned " << spxGetStatusName(st) << " \""
                        << spxGetLastErrorMessage() << "\"");
    ++*failures;
    return info;
  }
  UniquePlan plan(raw);
  REQUIRE_SPX(spxPlanGetInfo(plan.get(), &info));
  std::string problems;
  if (info.family != SPX_SPMM_ALG_NM) problems += "family is not NM; ";
  if (strnlen(info.kernel, sizeof info.kernel) == 0) problems += "empty kernel name; ";
  if (c.packing >= 0 && info.packing != c.packing) problems += "packing not as forced; ";
  if (info.candidates < 1) problems += "no candidates; ";
  if (static_cast<double>(info.metadata_bytes) > 0.10 * static_cast<double>(info.values_bytes))
    problems += "metadata above 10 % of the values; ";
  if (c.split == 1 && info.split_k != 1) problems += "split-K not off as forced; ";
  if (info.split_k > 1 && info.workspace_bytes == 0) problems += "split-K without workspace; ";
  const bool staged = info_config(info).find("staged row-major") != std::string::npos;
  if (staged != (c.b_order == SPX_ORDER_COL && c.stage_b != 0))
    problems += "B staging not as expected; ";
  if (staged && info.workspace_bytes < static_cast<size_t>(c.k * c.n * 4))
    problems += "staging without workspace; ";

  // The execute-time B: the analyzed one, or a copy at a pointer 4 bytes off alignment.
  DeviceBuffer shifted;
  UniqueDnMat shifted_descr;
  spxDnMatDescr_t run_b = dB.get();
  if (c.b_misaligned_at_execute) {
    shifted = DeviceBuffer(o.B.data.size() + 4);
    shifted.upload(o.B.data.data(), o.B.data.size(), 4);
    shifted_descr = make_dense_descr(o.B, static_cast<unsigned char*>(shifted.get()) + 4);
    run_b = shifted_descr.get();
  }

  // The workspace is the caller's: it starts with garbage (every byte 0x5A).
  DeviceBuffer workspace(info.workspace_bytes);
  if (info.workspace_bytes > 0)
    REQUIRE(cudaMemset(workspace.get(), 0x5A, info.workspace_bytes) == cudaSuccess);
  const ScalarBytes alpha = make_scalar(c.alpha, SPX_R_32F), beta = make_scalar(c.beta, SPX_R_32F);
  if (c.call_twice) {
    DeviceDense scratch = to_device(c_init, 256);
    const spxStatus_t first = spxSpMM(h, plan.get(), alpha.get(), dA.get(), run_b, beta.get(),
                                      scratch.get(), workspace.get());
    device_sync();
    if (first != SPX_STATUS_SUCCESS)
      problems += std::string("the first spxSpMM returned ") + spxGetStatusName(first) + "; ";
  }
  spxStatus_t run_st;
  if (c.device_scalars) {
    DeviceBuffer d_alpha(sizeof(float)), d_beta(sizeof(float));
    d_alpha.upload(alpha.get(), sizeof(float));
    d_beta.upload(beta.get(), sizeof(float));
    REQUIRE_SPX(spxSetPointerMode(h, SPX_POINTER_MODE_DEVICE));
    run_st = spxSpMM(h, plan.get(), d_alpha.get(), dA.get(), run_b, d_beta.get(), dC.get(),
                     workspace.get());
    device_sync();
    REQUIRE_SPX(spxSetPointerMode(h, SPX_POINTER_MODE_HOST));
  } else {
    run_st = spxSpMM(h, plan.get(), alpha.get(), dA.get(), run_b, beta.get(), dC.get(),
                     workspace.get());
    device_sync();
  }
  if (run_st != SPX_STATUS_SUCCESS)
    problems += std::string("spxSpMM returned ") + spxGetStatusName(run_st) + "; ";
  const HostDense got = download(dC, c_init);
  const CheckResult r = check_dense_output(got, c_init, e);
  if (!dC.buf.tail_intact()) problems += "bytes after the end of C were overwritten; ";
  if (!r.ok || !problems.empty()) {
    FAIL_CHECK(c.what() << "\n  config \"" << info_config(info) << "\"\n  " << problems << "\n"
                        << r.report);
    ++*failures;
  }
  return info;
}

const double kAlphaBeta[][2] = {{1, 0}, {0.5, -2}, {-1.5, 1}};

/// The current device's compute capability major (the tensor-copy kernel's cases need 9).
int device_major() {
  int device = 0, major = 0;
  REQUIRE(cudaGetDevice(&device) == cudaSuccess);
  REQUIRE(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) == cudaSuccess);
  return major;
}

#ifndef SPX_TEST_SM90_CODE
#define SPX_TEST_SM90_CODE 0
#endif
/// Whether the library runs the sm_90 tensor-copy kernel here: a compute capability 9 device
/// and a build holding code for 90 or later (SPX_TESTS_SM90_CODE, tests/CMakeLists.txt; a
/// library built for sm_80 only runs its sm_80 code there, JIT-compiled).
bool tensor_copies_here() { return device_major() >= 9 && SPX_TEST_SM90_CODE != 0; }

}  // namespace

TEST_CASE("NM every N:M and L, packing on and off", "[nm][spmm]") {
  const auto start = std::chrono::steady_clock::now();
  UniqueHandle h = make_handle();
  int64_t failures = 0, runs = 0;
  uint64_t seed = 100;
  for (int64_t M : {4, 8, 16, 32, 64, 128})
    for (int64_t L : {16, 32, 64, 128})
      for (int64_t N = 1; N <= M && failures < 20; ++N)
        for (int packing : {0, 1}) {
          NmCase c;
          c.N = N;
          c.M = M;
          c.L = L;
          c.m = (seed % 3 == 0) ? 3 * L : (L >= 128 ? L : 2 * L);  // partial pack tiles too
          c.k = M * (M >= 64 ? 2 : 3);
          c.n = (seed % 2 == 0) ? 33 : 20;
          c.b_order = (seed & 1) ? SPX_ORDER_ROW : SPX_ORDER_COL;
          c.c_order = (seed & 2) ? SPX_ORDER_ROW : SPX_ORDER_COL;
          c.alpha = kAlphaBeta[seed % 3][0];
          c.beta = kAlphaBeta[seed % 3][1];
          c.ld_pad = (seed % 5 == 0) ? 3 : 0;
          c.packing = packing;
          c.seed = seed++;
          run_case(h.get(), c, &failures);
          ++runs;
        }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  WARN(runs << " NM runs, " << failures << " failed (" << s << " s)");
  CHECK(failures == 0);
}

TEST_CASE("NM tiles x split-K x orders x tails x scalars", "[nm][spmm]") {
  UniqueHandle h = make_handle();
  int64_t failures = 0;
  struct Pattern {
    int64_t N, M, L;
  };
  const Pattern patterns[] = {{2, 4, 16},   {1, 8, 32},  {3, 8, 64},
                              {5, 16, 128}, {7, 32, 16}, {1, 128, 32}};
  const int64_t ns[] = {1, 7, 130, 64};
  const char* tiles[] = {"small", "medium", "large", "huge", "wide"};
  uint64_t seed = 5000;
  int index = 0;
  std::map<std::string, int> hits;
  for (const char* tile : tiles)
    for (int split : {1, 3})
      for (int packing : {0, 1})
        for (int orders = 0; orders < 4; ++orders) {
          const Pattern& p = patterns[index % 6];
          NmCase c;
          c.N = p.N;
          c.M = p.M;
          c.L = p.L;
          c.m = p.L >= 128 ? 256 : 3 * p.L + (index % 2) * p.L;
          // At least 128 compressed slots: two stages or more at any stage depth (split-K).
          c.k = round_up(std::max<int64_t>(p.M * 8, 128 * p.M / p.N + p.M), p.M);
          c.n = ns[index % 4];
          c.b_order = (orders & 1) ? SPX_ORDER_ROW : SPX_ORDER_COL;
          c.c_order = (orders & 2) ? SPX_ORDER_ROW : SPX_ORDER_COL;
          c.alpha = kAlphaBeta[index % 3][0];
          c.beta = kAlphaBeta[index % 3][1];
          c.ld_pad = (index % 3 == 1) ? 5 : 0;
          c.packing = packing;
          c.split = split;
          c.tile = tile;
          // Column-major B both ways: staged row-major (the default) and the direct loader.
          c.stage_b = (index / 4) % 2;
          c.seed = seed++;
          ++index;
          const spxPlanInfo_t info = run_case(h.get(), c, &failures);
          if (split == 3 && info.family == SPX_SPMM_ALG_NM) CHECK(info.split_k > 1);
          // A forced tile that does not fit this pattern's stage is ignored by the plan.
          if (info_config(info).find(std::string("tile ") + tile + " ") != std::string::npos)
            ++hits[tile];
        }
  CHECK(failures == 0);
  for (const char* tile : tiles) {
    INFO("runs on the " << tile << " tile: " << hits[tile]);
    CHECK(hits[tile] >= 12);
  }
}

TEST_CASE("NM tensor-copy plan executed with a B the copies cannot read", "[nm][spmm]") {
  // On sm_90 a plan made for an aligned row-major B runs on the tensor-copy kernel; a later call
  // whose B sits 4 bytes off 16-byte alignment must run on the cp.async kernel instead (same
  // plan, same result). Elsewhere both calls use the cp.async kernel and the case still checks
  // the unaligned-B loads.
  const bool tma = tensor_copies_here();
  UniqueHandle h = make_handle();
  int64_t failures = 0;
  struct Pattern {
    int64_t N, M, L;
  };
  const Pattern patterns[] = {{2, 4, 32}, {1, 8, 16}, {3, 8, 64}, {5, 16, 128}};
  uint64_t seed = 11000;
  int index = 0;
  for (int split : {1, 3})
    for (const Pattern& p : patterns) {
      NmCase c;
      c.N = p.N;
      c.M = p.M;
      c.L = p.L;
      c.m = (index % 2) ? 3 * 128 : 2 * p.L;
      c.k = round_up(std::max<int64_t>(p.M * 8, 160 * p.M / p.N + p.M), p.M);
      c.n = (index % 2) ? 64 : 36;  // 16-byte rows at analyze
      c.b_order = SPX_ORDER_ROW;
      c.c_order = (index % 2) ? SPX_ORDER_ROW : SPX_ORDER_COL;
      c.alpha = kAlphaBeta[index % 3][0];
      c.beta = kAlphaBeta[index % 3][1];
      c.packing = 0;
      c.split = split;
      c.b_misaligned_at_execute = true;
      c.seed = seed++;
      ++index;
      const spxPlanInfo_t info = run_case(h.get(), c, &failures);
      if (tma) CHECK(info_config(info).find("loads tma") != std::string::npos);
    }
  CHECK(failures == 0);
}

TEST_CASE("NM column-major B streamed row-major beside the tensor-copy kernel", "[nm][spmm]") {
  // sm_90, Wide tile: a copy kernel writes B row-major in chunks of 32 rows x 128 columns while
  // the product's tiles wait chunk by chunk (StreamedB). More chunks than copy blocks, k and n
  // tails inside a chunk and a panel, ld not a multiple of 4 and a B 4 bytes off alignment (the
  // copy's element loads), more panels than start together; every case is called twice with
  // one workspace (the flags of the first call are set when the second starts) and again with
  // the copy before the kernel (SPX_NM_STREAM_B=0). Elsewhere every case runs the copy before
  // the kernel.
  const bool tma = tensor_copies_here();
  UniqueHandle h = make_handle();
  int64_t failures = 0;
  struct Shape {
    int64_t m, k, n, N, M, L;
    const char* tile;
    int64_t ld_pad;
    bool misaligned;
  };
  const Shape shapes[] = {
      {1024, 2048, 700, 2, 4, 32, "wide", 0, false},   // 64 x 6 chunks
      {384, 1032, 261, 3, 8, 32, "wide", 5, false},    // k tail in a chunk, odd ld, n tail
      {256, 4096, 130, 1, 8, 16, "wide", 0, true},     // element loads, 128 chunks per panel
      {640, 1008, 517, 1, 4, 64, "wide", 3, false},    // n % 4 == 1
      {128, 40, 70, 1, 4, 128, "wide", 0, false},      // k 40: one full chunk and one of 8 rows
      {96, 528, 99, 5, 16, 32, "", 0, false},          // the plan's tile
      // 32 row tiles x 11 panels: more panels than start together (the copy's panel groups)
      {4096, 384, 1290, 2, 4, 32, "wide", 0, false},
  };
  uint64_t seed = 13000;
  int index = 0;
  for (const Shape& sh : shapes)
    for (int stream : {1, 0}) {
      NmCase c = shaped_case(sh.m, sh.k, sh.n, sh.N, sh.M, sh.L);
      c.tile = sh.tile;
      c.ld_pad = sh.ld_pad;
      c.b_misaligned_at_execute = sh.misaligned;
      c.b_order = SPX_ORDER_COL;
      c.c_order = (index % 2) ? SPX_ORDER_ROW : SPX_ORDER_COL;
      c.alpha = kAlphaBeta[index % 3][0];
      c.beta = kAlphaBeta[index % 3][1];
      c.packing = 0;
      c.split = 1;
      c.stage_b = 1;
      c.stream_b = stream;
      c.call_twice = true;
      c.seed = seed++;
      ++index;
      const spxPlanInfo_t info = run_case(h.get(), c, &failures);
      const std::string config = info_config(info);
      INFO(c.what() << "\n  config " << config);
      const bool streamed = config.find("streamed") != std::string::npos;
      const bool wide = config.find("tile wide") != std::string::npos;
      CHECK(streamed == (tma && stream == 1 && wide));
    }
  CHECK(failures == 0);
}

TEST_CASE("NM stream-K: the last wave of tiles shared out", "[nm][spmm]") {
  // sm_90, Wide tile (families/nm/kernels/stream_k.hpp), forced on wherever a schedule exists
  // (SPX_NM_STREAM_K=1). The block slots the schedule plans for are forced small
  // (SPX_NM_STREAM_K_SLOTS), so that a small product has every kind of schedule: a tail of half
  // a wave or more shared out over one wave of blocks (up to three parts per tile), a short tail
  // shared with the last full wave over two waves of blocks, fewer tiles than slots (no whole
  // tiles at all), and a nearly full last wave (off). Tails in m, n and k (inside a stage), both
  // orders of B (a column-major one copied row-major before the kernel) and C, alpha and beta;
  // each case is called twice with one workspace (its counters are zeroed per call: the
  // workspace starts as garbage). The last shape runs the device's own slot count. Elsewhere the
  // same cases run without stream-K, and with warp 0 as the producer (stream-K then off).
  const bool tma = tensor_copies_here();
  UniqueHandle h = make_handle();
  int64_t failures = 0;
  struct Shape {
    int64_t m, k, n, N, M, L, slots;
    bool expect;  ///< stream-K expected on (with the tensor-copy kernel)
  };
  const Shape shapes[] = {
      {608, 2000, 520, 3, 8, 32, 7, true},    // 25 tiles: 21 whole, 4 over 7 blocks
      {640, 2048, 640, 2, 4, 32, 10, true},   // 25 tiles: 20 whole, 5 over 10 blocks (ranges 1/2)
      {592, 2504, 520, 1, 4, 16, 8, true},    // 25 tiles: 16 whole, 1 + 8 over 16 blocks
      {640, 2000, 620, 1, 8, 64, 40, true},   // 25 tiles, all over 40 blocks
      {608, 2000, 520, 3, 8, 32, 26, false},  // 25 of 26 slots busy: off
      {1152, 1600, 1900, 3, 8, 32, 0, false}, // 135 tiles: the device's slots (264 on H100)
  };
  uint64_t seed = 15000;
  int index = 0, shared = 0;
  for (const Shape& sh : shapes)
    for (int orders = 0; orders < 2; ++orders) {
      NmCase c = shaped_case(sh.m, sh.k, sh.n, sh.N, sh.M, sh.L);
      c.tile = "wide";
      c.sk_slots = sh.slots;
      c.stream_k = 1;  // wherever a schedule exists (by default only where it pays)
      c.b_order = ((index + orders) % 2) ? SPX_ORDER_ROW : SPX_ORDER_COL;
      c.c_order = orders ? SPX_ORDER_ROW : SPX_ORDER_COL;
      c.alpha = kAlphaBeta[index % 3][0];
      c.beta = kAlphaBeta[index % 3][1];
      c.packing = 0;
      c.split = 1;
      c.call_twice = true;
      c.seed = seed++;
      ++index;
      const spxPlanInfo_t info = run_case(h.get(), c, &failures);
      const std::string config = info_config(info);
      INFO(c.what() << "\n  config " << config);
      const bool on = config.find("stream-K off") == std::string::npos &&
                      config.find("stream-K ") != std::string::npos;
      if (sh.slots > 0) CHECK(on == (tma && sh.expect));
      shared += on ? 1 : 0;
      // One block per tile (SPX_NM_STREAM_K=0) on the same case: the same product.
      c.stream_k = 0;
      c.seed = seed++;
      const spxPlanInfo_t off = run_case(h.get(), c, &failures);
      CHECK(info_config(off).find("stream-K off") != std::string::npos);
      // Warp 0 as the producer (SPX_NM_PRODUCER=0): the stream-K kernel has only the
      // last-finisher pipeline, so stream-K is never planned there, even when forced.
      c.stream_k = 1;
      c.producer = 0;
      c.seed = seed++;
      const spxPlanInfo_t warp0 = run_case(h.get(), c, &failures);
      CHECK(info_config(warp0).find("stream-K off") != std::string::npos);
      c.producer = -1;
    }
  WARN(shared << " of " << index << " stream-K cases shared their last tiles");
  CHECK(failures == 0);
}

TEST_CASE("NM larger shapes: the model's own choices", "[nm][spmm]") {
  UniqueHandle h = make_handle();
  int64_t failures = 0;
  const int64_t shapes[][3] = {{512, 512, 512}, {256, 1024, 96}, {128, 2048, 16}};
  const int64_t patterns[][3] = {{2, 4, 32}, {3, 8, 32}, {1, 4, 16}, {1, 8, 32}, {4, 32, 64}};
  uint64_t seed = 9000;
  for (const auto& sh : shapes)
    for (const auto& p : patterns) {
      NmCase c;
      c.m = sh[0];
      c.k = sh[1];
      c.n = sh[2];
      c.N = p[0];
      c.M = p[1];
      c.L = p[2];
      c.b_order = (seed & 1) ? SPX_ORDER_ROW : SPX_ORDER_COL;
      c.c_order = (seed & 2) ? SPX_ORDER_ROW : SPX_ORDER_COL;
      c.alpha = 0.5;
      c.beta = (seed & 4) ? 0.0 : -1.0;
      c.seed = seed++;
      run_case(h.get(), c, &failures);
    }
  CHECK(failures == 0);
}

TEST_CASE("NM device pointer mode", "[nm][spmm]") {
  UniqueHandle h = make_handle();
  int64_t failures = 0;
  uint64_t seed = 7000;
  for (int split : {1, 4})
    for (double beta : {0.0, 0.75}) {
      NmCase c;
      c.m = 96;
      c.k = 512;
      c.n = 45;
      c.N = 2;
      c.M = 8;
      c.L = 32;
      c.alpha = -0.5;
      c.beta = beta;
      c.split = split;
      c.device_scalars = true;
      c.b_order = SPX_ORDER_ROW;
      c.c_order = (seed & 1) ? SPX_ORDER_ROW : SPX_ORDER_COL;
      c.seed = seed++;
      run_case(h.get(), c, &failures);
    }
  CHECK(failures == 0);
}

TEST_CASE("NM spxPlanUpdateValues re-packs values only", "[nm][spmm]") {
  UniqueHandle h = make_handle();
  for (int packing : {0, 1}) {
    NmCase c;
    c.m = 128;
    c.k = 256;
    c.n = 40;
    c.N = 1;
    c.M = 4;
    c.L = 32;
    c.beta = 0.5;
    c.b_order = SPX_ORDER_COL;
    c.c_order = SPX_ORDER_COL;
    c.seed = 31 + packing;
    NmOperands o = make_operands(c);
    DeviceSparse dA = to_device(o.A);
    const DeviceDense dB = to_device(o.B);
    DeviceDense dC = to_device(o.C);
    spxPlan_t raw = nullptr;
    {
      EnvOverride p("SPX_NM_FORCE_PACKING", std::to_string(packing));
      REQUIRE_SPX(
          spxSpMM_analyze(h.get(), dA.get(), dB.get(), dC.get(), SPX_R_32F, SPX_SPMM_ALG_NM, &raw));
    }
    UniquePlan plan(raw);
    // New values, same structure: the plan must use them after the update.
    Rng rng(999 + packing);
    HostSparse A2 = o.A;
    A2.values = random_values(rng, operand_dist(SPX_R_32F, c.k, SPX_R_32F), o.A.value_slots());
    dA.values.upload(A2.values);
    REQUIRE_SPX(spxPlanUpdateValues(h.get(), plan.get(), dA.get()));
    const ref::Expected e = ref::spmm(A2, o.B, o.C, {c.alpha, c.beta});
    spxPlanInfo_t info{};
    REQUIRE_SPX(spxPlanGetInfo(plan.get(), &info));
    DeviceBuffer ws(info.workspace_bytes);
    const ScalarBytes alpha = make_scalar(c.alpha, SPX_R_32F),
                      beta = make_scalar(c.beta, SPX_R_32F);
    REQUIRE_SPX(spxSpMM(h.get(), plan.get(), alpha.get(), dA.get(), dB.get(), beta.get(), dC.get(),
                        ws.get()));
    device_sync();
    const CheckResult r = check_dense_output(download(dC, o.C), o.C, e);
    INFO("packing " << packing << ": " << r.report);
    CHECK(r.ok);
  }
}

TEST_CASE("NM spxSpMM_search times the candidates and keeps a correct one", "[nm][spmm]") {
  UniqueHandle h = make_handle();
  NmCase c;
  c.m = 256;
  c.k = 512;
  c.n = 256;
  c.N = 1;
  c.M = 4;
  c.L = 32;
  c.alpha = 1.5;
  c.beta = 0;  // search runs the product many times: with beta = 0 C holds one product
  c.b_order = SPX_ORDER_COL;
  c.c_order = SPX_ORDER_COL;
  const NmOperands o = make_operands(c);
  const DeviceSparse dA = to_device(o.A);
  const DeviceDense dB = to_device(o.B);
  HostDense c_init = o.C;
  poison_dense(c_init);
  DeviceDense dC = to_device(c_init);
  spxPlan_t raw = nullptr;
  REQUIRE_SPX(
      spxSpMM_analyze(h.get(), dA.get(), dB.get(), dC.get(), SPX_R_32F, SPX_SPMM_ALG_NM, &raw));
  UniquePlan plan(raw);
  spxPlanInfo_t info{};
  REQUIRE_SPX(spxPlanGetInfo(plan.get(), &info));
  CHECK(info.candidates >= 2);
  CHECK(info.searched == 0);
  DeviceBuffer ws(info.workspace_bytes);
  const ScalarBytes alpha = make_scalar(c.alpha, SPX_R_32F), beta = make_scalar(c.beta, SPX_R_32F);
  REQUIRE_SPX(spxSpMM_search(h.get(), plan.get(), alpha.get(), dA.get(), dB.get(), beta.get(),
                             dC.get(), ws.get()));
  REQUIRE_SPX(spxPlanGetInfo(plan.get(), &info));
  CHECK(info.searched == 1);
  CHECK(info.family == SPX_SPMM_ALG_NM);
  const ref::Expected e = ref::spmm(o.A, o.B, o.C, {c.alpha, c.beta});
  const CheckResult r = check_dense_output(download(dC, c_init), c_init, e);
  INFO(info_config(info) << "\n" << r.report);
  CHECK(r.ok);
}

TEST_CASE("NM plan info and the DEFAULT choice", "[nm][spmm]") {
  UniqueHandle h = make_handle();
  NmCase c;
  c.m = 256;
  c.k = 1024;
  c.n = 64;
  c.N = 1;
  c.M = 8;
  c.L = 32;
  const NmOperands o = make_operands(c);
  const DeviceSparse dA = to_device(o.A);
  const DeviceDense dB = to_device(o.B);
  DeviceDense dC = to_device(o.C);
  spxPlan_t raw = nullptr;
  REQUIRE_SPX(spxSpMM_analyze(h.get(), dA.get(), dB.get(), dC.get(), SPX_R_32F,
                              SPX_SPMM_ALG_DEFAULT, &raw));
  UniquePlan plan(raw);
  spxPlanInfo_t info{};
  REQUIRE_SPX(spxPlanGetInfo(plan.get(), &info));
  CHECK(info.family == SPX_SPMM_ALG_NM);
  CHECK(std::string(info.kernel) == "nm_spmm_f32");
  CHECK(info_config(info).find("tile ") != std::string::npos);
  CHECK(info.values_bytes >= static_cast<size_t>(c.m * (c.k / c.M * c.N) * 4));
  CHECK(info.metadata_bytes > 0);
  CHECK(static_cast<double>(info.metadata_bytes) <= 0.10 * static_cast<double>(info.values_bytes));
  CHECK(info.padded_nnz >= info.nnz);
  CHECK(info.predicted_speedup > 0);
  size_t ws = 0;
  REQUIRE_SPX(spxPlanGetWorkspaceSize(plan.get(), &ws));
  CHECK(ws == info.workspace_bytes);
  {
    EnvOverride s("SPX_NM_FORCE_SPLIT", "4");
    spxPlan_t split_raw = nullptr;
    REQUIRE_SPX(spxSpMM_analyze(h.get(), dA.get(), dB.get(), dC.get(), SPX_R_32F, SPX_SPMM_ALG_NM,
                                &split_raw));
    UniquePlan split_plan(split_raw);
    REQUIRE_SPX(spxPlanGetInfo(split_plan.get(), &info));
    CHECK(info.split_k > 1);
    CHECK(info.workspace_bytes >= static_cast<size_t>(info.split_k) * c.m * c.n * 4);
  }
}

TEST_CASE("NM refuses what the fast path does not take", "[nm][spmm]") {
  UniqueHandle h = make_handle();
  struct Bad {
    int64_t N, M, L;
    spxDataType_t type;
  };
  const Bad bads[] = {{2, 5, 16, SPX_R_32F},   // M outside the fast set
                      {2, 4, 8, SPX_R_32F},    // L outside the fast set
                      {2, 4, 16, SPX_R_16F}};  // half precision
  uint64_t seed = 300;
  for (const Bad& b : bads) {
    Rng rng(seed++);
    const ValueDist dist = operand_dist(b.type, 40, b.type);
    const HostSparse A = random_nm(rng, 32, b.M * 8, b.N, b.M, b.L, dist);
    const HostDense B = random_dense(rng, b.M * 8, 8, SPX_ORDER_COL, dist);
    const HostDense C = random_dense(rng, 32, 8, SPX_ORDER_COL, output_dist(b.type));
    const DeviceSparse dA = to_device(A);
    const DeviceDense dB = to_device(B);
    DeviceDense dC = to_device(C);
    spxPlan_t raw = nullptr;
    CHECK_SPX_STATUS(
        spxSpMM_analyze(h.get(), dA.get(), dB.get(), dC.get(), SPX_R_32F, SPX_SPMM_ALG_NM, &raw),
        SPX_STATUS_NOT_SUPPORTED);
    CHECK(raw == nullptr);
    REQUIRE_SPX(spxSpMM_analyze(h.get(), dA.get(), dB.get(), dC.get(), SPX_R_32F,
                                SPX_SPMM_ALG_DEFAULT, &raw));
    UniquePlan plan(raw);
    spxPlanInfo_t info{};
    REQUIRE_SPX(spxPlanGetInfo(plan.get(), &info));
    CHECK(info.family != SPX_SPMM_ALG_NM);
  }
}

// ---------------------------------------------------------------- device pruning

namespace {

struct PruneCase {
  int64_t rows, cols, N, M, L;
  spxOrder_t order;
  int64_t ld_pad;
};

/// A dense fp32 matrix with many exact ties (values from a small set, zeros and whole zero
/// columns) and a few NaN, in the given order with ld padding.
std::vector<float> tie_heavy(Rng& rng, const PruneCase& c, int64_t ld) {
  const int64_t outer = c.order == SPX_ORDER_ROW ? c.rows : c.cols;
  std::vector<float> d(static_cast<size_t>(ld * outer), std::numeric_limits<float>::quiet_NaN());
  for (int64_t r = 0; r < c.rows; ++r)
    for (int64_t col = 0; col < c.cols; ++col) {
      float v = static_cast<float>(rng.uniform_int(-3, 3)) * 0.5f;
      if (col % 7 == 3) v = 0.0f;
      if (rng.uniform_int(0, 997) == 0) v = std::numeric_limits<float>::quiet_NaN();
      if (rng.uniform_int(0, 3) == 0) v = static_cast<float>(rng.uniform01() - 0.5);
      d[c.order == SPX_ORDER_ROW ? r * ld + col : r + col * ld] = v;
    }
  return d;
}

}  // namespace

TEST_CASE("spxPruneNM and spxCheckNM match the host tools bit for bit", "[nm][prune]") {
  UniqueHandle h = make_handle();
  const PruneCase cases[] = {
      {64, 64, 2, 4, 16, SPX_ORDER_ROW, 0},    {96, 128, 1, 8, 32, SPX_ORDER_COL, 3},
      {128, 256, 3, 8, 128, SPX_ORDER_ROW, 5}, {30, 45, 2, 5, 3, SPX_ORDER_COL, 0},
      {16, 128, 7, 128, 16, SPX_ORDER_ROW, 1}, {7, 12, 4, 4, 1, SPX_ORDER_ROW, 0},
      {256, 512, 16, 32, 64, SPX_ORDER_COL, 0}};
  uint64_t seed = 11;
  for (const PruneCase& c : cases) {
    INFO(c.rows << "x" << c.cols << " " << c.N << ":" << c.M << " L " << c.L << " "
                << order_name(c.order) << " ld pad " << c.ld_pad);
    Rng rng(seed++);
    const int64_t ld = (c.order == SPX_ORDER_ROW ? c.cols : c.rows) + c.ld_pad;
    const std::vector<float> dense = tie_heavy(rng, c, ld);
    const int64_t kc = c.cols / c.M * c.N;
    std::vector<float> host_values(static_cast<size_t>(c.rows * kc));
    std::vector<int32_t> host_indices(static_cast<size_t>(c.rows / c.L * kc));
    REQUIRE_SPX(spxHostPruneNM(c.rows, c.cols, dense.data(), ld, c.order, c.N, c.M, c.L,
                               host_values.data(), host_indices.data()));

    const DeviceBuffer d_dense = DeviceBuffer::from(dense);
    DeviceBuffer d_values(host_values.size() * sizeof(float), 64);
    DeviceBuffer d_indices(host_indices.size() * sizeof(int32_t), 64);
    REQUIRE_SPX(spxPruneNM(h.get(), c.rows, c.cols, d_dense.get(), ld, c.order, SPX_R_32F, c.N, c.M,
                           c.L, d_values.get(), d_indices.get()));
    device_sync();
    std::vector<float> dev_values(host_values.size());
    std::vector<int32_t> dev_indices(host_indices.size());
    d_values.download(dev_values.data(), dev_values.size() * sizeof(float));
    d_indices.download(dev_indices.data(), dev_indices.size() * sizeof(int32_t));
    CHECK(dev_indices == host_indices);
    CHECK(std::memcmp(dev_values.data(), host_values.data(), host_values.size() * sizeof(float)) ==
          0);
    CHECK(d_values.tail_intact());
    CHECK(d_indices.tail_intact());

    // The check: on the dense input, and on the pruned matrix written back densely.
    for (int64_t n_check : {c.N, c.M}) {
      int host_ok = -1, dev_ok = -1;
      REQUIRE_SPX(
          spxHostCheckNM(c.rows, c.cols, dense.data(), ld, c.order, n_check, c.M, c.L, &host_ok));
      REQUIRE_SPX(spxCheckNM(h.get(), c.rows, c.cols, d_dense.get(), ld, c.order, SPX_R_32F,
                             n_check, c.M, c.L, &dev_ok));
      CHECK(dev_ok == host_ok);
    }
    std::vector<float> pruned(dense.size(), 0.0f);
    for (int64_t r = 0; r < c.rows; ++r)
      for (int64_t s = 0; s < kc; ++s) {
        const int64_t col = (s / c.N) * c.M + host_indices[(r / c.L) * kc + s];
        pruned[c.order == SPX_ORDER_ROW ? r * ld + col : r + col * ld] = host_values[r * kc + s];
      }
    const DeviceBuffer d_pruned = DeviceBuffer::from(pruned);
    int dev_ok = -1;
    REQUIRE_SPX(spxCheckNM(h.get(), c.rows, c.cols, d_pruned.get(), ld, c.order, SPX_R_32F, c.N,
                           c.M, c.L, &dev_ok));
    CHECK(dev_ok == 1);
    if (c.N > 1) {
      int host_ok = -1;
      REQUIRE_SPX(
          spxHostCheckNM(c.rows, c.cols, pruned.data(), ld, c.order, c.N - 1, c.M, c.L, &host_ok));
      REQUIRE_SPX(spxCheckNM(h.get(), c.rows, c.cols, d_pruned.get(), ld, c.order, SPX_R_32F,
                             c.N - 1, c.M, c.L, &dev_ok));
      CHECK(dev_ok == host_ok);
    }
  }
}

TEST_CASE("spxPruneNM / spxCheckNM bad arguments", "[nm][prune]") {
  UniqueHandle h = make_handle();
  const int64_t rows = 32, cols = 16, kc = 8;
  std::vector<float> host_dense(rows * cols, 1.0f);
  const DeviceBuffer dense = DeviceBuffer::from(host_dense);
  DeviceBuffer values(rows * kc * sizeof(float)), indices(rows / 16 * kc * sizeof(int32_t));
  void* v = values.get();
  void* ix = indices.get();
  const void* d = dense.get();
  const auto prune = [&](spxHandle_t hh, int64_t r, int64_t c, const void* dd, int64_t ld,
                         spxOrder_t o, spxDataType_t t, int64_t n, int64_t m, int64_t l, void* vv,
                         void* ii) { return spxPruneNM(hh, r, c, dd, ld, o, t, n, m, l, vv, ii); };
  const spxOrder_t R = SPX_ORDER_ROW;
  CHECK_SPX_INVALID(prune(nullptr, rows, cols, d, cols, R, SPX_R_32F, 2, 4, 16, v, ix));
  CHECK_SPX_INVALID(prune(h.get(), -1, cols, d, cols, R, SPX_R_32F, 2, 4, 16, v, ix));
  CHECK_SPX_INVALID(prune(h.get(), rows, -4, d, cols, R, SPX_R_32F, 2, 4, 16, v, ix));
  CHECK_SPX_INVALID(prune(h.get(), rows, cols, d, cols - 1, R, SPX_R_32F, 2, 4, 16, v, ix));
  CHECK_SPX_INVALID(
      prune(h.get(), rows, cols, d, cols, static_cast<spxOrder_t>(7), SPX_R_32F, 2, 4, 16, v, ix));
  CHECK_SPX_INVALID(prune(h.get(), rows, cols, nullptr, cols, R, SPX_R_32F, 2, 4, 16, v, ix));
  CHECK_SPX_INVALID(
      prune(h.get(), rows, cols, d, cols, R, static_cast<spxDataType_t>(42), 2, 4, 16, v, ix));
  CHECK_SPX_STATUS(prune(h.get(), rows, cols, d, cols, R, SPX_R_16F, 2, 4, 16, v, ix),
                   SPX_STATUS_NOT_SUPPORTED);
  CHECK_SPX_INVALID(prune(h.get(), rows, cols, d, cols, R, SPX_R_32F, 0, 4, 16, v, ix));
  CHECK_SPX_INVALID(prune(h.get(), rows, cols, d, cols, R, SPX_R_32F, 5, 4, 16, v, ix));
  CHECK_SPX_INVALID(prune(h.get(), rows, cols, d, cols, R, SPX_R_32F, 2, 0, 16, v, ix));
  CHECK_SPX_INVALID(prune(h.get(), rows, cols, d, cols, R, SPX_R_32F, 2, 4, 0, v, ix));
  CHECK_SPX_INVALID(
      prune(h.get(), rows, cols, d, cols, R, SPX_R_32F, 2, 3, 16, v, ix));               // cols % M
  CHECK_SPX_INVALID(prune(h.get(), rows, cols, d, cols, R, SPX_R_32F, 2, 4, 5, v, ix));  // rows % L
  CHECK_SPX_INVALID(prune(h.get(), rows, cols, d, cols, R, SPX_R_32F, 2, 4, 16, nullptr, ix));
  CHECK_SPX_INVALID(prune(h.get(), rows, cols, d, cols, R, SPX_R_32F, 2, 4, 16, v, nullptr));
  CHECK_SPX_INVALID(
      prune(h.get(), rows, cols, host_dense.data(), cols, R, SPX_R_32F, 2, 4, 16, v, ix));
  std::vector<float> host_out(rows * kc);
  CHECK_SPX_INVALID(
      prune(h.get(), rows, cols, d, cols, R, SPX_R_32F, 2, 4, 16, host_out.data(), ix));
  CHECK_SPX_STATUS(prune(h.get(), 0, cols, nullptr, cols, R, SPX_R_32F, 2, 4, 16, nullptr, nullptr),
                   SPX_STATUS_SUCCESS);

  int ok = -1;
  CHECK_SPX_INVALID(spxCheckNM(nullptr, rows, cols, d, cols, R, SPX_R_32F, 2, 4, 16, &ok));
  CHECK_SPX_INVALID(spxCheckNM(h.get(), rows, cols, d, cols, R, SPX_R_32F, 2, 4, 16, nullptr));
  CHECK_SPX_INVALID(spxCheckNM(h.get(), rows, cols, d, cols - 1, R, SPX_R_32F, 2, 4, 16, &ok));
  CHECK_SPX_INVALID(spxCheckNM(h.get(), rows, cols, nullptr, cols, R, SPX_R_32F, 2, 4, 16, &ok));
  CHECK_SPX_STATUS(spxCheckNM(h.get(), rows, cols, d, cols, R, SPX_R_16BF, 2, 4, 16, &ok),
                   SPX_STATUS_NOT_SUPPORTED);
  CHECK_SPX_INVALID(spxCheckNM(h.get(), rows, cols, d, cols, R, SPX_R_32F, 5, 4, 16, &ok));
  CHECK_SPX_INVALID(spxCheckNM(h.get(), rows, cols, d, cols, R, SPX_R_32F, 2, 3, 16, &ok));
  CHECK_SPX_INVALID(spxCheckNM(h.get(), rows, cols, d, cols, R, SPX_R_32F, 2, 4, 5, &ok));
  CHECK_SPX_INVALID(
      spxCheckNM(h.get(), rows, cols, host_dense.data(), cols, R, SPX_R_32F, 2, 4, 16, &ok));
  CHECK(ok == -1);  // untouched by every rejected call
  CHECK_SPX_STATUS(spxCheckNM(h.get(), rows, cols, d, cols, R, SPX_R_32F, 4, 4, 16, &ok),
                   SPX_STATUS_SUCCESS);
  CHECK(ok == 1);
  CHECK_SPX_STATUS(spxCheckNM(h.get(), rows, cols, d, cols, R, SPX_R_32F, 2, 4, 16, &ok),
                   SPX_STATUS_SUCCESS);
  CHECK(ok == 0);  // all ones: every column of every window is used
}
