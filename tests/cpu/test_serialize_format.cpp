// The byte format of serialized plans without a GPU (engine/plan_record.hpp, runtime/serial.hpp):
// a record round-trips; every truncation, every flipped byte, a wrong magic and another format
// version give the documented status; a consistent checksum over inconsistent fields is still
// refused, naming the field.
#include <catch2/catch.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "engine/plan_record.hpp"
#include "runtime/error.hpp"

using spx::engine::PlanRecord;
using spx::engine::read_plan;
using spx::engine::write_plan;

namespace {

/// An ELL plan of a 4 x 8 fp16 matrix, 2 slots per row (stride 8), on an sm_90 with 132 SMs,
/// with two prepared sizes; the arrays live in `store`.
struct Sample {
  std::vector<uint8_t> values = std::vector<uint8_t>(40 * 2, 7), indices = std::vector<uint8_t>(40 * 2, 1),
                       row_len = std::vector<uint8_t>(4 * 4, 2),
                       slot_map = std::vector<uint8_t>(40 * 4, 3);
  PlanRecord r;
  Sample() {
    r.header.library_version = 100;
    r.header.a_type = r.header.b_type = r.header.c_type = SPX_R_16F;
    r.header.compute_type = SPX_R_32F;
    r.header.cc_major = 9, r.header.sm_count = 132, r.header.code_arch = 90;
    r.header.smem_optin = 232448;
    r.format = SPX_FORMAT_ELL;
    r.rows = 4, r.cols = 8, r.nnz = 8, r.ell_width = 2;
    r.b = {8, 16, 16, SPX_ORDER_ROW};
    r.c = {4, 16, 16, SPX_ORDER_ROW};
    r.b_align = 0;
    r.switches = {{"SPX_ELL_FORCE", "1"}};
    r.max_n = 16;
    r.analyzed = 1;
    std::snprintf(r.info.kernel, sizeof(r.info.kernel), "ell_uspmm");
    std::snprintf(r.info.config, sizeof(r.info.config), "a configuration");
    r.info.candidates = 3;
    r.info.analyze_ms = 1.25;
    spx::engine::PreparedRecord a{8, 0, 1, r.info}, b{16, 0, 2, r.info};
    r.prepared = {a, b};
    r.sparse_selected = 2;
    spx::plan::EllRecord e;
    e.rows = 4, e.cols = 8, e.width = 2, e.nnz = 8, e.index16 = true, e.half = true;
    e.packed = true, e.stride = 8, e.slots = 32, e.alloc_slots = 40;
    e.values = {values.data(), values.size()};
    e.indices = {indices.data(), indices.size()};
    e.row_len = {row_len.data(), row_len.size()};
    e.slot_map = {slot_map.data(), slot_map.size()};
    r.sparse.v = e;
  }
  std::vector<uint8_t> bytes() {
    std::vector<uint8_t> out(write_plan(r, nullptr, 0, {}));
    REQUIRE(write_plan(r, out.data(), out.size(), {}) == out.size());
    return out;
  }
};

spxStatus_t status_of(const std::vector<uint8_t>& b, size_t size, std::string* message = nullptr) {
  try {
    read_plan(b.data(), size);
    return SPX_STATUS_SUCCESS;
  } catch (const spx::Error& e) {
    if (message) *message = e.what();
    return e.status();
  }
}

bool contains(const std::string& s, const char* part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("a plan record round-trips through the bytes", "[serialize]") {
  Sample s;
  const std::vector<uint8_t> bytes = s.bytes();
  const PlanRecord back = read_plan(bytes.data(), bytes.size());
  CHECK(back.header.library_version == 100);
  CHECK(back.header.a_type == SPX_R_16F);
  CHECK(back.header.sm_count == 132);
  CHECK(back.header.payload_bytes + spx::engine::kPlanHeaderBytes == bytes.size());
  CHECK(back.rows == 4);
  CHECK(back.cols == 8);
  CHECK(back.b.cols == 16);
  CHECK(back.switches == s.r.switches);
  REQUIRE(back.prepared.size() == 2);
  CHECK(back.prepared[1].n_hi == 16);
  CHECK(back.prepared[1].selected == 2);
  CHECK(std::string(back.prepared[0].info.kernel) == "ell_uspmm");
  CHECK(back.prepared[0].info.analyze_ms == 1.25);
  CHECK(back.sparse_selected == 2);
  REQUIRE(back.sparse.tag() == spx::dispatch::RecordTag::Ell);
  CHECK(back.dense.tag() == spx::dispatch::RecordTag::None);
  const auto& e = std::get<spx::plan::EllRecord>(back.sparse.v);
  CHECK(e.alloc_slots == 40);
  REQUIRE(e.slot_map.bytes == 160);
  CHECK(std::memcmp(e.slot_map.data, s.slot_map.data(), 160) == 0);
  // The arrays are views into the bytes, not copies.
  CHECK(static_cast<const uint8_t*>(e.values.data) > bytes.data());
  CHECK(static_cast<const uint8_t*>(e.values.data) < bytes.data() + bytes.size());
}

TEST_CASE("every truncation is INVALID_VALUE", "[serialize]") {
  Sample s;
  const std::vector<uint8_t> bytes = s.bytes();
  for (size_t n = 0; n < bytes.size(); ++n) {
    std::string msg;
    const spxStatus_t st = status_of(bytes, n, &msg);
    INFO("size " << n << ": " << msg);
    REQUIRE(st == SPX_STATUS_INVALID_VALUE);
    if (n >= spx::engine::kPlanHeaderBytes) REQUIRE(contains(msg, "truncated"));
  }
  CHECK(status_of(bytes, bytes.size()) == SPX_STATUS_SUCCESS);
}

TEST_CASE("every flipped byte is refused: INVALID_VALUE, the version NOT_SUPPORTED", "[serialize]") {
  Sample s;
  const std::vector<uint8_t> bytes = s.bytes();
  for (size_t i = 0; i < bytes.size(); ++i) {
    for (const uint8_t mask : {uint8_t{0x01}, uint8_t{0x80}}) {
      std::vector<uint8_t> b = bytes;
      b[i] ^= mask;
      std::string msg;
      const spxStatus_t st = status_of(b, b.size(), &msg);
      INFO("byte " << i << " ^ " << int(mask) << ": " << msg);
      if (i >= spx::engine::kPlanVersionOffset && i < spx::engine::kPlanVersionOffset + 4) {
        REQUIRE(st == SPX_STATUS_NOT_SUPPORTED);
      } else {
        REQUIRE(st == SPX_STATUS_INVALID_VALUE);
        if (i >= spx::engine::kPlanCoveredOffset) REQUIRE(contains(msg, "corrupted"));
      }
    }
  }
}

TEST_CASE("wrong magic, another format version, trailing bytes", "[serialize]") {
  Sample s;
  std::vector<uint8_t> b = s.bytes();
  std::string msg;
  std::vector<uint8_t> magic = b;
  magic[0] = 'Q';
  CHECK(status_of(magic, magic.size(), &msg) == SPX_STATUS_INVALID_VALUE);
  CHECK(contains(msg, "not a serialized libspx plan"));
  CHECK(status_of({}, 0, &msg) == SPX_STATUS_INVALID_VALUE);
  std::vector<uint8_t> v2 = b;
  v2[spx::engine::kPlanVersionOffset] = 2;
  CHECK(status_of(v2, v2.size(), &msg) == SPX_STATUS_NOT_SUPPORTED);
  CHECK(contains(msg, "format version 2"));
  std::vector<uint8_t> longer = b;
  longer.push_back(0);
  CHECK(status_of(longer, longer.size(), &msg) == SPX_STATUS_INVALID_VALUE);
  CHECK(contains(msg, "follow"));
}

TEST_CASE("a valid checksum over inconsistent fields names the field", "[serialize]") {
  Sample s;
  auto& e = std::get<spx::plan::EllRecord>(s.r.sparse.v);
  e.slot_map.bytes = 100;  // not alloc_slots x 4
  std::string msg;
  std::vector<uint8_t> b = s.bytes();
  CHECK(status_of(b, b.size(), &msg) == SPX_STATUS_INVALID_VALUE);
  CHECK(contains(msg, "ELL slot_map"));

  Sample t;
  t.r.prepared[0].route = 1;  // the dense route, with no dense record
  b = t.bytes();
  CHECK(status_of(b, b.size(), &msg) == SPX_STATUS_INVALID_VALUE);
  CHECK(contains(msg, "route"));

  Sample v;
  v.r.analyzed = 0;  // the analyzed entry is n 8, C has 16 columns
  b = v.bytes();
  CHECK(status_of(b, b.size(), &msg) == SPX_STATUS_INVALID_VALUE);
  CHECK(contains(msg, "analyzed"));

  Sample u;
  u.r.prepared[1].n_hi = 8;  // not ascending
  b = u.bytes();
  CHECK(status_of(b, b.size(), &msg) == SPX_STATUS_INVALID_VALUE);
  CHECK(contains(msg, "ascend"));
}

TEST_CASE("the writer refuses a buffer that is too small", "[serialize]") {
  Sample s;
  const size_t need = write_plan(s.r, nullptr, 0, {});
  std::vector<uint8_t> small(need - 1);
  try {
    write_plan(s.r, small.data(), small.size(), {});
    FAIL("a short buffer was accepted");
  } catch (const spx::Error& e) {
    CHECK(e.status() == SPX_STATUS_INVALID_VALUE);
  }
}

TEST_CASE("the checksum: every byte and the length count", "[serialize]") {
  std::vector<uint8_t> big(9u << 20);
  for (size_t i = 0; i < big.size(); ++i) big[i] = static_cast<uint8_t>(i * 2654435761u >> 13);
  const uint64_t h = spx::serial::checksum(big.data(), big.size());
  CHECK(spx::serial::checksum(big.data(), big.size()) == h);
  for (const size_t i : {size_t{0}, size_t{1} << 20, big.size() - 1}) {
    big[i] ^= 1;
    CHECK(spx::serial::checksum(big.data(), big.size()) != h);
    big[i] ^= 1;
  }
  CHECK(spx::serial::checksum(big.data(), big.size() - 1) != h);
}
