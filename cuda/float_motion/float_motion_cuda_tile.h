// The per-thread pieces of the float_motion kernels (float_motion_cuda.cu),
// as __host__ __device__ functions, so that the host emulation
// (tests/harness/check_float_motion_cuda.cpp) runs the kernels' own code
// without a GPU. The arithmetic is the CPU's (metrics/float_motion/
// float_motion_pixel.h, metrics/common/float_plane_pixel.h).
//
// Per frame and plane, one thread per output of each pass:
//  - vertical: the blur's column pass at (x, y) straight from the samples,
//    each converted as picture_copy() converts it (less 128);
//  - horizontal: the blur's row pass at (x, y) of the vertical pass's plane;
//  - half (motion_add_scale1): the bilinear halving at (x, y);
//  - rows: one thread per row, the row's float sum of |previous - current| in
//    the CPU's column order.
// The rows' sums come home; the host adds them in row order with the CPU's
// finishing function (float_motion::mean_abs_difference()).
#pragma once

#include <cstddef>
#include <cstdint>

#include "common/float_plane_pixel.h"
#include "float_motion/float_motion_pixel.h"

namespace vmafexact::cuda::float_motion::tile {

namespace pixel = vmafexact::float_motion::pixel;

// A blur filter's taps, passed to the kernels by value.
struct Filter {
  float taps[pixel::kMaxTaps] = {};
  int count = 0;
};

// The offset picture_copy() adds for float_motion.
inline constexpr int kSampleOffset = -128;

// The column pass at (x, y) of a plane of samples (`stride` bytes a row, `h` rows).
template <typename Sample>
VMAFEXACT_HD inline float vertical_output(const std::uint8_t* plane, std::ptrdiff_t stride, int x,
                                          int y, int h, const Filter& filter, float scaler) {
  const int radius = filter.count / 2;
  return pixel::blur_sum(filter.taps, filter.count, [&](int k) {
    const auto* row = reinterpret_cast<const Sample*>(
        plane + static_cast<std::ptrdiff_t>(pixel::mirror(y - radius + k, h)) * stride);
    return float_pixel::picture_sample(row[x], scaler, kSampleOffset);
  });
}

// The row pass at column x of one row (`row`, `w` floats).
VMAFEXACT_HD inline float horizontal_output(const float* row, int x, int w, const Filter& filter) {
  const int radius = filter.count / 2;
  return pixel::blur_sum(filter.taps, filter.count,
                         [&](int k) { return row[pixel::mirror(x - radius + k, w)]; });
}

// The bilinear halving at (x, y) of a w x h plane (rows of w floats) into
// out_w x out_h, with scale_plane()'s ratios.
VMAFEXACT_HD inline float half_output(const float* plane, int w, int h, int out_w, int out_h, int x,
                                      int y) {
  const float ratio_x = static_cast<float>(w) / static_cast<float>(out_w);
  const float ratio_y = static_cast<float>(h) / static_cast<float>(out_h);
  const auto column = float_pixel::bilinear_tap(x, ratio_x, static_cast<float>(w - 1));
  const auto row = float_pixel::bilinear_tap(y, ratio_y, static_cast<float>(h - 1));
  const float* r1 = plane + static_cast<std::size_t>(row.first) * static_cast<std::size_t>(w);
  const float* r2 = plane + static_cast<std::size_t>(row.second) * static_cast<std::size_t>(w);
  return float_pixel::bilinear_value(row.weight, column.weight, r1[column.first], r1[column.second],
                                     r2[column.first], r2[column.second]);
}

}  // namespace vmafexact::cuda::float_motion::tile
