// Dense fp32 -> vector-sparse BCRS(V): the V x 1 vector (rows b*V .. b*V+V-1, column c) is
// stored when any of its V values is nonzero (NaN counts as nonzero).
#pragma once

#include <cstdint>

#include "formats/dense_view.hpp"
#include "formats/host_formats.hpp"

namespace spx::plan {

/// rows % vec_len must be 0 (INVALID_VALUE otherwise). Columns increase within a vector-row;
/// the V values of a vector are contiguous, top row first.
BcrsF32 dense_to_bcrs(const DenseView& a, int64_t vec_len);

}  // namespace spx::plan
