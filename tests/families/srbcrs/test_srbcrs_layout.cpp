// Host planning of the SR-BCRS family (spx::plan srbcrs_layout): the strided row-major layout with
// two row pointers per vector-row on a hand-checked matrix for every V, the int4 column-index
// shuffle, and on random BCRS matrices for every V, type and stride a host SpMM that reads the
// layout the way the kernels will (int4 unpacked to int8 with the lo/hi masks) and must equal the
// reference spx::ref::spmm exactly. Also: empty rows, multiples of the stride, bad structures,
// value re-packing and the statistics.
#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "runtime/dtype.hpp"
#include "runtime/error.hpp"
#include "require_error.hpp"
#include "families/srbcrs/plan/layout.hpp"
#include "reference/reference.hpp"

namespace plan = spx::plan;

namespace {

struct Bcrs {
  int64_t rows = 0, cols = 0, vec_len = 1;
  std::vector<int32_t> ptr, col;
  plan::BcrsView view() const {
    plan::BcrsView v;
    v.rows = rows;
    v.cols = cols;
    v.vec_len = vec_len;
    v.block_row_ptr = ptr.data();
    v.block_col = col.data();
    v.num_vectors = static_cast<int64_t>(col.size());
    return v;
  }
};

plan::SrbcrsConfig config(int64_t stride, spxDataType_t type) {
  plan::SrbcrsConfig c;
  c.stride = stride;
  c.type = type;
  return c;
}

/// Raw values of `type` from integers (4-bit packed low nibble first).
std::vector<uint8_t> pack(spxDataType_t type, const std::vector<int64_t>& v) {
  std::vector<uint8_t> out(spx::dtype::storage_bytes(type, static_cast<int64_t>(v.size())), 0);
  for (size_t i = 0; i < v.size(); ++i)
    spx::dtype::store_int_wrap(out.data(), type, static_cast<int64_t>(i), v[i]);
  return out;
}

/// The hand-checked structure: 3 vector-rows with 3, 0 and 9 vectors, 16 columns.
Bcrs hand_matrix(int64_t vec_len) {
  Bcrs a;
  a.vec_len = vec_len;
  a.rows = 3 * vec_len;
  a.cols = 16;
  a.ptr = {0, 3, 3, 12};
  a.col = {1, 5, 7, 0, 2, 3, 4, 6, 8, 10, 12, 15};
  return a;
}

const std::vector<int32_t> kHandRowPtr = {0, 0, 8, 8, 8, 16, 24};            // stride 8
const std::vector<int32_t> kHandColPlain = {1,  5,  7,  -1, -1, -1, -1, -1,  //
                                            0,  2,  3,  4,  6,  8,  10, 12,  //
                                            15, -1, -1, -1, -1, -1, -1, -1};
// Load position p of each group of 8 holds slot {0,2,4,6,1,3,5,7}[p].
const std::vector<int32_t> kHandColShuffled = {1,  7,  -1, -1, 5,  -1, -1, -1,  //
                                               0,  3,  6,  10, 2,  4,  8,  12,  //
                                               15, -1, -1, -1, -1, -1, -1, -1};
const std::vector<int32_t> kHandVecMap = {0,  1,  2,  -1, -1, -1, -1, -1,  //
                                          3,  4,  5,  6,  7,  8,  9,  10,  //
                                          11, -1, -1, -1, -1, -1, -1, -1};

/// Random BCRS with per-row vector counts that hit 0, exact multiples of the stride and others.
Bcrs random_bcrs(int64_t vec_len, int64_t stride, std::mt19937_64& rng) {
  Bcrs a;
  a.vec_len = vec_len;
  const int64_t vrows = 11;
  a.rows = vrows * vec_len;
  a.cols = 3 * stride + 13;
  a.ptr.push_back(0);
  for (int64_t i = 0; i < vrows; ++i) {
    int64_t count;
    switch (i % 4) {
      case 0:
        count = 0;
        break;  // empty vector-row
      case 1:
        count = stride * (1 + i % 3);
        break;  // multiple of the stride
      case 2:
        count = 1 + static_cast<int64_t>(rng() % (stride - 1));
        break;  // one partial stride
      default:
        count = stride + 1 + static_cast<int64_t>(rng() % (2 * stride));
        break;
    }
    // distinct random columns in increasing order
    std::vector<int32_t> pick;
    for (int64_t c = 0; c < a.cols; ++c)
      if (static_cast<int64_t>(rng() % a.cols) < count ||
          a.cols - c <= count - static_cast<int64_t>(pick.size()))
        if (static_cast<int64_t>(pick.size()) < count) pick.push_back(static_cast<int32_t>(c));
    a.col.insert(a.col.end(), pick.begin(), pick.end());
    a.ptr.push_back(static_cast<int32_t>(a.col.size()));
  }
  return a;
}

std::vector<int64_t> random_ints(spxDataType_t type, int64_t count, std::mt19937_64& rng) {
  const int64_t lo = spx::dtype::int_min(type), hi = spx::dtype::int_max(type);
  std::vector<int64_t> v(static_cast<size_t>(count));
  for (auto& x : v) x = lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo + 1));
  return v;
}

