// SR-BCRS SpMM kernels with 16-bit A (two int8 slices) and 8-bit B (8I, 8U).
// One compile unit per kernel shape keeps each nvcc job small on a 2-core build machine.
#include "families/srbcrs/kernels/spmm_kernel.cuh"

namespace spx::kernels::srbcrs::detail {

SPX_SRBCRS_DEFINE(l16r8, 16, 8, false, true, false)

}  // namespace spx::kernels::srbcrs::detail
