// The SR-BCRS SpMM kernel's byte mapping, emulated on the host (no GPU needed): one warp's stages
// are filled and read with the very functions the kernel uses (families/srbcrs/kernels/lane_map.hpp: which
// shared-memory row and chunk each copy writes, where each lane reads, the 4 x 4 byte transpose,
// the int4 unpacking, the output columns), and the mma.sync.m16n8k32 is applied through the PTX
// ISA's fragment tables, written out independently here. The result must equal the CPU reference
// exactly for every (A bits, B bits, signedness, V), with n tails and empty vector-rows. Also:
// the shared-memory accesses are bank-conflict-free. The family's decisions are tested in
// test_srbcrs_choice.cpp.
#include <catch2/catch.hpp>
#include <cstdint>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "runtime/dtype.hpp"
#include "families/srbcrs/kernels/config.hpp"
#include "families/srbcrs/kernels/lane_map.hpp"
#include "families/srbcrs/plan/layout.hpp"
#include "reference/reference.hpp"

namespace plan = spx::plan;
namespace map = spx::kernels::srbcrs::map;
using spx::kernels::srbcrs::SpmmTile;

namespace {

spxDataType_t int_type(int bits, bool is_signed) {
  if (bits == 16) return SPX_R_16I;
  if (bits == 8) return is_signed ? SPX_R_8I : SPX_R_8U;
  return is_signed ? SPX_R_4I : SPX_R_4U;
}

int32_t byte_value(uint32_t w, int i, bool is_signed) {
  const uint8_t b = static_cast<uint8_t>(w >> (8 * i));
  return is_signed ? static_cast<int8_t>(b) : b;
}

int32_t nibble_value(uint32_t w, int i, bool is_signed) {
  const int32_t x = static_cast<int32_t>((w >> (4 * i)) & 0xFu);
  return is_signed && x >= 8 ? x - 16 : x;
}

uint32_t word_at(const std::vector<uint8_t>& s, int offset) {
  uint32_t w;
  std::memcpy(&w, s.data() + offset, 4);
  return w;
}

/// D (16 x 8, int32) += A (16 x 32) * B (32 x 8) from the 32 lanes' registers, by the PTX ISA
/// tables for mma.m16n8k32 with .s8/.u8 (g = lane / 4, t = lane % 4):
///   A: a_i, i < 16, row g for i in [0, 4) and [8, 12), else g + 8; col 4t + (i & 3), + 16 for
///      i >= 8
///   B: b_i, i < 8, row 4t + (i & 3), + 16 for i >= 4; col g
///   D: d_i, i < 4, row g for i < 2, else g + 8; col 2t + (i & 1)
/// (wrapping int32 accumulation, like the tensor cores).
void mma_reference(const uint32_t (&a)[32][4], const uint32_t (&b)[32][2], bool a_signed,
                   bool b_signed, int32_t (&d)[32][4]) {
  int32_t A[16][32], B[32][8];
  for (int lane = 0; lane < 32; ++lane) {
    const int g = lane / 4, t = lane % 4;
    for (int i = 0; i < 16; ++i) {
      const int row = (i < 4 || (i >= 8 && i < 12)) ? g : g + 8;
      const int col = 4 * t + (i & 3) + (i >= 8 ? 16 : 0);
      A[row][col] = byte_value(a[lane][i / 4], i % 4, a_signed);
    }
    for (int i = 0; i < 8; ++i) {
      const int row = 4 * t + (i & 3) + (i >= 4 ? 16 : 0);
      B[row][g] = byte_value(b[lane][i / 4], i % 4, b_signed);
    }
  }
  for (int lane = 0; lane < 32; ++lane) {
    const int g = lane / 4, t = lane % 4;
    for (int i = 0; i < 4; ++i) {
      const int row = i < 2 ? g : g + 8, col = 2 * t + (i & 1);
      int64_t sum = 0;
      for (int k = 0; k < 32; ++k) sum += int64_t{A[row][k]} * B[k][col];
      d[lane][i] = static_cast<int32_t>(static_cast<uint32_t>(d[lane][i]) + static_cast<uint32_t>(sum));
    }
  }
}

/// The same for mma.m16n8k64 with .s4/.u4: 8 nibbles per register (lowest nibble = lowest k):
///   A: register r of lane (g, t): row g (r even) or g + 8 (r odd), k = 8t + 32 (r / 2) + nibble
///   B: register r: col g, k = 8t + 32 r + nibble;   D as above.
void mma_reference_k64(const uint32_t (&a)[32][4], const uint32_t (&b)[32][2], bool a_signed,
                       bool b_signed, int32_t (&d)[32][4]) {
  int32_t A[16][64], B[64][8];
  for (int lane = 0; lane < 32; ++lane) {
    const int g = lane / 4, t = lane % 4;
    for (int r = 0; r < 4; ++r)
      for (int q = 0; q < 8; ++q)
        A[(r & 1) ? g + 8 : g][8 * t + 32 * (r / 2) + q] = nibble_value(a[lane][r], q, a_signed);
    for (int r = 0; r < 2; ++r)
      for (int q = 0; q < 8; ++q) B[8 * t + 32 * r + q][g] = nibble_value(b[lane][r], q, b_signed);
  }
  for (int lane = 0; lane < 32; ++lane) {
    const int g = lane / 4, t = lane % 4;
    for (int i = 0; i < 4; ++i) {
      const int row = i < 2 ? g : g + 8, col = 2 * t + (i & 1);
      int64_t sum = 0;
      for (int k = 0; k < 64; ++k) sum += int64_t{A[row][k]} * B[k][col];
      d[lane][i] = static_cast<int32_t>(static_cast<uint32_t>(d[lane][i]) + static_cast<uint32_t>(sum));
    }
  }
}

struct Variant {
  int a_bits, b_bits;
  bool a_signed, b_signed;
  bool native = false;  ///< L4-R4 on m16n8k64 (stride 64)
};

/// Emulates the kernel on a random BCRS(V) matrix and returns C (row-major int64 m x n).
struct Emulation {
  std::vector<int64_t> got, want;
};

/// Random raw bytes; 16-bit elements: every 5th element forced to -32768 or 32767.
void fill_random(std::vector<uint8_t>& bytes, int bits, std::mt19937_64& rng) {
  for (uint8_t& x : bytes) x = static_cast<uint8_t>(rng());
  if (bits != 16) return;
  for (size_t e = 0; 2 * e + 1 < bytes.size(); e += 5) {
    const uint16_t v = (rng() & 1) ? 0x8000u : 0x7FFFu;
    bytes[2 * e] = static_cast<uint8_t>(v & 0xFF);
    bytes[2 * e + 1] = static_cast<uint8_t>(v >> 8);
  }
}

Emulation emulate(const Variant& var, int64_t vec_len, int64_t vector_rows, int64_t k, int64_t n,
                  uint64_t seed) {
  std::mt19937_64 rng(seed);
  const int64_t m = vector_rows * vec_len;
  const spxDataType_t a_type = int_type(var.a_bits, var.a_signed);
  const spxDataType_t b_type = int_type(var.b_bits, var.b_signed);
  const int S = SpmmTile::stride(var.native);

  // A: BCRS(V), every 4th vector-row empty, one vector-row full, the rest random.
  spx::ref::HostSparse A;
  A.format = SPX_FORMAT_BCRS;
  A.type = a_type;
  A.rows = m;
  A.cols = k;
  A.vec_len = vec_len;
  A.ptr.push_back(0);
  for (int64_t i = 0; i < vector_rows; ++i) {
    for (int64_t c = 0; c < k; ++c)
      if (i % 4 != 1 && (i % 7 == 2 || rng() % 3 == 0)) A.idx.push_back(static_cast<int32_t>(c));
    A.ptr.push_back(static_cast<int32_t>(A.idx.size()));
  }
  const int64_t vectors = static_cast<int64_t>(A.idx.size());
  A.values.resize(spx::dtype::storage_bytes(a_type, vectors * vec_len));
  fill_random(A.values, var.a_bits, rng);

  // B: row-major k x n with an even ld (4-bit rows start on a byte) and random padding.
  spx::ref::HostDense B;
  B.rows = k;
  B.cols = n;
  B.ld = (n + 2) / 2 * 2;
  B.order = SPX_ORDER_ROW;
  B.type = b_type;
  B.data.resize(spx::dtype::storage_bytes(b_type, k * B.ld));
  fill_random(B.data, var.b_bits, rng);

  spx::ref::HostDense C;
  C.rows = m;
  C.cols = n;
  C.ld = n;
  C.type = SPX_R_32I;
  const spx::ref::Expected e = spx::ref::spmm(A, B, C, {1, 0});
  Emulation out;
  out.want.assign(e.value.begin(), e.value.end());

  plan::BcrsView view;
  view.rows = m;
  view.cols = k;
  view.vec_len = vec_len;
  view.block_row_ptr = A.ptr.data();
  view.block_col = A.idx.data();
  view.num_vectors = vectors;
  plan::SrbcrsConfig cfg;
  cfg.stride = S;
  cfg.type = a_type;
  const plan::SrbcrsLayout L = plan::srbcrs_build(view, cfg, A.values.data());
  // What the kernel reads: 16-bit values as two int8 slices per stride.
  const std::vector<uint8_t> a_bytes =
      var.a_bits == 16 ? plan::srbcrs_sliced_values(L) : L.values;

  // What the kernel's launcher passes: B in place (row pitch in bytes).
  const int64_t pitch = var.b_bits == 4 ? B.ld / 2 : B.ld * var.b_bits / 8;
  const int64_t row_bytes = var.b_bits == 4 ? (n + 1) / 2 : n * var.b_bits / 8;
  const int b_row = map::b_row_bytes(var.b_bits);
  const int b_stage = S * b_row;
  const int a_stage = SpmmTile::a_stage_bytes(var.a_bits, var.native);
  const int warp_cols = SpmmTile::warp_cols(var.b_bits), lane_cols = warp_cols / 8;
  const int slices = SpmmTile::a_slices(var.a_bits);
  const int64_t n_tiles = (n + warp_cols - 1) / warp_cols;
  out.got.assign(static_cast<size_t>(m * n), -1);

  for (int64_t vrow = 0; vrow < vector_rows; ++vrow)
    for (int64_t tile = 0; tile < n_tiles; ++tile) {
      const int64_t n0 = tile * warp_cols;
      const int32_t first = L.row_ptr[2 * vrow];
      const int strides = (L.row_ptr[2 * vrow + 2] - first) / S;
      const int a_stride_bytes = static_cast<int>(vec_len) * S * var.a_bits / 8;
      const int64_t b_byte0 = n0 * var.b_bits / 8;
      int32_t acc[2][SpmmTile::kMmaTiles][32][4] = {};
      for (int s = 0; s < strides; ++s) {
        // The stage copy (kernel: `issue`), poisoned first so a byte no copy writes shows up.
        std::vector<uint8_t> stage(static_cast<size_t>(b_stage + a_stage), 0xA7);
        for (int lane = 0; lane < 32; ++lane) {
          for (int i = 0; i < b_stage / 16 / 32; ++i) {
            const int chunk = lane + 32 * i;
            const int r = map::copy_row(chunk, var.b_bits);
            const int c = map::copy_chunk(chunk, var.b_bits);
            const int pos = map::position_of_smem_row(r);
            // The kernel takes the index from lane pos % 32's register `half`.
            const int half = i * 16 / b_row;
            REQUIRE(pos / 32 == half);
            const int32_t src_row = std::max(L.col[first + s * S + 32 * half + pos % 32], 0);
            const int64_t byte = b_byte0 + 16 * c;
            const int64_t left = row_bytes - byte;
            const int bytes = left >= 16 ? 16 : (left > 0 ? static_cast<int>(left) : 0);
            uint8_t* dst = stage.data() + r * b_row + map::stored_chunk(r, c, var.b_bits) * 16;
            for (int q = 0; q < 16; ++q)
              dst[q] = q < bytes ? B.data[static_cast<size_t>(src_row * pitch + byte + q)] : 0;
          }
          if (lane * 16 < a_stride_bytes)
            std::memcpy(stage.data() + b_stage + lane * 16,
                        a_bytes.data() + static_cast<int64_t>(first) * vec_len * var.a_bits / 8 +
                            int64_t{s} * a_stride_bytes + lane * 16,
                        16);
        }
        // The lanes' registers (kernel: the compute part of the loop).
        uint32_t frag[SpmmTile::kMmaTiles][32][4], sa[2][32][2] = {};
        for (int lane = 0; lane < 32; ++lane) {
          const int g = lane / 4, t = lane % 4;
          if (g < vec_len) {
            if (var.native) {
              const int a_off = b_stage + map::lane_a_offset_k64(g, t);
              sa[0][lane][0] = word_at(stage, a_off);
              sa[0][lane][1] = word_at(stage, a_off + 16);
            } else if (var.a_bits == 16) {
              for (int sl = 0; sl < 2; ++sl) {
                const int a_off =
                    b_stage + map::lane_a_slice_offset(g, t, static_cast<int>(vec_len), sl);
                sa[sl][lane][0] = word_at(stage, a_off);
                sa[sl][lane][1] = word_at(stage, a_off + 4);
              }
            } else if (var.a_bits == 8) {
              const int a_off = b_stage + map::lane_a_offset(g, t, 8);
              sa[0][lane][0] = word_at(stage, a_off);
              sa[0][lane][1] = word_at(stage, a_off + 4);
            } else {
              const int a_off = b_stage + map::lane_a_offset(g, t, 4);
              sa[0][lane][0] = map::nibbles_lo(word_at(stage, a_off), var.a_signed);
              sa[0][lane][1] = map::nibbles_hi(word_at(stage, a_off), var.a_signed);
            }
          }
          const int b_off = map::lane_b_offset(g, t, var.b_bits);
          if (var.native) {
            for (int kq = 0; kq < 2; ++kq) {
              uint32_t rows[8], t0[4], t1[4];
              for (int j = 0; j < 8; ++j)
                rows[j] = word_at(stage, b_off + kq * 32 * b_row + j * 4 * b_row);
              map::transpose4x4(rows[0], rows[1], rows[2], rows[3], t0);
              map::transpose4x4(rows[4], rows[5], rows[6], rows[7], t1);
              for (int i = 0; i < SpmmTile::kMmaTiles; ++i) {
                frag[i][lane][2 * kq] = map::merge_nibbles_even(t0[i], t1[i]);
                frag[i][lane][2 * kq + 1] = map::merge_nibbles_odd(t0[i], t1[i]);
              }
            }
            continue;
          }
          for (int kq = 0; kq < 2; ++kq) {
            uint32_t rows[4][2];
            for (int j = 0; j < 4; ++j)
              for (int w = 0; w < (var.b_bits != 4 ? 2 : 1); ++w)
                rows[j][w] = word_at(stage, b_off + (4 * kq + j) * 4 * b_row + 4 * w);
            if (var.b_bits != 4) {
              uint32_t lo[4], hi[4];
              map::transpose4x4(rows[0][0], rows[1][0], rows[2][0], rows[3][0], lo);
              map::transpose4x4(rows[0][1], rows[1][1], rows[2][1], rows[3][1], hi);
              for (int i = 0; i < SpmmTile::kMmaTiles; ++i) {
                frag[i][lane][2 * kq] = lo[i];
                frag[i][lane][2 * kq + 1] = hi[i];
              }
            } else {
              uint32_t tr[4];
              map::transpose4x4(rows[0][0], rows[1][0], rows[2][0], rows[3][0], tr);
              for (int i = 0; i < SpmmTile::kMmaTiles; ++i) {
                frag[i][lane][2 * kq] = map::nibbles_lo(tr[i], var.b_signed);
                frag[i][lane][2 * kq + 1] = map::nibbles_hi(tr[i], var.b_signed);
              }
            }
          }
        }
        for (int i = 0; i < SpmmTile::kMmaTiles; ++i) {
          if (var.native) {
            mma_reference_k64(frag[i], sa[0], var.b_signed, var.a_signed, acc[0][i]);
            continue;
          }
          for (int sl = 0; sl < slices; ++sl) {
            const bool dense_signed = var.b_bits == 16
                                          ? map::slice_signed(map::b_slice_of_tile(i, 16), 2)
                                          : var.b_signed;
            const bool sparse_signed =
                var.a_bits == 16 ? map::slice_signed(sl, slices) : var.a_signed;
            mma_reference(frag[i], sa[sl], dense_signed, sparse_signed, acc[sl][i]);
          }
        }
      }
      // The epilogue: slices shifted into place, the column mapping.
      for (int lane = 0; lane < 32; ++lane) {
        const int g = lane / 4, t = lane % 4;
        uint32_t sum[2][8] = {};
        for (int sl = 0; sl < slices; ++sl)
          for (int i = 0; i < SpmmTile::kMmaTiles; ++i)
            for (int h = 0; h < 2; ++h)
              for (int vv = 0; vv < 2; ++vv)
                sum[vv][map::column_of(i, h, var.b_bits)] +=
                    static_cast<uint32_t>(acc[sl][i][lane][2 * h + vv])
                    << (8 * sl + 8 * map::b_slice_of_tile(i, var.b_bits));
        for (int vv = 0; vv < 2; ++vv)
          for (int c = 0; c < lane_cols; ++c) {
            const int v = 2 * t + vv;
            const int64_t col = n0 + lane_cols * g + c;
            if (v < vec_len && col < n)
              out.got[(vrow * vec_len + v) * n + col] = static_cast<int32_t>(sum[vv][c]);
          }
      }
    }
  return out;
}

/// Largest number of distinct 4-byte words any bank serves for one request (1 = conflict-free).
int bank_ways(const std::vector<int>& addresses, int bytes) {
  std::map<int, std::set<int>> banks;
  for (int a : addresses)
    for (int w = 0; w < bytes / 4; ++w) banks[(a / 4 + w) % 32].insert(a / 4 + w);
  size_t most = 0;
  for (const auto& b : banks) most = std::max(most, b.second.size());
  return static_cast<int>(most);
}

}  // namespace

