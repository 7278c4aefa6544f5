// The per-sample arithmetic of SpEED shared by the CPU path (speed.cpp,
// speed_dsp_scalar.h) and the CUDA twin's kernels (cuda/speed/): plain inline
// float functions that compile as __host__ __device__ under nvcc, so that both
// backends evaluate the very same expressions.
#pragma once

#include <cstdint>

#include "common/float_plane_pixel.h"
#include "common/host_device.h"

namespace vmafexact::speed {

using vmafexact::ScaleMethod;

namespace pixel {

// libvmaf's picture_copy() adds its int offset -128 (the conversion itself:
// float_pixel::sample_to_float(), float_pixel::sample_scaler()).
inline constexpr int kSampleOffset = -128;

using float_pixel::prescaled_sample;

}  // namespace pixel
}  // namespace vmafexact::speed
