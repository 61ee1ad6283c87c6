// The C API where no device is needed: status names, version, the thread-local error message,
// spxCreate's answer without a GPU, descriptors of every format (over fake device pointers:
// descriptors never dereference them) and the argument checks of every entry point that can be
// reached without a handle. Every rejected call must return the exact status and say why.
// Catch2's main comes from the CPU suites' shared main object (see api.cmake).
#include <catch2/catch.hpp>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <set>
#include <string>
#include <thread>

#include "spx/spx.h"
#include "spx_catch.hpp"

namespace {

// Distinct, non-null, never dereferenced "device" pointers.
void* fake(uintptr_t i) { return reinterpret_cast<void*>(uintptr_t{0x7f0000100000} + i * 0x1000); }

const spxDataType_t kAllTypes[] = {SPX_R_32F, SPX_R_16F, SPX_R_16BF, SPX_R_8I, SPX_R_4I,
                                   SPX_R_16I, SPX_R_32I, SPX_R_8U,  SPX_R_4U};
const spxDataType_t kBadTypes[] = {static_cast<spxDataType_t>(99), static_cast<spxDataType_t>(-1),
                                   static_cast<spxDataType_t>(9)};

std::string last_message() { return spxGetLastErrorMessage(); }

}  // namespace

// ---------------------------------------------------------------- ABI

static_assert(SPX_STATUS_SUCCESS == 0 && SPX_STATUS_NOT_INITIALIZED == 1 &&
                  SPX_STATUS_ALLOC_FAILED == 2 && SPX_STATUS_INVALID_VALUE == 3 &&
                  SPX_STATUS_ARCH_MISMATCH == 4 && SPX_STATUS_EXECUTION_FAILED == 5 &&
                  SPX_STATUS_INTERNAL_ERROR == 6 && SPX_STATUS_NOT_SUPPORTED == 7 &&
                  SPX_STATUS_IO_ERROR == 8,
              "status values are ABI");
static_assert(SPX_R_32F == 0 && SPX_R_16F == 1 && SPX_R_16BF == 2 && SPX_R_8I == 3 &&
                  SPX_R_4I == 4 && SPX_R_16I == 5 && SPX_R_32I == 6 && SPX_R_8U == 7 &&
                  SPX_R_4U == 8,
              "data type values are ABI");
static_assert(SPX_ORDER_ROW == 0 && SPX_ORDER_COL == 1, "order values are ABI");
static_assert(SPX_FORMAT_CSR == 0 && SPX_FORMAT_BCRS == 1 && SPX_FORMAT_NM == 2 &&
                  SPX_FORMAT_ELL == 3,
              "format values are ABI");
static_assert(SPX_SPMM_ALG_DEFAULT == 0 && SPX_SPMM_ALG_NM == 1 && SPX_SPMM_ALG_ELL == 2 &&
                  SPX_SPMM_ALG_SRBCRS == 3 && SPX_SPMM_ALG_SPTC_REORDER == 4 &&
                  SPX_SPMM_ALG_FALLBACK == 5 && SPX_SPMM_ALG_DENSE == 6,
              "algorithm values are ABI");
static_assert(SPX_POINTER_MODE_HOST == 0 && SPX_POINTER_MODE_DEVICE == 1, "pointer modes are ABI");
static_assert(SPX_PLAN_OPTION_AUTOTUNE == 0 && SPX_PLAN_OPTION_SPARSE_VALUES_LAYOUT == 1 &&
                  SPX_PLAN_OPTION_DENSE_ROUTE == 2 && SPX_PLAN_OPTION_ALLOW_TF32 == 3 &&
                  SPX_PLAN_OPTION_MAX_N == 4,
              "plan option values are ABI");
static_assert(SPX_DENSE_ROUTE_AUTO == 0 && SPX_DENSE_ROUTE_NEVER == 1 && SPX_DENSE_ROUTE_ALWAYS == 2 &&
                  SPX_DENSE_ROUTE_AUTO_EVERY_N == 3,
              "dense route values are ABI");
// The dense route's fields, then max_n and prepared_sizes, took their room from the former
// `reserved` array (the size below is unchanged).
static_assert(offsetof(spxPlanInfo_t, route) == offsetof(spxPlanInfo_t, predicted_speedup) + 8 &&
                  offsetof(spxPlanInfo_t, max_n) == offsetof(spxPlanInfo_t, dense_bytes) + 8 &&
                  offsetof(spxPlanInfo_t, prepared_sizes) + sizeof(int64_t) ==
                      sizeof(spxPlanInfo_t),
              "plan info: the dense route's fields follow predicted_speedup");
// The struct keeps its size (LP64: 400 bytes).
static_assert(sizeof(spxPlanInfo_t::kernel) == 64 && sizeof(spxPlanInfo_t::config) == 192 &&
                  (sizeof(void*) != 8 || sizeof(spxPlanInfo_t) == 400),
              "plan info layout is ABI");
static_assert(SPX_VERSION == SPX_VERSION_MAJOR * 10000 + SPX_VERSION_MINOR * 100 + SPX_VERSION_PATCH,
              "SPX_VERSION encoding");

// ---------------------------------------------------------------- errors and version