TEST_CASE("SR-BCRS kernel map: emulated warps equal the reference, every variant and V",
          "[srbcrs][kernel_map]") {
  std::vector<Variant> variants;
  for (int a_bits : {8, 4})
    for (int b_bits : {8, 4})
      for (bool a_signed : {true, false})
        for (bool b_signed : {true, false}) variants.push_back({a_bits, b_bits, a_signed, b_signed});
  // Emulated 16-bit A (16I: signed) with every B; 16-bit B (signed) with 16-bit A.
  for (int b_bits : {16, 8, 4})
    for (bool b_signed : {true, false})
      if (b_bits != 16 || b_signed) variants.push_back({16, b_bits, true, b_signed});
  // The native int4 path.
  for (bool a_signed : {true, false})
    for (bool b_signed : {true, false}) variants.push_back({4, 4, a_signed, b_signed, true});
  uint64_t seed = 900;
  for (const Variant& var : variants)
          for (int64_t v : {1, 2, 4, 8}) {
            // n: a full tile plus a tail, then a short tail alone; k: several strides, then odd.
            for (const auto& kn : {std::pair<int64_t, int64_t>{150, 130}, {37, 7}}) {
              INFO("A " << var.a_bits << (var.a_signed ? "s" : "u") << " B " << var.b_bits
                        << (var.b_signed ? "s" : "u") << (var.native ? " native" : "") << " V "
                        << v << " k " << kn.first << " n " << kn.second);
              const Emulation e = emulate(var, v, 6, kn.first, kn.second, seed++);
              REQUIRE(e.got.size() == e.want.size());
              int64_t bad = 0, nonzero = 0;
              for (size_t i = 0; i < e.got.size(); ++i) {
                bad += e.got[i] != e.want[i];
                nonzero += e.want[i] != 0;
              }
              CHECK(bad == 0);
              CHECK(nonzero > 0);
            }
          }
}

