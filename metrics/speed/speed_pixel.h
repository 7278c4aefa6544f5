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

// libvmaf's picture_copy() adds its int offset -128, converted to float.
inline constexpr float kSampleOffset = -128;

// picture_copy_hbd's divisor of 10, 12 and 16-bit samples: 4, 16 or 256.
VMAFEXACT_HD inline float hbd_divisor(unsigned bpc) {
  return bpc == 10 ? 4.0f : bpc == 12 ? 16.0f : 256.0f;
}

VMAFEXACT_HD inline float converted_8(std::uint8_t sample) {
  return static_cast<float>(sample) + kSampleOffset;
}

VMAFEXACT_HD inline float converted_16(std::uint16_t sample, float divisor) {
  return static_cast<float>(sample) / divisor + kSampleOffset;
}

using float_pixel::prescaled_sample;

}  // namespace pixel
}  // namespace vmafexact::speed
