// The scalar references of ssim_dsp.h's routines, over column ranges so that
// the SIMD twins can hand them the borders and the tails beyond their last
// whole vector.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>

#include "ssim/ssim_dsp.h"

namespace vmafexact::ssim::scalar {

// libvmaf's stabilising constants (iqa/ssim_tools.c, _iqa_ssim() defaults
// K1 = 0.01f, K2 = 0.03f, L = 255), formed in float as it forms them:
// C1 = (K1 * L)^2, C2 = (K2 * L)^2, C3 = C2 / 2.
inline constexpr float kK1L = 0.01f * 255;
inline constexpr float kK2L = 0.03f * 255;
inline constexpr float kC1 = kK1L * kK1L;
inline constexpr float kC2 = kK2L * kK2L;
inline constexpr float kC3 = kC2 / 2.0f;

// picture_copy() adds its int offset 0 too; x + 0 == x for the non-negative
// values samples give.
inline void convert_row_8(const std::uint8_t* src, unsigned begin, unsigned end, float* dst) {
  for (unsigned x = begin; x < end; ++x) dst[x] = static_cast<float>(src[x]);
}

inline void convert_row_16(const std::uint16_t* src, unsigned begin, unsigned end, float scaler,
                           float* dst) {
  for (unsigned x = begin; x < end; ++x) dst[x] = static_cast<float>(src[x]) / scaler;
}

// KBND_SYMMETRIC: one reflection about the border (the caller keeps the
// kernel's half width below the picture's size, so one is enough).
inline int mirror(int i, int n) {
  if (i < 0) return -1 - i;
  if (i >= n) return n - (i - n) - 1;
  return i;
}

// _iqa_filter_pixel() at input position (cx, cy): rows v, then columns u, of
// the kernel centred there (an even kernel reaches one further left and up).
inline float filter_pixel(const float* img, int w, int h, const float* kernel, int taps, int cx,
                          int cy) {
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

inline void decimate_row(const float* img, int w, int h, const float* kernel, int taps,
                         int factor, int y, unsigned begin, unsigned end, float* dst) {
  for (unsigned x = begin; x < end; ++x)
    dst[x] = filter_pixel(img, w, h, kernel, taps, static_cast<int>(x) * factor, y * factor);
}

inline void gaussian_row(const float* src, unsigned begin, unsigned end, float* dst) {
  for (unsigned x = begin; x < end; ++x) {
    double sum = 0.0;
    for (int u = 0; u < kGaussianTaps; ++u) sum += src[x + u] * kGaussian[u];
    dst[x] = static_cast<float>(sum);  // times libvmaf's scale 1.0f
  }
}

inline void gaussian_column(const float* const* rows, unsigned begin, unsigned end, float* dst) {
  for (unsigned x = begin; x < end; ++x) {
    double sum = 0.0;
    for (int v = 0; v < kGaussianTaps; ++v) sum += rows[v][x] * kGaussian[v];
    dst[x] = static_cast<float>(sum);
  }
}

inline void products_row(const float* ref, const float* dist, unsigned begin, unsigned end,
                         float* rr, float* dd, float* rd) {
  for (unsigned x = begin; x < end; ++x) {
    rr[x] = ref[x] * ref[x];
    dd[x] = dist[x] * dist[x];
    rd[x] = ref[x] * dist[x];
  }
}

// One pixel's terms, with libvmaf's types: the luminance and contrast
// numerators in double, their denominators in float, the structure term in
// float throughout.
struct Terms {
  double l, c, s;
};

inline Terms pixel_terms(float mu_r, float mu_d, float rr, float dd, float rd) {
  // libvmaf's MAX(0.0, x): a double comparison whose result goes back to float.
  float var_r = rr - mu_r * mu_r;
  var_r = 0.0 > var_r ? 0.0f : var_r;
  float var_d = dd - mu_d * mu_d;
  var_d = 0.0 > var_d ? 0.0f : var_d;
  const float cov = rd - mu_r * mu_d;
  // sqrt() of a float product, stored as float: equal to the float sqrt.
  const float sigma_rd = std::sqrt(var_r * var_d);
  const double l = (2.0 * mu_r * mu_d + kC1) / (mu_r * mu_r + mu_d * mu_d + kC1);
  const double c = (2.0 * sigma_rd + kC2) / (var_r + var_d + kC2);
  // libvmaf's fix for flat identical areas: a negative covariance counts as 0
  // where the deviations' product is 0.
  const float clamped_cov = (cov < 0.0f && sigma_rd <= 0.0f) ? 0.0f : cov;
  const double s = (clamped_cov + kC3) / (sigma_rd + kC3);
  return {l, c, s};
}

inline void terms_row(const float* mu_r, const float* mu_d, const float* rr, const float* dd,
                      const float* rd, unsigned begin, unsigned end, TermSums* sums) {
  for (unsigned x = begin; x < end; ++x) {
    const Terms t = pixel_terms(mu_r[x], mu_d[x], rr[x], dd[x], rd[x]);
    sums->ssim += t.l * t.c * t.s;
    sums->l += t.l;
    sums->c += t.c;
    sums->s += t.s;
  }
}

}  // namespace vmafexact::ssim::scalar