TEST_CASE("every status has a name and a description", "[api][cpu]") {
  const char* const names[] = {"SPX_STATUS_SUCCESS",          "SPX_STATUS_NOT_INITIALIZED",
                               "SPX_STATUS_ALLOC_FAILED",     "SPX_STATUS_INVALID_VALUE",
                               "SPX_STATUS_ARCH_MISMATCH",    "SPX_STATUS_EXECUTION_FAILED",
                               "SPX_STATUS_INTERNAL_ERROR",   "SPX_STATUS_NOT_SUPPORTED",
                               "SPX_STATUS_IO_ERROR"};
  std::set<std::string> strings;
  for (int i = 0; i <= 8; ++i) {
    const auto st = static_cast<spxStatus_t>(i);
    INFO("status " << i);
    const char* name = spxGetStatusName(st);
    const char* text = spxGetStatusString(st);
    REQUIRE(name != nullptr);
    REQUIRE(text != nullptr);
    CHECK(std::string(name) == names[i]);
    CHECK(std::strlen(text) > 0);
    strings.insert(text);
  }
  CHECK(strings.size() == 9);  // each status described differently

  for (int unknown : {9, 99, -1, 1 << 30}) {
    INFO("unknown status " << unknown);
    const char* name = spxGetStatusName(static_cast<spxStatus_t>(unknown));
    const char* text = spxGetStatusString(static_cast<spxStatus_t>(unknown));
    REQUIRE(name != nullptr);
    REQUIRE(text != nullptr);
    CHECK(std::strlen(name) > 0);
    CHECK(std::strlen(text) > 0);
  }
}

TEST_CASE("spxGetVersion and the last error message", "[api][cpu]") {
  int version = -1;
  CHECK_SPX_STATUS(spxGetVersion(&version), SPX_STATUS_SUCCESS);
  CHECK(version == SPX_VERSION);
  REQUIRE(spxGetLastErrorMessage() != nullptr);

  // A failure sets a message; reading it does not clear it; nor does a successful call
  // (errno-like: an RAII destructor calling spxDestroy* must not erase it).
  const spxStatus_t st = spxGetVersion(nullptr);
  const std::string first = last_message();
  const std::string again = last_message();
  CHECK(st == SPX_STATUS_INVALID_VALUE);
  CHECK_FALSE(first.empty());
  CHECK(again == first);
  CHECK_SPX_STATUS(spxGetVersion(&version), SPX_STATUS_SUCCESS);
  CHECK_SPX_STATUS(spxDestroyDnMat(nullptr), SPX_STATUS_SUCCESS);
  CHECK(last_message() == first);
  // The next failure replaces it.
  spxDnMatDescr_t d = nullptr;
  CHECK_SPX_INVALID(spxCreateDnMat(&d, -1, 4, 4, fake(1), SPX_R_32F, SPX_ORDER_ROW));
  CHECK(last_message() != first);
}

TEST_CASE("the last error message is per thread", "[api][cpu]") {
  const spxStatus_t st = spxGetVersion(nullptr);
  const std::string mine = last_message();  // read before any other libspx call
  CHECK(st == SPX_STATUS_INVALID_VALUE);
  REQUIRE_FALSE(mine.empty());

  std::string other_before, other_after_fail;
  spxStatus_t other_status = SPX_STATUS_SUCCESS;
  std::thread t([&] {
    other_before = spxGetLastErrorMessage();
    spxDnMatDescr_t d = nullptr;
    other_status = spxCreateDnMat(&d, -1, 4, 4, fake(1), SPX_R_32F, SPX_ORDER_ROW);
    other_after_fail = spxGetLastErrorMessage();
  });
  t.join();
  CHECK(other_before.empty());  // a new thread starts without a message
  CHECK(other_status == SPX_STATUS_INVALID_VALUE);
  CHECK_FALSE(other_after_fail.empty());
  CHECK(last_message() == mine);  // the other thread's failure did not replace ours
}

// ---------------------------------------------------------------- handle

TEST_CASE("spxCreate answers by the devices present", "[api][cpu]") {
  int count = 0;
  const cudaError_t err = cudaGetDeviceCount(&count);
  if (err != cudaSuccess) cudaGetLastError();
  spxStatus_t want = SPX_STATUS_NOT_INITIALIZED;
  if (err == cudaSuccess && count > 0) {
    cudaDeviceProp prop{};
    REQUIRE(cudaGetDeviceProperties(&prop, 0) == cudaSuccess);
    want = prop.major >= 8 ? SPX_STATUS_SUCCESS : SPX_STATUS_ARCH_MISMATCH;
  }
  INFO("cudaGetDeviceCount: " << cudaGetErrorName(err) << ", " << count << " device(s)");
  spxHandle_t h = nullptr;
  CHECK_SPX_STATUS(spxCreate(&h), want);
  if (want == SPX_STATUS_SUCCESS) {
    CHECK(h != nullptr);
    CHECK_SPX_STATUS(spxDestroy(h), SPX_STATUS_SUCCESS);
  }
  CHECK_SPX_INVALID(spxCreate(nullptr));
}

TEST_CASE("handle calls reject a null handle", "[api][cpu]") {
  CHECK_SPX_STATUS(spxDestroy(nullptr), SPX_STATUS_SUCCESS);
  spxStream_t stream = nullptr;
  spxPointerMode_t mode = SPX_POINTER_MODE_HOST;
  CHECK_SPX_INVALID(spxSetStream(nullptr, nullptr));
  CHECK_SPX_INVALID(spxSetStream(nullptr, reinterpret_cast<spxStream_t>(fake(1))));
  CHECK_SPX_INVALID(spxGetStream(nullptr, &stream));
  CHECK_SPX_INVALID(spxSetPointerMode(nullptr, SPX_POINTER_MODE_HOST));
  CHECK_SPX_INVALID(spxSetPointerMode(nullptr, SPX_POINTER_MODE_DEVICE));
  CHECK_SPX_INVALID(spxGetPointerMode(nullptr, &mode));
}

