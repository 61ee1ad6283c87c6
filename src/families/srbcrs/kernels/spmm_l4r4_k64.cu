// SR-BCRS SpMM kernels with 4-bit A and B on the native int4 path (m16n8k64, stride 64; the four
// signedness combinations).
// One compile unit per kernel shape keeps each nvcc job small on a 2-core build machine.
#include "families/srbcrs/kernels/spmm_kernel.cuh"

namespace spx::kernels::srbcrs::detail {

SPX_SRBCRS_DEFINE(l4r4_k64, 4, 4, true, false, false)

}  // namespace spx::kernels::srbcrs::detail