TEST_CASE("SR-BCRS kernel map: stage rows and positions are inverse, chunks a permutation",
          "[srbcrs][kernel_map]") {
  for (int p = 0; p < 64; ++p) CHECK(map::position_of_smem_row(map::smem_row_of_position(p)) == p);
  for (int p = 0; p < 32; ++p) CHECK(map::smem_row_of_position(p) < 32);
  for (const auto& bits_stride : {std::pair<int, int>{8, 32}, {4, 32}, {16, 32}, {4, 64}}) {
    const int bits = bits_stride.first;
    std::set<int> written;
    const int copies = bits_stride.second * map::b_row_bytes(bits) / 16;
    for (int chunk = 0; chunk < copies; ++chunk) {
      const int r = map::copy_row(chunk, bits), c = map::copy_chunk(chunk, bits);
      written.insert(r * map::b_row_bytes(bits) + map::stored_chunk(r, c, bits) * 16);
    }
    CHECK(static_cast<int>(written.size()) == copies);  // every 16-byte slot written once
  }
}

TEST_CASE("SR-BCRS kernel map: shared-memory accesses are bank-conflict-free",
          "[srbcrs][kernel_map]") {
  // B reads: int8 lanes read 8 bytes (two wavefronts: each half-warp must be conflict-free),
  // int4 lanes 4 bytes (one wavefront).
  for (int j = 0; j < 8; ++j) {
    for (int half = 0; half < 2; ++half) {
      std::vector<int> a;
      for (int lane = 16 * half; lane < 16 * half + 16; ++lane)
        a.push_back(map::lane_b_offset(lane / 4, lane % 4, 8) + j * 4 * map::b_row_bytes(8));
      CHECK(bank_ways(a, 8) == 1);
    }
    std::vector<int> a4;
    for (int lane = 0; lane < 32; ++lane)
      a4.push_back(map::lane_b_offset(lane / 4, lane % 4, 4) + j * 4 * map::b_row_bytes(4));
    CHECK(bank_ways(a4, 4) == 1);
  }
  // A reads.
  for (int half = 0; half < 2; ++half) {
    std::vector<int> a;
    for (int lane = 16 * half; lane < 16 * half + 16; ++lane)
      a.push_back(map::lane_a_offset(lane / 4, lane % 4, 8));
    CHECK(bank_ways(a, 8) == 1);
  }
  std::vector<int> a4;
  for (int lane = 0; lane < 32; ++lane) a4.push_back(map::lane_a_offset(lane / 4, lane % 4, 4));
  CHECK(bank_ways(a4, 4) == 1);
  // cp.async writes: 16-byte stores are served a quarter-warp (128 B) at a time.
  for (int bits : {8, 4})
    for (int chunk0 = 0; chunk0 < SpmmTile::kStride * map::b_row_bytes(bits) / 16; chunk0 += 8) {
      std::vector<int> a;
      for (int chunk = chunk0; chunk < chunk0 + 8; ++chunk) {
        const int r = map::copy_row(chunk, bits);
        a.push_back(r * map::b_row_bytes(bits) +
                    map::stored_chunk(r, map::copy_chunk(chunk, bits), bits) * 16);
      }
      CHECK(bank_ways(a, 16) == 1);
    }
}