TEST_CASE("operations reject a null handle and a null plan", "[api][cpu]") {
  // Valid descriptors over fake pointers: A 16 x 32 CSR, B 32 x 8, C 16 x 8 (SpMM);
  // Ad 16 x 32, Bd 32 x 8 dense, Cs 16 x 8 CSR (SDDMM).
  spxSpMatDescr_t A = nullptr, Cs = nullptr;
  spxDnMatDescr_t B = nullptr, C = nullptr, Ad = nullptr;
  REQUIRE_SPX(spxCreateCsr(&A, 16, 32, 40, fake(1), fake(2), fake(3), SPX_R_32F));
  REQUIRE_SPX(spxCreateDnMat(&B, 32, 8, 8, fake(4), SPX_R_32F, SPX_ORDER_ROW));
  REQUIRE_SPX(spxCreateDnMat(&C, 16, 8, 8, fake(5), SPX_R_32F, SPX_ORDER_ROW));
  REQUIRE_SPX(spxCreateDnMat(&Ad, 16, 32, 32, fake(6), SPX_R_32F, SPX_ORDER_ROW));
  REQUIRE_SPX(spxCreateCsr(&Cs, 16, 8, 20, fake(7), fake(8), fake(9), SPX_R_32F));
  const float alpha = 1, beta = 0;
  spxPlan_t plan = nullptr;
  spxPlanInfo_t info{};
  size_t bytes = 0;

  CHECK_SPX_INVALID(spxSpMM_analyze(nullptr, A, B, C, SPX_R_32F, SPX_SPMM_ALG_DEFAULT, &plan));
  CHECK(plan == nullptr);
  CHECK_SPX_INVALID(spxSpMM_analyzeWithOptions(nullptr, A, B, C, SPX_R_32F, SPX_SPMM_ALG_DEFAULT,
                                               nullptr, &plan));
  CHECK(plan == nullptr);
  CHECK_SPX_INVALID(spxSDDMM_analyzeWithOptions(nullptr, Ad, B, Cs, SPX_R_32F,
                                                SPX_SPMM_ALG_DEFAULT, nullptr, &plan));
  CHECK(plan == nullptr);
  CHECK_SPX_INVALID(spxSpMM(nullptr, nullptr, &alpha, A, B, &beta, C, nullptr));
  CHECK_SPX_INVALID(spxSpMM_search(nullptr, nullptr, &alpha, A, B, &beta, C, nullptr));
  CHECK_SPX_INVALID(spxSDDMM_analyze(nullptr, Ad, B, Cs, SPX_R_32F, SPX_SPMM_ALG_DEFAULT, &plan));
  CHECK(plan == nullptr);
  CHECK_SPX_INVALID(spxSDDMM(nullptr, nullptr, &alpha, Ad, B, &beta, Cs, nullptr));
  CHECK_SPX_INVALID(spxPlanUpdateValues(nullptr, nullptr, A));
  CHECK_SPX_INVALID(spxPlanGetInfo(nullptr, &info));
  CHECK_SPX_INVALID(spxPlanGetWorkspaceSize(nullptr, &bytes));
  CHECK_SPX_STATUS(spxPlanDestroy(nullptr), SPX_STATUS_SUCCESS);

  CHECK_SPX_STATUS(spxDestroySpMat(A), SPX_STATUS_SUCCESS);
  CHECK_SPX_STATUS(spxDestroySpMat(Cs), SPX_STATUS_SUCCESS);
  CHECK_SPX_STATUS(spxDestroyDnMat(B), SPX_STATUS_SUCCESS);
  CHECK_SPX_STATUS(spxDestroyDnMat(C), SPX_STATUS_SUCCESS);
  CHECK_SPX_STATUS(spxDestroyDnMat(Ad), SPX_STATUS_SUCCESS);
}

// ---------------------------------------------------------------- analyze options

TEST_CASE("plan options: defaults, set and get", "[api][cpu]") {
  spxPlanOptions_t opts = nullptr;
  REQUIRE_SPX(spxCreatePlanOptions(&opts));
  REQUIRE(opts != nullptr);
  int32_t v = -7;
  REQUIRE_SPX(spxPlanOptionsGet(opts, SPX_PLAN_OPTION_AUTOTUNE, &v, sizeof v));
  CHECK(v == 0);
  const int32_t on = 1, off = 0;
  REQUIRE_SPX(spxPlanOptionsSet(opts, SPX_PLAN_OPTION_AUTOTUNE, &on, sizeof on));
  REQUIRE_SPX(spxPlanOptionsGet(opts, SPX_PLAN_OPTION_AUTOTUNE, &v, sizeof v));
  CHECK(v == 1);
  REQUIRE_SPX(spxPlanOptionsSet(opts, SPX_PLAN_OPTION_AUTOTUNE, &off, sizeof off));
  REQUIRE_SPX(spxPlanOptionsGet(opts, SPX_PLAN_OPTION_AUTOTUNE, &v, sizeof v));
  CHECK(v == 0);
  CHECK_SPX_STATUS(spxDestroyPlanOptions(opts), SPX_STATUS_SUCCESS);
  CHECK_SPX_STATUS(spxDestroyPlanOptions(nullptr), SPX_STATUS_SUCCESS);
}

