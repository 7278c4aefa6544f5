// SSIM and MS-SSIM as libvmaf 3.2.0's float_ssim and float_ms_ssim compute
// them (feature/ssim.c, ms_ssim.c and the IQA library in feature/iqa/), on
// the luma plane only.
//
// The per-pixel stage turns a picture pair into the means of the SSIM terms
// at each scale (floats, their sums formed in libvmaf's row-major order);
// the finishing functions (ms_ssim_score(), to_db()) turn those into the
// scores, the same for every backend.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include "common/picture.h"
#include "ssim/ssim_dsp.h"

namespace vmafexact::ssim {

// A float picture with rows of exactly `w` floats, as libvmaf's IQA buffers.
struct FloatImage {
  int w = 0;
  int h = 0;
  std::vector<float> data;

  void resize(int width, int height) {
    w = width;
    h = height;
    data.resize(static_cast<std::size_t>(width) * static_cast<std::size_t>(height));
  }
  float* row(int y) { return data.data() + static_cast<std::ptrdiff_t>(y) * w; }
  const float* row(int y) const { return data.data() + static_cast<std::ptrdiff_t>(y) * w; }
};

// What libvmaf's _iqa_ssim() returns for one scale: the mean SSIM and the
// means of its luminance, contrast and structure terms (floats).
struct SsimMeans {
  float ssim = 0, l = 0, c = 0, s = 0;
  bool operator==(const SsimMeans&) const = default;
};

// The window libvmaf filters with, and so the smallest picture SSIM is
// defined on: the filtered maps are (w - 10) x (h - 10).
inline constexpr int kWindow = kGaussianTaps;

// libvmaf's picture_copy() of a luma plane into `out` (w x h).
void luma_to_float(const PlaneView& luma, unsigned bpc, const SsimDsp& dsp, FloatImage& out);

// float_ssim's downscaling factor for scale=0 (auto): libvmaf's
// max(1, round(min(w, h) / 256.0f)), with the IQA library's own rounding.
int auto_scale(int w, int h);

// The size _iqa_decimate() gives a side of n samples: n / factor + (n & 1).
constexpr int decimated_size(int n, int factor) { return n / factor + (n & 1); }

// float_ssim's low-pass kernel for factor f: f x f taps of 1.0f / (f * f).
std::vector<float> box_kernel(int factor);

// MS-SSIM's low-pass filter, the 9x9 9/7 biorthogonal wavelet filter of the
// IQA library (g_lpf), and its scales' exponents (libvmaf's Wang weights).
inline constexpr int kLowPassTaps = 9;
extern const float kLowPass[kLowPassTaps * kLowPassTaps];
inline constexpr int kScales = 5;
extern const float kAlphas[kScales];
extern const float kBetas[kScales];
extern const float kGammas[kScales];

// _iqa_decimate(): `in` filtered with the 2-D `kernel` at every factor-th
// sample of every factor-th row, into `out` (decimated_size() of each side).
// `scratch` is resized as the DSP needs.
void decimate(const FloatImage& in, const float* kernel, int taps, int factor, const SsimDsp& dsp,
              FloatImage& out, std::vector<float>& scratch);

// The buffers one SSIM evaluation needs, kept from frame to frame.
class SsimWorkspace {
 public:
  // _iqa_ssim() with libvmaf's defaults (11x11 Gaussian window, K1 0.01,
  // K2 0.03, L 255) on two pictures of one size, at least kWindow x kWindow.
  SsimMeans means(const FloatImage& ref, const FloatImage& dist, const SsimDsp& dsp);

 private:
  // The horizontal pass's last kWindow rows of each of the five maps (the
  // two pictures, their squares and their product), and one output row each.
  static constexpr int kMaps = 5;
  std::vector<float> ring_;
  std::vector<float> products_;
  std::vector<float> filtered_;
};

// MS-SSIM's combination of its scales' means (ms_ssim.c): the product over
// the scales of l^alpha * c^beta * s^gamma in double, with libvmaf's pow().
// Throws vmafexact::Error where libvmaf fails ("ms_ssim is INFINITY").
double ms_ssim_score(const std::array<SsimMeans, kScales>& scales);

// libvmaf's enable_db conversion: min(-10 log10(1 - score), max_db).
double to_db(double score, double max_db);
// libvmaf's clip_db ceiling: ceil(10 log10(peak^2 / (0.5 / (w * h)))), with
// its unsigned arithmetic; +infinity when clipping is off.
double max_db(bool clip_db, unsigned bpc, unsigned w, unsigned h);

}  // namespace vmafexact::ssim