TEST_CASE("SR-BCRS kernel map: transpose and unpacking, hand-checked", "[srbcrs][kernel_map]") {
  uint32_t out[4];
  map::transpose4x4(0x03020100u, 0x13121110u, 0x23222120u, 0x33323130u, out);
  CHECK(out[0] == 0x30201000u);
  CHECK(out[1] == 0x31211101u);
  CHECK(out[2] == 0x32221202u);
  CHECK(out[3] == 0x33231303u);
  // Nibbles 0..7 of 0xF8E17A30 (low first): 0 3 A 7 1 E 8 F.
  CHECK(map::nibbles_lo(0xF8E17A30u, false) == 0x08010A00u);  // elements 0 2 4 6: 0 A 1 8
  CHECK(map::nibbles_hi(0xF8E17A30u, false) == 0x0F0E0703u);  // elements 1 3 5 7: 3 7 E F
  CHECK(map::nibbles_lo(0xF8E17A30u, true) == 0xF801FA00u);   // -8 1 -6 0
  CHECK(map::nibbles_hi(0xF8E17A30u, true) == 0xFFFE0703u);   // -1 -2 7 3
}

TEST_CASE("SR-BCRS slices: every int16 value is 256 * signed high byte + unsigned low byte",
          "[srbcrs][slices]") {
  // The identity the emulation rests on, for all 65,536 values (the most negative included),
  // and the products' combination in wrapping int32 against exact int64 products.
  int64_t bad = 0;
  for (int32_t a = -32768; a <= 32767; ++a) {
    const uint32_t raw = static_cast<uint16_t>(a);
    const int32_t lo = map::slice_byte(raw, 0);                      // unsigned
    const int32_t hi = static_cast<int8_t>(map::slice_byte(raw, 1));  // signed
    bad += 256 * hi + lo != a;
  }
  CHECK(bad == 0);
  CHECK_FALSE(map::slice_signed(0, 2));
  CHECK(map::slice_signed(1, 2));
  CHECK(map::slice_signed(0, 1));
  // L16-R16: four partial products, shifted by 0, 8, 8 and 16 bits, added modulo 2^32.
  const int32_t extremes[] = {-32768, -32767, -257, -256, -255, -129, -128, -1, 0,
                              1,      127,    128,  255,  256,  257,  32766, 32767};
  for (int32_t a : extremes)
    for (int32_t b : extremes) {
      const uint32_t ra = static_cast<uint16_t>(a), rb = static_cast<uint16_t>(b);
      const int64_t alo = map::slice_byte(ra, 0), ahi = static_cast<int8_t>(map::slice_byte(ra, 1));
      const int64_t blo = map::slice_byte(rb, 0), bhi = static_cast<int8_t>(map::slice_byte(rb, 1));
      const uint32_t combined = static_cast<uint32_t>(alo * blo) +
                                (static_cast<uint32_t>(ahi * blo) << 8) +
                                (static_cast<uint32_t>(alo * bhi) << 8) +
                                (static_cast<uint32_t>(ahi * bhi) << 16);
      CHECK(combined == static_cast<uint32_t>(int64_t{a} * b));
    }
}

