// The dense route's cost model: microseconds of one cuBLAS GEMM C = A * B (A m x k dense) on the
// device, as a fixed cost plus the larger of the bytes term and the FLOPs term (a roofline with
// the constants of plan/peaks.hpp). An estimate for the route decision (engine/route.cpp), not a
// measurement: SPX_PLAN_OPTION_AUTOTUNE measures. Plain C++ (the CPU tests include it).
#pragma once

#include <cstdint>

namespace spx::plan {

/// What the model needs to know about the device (cudaDeviceGetAttribute at analyze).
struct DeviceRates {
  int sm_count = 0;             ///< 0: the default of peaks.hpp
  double clock_ghz = 0;         ///< SM clock; 0: the default
  double bandwidth_gbs = 0;     ///< DRAM bandwidth (GB/s); 0: the default
  int cc_major = 9, cc_minor = 0;
};

/// What cuBLAS computes: m x k times k x n, element sizes and the math it runs in.
enum class GemmMath { Fp32, Tf32, Half };  ///< Half: fp16 or bf16 on tensor cores
struct GemmSize {
  int64_t m = 0, k = 0, n = 0;
  int in_bytes = 4;   ///< bytes of an element of A and B
  int out_bytes = 4;  ///< bytes of an element of C
  GemmMath math = GemmMath::Fp32;
};

/// Attainable FLOP/s of `math` on the device (peak x efficiency).
double gemm_flops_per_s(GemmMath math, const DeviceRates& d);
/// Attainable bytes/s of DRAM on the device.
double gemm_bytes_per_s(const DeviceRates& d);
/// The variable part: max(bytes / bandwidth, FLOPs / rate), in us (no fixed cost).
double gemm_work_us(const GemmSize& g, const DeviceRates& d);
/// dense_peaks::kFixedUs + gemm_work_us: the estimate of one call.
double gemm_us(const GemmSize& g, const DeviceRates& d);

}  // namespace spx::plan
