// The SR-BCRS SDDMM's host side (formats/srbcrs_sddmm: refusals, variant, task list, output
// map in C's own and in the SR-BCRS order, pitch, in-place rule, workspace) and its register-level
// k order (families/srbcrs/kernels/sddmm_lane_map.hpp), with no GPU: one warp per task is emulated on the
// host with the very functions the kernel uses for its fragments, the mma.sync.m16n8k32 applied
// through the PTX ISA's fragment tables (written out here), and the result compared with the CPU
// reference exactly, for every bit pair, signedness, V, both output layouts, k tails.
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "runtime/dtype.hpp"
#include "families/srbcrs/kernels/sddmm_config.hpp"
#include "families/srbcrs/kernels/sddmm_lane_map.hpp"
#include "families/srbcrs/plan/sddmm.hpp"
#include "reference/reference.hpp"
#include "require_error.hpp"

namespace plan = spx::plan;
namespace map = spx::kernels::srbcrs::map;
using spx::kernels::srbcrs::SddmmTile;

namespace {

plan::srbcrs::SddmmInputs good_problem() {
  plan::srbcrs::SddmmInputs p;
  p.format = SPX_FORMAT_BCRS;
  p.vec_len = 8;
  p.m = 64;
  p.k = 256;
  p.n = 128;
  p.num_vectors = 100;
  return p;
}

int32_t byte_value(uint32_t w, int i, bool is_signed) {
  const uint8_t b = static_cast<uint8_t>(w >> (8 * i));
  return is_signed ? static_cast<int8_t>(b) : b;
}

/// D (16 x 8) += A (16 x 32) * B (32 x 8) from the 32 lanes' registers by the PTX ISA tables of
/// mma.m16n8k32 .s8/.u8 (g = lane / 4, t = lane % 4): a0: (g, 4t..4t+3), a1: (g+8, 4t..),
/// a2: (g, 16+4t..), a3: (g+8, 16+4t..); b0: (4t.., col g), b1: (16+4t.., col g);
/// d0, d1: (g, 2t), (g, 2t+1); d2, d3: (g+8, 2t), (g+8, 2t+1). Wrapping int32 sums.
void mma(const uint32_t (&a)[32][4], const uint32_t (&b)[32][2], bool a_signed, bool b_signed,
         int32_t (&d)[32][4]) {
  int64_t A[16][32], B[32][8];
  for (int lane = 0; lane < 32; ++lane) {
    const int g = lane / 4, t = lane % 4;
    for (int j = 0; j < 4; ++j) {
      A[g][4 * t + j] = byte_value(a[lane][0], j, a_signed);
      A[g + 8][4 * t + j] = byte_value(a[lane][1], j, a_signed);
      A[g][16 + 4 * t + j] = byte_value(a[lane][2], j, a_signed);
      A[g + 8][16 + 4 * t + j] = byte_value(a[lane][3], j, a_signed);
      B[4 * t + j][g] = byte_value(b[lane][0], j, b_signed);
      B[16 + 4 * t + j][g] = byte_value(b[lane][1], j, b_signed);
    }
  }
  for (int lane = 0; lane < 32; ++lane) {
    const int g = lane / 4, t = lane % 4;
    for (int i = 0; i < 4; ++i) {
      const int row = i < 2 ? g : g + 8, col = 2 * t + (i & 1);
      int64_t s = 0;
      for (int k = 0; k < 32; ++k) s += A[row][k] * B[k][col];
      d[lane][i] = static_cast<int32_t>(static_cast<uint32_t>(d[lane][i]) + static_cast<uint32_t>(s));
    }
  }
}

/// The raw fragment of positions k0 + 16t .. + 15 of a k-contiguous row of `bits` (zeros past k),
/// as the kernel's loads produce it.
template <int Bits>
map::Raw<Bits> fragment(const std::vector<uint8_t>& row, int64_t k, int64_t first) {
  map::Raw<Bits> r{};
  for (int p = 0; p < 16; ++p) {
    const int64_t pos = first + p;
    if (pos >= k) break;
    uint32_t bits_value;
    if (Bits == 4)
      bits_value = (row[pos >> 1] >> ((pos & 1) * 4)) & 0xFu;
    else if (Bits == 8)
      bits_value = row[pos];
    else
      bits_value = uint32_t{row[2 * pos]} | (uint32_t{row[2 * pos + 1]} << 8);
    const int bit = p * Bits;
    r.w[bit / 32] |= bits_value << (bit % 32);
  }
  return r;
}

spxDataType_t int_type(int bits, bool is_signed) {
  if (bits == 16) return SPX_R_16I;
  if (bits == 8) return is_signed ? SPX_R_8I : SPX_R_8U;
  return is_signed ? SPX_R_4I : SPX_R_4U;
}

/// Random raw bytes of `count` elements of `type` (every value of the type possible).
std::vector<uint8_t> random_raw(std::mt19937_64& rng, spxDataType_t type, int64_t count) {
  std::vector<uint8_t> v(spx::dtype::storage_bytes(type, count));
  for (uint8_t& b : v) b = static_cast<uint8_t>(rng());
  if (spx::dtype::bits(type) == 4 && (count & 1)) v.back() &= 0x0F;
  return v;
}

/// The kernel's computation of one warp (task), emulated: per step the lanes' fragments, the
/// k-quads of sddmm_lane_map.hpp, the mma by the PTX tables; returns value (slot q, row v) per
/// lane output as out[q][v] (wrapping int32).
template <int ABits, int BBits>
void emulate_task(const std::vector<std::vector<uint8_t>>& a_rows,  // V rows, k-contiguous
                  const std::vector<std::vector<uint8_t>>& b_cols,  // 32 columns (empty: padding)
                  int64_t k, bool a_signed, bool b_signed, int32_t (&out)[32][8]) {
  constexpr bool kWide = ABits == 16;
  int32_t d[3][2][32][4] = {};  // [slice product][tile][lane][reg]
  for (int64_t k0 = 0; k0 < k; k0 += SddmmTile::kStepK) {
    for (int h = 0; h < 2; ++h) {
      uint32_t a_reg[3][2][32][4] = {}, b_reg[2][32][2] = {};  // [slice][tile] / [slice]
      for (int lane = 0; lane < 32; ++lane) {
        const int g = lane / 4, t = lane % 4;
        const int64_t first = k0 + 16 * t;
        map::Raw<ABits> ra{};
        if (g < static_cast<int>(a_rows.size())) ra = fragment<ABits>(a_rows[g], k, first);
        map::Raw<BBits> rb[2][2];
        for (int i = 0; i < 2; ++i)
          for (int hh = 0; hh < 2; ++hh) {
            const auto& col = b_cols[16 * i + 8 * hh + g];
            rb[i][hh] = col.empty() ? map::Raw<BBits>{} : fragment<BBits>(col, k, first);
          }
        if constexpr (kWide) {
          uint32_t ahi[2], alo[2];
          map::slices16(ra, h, ahi, alo);
          b_reg[0][lane][0] = ahi[0], b_reg[0][lane][1] = ahi[1];
          b_reg[1][lane][0] = alo[0], b_reg[1][lane][1] = alo[1];
          for (int i = 0; i < 2; ++i) {
            uint32_t c0hi[2], c0lo[2], c1hi[2], c1lo[2];
            map::slices16(rb[i][0], h, c0hi, c0lo);
            map::slices16(rb[i][1], h, c1hi, c1lo);
            const uint32_t hi[4] = {c0hi[0], c1hi[0], c0hi[1], c1hi[1]};
            const uint32_t lo[4] = {c0lo[0], c1lo[0], c0lo[1], c1lo[1]};
            std::memcpy(a_reg[0][i][lane], hi, sizeof hi);
            std::memcpy(a_reg[1][i][lane], lo, sizeof lo);
          }
        } else {
          constexpr bool kInter = BBits == 4;
          uint32_t q0, q1;
          if (a_signed)
            map::quads<ABits, true, kInter>(ra, h, q0, q1);
          else
            map::quads<ABits, false, kInter>(ra, h, q0, q1);
          b_reg[0][lane][0] = q0, b_reg[0][lane][1] = q1;
          for (int i = 0; i < 2; ++i) {
            uint32_t c[2][2];
            for (int hh = 0; hh < 2; ++hh) {
              if (b_signed)
                map::quads<BBits, true, kInter>(rb[i][hh], h, c[hh][0], c[hh][1]);
              else
                map::quads<BBits, false, kInter>(rb[i][hh], h, c[hh][0], c[hh][1]);
            }
            const uint32_t regs[4] = {c[0][0], c[1][0], c[0][1], c[1][1]};
            std::memcpy(a_reg[0][i][lane], regs, sizeof regs);
          }
        }
      }
      for (int i = 0; i < 2; ++i) {
        if (kWide) {
          mma(a_reg[0][i], b_reg[0], true, true, d[0][i]);   // hi x hi
          mma(a_reg[0][i], b_reg[1], true, false, d[1][i]);  // B hi x A lo
          mma(a_reg[1][i], b_reg[0], false, true, d[1][i]);  // B lo x A hi
          mma(a_reg[1][i], b_reg[1], false, false, d[2][i]); // lo x lo
        } else {
          mma(a_reg[0][i], b_reg[0], b_signed, a_signed, d[0][i]);
        }
      }
    }
  }
  for (int lane = 0; lane < 32; ++lane) {
    const int g = lane / 4, t = lane % 4;
    for (int i = 0; i < 2; ++i)
      for (int reg = 0; reg < 4; ++reg) {
        const int q = 16 * i + 8 * (reg / 2) + g, v = 2 * t + (reg & 1);
        uint32_t x = static_cast<uint32_t>(d[0][i][lane][reg]);
        if (kWide)
          x = (x << 16) + (static_cast<uint32_t>(d[1][i][lane][reg]) << 8) +
              static_cast<uint32_t>(d[2][i][lane][reg]);
        out[q][v] = static_cast<int32_t>(x);
      }
  }
}

/// A random BCRS(V) pattern of vr vector-rows x n columns: vector-row i keeps lengths[i % size]
/// distinct random columns (capped at n).
spx::ref::HostSparse random_pattern(std::mt19937_64& rng, int64_t vr, int64_t n, int64_t V,
                                    const std::vector<int>& lengths) {
  spx::ref::HostSparse c;
  c.format = V == 1 ? SPX_FORMAT_CSR : SPX_FORMAT_BCRS;
  c.type = SPX_R_32I;
  c.rows = vr * V;
  c.cols = n;
  c.vec_len = V;
  c.ptr.push_back(0);
  for (int64_t i = 0; i < vr; ++i) {
    const int want = std::min<int>(lengths[static_cast<size_t>(i) % lengths.size()],
                                   static_cast<int>(n));
    std::set<int32_t> cols;
    while (static_cast<int>(cols.size()) < want) cols.insert(static_cast<int32_t>(rng() % n));
    for (int32_t x : cols) c.idx.push_back(x);
    c.ptr.push_back(static_cast<int32_t>(c.idx.size()));
  }
  c.values.assign(static_cast<size_t>(c.idx.size() * V) * 4, 0);
  return c;
}

/// Emulates the whole SDDMM (alpha 1, beta 0, 32I) with the plan's tasks and output map, and
/// compares every value with the reference; the SR-BCRS layout also needs 0 in every padding
/// element. Returns the number of mismatches.
template <int ABits, int BBits>
int64_t emulate_and_compare(std::mt19937_64& rng, int64_t V, int64_t vr, int64_t k, int64_t n,
                            bool a_signed, bool b_signed, plan::ValuesLayout layout) {
  const spxDataType_t ta = int_type(ABits, a_signed), tb = int_type(BBits, b_signed);
  const spx::ref::HostSparse c = random_pattern(rng, vr, n, V, {0, 3, 33, 64, 1, 40});
  const int64_t m = vr * V;
  // A row-major (k-contiguous rows), B column-major (k-contiguous columns); ld = k (even for
  // 4-bit: k rounded up, the extra element zero).
  const int64_t ld = (ABits == 4 || BBits == 4) ? (k + 1) / 2 * 2 : k;
  spx::ref::HostDense A, B;
  A.rows = m, A.cols = k, A.ld = std::max<int64_t>(ld, 1), A.type = ta, A.order = SPX_ORDER_ROW;
  B.rows = k, B.cols = n, B.ld = std::max<int64_t>(ld, 1), B.type = tb, B.order = SPX_ORDER_COL;
  A.data = random_raw(rng, ta, m * A.ld);
  B.data = random_raw(rng, tb, n * B.ld);
  const spx::ref::Expected e = spx::ref::sddmm(A, B, c, {1, 0});

  plan::BcrsView view;
  view.rows = m, view.cols = n, view.vec_len = V;
  view.block_row_ptr = c.ptr.data(), view.block_col = c.idx.data();
  view.num_vectors = static_cast<int64_t>(c.idx.size());
  const plan::SrbcrsSddmmPlan sp = plan::srbcrs_sddmm_plan(view);
  const int64_t row_bytes_a = static_cast<int64_t>(spx::dtype::storage_bytes(ta, A.ld));
  const int64_t row_bytes_b = static_cast<int64_t>(spx::dtype::storage_bytes(tb, B.ld));
  const int64_t out_count = layout == plan::ValuesLayout::Srbcrs ? sp.padded_elements()
                                                                  : view.num_vectors * V;
  std::vector<int64_t> got(static_cast<size_t>(out_count), INT64_MIN);
  for (int64_t task = 0; task < sp.tasks(); ++task) {
    const int64_t vrow = sp.task_row[task];
    std::vector<std::vector<uint8_t>> a_rows, b_cols(32);
    for (int64_t v = 0; v < V; ++v) {
      const auto* p = A.data.data() + (vrow * V + v) * row_bytes_a;
      a_rows.emplace_back(p, p + row_bytes_a);
    }
    for (int q = 0; q < 32; ++q) {
      const int32_t col = sp.col[task * 32 + q];
      if (col < 0) continue;
      const auto* p = B.data.data() + col * row_bytes_b;
      b_cols[q].assign(p, p + row_bytes_b);
    }
    int32_t out[32][8];
    emulate_task<ABits, BBits>(a_rows, b_cols, k, a_signed, b_signed, out);
    for (int q = 0; q < 32; ++q)
      for (int64_t v = 0; v < V; ++v) {
        const int64_t slot = task * 32 + q;
        const int64_t el = plan::srbcrs_sddmm_output_element(sp, layout, slot, v);
        const bool real = sp.col[slot] >= 0;
        if (el < 0) {
          CHECK_FALSE(real);
          continue;
        }
        REQUIRE(el < out_count);
        CHECK(got[el] == INT64_MIN);  // every element written once
        got[el] = real ? out[q][v] : 0;
        if (real && layout == plan::ValuesLayout::Srbcrs) {
          // The element of the same value in C's own order, for the comparison below.
          const int64_t own = plan::srbcrs_sddmm_output_element(sp, plan::ValuesLayout::Format,
                                                                slot, v);
          got[el] = out[q][v];
          CHECK(own == int64_t{sp.vec_map[slot]} * V + v);
          if (static_cast<int32_t>(std::llround(e.value[own])) != out[q][v]) return 1;
        }
      }
  }
  int64_t bad = 0;
  for (int64_t el = 0; el < out_count; ++el) {
    if (got[el] == INT64_MIN) ++bad;  // never written
    if (layout == plan::ValuesLayout::Format &&
        got[el] != static_cast<int64_t>(std::llround(e.value[el])))
      ++bad;
  }
  return bad;
}

}  // namespace

