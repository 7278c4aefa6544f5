// The per-sample arithmetic of SpEED shared by the CPU path (speed.cpp,
// speed_dsp_scalar.h) and the CUDA twin's kernels (cuda/speed/): plain inline
// float functions that compile as __host__ __device__ under nvcc, so that both
// backends evaluate the very same expressions.
#pragma once

#include <cstdint>

#include "common/host_device.h"

namespace vmafexact::speed {

enum class ScaleMethod { kNearest, kBilinear, kBicubic, kLanczos4 };

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

// The source taps of a prescaler for one output sample (vif_scale_frame_s):
// `tap(j, column)` is the source sample of tap row j (0 .. taps-1) at `column`;
// `columns` and `wx` are the output column's source columns and weights, `wy`
// the output row's weights (as SpeedKernel's prescale tables hold them).
// Nearest (and the identity) reads tap(0, columns[0]); bilinear's weights are
// dx = wx[0] and dy = wy[0].
template <class Tap>
VMAFEXACT_HD inline float prescaled_sample(ScaleMethod method, const Tap& tap, const int* columns,
                                           const float* wx, const float* wy) {
  if (method == ScaleMethod::kNearest) return tap(0, columns[0]);
  if (method == ScaleMethod::kBilinear) {
    const float dx = wx[0], dy = wy[0];
    const int x1 = columns[0], x2 = columns[1];
    return (1 - dy) * (1 - dx) * tap(0, x1) + (1 - dy) * dx * tap(0, x2) +
           dy * (1 - dx) * tap(1, x1) + dy * dx * tap(1, x2);
  }
  if (method == ScaleMethod::kBicubic) {
    float value = 0.0f;
    for (unsigned j = 0; j < 4; ++j)
      for (unsigned i = 0; i < 4; ++i) {
        const float weight = wx[i] * wy[j];
        value += tap(j, columns[i]) * weight;
      }
    return value;
  }
  float value = 0.0f;
  float weight_sum = 0.0f;
  for (unsigned iy = 0; iy < 9; ++iy)
    for (unsigned ix = 0; ix < 9; ++ix) {
      const float weight = wx[ix] * wy[iy];
      weight_sum += weight;
      value += tap(iy, columns[ix]) * weight;
    }
  return value / weight_sum;
}

}  // namespace pixel
}  // namespace vmafexact::speed
