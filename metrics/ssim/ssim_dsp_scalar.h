// The scalar references of ssim_dsp.h's routines, over column ranges so that
// the SIMD twins can hand them the borders and the tails beyond their last
// whole vector.
#pragma once

#include <cstddef>
#include <cstdint>

#include "ssim/ssim_dsp.h"
#include "ssim/ssim_pixel.h"

namespace vmafexact::ssim::scalar {

// The per-sample arithmetic lives in ssim_pixel.h, shared with the CUDA twin.
using pixel::filter_pixel;
using pixel::kC1;
using pixel::kC2;
using pixel::kC3;
using pixel::mirror;
using pixel::pixel_terms;
using pixel::Terms;

inline void convert_row_8(const std::uint8_t* src, unsigned begin, unsigned end, float* dst) {
  for (unsigned x = begin; x < end; ++x)
    dst[x] = float_pixel::sample_to_float(src[x], pixel::kSampleOffset);
}

inline void convert_row_16(const std::uint16_t* src, unsigned begin, unsigned end, float scaler,
                           float* dst) {
  for (unsigned x = begin; x < end; ++x)
    dst[x] = float_pixel::sample_to_float(src[x], scaler, pixel::kSampleOffset);
}

inline void decimate_row(const float* img, int w, int h, const float* kernel, int taps,
                         int factor, int y, unsigned begin, unsigned end, float* dst) {
  for (unsigned x = begin; x < end; ++x)
    dst[x] = filter_pixel(img, w, h, kernel, taps, static_cast<int>(x) * factor, y * factor);
}

inline void gaussian_row(const float* src, unsigned begin, unsigned end, float* dst) {
  for (unsigned x = begin; x < end; ++x)
    dst[x] = pixel::window_sum<kGaussianTaps>([&](int u) { return src[x + u]; }, kGaussian);
}

inline void gaussian_column(const float* const* rows, unsigned begin, unsigned end, float* dst) {
  for (unsigned x = begin; x < end; ++x)
    dst[x] = pixel::window_sum<kGaussianTaps>([&](int v) { return rows[v][x]; }, kGaussian);
}

inline void products_row(const float* ref, const float* dist, unsigned begin, unsigned end,
                         float* rr, float* dd, float* rd) {
  for (unsigned x = begin; x < end; ++x) {
    rr[x] = ref[x] * ref[x];
    dd[x] = dist[x] * dist[x];
    rd[x] = ref[x] * dist[x];
  }
}

// One pixel's terms joining the running sums (also the CUDA twin's host sums
// over its read-back terms).
inline void add_terms(const Terms& t, TermSums* sums) {
  sums->ssim += pixel::ssim_term(t);
  sums->l += t.l;
  sums->c += t.c;
  sums->s += t.s;
}

inline void terms_row(const float* mu_r, const float* mu_d, const float* rr, const float* dd,
                      const float* rd, unsigned begin, unsigned end, TermSums* sums) {
  for (unsigned x = begin; x < end; ++x)
    add_terms(pixel_terms(mu_r[x], mu_d[x], rr[x], dd[x], rd[x]), sums);
}

}  // namespace vmafexact::ssim::scalar