TEST_CASE("plan options: bad arguments", "[api][cpu]") {
  CHECK_SPX_INVALID(spxCreatePlanOptions(nullptr));
  spxPlanOptions_t opts = nullptr;
  REQUIRE_SPX(spxCreatePlanOptions(&opts));
  const int32_t on = 1;
  int32_t v = 0;
  const auto unknown = static_cast<spxPlanOption_t>(99);
  CHECK_SPX_INVALID(spxPlanOptionsSet(nullptr, SPX_PLAN_OPTION_AUTOTUNE, &on, sizeof on));
  CHECK_SPX_INVALID(spxPlanOptionsGet(nullptr, SPX_PLAN_OPTION_AUTOTUNE, &v, sizeof v));
  CHECK_SPX_INVALID(spxPlanOptionsSet(opts, SPX_PLAN_OPTION_AUTOTUNE, nullptr, sizeof on));
  CHECK(last_message().find("value") != std::string::npos);
  CHECK_SPX_INVALID(spxPlanOptionsGet(opts, SPX_PLAN_OPTION_AUTOTUNE, nullptr, sizeof v));
  CHECK_SPX_INVALID(spxPlanOptionsSet(opts, unknown, &on, sizeof on));
  CHECK(last_message().find("99") != std::string::npos);
  CHECK_SPX_INVALID(spxPlanOptionsGet(opts, unknown, &v, sizeof v));
  CHECK_SPX_INVALID(spxPlanOptionsSet(opts, SPX_PLAN_OPTION_AUTOTUNE, &on, 8));
  CHECK(last_message().find("size (8)") != std::string::npos);
  CHECK_SPX_INVALID(spxPlanOptionsGet(opts, SPX_PLAN_OPTION_AUTOTUNE, &v, 2));
  for (const int32_t bad : {2, -1}) {
    CHECK_SPX_INVALID(spxPlanOptionsSet(opts, SPX_PLAN_OPTION_AUTOTUNE, &bad, sizeof bad));
    CHECK(last_message().find("0 or 1") != std::string::npos);
  }
  // A rejected value leaves the object unchanged.
  REQUIRE_SPX(spxPlanOptionsGet(opts, SPX_PLAN_OPTION_AUTOTUNE, &v, sizeof v));
  CHECK(v == 0);
  CHECK_SPX_STATUS(spxDestroyPlanOptions(opts), SPX_STATUS_SUCCESS);
}

TEST_CASE("plan options: the dense route and TF32", "[api][cpu]") {
  spxPlanOptions_t opts = nullptr;
  REQUIRE_SPX(spxCreatePlanOptions(&opts));
  int32_t v = -7;
  REQUIRE_SPX(spxPlanOptionsGet(opts, SPX_PLAN_OPTION_DENSE_ROUTE, &v, sizeof v));
  CHECK(v == SPX_DENSE_ROUTE_AUTO);
  REQUIRE_SPX(spxPlanOptionsGet(opts, SPX_PLAN_OPTION_ALLOW_TF32, &v, sizeof v));
  CHECK(v == 0);
  for (const int32_t route : {SPX_DENSE_ROUTE_NEVER, SPX_DENSE_ROUTE_ALWAYS,
                              SPX_DENSE_ROUTE_AUTO_EVERY_N, SPX_DENSE_ROUTE_AUTO}) {
    REQUIRE_SPX(spxPlanOptionsSet(opts, SPX_PLAN_OPTION_DENSE_ROUTE, &route, sizeof route));
    REQUIRE_SPX(spxPlanOptionsGet(opts, SPX_PLAN_OPTION_DENSE_ROUTE, &v, sizeof v));
    CHECK(v == route);
  }
  const int32_t always = SPX_DENSE_ROUTE_ALWAYS, on = 1;
  REQUIRE_SPX(spxPlanOptionsSet(opts, SPX_PLAN_OPTION_DENSE_ROUTE, &always, sizeof always));
  REQUIRE_SPX(spxPlanOptionsSet(opts, SPX_PLAN_OPTION_ALLOW_TF32, &on, sizeof on));
  for (const int32_t bad : {4, -1, 99}) {
    CHECK_SPX_INVALID(spxPlanOptionsSet(opts, SPX_PLAN_OPTION_DENSE_ROUTE, &bad, sizeof bad));
    CHECK(last_message().find("SPX_PLAN_OPTION_DENSE_ROUTE") != std::string::npos);
    CHECK(last_message().find("SPX_DENSE_ROUTE_ALWAYS (2)") != std::string::npos);
    CHECK_SPX_INVALID(spxPlanOptionsSet(opts, SPX_PLAN_OPTION_ALLOW_TF32, &bad, sizeof bad));
    CHECK(last_message().find("SPX_PLAN_OPTION_ALLOW_TF32 must be 0 or 1") != std::string::npos);
  }
  const int64_t wide = 1;
  CHECK_SPX_INVALID(spxPlanOptionsSet(opts, SPX_PLAN_OPTION_DENSE_ROUTE, &wide, sizeof wide));
  CHECK_SPX_INVALID(spxPlanOptionsGet(opts, SPX_PLAN_OPTION_ALLOW_TF32, &v, 2));
  // Rejected values leave the object unchanged.
  REQUIRE_SPX(spxPlanOptionsGet(opts, SPX_PLAN_OPTION_DENSE_ROUTE, &v, sizeof v));
  CHECK(v == SPX_DENSE_ROUTE_ALWAYS);
  REQUIRE_SPX(spxPlanOptionsGet(opts, SPX_PLAN_OPTION_ALLOW_TF32, &v, sizeof v));
  CHECK(v == 1);
  CHECK_SPX_STATUS(spxDestroyPlanOptions(opts), SPX_STATUS_SUCCESS);
}

// ---------------------------------------------------------------- dense descriptors

