// The C API on a real device, bad structure in device data, family by family: every tamper of
// test_api_gpu_bad_args's "analyze rejects bad structure in device data" (CSR columns out of
// range, decreasing / off row pointers, BCRS block columns out of range, N:M indices out of
// [0, M), repeated or decreasing in a window, ELL columns out of range), run through every family
// that takes the format, forced (SPX_SPMM_ALG_NM, _ELL, _SRBCRS, _SPTC_REORDER) and through
// DEFAULT with the family's types. Each must be INVALID_VALUE with a message naming the first bad
// position and value ("[i] = v"), leave C untouched, and leave the handle usable: after the
// tampers the clean problem analyzes with the forced family (so the shapes really reach it) and
// computes the right product. SpTC also refuses a repeated column (NOT_SUPPORTED: the format
// allows it, the 2:4 layout cannot hold it), which DEFAULT then hands to another family.
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "api_fixtures.hpp"
#include "runner.hpp"
#include "spx_catch.hpp"

using namespace spx::test;
using namespace spx::test::api;
namespace ref = spx::ref;

namespace {

// True when the device C holds exactly `expected` (a rejected call must not touch it).
bool untouched(const DeviceDense& d, const HostDense& expected) {
  device_sync();
  return same_bytes(download(d, expected), expected) && d.buf.tail_intact();
}

bool untouched(const DeviceSparse& d, const HostSparse& expected) {
  device_sync();
  return download_values(d, expected).values == expected.values && d.values.tail_intact();
}

spxStatus_t try_analyze(spxHandle_t h, spxConstSpMatDescr_t A, spxConstDnMatDescr_t B,
                        spxConstDnMatDescr_t C, spxDataType_t compute, spxSpMMAlg_t alg) {
  spxPlan_t p = nullptr;
  const spxStatus_t st = spxSpMM_analyze(h, A, B, C, compute, alg, &p);
  if (st == SPX_STATUS_SUCCESS) spxPlanDestroy(p);
  return st;
}

spxStatus_t try_analyze_sddmm(spxHandle_t h, spxConstDnMatDescr_t A, spxConstDnMatDescr_t B,
                              spxConstSpMatDescr_t C, spxDataType_t compute, spxSpMMAlg_t alg) {
  spxPlan_t p = nullptr;
  const spxStatus_t st = spxSDDMM_analyze(h, A, B, C, compute, alg, &p);
  if (st == SPX_STATUS_SUCCESS) spxPlanDestroy(p);
  return st;
}

/// The last error message contains `part`.
void message_names(const std::string& part) {
  const std::string msg = spxGetLastErrorMessage();
  INFO("message: \"" << msg << "\", expected to contain \"" << part << "\"");
  CHECK(msg.find(part) != std::string::npos);
}

/// "[i] = v": how every structure check names the first bad position and its value.
std::string at(size_t i, int64_t v) {
  return "[" + std::to_string(i) + "] = " + std::to_string(v);
}

/// One edit of a valid structure and the position / value the message must name.
struct Tamper {
  const char* what;
  spxFormat_t format;  ///< the structures it applies to
  void (*edit)(HostSparse&);
  std::string (*names)(const HostSparse&);  ///< of the edited structure
};

// The tampers of test_api_gpu_bad_args ("analyze rejects bad structure in device data"), plus
// the two row-pointer ends for BCRS.
const Tamper kTampers[] = {
    {"CSR column == cols", SPX_FORMAT_CSR,
     [](HostSparse& s) { s.idx[s.idx.size() / 2] = static_cast<int32_t>(s.cols); },
     [](const HostSparse& s) { return at(s.idx.size() / 2, s.cols); }},
    {"CSR column -1", SPX_FORMAT_CSR, [](HostSparse& s) { s.idx[0] = -1; },
     [](const HostSparse&) { return at(0, -1); }},
    {"CSR column huge", SPX_FORMAT_CSR, [](HostSparse& s) { s.idx.back() = 1 << 30; },
     [](const HostSparse& s) { return at(s.idx.size() - 1, 1 << 30); }},
    {"CSR decreasing row_ptr", SPX_FORMAT_CSR,
     [](HostSparse& s) {
       const size_t r = s.ptr.size() / 2;
       s.ptr[r] = s.ptr[r + 1] + 1;
     },
     [](const HostSparse& s) { return at(s.ptr.size() / 2 + 1, s.ptr[s.ptr.size() / 2 + 1]); }},
    {"CSR row_ptr[0] != 0", SPX_FORMAT_CSR, [](HostSparse& s) { s.ptr[0] = 1; },
     [](const HostSparse&) { return at(0, 1); }},
    {"CSR row_ptr[rows] > nnz", SPX_FORMAT_CSR, [](HostSparse& s) { s.ptr.back() += 1; },
     [](const HostSparse& s) { return at(s.ptr.size() - 1, s.ptr.back()); }},
    {"BCRS block column == cols", SPX_FORMAT_BCRS,
     [](HostSparse& s) { s.idx[0] = static_cast<int32_t>(s.cols); },
     [](const HostSparse& s) { return at(0, s.cols); }},
    {"BCRS block column -1", SPX_FORMAT_BCRS, [](HostSparse& s) { s.idx.back() = -1; },
     [](const HostSparse& s) { return at(s.idx.size() - 1, -1); }},
    {"BCRS decreasing block_row_ptr", SPX_FORMAT_BCRS,
     [](HostSparse& s) {
       const size_t r = s.ptr.size() / 2;
       s.ptr[r] = s.ptr[r + 1] + 1;
     },
     [](const HostSparse& s) { return at(s.ptr.size() / 2 + 1, s.ptr[s.ptr.size() / 2 + 1]); }},
    {"BCRS block_row_ptr[0] != 0", SPX_FORMAT_BCRS, [](HostSparse& s) { s.ptr[0] = 1; },
     [](const HostSparse&) { return at(0, 1); }},
    {"BCRS block_row_ptr[R] > num_vectors", SPX_FORMAT_BCRS,
     [](HostSparse& s) { s.ptr.back() += 1; },
     [](const HostSparse& s) { return at(s.ptr.size() - 1, s.ptr.back()); }},
    {"NM index == m", SPX_FORMAT_NM, [](HostSparse& s) { s.idx[1] = static_cast<int32_t>(s.m); },
     [](const HostSparse& s) { return at(1, s.m); }},
    {"NM index -1", SPX_FORMAT_NM, [](HostSparse& s) { s.idx[2] = -1; },
     [](const HostSparse&) { return at(2, -1); }},
    {"NM repeated index in a window", SPX_FORMAT_NM, [](HostSparse& s) { s.idx[1] = s.idx[0]; },
     [](const HostSparse& s) { return at(1, s.idx[1]); }},
    // N >= 2 puts slots 4 and 5 in one window: after the swap slot 5 is the first bad one.
    {"NM decreasing indices in a window", SPX_FORMAT_NM,
     [](HostSparse& s) { std::swap(s.idx[4], s.idx[5]); },
     [](const HostSparse& s) { return at(5, s.idx[5]); }},
    {"ELL column == cols", SPX_FORMAT_ELL,
     [](HostSparse& s) { s.idx[0] = static_cast<int32_t>(s.cols); },
     [](const HostSparse& s) { return at(0, s.cols); }},
    {"ELL column -2", SPX_FORMAT_ELL, [](HostSparse& s) { s.idx[0] = -2; },
     [](const HostSparse&) { return at(0, -2); }},
};

/// A CSR matrix whose rows all hold `width` entries (what the ELL family takes from CSR: the
/// near-uniform rule), row r at columns r % step + j * step, step = cols / width.
HostSparse uniform_csr(Rng& rng, int64_t rows, int64_t cols, int64_t width, const ValueDist& dist) {
  HostSparse s = random_csr(rng, rows, cols, dist, 1.0);  // the values' source
  const int64_t step = cols / width;
  REQUIRE(step >= 1);
  REQUIRE(static_cast<int64_t>(s.idx.size()) >= rows * width);
  s.ptr.assign(1, 0);
  s.idx.clear();
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < width; ++j) s.idx.push_back(static_cast<int32_t>(r % step + j * step));
    s.ptr.push_back(static_cast<int32_t>(s.idx.size()));
  }
  s.values.resize(static_cast<size_t>(rows * width) * element_bytes(s.type));
  return s;
}

