// spmm(): the one entry the plan calls; routes a configuration to its kernel (and, for RowTile
// over a column-major B, the transpose into the workspace first).
#include "kernels/ell/device.cuh"

namespace spx::kernels::ell {
namespace {

/// Row stride of B^T in the workspace: n rounded up so every row starts 16 B aligned.
int64_t bt_ld(int64_t n) { return (n + 7) / 8 * 8; }

}  // namespace

size_t workspace_bytes(const EllConfig& cfg, int64_t k, int64_t n, bool half) {
  if (cfg.kind != KernelKind::RowTile || !cfg.transpose_b) return 0;
  return static_cast<size_t>(k) * static_cast<size_t>(bt_ld(n)) * (half ? 2 : 4);
}

cudaError_t spmm(const SpmmArgs& a, const EllConfig& cfg, cudaStream_t stream) {
  if (a.m == 0 || a.n == 0) return cudaSuccess;
  if (cfg.kind == KernelKind::SlotSplit) return launch_slot_split(a, cfg, stream);
  if (!cfg.transpose_b) return launch_row_tile(a, cfg, a.B.ptr, a.B.ld, stream);
  if (a.B.order != SPX_ORDER_COL) return cudaErrorInvalidValue;
  if (a.k == 0) return launch_row_tile(a, cfg, nullptr, bt_ld(a.n), stream);  // no slots: no B
  if (a.workspace == nullptr) return cudaErrorInvalidValue;
  const cudaError_t err = launch_transpose(a.B, a.k, a.n, a.half, a.workspace, bt_ld(a.n), stream);
  if (err != cudaSuccess) return err;
  return launch_row_tile(a, cfg, a.workspace, bt_ld(a.n), stream);
}

cudaError_t spmm_load(bool half, bool index16, size_t smem_optin) {
  cudaError_t err = load_slot_split(half, index16, smem_optin);
  if (err == cudaSuccess) err = load_row_tile(half, index16);
  if (err == cudaSuccess) err = load_transpose(half);
  return err;
}

}  // namespace spx::kernels::ell
