// spmm(): the one entry the plan calls; routes a configuration to its kernel (and, for RowTile /
// RowStaged over a column-major B, the transpose into the workspace first).
#include <mutex>
#include <vector>

#include "families/ell/kernels/device.cuh"

namespace spx::kernels::ell {

namespace detail {

int resident_blocks(const void* kernel, int threads, size_t smem) {
  struct Entry {
    const void* kernel;
    int threads;
    size_t smem;
    int blocks;
  };
  static std::mutex mutex;
  static std::vector<Entry> cache;
  {
    std::lock_guard<std::mutex> lock(mutex);
    for (const Entry& e : cache)
      if (e.kernel == kernel && e.threads == threads && e.smem == smem) return e.blocks;
  }
  int blocks = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, smem) != cudaSuccess)
    return 0;
  std::lock_guard<std::mutex> lock(mutex);
  cache.push_back({kernel, threads, smem, blocks});
  return blocks;
}

cudaError_t load_kernel(const void* kernel, size_t smem_optin) {
  cudaFuncAttributes attr;
  cudaError_t err = cudaFuncGetAttributes(&attr, kernel);
  if (err == cudaSuccess && smem_optin > 0)
    err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                               static_cast<int>(smem_optin));
  return err;
}

}  // namespace detail

namespace {

/// Row stride of B^T in the workspace: n rounded up so every row starts 16 B aligned.
int64_t bt_ld(int64_t n) { return (n + 7) / 8 * 8; }

}  // namespace

size_t workspace_bytes(const EllConfig& cfg, int64_t k, int64_t n, bool half) {
  if (cfg.kind == KernelKind::SlotSplit || !cfg.transpose_b) return 0;
  return static_cast<size_t>(k) * static_cast<size_t>(bt_ld(n)) * (half ? 2 : 4);
}

cudaError_t spmm(const SpmmArgs& a, const EllConfig& cfg, cudaStream_t stream) {
  if (a.m == 0 || a.n == 0) return cudaSuccess;
  if (cfg.kind == KernelKind::SlotSplit) return launch_slot_split(a, cfg, stream);
  auto rows = [&](const void* b_rows, int64_t ldb) {
    if (cfg.kind == KernelKind::RowMma) return launch_row_mma(a, cfg, b_rows, ldb, stream);
    if (cfg.kind == KernelKind::DenseMma) return launch_dense_mma(a, cfg, b_rows, ldb, stream);
    return cfg.kind == KernelKind::RowStaged ? launch_row_staged(a, cfg, b_rows, ldb, stream)
                                             : launch_row_tile(a, cfg, b_rows, ldb, stream);
  };
  if (!cfg.transpose_b) return rows(a.B.ptr, a.B.ld);
  if (a.B.order != SPX_ORDER_COL) return cudaErrorInvalidValue;
  if (a.k == 0) return rows(nullptr, bt_ld(a.n));  // no slots: no B
  if (a.workspace == nullptr) return cudaErrorInvalidValue;
  void* bt = a.workspace;
  const cudaError_t err = launch_transpose(a.B, a.k, a.n, a.half, bt, bt_ld(a.n), stream);
  if (err != cudaSuccess) return err;
  return rows(bt, bt_ld(a.n));
}

cudaError_t spmm_load(bool half, bool index16, size_t smem_optin) {
  cudaError_t err = load_slot_split(half, index16, smem_optin);
  if (err == cudaSuccess) err = load_row_tile(half, index16);
  if (err == cudaSuccess) err = load_row_staged(half, index16, smem_optin);
  if (err == cudaSuccess) err = load_row_mma(half, index16, smem_optin);
  if (err == cudaSuccess) err = load_dense_mma(half, index16, smem_optin);
  if (err == cudaSuccess) err = load_transpose(half);
  return err;
}

}  // namespace spx::kernels::ell
