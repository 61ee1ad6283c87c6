// Shared pieces of the libFuzzer targets (tests/fuzz): decoding bounded problems from the fuzz
// bytes, the invariant check, and the rule that spx::Error is an expected outcome.
//
// Every target decodes a small problem (dimensions capped so one input runs in well under
// 10 ms), calls the host code, and checks what is cheap to check. An spx::Error with a status the
// function documents is a normal answer; any other exception, a failed check, a sanitizer report
// or a hang is a bug (libFuzzer stops and writes the input as a crash artifact).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <vector>

#include <fuzzer/FuzzedDataProvider.h>

#include "formats/dense_view.hpp"
#include "runtime/error.hpp"

namespace spx_fuzz {

/// Aborts (a libFuzzer crash) with the failed condition when an invariant does not hold.
#define FUZZ_CHECK(cond)                                                                    \
  do {                                                                                      \
    if (!(cond)) {                                                                          \
      std::fprintf(stderr, "FUZZ_CHECK failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
      std::abort();                                                                         \
    }                                                                                       \
  } while (0)

/// Runs `body`; an spx::Error whose status is one of `allowed` is an expected outcome (returns
/// false), any other status aborts. Other exceptions propagate (std::terminate: a crash).
template <class Body>
bool expect_ok_or_error(std::initializer_list<spxStatus_t> allowed, Body&& body) {
  try {
    body();
    return true;
  } catch (const spx::Error& e) {
    bool known = false;
    for (spxStatus_t s : allowed) known = known || e.status() == s;
    if (!known || e.what()[0] == '\0') {
      std::fprintf(stderr, "unexpected spx::Error status %d: '%s'\n", static_cast<int>(e.status()),
                   e.what());
      std::abort();
    }
    return false;
  }
}

/// The ordinary refusals of the structure and planning functions.
inline std::initializer_list<spxStatus_t> kArgErrors = {SPX_STATUS_INVALID_VALUE,
                                                         SPX_STATUS_NOT_SUPPORTED};

/// One of `choices`, picked by the fuzz bytes.
template <class T>
T pick(FuzzedDataProvider& in, std::initializer_list<T> choices) {
  const size_t i = in.ConsumeIntegralInRange<size_t>(0, choices.size() - 1);
  return *(choices.begin() + i);
}

/// A small integer in [lo, hi] most of the time; now and then (1 in 16) an arbitrary int32, so
/// the range checks see negative and huge values too.
inline int32_t index_value(FuzzedDataProvider& in, int32_t lo, int32_t hi) {
  if (in.ConsumeIntegralInRange<int>(0, 15) == 0) return in.ConsumeIntegral<int32_t>();
  return in.ConsumeIntegralInRange<int32_t>(lo, hi);
}

/// A float for a dense matrix: zero most of the time (so sparsity varies), else a value from a
/// table of ordinary and special values (NaN, infinities, -0, denormals) or arbitrary bits.
inline float dense_value(FuzzedDataProvider& in, int zero_weight) {
  const int k = in.ConsumeIntegralInRange<int>(0, zero_weight + 16);
  if (k < zero_weight) return 0.0f;
  switch (k - zero_weight) {
    case 0: return -0.0f;
    case 1: return std::numeric_limits<float>::quiet_NaN();
    case 2: return std::numeric_limits<float>::infinity();
    case 3: return -std::numeric_limits<float>::infinity();
    case 4: return std::numeric_limits<float>::denorm_min();
    case 5: return -std::numeric_limits<float>::denorm_min();
    case 6: return std::numeric_limits<float>::max();
    case 7: return 1e-30f;
    case 8: {
      const uint32_t bits = in.ConsumeIntegral<uint32_t>();
      float f;
      std::memcpy(&f, &bits, sizeof f);
      return f;
    }
    default: return static_cast<float>(in.ConsumeIntegralInRange<int>(-8, 8)) * 0.5f;
  }
}

/// Bitwise equality (NaN payloads and the sign of zero included).
inline bool same_bits(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0; }

/// A vector-sparse structure in caller-owned arrays, sized as the functions' contracts require
/// (block_col holds as many entries as block_row_ptr's last value promises, when that is >= 0).
struct Structure {
  int64_t rows = 0, cols = 0, vec_len = 1;
  std::vector<int32_t> ptr;  ///< block rows + 1
  std::vector<int32_t> col;  ///< ptr.back() entries (or none when ptr.back() < 0)
  int64_t block_rows() const { return vec_len > 0 ? rows / vec_len : 0; }
};

/// Decodes a BCRS(V) structure: V from `vec_lens`, up to max_brows block rows, up to max_cols
/// columns, at most max_entries vectors. Columns are sorted and distinct per block row when
/// `sorted` (else any order, duplicates allowed). With `corrupt`, one of several defects is
/// injected now and then (bad row pointers, columns out of range or out of order, rows not a
/// multiple of V), keeping the arrays as long as the contract says.
inline Structure decode_structure(FuzzedDataProvider& in, std::initializer_list<int64_t> vec_lens,
                                  int max_brows, int max_cols, int max_entries, bool sorted,
                                  bool corrupt) {
  Structure s;
  s.vec_len = pick(in, vec_lens);
  const int64_t brows = in.ConsumeIntegralInRange<int>(0, max_brows);
  s.rows = brows * s.vec_len;
  s.cols = in.ConsumeIntegralInRange<int>(0, max_cols);
  s.ptr.push_back(0);
  std::vector<char> used(static_cast<size_t>(s.cols), 0);
  for (int64_t b = 0; b < brows; ++b) {
    const int room = max_entries - static_cast<int>(s.col.size());
    int len = in.ConsumeIntegralInRange<int>(0, std::max(0, std::min<int>(room, 2 * max_cols)));
    if (sorted) len = std::min<int>(len, static_cast<int>(s.cols));
    if (s.cols == 0) len = 0;
    if (sorted) {
      // A random subset of the columns, in increasing order.
      std::fill(used.begin(), used.end(), 0);
      int chosen = 0;
      for (int tries = 0; chosen < len && tries < 4 * len + 8; ++tries) {
        const int c = in.ConsumeIntegralInRange<int>(0, static_cast<int>(s.cols) - 1);
        if (!used[static_cast<size_t>(c)]) used[static_cast<size_t>(c)] = 1, ++chosen;
      }
      for (int64_t c = 0; c < s.cols; ++c)
        if (used[static_cast<size_t>(c)]) s.col.push_back(static_cast<int32_t>(c));
    } else {
      for (int j = 0; j < len; ++j)
        s.col.push_back(in.ConsumeIntegralInRange<int32_t>(0, static_cast<int32_t>(s.cols) - 1));
    }
    s.ptr.push_back(static_cast<int32_t>(s.col.size()));
  }
  if (!corrupt || in.ConsumeIntegralInRange<int>(0, 3) != 0) return s;
  switch (in.ConsumeIntegralInRange<int>(0, 5)) {
    case 0:  // a row pointer (the last one stays, so block_col keeps its promised length)
      if (s.ptr.size() > 2) {
        const size_t i = in.ConsumeIntegralInRange<size_t>(0, s.ptr.size() - 2);
        s.ptr[i] = index_value(in, -2, static_cast<int32_t>(s.col.size()) + 2);
      }
      break;
    case 1: {  // the last row pointer: block_col follows it (or stays empty when negative)
      const int32_t last = index_value(in, -2, max_entries);
      s.ptr.back() = last;
      if (last >= 0 && last <= 4 * max_entries) s.col.resize(static_cast<size_t>(last), 0);
      else s.ptr.back() = -1;
      break;
    }
    case 2:  // a column out of range
      if (!s.col.empty()) {
        const size_t i = in.ConsumeIntegralInRange<size_t>(0, s.col.size() - 1);
        s.col[i] = index_value(in, -3, static_cast<int32_t>(s.cols) + 3);
      }
      break;
    case 3:  // two columns swapped (order / duplicates)
      if (s.col.size() >= 2) {
        const size_t i = in.ConsumeIntegralInRange<size_t>(0, s.col.size() - 1);
        const size_t j = in.ConsumeIntegralInRange<size_t>(0, s.col.size() - 1);
        std::swap(s.col[i], s.col[j]);
        if (i != j && s.col[i] == s.col[j] && s.cols > 1) s.col[j] = (s.col[j] + 1) % s.cols;
      }
      break;
    case 4:  // rows not a multiple of V (the pointer arrays keep rows / V block rows)
      if (s.vec_len > 1) s.rows += in.ConsumeIntegralInRange<int64_t>(1, s.vec_len - 1);
      break;
    default:  // a negative or shrunk shape
      s.cols = in.ConsumeBool() ? -1 : std::max<int64_t>(0, s.cols - 1);
      break;
  }
  return s;
}

/// A dense fp32 matrix and a view of it in either order, with a leading dimension that may
/// exceed the minimum (the extra elements hold garbage the functions must not read as entries).
struct Dense {
  int64_t rows = 0, cols = 0, ld = 0;
  spxOrder_t order = SPX_ORDER_ROW;
  std::vector<float> data;
  float at(int64_t r, int64_t c) const {
    return data[static_cast<size_t>(order == SPX_ORDER_ROW ? r * ld + c : r + c * ld)];
  }
};

/// A rows x cols matrix whose values, storage order and leading dimension come from the bytes.
/// Elements past the matrix in each row (column) of the storage hold NaN: a function that read
/// them would find a "nonzero" the checks then see.
inline Dense decode_dense(FuzzedDataProvider& in, int64_t rows, int64_t cols) {
  Dense d;
  d.rows = rows;
  d.cols = cols;
  d.order = in.ConsumeBool() ? SPX_ORDER_ROW : SPX_ORDER_COL;
  const int64_t inner = d.order == SPX_ORDER_ROW ? cols : rows;
  const int64_t outer = d.order == SPX_ORDER_ROW ? rows : cols;
  d.ld = std::max<int64_t>(1, inner + in.ConsumeIntegralInRange<int>(0, 3));
  d.data.assign(static_cast<size_t>(outer * d.ld), 0.0f);
  const int zero_weight = in.ConsumeIntegralInRange<int>(0, 48);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < d.ld; ++i)
      d.data[static_cast<size_t>(o * d.ld + i)] =
          i < inner ? dense_value(in, zero_weight) : std::numeric_limits<float>::quiet_NaN();
  return d;
}

/// The view the host API would build over `d` (after its own checks of rows, cols and ld).
inline spx::plan::DenseView view_of(const Dense& d) {
  spx::plan::DenseView v;
  v.rows = d.rows;
  v.cols = d.cols;
  v.ld = d.ld;
  v.data = d.data.data();
  v.order = d.order;
  return v;
}

}  // namespace spx_fuzz