/// A operand value at k position `pos` of row v, read as the kernel will: 8/16-bit directly;
/// 4-bit by loading the 32-bit word of 8 nibbles and unpacking it with the lo/hi masks, so k
/// position 8w + p (p < 4) is byte p of lo and 8w + 4 + p' is byte p' of hi.
int64_t kernel_a_value(const plan::SrbcrsLayout& l, int64_t stride_index, int64_t v, int64_t pos) {
  const int64_t row_elem = stride_index * l.stride * l.vec_len + v * l.stride;
  if (l.bits != 4) return spx::dtype::load_int(l.values.data(), l.type, row_elem + pos);
  const int64_t word_byte = (row_elem + (pos / 8) * 8) / 2;
  uint32_t w = 0;
  for (int b = 0; b < 4; ++b) w |= uint32_t{l.values[word_byte + b]} << (8 * b);
  const uint32_t lo = w & 0x0F0F0F0Fu, hi = (w >> 4) & 0x0F0F0F0Fu;
  const int p = static_cast<int>(pos % 8);
  const int nibble = static_cast<int>(((p < 4 ? lo : hi) >> (8 * (p % 4))) & 0xFu);
  return (l.type == SPX_R_4I && nibble >= 8) ? nibble - 16 : nibble;
}

/// C = A * B (int64) from the layout alone: per vector-row, whole strides, k positions in load
/// order.
std::vector<int64_t> layout_spmm(const plan::SrbcrsLayout& l, const spx::ref::HostDense& b) {
  const int64_t n = b.cols, s = l.stride;
  std::vector<int64_t> c(static_cast<size_t>(l.rows * n), 0);
  for (int64_t i = 0; i < l.vector_rows; ++i) {
    for (int64_t g = l.row_ptr[2 * i] / s; g < l.row_ptr[2 * i + 2] / s; ++g) {
      for (int64_t pos = 0; pos < s; ++pos) {
        const int32_t col = l.col[g * s + pos];
        for (int64_t v = 0; v < l.vec_len; ++v) {
          const int64_t a = kernel_a_value(l, g, v, pos);
          if (col == plan::kSrbcrsPadCol) {
            REQUIRE(a == 0);  // padding is zero, so clamping the column would be harmless
            continue;
          }
          for (int64_t j = 0; j < n; ++j)
            c[(i * l.vec_len + v) * n + j] +=
                a * spx::dtype::load_int(b.data.data(), b.type, b.linear(col, j));
        }
      }
    }
  }
  return c;
}

}  // namespace