TEST_CASE("dense descriptor: create read back and set values", "[api][cpu]") {
  for (spxOrder_t order : {SPX_ORDER_ROW, SPX_ORDER_COL})
    for (spxDataType_t type : kAllTypes) {
      INFO("order " << order << ", type " << type);
      spxDnMatDescr_t d = nullptr;
      CHECK_SPX_STATUS(spxCreateDnMat(&d, 6, 4, 10, fake(1), type, order), SPX_STATUS_SUCCESS);
      REQUIRE(d != nullptr);
      int64_t rows = 0, cols = 0, ld = 0;
      void* values = nullptr;
      spxDataType_t t = SPX_R_32F;
      spxOrder_t o = SPX_ORDER_ROW;
      CHECK_SPX_STATUS(spxDnMatGet(d, &rows, &cols, &ld, &values, &t, &o), SPX_STATUS_SUCCESS);
      CHECK(rows == 6);
      CHECK(cols == 4);
      CHECK(ld == 10);
      CHECK(values == fake(1));
      CHECK(t == type);
      CHECK(o == order);
      CHECK_SPX_STATUS(spxDnMatGet(d, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr),
                       SPX_STATUS_SUCCESS);
      CHECK_SPX_STATUS(spxDnMatSetValues(d, fake(2)), SPX_STATUS_SUCCESS);
      CHECK_SPX_STATUS(spxDnMatGet(d, nullptr, nullptr, nullptr, &values, nullptr, nullptr),
                       SPX_STATUS_SUCCESS);
      CHECK(values == fake(2));
      CHECK_SPX_STATUS(spxDestroyDnMat(d), SPX_STATUS_SUCCESS);
    }

  // Minimal leading dimensions, empty matrices (values may be NULL), 4-bit with even ld.
  struct Ok {
    int64_t rows, cols, ld;
    void* values;
    spxDataType_t type;
    spxOrder_t order;
  };
  const Ok ok[] = {{6, 4, 4, fake(1), SPX_R_32F, SPX_ORDER_ROW},
                   {4, 6, 4, fake(1), SPX_R_32F, SPX_ORDER_COL},
                   {6, 4, 4, fake(1), SPX_R_16F, SPX_ORDER_ROW},  // ld >= cols is enough
                   {0, 4, 4, nullptr, SPX_R_32F, SPX_ORDER_ROW},
                   {4, 0, 4, nullptr, SPX_R_32F, SPX_ORDER_COL},
                   {0, 0, 1, nullptr, SPX_R_32F, SPX_ORDER_ROW},
                   {1, 1, 1, fake(1), SPX_R_8I, SPX_ORDER_ROW},
                   {5, 6, 6, fake(1), SPX_R_4I, SPX_ORDER_ROW},
                   {6, 5, 6, fake(1), SPX_R_4U, SPX_ORDER_COL},
                   {3, 3, 4, fake(1), SPX_R_4I, SPX_ORDER_ROW},
                   {3, 3, 3, fake(1), SPX_R_32I, SPX_ORDER_ROW}};
  for (const Ok& c : ok) {
    INFO(c.rows << " x " << c.cols << " ld " << c.ld << " type " << c.type << " order " << c.order);
    spxDnMatDescr_t d = nullptr;
    CHECK_SPX_STATUS(spxCreateDnMat(&d, c.rows, c.cols, c.ld, c.values, c.type, c.order),
                     SPX_STATUS_SUCCESS);
    CHECK_SPX_STATUS(spxDestroyDnMat(d), SPX_STATUS_SUCCESS);
  }
  CHECK_SPX_STATUS(spxDestroyDnMat(nullptr), SPX_STATUS_SUCCESS);
}

TEST_CASE("dense descriptor: bad arguments", "[api][cpu]") {
  spxDnMatDescr_t d = nullptr;
  const auto R = SPX_ORDER_ROW;
  const auto C = SPX_ORDER_COL;
  CHECK_SPX_INVALID(spxCreateDnMat(nullptr, 4, 4, 4, fake(1), SPX_R_32F, R));
  CHECK_SPX_INVALID(spxCreateDnMat(&d, -1, 4, 4, fake(1), SPX_R_32F, R));
  CHECK_SPX_INVALID(spxCreateDnMat(&d, 4, -1, 4, fake(1), SPX_R_32F, R));
  CHECK_SPX_INVALID(spxCreateDnMat(&d, 4, 6, 5, fake(1), SPX_R_32F, R));   // ld < cols
  CHECK_SPX_INVALID(spxCreateDnMat(&d, 6, 4, 5, fake(1), SPX_R_32F, C));   // ld < rows
  CHECK_SPX_INVALID(spxCreateDnMat(&d, 6, 4, -4, fake(1), SPX_R_32F, R));
  CHECK_SPX_INVALID(spxCreateDnMat(&d, 0, 0, 0, nullptr, SPX_R_32F, R));   // ld >= 1
  CHECK_SPX_INVALID(spxCreateDnMat(&d, 4, 5, 5, fake(1), SPX_R_4I, R));    // 4-bit, odd ld
  CHECK_SPX_INVALID(spxCreateDnMat(&d, 5, 4, 5, fake(1), SPX_R_4U, C));
  CHECK_SPX_INVALID(spxCreateDnMat(&d, 4, 4, 4, nullptr, SPX_R_32F, R));   // values NULL
  for (spxDataType_t bad : kBadTypes) CHECK_SPX_INVALID(spxCreateDnMat(&d, 4, 4, 4, fake(1), bad, R));
  CHECK_SPX_INVALID(spxCreateDnMat(&d, 4, 4, 4, fake(1), SPX_R_32F, static_cast<spxOrder_t>(2)));
  CHECK_SPX_INVALID(spxCreateDnMat(&d, 4, 4, 4, fake(1), SPX_R_32F, static_cast<spxOrder_t>(-1)));

  int64_t rows = 0;
  CHECK_SPX_INVALID(spxDnMatGet(nullptr, &rows, nullptr, nullptr, nullptr, nullptr, nullptr));
  CHECK_SPX_INVALID(spxDnMatSetValues(nullptr, fake(1)));
  REQUIRE_SPX(spxCreateDnMat(&d, 4, 4, 4, fake(1), SPX_R_32F, R));
  CHECK_SPX_INVALID(spxDnMatSetValues(d, nullptr));  // a non-empty matrix needs data
  void* values = nullptr;
  REQUIRE_SPX(spxDnMatGet(d, nullptr, nullptr, nullptr, &values, nullptr, nullptr));
  CHECK(values == fake(1));  // the rejected call changed nothing
  CHECK_SPX_STATUS(spxDestroyDnMat(d), SPX_STATUS_SUCCESS);
}

