// The constants of the dense route's cost model (plan/roofline.hpp), in one place, with where
// each comes from. The model estimates one cuBLAS GEMM as a fixed cost plus the larger of its
// bytes over the memory bandwidth and its FLOPs over the attainable peak; the peaks scale with
// the device's SM count and clock (device properties at analyze).
#pragma once

namespace spx::plan::dense_peaks {

/// Fixed cost of one cuBLAS GEMM call (launch, first latencies, the epilogue's tail), in us.
/// The ELL model's fit of cuBLAS on the H100 paper grid has 4.0 us plus the work and floors of
/// 7.5 us (HGEMM) / 12 us (SGEMM) (src/families/ell/plan/predict.hpp, docs/benchmarks.md); the
/// SpTC model uses 4 us (src/families/sptc/family.cpp). 5 us sits between.
constexpr double kFixedUs = 5.0;

/// Dense tensor-core FLOPs per SM per clock, fp16 / bf16 inputs with fp32 accumulation, from
/// the vendors' whitepapers: H100 SXM (sm_90) 989.4 TFLOP/s = 132 SMs x 1.83 GHz x 4096;
/// A100 (sm_80) 312 TFLOP/s = 108 x 1.41 GHz x 2048; GA10x / AD10x (sm_86, sm_89) with fp32
/// accumulation 512 (RTX 3090: 71 TFLOP/s = 82 x 1.70 GHz x 512).
constexpr double kHalfFlopsPerSmClkSm90 = 4096;
constexpr double kHalfFlopsPerSmClkSm80 = 2048;
constexpr double kHalfFlopsPerSmClkOther = 512;
/// TF32 tensor-core rate: half the fp16 rate on every architecture above (same whitepapers).
constexpr double kTf32OverHalf = 0.5;
/// FP32 FFMA lanes per SM: 128 on sm_86 and newer (sm_90: 132 x 128 x 2 x 1.98 GHz = 67
/// TFLOP/s), 64 on sm_80 (19.5 TFLOP/s); each lane does 2 FLOPs per clock.
constexpr double kFp32LanesSm80 = 64;
constexpr double kFp32LanesOther = 128;

/// Fraction of the peak cuBLAS reaches on large GEMMs: HGEMM ~650-700 TFLOP/s of 989 on H100
/// (the ELL and SpTC models' fits: 650 and 700), pedantic SGEMM ~42 of 67 TFLOP/s (ELL fit).
constexpr double kTensorEfficiency = 0.68;
constexpr double kFp32Efficiency = 0.63;
/// Fraction of the DRAM bandwidth (memory clock x bus width x 2) a bandwidth-bound GEMM streams
/// at: ~3.0 of 3.35 TB/s on H100 SXM (the ELL model's HGEMM fit).
constexpr double kBandwidthEfficiency = 0.9;

/// Device properties to assume when the driver does not report them (H100 SXM).
constexpr double kDefaultClockGhz = 1.98;
constexpr double kDefaultBandwidthGBs = 3350;
constexpr int kDefaultSmCount = 132;

}  // namespace spx::plan::dense_peaks
