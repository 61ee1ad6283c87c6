// The NM family's launch dispatcher (a decided configuration -> the kernels' SpmmArgs) and its
// small kernels: the split-K reduction (alpha and beta applied once, partial products summed in
// split order: deterministic), the value re-layout (the user's values[rows][kc] -> the plan's
// a_t[kc][rows_pad], a tiled transpose) and the row-major copy of a column-major B.
#include "device/elements.cuh"
#include "families/nm/kernels/launch.hpp"
#include "families/nm/kernels/tiles.hpp"

namespace spx::kernels::nm {
namespace {

constexpr int kThreads = 256;

unsigned grid_for(int64_t count) {
  const int64_t blocks = (count + kThreads - 1) / kThreads;
  return static_cast<unsigned>(blocks < 65535 * 8 ? blocks : 65535 * 8);
}

// C = epilogue(alpha * sum_z ws[z]) + beta * C: the plan's fused epilogue once, on the sum. ws[z] is laid out in C's order with ld n (row) or m (col),
// so element t of the grid-stride loop is element t of every partial.
__global__ void splitk_reduce_kernel(const float* ws, int split, int64_t m, int64_t n, DenseView C,
                                     Scalars s) {
  const int64_t total = m * n;
  const bool row_major = C.order == SPX_ORDER_ROW;
  const float alpha = alpha_float(s), beta = beta_float(s);
  float* out = static_cast<float*>(C.ptr);
  for (int64_t t = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; t < total;
       t += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    float sum = 0.0f;
    for (int z = 0; z < split; ++z) sum += ws[z * total + t];
    const int64_t r = row_major ? t / n : t % m;
    const int64_t c = row_major ? t % n : t / m;
    float* o = out + linear(C, r, c);
    float v = apply_epilogue(s.epilogue, r, alpha * sum);
    if (beta != 0.0f) v = fmaf(beta, *o, v);
    *o = v;
  }
}

// 32 x 32 tiles through shared memory: reads along kc, writes along rows (both coalesced).
__global__ void relayout_kernel(RelayoutArgs a) {
  __shared__ float tile[32][33];
  const int64_t u0 = static_cast<int64_t>(blockIdx.x) * 32;
  for (int64_t r0 = static_cast<int64_t>(blockIdx.y) * 32; r0 < a.rows;
       r0 += static_cast<int64_t>(gridDim.y) * 32) {
    for (int j = threadIdx.y; j < 32; j += blockDim.y) {
      const int64_t r = r0 + j, u = u0 + threadIdx.x;
      if (r < a.rows && u < a.kc) tile[j][threadIdx.x] = a.values[r * a.kc + u];
    }
    __syncthreads();
    for (int j = threadIdx.y; j < 32; j += blockDim.y) {
      const int64_t u = u0 + j, r = r0 + threadIdx.x;
      if (u < a.kc && r < a.rows) a.a_t[u * a.rows_pad + r] = tile[threadIdx.x][j];
    }
    __syncthreads();
  }
}

// Column-major B -> row-major copy through 64 x 64 tiles of shared memory ([column][k], padded
// to 65: at most two-way bank conflicts). Reads are 16-byte loads along k (contiguous in the
// column-major source), writes 16-byte stores along n (contiguous in the copy), four of each per
// thread in flight: the copy is bound by DRAM, and the 32 x 32 tiles of 4-byte accesses it
// replaces reached about 1.1 TB/s on H100 (0.11-0.12 ms for 4096 x 4096, 6-20 % of the SpMM).
constexpr int kStageTile = 64;
__global__ void __launch_bounds__(256) stage_b_kernel(StageBArgs a) {
  __shared__ float tile[kStageTile][kStageTile + 1];
  const float* B = static_cast<const float*>(a.B.ptr);
  const int64_t ld = a.B.ld, ld_out = a.ld_out;
  const bool vec = ld % 4 == 0 && reinterpret_cast<uintptr_t>(B) % 16 == 0;
  const int tid = threadIdx.x, lo = 4 * (tid & 15), hi = tid >> 4;
  const int64_t c0 = static_cast<int64_t>(blockIdx.x) * kStageTile;
  for (int64_t r0 = static_cast<int64_t>(blockIdx.y) * kStageTile; r0 < a.k;
       r0 += static_cast<int64_t>(gridDim.y) * kStageTile) {
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int col = hi + 16 * j;
      const int64_t c = c0 + col, r = r0 + lo;
      float v[4] = {0.0f, 0.0f, 0.0f, 0.0f};
      if (c < a.n) {
        const float* src = B + r + c * ld;
        if (vec && r + 4 <= a.k) {
          const float4 x = __ldg(reinterpret_cast<const float4*>(src));
          v[0] = x.x, v[1] = x.y, v[2] = x.z, v[3] = x.w;
        } else {
#pragma unroll
          for (int e = 0; e < 4; ++e)
            if (r + e < a.k) v[e] = __ldg(src + e);
        }
      }
#pragma unroll
      for (int e = 0; e < 4; ++e) tile[col][lo + e] = v[e];
    }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const int row = hi + 16 * j;
      const int64_t r = r0 + row, c = c0 + lo;
      // Columns n .. ld_out - 1 are padding (written as zeros, never read by the SpMM).
      if (r < a.k && c < ld_out) {
        const float4 x = make_float4(tile[lo][row], tile[lo + 1][row], tile[lo + 2][row],
                                     tile[lo + 3][row]);
        *reinterpret_cast<float4*>(a.out + r * ld_out + c) = x;
      }
    }
    __syncthreads();
  }
}

}  // namespace