// ---------------------------------------------------------------- sparse descriptors

namespace {

// Reads a sparse descriptor back and checks it against what it was created with.
void check_sparse(spxSpMatDescr_t d, int64_t rows, int64_t cols, int64_t nnz, spxFormat_t format,
                  spxDataType_t type) {
  int64_t r = -7, c = -7, n = -7;
  CHECK_SPX_STATUS(spxSpMatGetSize(d, &r, &c, &n), SPX_STATUS_SUCCESS);
  CHECK(r == rows);
  CHECK(c == cols);
  CHECK(n == nnz);
  CHECK_SPX_STATUS(spxSpMatGetSize(d, nullptr, nullptr, nullptr), SPX_STATUS_SUCCESS);
  spxFormat_t f = static_cast<spxFormat_t>(-1);
  CHECK_SPX_STATUS(spxSpMatGetFormat(d, &f), SPX_STATUS_SUCCESS);
  CHECK(f == format);
  spxDataType_t t = static_cast<spxDataType_t>(-1);
  CHECK_SPX_STATUS(spxSpMatGetValueType(d, &t), SPX_STATUS_SUCCESS);
  CHECK(t == type);
  CHECK_SPX_STATUS(spxSpMatSetValues(d, fake(50)), SPX_STATUS_SUCCESS);
  // Same structure after new values.
  CHECK_SPX_STATUS(spxSpMatGetSize(d, &r, &c, &n), SPX_STATUS_SUCCESS);
  CHECK(n == nnz);
}

}  // namespace

TEST_CASE("sparse descriptors of every format: create and read back", "[api][cpu]") {
  for (spxDataType_t type : kAllTypes) {
    INFO("type " << type);
    spxSpMatDescr_t d = nullptr;
    CHECK_SPX_STATUS(spxCreateCsr(&d, 8, 10, 20, fake(1), fake(2), fake(3), type), SPX_STATUS_SUCCESS);
    check_sparse(d, 8, 10, 20, SPX_FORMAT_CSR, type);
    CHECK_SPX_STATUS(spxDestroySpMat(d), SPX_STATUS_SUCCESS);

    for (int64_t v : {1, 2, 4, 8, 16}) {
      INFO("V " << v);
      CHECK_SPX_STATUS(spxCreateBcrs(&d, 16 * 3, 10, v, 6, fake(1), fake(2), fake(3), type),
                       SPX_STATUS_SUCCESS);
      check_sparse(d, 48, 10, 6 * v, SPX_FORMAT_BCRS, type);
      CHECK_SPX_STATUS(spxDestroySpMat(d), SPX_STATUS_SUCCESS);
    }

    // NM 8 x 16, 2:4, l = 2: kc = 16 / 4 * 2 = 8, nnz = 8 * 8.
    CHECK_SPX_STATUS(spxCreateNM(&d, 8, 16, 2, 4, 2, fake(1), fake(2), type), SPX_STATUS_SUCCESS);
    check_sparse(d, 8, 16, 64, SPX_FORMAT_NM, type);
    CHECK_SPX_STATUS(spxDestroySpMat(d), SPX_STATUS_SUCCESS);

    CHECK_SPX_STATUS(spxCreateEll(&d, 8, 10, 3, fake(1), fake(2), type), SPX_STATUS_SUCCESS);
    check_sparse(d, 8, 10, 24, SPX_FORMAT_ELL, type);
    CHECK_SPX_STATUS(spxDestroySpMat(d), SPX_STATUS_SUCCESS);
  }

  // Edge cases that are valid: empty structures with NULL arrays, n == m, l == 1, width == cols.
  spxSpMatDescr_t d = nullptr;
  CHECK_SPX_STATUS(spxCreateCsr(&d, 8, 10, 0, fake(1), nullptr, nullptr, SPX_R_32F), SPX_STATUS_SUCCESS);
  check_sparse(d, 8, 10, 0, SPX_FORMAT_CSR, SPX_R_32F);
  CHECK_SPX_STATUS(spxDestroySpMat(d), SPX_STATUS_SUCCESS);
  CHECK_SPX_STATUS(spxCreateCsr(&d, 0, 0, 0, fake(1), nullptr, nullptr, SPX_R_32F), SPX_STATUS_SUCCESS);
  CHECK_SPX_STATUS(spxDestroySpMat(d), SPX_STATUS_SUCCESS);
  CHECK_SPX_STATUS(spxCreateBcrs(&d, 8, 10, 4, 0, fake(1), nullptr, nullptr, SPX_R_8I), SPX_STATUS_SUCCESS);
  check_sparse(d, 8, 10, 0, SPX_FORMAT_BCRS, SPX_R_8I);
  CHECK_SPX_STATUS(spxDestroySpMat(d), SPX_STATUS_SUCCESS);
  CHECK_SPX_STATUS(spxCreateNM(&d, 4, 8, 4, 4, 1, fake(1), fake(2), SPX_R_16F), SPX_STATUS_SUCCESS);
  check_sparse(d, 4, 8, 32, SPX_FORMAT_NM, SPX_R_16F);
  CHECK_SPX_STATUS(spxDestroySpMat(d), SPX_STATUS_SUCCESS);
  CHECK_SPX_STATUS(spxCreateNM(&d, 0, 0, 1, 4, 4, nullptr, nullptr, SPX_R_32F), SPX_STATUS_SUCCESS);
  CHECK_SPX_STATUS(spxDestroySpMat(d), SPX_STATUS_SUCCESS);
  CHECK_SPX_STATUS(spxCreateEll(&d, 8, 10, 0, nullptr, nullptr, SPX_R_32F), SPX_STATUS_SUCCESS);
  check_sparse(d, 8, 10, 0, SPX_FORMAT_ELL, SPX_R_32F);
  CHECK_SPX_STATUS(spxDestroySpMat(d), SPX_STATUS_SUCCESS);
  CHECK_SPX_STATUS(spxCreateEll(&d, 8, 10, 10, fake(1), fake(2), SPX_R_32F), SPX_STATUS_SUCCESS);
  CHECK_SPX_STATUS(spxDestroySpMat(d), SPX_STATUS_SUCCESS);
  CHECK_SPX_STATUS(spxDestroySpMat(nullptr), SPX_STATUS_SUCCESS);
}

