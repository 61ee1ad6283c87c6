#include "engine/plan_record.hpp"

#include <cstring>

#include "runtime/dtype.hpp"
#include "runtime/error.hpp"

namespace spx::engine {
namespace {

constexpr const char* kWhat = "serialized plan";
constexpr size_t kMaxSwitches = 256, kMaxText = 4096;
constexpr int64_t kMaxDim = int64_t{1} << 40;

template <class T>
void put(uint8_t* out, size_t at, T v) {
  std::memcpy(out + at, &v, sizeof(T));
}
template <class T>
T get(const uint8_t* in, size_t at) {
  T v;
  std::memcpy(&v, in + at, sizeof(T));
  return v;
}

void write_header(const PlanHeader& h, uint8_t* out) {
  std::memcpy(out, kPlanMagic, 8);
  put<uint64_t>(out, kPlanPayloadOffset, h.payload_bytes);
  put<uint64_t>(out, kPlanChecksumOffset, h.checksum);
  put<uint32_t>(out, kPlanVersionOffset, h.format_version);
  put<uint32_t>(out, 28, h.library_version);
  put<uint32_t>(out, 32, h.op);
  put<int32_t>(out, 36, h.a_type);
  put<int32_t>(out, 40, h.b_type);
  put<int32_t>(out, 44, h.c_type);
  put<int32_t>(out, 48, h.compute_type);
  put<int32_t>(out, 52, h.cc_major);
  put<int32_t>(out, 56, h.cc_minor);
  put<int32_t>(out, 60, h.sm_count);
  put<int32_t>(out, 64, h.code_arch);
  put<uint32_t>(out, 68, h.smem_optin);
}

void write_info(serial::Writer& w, const spxPlanInfo_t& i) {
  w.i32(i.family);
  w.fixed(i.kernel, sizeof(i.kernel));
  w.fixed(i.config, sizeof(i.config));
  for (const size_t v : {i.workspace_bytes, i.metadata_bytes, i.values_bytes, i.dense_bytes})
    w.u64(v);
  for (const double v : {i.analyze_ms, i.predicted_speedup, i.sparse_estimate_us,
                         i.dense_estimate_us})
    w.f64(v);
  for (const int64_t v : {i.nnz, i.padded_nnz, i.columns_skipped, i.reorder_retries, i.max_n,
                          i.prepared_sizes})
    w.i64(v);
  for (const int32_t v : {i.split_k, i.packing, i.candidates, i.searched, i.route}) w.i32(v);
}

spxPlanInfo_t read_info(serial::Reader& r) {
  spxPlanInfo_t i{};
  i.family = static_cast<spxSpMMAlg_t>(r.i32_in("info family", SPX_SPMM_ALG_DEFAULT,
                                                SPX_SPMM_ALG_DENSE));
  r.fixed("info kernel", i.kernel, sizeof(i.kernel));
  r.fixed("info config", i.config, sizeof(i.config));
  i.workspace_bytes = r.u64("info workspace_bytes");
  i.metadata_bytes = r.u64("info metadata_bytes");
  i.values_bytes = r.u64("info values_bytes");
  i.dense_bytes = r.u64("info dense_bytes");
  i.analyze_ms = r.f64("info analyze_ms");
  i.predicted_speedup = r.f64("info predicted_speedup");
  i.sparse_estimate_us = r.f64("info sparse_estimate_us");
  i.dense_estimate_us = r.f64("info dense_estimate_us");
  i.nnz = r.i64("info nnz");
  i.padded_nnz = r.i64("info padded_nnz");
  i.columns_skipped = r.i64("info columns_skipped");
  i.reorder_retries = r.i64("info reorder_retries");
  i.max_n = r.i64("info max_n");
  i.prepared_sizes = r.i64("info prepared_sizes");
  i.split_k = r.i32("info split_k");
  i.packing = r.i32("info packing");
  i.candidates = r.i32("info candidates");
  i.searched = r.i32("info searched");
  i.route = r.i32("info route");
  return i;
}

void write_dense(serial::Writer& w, const DenseRecordSig& d) {
  w.i64(d.rows), w.i64(d.cols), w.i64(d.ld), w.i32(d.order);
}
DenseRecordSig read_dense(serial::Reader& r, const char* name) {
  DenseRecordSig d;
  const std::string n(name);
  d.rows = r.i64_in((n + " rows").c_str(), 0, kMaxDim);
  d.cols = r.i64_in((n + " cols").c_str(), 0, kMaxDim);
  d.ld = r.i64_in((n + " ld").c_str(), 0, kMaxDim);
  d.order = static_cast<spxOrder_t>(r.i32_in((n + " order").c_str(), 0, 1));
  return d;
}

void write_family(serial::Writer& w, dispatch::FamilyRecord& f) {
  w.u32(static_cast<uint32_t>(f.tag()));
  std::visit(
      [&](auto& rec) {
        if constexpr (!std::is_same_v<std::decay_t<decltype(rec)>, std::monostate>)
          rec.visit(serial::Save{w});
      },
      f.v);
}

template <class Rec>
dispatch::FamilyRecord read_one(serial::Reader& r) {
  Rec rec;
  rec.visit(serial::Load{r});
  rec.validate(kWhat);
  return {rec};
}

/// A family record: the sparse source takes every tag but Dense, the dense source None or Dense.
dispatch::FamilyRecord read_family(serial::Reader& r, bool dense_slot) {
  using dispatch::RecordTag;
  const auto tag = static_cast<RecordTag>(r.u32(dense_slot ? "dense record tag" : "sparse record tag"));
  SPX_CHECK_ARG(dense_slot ? (tag == RecordTag::None || tag == RecordTag::Dense)
                           : (tag <= RecordTag::Fallback && tag != RecordTag::Dense),
                "%s is invalid: %s record tag %u", kWhat, dense_slot ? "dense" : "sparse",
                static_cast<unsigned>(tag));
  switch (tag) {
    case RecordTag::None: return {};
    case RecordTag::Nm: return read_one<plan::NmRecord>(r);
    case RecordTag::Ell: return read_one<plan::EllRecord>(r);
    case RecordTag::Srbcrs: return read_one<plan::SrbcrsRecord>(r);
    case RecordTag::Sptc: return read_one<plan::SptcRecord>(r);
    case RecordTag::Dense: return read_one<plan::DenseRecord>(r);
    case RecordTag::Fallback: return read_one<plan::FallbackRecord>(r);
  }
  return {};
}

void write_payload(serial::Writer& w, PlanRecord& r) {
  w.i32(r.format);
  for (const int64_t v : {r.rows, r.cols, r.nnz, r.vec_len, r.nm_n, r.nm_m, r.nm_l, r.ell_width})
    w.i64(v);
  write_dense(w, r.b);
  write_dense(w, r.c);
  w.i32(r.b_align);
  for (const int32_t v : {r.autotune, r.values_layout, r.dense_route, r.allow_tf32, r.max_n_option,
                          r.epilogue_activation, r.epilogue_bias, r.epilogue_scale})
    w.i32(v);
  w.u64(r.switches.size());
  for (const auto& [name, value] : r.switches) w.text(name), w.text(value);
  w.i64(r.max_n);
  w.i64(r.analyzed);
  write_info(w, r.info);
  w.u64(r.prepared.size());
  for (const PreparedRecord& e : r.prepared) {
    w.i64(e.n_hi), w.i32(e.route), w.i32(e.selected);
    write_info(w, e.info);
  }
  w.i32(r.sparse_selected);
  write_family(w, r.sparse);
  write_family(w, r.dense);
}

void read_payload(serial::Reader& rd, PlanRecord& r) {
  r.format = static_cast<spxFormat_t>(rd.i32_in("A's format", SPX_FORMAT_CSR, SPX_FORMAT_ELL));
  r.rows = rd.i64_in("A's rows", 0, kMaxDim);
  r.cols = rd.i64_in("A's cols", 0, kMaxDim);
  r.nnz = rd.i64_in("A's nnz", 0, kMaxDim);
  r.vec_len = rd.i64_in("A's vec_len", 1, 1024);
  r.nm_n = rd.i64_in("A's N", 0, kMaxDim);
  r.nm_m = rd.i64_in("A's M", 0, kMaxDim);
  r.nm_l = rd.i64_in("A's L", 0, kMaxDim);
  r.ell_width = rd.i64_in("A's ell_width", 0, kMaxDim);
  r.b = read_dense(rd, "B's");
  r.c = read_dense(rd, "C's");
  SPX_CHECK_ARG(r.b.rows == r.cols && r.c.rows == r.rows && r.b.cols == r.c.cols,
                "%s is invalid: the shapes of A (%lld x %lld), B (%lld x %lld) and C (%lld x "
                "%lld) do not agree",
                kWhat, static_cast<long long>(r.rows), static_cast<long long>(r.cols),
                static_cast<long long>(r.b.rows), static_cast<long long>(r.b.cols),
                static_cast<long long>(r.c.rows), static_cast<long long>(r.c.cols));
  r.b_align = rd.i32_in("B's alignment", 0, 255);
  r.autotune = rd.i32_in("option autotune", 0, 1);
  r.values_layout = rd.i32_in("option values_layout", 0, 1);
  r.dense_route = rd.i32_in("option dense_route", SPX_DENSE_ROUTE_AUTO,
                            SPX_DENSE_ROUTE_AUTO_EVERY_N);
  r.allow_tf32 = rd.i32_in("option allow_tf32", 0, 1);
  r.max_n_option = rd.i32_in("option max_n", -1, INT32_MAX);
  r.epilogue_activation =
      rd.i32_in("option epilogue_activation", SPX_ACTIVATION_NONE, SPX_ACTIVATION_SILU);
  r.epilogue_bias = rd.i32_in("option epilogue_bias", 0, 1);
  r.epilogue_scale = rd.i32_in("option epilogue_scale", 0, 1);
  const uint64_t switches = rd.u64("switch count");
  SPX_CHECK_ARG(switches <= kMaxSwitches, "%s is invalid: %llu switches, more than %zu", kWhat,
                static_cast<unsigned long long>(switches), kMaxSwitches);
  for (uint64_t i = 0; i < switches; ++i) {
    std::string name = rd.text("switch name", kMaxText);
    r.switches.emplace_back(std::move(name), rd.text("switch value", kMaxText));
  }
  r.max_n = rd.i64_in("max_n", -1, kMaxDim);
  r.analyzed = rd.i64_in("analyzed index", 0, kMaxPrepared - 1);
  r.info = read_info(rd);
  const uint64_t count = rd.u64("prepared count");
  SPX_CHECK_ARG(count >= 1 && count <= static_cast<uint64_t>(kMaxPrepared) &&
                    static_cast<int64_t>(count) > r.analyzed,
                "%s is invalid: %llu prepared sizes (1 to %lld, more than the analyzed index)",
                kWhat, static_cast<unsigned long long>(count), static_cast<long long>(kMaxPrepared));
  for (uint64_t i = 0; i < count; ++i) {
    PreparedRecord e;
    e.n_hi = rd.i64_in("prepared n", 0, kMaxDim);
    SPX_CHECK_ARG(r.prepared.empty() || e.n_hi > r.prepared.back().n_hi,
                  "%s is invalid: prepared n %lld does not ascend", kWhat,
                  static_cast<long long>(e.n_hi));
    e.route = rd.i32_in("prepared route", 0, 1);
    e.selected = rd.i32_in("prepared candidate", 0, 4095);
    e.info = read_info(rd);
    r.prepared.push_back(e);
  }
  SPX_CHECK_ARG(r.prepared[static_cast<size_t>(r.analyzed)].n_hi == r.c.cols,
                "%s is invalid: the analyzed prepared n (%lld) is not C's columns (%lld)", kWhat,
                static_cast<long long>(r.prepared[static_cast<size_t>(r.analyzed)].n_hi),
                static_cast<long long>(r.c.cols));
  SPX_CHECK_ARG(r.max_n == -1 || r.max_n == r.prepared.back().n_hi,
                "%s is invalid: max_n %lld is not -1 or the largest prepared n", kWhat,
                static_cast<long long>(r.max_n));
  r.sparse_selected = rd.i32_in("sparse candidate", 0, 4095);
  r.sparse = read_family(rd, false);
  r.dense = read_family(rd, true);
  for (const PreparedRecord& e : r.prepared)
    SPX_CHECK_ARG(e.route == 1 ? r.dense.tag() != dispatch::RecordTag::None
                               : r.sparse.tag() != dispatch::RecordTag::None,
                  "%s is invalid: prepared n %lld takes a route it holds no record of", kWhat,
                  static_cast<long long>(e.n_hi));
  const dispatch::RecordTag t = r.sparse.tag();
  SPX_CHECK_ARG(t != dispatch::RecordTag::Nm || r.format == SPX_FORMAT_NM,
                "%s is invalid: an NM record for a matrix not in the N:M format", kWhat);
}

}  // namespace

size_t write_plan(PlanRecord& r, uint8_t* out, size_t capacity, serial::Writer::Copy copy) {
  serial::Writer count(nullptr, 0, {});
  write_payload(count, r);
  const size_t total = kPlanHeaderBytes + count.size();
  if (out == nullptr) return total;
  SPX_CHECK_ARG(capacity >= total, "the buffer (%zu bytes) is smaller than the plan (%zu bytes)",
                capacity, total);
  serial::Writer w(out + kPlanHeaderBytes, capacity - kPlanHeaderBytes, std::move(copy));
  write_payload(w, r);
  r.header.payload_bytes = w.size();
  r.header.checksum = 0;
  write_header(r.header, out);
  r.header.checksum = serial::checksum(out + kPlanCoveredOffset, total - kPlanCoveredOffset);
  put<uint64_t>(out, kPlanChecksumOffset, r.header.checksum);
  return total;
}

PlanHeader read_plan_header(const void* bytes, size_t size) {
  const auto* in = static_cast<const uint8_t*>(bytes);
  SPX_CHECK_ARG(in != nullptr && size >= 8 && std::memcmp(in, kPlanMagic, 8) == 0,
                "these %zu bytes are not a serialized libspx plan (the magic \"SPXPLAN\" is "
                "missing)",
                in == nullptr ? size_t{0} : size);
  SPX_CHECK_ARG(size >= kPlanVersionOffset + 4,
                "serialized plan is truncated: %zu bytes hold no format version", size);
  PlanHeader h;
  h.format_version = get<uint32_t>(in, kPlanVersionOffset);
  SPX_EXPECTS(h.format_version == kPlanFormatVersion, SPX_STATUS_NOT_SUPPORTED,
              "serialized plan has format version %u; this libspx reads version %u",
              h.format_version, kPlanFormatVersion);
  SPX_CHECK_ARG(size >= kPlanHeaderBytes,
                "serialized plan is truncated: %zu bytes, less than its %zu-byte header", size,
                kPlanHeaderBytes);
  h.library_version = get<uint32_t>(in, 28);
  h.payload_bytes = get<uint64_t>(in, kPlanPayloadOffset);
  h.checksum = get<uint64_t>(in, kPlanChecksumOffset);
  const uint64_t have = size - kPlanHeaderBytes;
  SPX_CHECK_ARG(h.payload_bytes <= have,
                "serialized plan is truncated: its header announces %llu payload bytes, %llu are "
                "present",
                static_cast<unsigned long long>(h.payload_bytes),
                static_cast<unsigned long long>(have));
  SPX_CHECK_ARG(h.payload_bytes == have,
                "serialized plan is invalid: %llu bytes follow its %llu-byte payload",
                static_cast<unsigned long long>(have - h.payload_bytes),
                static_cast<unsigned long long>(h.payload_bytes));
  const uint64_t sum = serial::checksum(in + kPlanCoveredOffset, size - kPlanCoveredOffset);
  SPX_CHECK_ARG(sum == h.checksum,
                "serialized plan is corrupted: its checksum is %016llx, the bytes give %016llx",
                static_cast<unsigned long long>(h.checksum), static_cast<unsigned long long>(sum));
  h.op = get<uint32_t>(in, 32);
  h.a_type = static_cast<spxDataType_t>(get<int32_t>(in, 36));
  h.b_type = static_cast<spxDataType_t>(get<int32_t>(in, 40));
  h.c_type = static_cast<spxDataType_t>(get<int32_t>(in, 44));
  h.compute_type = static_cast<spxDataType_t>(get<int32_t>(in, 48));
  h.cc_major = get<int32_t>(in, 52);
  h.cc_minor = get<int32_t>(in, 56);
  h.sm_count = get<int32_t>(in, 60);
  h.code_arch = get<int32_t>(in, 64);
  h.smem_optin = get<uint32_t>(in, 68);
  SPX_EXPECTS(h.op == 0, SPX_STATUS_NOT_SUPPORTED,
              "serialized plan holds operation %u; only SpMM plans (0) are serialized", h.op);
  for (const spxDataType_t t : {h.a_type, h.b_type, h.c_type, h.compute_type})
    SPX_CHECK_ARG(dtype::is_valid(t), "serialized plan is invalid: a value type (%d) is unknown",
                  static_cast<int>(t));
  return h;
}

PlanRecord read_plan(const void* bytes, size_t size) {
  PlanRecord r;
  r.header = read_plan_header(bytes, size);
  serial::Reader rd(static_cast<const uint8_t*>(bytes) + kPlanHeaderBytes,
                    size - kPlanHeaderBytes, kWhat);
  read_payload(rd, r);
  rd.finish();
  return r;
}

}  // namespace spx::engine
