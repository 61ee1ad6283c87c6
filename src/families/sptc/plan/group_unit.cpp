// The unit search of the SpTC reorder (see sptc_reorder.hpp): compatible 4-groups of a 16-position
// unit, forward halves holding position 0, memoised backward splits of their complements.
#include <array>
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "families/sptc/plan/reorder.hpp"

namespace spx::plan {
namespace {

constexpr int kUnit = 16;

inline int popcount64(uint64_t x) { return __builtin_popcountll(x); }
inline int lowest_bit(uint32_t x) { return __builtin_ctz(x); }
constexpr uint32_t kAll = 0xFFFFu;
/// Below this many groups without position 0, filtering them is cheaper than enumerating the
/// 495 four-subsets of a group's complement.
constexpr size_t kScanBelow = 600;

/// The 1820 four-element subsets of 16 positions, lexicographic.
struct Quads {
  std::vector<std::array<uint8_t, 4>> pos;
  std::vector<uint16_t> mask;
  std::vector<uint16_t> rank = std::vector<uint16_t>(1u << kUnit, 0);  ///< mask -> its index
  /// For a set F of 4 residues (bit mask, 8 bits): the 16 groups holding one of {r, r + 8} for
  /// every r in F, by rank (the conflict-free completions of a group covering the other four).
  std::vector<std::array<uint16_t, 16>> completions = std::vector<std::array<uint16_t, 16>>(256);
  Quads() {
    for (int a = 0; a < kUnit; ++a)
      for (int b = a + 1; b < kUnit; ++b)
        for (int c = b + 1; c < kUnit; ++c)
          for (int d = c + 1; d < kUnit; ++d) {
            pos.push_back({static_cast<uint8_t>(a), static_cast<uint8_t>(b),
                           static_cast<uint8_t>(c), static_cast<uint8_t>(d)});
            mask.push_back(static_cast<uint16_t>((1u << a) | (1u << b) | (1u << c) | (1u << d)));
            rank[mask.back()] = static_cast<uint16_t>(mask.size() - 1);
          }
    for (uint32_t f = 0; f < 256; ++f) {
      if (__builtin_popcount(f) != 4) continue;
      int res[4], n = 0;
      for (int r = 0; r < 8; ++r)
        if (f >> r & 1u) res[n++] = r;
      std::array<uint16_t, 16>& out = completions[f];
      for (uint32_t pick = 0; pick < 16; ++pick) {
        uint32_t g = 0;
        for (int t = 0; t < 4; ++t) g |= 1u << (res[t] + ((pick >> t & 1u) ? 8 : 0));
        out[pick] = static_cast<uint16_t>(g);
      }
      std::sort(out.begin(), out.end(), [&](uint16_t x, uint16_t y) { return rank[x] < rank[y]; });
    }
  }
};
const Quads& quads() {
  static const Quads q;
  return q;
}

/// Per-thread tables indexed by a 16-bit position set. The split memo is valid when its stamp
/// equals `gen` (no clearing between searches); the compatible groups of the current search are
/// one bit each (8 KiB, cache-resident for the search's many lookups), cleared after it.
struct Scratch {
  std::vector<uint64_t> compat = std::vector<uint64_t>((1u << kUnit) / 64, 0);
  std::vector<uint32_t> split_stamp = std::vector<uint32_t>(1u << kUnit, 0);
  std::vector<uint16_t> split_first = std::vector<uint16_t>(1u << kUnit, 0);  ///< 0 = no split
  uint32_t gen = 0;
  uint32_t next() {
    if (++gen == 0) {  // wrapped: forget everything once
      std::fill(split_stamp.begin(), split_stamp.end(), 0);
      gen = 1;
    }
    return gen;
  }
  bool compatible(uint32_t g) const { return compat[g >> 6] >> (g & 63) & 1u; }
  void set_compatible(uint32_t g) { compat[g >> 6] |= uint64_t{1} << (g & 63); }
  void clear_compatible(uint32_t g) { compat[g >> 6] = 0; }
};

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
        if (s.compatible(g) && s.compatible(c ^ g))
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

SptcUnitGrouping sptc_group_unit(const std::array<uint64_t, 16>& masks, uint32_t real_positions,
                                 bool prefer_conflict_free, int64_t max_pair_checks) {
  thread_local Scratch s;
  const Quads& q = quads();
  s.next();

  // Compatible 4-groups, and how often each position appears in one.
  thread_local std::vector<uint16_t> with0, without0;
  with0.clear();
  without0.clear();
  with0.reserve(455);
  without0.reserve(1365);
  std::array<int, kUnit> appearances{};
  // In lexicographic order (a < b < c < d), as the quads are listed. A group is compatible when
  // no row has 3 of its 4 columns, i.e. none of (a & b & (c | d)) | (c & d & (a | b)).
  // A row of a and b that is also in c rules out every d.
  for (int a = 0; a < kUnit; ++a)
    for (int b = a + 1; b < kUnit; ++b) {
      const uint64_t ab_and = masks[a] & masks[b], ab_or = masks[a] | masks[b];
      for (int c = b + 1; c < kUnit; ++c) {
        const uint64_t mc = masks[c];
        if (ab_and & mc) continue;
        for (int d = c + 1; d < kUnit; ++d) {
          const uint64_t md = masks[d];
          if ((ab_and & md) | (mc & md & ab_or)) continue;
          const uint16_t g = static_cast<uint16_t>((1u << a) | (1u << b) | (1u << c) | (1u << d));
          s.set_compatible(g);
          (a == 0 ? with0 : without0).push_back(g);
          ++appearances[a];
          ++appearances[b];
          ++appearances[c];
          ++appearances[d];
        }
      }
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

  // Whether any grouping exists at all: the searches below only find groupings, so without one
  // they fail whatever their budget. Asked before the all-pairs pass (the conflict-free pass is
  // short and finds most groupings first). Every grouping has exactly one group holding a given
  // position, so the test pivots on the position in the fewest compatible groups, then on the
  // rarest position left, and asks split_half for the last 8 (exact, and short where some
  // position has few partners, as in the units that fail).
  auto any_grouping = [&]() {
    thread_local std::vector<uint16_t> by_position[kUnit];
    for (auto& list : by_position) list.clear();
    for (const std::vector<uint16_t>* groups : {&with0, &without0})
      for (uint16_t g : *groups)
        for (uint32_t m = g; m; m &= m - 1) by_position[lowest_bit(m)].push_back(g);
    int rank[kUnit];
    for (int i = 0; i < kUnit; ++i) rank[i] = i;
    std::stable_sort(rank, rank + kUnit,
                     [&](int x, int y) { return appearances[x] < appearances[y]; });
    for (uint16_t g1 : by_position[rank[0]]) {
      const uint32_t rest = kAll & ~static_cast<uint32_t>(g1);
      int pivot = 0;
      while (!(rest >> rank[pivot] & 1u)) ++pivot;
      for (uint16_t g2 : by_position[rank[pivot]])
        if (!(g2 & g1) && split_half(s, rest & ~static_cast<uint32_t>(g2))) return true;
    }
    return false;
  };

  SptcUnitGrouping r;
  const int passes = !feasible ? 0 : prefer_conflict_free ? 2 : 1;
  for (int pass = 0; pass < passes && !r.found; ++pass) {
    const bool only_free = prefer_conflict_free && pass == 0;
    if (!only_free && !any_grouping()) break;
    int64_t checks = 0;
    // The partners gj of gi are the groups of without0 disjoint from gi (conflict-free pass:
    // whose union with gi is a conflict-free half), in without0's (lexicographic) order. They
    // are enumerated directly instead of filtering all of without0: the 16 conflict-free
    // completions of gi sorted by their rank, or the 4-subsets of gi's complement in
    // lexicographic order (or without0 itself filtered, when it is short); compatible ones
    // (s.compatible) are exactly those of without0, as no partner holds position 0 (gi does).
    uint16_t partners[495];
    for (uint16_t gi : with0) {
      if (only_free && popcount64(residues(gi)) != popcount64(gi)) continue;
      int count = 0;
      if (only_free) {
        // One of {r, r + 8} for every residue r that gi does not cover.
        for (uint16_t g : q.completions[~residues(gi) & 0xFFu])
          if (s.compatible(g)) partners[count++] = g;
      } else if (without0.size() <= kScanBelow) {
        for (uint16_t g : without0)
          if (!(g & gi)) partners[count++] = g;
      } else {
        int c[kUnit], nc = 0;
        for (int pos = 0; pos < kUnit; ++pos)
          if (!(gi >> pos & 1u)) c[nc++] = pos;
        for (int a = 0; a < nc; ++a)
          for (int b = a + 1; b < nc; ++b)
            for (int d = b + 1; d < nc; ++d)
              for (int e = d + 1; e < nc; ++e) {
                const uint32_t g = (1u << c[a]) | (1u << c[b]) | (1u << c[d]) | (1u << c[e]);
                if (s.compatible(g)) partners[count++] = static_cast<uint16_t>(g);
              }
      }
      for (int x = 0; x < count; ++x) {
        const uint16_t gj = partners[x];
        const uint32_t half = gi | gj;
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
  for (uint16_t g : with0) s.clear_compatible(g);
  for (uint16_t g : without0) s.clear_compatible(g);
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

void sptc_metadata_pair(const uint32_t* tile_words, int row, int chunk, int* i0, int* i1) {
  const int g = row % 8, t = chunk / 4;
  const uint32_t word = tile_words[2 * g + t] >> (row >= 8 ? 16 : 0);
  const uint32_t nib = (word >> (4 * (chunk % 4))) & 0xFu;
  *i0 = static_cast<int>(nib & 3u);
  *i1 = static_cast<int>(nib >> 2);
}

}  // namespace spx::plan