/// One family with one format and type combination.
struct FamilyConfig {
  const char* name;
  FormatSpec f;
  spxDataType_t in, out;
  spxSpMMAlg_t alg;
  int64_t m, k, n;
  bool uniform = false;  ///< CSR with equal rows (ELL's near-uniform rule)
};

// Shapes inside each family's can_implement: NM fp32 with M in {4, 8} and L up to 128 (rows a
// multiple of L), ELL fp32 / fp16 from ELL or near-uniform CSR, SR-BCRS 8I -> 32I from CSR or
// BCRS(8), SpTC fp16 from CSR or BCRS V in {1, 2, 4, 8, 16}.
const FamilyConfig kConfigs[] = {
    {"NM 2:4 L=16", nm_spec(2, 4, 16), SPX_R_32F, SPX_R_32F, SPX_SPMM_ALG_NM, 128, 64, 32},
    {"NM 2:8 L=32", nm_spec(2, 8, 32), SPX_R_32F, SPX_R_32F, SPX_SPMM_ALG_NM, 128, 64, 32},
    {"NM 4:8 L=64", nm_spec(4, 8, 64), SPX_R_32F, SPX_R_32F, SPX_SPMM_ALG_NM, 128, 64, 32},
    {"NM 2:4 L=128", nm_spec(2, 4, 128), SPX_R_32F, SPX_R_32F, SPX_SPMM_ALG_NM, 128, 64, 32},
    {"ELL fp32 from ELL", ell_spec(), SPX_R_32F, SPX_R_32F, SPX_SPMM_ALG_ELL, 64, 128, 32},
    {"ELL fp16 from ELL", ell_spec(), SPX_R_16F, SPX_R_16F, SPX_SPMM_ALG_ELL, 64, 128, 32},
    {"ELL fp32 from CSR", csr_spec(), SPX_R_32F, SPX_R_32F, SPX_SPMM_ALG_ELL, 64, 128, 32, true},
    {"ELL fp16 from CSR", csr_spec(), SPX_R_16F, SPX_R_32F, SPX_SPMM_ALG_ELL, 64, 128, 32, true},
    {"SR-BCRS 8I from CSR", csr_spec(), SPX_R_8I, SPX_R_32I, SPX_SPMM_ALG_SRBCRS, 64, 64, 32},
    {"SR-BCRS 8I from BCRS(8)", bcrs_spec(8), SPX_R_8I, SPX_R_32I, SPX_SPMM_ALG_SRBCRS, 64, 64, 32},
    {"SpTC fp16 from CSR", csr_spec(), SPX_R_16F, SPX_R_32F, SPX_SPMM_ALG_SPTC_REORDER, 64, 64, 32},
    {"SpTC fp16 from BCRS(1)", bcrs_spec(1), SPX_R_16F, SPX_R_16F, SPX_SPMM_ALG_SPTC_REORDER, 64, 64, 32},
    {"SpTC fp16 from BCRS(2)", bcrs_spec(2), SPX_R_16F, SPX_R_32F, SPX_SPMM_ALG_SPTC_REORDER, 64, 64, 32},
    {"SpTC fp16 from BCRS(4)", bcrs_spec(4), SPX_R_16F, SPX_R_16F, SPX_SPMM_ALG_SPTC_REORDER, 64, 64, 32},
    {"SpTC fp16 from BCRS(8)", bcrs_spec(8), SPX_R_16F, SPX_R_32F, SPX_SPMM_ALG_SPTC_REORDER, 64, 64, 32},
    {"SpTC fp16 from BCRS(16)", bcrs_spec(16), SPX_R_16F, SPX_R_32F, SPX_SPMM_ALG_SPTC_REORDER, 64, 64, 32},
};

