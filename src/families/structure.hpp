// Reading a sparse operand's structure from the device for analyze (every family needs it on the
// host), with the checks that its arrays are device memory.
#pragma once

#include <cstdint>
#include <vector>

#include "runtime/host_vector.hpp"
#include "runtime/objects.hpp"
#include "formats/to_csr.hpp"

namespace spx::dispatch {

/// The descriptor's index arrays, copied to the host (blocks on h.stream). `ptr` is CSR's
/// row_ptr / BCRS's block_row_ptr (empty for NM and ELL); `idx` the column / position indices.
struct HostStructure {
  HostVector<int32_t> ptr, idx;
};
HostStructure download_structure(const spxContext& h, const spxSpMatDescr& S);

/// A CSR or BCRS descriptor's (block) row pointers alone, copied to the host and checked as
/// to_csr checks them (INVALID_VALUE): for rules that read row lengths only.
HostVector<int32_t> download_row_ptr(const spxContext& h, const spxSpMatDescr& S);

/// The structure as validated CSR with each entry's slot in the user's values array
/// (INVALID_VALUE for bad structure: decreasing pointers, indices out of range, ...).
plan::CsrStructure to_csr(const spxSpMatDescr& S, const HostStructure& host);

/// Throws INVALID_VALUE unless a non-empty dense operand's values are device memory.
void expect_dense_on_device(const spxDnMatDescr& d, const char* name);

}  // namespace spx::dispatch
