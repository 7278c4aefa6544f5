// One pixel of float VIF's arithmetic, as libvmaf's vif_tools.c forms it: the
// taps' sums, the approximate log2 and vif_statistic_s()'s terms. The scalar
// reference (float_vif.cpp) is these, pixel after pixel; the SIMD twins
// (float_vif_simd.cpp) run the same operations on many pixels at once and these
// on the columns left over; the CUDA twin's kernels (cuda/float_vif/) run
// them as __host__ __device__ functions.
#pragma once

#include <cstdint>
#include <limits>

#include "common/float_plane_pixel.h"
#include "common/host_device.h"
#include "float_vif/float_vif.h"

namespace vmafexact::float_vif::pixel {

// vif_tools.c's log2_poly_s: double literals rounded to float. (A function,
// not an array at namespace scope, so that device code can read it.)
inline constexpr int kLog2PolyCount = 9;
VMAFEXACT_HD constexpr float log2_poly(int k) {
  constexpr float coefficients[kLog2PolyCount] = {
      -0.012671635276421, 0.064841182402670,  -0.157048836463065,
      0.257167726303123,  -0.353800560300520, 0.480131410397451,
      -0.721314327952201, 1.442694803896991,  0};
  return coefficients[k];
}

// The statistic's eps, as a float.
inline constexpr float kEps = 1.0e-10f;

VMAFEXACT_HD inline float horner(float x) {
  float var = 0;
  for (int k = 0; k < kLog2PolyCount; ++k) var = var * x + log2_poly(k);
  return var;
}

// vif_tools.c's log2f_approx(): the exponent plus a polynomial of the mantissa.
VMAFEXACT_HD inline float log2_approx(float x) {
  if (x == 0) return -std::numeric_limits<float>::infinity();
  if (x < 0) return std::numeric_limits<float>::quiet_NaN();
  const std::uint32_t bits = bits_of(x);
  const std::uint32_t exponent = (bits & 0x7F800000u) >> 23;
  const std::uint32_t mantissa = bits & 0x007FFFFFu;
  const float remain = float_of(mantissa | 0x3F800000u);
  const float log_base = static_cast<float>(static_cast<std::int32_t>(exponent) - 127);
  const float log_remain = horner(remain - 1.0f);
  return log_base + log_remain;
}

// A tap sum of the horizontal pass: from 0, tap by tap in order over
// consecutive samples, each product a float (no fused multiply-add:
// -ffp-contract=off).
VMAFEXACT_HD inline float tap_sum(const float* taps, int taps_count, const float* samples) {
  float accum = 0;
  for (int k = 0; k < taps_count; ++k) accum += taps[k] * samples[k];
  return accum;
}

template <class T>
VMAFEXACT_HD T max_of(T x, T y) {
  return x > y ? x : y;
}
template <class T>
VMAFEXACT_HD T min_of(T x, T y) {
  return x < y ? x : y;
}

// vif_filter1d_s()'s mirror.
using float_pixel::mirror;

// vif_statistic_s()'s float accumulators: from 0, value after value in order
// (a row's terms in column order; the rows' sums in row order).
VMAFEXACT_HD inline float serial_sum(const float* values, int count) {
  float accum = 0;
  for (int i = 0; i < count; ++i) accum += values[i];
  return accum;
}

// vif_statistic_s()'s terms ('matching_matlab') of one pixel.
VMAFEXACT_HD inline void statistic(float mu1, float mu2, float xx, float yy, float xy,
                                   const StatisticConstants& c, float& num, float& den) {
  const float mu1_sq = mu1 * mu1;
  const float mu2_sq = mu2 * mu2;
  const float mu1_mu2 = mu1 * mu2;
  float sigma1_sq = xx - mu1_sq;
  float sigma2_sq = yy - mu2_sq;
  const float sigma12 = xy - mu1_mu2;

  sigma1_sq = max_of(sigma1_sq, 0.0f);
  sigma2_sq = max_of(sigma2_sq, 0.0f);
  float g = sigma12 / (sigma1_sq + kEps);
  float sv_sq = sigma2_sq - g * sigma12;
  if (sigma1_sq < kEps) {
    g = 0.0f;
    sv_sq = sigma2_sq;
    sigma1_sq = 0.0f;
  }
  if (sigma2_sq < kEps) {
    g = 0.0f;
    sv_sq = 0.0f;
  }
  if (g < 0.0f) {
    sv_sq = sigma2_sq;
    g = 0.0f;
  }
  sv_sq = max_of(sv_sq, kEps);
  g = min_of(g, c.gain_limit);

  // sigma_nsq is a double: the divisions and the 1 + are taken in double,
  // and the approximate log2 takes their float.
  float num_val =
      log2_approx(static_cast<float>(1.0f + (g * g * sigma1_sq) / (sv_sq + c.sigma_nsq)));
  float den_val = log2_approx(static_cast<float>(1.0f + sigma1_sq / c.sigma_nsq));
  if (sigma12 < 0.0f) num_val = 0.0f;
  if (sigma1_sq < c.sigma_nsq) {
    num_val = 1.0f - sigma2_sq * c.sigma_max_inv;
    den_val = 1.0f;
  }
  num = num_val;
  den = den_val;
}

}  // namespace vmafexact::float_vif::pixel