/// The clean problem of a configuration (density 0.5: every row pointer edit bites).
Spmm make_problem(uint64_t seed, const FamilyConfig& c) {
  Spmm p = make_spmm(seed, c.f, c.m, c.k, c.n, c.in, c.out);
  Rng rng(seed + 7919);
  const ValueDist dist = operand_dist(c.in, c.k, c.out);
  if (c.uniform) {
    p.A = uniform_csr(rng, c.m, c.k, 16, dist);
  } else if (c.f.format != SPX_FORMAT_NM && c.f.format != SPX_FORMAT_ELL) {
    p.A = random_sparse(rng, c.f, c.m, c.k, dist, 0.5);
  }
  p.dA = to_device(p.A);
  return p;
}

}  // namespace

TEST_CASE("every family rejects bad structure in device data", "[api][bad][structure]") {
  UniqueHandle h = make_handle();
  uint64_t seed = 5200;
  int64_t runs = 0;
  for (const FamilyConfig& c : kConfigs) {
    INFO("family " << c.name);
    Spmm p = make_problem(seed++, c);
    for (const Tamper& t : kTampers) {
      if (t.format != c.f.format) continue;
      INFO("tamper: " << t.what);
      HostSparse A = p.A;
      t.edit(A);
      const DeviceSparse dA = to_device(A);
      CHECK_SPX_INVALID(try_analyze(h.get(), dA.get(), p.dB.get(), p.dC.get(), p.compute, c.alg));
      message_names(t.names(A));
      CHECK_SPX_INVALID(
          try_analyze(h.get(), dA.get(), p.dB.get(), p.dC.get(), p.compute, SPX_SPMM_ALG_DEFAULT));
      message_names(t.names(A));
      CHECK(untouched(p.dC, p.C));
      ++runs;
    }
    // The handle still works, and the clean structure really reaches the forced family.
    spxPlan_t raw = nullptr;
    REQUIRE_SPX(spxSpMM_analyze(h.get(), p.dA.get(), p.dB.get(), p.dC.get(), p.compute, c.alg, &raw));
    UniquePlan plan(raw);
    spxPlanInfo_t info;
    REQUIRE_SPX(spxPlanGetInfo(plan.get(), &info));
    CHECK(info.family == c.alg);
    run_and_check(h.get(), plan.get(), p, {1, 0}, p.A, std::string("after rejected structures: ") + c.name);
  }
  CHECK(runs == 74);  // NM 4 x 4, ELL 2 x 2, CSR 4 x 6, BCRS 6 x 5
}

