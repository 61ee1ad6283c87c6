// The byte format of a serialized SpMM plan (spxPlanSerialize / spxPlanDeserialize), plain C++:
// written from, and parsed into, host structures without a GPU (the CPU tests and the fuzzer
// run it). engine/serialize.cpp turns a plan into a PlanRecord (its device arrays read through
// the writer's copy function) and a parsed PlanRecord into a plan.
//
// Layout, little-endian, fixed-width:
//   header (kPlanHeaderBytes = 72 bytes)
//     0  magic "SPXPLAN\0"           8  payload bytes (u64)       16 checksum (u64)
//     24 format version (u32)        28 library version (u32)
//     32 operation (u32, 0 = SpMM)   36 A, B, C and compute types (4 x i32)
//     52 cc major, cc minor, SM count, device code arch (4 x i32)
//     68 shared memory per block opt-in (u32)
//   payload: the problem (A's signature, B's and C's, leading dimensions, B's alignment), the
//     options, the SPX_* switches, max_n, the plan info, the prepared decisions (n, route,
//     selected candidate, info), then the sparse family's record and the dense route's
//     (families/record.hpp), each a tag and its fields.
// The checksum (serial::checksum) covers header bytes 24..72 and the payload. Parsing checks,
// in this order: the magic (INVALID_VALUE "not a serialized libspx plan"), the format version
// (NOT_SUPPORTED naming both versions), the header's length, the payload's length (INVALID_VALUE
// "truncated" or "bytes follow"), the checksum (INVALID_VALUE "corrupted"), then every field
// and array length (INVALID_VALUE naming the field). The device fields are compared with the
// handle's device by the loader, not here.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "families/record.hpp"
#include "runtime/serial.hpp"
#include "spx/spx_types.h"

namespace spx::engine {

constexpr char kPlanMagic[8] = {'S', 'P', 'X', 'P', 'L', 'A', 'N', '\0'};
constexpr uint32_t kPlanFormatVersion = 1;
constexpr size_t kPlanHeaderBytes = 72;
/// Offsets of the header fields tests and tools patch.
constexpr size_t kPlanPayloadOffset = 8, kPlanChecksumOffset = 16, kPlanVersionOffset = 24,
                 kPlanCoveredOffset = 24;
/// Prepared sizes a plan may hold (one per power of two up to 2^62, and the bound).
constexpr int64_t kMaxPrepared = 64;

struct PlanHeader {
  uint32_t format_version = kPlanFormatVersion;
  uint32_t library_version = 0;
  uint64_t payload_bytes = 0, checksum = 0;
  uint32_t op = 0;  ///< 0: SpMM (SDDMM plans are not serialized)
  spxDataType_t a_type = SPX_R_32F, b_type = SPX_R_32F, c_type = SPX_R_32F,
                compute_type = SPX_R_32F;
  int32_t cc_major = 0, cc_minor = 0, sm_count = 0, code_arch = 0;
  uint32_t smem_optin = 0;
};

struct DenseRecordSig {
  int64_t rows = 0, cols = 0, ld = 0;
  spxOrder_t order = SPX_ORDER_ROW;
};

struct PreparedRecord {
  int64_t n_hi = 0;
  int32_t route = 0;     ///< 0 the sparse source's for_columns, 1 the dense source's
  int32_t selected = 0;  ///< the candidate it runs (spxSpMM_search / autotune)
  spxPlanInfo_t info{};
};

struct PlanRecord {
  PlanHeader header;
  // A (the sparse signature) and the dense operands as analyzed
  spxFormat_t format = SPX_FORMAT_CSR;
  int64_t rows = 0, cols = 0, nnz = 0, vec_len = 1, nm_n = 0, nm_m = 0, nm_l = 0, ell_width = 0;
  DenseRecordSig b, c;
  int32_t b_align = 0;  ///< B's address modulo 256 at analyze
  // options (spxPlanOptions)
  int32_t autotune = 0, values_layout = 0, dense_route = 0, allow_tf32 = 0, max_n_option = 0;
  /// The fused epilogue's options (its arrays are not saved: spxPlanSetEpilogue after a load).
  int32_t epilogue_activation = 0, epilogue_bias = 0, epilogue_scale = 0;
  std::vector<std::pair<std::string, std::string>> switches;
  int64_t max_n = 0, analyzed = 0;
  spxPlanInfo_t info{};
  std::vector<PreparedRecord> prepared;
  int32_t sparse_selected = 0;
  dispatch::FamilyRecord sparse, dense;
};

/// Writes `r` (header, then payload) to `out`, which holds `capacity` bytes; out == nullptr only
/// counts. Fills r.header's payload length and checksum. Returns the bytes written (or needed).
size_t write_plan(PlanRecord& r, uint8_t* out, size_t capacity, serial::Writer::Copy copy);

/// Parses and checks a serialized plan (see the file comment); the record's arrays point into
/// `bytes`, which must outlive it.
PlanRecord read_plan(const void* bytes, size_t size);

/// Only the header, after the magic, version, length and checksum checks (what a tool can show
/// of a plan without parsing it).
PlanHeader read_plan_header(const void* bytes, size_t size);

}  // namespace spx::engine