TEST_CASE("CSR descriptor: bad arguments", "[api][cpu]") {
  spxSpMatDescr_t d = nullptr;
  const auto F = SPX_R_32F;
  CHECK_SPX_INVALID(spxCreateCsr(nullptr, 8, 10, 20, fake(1), fake(2), fake(3), F));
  CHECK_SPX_INVALID(spxCreateCsr(&d, -1, 10, 20, fake(1), fake(2), fake(3), F));
  CHECK_SPX_INVALID(spxCreateCsr(&d, 8, -1, 20, fake(1), fake(2), fake(3), F));
  CHECK_SPX_INVALID(spxCreateCsr(&d, 8, 10, -1, fake(1), fake(2), fake(3), F));
  CHECK_SPX_INVALID(spxCreateCsr(&d, 8, 10, 20, nullptr, fake(2), fake(3), F));
  CHECK_SPX_INVALID(spxCreateCsr(&d, 8, 10, 20, fake(1), nullptr, fake(3), F));
  CHECK_SPX_INVALID(spxCreateCsr(&d, 8, 10, 20, fake(1), fake(2), nullptr, F));
  for (spxDataType_t bad : kBadTypes)
    CHECK_SPX_INVALID(spxCreateCsr(&d, 8, 10, 20, fake(1), fake(2), fake(3), bad));
}

TEST_CASE("BCRS descriptor: bad arguments", "[api][cpu]") {
  spxSpMatDescr_t d = nullptr;
  const auto F = SPX_R_8I;
  CHECK_SPX_INVALID(spxCreateBcrs(nullptr, 16, 10, 4, 6, fake(1), fake(2), fake(3), F));
  CHECK_SPX_INVALID(spxCreateBcrs(&d, -4, 10, 4, 6, fake(1), fake(2), fake(3), F));
  CHECK_SPX_INVALID(spxCreateBcrs(&d, 16, -1, 4, 6, fake(1), fake(2), fake(3), F));
  CHECK_SPX_INVALID(spxCreateBcrs(&d, 16, 10, 0, 6, fake(1), fake(2), fake(3), F));
  CHECK_SPX_INVALID(spxCreateBcrs(&d, 16, 10, -4, 6, fake(1), fake(2), fake(3), F));
  CHECK_SPX_INVALID(spxCreateBcrs(&d, 18, 10, 4, 6, fake(1), fake(2), fake(3), F));  // rows % V
  CHECK_SPX_INVALID(spxCreateBcrs(&d, 16, 10, 4, -1, fake(1), fake(2), fake(3), F));
  CHECK_SPX_INVALID(spxCreateBcrs(&d, 16, 10, 4, 6, nullptr, fake(2), fake(3), F));
  CHECK_SPX_INVALID(spxCreateBcrs(&d, 16, 10, 4, 6, fake(1), nullptr, fake(3), F));
  CHECK_SPX_INVALID(spxCreateBcrs(&d, 16, 10, 4, 6, fake(1), fake(2), nullptr, F));
  for (spxDataType_t bad : kBadTypes)
    CHECK_SPX_INVALID(spxCreateBcrs(&d, 16, 10, 4, 6, fake(1), fake(2), fake(3), bad));
}

TEST_CASE("NM descriptor: bad arguments", "[api][cpu]") {
  spxSpMatDescr_t d = nullptr;
  const auto F = SPX_R_32F;
  CHECK_SPX_INVALID(spxCreateNM(nullptr, 8, 16, 2, 4, 2, fake(1), fake(2), F));
  CHECK_SPX_INVALID(spxCreateNM(&d, -2, 16, 2, 4, 2, fake(1), fake(2), F));
  CHECK_SPX_INVALID(spxCreateNM(&d, 8, -4, 2, 4, 2, fake(1), fake(2), F));
  {
    // N > M, with the message of the header's example naming both values.
    CHECK_SPX_INVALID(spxCreateNM(&d, 8, 16, 5, 4, 2, fake(1), fake(2), F));
    CHECK_SPX_INVALID(spxCreateNM(&d, 8, 20, 5, 4, 2, fake(1), fake(2), F));
    const std::string msg = last_message();
    INFO("message: " << msg);
    CHECK(msg.find('5') != std::string::npos);
    CHECK(msg.find('4') != std::string::npos);
  }
  CHECK_SPX_INVALID(spxCreateNM(&d, 8, 16, 0, 4, 2, fake(1), fake(2), F));   // n >= 1
  CHECK_SPX_INVALID(spxCreateNM(&d, 8, 16, -1, 4, 2, fake(1), fake(2), F));
  CHECK_SPX_INVALID(spxCreateNM(&d, 8, 16, 0, 0, 2, fake(1), fake(2), F));   // m = 0
  CHECK_SPX_INVALID(spxCreateNM(&d, 8, 18, 2, 4, 2, fake(1), fake(2), F));   // cols % m
  CHECK_SPX_INVALID(spxCreateNM(&d, 8, 16, 2, 4, 0, fake(1), fake(2), F));   // l >= 1
  CHECK_SPX_INVALID(spxCreateNM(&d, 8, 16, 2, 4, -2, fake(1), fake(2), F));
  CHECK_SPX_INVALID(spxCreateNM(&d, 9, 16, 2, 4, 2, fake(1), fake(2), F));   // rows % l
  CHECK_SPX_INVALID(spxCreateNM(&d, 8, 16, 2, 4, 2, nullptr, fake(2), F));   // values NULL
  CHECK_SPX_INVALID(spxCreateNM(&d, 8, 16, 2, 4, 2, fake(1), nullptr, F));   // indices NULL
  for (spxDataType_t bad : kBadTypes)
    CHECK_SPX_INVALID(spxCreateNM(&d, 8, 16, 2, 4, 2, fake(1), fake(2), bad));
}