TEST_CASE("SR-BCRS SDDMM rejects bad structure of C in device data", "[api][bad][structure]") {
  UniqueHandle h = make_handle();
  const FormatSpec formats[] = {csr_spec(), bcrs_spec(8)};
  uint64_t seed = 5300;
  for (const FormatSpec& f : formats) {
    INFO("C " << f.name());
    // A 64 x 64 (8I), B 64 x 32 (8I), C 64 x 32 (32I).
    Sddmm s = make_sddmm(seed++, f, 64, 64, 32, SPX_R_8I, SPX_R_32I);
    for (const Tamper& t : kTampers) {
      if (t.format != f.format) continue;
      INFO("tamper: " << t.what);
      HostSparse C = s.C;
      t.edit(C);
      const DeviceSparse dC = to_device(C, 256);
      CHECK_SPX_INVALID(try_analyze_sddmm(h.get(), s.dA.get(), s.dB.get(), dC.get(), s.compute,
                                          SPX_SPMM_ALG_SRBCRS));
      message_names(t.names(C));
      CHECK_SPX_INVALID(try_analyze_sddmm(h.get(), s.dA.get(), s.dB.get(), dC.get(), s.compute,
                                          SPX_SPMM_ALG_DEFAULT));
      message_names(t.names(C));
      CHECK(untouched(dC, C));
    }
    // The clean C analyzes with SR-BCRS and computes the right product.
    UniquePlan plan = analyze(h.get(), s, SPX_SPMM_ALG_SRBCRS);
    spxPlanInfo_t info;
    REQUIRE_SPX(spxPlanGetInfo(plan.get(), &info));
    CHECK(info.family == SPX_SPMM_ALG_SRBCRS);
    DeviceBuffer ws(workspace_bytes(plan.get()));
    const ScalarBytes alpha = make_scalar(1, SPX_R_32I), beta = make_scalar(0, SPX_R_32I);
    REQUIRE_SPX(spxSDDMM(h.get(), plan.get(), alpha.get(), s.dA.get(), s.dB.get(), beta.get(),
                         s.dC.get(), ws.get()));
    device_sync();
    const HostSparse got = download_values(s.dC, s.C);
    const CheckResult r = check_sparse_output(got, s.C, ref::sddmm(s.A, s.B, s.C, {1, 0}));
    INFO(r.report);
    CHECK(r.ok);
  }
}

TEST_CASE("SpTC refuses a repeated column; DEFAULT takes it elsewhere", "[api][bad][structure]") {
  UniqueHandle h = make_handle();
  const FormatSpec formats[] = {csr_spec(), bcrs_spec(2)};
  uint64_t seed = 5400;
  for (const FormatSpec& f : formats) {
    INFO("A " << f.name());
    Spmm q = make_spmm(seed++, f, 64, 64, 32, SPX_R_16F, SPX_R_32F);
    // Repeat the first entry's column in the first (vector-)row holding two entries.
    HostSparse A = q.A;
    size_t row = 0;
    while (row + 1 < A.ptr.size() && A.ptr[row + 1] - A.ptr[row] < 2) ++row;
    REQUIRE(row + 1 < A.ptr.size());
    const size_t first = static_cast<size_t>(A.ptr[row]);
    A.idx[first + 1] = A.idx[first];
    q.A = A;
    q.dA = to_device(A);
    CHECK_SPX_STATUS(try_analyze(h.get(), q.dA.get(), q.dB.get(), q.dC.get(), q.compute,
                                 SPX_SPMM_ALG_SPTC_REORDER),
                     SPX_STATUS_NOT_SUPPORTED);
    message_names(std::to_string(row) + " repeats column " + std::to_string(A.idx[first]));
    message_names(at(first + 1, A.idx[first]));
    CHECK(untouched(q.dC, q.C));
    // DEFAULT: another family (the fallback adds both entries) computes the product.
    UniquePlan plan = analyze(h.get(), q);
    spxPlanInfo_t info;
    REQUIRE_SPX(spxPlanGetInfo(plan.get(), &info));
    CHECK(info.family != SPX_SPMM_ALG_SPTC_REORDER);
    run_and_check(h.get(), plan.get(), q, {1, 0}, q.A, "repeated column through DEFAULT");
  }
}