TEST_CASE("SR-BCRS SDDMM refusals name the reason", "[srbcrs][sddmm]") {
  CHECK(plan::srbcrs::refusal(good_problem()).empty());
  auto refused = [](plan::srbcrs::SddmmInputs p, const std::string& part) {
    const std::string why = plan::srbcrs::refusal(p);
    INFO(why);
    CHECK(why.find(part) != std::string::npos);
  };
  plan::srbcrs::SddmmInputs p = good_problem();
  p.format = SPX_FORMAT_ELL;
  refused(p, "BCRS(V) or CSR");
  p = good_problem();
  p.vec_len = 16;
  refused(p, "V = 16");
  p = good_problem();
  p.a_type = SPX_R_16I;
  refused(p, "A 16I, B 8I");
  p.b_type = SPX_R_16I;
  CHECK(plan::srbcrs::refusal(p).empty());
  p = good_problem();
  p.b_type = SPX_R_32F;
  refused(p, "8I, 8U, 4I or 4U");
  p = good_problem();
  p.compute_type = SPX_R_32F;
  refused(p, "accumulates in 32I");
  p = good_problem();
  p.c_type = SPX_R_16BF;
  refused(p, "32I, 32F or 16F");
  p = good_problem();
  p.cc_major = 7;
  refused(p, "sm_80");
  p = good_problem();
  p.k = int64_t{1} << 32;
  refused(p, "exceeds");
  p = good_problem();
  p.format = SPX_FORMAT_CSR;
  p.vec_len = 1;
  CHECK(plan::srbcrs::refusal(p).empty());
}

