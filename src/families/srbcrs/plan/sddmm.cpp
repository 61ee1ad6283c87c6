#include "families/srbcrs/plan/sddmm.hpp"

#include "runtime/dtype.hpp"
#include "runtime/error.hpp"
#include "formats/structure_checks.hpp"
#include "families/srbcrs/kernels/sddmm_config.hpp"

namespace spx::plan {
namespace {

using ll = long long;

bool is_8_or_4_bit_int(spxDataType_t t) {
  return t == SPX_R_8I || t == SPX_R_8U || t == SPX_R_4I || t == SPX_R_4U;
}

/// Warps per block of the kernel (the grid counts blocks of this many tasks).
constexpr int64_t kBlockWarps = 4;

int64_t round_up(int64_t x, int64_t unit) { return (x + unit - 1) / unit * unit; }

const char* order_name(spxOrder_t o) { return o == SPX_ORDER_ROW ? "row" : "col"; }

}  // namespace

std::string SrbcrsSddmmChoice::precision() const { return strf("l%dr%d", a_bits, b_bits); }

std::string SrbcrsSddmmChoice::kernel_name() const { return "srbcrs_sddmm_" + precision(); }

std::vector<int32_t> srbcrs_slot_ptr(int64_t vector_rows, const int32_t* block_row_ptr,
                                     int64_t vec_len) {
  SPX_CHECK_ARG(vector_rows >= 0, "the number of vector-rows (%lld) is negative", ll(vector_rows));
  SPX_CHECK_ARG(vec_len >= 1, "vector length V = %lld is not positive", ll(vec_len));
  SPX_CHECK_ARG(block_row_ptr != nullptr, "block_row_ptr is null");
  check_row_ptr("block_row_ptr", vector_rows, block_row_ptr, -1);
  std::vector<int32_t> out(static_cast<size_t>(vector_rows) + 1);
  int64_t slot = 0;
  for (int64_t i = 0; i < vector_rows; ++i) {
    out[i] = static_cast<int32_t>(slot);
    slot += round_up(int64_t{block_row_ptr[i + 1]} - block_row_ptr[i], kSddmmStride);
    check_fits_int32("SR-BCRS slot count", slot);
    check_fits_int32("SR-BCRS element count", slot * vec_len);
  }
  out[vector_rows] = static_cast<int32_t>(slot);
  return out;
}

SrbcrsSddmmPlan srbcrs_sddmm_plan(const BcrsView& c) {
  SrbcrsConfig cfg;
  cfg.stride = kSddmmStride;
  cfg.type = SPX_R_8I;  // 8-bit: columns in natural slot order (no int4 shuffle)
  SrbcrsLayout l = srbcrs_build_structure(c, cfg);
  SrbcrsSddmmPlan p;
  p.m = c.rows;
  p.n = c.cols;
  p.vec_len = c.vec_len;
  p.vector_rows = l.vector_rows;
  p.num_vectors = l.num_vectors;
  p.slots = l.slots;
  p.col = std::move(l.col);
  p.vec_map = std::move(l.vec_map);
  p.task_row.reserve(static_cast<size_t>(l.slots / kSddmmStride));
  for (int64_t i = 0; i < l.vector_rows; ++i)
    for (int64_t s = l.row_ptr[2 * i]; s < l.row_ptr[2 * i + 2]; s += kSddmmStride)
      p.task_row.push_back(static_cast<int32_t>(i));
  return p;
}

int64_t srbcrs_sddmm_output_element(const SrbcrsSddmmPlan& p, ValuesLayout layout, int64_t slot,
                                    int64_t v) {
  if (layout == ValuesLayout::Srbcrs)
    return (slot / kSddmmStride) * kSddmmStride * p.vec_len + v * kSddmmStride +
           slot % kSddmmStride;
  const int32_t vec = p.vec_map[static_cast<size_t>(slot)];
  return vec < 0 ? -1 : int64_t{vec} * p.vec_len + v;
}

int64_t srbcrs_sddmm_pitch(int64_t k, int bits) {
  return round_up((k * bits + 7) / 8, 16);
}

bool srbcrs_sddmm_direct(bool k_contiguous, uintptr_t address, int64_t ld, int bits) {
  if (!k_contiguous) return false;
  const int64_t ld_bits = ld * bits;
  return address % 16 == 0 && ld_bits % (16 * 8) == 0;
}

SrbcrsSddmmWorkspace srbcrs_sddmm_workspace(int64_t m, int64_t k, int64_t n, int a_bits,
                                            int b_bits) {
  SrbcrsSddmmWorkspace w;
  if (m <= 0 || n <= 0 || k <= 0) return w;
  w.a_offset = 0;
  w.b_offset = round_up(m * srbcrs_sddmm_pitch(k, a_bits), 256);
  w.bytes = w.b_offset + n * srbcrs_sddmm_pitch(k, b_bits);
  return w;
}

namespace srbcrs {

std::string refusal(const SddmmInputs& p) {
  if (p.format != SPX_FORMAT_BCRS && p.format != SPX_FORMAT_CSR)
    return "the SR-BCRS SDDMM takes a BCRS(V) or CSR output pattern only";
  if (p.vec_len != 1 && p.vec_len != 2 && p.vec_len != 4 && p.vec_len != 8)
    return strf(
        "vector length V = %lld is not 1, 2, 4 or 8 (a vector's rows must fit the n = 8 side "
        "of the mma)",
        ll(p.vec_len));
  const bool narrow = is_8_or_4_bit_int(p.a_type) && is_8_or_4_bit_int(p.b_type);
  const bool wide = p.a_type == SPX_R_16I && p.b_type == SPX_R_16I;
  if (!narrow && !wide)
    return strf(
        "the SR-BCRS SDDMM takes A and B of 8I, 8U, 4I or 4U in any mix, or both 16I "
        "(A %s, B %s)",
        dtype::name(p.a_type), dtype::name(p.b_type));
  if (p.compute_type != SPX_R_32I)
    return strf("the SR-BCRS SDDMM accumulates in 32I (compute type %s)",
                dtype::name(p.compute_type));
  if (p.c_type != SPX_R_32I && p.c_type != SPX_R_32F && p.c_type != SPX_R_16F)
    return strf("the SR-BCRS SDDMM writes 32I, 32F or 16F (C %s)", dtype::name(p.c_type));
  if (p.cc_major < 8) return "the SR-BCRS SDDMM needs sm_80 or newer (int8 mma.sync)";
  // Every vector-row pads to whole strides: at most num_vectors + 31 * vector_rows slots.
  const int64_t vector_rows = p.vec_len > 0 ? p.m / p.vec_len : 0;
  const int64_t max_tasks = (p.num_vectors + 31 * vector_rows) / kSddmmStride + vector_rows;
  if (p.k > INT32_MAX || p.n > INT32_MAX || max_tasks / kBlockWarps + 1 > INT32_MAX)
    return strf("the shape %lld x %lld x %lld exceeds the SR-BCRS SDDMM kernel's grid", ll(p.m),
                ll(p.k), ll(p.n));
  return {};
}

SddmmDecision choose(const SddmmInputs& in, const Overrides& /*o: none steers the SDDMM*/) {
  const std::string why = refusal(in);
  SPX_EXPECTS(why.empty(), SPX_STATUS_INTERNAL_ERROR,
              "srbcrs SDDMM choose on a refused problem: %s", why.c_str());
  SddmmDecision d;
  SrbcrsSddmmChoice& c = d.variant;
  c.a_bits = dtype::bits(in.a_type);
  c.b_bits = dtype::bits(in.b_type);
  c.a_signed = !dtype::is_unsigned(in.a_type);
  c.b_signed = !dtype::is_unsigned(in.b_type);
  d.output = in.output;
  d.workspace = srbcrs_sddmm_workspace(in.m, in.k, in.n, c.a_bits, c.b_bits);
  d.vec_len = in.vec_len;
  d.a_order = in.a_order;
  d.b_order = in.b_order;
  d.c_type = in.c_type;
  return d;
}

std::string SddmmDecision::kernel() const { return variant.kernel_name(); }

std::string SddmmDecision::describe() const {
  using T = kernels::srbcrs::SddmmTile;
  return strf(
      "%s m16n8k32 transposed (B cols on m16, V=%lld rows of A on n8)%s; %d slots per warp, "
      "k step %d; A %s, B %s%s; C %s in %s order",
      variant.precision().c_str(), ll(vec_len),
      variant.emulated()                            ? ", 16-bit emulated by 8-bit slices"
      : variant.a_bits == 4 || variant.b_bits == 4 ? ", int4 unpacked to int8"
                                                    : "",
      T::kSlots, T::kStepK, order_name(a_order), order_name(b_order),
      a_order == SPX_ORDER_ROW && b_order == SPX_ORDER_COL ? "" : " (copied k-contiguous)",
      dtype::name(c_type), output == ValuesLayout::Srbcrs ? "SR-BCRS" : "its own");
}

OperandSource sddmm_operand(bool k_contiguous, uintptr_t address, int64_t ld, int64_t k, int bits) {
  OperandSource s;
  s.in_place = srbcrs_sddmm_direct(k_contiguous, address, ld, bits);
  s.pitch = s.in_place ? ld * bits / 8 : srbcrs_sddmm_pitch(k, bits);
  return s;
}

}  // namespace srbcrs
}  // namespace spx::plan