TEST_CASE("SR-BCRS sliced values: the bytes the kernel reads for a 16-bit layout",
          "[srbcrs][slices]") {
  // 2 vector-rows of V = 2, stride 8: row 0 has 3 vectors (columns 1, 4, 6), row 1 none.
  const int32_t ptr[] = {0, 3, 3};
  const int32_t cols[] = {1, 4, 6};
  const int16_t values[] = {-32768, 32767, 258, -2, 1, -256};  // vector j: rows 0, 1
  plan::BcrsView view;
  view.rows = 4;
  view.cols = 8;
  view.vec_len = 2;
  view.block_row_ptr = ptr;
  view.block_col = cols;
  view.num_vectors = 3;
  plan::SrbcrsConfig cfg;
  cfg.stride = 8;
  cfg.type = SPX_R_16I;
  const plan::SrbcrsLayout l = plan::srbcrs_build(view, cfg, values);
  REQUIRE(l.slots == 8);
  CHECK_FALSE(l.shuffled);
  const std::vector<uint8_t> sliced = plan::srbcrs_sliced_values(l);
  REQUIRE(sliced.size() == 32);  // one stride: 2 slices x 2 rows x 8 slots
  // Slice 0 (low bytes): row 0 = slots 0..2 of vector row 0, then padding; row 1 likewise.
  const uint8_t lo_row0[8] = {0x00, 0x02, 0x01, 0, 0, 0, 0, 0};
  const uint8_t lo_row1[8] = {0xFF, 0xFE, 0x00, 0, 0, 0, 0, 0};
  const uint8_t hi_row0[8] = {0x80, 0x01, 0x00, 0, 0, 0, 0, 0};
  const uint8_t hi_row1[8] = {0x7F, 0xFF, 0xFF, 0, 0, 0, 0, 0};
  for (int s = 0; s < 8; ++s) {
    INFO("slot " << s);
    CHECK(sliced[s] == lo_row0[s]);
    CHECK(sliced[8 + s] == lo_row1[s]);
    CHECK(sliced[16 + s] == hi_row0[s]);
    CHECK(sliced[24 + s] == hi_row1[s]);
  }
  plan::SrbcrsConfig cfg8 = cfg;
  cfg8.type = SPX_R_8I;
  const int8_t v8[6] = {1, 2, 3, 4, 5, 6};
  const plan::SrbcrsLayout l8 = plan::srbcrs_build(view, cfg8, v8);
  CHECK_THROWS(plan::srbcrs_sliced_values(l8));
}