TEST_CASE("SR-BCRS SDDMM variant choice", "[srbcrs][sddmm]") {
  plan::srbcrs::SddmmInputs p = good_problem();
  p.a_type = SPX_R_4U;
  p.b_type = SPX_R_8I;
  plan::SrbcrsSddmmChoice c = plan::srbcrs::choose(p, {}).variant;
  CHECK(c.a_bits == 4);
  CHECK(c.b_bits == 8);
  CHECK_FALSE(c.a_signed);
  CHECK(c.b_signed);
  CHECK_FALSE(c.emulated());
  CHECK(c.precision() == "l4r8");
  CHECK(c.kernel_name() == "srbcrs_sddmm_l4r8");
  p.a_type = p.b_type = SPX_R_16I;
  c = plan::srbcrs::choose(p, {}).variant;
  CHECK(c.emulated());
  CHECK(c.kernel_name() == "srbcrs_sddmm_l16r16");
  p.c_type = SPX_R_16BF;
  require_error([&] { plan::srbcrs::choose(p, {}).variant; }, SPX_STATUS_INTERNAL_ERROR, "refused");
}

TEST_CASE("SR-BCRS slot pointers pad every vector-row to strides of 32", "[srbcrs][sddmm]") {
  const std::vector<int32_t> ptr = {0, 0, 3, 35, 35, 99};  // lengths 0, 3, 32, 0, 64
  const std::vector<int32_t> slots = plan::srbcrs_slot_ptr(5, ptr.data(), 4);
  CHECK(slots == std::vector<int32_t>{0, 0, 32, 64, 64, 128});
  CHECK(plan::srbcrs_slot_ptr(0, ptr.data(), 2) == std::vector<int32_t>{0});
  const std::vector<int32_t> bad = {0, 5, 2};
  require_invalid([&] { plan::srbcrs_slot_ptr(2, bad.data(), 1); }, "block_row_ptr");
  require_invalid([&] { plan::srbcrs_slot_ptr(2, nullptr, 1); }, "null");
  require_invalid([&] { plan::srbcrs_slot_ptr(-1, ptr.data(), 1); }, "negative");
  const std::vector<int32_t> huge = {0, INT32_MAX - 3};
  require_error([&] { plan::srbcrs_slot_ptr(1, huge.data(), 1); }, SPX_STATUS_NOT_SUPPORTED,
                "int32");
}

