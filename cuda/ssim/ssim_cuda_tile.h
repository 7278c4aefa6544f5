// The decomposition of the SSIM kernels (ssim_cuda.cu) and the per-thread
// pieces they are built from, as __host__ __device__ functions so that the
// host emulation (tests/harness/check_ssim_cuda.cpp) runs the very same code
// in the kernels' order without a GPU. The arithmetic is the CPU's
// (metrics/ssim/ssim_pixel.h); the taps are the host tables' uploaded copies.
//
// Per frame, every pass is one thread per output:
//  - convert: picture_copy() of each luma sample;
//  - decimate: _iqa_filter_pixel() at (x * factor, y * factor) of the level
//    above (float_ssim's box kernel, MS-SSIM's 9x9 low-pass);
//  - horizontal: the Gaussian's row pass of the five maps (ref, dist, ref^2,
//    dist^2, ref * dist, the products formed from the float samples as the
//    CPU forms its product rows), (w - 10) x h floats each;
//  - vertical: the column pass of the five maps at (x, y), then the pixel's
//    terms; l, c and s are stored as three arrays of doubles in row-major
//    order, (w - 10) x (h - 10) each.
// The means' sums are serial chains of double additions in row-major order,
// which no parallel order reproduces: the terms are read back and the host
// adds them with the CPU's own code (ssim_cuda_stage.h, sum_terms()).
#pragma once

#include <cstddef>

#include "ssim/ssim_dsp.h"
#include "ssim/ssim_pixel.h"

namespace vmafexact::cuda::ssim::tile {

namespace pixel = vmafexact::ssim::pixel;
inline constexpr int kTaps = vmafexact::ssim::kGaussianTaps;
inline constexpr int kMaps = 5;   // ref, dist, ref^2, dist^2, ref * dist

// Row pass at output (x, y): the five maps' values from the rows of the two
// pictures (`ref_row`, `dist_row`: row y, x the first column under the window).
VMAFEXACT_HD inline void horizontal(const float* ref_row, const float* dist_row, int x,
                                    const float* taps, float (&out)[kMaps]) {
  const float* r = ref_row + x;
  const float* d = dist_row + x;
  out[0] = pixel::window_sum<kTaps>([&](int u) { return r[u]; }, taps);
  out[1] = pixel::window_sum<kTaps>([&](int u) { return d[u]; }, taps);
  out[2] = pixel::window_sum<kTaps>([&](int u) { return r[u] * r[u]; }, taps);
  out[3] = pixel::window_sum<kTaps>([&](int u) { return d[u] * d[u]; }, taps);
  out[4] = pixel::window_sum<kTaps>([&](int u) { return r[u] * d[u]; }, taps);
}

// Column pass at output (x, y) over the row pass's maps (`maps`: kMaps planes
// of `map_floats` floats, rows of `out_w`), then the pixel's terms.
VMAFEXACT_HD inline pixel::Terms vertical_terms(const float* maps, std::size_t map_floats, int out_w,
                                                int x, int y, const float* taps) {
  float filtered[kMaps];
  for (int m = 0; m < kMaps; ++m) {
    const float* column = maps + static_cast<std::size_t>(m) * map_floats +
                          static_cast<std::size_t>(y) * static_cast<std::size_t>(out_w) +
                          static_cast<std::size_t>(x);
    filtered[m] = pixel::window_sum<kTaps>(
        [&](int v) { return column[static_cast<std::size_t>(v) * static_cast<std::size_t>(out_w)]; },
        taps);
  }
  return pixel::pixel_terms(filtered[0], filtered[1], filtered[2], filtered[3], filtered[4]);
}

// The three values a pixel stores, in the term arrays' order (the ssim term
// l * c * s is formed on the host, from the same doubles).
inline constexpr int kStored = 3;  // l, c, s

VMAFEXACT_HD inline void store_terms(const pixel::Terms& t, double* terms, std::size_t count,
                                     std::size_t i) {
  terms[i] = t.l;
  terms[count + i] = t.c;
  terms[2 * count + i] = t.s;
}

}  // namespace vmafexact::cuda::ssim::tile
