// The emulated L16-R16 SR-BCRS SDDMM kernel: 16I operands split into a signed high and an unsigned
// low byte, four int8 mma per step (sddmm_kernel.cuh). 16I is signed, so there is one variant.
#include "families/srbcrs/kernels/sddmm_kernel.cuh"

namespace spx::kernels::srbcrs::detail {

cudaError_t sddmm_launch_l16r16(bool a_signed, bool b_signed, const SddmmParams& p,
                                cudaStream_t stream) {
  if (!a_signed || !b_signed) return cudaErrorInvalidValue;
  return sddmm_launch_variant<16, 16, true, true>(p, stream);
}

cudaError_t sddmm_load_l16r16(bool a_signed, bool b_signed) {
  if (!a_signed || !b_signed) return cudaErrorInvalidValue;
  return sddmm_load_variant<16, 16, true, true>();
}

}  // namespace spx::kernels::srbcrs::detail
