// The host side of an NM SpMM launch, split the way the kernels use it: what every mainloop reads
// (SpmmCommon, the plan's A side and stage geometry), one decided configuration per mainloop
// (SpmmConfig: the tile and a std::variant of the four mainloops' own parameters), and the
// operands of one call (SpmmOperands). Plain C++ (no CUDA): the plan (plan/choice.hpp) decides
// and stores these; the launcher (aux.cu: spmm) converts them into the one device argument
// struct SpmmArgs (launch.hpp), whose layout the kernels' code depends on and which stays as it
// is.
#pragma once

#include <cstdint>
#include <variant>

#include "device/args.hpp"
#include "families/nm/kernels/config.hpp"
#include "families/nm/kernels/stream_k.hpp"

namespace spx::kernels::nm {

/// Rows of a streamed copy's chunk (launch.hpp: StreamedB; stream_b.cu).
constexpr int kStreamChunkRows = 32;
/// Flag bytes of a streamed copy (one uint32 per chunk and panel), rounded up to 256.
inline int64_t streamed_flag_bytes(int64_t k, int64_t n, int64_t bn) {
  const int64_t flags = ((k + kStreamChunkRows - 1) / kStreamChunkRows) * ((n + bn - 1) / bn);
  return (flags * 4 + 255) / 256 * 256;
}
/// Workspace of a stream-K launch of a tile: partial products, then the counters (256-byte
/// aligned each).
inline int64_t stream_k_partial_bytes(const StreamKSchedule& s, const TileShape& t) {
  return s.on() ? (s.slots() * t.bm * t.bn * 4 + 255) / 256 * 256 : 0;
}
inline int64_t stream_k_counter_bytes(const StreamKSchedule& s, const TileShape& t) {
  return s.on() ? (s.region_tiles() * (t.threads / 32) * 4 + 255) / 256 * 256 : 0;
}
/// Leading dimension of the staged copy: n rounded up to 4 floats (16-byte rows).
inline int64_t staged_b_ld(int64_t n) {
  return (n + 3) / 4 * 4;
}
/// Workspace bytes of the staged copy, rounded up to 256 (what follows it stays aligned).
inline int64_t staged_b_bytes(int64_t k, int64_t n) {
  return (k * staged_b_ld(n) * 4 + 255) / 256 * 256;
}

/// Byte offsets into the caller's workspace of one launch (-1: the launch has no such part),
/// each part 256-byte aligned: the row-major copy of a column-major B, the streamed copy's
/// flags, stream-K's partial products and tile counters, split-K's partial products.
struct WorkspaceLayout {
  int64_t staged_b = -1, flags = -1, partials = -1, counters = -1, split = -1;
  int64_t total = 0;  ///< bytes the launch needs

