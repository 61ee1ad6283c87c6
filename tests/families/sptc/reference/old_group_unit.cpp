// The SpTC reorder of libspx before the fast analyze (unit search, panels, BLOCK_TILE choice),
// kept verbatim under ref:: with ref_ names as the reference the CPU tests compare the current
// reorder with: its layouts must stay byte-identical.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "reference/old_reorder.hpp"

namespace ref {
using spx::plan::SptcUnitGrouping;

namespace {

constexpr int kUnit = 16;

inline int popcount64(uint64_t x) { return __builtin_popcountll(x); }
inline int lowest_bit(uint32_t x) { return __builtin_ctz(x); }
constexpr uint32_t kAll = 0xFFFFu;

/// The 1820 four-element subsets of 16 positions, lexicographic.
struct Quads {
  std::vector<std::array<uint8_t, 4>> pos;
  std::vector<uint16_t> mask;
  Quads() {
    for (int a = 0; a < kUnit; ++a)
      for (int b = a + 1; b < kUnit; ++b)
        for (int c = b + 1; c < kUnit; ++c)
          for (int d = c + 1; d < kUnit; ++d) {
            pos.push_back({static_cast<uint8_t>(a), static_cast<uint8_t>(b),
                           static_cast<uint8_t>(c), static_cast<uint8_t>(d)});
            mask.push_back(static_cast<uint16_t>((1u << a) | (1u << b) | (1u << c) | (1u << d)));
          }
  }
};
const Quads& quads() {
  static const Quads q;
  return q;
}

/// Per-thread tables indexed by a 16-bit position set, valid when their stamp equals `gen`
/// (no clearing between searches).
struct Scratch {
  std::vector<uint32_t> compat_stamp = std::vector<uint32_t>(1u << kUnit, 0);
  std::vector<uint32_t> split_stamp = std::vector<uint32_t>(1u << kUnit, 0);
  std::vector<uint16_t> split_first = std::vector<uint16_t>(1u << kUnit, 0);  ///< 0 = no split
  uint32_t gen = 0;
  uint32_t next() {
    if (++gen == 0) {  // wrapped: forget everything once
      std::fill(compat_stamp.begin(), compat_stamp.end(), 0);
      std::fill(split_stamp.begin(), split_stamp.end(), 0);
      gen = 1;
    }
    return gen;
  }
};

/// Rows where at least 3 of the 4 columns are nonzero.
inline uint64_t over_two(uint64_t a, uint64_t b, uint64_t c, uint64_t d) {
  return (a & b & (c | d)) | (c & d & (a | b));
}

/// Residues modulo 8 covered by a position set.
inline uint32_t residues(uint32_t m) { return (m | (m >> 8)) & 0xFFu; }
inline bool conflict_free_half(uint32_t m) { return (m & 0xFFu) == ((~(m >> 8)) & 0xFFu); }

/// A compatible 4-subset of the 8-set `c` holding its lowest position whose rest is compatible too
/// (memoised; 0 when none).
uint16_t split_half(Scratch& s, uint32_t c) {
  if (s.split_stamp[c] == s.gen) return s.split_first[c];
  int p[8];
  int n = 0;
  for (uint32_t m = c; m; m &= m - 1) p[n++] = lowest_bit(m);
  uint16_t found = 0;
  for (int i = 1; i < 8 && !found; ++i)
    for (int j = i + 1; j < 8 && !found; ++j)
      for (int k = j + 1; k < 8 && !found; ++k) {
        const uint32_t g = (1u << p[0]) | (1u << p[i]) | (1u << p[j]) | (1u << p[k]);
        if (s.compat_stamp[g] == s.gen && s.compat_stamp[c ^ g] == s.gen)
          found = static_cast<uint16_t>(g);
      }
  s.split_stamp[c] = s.gen;
  s.split_first[c] = found;
  return found;
}

void append_positions(uint32_t m, std::array<uint8_t, 16>& order, int& n) {
  for (; m; m &= m - 1) order[n++] = static_cast<uint8_t>(lowest_bit(m));
}

}  // namespace

SptcUnitGrouping ref_group_unit(const std::array<uint64_t, 16>& masks, uint32_t real_positions,
                                 bool prefer_conflict_free, int64_t max_pair_checks) {
  thread_local Scratch s;
  const Quads& q = quads();
  const uint32_t gen = s.next();

  // Compatible 4-groups, and how often each position appears in one.
  std::vector<uint16_t> with0, without0;
  with0.reserve(455);
  without0.reserve(1365);
  std::array<int, kUnit> appearances{};
  for (size_t i = 0; i < q.mask.size(); ++i) {
    const auto& p = q.pos[i];
    if (over_two(masks[p[0]], masks[p[1]], masks[p[2]], masks[p[3]])) continue;
    s.compat_stamp[q.mask[i]] = gen;
    (p[0] == 0 ? with0 : without0).push_back(q.mask[i]);
    for (int k = 0; k < 4; ++k) ++appearances[p[k]];
  }

  // Necessary conditions first (a failed unit costs no pair search): every real position is in
  // some compatible group, and no row has more than 8 nonzeros (2 per group).
  bool feasible = true;
  for (int i = 0; i < kUnit && feasible; ++i)
    if ((real_positions >> i & 1u) && appearances[i] == 0) feasible = false;
  uint64_t any = 0;
  for (int i = 0; i < kUnit; ++i) any |= masks[i];
  for (; any && feasible; any &= any - 1) {
    const int row = __builtin_ctzll(any);
    int count = 0;
    for (int i = 0; i < kUnit; ++i) count += static_cast<int>(masks[i] >> row & 1u);
    if (count > 8) feasible = false;
  }

  SptcUnitGrouping r;
  const int passes = !feasible ? 0 : prefer_conflict_free ? 2 : 1;
  for (int pass = 0; pass < passes && !r.found; ++pass) {
    const bool only_free = prefer_conflict_free && pass == 0;
    int64_t checks = 0;
    for (uint16_t gi : with0) {
      if (only_free && popcount64(residues(gi)) != popcount64(gi)) continue;
      for (uint16_t gj : without0) {
        if (gi & gj) continue;
        const uint32_t half = gi | gj;
        if (only_free && !conflict_free_half(half)) continue;
        if (++checks > max_pair_checks) break;
        const uint32_t rest = kAll & ~half;
        const uint16_t g3 = split_half(s, rest);
        if (!g3) continue;
        r.found = true;
        r.conflict_free = conflict_free_half(half);
        int n = 0;
        append_positions(gi, r.order, n);
        append_positions(gj, r.order, n);
        append_positions(g3, r.order, n);
        append_positions(rest ^ g3, r.order, n);
        break;
      }
      if (r.found || checks > max_pair_checks) break;
    }
    r.pair_checks += checks;
  }
  if (r.found) return r;

  // Least compatible real column: fewest compatible groups, then most nonzeros, then highest.
  for (int i = 0; i < kUnit; ++i) {
    if (!(real_positions >> i & 1u)) continue;
    if (r.least_compatible < 0) {
      r.least_compatible = i;
      continue;
    }
    const int b = r.least_compatible;
    const int pa = popcount64(masks[i]), pb = popcount64(masks[b]);
    if (appearances[i] < appearances[b] || (appearances[i] == appearances[b] && pa >= pb))
      r.least_compatible = i;
  }
  return r;
}

}  // namespace ref
