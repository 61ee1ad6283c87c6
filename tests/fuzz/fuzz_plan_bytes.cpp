// Fuzz target: the parser of serialized plans (src/engine/plan_record, runtime/serial and every
// family's record checks in src/families/<family>/plan/serialize). The first byte picks the
// mode: even, the remaining bytes are parsed as they are (the magic, version, length and
// checksum checks); odd, they get a valid magic, format version, payload length and checksum
// first, so that the fuzzer reaches every field of the payload. Checked: only INVALID_VALUE or
// NOT_SUPPORTED, each with a message; an accepted record's arrays lie inside the bytes and
// their lengths are the ones the record's checks require; the record written again parses, and
// writing that parse gives the same bytes (the format has one spelling per record).
#include <cstdint>
#include <cstring>
#include <vector>

#include "engine/plan_record.hpp"
#include "fuzz_common.hpp"

using namespace spx_fuzz;
namespace eng = spx::engine;

namespace {

void check_inside(const spx::serial::Array& a, const uint8_t* begin, size_t size) {
  if (a.bytes == 0) return;
  const auto* p = static_cast<const uint8_t*>(a.data);
  FUZZ_CHECK(p >= begin && a.bytes <= size && p - begin <= static_cast<ptrdiff_t>(size - a.bytes));
}

void check_arrays(const spx::dispatch::FamilyRecord& f, const uint8_t* begin, size_t size) {
  std::visit(
      [&](auto rec) {
        if constexpr (!std::is_same_v<decltype(rec), std::monostate>)
          rec.visit([&](const char*, auto& v) {
            if constexpr (std::is_same_v<std::decay_t<decltype(v)>, spx::serial::Array>)
              check_inside(v, begin, size);
          });
      },
      f.v);
}

std::vector<uint8_t> rewrite(eng::PlanRecord r) {
  std::vector<uint8_t> out(eng::write_plan(r, nullptr, 0, {}));
  FUZZ_CHECK(eng::write_plan(r, out.data(), out.size(), {}) == out.size());
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  std::vector<uint8_t> b(data + 1, data + size);
  if ((data[0] & 1) != 0 && b.size() >= eng::kPlanHeaderBytes) {
    std::memcpy(b.data(), eng::kPlanMagic, 8);
    const uint32_t version = eng::kPlanFormatVersion;
    std::memcpy(b.data() + eng::kPlanVersionOffset, &version, 4);
    const uint64_t payload = b.size() - eng::kPlanHeaderBytes;
    std::memcpy(b.data() + eng::kPlanPayloadOffset, &payload, 8);
    const uint64_t sum = spx::serial::checksum(b.data() + eng::kPlanCoveredOffset,
                                               b.size() - eng::kPlanCoveredOffset);
    std::memcpy(b.data() + eng::kPlanChecksumOffset, &sum, 8);
  }
  expect_ok_or_error(kArgErrors, [&] {
    const eng::PlanRecord r = eng::read_plan(b.data(), b.size());
    FUZZ_CHECK(!r.prepared.empty() && r.analyzed < static_cast<int64_t>(r.prepared.size()));
    for (size_t i = 1; i < r.prepared.size(); ++i)
      FUZZ_CHECK(r.prepared[i].n_hi > r.prepared[i - 1].n_hi);
    check_arrays(r.sparse, b.data(), b.size());
    check_arrays(r.dense, b.data(), b.size());
    FUZZ_CHECK(r.dense.tag() == spx::dispatch::RecordTag::None ||
               r.dense.tag() == spx::dispatch::RecordTag::Dense);
    const std::vector<uint8_t> again = rewrite(r);
    const eng::PlanRecord back = eng::read_plan(again.data(), again.size());
    FUZZ_CHECK(rewrite(back) == again);
  });
  return 0;
}