TEST_CASE("SR-BCRS SDDMM plan: tasks, columns, vector map, output elements", "[srbcrs][sddmm]") {
  // V = 2, 4 vector-rows with 3, 0, 33 and 1 vectors; 40 columns.
  std::vector<int32_t> ptr = {0, 3, 3, 36, 37};
  std::vector<int32_t> col(37);
  for (int i = 0; i < 37; ++i) col[i] = (7 * i) % 40;
  plan::BcrsView v;
  v.rows = 8, v.cols = 40, v.vec_len = 2;
  v.block_row_ptr = ptr.data(), v.block_col = col.data(), v.num_vectors = 37;
  const plan::SrbcrsSddmmPlan p = plan::srbcrs_sddmm_plan(v);
  CHECK(p.task_row == std::vector<int32_t>{0, 2, 2, 3});
  CHECK(p.slots == 128);
  CHECK(p.padded_elements() == 256);
  CHECK(p.col[0] == col[0]);
  CHECK(p.col[2] == col[2]);
  CHECK(p.col[3] == -1);
  CHECK(p.col[32] == col[3]);
  CHECK(p.col[64] == col[35]);
  CHECK(p.col[65] == -1);
  CHECK(p.col[96] == col[36]);
  CHECK(p.vec_map[33] == 4);
  CHECK(p.vec_map[97] == -1);
  using L = plan::ValuesLayout;
  CHECK(plan::srbcrs_sddmm_output_element(p, L::Format, 33, 1) == 4 * 2 + 1);
  CHECK(plan::srbcrs_sddmm_output_element(p, L::Format, 3, 0) == -1);
  CHECK(plan::srbcrs_sddmm_output_element(p, L::Srbcrs, 33, 1) == 64 + 32 + 1);
  CHECK(plan::srbcrs_sddmm_output_element(p, L::Srbcrs, 3, 0) == 3);
  // Srbcrs: a bijection of (slot, v) onto [0, padded_elements); Format: real slots onto
  // [0, num_vectors * V).
  std::set<int64_t> srbcrs, own;
  for (int64_t s = 0; s < p.slots; ++s)
    for (int64_t r = 0; r < 2; ++r) {
      srbcrs.insert(plan::srbcrs_sddmm_output_element(p, L::Srbcrs, s, r));
      const int64_t e = plan::srbcrs_sddmm_output_element(p, L::Format, s, r);
      if (e >= 0) own.insert(e);
    }
  CHECK(srbcrs.size() == 256);
  CHECK(*srbcrs.rbegin() == 255);
  CHECK(own.size() == 74);
  CHECK(*own.rbegin() == 73);
  // The slot pointers of the public layout agree with the plan's strides.
  const std::vector<int32_t> slots = plan::srbcrs_slot_ptr(4, ptr.data(), 2);
  CHECK(slots == std::vector<int32_t>{0, 32, 32, 96, 128});

  // Bad structure is INVALID_VALUE (srbcrs_build_structure's checks).
  col[5] = 40;
  require_invalid([&] { plan::srbcrs_sddmm_plan(v); }, "block_col");
}

