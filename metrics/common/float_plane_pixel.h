// The per-sample arithmetic of float_plane.h (libvmaf's picture_copy() and
// vif_scale_frame_s()'s bilinear method), shared by the CPU code and the CUDA
// twins' kernels: inline functions that compile as __host__ __device__ under
// nvcc, each doing libvmaf's float and double operations in its order.
#pragma once

#include <cmath>
#include <cstdint>

#include "common/host_device.h"

namespace vmafexact {

// vif_tools.c's scaling methods (vif_prescale_method, speed_prescale_method),
// by libvmaf's names.
enum class ScaleMethod { kNearest, kBilinear, kBicubic, kLanczos4 };

}  // namespace vmafexact

namespace vmafexact::float_pixel {

// picture_copy() of one sample: the sample as a float plus the int `offset`
// (an 8-bit sample), or first divided by sample_scaler(bpc) (16-bit containers).
VMAFEXACT_HD inline float sample_to_float(std::uint8_t sample, int offset) {
  return static_cast<float>(sample) + offset;
}
VMAFEXACT_HD inline float sample_to_float(std::uint16_t sample, float scaler, int offset) {
  return static_cast<float>(sample) / scaler + offset;
}
// What brings 10-, 12- and 16-bit samples to the 8-bit range.
VMAFEXACT_HD inline float sample_scaler(unsigned bpc) {
  return bpc == 10 ? 4.0f : bpc == 12 ? 16.0f : 256.0f;
}
// Either of the above by the sample's container (the scaler unused at 8 bits).
template <typename Sample>
VMAFEXACT_HD inline float picture_sample(Sample sample, float scaler, int offset) {
  if constexpr (sizeof(Sample) == 1)
    return sample_to_float(sample, offset);
  else
    return sample_to_float(sample, scaler, offset);
}

// The integer mirror of libvmaf's float filters (convolution_edge_s(),
// vif_filter1d_s(), speed's filters): index -i for i < 0, 2n - i - 2 for
// i >= n (once about 0 and about n - 1).
VMAFEXACT_HD inline int mirror(int i, int n) { return i < 0 ? -i : (i >= n ? 2 * n - i - 2 : i); }

// vif_tools.c's mirror(), on floats: reflects once about `left` and `right`.
VMAFEXACT_HD inline float mirror_coordinate(float i, float left, float right) {
  return i < left ? -i : i > right ? 2 * right - i : i;
}

// The source coordinate of output sample `i`: (i + 0.5) * ratio - 0.5 in
// double, stored as a float.
VMAFEXACT_HD inline float source_coordinate(int i, float ratio) {
  return static_cast<float>((i + 0.5) * ratio - 0.5);
}

// The bilinear method's two source samples along one axis (mirrored inside
// 0..last) and the weight of the second, taken from the mirrored first.
struct BilinearTap {
  int first = 0;
  int second = 0;
  float weight = 0;
};
VMAFEXACT_HD inline BilinearTap bilinear_tap(int i, float ratio, float last) {
  const float coordinate = source_coordinate(i, ratio);
  BilinearTap tap;
  tap.first = static_cast<int>(
      mirror_coordinate(static_cast<float>(floor(static_cast<double>(coordinate))), 0, last));
  tap.second = static_cast<int>(
      mirror_coordinate(static_cast<float>(ceil(static_cast<double>(coordinate))), 0, last));
  tap.weight = coordinate - static_cast<float>(tap.first);
  return tap;
}

// One bilinear output from the four samples (row y1: a at x1, b at x2; row
// y2: c, d), in vif_scale_frame_s()'s order.
VMAFEXACT_HD inline float bilinear_value(float dy, float dx, float a, float b, float c, float d) {
  return (1 - dy) * (1 - dx) * a + (1 - dy) * dx * b + dy * (1 - dx) * c + dy * dx * d;
}

// One output sample of vif_scale_frame_s() from the prescale tables
// (float_plane.h, PrescaleTables): `tap(j, column)` is the source sample of
// the output row's tap row j (0 .. taps-1) at `column`; `columns` and `wx`
// are the output column's source columns and weights, `wy` the output row's
// weights. Nearest (and the identity) reads tap(0, columns[0]); bilinear's
// weights are dx = wx[0] and dy = wy[0].
template <class Tap>
VMAFEXACT_HD inline float prescaled_sample(ScaleMethod method, const Tap& tap, const int* columns,
                                           const float* wx, const float* wy) {
  if (method == ScaleMethod::kNearest) return tap(0, columns[0]);
  if (method == ScaleMethod::kBilinear)
    return bilinear_value(wy[0], wx[0], tap(0, columns[0]), tap(0, columns[1]), tap(1, columns[0]),
                          tap(1, columns[1]));
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

}  // namespace vmafexact::float_pixel
