// SR-BCRS SpMM kernels with 16-bit A (two int8 slices) and 4-bit B (4I, 4U; unpacked to int8).
// One compile unit per kernel shape keeps each nvcc job small on a 2-core build machine.
#include "families/srbcrs/kernels/spmm_kernel.cuh"

namespace spx::kernels::srbcrs::detail {

SPX_SRBCRS_DEFINE(l16r4, 16, 4, false, true, false)

}  // namespace spx::kernels::srbcrs::detail
