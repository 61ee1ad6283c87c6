// Pruning on the device (spxPruneNM, spxCheckNM, spxPruneUniform): the same results as the host
// tools (spxHostPruneNM, spxHostCheckNM, spxHostPruneUniform) on the same data, outputs in the
// spxCreateNM / spxCreateEll layouts that analyze accepts, and a bad-argument walk.
// NOTE: registered in tests/gpu/CMakeLists.txt once the three entry points are defined.
#include <catch2/catch.hpp>
#include <cstring>

#include "runner.hpp"
#include "spx_catch.hpp"

using namespace spx::test;
namespace ref = spx::ref;

namespace {

// A random fp32 rows x cols matrix (non-zero values, NaN in the ld padding) on host and device.
struct Dense32 {
  HostDense host;
  DeviceBuffer dev;
  const float* h() const { return reinterpret_cast<const float*>(host.data.data()); }
};

Dense32 make_dense(uint64_t seed, int64_t rows, int64_t cols, spxOrder_t order, int64_t ld_pad) {
  Rng rng(seed);
  Dense32 d;
  d.host = random_dense(rng, rows, cols, order, ValueDist{SPX_R_32F}, ld_pad);
  d.dev = DeviceBuffer(d.host.data);
  return d;
}

template <class T>
std::vector<T> download_as(const DeviceBuffer& b, size_t count) {
  std::vector<T> out(count);
  b.download(out.data(), count * sizeof(T));
  return out;
}

struct NmCase {
  int64_t rows, cols, n, m, l;
};

}  // namespace

TEST_CASE("device N:M pruning matches the host tool", "[prune]") {
  UniqueHandle h = make_handle();
  const NmCase cases[] = {{16, 32, 2, 4, 2}, {48, 64, 1, 4, 4},  {32, 48, 3, 8, 16},
                          {7, 80, 5, 16, 1}, {64, 256, 4, 8, 8}, {1, 4, 4, 4, 1}};
  uint64_t seed = 100;
  for (const NmCase& c : cases)
    for (spxOrder_t order : {SPX_ORDER_ROW, SPX_ORDER_COL})
      for (int64_t pad : {0, 3}) {
        INFO(c.rows << " x " << c.cols << " " << c.n << ":" << c.m << " l " << c.l << ", order "
                    << order_name(order) << ", ld pad " << pad);
        const Dense32 d = make_dense(seed++, c.rows, c.cols, order, pad);
        const int64_t kc = c.cols / c.m * c.n;
        std::vector<float> want_values(static_cast<size_t>(c.rows * kc));
        std::vector<int32_t> want_idx(static_cast<size_t>(c.rows / c.l * kc));
        REQUIRE_SPX(spxHostPruneNM(c.rows, c.cols, d.h(), d.host.ld, order, c.n, c.m, c.l,
                                   want_values.data(), want_idx.data()));

        DeviceBuffer values(want_values.size() * 4, 256), idx(want_idx.size() * 4, 256);
        REQUIRE_SPX(spxPruneNM(h.get(), c.rows, c.cols, d.dev.get(), d.host.ld, order, SPX_R_32F,
                               c.n, c.m, c.l, values.get(), idx.get()));
        device_sync();
        CHECK(download_as<float>(values, want_values.size()) == want_values);
        CHECK(download_as<int32_t>(idx, want_idx.size()) == want_idx);
        CHECK(values.tail_intact());
        CHECK(idx.tail_intact());

        // The pruned matrix fits N:M (host and device agree); the original (n < m) does not.
        HostSparse nm;
        nm.format = SPX_FORMAT_NM;
        nm.type = SPX_R_32F;
        nm.rows = c.rows;
        nm.cols = c.cols;
        nm.n = c.n;
        nm.m = c.m;
        nm.l = c.l;
        nm.idx = want_idx;
        nm.values.resize(want_values.size() * 4);
        std::memcpy(nm.values.data(), want_values.data(), nm.values.size());
        std::vector<float> pruned(static_cast<size_t>(c.rows * c.cols), 0.0f);
        for (const ref::Entry& e : ref::entries(nm))
          pruned[e.row * c.cols + e.col] = want_values[e.slot];
        DeviceBuffer d_pruned(pruned.size() * 4);
        d_pruned.upload(pruned.data(), pruned.size() * 4);
        const auto check_fit = [&](const float* matrix, const void* dev, int64_t ld, spxOrder_t ord,
                                   int expect, const char* which) {
          INFO(which);
          int host_ok = -1, dev_ok = -1;
          REQUIRE_SPX(spxHostCheckNM(c.rows, c.cols, matrix, ld, ord, c.n, c.m, c.l, &host_ok));
          REQUIRE_SPX(spxCheckNM(h.get(), c.rows, c.cols, dev, ld, ord, SPX_R_32F, c.n, c.m, c.l,
                                 &dev_ok));
          CHECK(host_ok == expect);
          CHECK(dev_ok == host_ok);
        };
        check_fit(pruned.data(), d_pruned.get(), c.cols, SPX_ORDER_ROW, 1, "pruned");
        check_fit(d.h(), d.dev.get(), d.host.ld, order, c.n < c.m ? 0 : 1, "original");

        // The output is a valid N:M descriptor that analyze accepts.
        spxSpMatDescr_t A = nullptr;
        REQUIRE_SPX(spxCreateNM(&A, c.rows, c.cols, c.n, c.m, c.l, values.get(), idx.get(), SPX_R_32F));
        const UniqueSpMat owned(A);
        Rng rng(seed * 3);
        const HostDense B = random_dense(rng, c.cols, 8, SPX_ORDER_ROW, ValueDist{SPX_R_32F});
        const HostDense C = random_dense(rng, c.rows, 8, SPX_ORDER_ROW, ValueDist{SPX_R_32F});
        const DeviceDense dB = to_device(B), dC = to_device(C);
        spxPlan_t plan = nullptr;
        CHECK_SPX_STATUS(spxSpMM_analyze(h.get(), A, dB.get(), dC.get(), SPX_R_32F,
                                         SPX_SPMM_ALG_DEFAULT, &plan),
                         SPX_STATUS_SUCCESS);
        spxPlanDestroy(plan);
      }
}