cudaError_t stage_b_row_major(const StageBArgs& a, cudaStream_t stream) {
  if (a.k == 0 || a.n == 0) return cudaSuccess;
  const int64_t row_tiles = (a.k + kStageTile - 1) / kStageTile;
  const dim3 grid(static_cast<unsigned>((a.n + kStageTile - 1) / kStageTile),
                  static_cast<unsigned>(row_tiles < 65535 ? row_tiles : 65535));
  stage_b_kernel<<<grid, 256, 0, stream>>>(a);
  return cudaGetLastError();
}

namespace {

/// Dynamic shared memory of a cp.async launch (its `depth` stage buffers).
int64_t cp_async_smem_bytes(TileId tile, const SpmmArgs& a) {
  const TileShape& t = tile_shape(tile);
  return kernel_smem_bytes(t, a.w_s, a.rows_s, groups_per_block(t, a.l),
                           a.packing ? a.pack_capacity : 0, a.depth);
}

cudaError_t launch_cp_async(TileId tile, const SpmmArgs& a, cudaStream_t stream) {
  const int64_t smem = cp_async_smem_bytes(tile, a);
  switch (tile) {
    case TileId::Small: return detail::launch_tile<SmallTile>(a, smem, stream);
    case TileId::Medium: return detail::launch_tile<MediumTile>(a, smem, stream);
    case TileId::Large: return detail::launch_tile<LargeTile>(a, smem, stream);
    case TileId::Huge: return detail::launch_tile<HugeTile>(a, smem, stream);
    case TileId::Wide: return detail::launch_tile<WideTile>(a, smem, stream);
  }
  return cudaErrorInvalidValue;
}

/// The kernels' argument struct from the plan's common part and the call's operands (the
/// mainloop's own fields are set by the caller).
SpmmArgs device_args(const SpmmCommon& c, const SpmmOperands& ops) {
  SpmmArgs a;
  a.m = c.m;
  a.n = c.n;
  a.k = c.k;
  a.l = c.l;
  a.w_s = c.w_s;
  a.k_s = c.k_s;
  a.rows_s = c.rows_s;
  a.stages = c.stages;
  a.depth = c.depth;
  a.a_t = c.a_t;
  a.rows_pad = c.rows_pad;
  a.kc_pad = c.kc_pad;
  a.ridx = c.ridx;
  a.packing = c.packing;
  a.col_info = c.col_info;
  a.col_count = c.col_count;
  a.pack_capacity = c.pack_capacity;
  a.B = ops.B;
  a.C = ops.C;
  a.scalars = ops.scalars;
  return a;
}

/// The row-major copy of a column-major B, made before the kernel.
cudaError_t stage_b_before(const SpmmArgs& a, const DenseView& col_b, float* out,
                           cudaStream_t stream) {
  StageBArgs sb;
  sb.k = a.k;
  sb.n = a.n;
  sb.ld_out = staged_b_ld(a.n);
  sb.B = col_b;
  sb.out = out;
  return stage_b_row_major(sb, stream);
}

}  // namespace