TEST_CASE("ELL descriptor: bad arguments", "[api][cpu]") {
  spxSpMatDescr_t d = nullptr;
  const auto F = SPX_R_16F;
  CHECK_SPX_INVALID(spxCreateEll(nullptr, 8, 10, 3, fake(1), fake(2), F));
  CHECK_SPX_INVALID(spxCreateEll(&d, -1, 10, 3, fake(1), fake(2), F));
  CHECK_SPX_INVALID(spxCreateEll(&d, 8, -1, 3, fake(1), fake(2), F));
  CHECK_SPX_INVALID(spxCreateEll(&d, 8, 10, -1, fake(1), fake(2), F));
  CHECK_SPX_INVALID(spxCreateEll(&d, 8, 10, 11, fake(1), fake(2), F));  // width > cols
  CHECK_SPX_INVALID(spxCreateEll(&d, 8, 10, 3, nullptr, fake(2), F));
  CHECK_SPX_INVALID(spxCreateEll(&d, 8, 10, 3, fake(1), nullptr, F));
  for (spxDataType_t bad : kBadTypes)
    CHECK_SPX_INVALID(spxCreateEll(&d, 8, 10, 3, fake(1), fake(2), bad));
}

TEST_CASE("descriptors whose byte size overflows int64 are INVALID_VALUE", "[api][cpu]") {
  // Each is rejected with a message naming the overflow, not accepted (and later mis-sized)
  // nor turned into ALLOC_FAILED.
  auto overflow_named = [] {
    const std::string msg = last_message();
    INFO("message: " << msg);
    CHECK(msg.find("overflows") != std::string::npos);
  };
  spxDnMatDescr_t d = nullptr;
  const int64_t big = int64_t{1} << 40;
  CHECK_SPX_INVALID(spxCreateDnMat(&d, big, big, big, fake(1), SPX_R_32F, SPX_ORDER_ROW));
  overflow_named();
  CHECK_SPX_INVALID(spxCreateDnMat(&d, 4, int64_t{1} << 61, int64_t{1} << 61, fake(1), SPX_R_16F,
                                   SPX_ORDER_COL));
  overflow_named();
  spxSpMatDescr_t s = nullptr;
  CHECK_SPX_INVALID(spxCreateNM(&s, int64_t{1} << 62, 16, 2, 4, 2, fake(1), fake(2), SPX_R_32F));
  overflow_named();
  CHECK_SPX_INVALID(spxCreateEll(&s, int64_t{1} << 46, int64_t{1} << 18, int64_t{1} << 18,
                                 fake(1), fake(2), SPX_R_16F));
  overflow_named();
  CHECK_SPX_INVALID(spxCreateBcrs(&s, int64_t{1} << 40, 16, int64_t{1} << 32, int64_t{1} << 28,
                                  fake(1), fake(2), fake(3), SPX_R_32F));
  overflow_named();
  // The largest sizes that fit are still accepted (descriptors never touch the data).
  REQUIRE_SPX(spxCreateDnMat(&d, int64_t{1} << 20, int64_t{1} << 20, int64_t{1} << 20, fake(1),
                             SPX_R_32F, SPX_ORDER_ROW));
  spxDestroyDnMat(d);
}

TEST_CASE("sparse getters and setters: bad arguments", "[api][cpu]") {
  int64_t rows = 0;
  spxFormat_t format = SPX_FORMAT_CSR;
  spxDataType_t type = SPX_R_32F;
  CHECK_SPX_INVALID(spxSpMatGetSize(nullptr, &rows, nullptr, nullptr));
  CHECK_SPX_INVALID(spxSpMatGetFormat(nullptr, &format));
  CHECK_SPX_INVALID(spxSpMatGetValueType(nullptr, &type));
  CHECK_SPX_INVALID(spxSpMatSetValues(nullptr, fake(1)));

  spxSpMatDescr_t d = nullptr;
  REQUIRE_SPX(spxCreateCsr(&d, 8, 10, 20, fake(1), fake(2), fake(3), SPX_R_32F));
  CHECK_SPX_INVALID(spxSpMatGetFormat(d, nullptr));
  CHECK_SPX_INVALID(spxSpMatGetValueType(d, nullptr));
  CHECK_SPX_INVALID(spxSpMatSetValues(d, nullptr));  // 20 stored values need an array
  // The descriptor is unchanged and works.
  CHECK_SPX_STATUS(spxSpMatGetFormat(d, &format), SPX_STATUS_SUCCESS);
  CHECK(format == SPX_FORMAT_CSR);
  CHECK_SPX_STATUS(spxDestroySpMat(d), SPX_STATUS_SUCCESS);
}
