// Fuzz target: the SR-BCRS layout planner (src/families/srbcrs/plan/layout). A BCRS(V) structure
// (well formed or with one injected defect), a stride and a value type come from the bytes; the
// planner must refuse exactly the invalid ones (INVALID_VALUE) and lay out the valid ones as its
// header says: row_ptr with two pointers per vector-row on stride boundaries, every user vector
// in exactly one slot in its order, col[] in load order (the int4 shuffle), padding -1, and the
// re-packed values bit-exact at srbcrs_element (the 16-bit slices too).
#include <algorithm>
#include <cstdint>
#include <vector>

#include "families/srbcrs/plan/layout.hpp"
#include "fuzz_common.hpp"
#include "runtime/dtype.hpp"

using namespace spx_fuzz;
namespace plan = spx::plan;
namespace dtype = spx::dtype;

namespace {

bool srbcrs_type(spxDataType_t t) {
  return t == SPX_R_8I || t == SPX_R_8U || t == SPX_R_4I || t == SPX_R_4U || t == SPX_R_16I;
}

bool row_ptr_ok(const std::vector<int32_t>& ptr, int64_t nnz) {
  if (ptr[0] != 0) return false;
  for (size_t i = 1; i < ptr.size(); ++i)
    if (ptr[i] < ptr[i - 1]) return false;
  return nnz < 0 || ptr.back() == nnz;
}

void check_layout(const Structure& a, const plan::SrbcrsConfig& cfg, const std::vector<uint8_t>& user,
                  const plan::SrbcrsLayout& L) {
  const int64_t s = cfg.stride, v = a.vec_len, vrows = a.rows / v, nv = a.ptr.back();
  FUZZ_CHECK(L.rows == a.rows && L.cols == a.cols && L.vec_len == v && L.stride == s);
  FUZZ_CHECK(L.type == cfg.type && L.bits == dtype::bits(cfg.type) && L.shuffled == (L.bits == 4));
  FUZZ_CHECK(L.vector_rows == vrows && L.num_vectors == nv);
  FUZZ_CHECK(L.row_ptr.size() == static_cast<size_t>(2 * vrows + 1) && L.row_ptr[0] == 0);
  FUZZ_CHECK(L.slots == L.row_ptr[2 * vrows] && L.padding_slots == L.slots - nv);
  FUZZ_CHECK(L.col.size() == static_cast<size_t>(L.slots) && L.vec_map.size() == L.col.size());
  FUZZ_CHECK(L.values.size() == dtype::storage_bytes(cfg.type, L.slots * v));
  std::vector<char> placed(static_cast<size_t>(L.slots), 0);
  for (int64_t i = 0; i < vrows; ++i) {
    const int64_t count = a.ptr[i + 1] - a.ptr[i], start = L.row_ptr[2 * i];
    FUZZ_CHECK(start % s == 0);
    FUZZ_CHECK(L.row_ptr[2 * i + 1] == start + count / s * s);
    FUZZ_CHECK(L.row_ptr[2 * i + 2] == start + (count + s - 1) / s * s);
    for (int64_t slot = start; slot < L.row_ptr[2 * i + 2]; ++slot) {
      const int64_t pos = plan::srbcrs_load_position(L, slot);
      FUZZ_CHECK(pos >= 0 && pos < L.slots && !placed[pos]);
      FUZZ_CHECK(plan::srbcrs_slot_at(L, pos) == slot);
      placed[pos] = 1;
      const int64_t j = slot - start;
      const bool real = j < count;
      FUZZ_CHECK(L.vec_map[slot] == (real ? a.ptr[i] + j : -1));
      FUZZ_CHECK(L.col[pos] == (real ? a.col[a.ptr[i] + j] : plan::kSrbcrsPadCol));
      for (int64_t e = 0; e < v; ++e) {
        const int64_t got = plan::srbcrs_value(L, plan::srbcrs_element(L, slot, e));
        FUZZ_CHECK(got == (real ? dtype::load_int(user.data(), cfg.type, (a.ptr[i] + j) * v + e) : 0));
      }
    }
  }
  if (L.bits == 16) {
    const std::vector<uint8_t> sliced = plan::srbcrs_sliced_values(L);
    const int64_t per = s * v;
    FUZZ_CHECK(sliced.size() == static_cast<size_t>(2 * L.elements()));
    for (int64_t e = 0; e < L.elements(); ++e) {
      const int64_t g = e / per, w = e % per;
      const int64_t lo = sliced[static_cast<size_t>(g * 2 * per + w)];
      const int64_t hi = static_cast<int8_t>(sliced[static_cast<size_t>(g * 2 * per + per + w)]);
      FUZZ_CHECK(256 * hi + lo == plan::srbcrs_value(L, e));
    }
  } else {
    const bool refused = !expect_ok_or_error({SPX_STATUS_INVALID_VALUE},
                                             [&] { (void)plan::srbcrs_sliced_values(L); });
    FUZZ_CHECK(refused);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  plan::SrbcrsConfig cfg;
  cfg.stride = pick<int64_t>(in, {32, 8, 16, 64, 24, 256, 0, 7, 264, -8});
  cfg.type = pick<spxDataType_t>(in, {SPX_R_8I, SPX_R_8U, SPX_R_4I, SPX_R_4U, SPX_R_16I,
                                      SPX_R_32F, SPX_R_16F, SPX_R_32I, static_cast<spxDataType_t>(12)});
  Structure a = decode_structure(in, {1, 2, 4, 8, 16, 3}, 40, 64, 600, in.ConsumeBool(), true);
  int64_t num_vectors = in.ConsumeIntegralInRange<int>(0, 3) == 0 ? -1 : a.ptr.back();
  if (in.ConsumeIntegralInRange<int>(0, 15) == 0) num_vectors = in.ConsumeIntegralInRange<int>(0, 600);
  const bool null_ptr = in.ConsumeIntegralInRange<int>(0, 31) == 0;

  plan::BcrsView view;
  view.rows = a.rows;
  view.cols = a.cols;
  view.vec_len = a.vec_len;
  view.block_row_ptr = null_ptr ? nullptr : a.ptr.data();
  view.block_col = a.col.empty() ? nullptr : a.col.data();
  view.num_vectors = num_vectors;

  const int64_t v = a.vec_len;
  bool valid = srbcrs_type(cfg.type) && cfg.stride >= 8 && cfg.stride <= 256 && cfg.stride % 8 == 0 &&
               (v == 1 || v == 2 || v == 4 || v == 8) && a.rows >= 0 && a.cols >= 0 &&
               a.rows % v == 0 && !null_ptr && row_ptr_ok(a.ptr, num_vectors);
  if (valid)
    for (int32_t j = 0; j < a.ptr.back(); ++j) valid = valid && a.col[j] >= 0 && a.col[j] < a.cols;

  // User values: num_vectors * V elements of the type, from the bytes.
  const int64_t nv = std::max<int32_t>(a.ptr.back(), 0);
  std::vector<uint8_t> user(srbcrs_type(cfg.type) ? dtype::storage_bytes(cfg.type, nv * v) : 0);
  for (auto& b : user) b = in.ConsumeIntegral<uint8_t>();

  plan::SrbcrsLayout L;
  const bool ok = expect_ok_or_error({SPX_STATUS_INVALID_VALUE, SPX_STATUS_NOT_SUPPORTED},
                                     [&] { L = plan::srbcrs_build(view, cfg, user.data()); });
  FUZZ_CHECK(ok == valid);
  if (!ok) return 0;
  check_layout(a, cfg, user, L);

  // Re-packing: the same raw bits from the other signedness; a different width is refused.
  const spxDataType_t twin = cfg.type == SPX_R_8I ? SPX_R_8U : cfg.type == SPX_R_8U ? SPX_R_8I
                           : cfg.type == SPX_R_4I ? SPX_R_4U : cfg.type == SPX_R_4U ? SPX_R_4I
                           : SPX_R_16I;
  const std::vector<uint8_t> before = L.values;
  plan::srbcrs_repack_values(L, user.data(), twin);
  FUZZ_CHECK(L.values == before);
  const spxDataType_t other = L.bits == 8 ? SPX_R_4I : SPX_R_8I;
  FUZZ_CHECK(!expect_ok_or_error({SPX_STATUS_INVALID_VALUE},
                                 [&] { plan::srbcrs_repack_values(L, user.data(), other); }));
  return 0;
}