TEST_CASE("SR-BCRS SDDMM pitch, in-place rule and workspace", "[srbcrs][sddmm]") {
  CHECK(plan::srbcrs_sddmm_pitch(1, 8) == 16);
  CHECK(plan::srbcrs_sddmm_pitch(33, 4) == 32);
  CHECK(plan::srbcrs_sddmm_pitch(64, 16) == 128);
  CHECK(plan::srbcrs_sddmm_direct(true, 0x1000, 256, 8));
  CHECK_FALSE(plan::srbcrs_sddmm_direct(false, 0x1000, 256, 8));  // not k-contiguous
  CHECK_FALSE(plan::srbcrs_sddmm_direct(true, 0x1008, 256, 8));   // base
  CHECK_FALSE(plan::srbcrs_sddmm_direct(true, 0x1000, 260, 8));   // pitch
  CHECK(plan::srbcrs_sddmm_direct(true, 0x1000, 32, 4));
  CHECK_FALSE(plan::srbcrs_sddmm_direct(true, 0x1000, 16, 4));
  CHECK(plan::srbcrs_sddmm_direct(true, 0x1000, 8, 16));
  const plan::SrbcrsSddmmWorkspace w = plan::srbcrs_sddmm_workspace(10, 33, 7, 8, 16);
  CHECK(w.a_offset == 0);
  CHECK(w.b_offset == 512);  // 10 * 48 rounded up to 256
  CHECK(w.bytes == 512 + 7 * 80);
  CHECK(plan::srbcrs_sddmm_workspace(10, 0, 7, 8, 8).bytes == 0);
}

