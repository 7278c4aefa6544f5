// One sample of float ADM's decoupling (adm_decouple_s()), as libvmaf forms it:
// the scalar reference (float_adm.cpp) is this, sample after sample; the SIMD
// twins (float_adm_lanes.h) run the same operations on many samples at once
// and this on the columns left over.
#pragma once

#include <cmath>

#include "float_adm/float_adm.h"
#include "float_adm/rcp_estimate.h"

namespace vmafexact::float_adm::pixel {

// adm_decouple_s()'s eps, as a float.
inline constexpr float kEps = static_cast<float>(1e-30);

// cos(1 degree) squared: its double product stored as a float.
inline float cos_1deg_sq() {
  constexpr double kPi = 3.14159265358979323846;
  static const float value =
      static_cast<float>(std::cos(1.0 * kPi / 180.0) * std::cos(1.0 * kPi / 180.0));
  return value;
}

// DIVS(): libvmaf's x86 build multiplies by the SSE reciprocal estimate refined
// by one Newton step (ADM_OPT_RECIP_DIVISION), the estimate as the reference
// processor makes it on every CPU (rcp_estimate.h), unless the environment
// asks for this processor's.
inline float divs(float n, float d, Divider divider) {
  if (divider == Divider::kThisProcessor) return divide_as_this_processor(n, d);
  const float xi = rcp_estimate(d);
  return n * (xi + xi * (1.0f - d * xi));
}

// MIN/MAX of a double product and a float, stored as a float: the enhancement
// gain's limit on a positive and on a negative restored value.
inline float limit(float rst, float t, double gain) {
  if (rst > 0.0) {
    const double g = rst * gain;
    rst = static_cast<float>(g < t ? g : t);
  }
  return rst;
}
inline float limit_negative(float rst, float t, double gain) {
  if (rst < 0.0) {
    const double g = rst * gain;
    rst = static_cast<float>(g > t ? g : t);
  }
  return rst;
}

// The reference's h, v, d (o) and the distorted's (t) of one sample to the
// restored (rst) and additive (add) values.
inline void decouple(const float (&o)[3], const float (&t)[3], double gain, float cos_1deg_sq,
                     Divider divider, float (&rst)[3], float (&add)[3]) {
  float k[3];
  for (int theta = 0; theta < 3; ++theta) {
    k[theta] = divs(t[theta], o[theta] + kEps, divider);
    k[theta] = k[theta] < 0.0f ? 0.0f : (k[theta] > 1.0f ? 1.0f : k[theta]);
    rst[theta] = k[theta] * o[theta];
  }
  const float ot_dp = o[0] * t[0] + o[1] * t[1];
  const float o_mag_sq = o[0] * o[0] + o[1] * o[1];
  const float t_mag_sq = t[0] * t[0] + t[1] * t[1];
  const bool angle_flag = (ot_dp >= 0.0f) && (ot_dp * ot_dp >= cos_1deg_sq * o_mag_sq * t_mag_sq);
  for (int theta = 0; theta < 3; ++theta) {
    if (angle_flag) rst[theta] = limit_negative(limit(rst[theta], t[theta], gain), t[theta], gain);
    add[theta] = t[theta] - rst[theta];
  }
}

// decouple() over columns begin..end-1 of a row.
inline void decouple_row(const DecoupleRow& row, int begin, int end, double gain, Divider divider) {
  const float cos_sq = cos_1deg_sq();
  for (int j = begin; j < end; ++j) {
    const float o[3] = {row.ref[0][j], row.ref[1][j], row.ref[2][j]};
    const float t[3] = {row.dist[0][j], row.dist[1][j], row.dist[2][j]};
    float rst[3], add[3];
    decouple(o, t, gain, cos_sq, divider, rst, add);
    for (int theta = 0; theta < 3; ++theta) {
      row.restored[theta][j] = rst[theta];
      row.additive[theta][j] = add[theta];
    }
  }
}

}  // namespace vmafexact::float_adm::pixel