TEST_CASE("SR-BCRS hand-checked structure, every V", "[srbcrs][layout]") {
  for (int64_t vec_len : {1, 2, 4, 8}) {
    INFO("V = " << vec_len);
    const Bcrs a = hand_matrix(vec_len);
    const auto plain = plan::srbcrs_build_structure(a.view(), config(8, SPX_R_8I));
    CHECK(plain.row_ptr == kHandRowPtr);
    CHECK(plain.col == kHandColPlain);
    CHECK(plain.vec_map == kHandVecMap);
    CHECK_FALSE(plain.shuffled);
    CHECK(plain.slots == 24);
    CHECK(plain.num_vectors == 12);
    CHECK(plain.padding_slots == 12);
    CHECK(plain.padding_elements() == 12 * vec_len);
    CHECK(plain.metadata_bytes() == 4 * (7 + 24));
    CHECK(plain.value_bytes() == 24 * vec_len);

    const auto packed = plan::srbcrs_build_structure(a.view(), config(8, SPX_R_4U));
    CHECK(packed.row_ptr == kHandRowPtr);
    CHECK(packed.col == kHandColShuffled);
    CHECK(packed.vec_map == kHandVecMap);
    CHECK(packed.shuffled);
    CHECK(packed.value_bytes() == 12 * vec_len);

    // Values: vector j row v holds 10 j + v + 1; element g*S*V + v*S + s holds slot gS + s, row v.
    std::vector<int64_t> user(static_cast<size_t>(12 * vec_len));
    for (int64_t j = 0; j < 12; ++j)
      for (int64_t v = 0; v < vec_len; ++v) user[j * vec_len + v] = 10 * j + v + 1;
    const auto l = plan::srbcrs_build(a.view(), config(8, SPX_R_8I), pack(SPX_R_8I, user).data());
    std::vector<uint8_t> expect(static_cast<size_t>(24 * vec_len), 0);
    for (int64_t g = 0; g < 3; ++g)
      for (int64_t v = 0; v < vec_len; ++v)
        for (int64_t s = 0; s < 8; ++s) {
          const int32_t j = kHandVecMap[g * 8 + s];
          if (j >= 0) expect[g * 8 * vec_len + v * 8 + s] = static_cast<uint8_t>(10 * j + v + 1);
        }
    CHECK(l.values == expect);
  }
}

TEST_CASE("SR-BCRS hand-checked values, literal arrays", "[srbcrs][layout]") {
  SECTION("int8, V = 2: each stride is row 0 of its 8 vectors, then row 1") {
    const Bcrs a = hand_matrix(2);
    std::vector<int64_t> user;
    for (int64_t j = 0; j < 12; ++j) {
      user.push_back(10 * j + 1);
      user.push_back(-(10 * j + 2));
    }
    const auto l = plan::srbcrs_build(a.view(), config(8, SPX_R_8I), pack(SPX_R_8I, user).data());
    const std::vector<int64_t> expect = {
        1,   11, 21, 0,  0,  0,  0,  0,   -2,   -12, -22, 0,   0,   0,   0,   0,     //
        31,  41, 51, 61, 71, 81, 91, 101, -32,  -42, -52, -62, -72, -82, -92, -102,  //
        111, 0,  0,  0,  0,  0,  0,  0,   -112, 0,   0,   0,   0,   0,   0,   0};
    REQUIRE(l.values.size() == expect.size());
    for (size_t e = 0; e < expect.size(); ++e)
      CHECK(plan::srbcrs_value(l, int64_t(e)) == expect[e]);
  }
  SECTION("uint4, V = 1: low nibble first, natural slot order") {
    const Bcrs a = hand_matrix(1);
    std::vector<int64_t> user;
    for (int64_t j = 0; j < 12; ++j) user.push_back(j + 1);
    const auto l = plan::srbcrs_build(a.view(), config(8, SPX_R_4U), pack(SPX_R_4U, user).data());
    const std::vector<uint8_t> expect = {0x21, 0x03, 0x00, 0x00, 0x54, 0x76,
                                         0x98, 0xBA, 0x0C, 0x00, 0x00, 0x00};
    CHECK(l.values == expect);
    CHECK(l.col == kHandColShuffled);
  }
}