TEST_CASE("SR-BCRS SDDMM k order: A and B agree for every bit pair", "[srbcrs][sddmm]") {
  // Sum over both mma of a step of the byte products of A's and B's k-quads = the dot product
  // of the 16 positions.
  std::mt19937_64 rng(5);
  auto check_pair = [&](auto a_tag, auto b_tag, bool as, bool bs) {
    constexpr int AB = decltype(a_tag)::value, BB = decltype(b_tag)::value;
    for (int trial = 0; trial < 200; ++trial) {
      map::Raw<AB> ra;
      map::Raw<BB> rb;
      for (uint32_t& w : ra.w) w = static_cast<uint32_t>(rng());
      for (uint32_t& w : rb.w) w = static_cast<uint32_t>(rng());
      int64_t want = 0;
      for (int p = 0; p < 16; ++p) {
        auto elem = [&](const uint32_t* w, int bits, bool sgn) -> int64_t {
          const uint32_t x = (w[p * bits / 32] >> (p * bits % 32)) & ((1u << bits) - 1);
          return sgn && (x >> (bits - 1)) ? int64_t(x) - (int64_t(1) << bits) : int64_t(x);
        };
        want += elem(ra.w, AB, as) * elem(rb.w, BB, bs);
      }
      int64_t got = 0;
      for (int h = 0; h < 2; ++h) {
        uint32_t a0, a1, b0, b1;
        constexpr bool kInter = BB == 4;
        if (as) map::quads<AB, true, kInter>(ra, h, a0, a1);
        else map::quads<AB, false, kInter>(ra, h, a0, a1);
        if (bs) map::quads<BB, true, kInter>(rb, h, b0, b1);
        else map::quads<BB, false, kInter>(rb, h, b0, b1);
        for (int j = 0; j < 4; ++j)
          got += int64_t{byte_value(a0, j, as)} * byte_value(b0, j, bs) +
                 int64_t{byte_value(a1, j, as)} * byte_value(b1, j, bs);
      }
      REQUIRE(got == want);
    }
  };
  using I8 = std::integral_constant<int, 8>;
  using I4 = std::integral_constant<int, 4>;
  for (bool as : {true, false})
    for (bool bs : {true, false}) {
      check_pair(I8{}, I8{}, as, bs);
      check_pair(I8{}, I4{}, as, bs);
      check_pair(I4{}, I8{}, as, bs);
      check_pair(I4{}, I4{}, as, bs);
    }
  // 16-bit: 2^16 hi.hi + 2^8 (hi.lo + lo.hi) + lo.lo over the slices = the int16 dot product.
  for (int trial = 0; trial < 200; ++trial) {
    map::Raw<16> ra, rb;
    for (uint32_t& w : ra.w) w = static_cast<uint32_t>(rng());
    for (uint32_t& w : rb.w) w = static_cast<uint32_t>(rng());
    if (trial == 0)  // the most negative values
      for (int i = 0; i < 8; ++i) ra.w[i] = rb.w[i] = 0x80008000u;
    int64_t want = 0;
    for (int p = 0; p < 16; ++p)
      want += int64_t{static_cast<int16_t>(ra.w[p / 2] >> (16 * (p % 2)))} *
              static_cast<int16_t>(rb.w[p / 2] >> (16 * (p % 2)));
    int64_t got = 0;
    for (int h = 0; h < 2; ++h) {
      uint32_t ahi[2], alo[2], bhi[2], blo[2];
      map::slices16(ra, h, ahi, alo);
      map::slices16(rb, h, bhi, blo);
      for (int q = 0; q < 2; ++q)
        for (int j = 0; j < 4; ++j) {
          const int64_t ah = byte_value(ahi[q], j, true), al = byte_value(alo[q], j, false);
          const int64_t bh = byte_value(bhi[q], j, true), bl = byte_value(blo[q], j, false);
          got += 65536 * ah * bh + 256 * (ah * bl + al * bh) + al * bl;
        }
    }
    REQUIRE(got == want);
  }
}

