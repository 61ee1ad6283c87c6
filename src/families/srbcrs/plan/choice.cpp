#include "families/srbcrs/plan/choice.hpp"

#include <cstring>

#include "runtime/dtype.hpp"
#include "runtime/error.hpp"
#include "runtime/log.hpp"
#include "families/srbcrs/kernels/config.hpp"

namespace spx::plan {
namespace {

using ll = long long;

bool is_kernel_int(spxDataType_t t) {
  return t == SPX_R_8I || t == SPX_R_8U || t == SPX_R_4I || t == SPX_R_4U || t == SPX_R_16I;
}

using kernels::srbcrs::SpmmTile;

/// Dense columns one warp computes (4 mma tiles of 16; 16-bit B: 32): the unit of the grid.
int64_t warp_cols_for(spxDataType_t b_type) {
  return SpmmTile::warp_cols(dtype::bits(b_type));
}
/// Warps per block: the grid's x dimension counts blocks of this many warps.
constexpr int64_t kBlockWarps = SpmmTile::kWarps;

const char* order_name(spxOrder_t o) { return o == SPX_ORDER_ROW ? "row" : "col"; }

}  // namespace

std::string SrbcrsChoice::precision() const {
  return strf("l%dr%d", a_bits, b_bits);
}

std::string SrbcrsChoice::kernel_name() const {
  return "srbcrs_spmm_" + precision();
}

std::string SrbcrsChoice::path() const {
  if (native_int4) return "native int4 m16n8k64 transposed";
  std::string s = "m16n8k32 transposed";
  if (a_bits == 16) s += ", A in 2 int8 slices";
  if (b_bits == 16) s += ", B in 2 int8 slices";
  if (a_bits == 4 || b_bits == 4) s += ", int4 unpacked to int8";
  return s;
}

bool srbcrs_native_int4_pays(int cc_major) {
  return cc_major == 8;
}

std::string SrbcrsSchedule::describe() const {
  return strf("split %d, %s order", split, tile_major ? "tile" : "row");
}

SrbcrsSchedule srbcrs_schedule(int64_t vector_rows, int64_t n, int64_t slots, int sm_count,
                               int64_t warp_cols, int64_t stride) {
  SrbcrsSchedule s;
  if (vector_rows <= 0 || n <= 0 || warp_cols <= 0 || stride <= 0) return s;
  const int64_t tiles = vector_rows * ((n + warp_cols - 1) / warp_cols);
  const int64_t target = int64_t{16} * (sm_count > 0 ? sm_count : 132);
  const double strides_per_row =
      static_cast<double>(slots) / static_cast<double>(stride) / static_cast<double>(vector_rows);
  while (s.split < 4 && tiles * s.split < target && strides_per_row >= 2.0 * s.split) s.split *= 2;
  return s;
}

std::vector<SrbcrsSchedule> srbcrs_schedules(const SrbcrsSchedule& chosen) {
  std::vector<SrbcrsSchedule> out{chosen};
  for (bool tile_major : {false, true})
    for (int split : {1, 2, 4}) {
      SrbcrsSchedule s;
      s.split = split;
      s.tile_major = tile_major;
      if (!(s == chosen)) out.push_back(s);
    }
  return out;
}

int64_t srbcrs_b_pitch(int64_t n, int b_bits) {
  const int64_t bytes = b_bits == 4 ? (n + 1) / 2 : n * (b_bits / 8);
  return (bytes + 15) / 16 * 16;
}

int64_t srbcrs_workspace_bytes(int64_t k, int64_t n, int b_bits) {
  if (k <= 0 || n <= 0) return 0;
  return k * srbcrs_b_pitch(n, b_bits);
}

bool srbcrs_b_direct(bool b_row_major, uintptr_t b_address, int64_t ld, int b_bits) {
  if (!b_row_major) return false;
  const int64_t pitch_bytes = b_bits == 4 ? ld / 2 : ld * (b_bits / 8);  // 4-bit: ld is even
  return b_address % 16 == 0 && pitch_bytes % 16 == 0;
}

namespace srbcrs {

Overrides read_overrides(const dispatch::Switches& switches) {
  Overrides o;
  if (const int64_t split = switches.integer("SPX_SRBCRS_FORCE_SPLIT", 0); split != 0) {
    if (split == 1 || split == 2 || split == 4)
      o.split = static_cast<int>(split);
    else
      log::info("SPX_SRBCRS_FORCE_SPLIT=%lld ignored: not 1, 2 or 4", ll(split));
  }
  if (const char* v = switches.text("SPX_SRBCRS_FORCE_ORDER")) {
    if (std::strcmp(v, "row") == 0 || std::strcmp(v, "tile") == 0)
      o.tile_major = std::strcmp(v, "tile") == 0 ? 1 : 0;
    else
      log::info("SPX_SRBCRS_FORCE_ORDER=%s ignored: not row or tile", v);
  }
  if (const char* v = switches.text("SPX_SRBCRS_FORCE_INT4")) {
    if (std::strcmp(v, "native") == 0)
      o.int4 = SrbcrsInt4Path::Native;
    else if (std::strcmp(v, "unpacked") == 0)
      o.int4 = SrbcrsInt4Path::Unpacked;
    else
      log::info("SPX_SRBCRS_FORCE_INT4=%s ignored: not native or unpacked", v);
  }
  return o;
}

std::string refusal(const Inputs& p) {
  if (p.format != SPX_FORMAT_BCRS && p.format != SPX_FORMAT_CSR)
    return "the SR-BCRS family takes BCRS(V) or CSR input only";
  if (p.vec_len != 1 && p.vec_len != 2 && p.vec_len != 4 && p.vec_len != 8)
    return strf(
        "vector length V = %lld is not 1, 2, 4 or 8 (a vector must fit the n = 8 side of "
        "the mma)",
        ll(p.vec_len));
  if (!is_kernel_int(p.a_type) || !is_kernel_int(p.b_type))
    return strf("the SR-BCRS kernels take 16I, 8I, 8U, 4I or 4U operands (A %s, B %s)",
                dtype::name(p.a_type), dtype::name(p.b_type));
  if (p.b_type == SPX_R_16I && p.a_type != SPX_R_16I)
    return strf("the SR-BCRS kernels take a 16I B only with a 16I A (A %s): L%d-R16 is not built",
                dtype::name(p.a_type), dtype::bits(p.a_type));
  if (p.compute_type != SPX_R_32I)
    return strf("the SR-BCRS kernels accumulate in 32I (compute type %s)",
                dtype::name(p.compute_type));
  if (p.c_type != SPX_R_32I && p.c_type != SPX_R_32F && p.c_type != SPX_R_16F)
    return strf("the SR-BCRS kernels write 32I, 32F or 16F (C %s)", dtype::name(p.c_type));
  if (p.cc_major < 8) return "the SR-BCRS kernels need sm_80 or newer (int8 mma.sync, cp.async)";
  const int64_t vector_rows = p.vec_len > 0 ? p.rows / p.vec_len : 0;
  const int64_t warp_cols = warp_cols_for(p.b_type);
  const int64_t warps = vector_rows * ((p.n + warp_cols - 1) / warp_cols);
  if (p.cols > INT32_MAX || (warps + kBlockWarps - 1) / kBlockWarps > INT32_MAX)
    return strf("the shape %lld x %lld x %lld exceeds the SR-BCRS kernels' grid", ll(p.rows),
                ll(p.cols), ll(p.n));
  return {};
}

Decision choose(const Inputs& in, const Overrides& o) {
  const std::string why = refusal(in);
  SPX_EXPECTS(why.empty(), SPX_STATUS_INTERNAL_ERROR, "srbcrs choose on a refused problem: %s",
              why.c_str());
  Decision d;
  SrbcrsChoice& c = d.variant;
  c.a_bits = dtype::bits(in.a_type);
  c.b_bits = dtype::bits(in.b_type);
  c.a_signed = !dtype::is_unsigned(in.a_type);
  c.b_signed = !dtype::is_unsigned(in.b_type);
  if (c.a_bits == 4 && c.b_bits == 4) {
    c.native_int4 = o.int4 == SrbcrsInt4Path::Native ||
                    (o.int4 == SrbcrsInt4Path::Rule && srbcrs_native_int4_pays(in.cc_major));
  }
  c.stride =
      c.native_int4 ? kSrbcrsNativeInt4Stride : srbcrs_stride_for(in.a_type, in.cc_major * 10);
  c.warp_cols = warp_cols_for(in.b_type);
  // A's values in the public SR-BCRS layout (spxValuesLayout_t: stride 32, plain elements) are
  // this plan's slots at stride 32; the native int4 path's stride 64 numbers slots otherwise.
  SPX_EXPECTS(!in.a_values_srbcrs || c.stride == 32, SPX_STATUS_NOT_SUPPORTED,
              "A's values in the SR-BCRS layout (stride 32) cannot fill this plan's stride-%lld "
              "layout (the native int4 path); use the native values layout",
              ll(c.stride));
  d.slots = in.structure.slots(c.stride);
  const SrbcrsSchedule rule =
      srbcrs_schedule(in.structure.vector_rows, in.n, d.slots, in.sm_count, c.warp_cols, c.stride);
  for (const SrbcrsSchedule& s : srbcrs_schedules(rule)) d.schedules.add(s);
  SrbcrsSchedule run = rule;
  if (o.split != 0) run.split = o.split;
  if (o.tile_major >= 0) run.tile_major = o.tile_major == 1;
  const auto& all = d.schedules.items();
  for (size_t i = 0; i < all.size(); ++i)
    if (all[i] == run) d.schedules.select(static_cast<int>(i));
  d.workspace_bytes = srbcrs_workspace_bytes(in.cols, in.n, c.b_bits);
  d.vec_len = in.vec_len;
  d.b_order = in.b_order;
  d.c_order = in.c_order;
  d.c_type = in.c_type;
  d.a_values_srbcrs = in.a_values_srbcrs;
  return d;
}

std::string Decision::kernel() const { return variant.kernel_name(); }

std::string Decision::describe(int candidate) const {
  // At most ~150 characters before the schedule, so the whole fits spxPlanInfo_t::config.
  std::string s =
      strf("%s %s (V=%lld on n8); stride %lld, warp %lld cols, %d stages; B %s%s; C %s %s",
           variant.precision().c_str(), variant.path().c_str(), ll(vec_len), ll(variant.stride),
           ll(variant.warp_cols), SpmmTile::kStages, order_name(b_order),
           b_order == SPX_ORDER_ROW ? " (in place if 16 B aligned)" : " (copied)",
           dtype::name(c_type), order_name(c_order));
  if (a_values_srbcrs) s += "; A's values in SR-BCRS order";
  return s + "; " + schedules.at(candidate).describe();
}

BSource b_source(const Decision& d, spxOrder_t b_order, uintptr_t address, int64_t ld, int64_t n) {
  const int bits = d.variant.b_bits;
  BSource s;
  s.in_place = srbcrs_b_direct(b_order == SPX_ORDER_ROW, address, ld, bits);
  s.pitch = s.in_place ? (bits == 4 ? ld / 2 : ld * (bits / 8)) : srbcrs_b_pitch(n, bits);
  return s;
}

}  // namespace srbcrs
}  // namespace spx::plan