TEST_CASE("device uniform pruning matches the host tool", "[prune]") {
  UniqueHandle h = make_handle();
  const int64_t shapes[][3] = {{16, 32, 4}, {33, 96, 10}, {7, 7, 7}, {128, 256, 32}, {5, 40, 1}};
  uint64_t seed = 200;
  for (const auto& sh : shapes)
    for (spxOrder_t order : {SPX_ORDER_ROW, SPX_ORDER_COL}) {
      const int64_t rows = sh[0], cols = sh[1], width = sh[2];
      INFO(rows << " x " << cols << " width " << width << ", order " << order_name(order));
      const Dense32 d = make_dense(seed++, rows, cols, order, 2);
      std::vector<int32_t> want_col(static_cast<size_t>(rows * width));
      std::vector<float> want_values(want_col.size());
      REQUIRE_SPX(spxHostPruneUniform(rows, cols, d.h(), d.host.ld, order, width, want_col.data(),
                                      want_values.data()));
      DeviceBuffer col(want_col.size() * 4, 256), values(want_values.size() * 4, 256);
      REQUIRE_SPX(spxPruneUniform(h.get(), rows, cols, d.dev.get(), d.host.ld, order, SPX_R_32F,
                                  width, col.get(), values.get()));
      device_sync();
      CHECK(download_as<int32_t>(col, want_col.size()) == want_col);
      CHECK(download_as<float>(values, want_values.size()) == want_values);
      CHECK(col.tail_intact());
      CHECK(values.tail_intact());
    }
}