TEST_CASE("SR-BCRS int4 shuffle: the lo/hi unpack lines values up with their columns",
          "[srbcrs][layout]") {
  for (int q = 0; q < 8; ++q) {
    CHECK(plan::kSrbcrsShuffle[plan::kSrbcrsUnshuffle[q]] == q);
    CHECK(plan::kSrbcrsUnshuffle[plan::kSrbcrsShuffle[q]] == q);
  }
  std::mt19937_64 rng(7);
  for (spxDataType_t type : {SPX_R_4I, SPX_R_4U})
    for (int64_t vec_len : {1, 2, 4, 8})
      for (int64_t stride : {32, 64}) {
        INFO("type " << spx::dtype::name(type) << " V " << vec_len << " S " << stride);
        const Bcrs a = random_bcrs(vec_len, stride, rng);
        const auto user = random_ints(type, static_cast<int64_t>(a.col.size()) * vec_len, rng);
        const auto l = plan::srbcrs_build(a.view(), config(stride, type), pack(type, user).data());
        REQUIRE(l.shuffled);
        // Round trip: every user value and column comes back through vec_map and the shuffle.
        for (int64_t slot = 0; slot < l.slots; ++slot) {
          const int32_t j = l.vec_map[slot];
          const int64_t pos = plan::srbcrs_load_position(l, slot);
          CHECK(plan::srbcrs_slot_at(l, pos) == slot);
          CHECK(l.col[pos] == (j < 0 ? plan::kSrbcrsPadCol : a.col[j]));
          for (int64_t v = 0; v < vec_len; ++v) {
            const int64_t e = plan::srbcrs_element(l, slot, v);
            CHECK(plan::srbcrs_value(l, e) == (j < 0 ? 0 : user[j * vec_len + v]));
            // ...and the kernel's unpack at the load position reads that same value.
            CHECK(kernel_a_value(l, slot / stride, v, pos % stride) == plan::srbcrs_value(l, e));
          }
        }
      }
}