cudaError_t spmm(const SpmmCommon& common, const SpmmConfig& config, const SpmmOperands& ops,
                 cudaStream_t stream) {
  if (common.m == 0 || common.n == 0) return cudaSuccess;
  SpmmArgs a = device_args(common, ops);
  unsigned char* ws = static_cast<unsigned char*>(ops.workspace);
  const WorkspaceLayout& w = workspace_of(config);
  const bool staged = staged_b(config);
  if (staged) {
    // The kernels read the row-major copy in the workspace (made before them, or streamed).
    if (ops.B.order != SPX_ORDER_COL || w.staged_b < 0 || ws == nullptr)
      return cudaErrorInvalidValue;
    a.B = DenseView{ws + w.staged_b, staged_b_ld(a.n), SPX_R_32F, SPX_ORDER_ROW};
  }
  a.workspace = reinterpret_cast<float*>(ws + w.split);
  cudaError_t err = cudaSuccess;
  if (const auto* l = std::get_if<CpAsyncLoop>(&config.loop)) {
    a.split = l->split;
    a.stages_per_split = l->stages_per_split;
    if (staged) err = stage_b_before(a, ops.B, reinterpret_cast<float*>(ws + w.staged_b), stream);
    if (err == cudaSuccess) err = launch_cp_async(config.tile, a, stream);
  } else if (const auto* l = std::get_if<BulkLoop>(&config.loop)) {
    a.split = l->split;
    a.stages_per_split = l->stages_per_split;
    a.bulk = true;
    a.box_rows = l->box_rows;
    a.producer_last = l->producer_last;
    if (staged) err = stage_b_before(a, ops.B, reinterpret_cast<float*>(ws + w.staged_b), stream);
    if (err == cudaSuccess) err = spmm_bulk(config.tile, a, common.tensor_map_encoder, 0, stream);
  } else if (const auto* l = std::get_if<StreamedBLoop>(&config.loop)) {
    if (w.flags < 0) return cudaErrorInvalidValue;
    a.split = 1;
    a.stages_per_split = a.stages;
    a.bulk = true;
    a.box_rows = l->box_rows;
    a.producer_last = l->producer_last;
    a.streamed.src = static_cast<const float*>(ops.B.ptr);
    a.streamed.ld_src = ops.B.ld;
    a.streamed.staged = reinterpret_cast<float*>(ws + w.staged_b);
    a.streamed.ld_staged = staged_b_ld(a.n);
    a.streamed.flags = reinterpret_cast<uint32_t*>(ws + w.flags);
    a.streamed.chunks = l->chunks;
    a.streamed.panels = l->panels;
    a.streamed.panel_group = l->panel_group;
    a.streamed.copy_blocks = l->copy_blocks;
    err = spmm_bulk(config.tile, a, common.tensor_map_encoder, l->copy_grid, stream);
  } else if (const auto* l = std::get_if<StreamKLoop>(&config.loop)) {
    if (w.partials < 0 || w.counters < 0) return cudaErrorInvalidValue;
    a.split = 1;
    a.stages_per_split = a.stages;
    a.bulk = true;
    a.box_rows = l->box_rows;
    a.producer_last = true;
    a.stream_k.schedule = l->schedule;
    a.stream_k.m_tiles = l->m_tiles;
    a.stream_k.partials = reinterpret_cast<float*>(ws + w.partials);
    a.stream_k.counters = reinterpret_cast<uint32_t*>(ws + w.counters);
    if (staged) err = stage_b_before(a, ops.B, reinterpret_cast<float*>(ws + w.staged_b), stream);
    if (err == cudaSuccess) err = spmm_bulk(config.tile, a, common.tensor_map_encoder, 0, stream);
  }
  if (err != cudaSuccess || a.split <= 1) return err;
  splitk_reduce_kernel<<<grid_for(a.m * a.n), kThreads, 0, stream>>>(a.workspace, a.split, a.m, a.n,
                                                                     a.C, a.scalars);
  return cudaGetLastError();
}

cudaError_t spmm_load(size_t smem_optin) {
  cudaError_t err = detail::load_tile<SmallTile>(smem_optin);
  if (err == cudaSuccess) err = detail::load_tile<MediumTile>(smem_optin);
  if (err == cudaSuccess) err = detail::load_tile<LargeTile>(smem_optin);
  if (err == cudaSuccess) err = detail::load_tile<HugeTile>(smem_optin);
  if (err == cudaSuccess) err = detail::load_tile<WideTile>(smem_optin);
  if (err == cudaSuccess) err = spmm_bulk_load(smem_optin);
  cudaFuncAttributes attr;
  if (err == cudaSuccess) err = cudaFuncGetAttributes(&attr, splitk_reduce_kernel);
  return err;
}

cudaError_t relayout_values(const RelayoutArgs& a, cudaStream_t stream) {
  if (a.rows == 0 || a.kc == 0) return cudaSuccess;
  const int64_t row_tiles = (a.rows + 31) / 32;
  const dim3 grid(static_cast<unsigned>((a.kc + 31) / 32),
                  static_cast<unsigned>(row_tiles < 65535 ? row_tiles : 65535));
  relayout_kernel<<<grid, dim3(32, 8), 0, stream>>>(a);
  return cudaGetLastError();
}

cudaError_t relayout_load() {
  cudaFuncAttributes attr;
  cudaError_t err = cudaFuncGetAttributes(&attr, relayout_kernel);
  if (err == cudaSuccess) err = cudaFuncGetAttributes(&attr, stage_b_kernel);
  return err;
}

}  // namespace spx::kernels::nm