TEST_CASE("SR-BCRS SDDMM warp emulation equals the reference", "[srbcrs][sddmm]") {
  std::mt19937_64 rng(11);
  using L = plan::ValuesLayout;
  for (int64_t V : {1, 2, 4, 8})
    for (L layout : {L::Format, L::Srbcrs})
      for (int64_t k : {int64_t{1}, int64_t{67}, int64_t{128}, int64_t{200}}) {
        INFO("V " << V << ", k " << k << ", layout " << static_cast<int>(layout));
        CHECK(emulate_and_compare<8, 8>(rng, V, 7, k, 70, true, true, layout) == 0);
        CHECK(emulate_and_compare<8, 8>(rng, V, 5, k, 45, false, true, layout) == 0);
        CHECK(emulate_and_compare<4, 4>(rng, V, 5, k, 45, true, false, layout) == 0);
        CHECK(emulate_and_compare<4, 4>(rng, V, 5, k, 45, false, false, layout) == 0);
        CHECK(emulate_and_compare<8, 4>(rng, V, 5, k, 45, true, true, layout) == 0);
        CHECK(emulate_and_compare<4, 8>(rng, V, 5, k, 45, true, false, layout) == 0);
        CHECK(emulate_and_compare<16, 16>(rng, V, 5, k, 45, true, true, layout) == 0);
      }
}
