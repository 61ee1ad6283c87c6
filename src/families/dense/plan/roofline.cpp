#include "families/dense/plan/roofline.hpp"

#include <algorithm>

#include "families/dense/plan/peaks.hpp"

namespace spx::plan {

namespace {

double clock_ghz(const DeviceRates& d) {
  return d.clock_ghz > 0 ? d.clock_ghz : dense_peaks::kDefaultClockGhz;
}
double sms(const DeviceRates& d) {
  return d.sm_count > 0 ? d.sm_count : dense_peaks::kDefaultSmCount;
}

double half_flops_per_sm_clk(const DeviceRates& d) {
  if (d.cc_major >= 9) return dense_peaks::kHalfFlopsPerSmClkSm90;
  if (d.cc_major == 8 && d.cc_minor == 0) return dense_peaks::kHalfFlopsPerSmClkSm80;
  return dense_peaks::kHalfFlopsPerSmClkOther;
}

}  // namespace

double gemm_flops_per_s(GemmMath math, const DeviceRates& d) {
  const double per_clk = sms(d) * clock_ghz(d) * 1e9;
  switch (math) {
    case GemmMath::Half:
      return per_clk * half_flops_per_sm_clk(d) * dense_peaks::kTensorEfficiency;
    case GemmMath::Tf32:
      return per_clk * half_flops_per_sm_clk(d) * dense_peaks::kTf32OverHalf *
             dense_peaks::kTensorEfficiency;
    case GemmMath::Fp32:
      break;
  }
  const bool sm80 = d.cc_major == 8 && d.cc_minor == 0;
  const double lanes = sm80 ? dense_peaks::kFp32LanesSm80 : dense_peaks::kFp32LanesOther;
  return per_clk * lanes * 2.0 * dense_peaks::kFp32Efficiency;
}

double gemm_bytes_per_s(const DeviceRates& d) {
  const double gbs = d.bandwidth_gbs > 0 ? d.bandwidth_gbs : dense_peaks::kDefaultBandwidthGBs;
  return gbs * 1e9 * dense_peaks::kBandwidthEfficiency;
}

double gemm_work_us(const GemmSize& g, const DeviceRates& d) {
  const double m = static_cast<double>(g.m), k = static_cast<double>(g.k);
  const double n = static_cast<double>(g.n);
  const double bytes = (m * k + k * n) * g.in_bytes + m * n * g.out_bytes;
  const double flops = 2.0 * m * n * k;
  return 1e6 * std::max(bytes / gemm_bytes_per_s(d), flops / gemm_flops_per_s(g.math, d));
}

double gemm_us(const GemmSize& g, const DeviceRates& d) {
  return dense_peaks::kFixedUs + gemm_work_us(g, d);
}

}  // namespace spx::plan
