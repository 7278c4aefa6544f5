// The per-sample arithmetic of float_motion, shared by the CPU stage
// (float_motion.cpp) and the CUDA twin's kernels (cuda/float_motion/): inline
// functions that compile as __host__ __device__ under nvcc, each doing
// libvmaf's float and double operations in its order.
#pragma once

#include <cmath>

#include "common/float_plane_pixel.h"

namespace vmafexact::float_motion::pixel {

// The most taps of a blur filter (motion_filter()).
inline constexpr int kMaxTaps = 5;

// convolution_edge_s()'s mirror.
using float_pixel::mirror;

// One output of a blur pass: 0, plus each tap times its input, tap 0 first
// (libvmaf's interior and edge loops add the same products in this order).
// `input(k)` is the sample under tap k.
template <class Input>
VMAFEXACT_HD inline float blur_sum(const float* filter, int taps, Input input) {
  float accum = 0;
  for (int k = 0; k < taps; ++k) accum += filter[k] * input(k);
  return accum;
}

// vmaf_image_sad_c()'s step: C's fabs() takes and returns a double, so the
// row's float accumulator is updated in double and rounded back.
VMAFEXACT_HD inline float add_abs_difference(float accum_line, float a, float b) {
  return static_cast<float>(static_cast<double>(accum_line) + fabs(static_cast<double>(a - b)));
}

// The float sum of |a - b| over one row of `width` samples.
VMAFEXACT_HD inline float row_abs_difference(const float* a, const float* b, int width) {
  float accum_line = 0.0f;
  for (int j = 0; j < width; ++j) accum_line = add_abs_difference(accum_line, a[j], b[j]);
  return accum_line;
}

// motion_add_scale1's halved size: (int)(side * 0.5 + 0.5).
VMAFEXACT_HD inline int half_side(int side) { return static_cast<int>(side * 0.5 + 0.5); }

}  // namespace vmafexact::float_motion::pixel