TEST_CASE("SR-BCRS layout SpMM equals the reference (random, every V, type and stride)",
          "[srbcrs][layout]") {
  struct Case {
    spxDataType_t a_type, b_type;
    int64_t strides[2];
  };
  const Case cases[] = {{SPX_R_8I, SPX_R_8I, {16, 32}},
                        {SPX_R_8U, SPX_R_8I, {16, 32}},
                        {SPX_R_4I, SPX_R_4I, {32, 64}},
                        {SPX_R_4U, SPX_R_4I, {32, 64}},
                        {SPX_R_16I, SPX_R_8I, {16, 32}}};
  std::mt19937_64 rng(42);
  for (const Case& cs : cases)
    for (int64_t vec_len : {1, 2, 4, 8})
      for (int64_t stride : cs.strides) {
        INFO("type " << spx::dtype::name(cs.a_type) << " V " << vec_len << " S " << stride);
        const Bcrs a = random_bcrs(vec_len, stride, rng);
        const int64_t nv = static_cast<int64_t>(a.col.size());
        const auto user = random_ints(cs.a_type, nv * vec_len, rng);
        const auto l =
            plan::srbcrs_build(a.view(), config(stride, cs.a_type), pack(cs.a_type, user).data());

        // The two row pointers per vector-row.
        REQUIRE(l.row_ptr.size() == size_t(2 * l.vector_rows + 1));
        CHECK(l.row_ptr[0] == 0);
        for (int64_t i = 0; i < l.vector_rows; ++i) {
          const int64_t count = a.ptr[i + 1] - a.ptr[i];
          CHECK(l.row_ptr[2 * i] % stride == 0);
          CHECK(l.row_ptr[2 * i + 1] - l.row_ptr[2 * i] == count / stride * stride);
          CHECK(l.row_ptr[2 * i + 2] - l.row_ptr[2 * i + 1] == (count % stride ? stride : 0));
        }
        CHECK(l.row_ptr.back() == l.slots);
        CHECK(l.slots % stride == 0);
        CHECK(l.padding_slots == l.slots - nv);
        CHECK(l.metadata_bytes() == 4 * (2 * l.vector_rows + 1 + l.slots));
        CHECK(l.value_bytes() == l.slots * vec_len * l.bits / 8);

        spx::ref::HostSparse sa;
        sa.format = SPX_FORMAT_BCRS;
        sa.type = cs.a_type;
        sa.rows = a.rows;
        sa.cols = a.cols;
        sa.vec_len = vec_len;
        sa.ptr = a.ptr;
        sa.idx = a.col;
        sa.values = pack(cs.a_type, user);
        spx::ref::HostDense b;
        b.rows = a.cols;
        b.cols = 7;
        b.ld = b.cols;
        b.type = cs.b_type;
        b.data = pack(cs.b_type, random_ints(cs.b_type, b.rows * b.cols, rng));
        spx::ref::HostDense c;
        c.rows = a.rows;
        c.cols = b.cols;
        c.ld = c.cols;
        c.type = SPX_R_32I;
        c.data.assign(spx::dtype::storage_bytes(SPX_R_32I, c.rows * c.cols), 0);
        const spx::ref::Expected want = spx::ref::spmm(sa, b, c, spx::ref::Scalars{});
        REQUIRE(want.exact);

        const std::vector<int64_t> got = layout_spmm(l, b);
        int64_t mismatches = 0, nonzero = 0;
        for (size_t e = 0; e < got.size(); ++e) {
          mismatches += static_cast<double>(got[e]) != want.value[e];
          nonzero += got[e] != 0;
        }
        CHECK(mismatches == 0);
        CHECK(nonzero > 0);  // the comparison is not vacuous
      }
}

TEST_CASE("SR-BCRS empty matrices and empty vector-rows", "[srbcrs][layout]") {
  Bcrs a;
  a.vec_len = 4;
  a.rows = 12;
  a.cols = 5;
  a.ptr = {0, 0, 0, 0};
  const auto l = plan::srbcrs_build(a.view(), config(32, SPX_R_8I), nullptr);
  CHECK(l.row_ptr == std::vector<int32_t>(7, 0));
  CHECK(l.slots == 0);
  CHECK(l.col.empty());
  CHECK(l.values.empty());
  CHECK(l.padding_slots == 0);

  Bcrs z;
  z.vec_len = 2;
  z.ptr = {0};
  const auto lz = plan::srbcrs_build(z.view(), config(32, SPX_R_4I), nullptr);
  CHECK(lz.row_ptr == std::vector<int32_t>{0});
  CHECK(lz.vector_rows == 0);
}

TEST_CASE("SR-BCRS re-packing new values equals a fresh build", "[srbcrs][layout]") {
  std::mt19937_64 rng(3);
  for (spxDataType_t type : {SPX_R_8I, SPX_R_4I, SPX_R_16I}) {
    INFO("type " << spx::dtype::name(type));
    const int64_t stride = 32;
    const Bcrs a = random_bcrs(4, stride, rng);
    const int64_t count = static_cast<int64_t>(a.col.size()) * 4;
    const auto first = pack(type, random_ints(type, count, rng));
    const auto second = pack(type, random_ints(type, count, rng));
    auto l = plan::srbcrs_build(a.view(), config(stride, type), first.data());
    const auto row_ptr = l.row_ptr;
    const auto col = l.col;
    plan::srbcrs_repack_values(l, second.data(), type);
    const auto fresh = plan::srbcrs_build(a.view(), config(stride, type), second.data());
    CHECK(l.values == fresh.values);
    CHECK(l.values != plan::srbcrs_build(a.view(), config(stride, type), first.data()).values);
    CHECK(l.row_ptr == row_ptr);
    CHECK(l.col == col);
  }
  // Same width, other signedness: the raw bits move unchanged.
  const Bcrs a = hand_matrix(2);
  std::vector<int64_t> user(24);
  for (size_t i = 0; i < user.size(); ++i) user[i] = static_cast<int64_t>(i * 9 % 16);
  auto l = plan::srbcrs_build_structure(a.view(), config(8, SPX_R_4I));
  plan::srbcrs_repack_values(l, pack(SPX_R_4U, user).data(), SPX_R_4U);
  const auto same = plan::srbcrs_build(a.view(), config(8, SPX_R_4I), pack(SPX_R_4U, user).data());
  CHECK(l.values == same.values);
  require_invalid([&] { plan::srbcrs_repack_values(l, user.data(), SPX_R_8I); }, "4-bit");
  require_invalid([&] { plan::srbcrs_repack_values(l, user.data(), SPX_R_32F); }, "32F");
}

