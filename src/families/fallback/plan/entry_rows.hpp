// The fallback SDDMM runs one thread per stored entry of C: each entry needs its row explicitly
// (CSR's row pointers only give it by a search).
#pragma once

#include <cstdint>
#include <vector>

#include "formats/to_csr.hpp"

namespace spx::plan {

/// entry_rows(csr)[e] = the row of entry e (row_ptr expanded): csr.col_ind.size() entries.
std::vector<int32_t> entry_rows(const CsrStructure& csr);

}  // namespace spx::plan