  bool operator==(const WorkspaceLayout& o) const {
    return staged_b == o.staged_b && flags == o.flags && partials == o.partials &&
           counters == o.counters && split == o.split && total == o.total;
  }
};

/// The cp.async kernel (spmm_kernel.cuh): sm_80+, packed plans, and any B the tensor copies
/// cannot read. `staged_b`: a column-major B is copied row-major into the workspace first.
struct CpAsyncLoop {
  int split = 1, stages_per_split = 0;  ///< split-K: blockIdx.z takes stages_per_split stages
  bool staged_b = false;
  WorkspaceLayout ws{};
  bool operator==(const CpAsyncLoop& o) const {
    return split == o.split && stages_per_split == o.stages_per_split && staged_b == o.staged_b &&
           ws == o.ws;
  }
};

/// The sm_90 tensor-copy kernel, one block per tile (spmm_bulk_kernel<T, false>).
struct BulkLoop {
  int split = 1, stages_per_split = 0;
  bool staged_b = false;      ///< reads the row-major copy of a column-major B, made before it
  int box_rows = 0;           ///< B rows per tensor copy (a divisor of k_s, at most 256)
  bool producer_last = true;  ///< the warp finishing a stage last refills it (else warp 0)
  WorkspaceLayout ws{};
  bool operator==(const BulkLoop& o) const {
    return split == o.split && stages_per_split == o.stages_per_split && staged_b == o.staged_b &&
           box_rows == o.box_rows && producer_last == o.producer_last && ws == o.ws;
  }
};

/// The tensor-copy kernel reading a column-major B's row-major copy while the copy kernel
/// (stream_b.cu) writes it (spmm_bulk_kernel<T, true>; launch.hpp: StreamedB). No split-K.
struct StreamedBLoop {
  int box_rows = 0;
  bool producer_last = true;
  int chunks = 0, panels = 0, panel_group = 1;  ///< StreamedB's geometry
  int copy_blocks = 0;                          ///< StreamedB::copy_blocks: one per SM
  int copy_grid = 0;  ///< blocks of the copy kernel: min(chunks x panels, copy_blocks)
  WorkspaceLayout ws{};
  bool operator==(const StreamedBLoop& o) const {
    return box_rows == o.box_rows && producer_last == o.producer_last && chunks == o.chunks &&
           panels == o.panels && panel_group == o.panel_group && copy_blocks == o.copy_blocks &&
           copy_grid == o.copy_grid && ws == o.ws;
  }
};

/// Stream-K on the tensor-copy kernel (spmm_bulk_kernel<T, false, true>; stream_k.hpp), always
/// with the last-finisher producer. No split-K.
struct StreamKLoop {
  StreamKSchedule schedule{};
  int64_t m_tiles = 0;  ///< tiles along m (the launch's grid.x without stream-K)
  bool staged_b = false;
  int box_rows = 0;
  WorkspaceLayout ws{};
  bool operator==(const StreamKLoop& o) const {
    return schedule.tiles == o.schedule.tiles && schedule.stages == o.schedule.stages &&
           schedule.dp_tiles == o.schedule.dp_tiles && schedule.blocks == o.schedule.blocks &&
           m_tiles == o.m_tiles && staged_b == o.staged_b && box_rows == o.box_rows && ws == o.ws;
  }
};

using Mainloop = std::variant<CpAsyncLoop, BulkLoop, StreamedBLoop, StreamKLoop>;

/// One decided launch: a tile and a mainloop with its parameters.
struct SpmmConfig {
  TileId tile = TileId::Huge;
  Mainloop loop{};
  bool operator==(const SpmmConfig& o) const { return tile == o.tile && loop == o.loop; }
};

inline bool tensor_copies(const SpmmConfig& c) {
  return !std::holds_alternative<CpAsyncLoop>(c.loop);
}
inline int split_of(const SpmmConfig& c) {
  if (const auto* l = std::get_if<CpAsyncLoop>(&c.loop)) return l->split;
  if (const auto* l = std::get_if<BulkLoop>(&c.loop)) return l->split;
  return 1;
}
/// Whether the launch reads a row-major copy of a column-major B (made before it or streamed).
inline bool staged_b(const SpmmConfig& c) {
  if (const auto* l = std::get_if<CpAsyncLoop>(&c.loop)) return l->staged_b;
  if (const auto* l = std::get_if<BulkLoop>(&c.loop)) return l->staged_b;
  if (const auto* l = std::get_if<StreamKLoop>(&c.loop)) return l->staged_b;
  return true;  // StreamedBLoop
}
inline const WorkspaceLayout& workspace_of(const SpmmConfig& c) {
  return std::visit([](const auto& l) -> const WorkspaceLayout& { return l.ws; }, c.loop);
}

/// What every mainloop reads: the shape, the stage geometry and the plan's A side (values
/// re-laid out as a_t[kc_pad][rows_pad], the stage-relative rows ridx, and for packed plans the
/// col_info lists), and the driver's tensor-map encoder the plan found at analyze (the
/// tensor-copy launches encode their maps with it; nullptr: none).
struct SpmmCommon {
  int64_t m = 0, n = 0, k = 0, l = 0;
  int w_s = 0, k_s = 0, rows_s = 0, stages = 0;
  int depth = 2;
  const float* a_t = nullptr;
  int64_t rows_pad = 0, kc_pad = 0;
  const uint16_t* ridx = nullptr;
  bool packing = false;
  const uint16_t* col_info = nullptr;
  const int32_t* col_count = nullptr;
  int pack_capacity = 0;
  void* tensor_map_encoder = nullptr;
};

/// One call's operands: B and C as the user passed them, the scalars, the workspace.
struct SpmmOperands {
  DenseView B{}, C{};
  Scalars scalars{};
  void* workspace = nullptr;
};

}  // namespace spx::kernels::nm