TEST_CASE("device pruning bad arguments", "[prune][bad]") {
  UniqueHandle h = make_handle();
  const Dense32 d = make_dense(300, 16, 32, SPX_ORDER_ROW, 0);
  const void* D = d.dev.get();
  // Outputs big enough for anything below; they must stay untouched by rejected calls.
  DeviceBuffer values(16 * 32 * 4, 256), idx(16 * 32 * 4, 256);
  const std::vector<uint8_t> zeros(16 * 32 * 4, 0);
  values.upload(zeros);
  idx.upload(zeros);
  void* V = values.get();
  void* I = idx.get();
  const auto R = SPX_ORDER_ROW;
  const auto F = SPX_R_32F;
  int ok = -1;

  // spxPruneNM(handle, rows, cols, dense, ld, order, type, n, m, l, values, indices)
  CHECK_SPX_INVALID(spxPruneNM(nullptr, 16, 32, D, 32, R, F, 2, 4, 2, V, I));
  CHECK_SPX_INVALID(spxPruneNM(h.get(), -1, 32, D, 32, R, F, 2, 4, 2, V, I));
  CHECK_SPX_INVALID(spxPruneNM(h.get(), 16, -4, D, 32, R, F, 2, 4, 2, V, I));
  CHECK_SPX_INVALID(spxPruneNM(h.get(), 16, 32, nullptr, 32, R, F, 2, 4, 2, V, I));
  CHECK_SPX_INVALID(spxPruneNM(h.get(), 16, 32, D, 31, R, F, 2, 4, 2, V, I));  // ld < cols
  CHECK_SPX_INVALID(spxPruneNM(h.get(), 16, 32, D, 15, SPX_ORDER_COL, F, 2, 4, 2, V, I));
  CHECK_SPX_INVALID(spxPruneNM(h.get(), 16, 32, D, 32, static_cast<spxOrder_t>(7), F, 2, 4, 2, V, I));
  CHECK_SPX_INVALID(spxPruneNM(h.get(), 16, 32, D, 32, R, static_cast<spxDataType_t>(99), 2, 4, 2, V, I));
  CHECK_SPX_STATUS(spxPruneNM(h.get(), 16, 32, D, 32, R, SPX_R_16F, 2, 4, 2, V, I),
                   SPX_STATUS_NOT_SUPPORTED);  // valid type, but only 32F is pruned
  CHECK_SPX_INVALID(spxPruneNM(h.get(), 16, 32, D, 32, R, F, 5, 4, 2, V, I));  // n > m
  CHECK_SPX_INVALID(spxPruneNM(h.get(), 16, 32, D, 32, R, F, 0, 4, 2, V, I));
  CHECK_SPX_INVALID(spxPruneNM(h.get(), 16, 30, D, 32, R, F, 2, 4, 2, V, I));  // cols % m
  CHECK_SPX_INVALID(spxPruneNM(h.get(), 15, 32, D, 32, R, F, 2, 4, 2, V, I));  // rows % l
  CHECK_SPX_INVALID(spxPruneNM(h.get(), 16, 32, D, 32, R, F, 2, 4, 0, V, I));
  CHECK_SPX_INVALID(spxPruneNM(h.get(), 16, 32, D, 32, R, F, 2, 4, 2, nullptr, I));
  CHECK_SPX_INVALID(spxPruneNM(h.get(), 16, 32, D, 32, R, F, 2, 4, 2, V, nullptr));

  // spxCheckNM(handle, rows, cols, dense, ld, order, type, n, m, l, ok)
  CHECK_SPX_INVALID(spxCheckNM(nullptr, 16, 32, D, 32, R, F, 2, 4, 2, &ok));
  CHECK_SPX_INVALID(spxCheckNM(h.get(), 16, 32, nullptr, 32, R, F, 2, 4, 2, &ok));
  CHECK_SPX_INVALID(spxCheckNM(h.get(), 16, 32, D, 31, R, F, 2, 4, 2, &ok));
  CHECK_SPX_INVALID(spxCheckNM(h.get(), 16, 32, D, 32, R, F, 5, 4, 2, &ok));
  CHECK_SPX_INVALID(spxCheckNM(h.get(), 16, 30, D, 32, R, F, 2, 4, 2, &ok));
  CHECK_SPX_INVALID(spxCheckNM(h.get(), 15, 32, D, 32, R, F, 2, 4, 2, &ok));
  CHECK_SPX_INVALID(spxCheckNM(h.get(), 16, 32, D, 32, R, F, 2, 4, 2, nullptr));
  CHECK_SPX_INVALID(spxCheckNM(h.get(), 16, 32, D, 32, R, static_cast<spxDataType_t>(99), 2, 4, 2, &ok));

  // spxPruneUniform(handle, rows, cols, dense, ld, order, type, ell_width, col_ind, values)
  CHECK_SPX_INVALID(spxPruneUniform(nullptr, 16, 32, D, 32, R, F, 4, I, V));
  CHECK_SPX_INVALID(spxPruneUniform(h.get(), -1, 32, D, 32, R, F, 4, I, V));
  CHECK_SPX_INVALID(spxPruneUniform(h.get(), 16, 32, nullptr, 32, R, F, 4, I, V));
  CHECK_SPX_INVALID(spxPruneUniform(h.get(), 16, 32, D, 31, R, F, 4, I, V));
  CHECK_SPX_INVALID(spxPruneUniform(h.get(), 16, 32, D, 32, R, F, -1, I, V));
  CHECK_SPX_INVALID(spxPruneUniform(h.get(), 16, 32, D, 32, R, F, 33, I, V));  // width > cols
  CHECK_SPX_INVALID(spxPruneUniform(h.get(), 16, 32, D, 32, R, F, 4, nullptr, V));
  CHECK_SPX_INVALID(spxPruneUniform(h.get(), 16, 32, D, 32, R, F, 4, I, nullptr));
  CHECK_SPX_INVALID(spxPruneUniform(h.get(), 16, 32, D, 32, R, static_cast<spxDataType_t>(99), 4, I, V));
  CHECK_SPX_STATUS(spxPruneUniform(h.get(), 16, 32, D, 32, R, SPX_R_16F, 4, I, V),
                   SPX_STATUS_NOT_SUPPORTED);

  device_sync();
  CHECK(values.download() == zeros);
  CHECK(idx.download() == zeros);
  CHECK(values.tail_intact());
  CHECK(idx.tail_intact());
}
