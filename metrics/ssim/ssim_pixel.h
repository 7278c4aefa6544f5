// The per-sample arithmetic of SSIM and MS-SSIM, shared by the CPU's scalar
// reference (ssim_dsp_scalar.h, and through it the SIMD twins' borders) and
// the CUDA twin's kernels (cuda/ssim/): inline functions that compile as
// __host__ __device__ under nvcc. Each does libvmaf's float and double
// operations in libvmaf's order; filter taps come in as pointers, so that the
// device reads the copies uploaded from the host's tables.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "common/float_plane_pixel.h"
#include "common/host_device.h"

namespace vmafexact::ssim::pixel {

// libvmaf's stabilising constants (iqa/ssim_tools.c, _iqa_ssim() defaults
// K1 = 0.01f, K2 = 0.03f, L = 255), formed in float as it forms them:
// C1 = (K1 * L)^2, C2 = (K2 * L)^2, C3 = C2 / 2.
inline constexpr float kK1L = 0.01f * 255;
inline constexpr float kK2L = 0.03f * 255;
inline constexpr float kC1 = kK1L * kK1L;
inline constexpr float kC2 = kK2L * kK2L;
inline constexpr float kC3 = kC2 / 2.0f;

// picture_copy() of one sample: float_pixel::sample_to_float() with offset 0.
inline constexpr int kSampleOffset = 0;

// KBND_SYMMETRIC: one reflection about the border (the caller keeps the
// kernel's half width below the picture's size, so one is enough).
VMAFEXACT_HD inline int mirror(int i, int n) {
  if (i < 0) return -1 - i;
  if (i >= n) return n - (i - n) - 1;
  return i;
}

// _iqa_filter_pixel() at input position (cx, cy): rows v, then columns u, of
// the kernel centred there (an even kernel reaches one further left and up).
VMAFEXACT_HD inline float filter_pixel(const float* img, int w, int h, const float* kernel, int taps,
                                       int cx, int cy) {
  const int half = taps / 2;
  const int last = taps - 1 - half;
  double sum = 0.0;
  int k = 0;
  for (int v = -half; v <= last; ++v) {
    const float* row = img + static_cast<std::ptrdiff_t>(mirror(cy + v, h)) * w;
    for (int u = -half; u <= last; ++u, ++k) sum += row[mirror(cx + u, w)] * kernel[k];
  }
  return static_cast<float>(sum);  // libvmaf's kscale is 1.0f
}

// One output of a pass of the separable 11-tap Gaussian: sum_u (double)(value(u)
// * taps[u]) stored as a float (times libvmaf's scale 1.0f). `value(u)` gives
// the u-th float under the window (a sample, or a product of two).
template <int kTaps, typename Value>
VMAFEXACT_HD inline float window_sum(const Value& value, const float* taps) {
  double sum = 0.0;
  for (int u = 0; u < kTaps; ++u) sum += value(u) * taps[u];
  return static_cast<float>(sum);
}

// One pixel's terms, with libvmaf's types: the luminance and contrast
// numerators in double, their denominators in float, the structure term in
// float throughout.
struct Terms {
  double l, c, s;
};

VMAFEXACT_HD inline float float_sqrt(float x) {
#if defined(__CUDA_ARCH__)
  return sqrtf(x);  // IEEE with --prec-sqrt=true
#else
  return std::sqrt(x);
#endif
}

VMAFEXACT_HD inline Terms pixel_terms(float mu_r, float mu_d, float rr, float dd, float rd) {
  // libvmaf's MAX(0.0, x): a double comparison whose result goes back to float.
  float var_r = rr - mu_r * mu_r;
  var_r = 0.0 > var_r ? 0.0f : var_r;
  float var_d = dd - mu_d * mu_d;
  var_d = 0.0 > var_d ? 0.0f : var_d;
  const float cov = rd - mu_r * mu_d;
  // sqrt() of a float product, stored as float: equal to the float sqrt.
  const float sigma_rd = float_sqrt(var_r * var_d);
  const double l = (2.0 * mu_r * mu_d + kC1) / (mu_r * mu_r + mu_d * mu_d + kC1);
  const double c = (2.0 * sigma_rd + kC2) / (var_r + var_d + kC2);
  // libvmaf's fix for flat identical areas: a negative covariance counts as 0
  // where the deviations' product is 0.
  const float clamped_cov = (cov < 0.0f && sigma_rd <= 0.0f) ? 0.0f : cov;
  const double s = (clamped_cov + kC3) / (sigma_rd + kC3);
  return {l, c, s};
}

// The SSIM term libvmaf adds to its sum: l * c * s, in double, left to right.
VMAFEXACT_HD inline double ssim_term(const Terms& t) { return t.l * t.c * t.s; }

}  // namespace vmafexact::ssim::pixel