TEST_CASE("SR-BCRS bad structures and configs are INVALID_VALUE", "[srbcrs][layout]") {
  const Bcrs good = hand_matrix(2);
  const auto cfg = config(16, SPX_R_8I);
  {
    Bcrs a = good;
    a.vec_len = 3;
    a.rows = 9;
    require_invalid([&] { plan::srbcrs_build_structure(a.view(), cfg); }, "V = 3");
  }
  {
    Bcrs a = good;
    a.rows = 5;
    require_invalid([&] { plan::srbcrs_build_structure(a.view(), cfg); }, "multiple of V");
  }
  {
    Bcrs a = good;
    a.cols = -1;
    require_invalid([&] { plan::srbcrs_build_structure(a.view(), cfg); }, "negative");
  }
  {
    Bcrs a = good;
    a.ptr[0] = 1;
    require_invalid([&] { plan::srbcrs_build_structure(a.view(), cfg); }, "block_row_ptr[0]");
  }
  {
    Bcrs a = good;
    a.ptr = {0, 3, 2, 12};
    require_invalid([&] { plan::srbcrs_build_structure(a.view(), cfg); }, "block_row_ptr[2]");
  }
  {
    Bcrs a = good;
    a.ptr = {0, 3, 3, 11};  // the view still says 12 vectors
    require_invalid([&] { plan::srbcrs_build_structure(a.view(), cfg); }, "block_row_ptr[3]");
  }
  {
    Bcrs a = good;
    a.col[4] = 16;
    require_invalid([&] { plan::srbcrs_build_structure(a.view(), cfg); }, "block_col[4]");
    a.col[4] = -1;
    require_invalid([&] { plan::srbcrs_build_structure(a.view(), cfg); }, "block_col[4]");
  }
  {
    // A CSR input (V = 1) is named by its own arrays, with the first bad position and value.
    Bcrs a = hand_matrix(1);
    a.col[7] = 16;
    plan::BcrsView v = a.view();
    v.ptr_name = "row_ptr";
    v.col_name = "col_ind";
    require_invalid([&] { plan::srbcrs_build_structure(v, cfg); },
                    "col_ind[7] = 16 is outside [0, 16)");
    plan::BcrsView short_count = v;  // the descriptor says 11 entries, row_ptr ends at 12
    short_count.num_vectors = 11;
    require_invalid([&] { plan::srbcrs_structure_stats(short_count); },
                    "row_ptr[3] = 12 must equal the entry count 11");
    a.ptr = {0, 4, 3, 12};
    v = a.view();
    v.ptr_name = "row_ptr";
    require_invalid([&] { plan::srbcrs_build_structure(v, cfg); },
                    "row_ptr[2] = 3 is smaller than row_ptr[1] = 4");
  }
  require_invalid([&] { plan::srbcrs_build_structure(good.view(), config(12, SPX_R_8I)); },
                  "stride 12");
  require_invalid([&] { plan::srbcrs_build_structure(good.view(), config(0, SPX_R_8I)); },
                  "stride 0");
  require_invalid([&] { plan::srbcrs_build_structure(good.view(), config(512, SPX_R_8I)); },
                  "stride 512");
  require_invalid([&] { plan::srbcrs_build_structure(good.view(), config(32, SPX_R_16F)); }, "16F");
  require_invalid([&] { plan::srbcrs_build_structure(good.view(), config(32, SPX_R_32I)); }, "32I");
}

