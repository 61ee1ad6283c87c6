// spmm(): the one entry the plan calls; routes a configuration to its launcher (and, where the
// call's CallLaunch says so, transposes a column-major B into the workspace first).
#include "families/ell/kernels/device.cuh"

namespace spx::kernels::ell {

namespace detail {

int occupancy(const void* kernel, int threads, size_t smem) {
  int blocks = 0;
  if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, kernel, threads, smem) != cudaSuccess)
    return 0;
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

int resident_blocks(const KernelConfig& cfg, bool half, bool index16, int64_t k, bool bulk) {
  if (const auto* c = std::get_if<SlotStagedConfig>(&cfg))
    return slot_staged_occupancy(*c, half, index16, k, bulk);
  if (const auto* c = std::get_if<RowStagedConfig>(&cfg))
    return row_staged_occupancy(*c, half, index16, k);
  if (const auto* c = std::get_if<RowMmaConfig>(&cfg))
    return half ? row_mma_occupancy(*c, index16, k) : 0;
  return 0;
}

cudaError_t spmm(const SpmmArgs& a, const EllConfig& launch, cudaStream_t stream) {
  if (a.m == 0 || a.n == 0) return cudaSuccess;
  const KernelConfig& cfg = launch.kernel;
  const CallLaunch& l = launch.call;
  if (std::holds_alternative<SlotSplitConfig>(cfg)) return launch_slot_split(a, launch, stream);
  if (std::holds_alternative<SlotStagedConfig>(cfg)) return launch_slot_staged(a, launch, stream);
  if (l.transpose) {
    if (a.B.order != SPX_ORDER_COL || a.workspace == nullptr || l.b_rows != a.workspace)
      return cudaErrorInvalidValue;
    const cudaError_t err = launch_transpose(a.B, a.k, a.n, a.half, a.workspace, l.ldb, stream);
    if (err != cudaSuccess) return err;
  }
  if (std::holds_alternative<RowMmaConfig>(cfg))
    return launch_row_mma(a, launch, l.b_rows, l.ldb, stream);
  if (std::holds_alternative<DenseMmaConfig>(cfg))
    return launch_dense_mma(a, launch, l.b_rows, l.ldb, stream);
  if (std::holds_alternative<RowStagedConfig>(cfg))
    return launch_row_staged(a, launch, l.b_rows, l.ldb, stream);
  return launch_row_tile(a, launch, l.b_rows, l.ldb, stream);
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
