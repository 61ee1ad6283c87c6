// What a serialized SpMM plan stores of one kernel plan: one family's record (each defined, with
// its length checks, in families/<family>/plan/serialize.hpp). Plain C++: the engine's format
// (engine/plan_record.hpp) writes and reads these without a GPU.
#pragma once

#include <cstdint>
#include <variant>

#include "families/dense/plan/serialize.hpp"
#include "families/ell/plan/serialize.hpp"
#include "families/fallback/plan/serialize.hpp"
#include "families/nm/plan/serialize.hpp"
#include "families/sptc/plan/serialize.hpp"
#include "families/srbcrs/plan/serialize.hpp"

namespace spx::dispatch {

/// The tags in the byte format (never renumber: they are part of format version 1).
enum class RecordTag : uint32_t { None = 0, Nm = 1, Ell = 2, Srbcrs = 3, Sptc = 4, Dense = 5, Fallback = 6 };

struct FamilyRecord {
  std::variant<std::monostate, plan::NmRecord, plan::EllRecord, plan::SrbcrsRecord,
               plan::SptcRecord, plan::DenseRecord, plan::FallbackRecord>
      v;
  RecordTag tag() const { return static_cast<RecordTag>(v.index()); }
};

}  // namespace spx::dispatch
