// SR-BCRS SDDMM kernels with 4-bit A and 4-bit B (the four signedness combinations). One compile
// unit per bit pair keeps each nvcc job small on a 2-core build machine.
#include "families/srbcrs/kernels/sddmm_kernel.cuh"

namespace spx::kernels::srbcrs::detail {

SPX_SRBCRS_SDDMM_DEFINE_BITS(4, 4)

}  // namespace spx::kernels::srbcrs::detail
