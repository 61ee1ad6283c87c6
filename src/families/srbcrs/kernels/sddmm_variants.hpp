// The SDDMM kernel's parameters and its per-(A bits, B bits) entry points, shared by the launcher
// (sddmm_launch.cu) and the instantiation units (sddmm_l<A>r<B>.cu). Internal to
// src/kernels/srbcrs; plain data, no device code.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "device/args.hpp"

namespace spx::kernels::srbcrs::detail {

/// What the kernel reads: A and B already k-contiguous with 16-byte aligned rows / columns (the
/// user's arrays or the workspace copies).
struct SddmmParams {
  int64_t k = 0;
  int vec_len = 1;
  int64_t tasks = 0;
  const int32_t* task_row = nullptr;
  const int32_t* col = nullptr;
  const int32_t* vec_map = nullptr;
  bool srbcrs_output = false;
  const uint8_t* a = nullptr;  ///< row r of A at a + r * a_pitch (k values of A's bits)
  int64_t a_pitch = 0;
  const uint8_t* b = nullptr;  ///< column j of B at b + j * b_pitch
  int64_t b_pitch = 0;
  void* c_values = nullptr;
  spxDataType_t c_type = SPX_R_32I;
  Scalars scalars{};
};

// One pair per bit pair; a_signed / b_signed pick among its four kernels (16-bit: signed only).
cudaError_t sddmm_launch_l8r8(bool a_signed, bool b_signed, const SddmmParams& p, cudaStream_t s);
cudaError_t sddmm_launch_l8r4(bool a_signed, bool b_signed, const SddmmParams& p, cudaStream_t s);
cudaError_t sddmm_launch_l4r8(bool a_signed, bool b_signed, const SddmmParams& p, cudaStream_t s);
cudaError_t sddmm_launch_l4r4(bool a_signed, bool b_signed, const SddmmParams& p, cudaStream_t s);
cudaError_t sddmm_launch_l16r16(bool a_signed, bool b_signed, const SddmmParams& p,
                                cudaStream_t s);
cudaError_t sddmm_load_l8r8(bool a_signed, bool b_signed);
cudaError_t sddmm_load_l8r4(bool a_signed, bool b_signed);
cudaError_t sddmm_load_l4r8(bool a_signed, bool b_signed);
cudaError_t sddmm_load_l4r4(bool a_signed, bool b_signed);
cudaError_t sddmm_load_l16r16(bool a_signed, bool b_signed);

/// Copies a dense operand into `dst` k-contiguous: "row" o (o < outer) holds the k values
/// src(o, 0..k-1) (transposed = false) or src(0..k-1, o) (transposed = true) at dst + o * pitch,
/// elements of `bits` (4, 8 or 16; 4-bit packed low nibble first, an odd k's last high nibble 0).
cudaError_t copy_kmajor(const DenseView& src, bool transposed, int64_t outer, int64_t k, int bits,
                        uint8_t* dst, int64_t pitch, cudaStream_t stream);
cudaError_t copy_kmajor_load();

}  // namespace spx::kernels::srbcrs::detail
