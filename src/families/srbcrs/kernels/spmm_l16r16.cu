// SR-BCRS SpMM kernels with 16-bit A and 16-bit B (two int8 slices each, four mma per pair of
// output tiles; 16I is signed, so one variant). One compile unit per kernel shape keeps each nvcc
// job small on a 2-core build machine.
#include "families/srbcrs/kernels/spmm_kernel.cuh"

namespace spx::kernels::srbcrs::detail {

SPX_SRBCRS_DEFINE(l16r16, 16, 16, false, true, true)

}  // namespace spx::kernels::srbcrs::detail
