// The parameter grid shared by the SR-BCRS SpMM and SDDMM suites (test_srbcrs, test_srbcrs_sddmm):
// the integer type pairs, the outputs, the formats, and the rotating grid that walks them.
#pragma once

#include <cstdint>

#include "host_builders.hpp"
#include "random.hpp"
#include "spx/spx_types.h"

namespace spx::test {

struct TypePair {
  spxDataType_t a, b;
};
/// L8-R8 and L4-R4 signed and unsigned, then the 8/4-bit mixes the unpacking path allows.
inline constexpr TypePair kIntegerPairs[] = {
    {SPX_R_8I, SPX_R_8I}, {SPX_R_8U, SPX_R_8U}, {SPX_R_4I, SPX_R_4I}, {SPX_R_4U, SPX_R_4U},
    {SPX_R_8I, SPX_R_8U}, {SPX_R_8U, SPX_R_8I}, {SPX_R_4I, SPX_R_4U}, {SPX_R_4U, SPX_R_4I},
    {SPX_R_8I, SPX_R_4I}, {SPX_R_4I, SPX_R_8I}, {SPX_R_8U, SPX_R_4U}, {SPX_R_4U, SPX_R_8I}};
inline constexpr spxDataType_t kOutputs[] = {SPX_R_32I, SPX_R_32F, SPX_R_16F};

/// A case's size in vector-rows (rows = vector_rows x the format's row unit), k and n.
struct Dims {
  int64_t vector_rows, k, n;
};

/// 0: CSR, else BCRS with vectors of v rows.
inline FormatSpec format_for(int64_t v) { return v == 0 ? csr_spec() : bcrs_spec(v); }

/// Every pair x {CSR, V = 1, 2, 4, 8} x output, twice, each variant with its own seed (`seed`,
/// `seed + 1`, ...). Shape and ld padding rotate with the variant number so that every 64
/// variants see each of the 8 shapes with each padding and each pair of the orders the body
/// derives from `variant` (padding: < 0 rounds pitches up to 16 bytes, else that many elements).
/// body(rng, pair, format, output, dims, pad, variant); a "pair" is whatever `pairs` holds
/// (a TypePair, or a suite's own type description).
template <class Pairs, class Body>
void rotating_grid(uint64_t seed, const Pairs& pairs, const Dims (&dims)[8], Body&& body) {
  int variant = 0;
  for (const auto& tp : pairs)
    for (int64_t v : {0, 1, 2, 4, 8})
      for (spxDataType_t out : kOutputs)
        for (int rep = 0; rep < 2; ++rep) {
          Rng rng(seed++);
          const Dims& d = dims[(variant + variant / 8) % 8];
          const int64_t pad = variant % 2 == 0 ? -1 : (variant % 5 == 2 ? 3 : 0);
          body(rng, tp, format_for(v), out, d, pad, variant);
          ++variant;
        }
}

}  // namespace spx::test
