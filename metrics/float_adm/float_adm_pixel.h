// One sample of float ADM's decoupling (adm_decouple_s()), as libvmaf forms it:
// the scalar reference (float_adm.cpp) is this, sample after sample; the SIMD
// twins (float_adm_lanes.h) run the same operations on many samples at once
// and this on the columns left over.
#pragma once

#include <math.h>  // ::powf, as libvmaf calls it

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

// adm_tools.c's db2 taps: double literals rounded to float.
inline constexpr float kLo[4] = {0.482962913144690, 0.836516303737469, 0.224143868041857,
                                 -0.129409522550921};
inline constexpr float kHi[4] = {-0.129409522550921, -0.224143868041857, 0.836516303737469,
                                 -0.482962913144690};

// A DWT output: a float sum from 0 of four products, in tap order.
inline float taps4(const float (&k)[4], float s0, float s1, float s2, float s3) {
  float accum = 0;
  accum += k[0] * s0;
  accum += k[1] * s1;
  accum += k[2] * s2;
  accum += k[3] * s3;
  return accum;
}

// The DWT's vertical pass over columns 0..width-1 of an output row's four
// source rows: the low-pass row, and unless lo_only the high-pass row.
inline void dwt_vertical_row(const float* const (&rows)[4], int width, bool lo_only, float* lo,
                             float* hi) {
  for (int j = 0; j < width; ++j) {
    const float s0 = rows[0][j], s1 = rows[1][j], s2 = rows[2][j], s3 = rows[3][j];
    lo[j] = taps4(kLo, s0, s1, s2, s3);
    if (!lo_only) hi[j] = taps4(kHi, s0, s1, s2, s3);
  }
}

// The DWT's horizontal pass over outputs begin..end-1 whose four columns
// 2j-1..2j+2 lie inside the row (no mirroring): bands a and v from the
// low-pass row, h and d from the high-pass row (not with lo_only).
inline void dwt_horizontal_row(const float* lo, const float* hi, int begin, int end, bool lo_only,
                               float* const (&bands)[4]) {
  for (int j = begin; j < end; ++j) {
    const float* l = lo + 2 * j - 1;
    bands[0][j] = taps4(kLo, l[0], l[1], l[2], l[3]);  // a
    if (lo_only) continue;
    bands[2][j] = taps4(kHi, l[0], l[1], l[2], l[3]);  // v
    const float* h = hi + 2 * j - 1;
    bands[1][j] = taps4(kLo, h[0], h[1], h[2], h[3]);  // h
    bands[3][j] = taps4(kHi, h[0], h[1], h[2], h[3]);  // d
  }
}

// FLOAT_ONE_BY_30 and FLOAT_ONE_BY_15: double literals, so products with them
// are taken in double.
inline constexpr double kOneBy30 = 0.0333333351;
inline constexpr double kOneBy15 = 0.0666666701;

// adm_csf_s() over columns begin..end-1 of a row: the weighted band value, and
// its |value| / 30 for the masking.
inline void csf_row(const float* src, float* dst, float* flt, int begin, int end, float factor) {
  for (int j = begin; j < end; ++j) {
    const float value = factor * src[j];
    dst[j] = value;
    flt[j] = static_cast<float>(kOneBy30 * std::fabs(value));
  }
}

// A p-norm term: the cube for the default p = 3, else powf.
inline float cube_or_pow(float x, double p_norm) {
  return p_norm == 3.0 ? x * x * x : ::powf(x, static_cast<float>(p_norm));
}

// adm_cm_s()'s terms of one sample: its three band values (value), weighted;
// with masking the threshold, the sum over h, v, d of the 3x3 neighbourhood of
// |csf| / 30 (`neighbour(theta, a, b)`, row a and column b) whose centre is
// |weighted band| / 15 instead (`centre(theta)`, added in double), each
// neighbourhood summed row by row; then |weighted| - threshold clipped at 0,
// to the p-norm's power.
template <class Neighbour, class Centre>
inline void cm_terms(const float (&value)[3], const float (&rfactor)[3], bool masking,
                     double p_norm, Neighbour&& neighbour, Centre&& centre, float (&terms)[3]) {
  float x[3];
  for (int theta = 0; theta < 3; ++theta) x[theta] = value[theta] * rfactor[theta];
  float thr = 0;
  if (masking)
    for (int theta = 0; theta < 3; ++theta) {
      float sum = 0;
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) {
          if (a == 1 && b == 1)
            sum = static_cast<float>(sum + kOneBy15 * std::fabs(centre(theta)));
          else
            sum += neighbour(theta, a, b);
        }
      thr += sum;
    }
  for (int theta = 0; theta < 3; ++theta) {
    float v = std::fabs(x[theta]) - thr;
    v = v < 0.0f ? 0.0f : v;
    terms[theta] = cube_or_pow(v, p_norm);
  }
}

// cm_terms() over columns begin..end-1 of a middle row (neighbours inside it).
inline void cm_row(const CmRow& row, int begin, int end, const float (&rfactor)[3], bool masking,
                   double p_norm) {
  for (int j = begin; j < end; ++j) {
    const float value[3] = {row.src[0][j], row.src[1][j], row.src[2][j]};
    float terms[3];
    cm_terms(
        value, rfactor, masking, p_norm,
        [&](int theta, int a, int b) { return row.flt[theta][a][j - 1 + b]; },
        [&](int theta) { return row.angles[theta][j]; }, terms);
    for (int theta = 0; theta < 3; ++theta) row.terms[theta][j] = terms[theta];
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
