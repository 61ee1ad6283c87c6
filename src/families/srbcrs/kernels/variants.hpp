// The SpMM kernel's parameters and its per-(A bits, B bits) entry points, shared by the
// launcher (spmm_launch.cu) and the four instantiation units (spmm_l<A>r<B>.cu). Internal to
// src/kernels/srbcrs; plain data, no device code.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "device/args.hpp"

namespace spx::kernels::srbcrs::detail {

/// What the kernel reads: B already in a row-major, 16-byte aligned form (the user's array or
/// the workspace copy).
struct KernelParams {
  int64_t m = 0, n = 0;
  int64_t n_tiles = 0;  ///< ceil(n / SpmmTile::warp_cols(B bits))
  int64_t vector_rows = 0;
  int vec_len = 1;
  const int32_t* row_ptr = nullptr;
  const int32_t* col = nullptr;
  const uint8_t* values = nullptr;
  const uint8_t* b = nullptr;  ///< row-major B, base and pitch 16-byte aligned
  int64_t b_pitch = 0;         ///< bytes between B rows
  int64_t b_row_bytes = 0;     ///< bytes of one row that hold columns 0..n-1
  DenseView C{};
  Scalars scalars{};
  int split = 1;  ///< warps per output tile (1, 2 or 4), each taking every split-th stride
  bool tile_major = false;  ///< tiles numbered vector-row fastest (see SpmmSchedule)
};

// One pair of functions per kernel shape; a_signed / b_signed pick among its signedness variants.
cudaError_t launch_l8r8(bool a_signed, bool b_signed, const KernelParams& p, cudaStream_t stream);
cudaError_t launch_l8r4(bool a_signed, bool b_signed, const KernelParams& p, cudaStream_t stream);
cudaError_t launch_l4r8(bool a_signed, bool b_signed, const KernelParams& p, cudaStream_t stream);
cudaError_t launch_l4r4(bool a_signed, bool b_signed, const KernelParams& p, cudaStream_t stream);
cudaError_t load_l8r8(bool a_signed, bool b_signed);
cudaError_t load_l8r4(bool a_signed, bool b_signed);
cudaError_t load_l4r8(bool a_signed, bool b_signed);
cudaError_t load_l4r4(bool a_signed, bool b_signed);
// Emulated 16-bit A (A signed only) with 8-, 4- and 16-bit B (16-bit B signed only).
cudaError_t launch_l16r8(bool a_signed, bool b_signed, const KernelParams& p, cudaStream_t stream);
cudaError_t launch_l16r4(bool a_signed, bool b_signed, const KernelParams& p, cudaStream_t stream);
cudaError_t launch_l16r16(bool a_signed, bool b_signed, const KernelParams& p, cudaStream_t stream);
cudaError_t load_l16r8(bool a_signed, bool b_signed);
cudaError_t load_l16r4(bool a_signed, bool b_signed);
cudaError_t load_l16r16(bool a_signed, bool b_signed);
// L4-R4 on the native int4 path (m16n8k64, stride 64).
cudaError_t launch_l4r4_k64(bool a_signed, bool b_signed, const KernelParams& p,
                            cudaStream_t stream);
cudaError_t load_l4r4_k64(bool a_signed, bool b_signed);

/// Copies B (k x n, any order, ld and alignment; 16-, 8- or 4-bit) into `dst`, row-major with `pitch`
/// bytes per row (a multiple of 16); bytes past column n - 1 of a row are written 0.
cudaError_t copy_b(const DenseView& B, int64_t k, int64_t n, int bits, uint8_t* dst, int64_t pitch,
                   cudaStream_t stream);
cudaError_t copy_b_load();

}  // namespace spx::kernels::srbcrs::detail
