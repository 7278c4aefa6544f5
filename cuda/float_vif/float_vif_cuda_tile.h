// The per-thread pieces of the float_vif kernels (float_vif_cuda.cu), as
// __host__ __device__ functions, so that the host emulation
// (tests/harness/check_float_vif_cuda.cpp) runs the kernels' own code without
// a GPU. The arithmetic is the CPU's (metrics/float_vif/float_vif_pixel.h,
// metrics/common/float_plane_pixel.h).
//
// Per frame, one thread per output of each pass:
//  - convert: picture_copy() of each luma sample (less 128);
//  - prescale (vif_prescale): vif_scale_frame_s() from the host's tables;
//  - decimate (scales 1 to 3): the previous scale low-passed with this scale's
//    filter at its even rows and columns (the column pass's sums recomputed
//    for each of the row pass's taps: the same values, in the same order);
//  - vertical: the column pass of the five maps (mu1, mu2, ref², dist²,
//    ref·dist) at (x, y);
//  - terms: the row pass of the five maps at (x, y), then the statistic's num
//    and den;
//  - rows: one thread per row, the row's num and den added in column order.
// The rows' sums come home; the host adds them in row order with the CPU's
// finishing function (float_vif::finish_rows()).
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/float_plane_pixel.h"
#include "float_vif/float_vif_pixel.h"

namespace vmafexact::cuda::float_vif::tile {

namespace pixel = vmafexact::float_vif::pixel;
using vmafexact::float_vif::StatisticConstants;

inline constexpr int kMaps = 5;             // mu1, mu2, ref², dist², ref·dist
inline constexpr int kSampleOffset = -128;  // picture_copy()'s offset for float_vif

// The prescale tables (float_plane.h, PrescaleTables) in device memory.
struct Prescale {
  ScaleMethod method = ScaleMethod::kNearest;
  unsigned taps = 1;
  const int* rows = nullptr;
  const int* columns = nullptr;
  const float* row_weights = nullptr;
  const float* column_weights = nullptr;
};

// vif_scale_frame_s() at output (x, y) of `src` (rows of src_w floats).
VMAFEXACT_HD inline float prescale_output(const float* src, int src_w, const Prescale& t, int x,
                                          int y) {
  const int* rows = t.rows + static_cast<std::size_t>(y) * t.taps;
  const auto tap = [&](unsigned j, int column) {
    return src[static_cast<std::size_t>(rows[j]) * static_cast<std::size_t>(src_w) +
               static_cast<std::size_t>(column)];
  };
  return float_pixel::prescaled_sample(t.method, tap,
                                       t.columns + static_cast<std::size_t>(x) * t.taps,
                                       t.column_weights + static_cast<std::size_t>(x) * t.taps,
                                       t.row_weights + static_cast<std::size_t>(y) * t.taps);
}

// The next scale's sample (i, j) from a w x h plane: its low-pass with `taps`
// at row 2i and column 2j.
VMAFEXACT_HD inline float decimated_output(const float* plane, int w, int h, const float* taps,
                                           int count, int i, int j) {
  const int half = count / 2;
  float accum = 0;
  for (int k = 0; k < count; ++k) {
    const int column = pixel::mirror(2 * j - half + k, w);
    float vertical = 0;
    for (int v = 0; v < count; ++v)
      vertical += taps[v] * plane[static_cast<std::size_t>(pixel::mirror(2 * i - half + v, h)) *
                                      static_cast<std::size_t>(w) +
                                  static_cast<std::size_t>(column)];
    accum += taps[k] * vertical;
  }
  return accum;
}

// The column pass of the five maps at (x, y) of a w x h pair.
VMAFEXACT_HD inline void vertical_maps(const float* ref, const float* dist, int w, int h,
                                       const float* taps, int count, int x, int y,
                                       float (&out)[kMaps]) {
  const int half = count / 2;
  for (float& value : out) value = 0;
  for (int k = 0; k < count; ++k) {
    const std::size_t at =
        static_cast<std::size_t>(pixel::mirror(y - half + k, h)) * static_cast<std::size_t>(w) +
        static_cast<std::size_t>(x);
    const float r = ref[at], d = dist[at], tap = taps[k];
    out[0] += tap * r;
    out[1] += tap * d;
    out[2] += tap * (r * r);
    out[3] += tap * (d * d);
    out[4] += tap * (r * d);
  }
}

// The row pass of the five maps (each `map_floats` apart, rows of w) at
// (x, y), then the pixel's num and den.
VMAFEXACT_HD inline void pixel_terms(const float* maps, std::size_t map_floats, int w, int x, int y,
                                     const float* taps, int count, const StatisticConstants& c,
                                     float& num, float& den) {
  const int half = count / 2;
  float filtered[kMaps];
  for (int q = 0; q < kMaps; ++q) {
    const float* row = maps + static_cast<std::size_t>(q) * map_floats +
                       static_cast<std::size_t>(y) * static_cast<std::size_t>(w);
    float accum = 0;
    for (int k = 0; k < count; ++k) accum += taps[k] * row[pixel::mirror(x - half + k, w)];
    filtered[q] = accum;
  }
  pixel::statistic(filtered[0], filtered[1], filtered[2], filtered[3], filtered[4], c, num, den);
}

}  // namespace vmafexact::cuda::float_vif::tile