TEST_CASE("SR-BCRS strides of the kernels", "[srbcrs][layout]") {
  for (spxDataType_t t : {SPX_R_8I, SPX_R_8U, SPX_R_4I, SPX_R_4U, SPX_R_16I})
    CHECK(plan::srbcrs_stride_for(t, 90) == 32);
  CHECK(plan::srbcrs_stride_for(SPX_R_8I, 80) == 32);
  // int4 is unpacked to int8 on sm_80 too (no native m16n8k64 path): one stride everywhere.
  CHECK(plan::srbcrs_stride_for(SPX_R_4I, 80) == 32);
  CHECK(plan::srbcrs_stride_for(SPX_R_4U, 86) == 32);
}

TEST_CASE("SR-BCRS structure: the parallel build equals a serial one; no host values on request",
          "[srbcrs][layout]") {
  std::mt19937 rng(3);
  for (int64_t v : {1, 8})
    for (spxDataType_t type : {SPX_R_8I, SPX_R_4U}) {
      // Enough vector rows for several parallel chunks; empty rows and exact multiples of S.
      const int64_t vrows = 5000, cols = 700, s = 32;
      std::vector<int32_t> ptr{0}, col;
      for (int64_t i = 0; i < vrows; ++i) {
        const int count = i % 11 == 0 ? 0 : i % 13 == 0 ? 64 : static_cast<int>(rng() % 90);
        for (int j = 0; j < count; ++j) col.push_back(static_cast<int32_t>((i * 7 + j * 5) % cols));
        ptr.push_back(static_cast<int32_t>(col.size()));
      }
      plan::BcrsView view;
      view.rows = vrows * v;
      view.cols = cols;
      view.vec_len = v;
      view.block_row_ptr = ptr.data();
      view.block_col = col.data();
      view.num_vectors = static_cast<int64_t>(col.size());
      plan::SrbcrsConfig cfg = config(s, type);
      const plan::SrbcrsLayout with = plan::srbcrs_build_structure(view, cfg);
      cfg.host_values = false;
      const plan::SrbcrsLayout without = plan::srbcrs_build_structure(view, cfg);
      CHECK(without.values.empty());
      CHECK(with.value_bytes() == static_cast<int64_t>(with.values.size()));
      CHECK(without.value_bytes() == with.value_bytes());
      CHECK(without.row_ptr == with.row_ptr);
      CHECK(without.col == with.col);
      CHECK(without.vec_map == with.vec_map);
      // The serial fill: slot start + j of vector row i holds vector first + j.
      std::vector<int32_t> want_col(static_cast<size_t>(with.slots), plan::kSrbcrsPadCol),
          want_map(static_cast<size_t>(with.slots), -1);
      int64_t start = 0;
      for (int64_t i = 0; i < vrows; ++i) {
        const int64_t count = ptr[i + 1] - ptr[i];
        for (int64_t j = 0; j < count; ++j) {
          want_map[static_cast<size_t>(start + j)] = static_cast<int32_t>(ptr[i] + j);
          want_col[static_cast<size_t>(plan::srbcrs_load_position(with, start + j))] = col[ptr[i] + j];
        }
        start += (count + s - 1) / s * s;
      }
      CHECK(std::vector<int32_t>(with.col.begin(), with.col.end()) == want_col);
      CHECK(std::vector<int32_t>(with.vec_map.begin(), with.vec_map.end()) == want_map);
    }
}
