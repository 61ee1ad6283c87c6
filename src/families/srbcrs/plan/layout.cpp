#include "families/srbcrs/plan/layout.hpp"

#include "runtime/dtype.hpp"
#include "runtime/error.hpp"
#include "formats/structure_checks.hpp"
#include "runtime/parallel.hpp"

namespace spx::plan {
namespace {

using ll = long long;

bool is_srbcrs_type(spxDataType_t t) {
  return t == SPX_R_8I || t == SPX_R_8U || t == SPX_R_4I || t == SPX_R_4U || t == SPX_R_16I;
}

/// Raw bits of element `e` of a `bits`-wide array (4-bit: low nibble = even element).
uint32_t load_bits(const uint8_t* data, int bits, int64_t e) {
  switch (bits) {
    case 4:
      return (data[e >> 1] >> ((e & 1) * 4)) & 0xFu;
    case 8:
      return data[e];
    default:  // 16, little endian
      return uint32_t{data[2 * e]} | (uint32_t{data[2 * e + 1]} << 8);
  }
}

/// Writes the raw bits of element `e` (the other nibble of a 4-bit byte is kept).
void store_bits(uint8_t* data, int bits, int64_t e, uint32_t v) {
  switch (bits) {
    case 4: {
      const int shift = static_cast<int>(e & 1) * 4;
      uint8_t& byte = data[e >> 1];
      byte = static_cast<uint8_t>((byte & ~(0xFu << shift)) | ((v & 0xFu) << shift));
      return;
    }
    case 8:
      data[e] = static_cast<uint8_t>(v);
      return;
    default:
      data[2 * e] = static_cast<uint8_t>(v & 0xFFu);
      data[2 * e + 1] = static_cast<uint8_t>((v >> 8) & 0xFFu);
      return;
  }
}

/// The shape and block_row_ptr checks of a user structure (INVALID_VALUE); returns R = rows / V.
int64_t validate_rows(const BcrsView& a) {
  SPX_CHECK_ARG(a.vec_len == 1 || a.vec_len == 2 || a.vec_len == 4 || a.vec_len == 8,
                "SR-BCRS vector length V = %lld is not 1, 2, 4 or 8", ll(a.vec_len));
  SPX_CHECK_ARG(a.rows >= 0 && a.cols >= 0, "matrix shape %lld x %lld is negative", ll(a.rows),
                ll(a.cols));
  SPX_CHECK_ARG(a.rows % a.vec_len == 0, "rows = %lld is not a multiple of V = %lld", ll(a.rows),
                ll(a.vec_len));
  SPX_CHECK_ARG(a.block_row_ptr != nullptr, "%s is null", a.ptr_name);
  const int64_t vrows = a.rows / a.vec_len;
  check_row_ptr(a.ptr_name, vrows, a.block_row_ptr, a.num_vectors);
  return vrows;
}

}  // namespace

int64_t srbcrs_stride_for(spxDataType_t /*type*/, int /*sm*/) {
  // int8 m16n8k32 everywhere: int4 is unpacked to int8 in registers (no native m16n8k64 path is
  // built, see the header), int16 would be two int8 halves.
  return 32;
}

void validate_srbcrs_config(const SrbcrsConfig& cfg) {
  SPX_CHECK_ARG(is_srbcrs_type(cfg.type), "SR-BCRS value type %s is not one of 8I, 8U, 4I, 4U, 16I",
                dtype::name(cfg.type));
  SPX_CHECK_ARG(cfg.stride >= 8 && cfg.stride <= 256 && cfg.stride % 8 == 0,
                "SR-BCRS stride %lld is not a multiple of 8 in [8, 256]", ll(cfg.stride));
}

int64_t SrbcrsLayout::value_bytes() const {
  return static_cast<int64_t>(dtype::storage_bytes(type, elements()));
}

int64_t SrbcrsLayout::metadata_bytes() const {
  return static_cast<int64_t>((row_ptr.size() + col.size()) * sizeof(int32_t));
}

SrbcrsStructureStats srbcrs_structure_stats(const BcrsView& a) {
  SrbcrsStructureStats st;
  st.vector_rows = validate_rows(a);
  st.num_vectors = a.block_row_ptr[st.vector_rows];
  for (int64_t i = 0; i < st.vector_rows; ++i) {
    const int64_t count = int64_t{a.block_row_ptr[i + 1]} - a.block_row_ptr[i];
    st.slots32 += (count + 31) / 32 * 32;
    st.slots64 += (count + 63) / 64 * 64;
  }
  return st;
}

SrbcrsLayout srbcrs_build_structure(const BcrsView& a, const SrbcrsConfig& cfg) {
  validate_srbcrs_config(cfg);
  const int64_t vrows = validate_rows(a);
  const int64_t nv = a.block_row_ptr[vrows];
  SPX_CHECK_ARG(nv == 0 || a.block_col != nullptr, "%s is null with %lld vectors", a.col_name,
                ll(nv));
  if (nv > 0) check_index_range(a.col_name, nv, a.block_col, 0, a.cols);

  SrbcrsLayout l;
  l.rows = a.rows;
  l.cols = a.cols;
  l.vec_len = a.vec_len;
  l.stride = cfg.stride;
  l.type = cfg.type;
  l.bits = dtype::bits(cfg.type);
  l.shuffled = l.bits == 4;
  l.vector_rows = vrows;
  l.num_vectors = nv;

  const int64_t s = cfg.stride;
  int64_t slots = 0;
  for (int64_t i = 0; i < vrows; ++i) {
    const int64_t count = int64_t{a.block_row_ptr[i + 1]} - a.block_row_ptr[i];
    slots += (count + s - 1) / s * s;
  }
  check_fits_int32("SR-BCRS slot count", slots);
  check_fits_int32("SR-BCRS element count", slots * a.vec_len);
  l.slots = slots;
  l.padding_slots = slots - nv;

  // Slot offsets per vector row (serial prefix), then the rows in parallel: each writes its own
  // slots only.
  l.row_ptr.resize(static_cast<size_t>(2 * vrows + 1));
  int64_t start = 0;
  for (int64_t i = 0; i < vrows; ++i) {
    const int64_t count = int64_t{a.block_row_ptr[i + 1]} - a.block_row_ptr[i];
    l.row_ptr[2 * i] = static_cast<int32_t>(start);
    l.row_ptr[2 * i + 1] = static_cast<int32_t>(start + count / s * s);
    start += (count + s - 1) / s * s;
  }
  l.row_ptr[2 * vrows] = static_cast<int32_t>(start);
  // Not pre-filled: every row writes all of its slots, padding included (a row's slots are whole
  // strides, multiples of 8, so the 4-bit shuffle stays inside them).
  l.col.resize(static_cast<size_t>(slots));
  l.vec_map.resize(static_cast<size_t>(slots));
  parallel::for_chunks(vrows, 64, [&](int64_t i0, int64_t i1) {
    for (int64_t i = i0; i < i1; ++i) {
      const int64_t first = a.block_row_ptr[i];
      const int64_t count = int64_t{a.block_row_ptr[i + 1]} - first;
      const int64_t row_start = l.row_ptr[2 * i], row_end = l.row_ptr[2 * i + 2];
      for (int64_t j = 0; j < row_end - row_start; ++j) {
        const int64_t slot = row_start + j;
        const bool real = j < count;
        l.vec_map[slot] = real ? static_cast<int32_t>(first + j) : -1;
        l.col[srbcrs_load_position(l, slot)] = real ? a.block_col[first + j] : kSrbcrsPadCol;
      }
    }
  });
  if (cfg.host_values) l.values.assign(dtype::storage_bytes(l.type, l.elements()), 0);
  return l;
}

void srbcrs_repack_values(SrbcrsLayout& l, const void* user_values, spxDataType_t user_type) {
  SPX_CHECK_ARG(is_srbcrs_type(user_type) && dtype::bits(user_type) == l.bits,
                "values of type %s cannot fill an SR-BCRS layout of %d-bit elements",
                dtype::name(user_type), l.bits);
  SPX_CHECK_ARG(l.num_vectors == 0 || user_values != nullptr, "values are null");
  l.values.assign(dtype::storage_bytes(l.type, l.elements()), 0);
  const auto* src = static_cast<const uint8_t*>(user_values);
  uint8_t* dst = l.values.data();
  const int64_t v_len = l.vec_len;
  for (int64_t slot = 0; slot < l.slots; ++slot) {
    const int64_t user = l.vec_map[slot];
    if (user < 0) continue;  // padding stays zero
    for (int64_t v = 0; v < v_len; ++v)
      store_bits(dst, l.bits, srbcrs_element(l, slot, v), load_bits(src, l.bits, user * v_len + v));
  }
}

SrbcrsLayout srbcrs_build(const BcrsView& a, const SrbcrsConfig& cfg, const void* user_values) {
  SrbcrsLayout l = srbcrs_build_structure(a, cfg);
  srbcrs_repack_values(l, user_values, cfg.type);
  return l;
}

int64_t srbcrs_value(const SrbcrsLayout& l, int64_t e) {
  return dtype::load_int(l.values.data(), l.type, e);
}

std::vector<uint8_t> srbcrs_sliced_values(const SrbcrsLayout& l) {
  SPX_CHECK_ARG(l.bits == 16, "only 16-bit SR-BCRS layouts are sliced (this one is %d-bit)", l.bits);
  const int64_t per_slice = l.stride * l.vec_len;  // elements (= bytes) of one slice of a stride
  std::vector<uint8_t> out(static_cast<size_t>(2 * l.elements()), 0);
  for (int64_t e = 0; e < l.elements(); ++e) {
    const int64_t stride = e / per_slice, within = e - stride * per_slice;
    const uint32_t raw = load_bits(l.values.data(), 16, e);
    for (int slice = 0; slice < 2; ++slice)
      out[static_cast<size_t>(stride * 2 * per_slice + slice * per_slice + within)] =
          static_cast<uint8_t>((raw >> (8 * slice)) & 0xFFu);
  }
  return out;
}

}  // namespace spx::plan
