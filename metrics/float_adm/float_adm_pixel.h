// One sample of float ADM, as libvmaf forms it (adm_tools.c): the DWT's taps,
// the decoupling (adm_decouple_s()), the CSF weighting and the masking's
// terms (adm_cm_s()), and the regions each pass covers. The scalar reference
// (float_adm.cpp) is these, sample after sample; the SIMD twins
// (float_adm_simd.cpp) run the same operations on many samples at once and
// these on the columns left over; the CUDA twin's kernels (cuda/float_adm/)
// run them as __host__ __device__ functions.
#pragma once

#include <math.h>  // ::powf, fabs, fabsf, as libvmaf calls them

#include <cmath>

#include "common/host_device.h"
#include "float_adm/float_adm.h"
#include "float_adm/rcp_estimate.h"

namespace vmafexact::float_adm::pixel {

// adm_decouple_s()'s eps, as a float.
inline constexpr float kEps = static_cast<float>(1e-30);

// cos(1 degree) squared: its double product stored as a float (the host
// computes it; the CUDA twin receives it).
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
  return refined_quotient(n, d, rcp_estimate(d));
}

// MIN/MAX of a double product and a float, stored as a float: the enhancement
// gain's limit on a positive and on a negative restored value.
VMAFEXACT_HD inline float limit(float rst, float t, double gain) {
  if (rst > 0.0) {
    const double g = rst * gain;
    rst = static_cast<float>(g < t ? g : t);
  }
  return rst;
}
VMAFEXACT_HD inline float limit_negative(float rst, float t, double gain) {
  if (rst < 0.0) {
    const double g = rst * gain;
    rst = static_cast<float>(g > t ? g : t);
  }
  return rst;
}

// The reference's h, v, d (o) and the distorted's (t) of one sample to the
// restored (rst) and additive (add) values; `divide(n, d)` is DIVS.
template <class Divide>
VMAFEXACT_HD inline void decouple(const float (&o)[3], const float (&t)[3], double gain,
                                  float cos_1deg_sq, Divide&& divide, float (&rst)[3],
                                  float (&add)[3]) {
  float k[3];
  for (int theta = 0; theta < 3; ++theta) {
    k[theta] = divide(t[theta], o[theta] + kEps);
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

// adm_tools.c's db2 taps: double literals rounded to float, the low-pass's
// (`high` false) and the high-pass's. (A function, not an array at namespace
// scope, so that device code can read it.)
VMAFEXACT_HD constexpr float dwt_tap(bool high, int k) {
  constexpr float lo[4] = {0.482962913144690, 0.836516303737469, 0.224143868041857,
                           -0.129409522550921};
  constexpr float hi[4] = {-0.129409522550921, -0.224143868041857, 0.836516303737469,
                           -0.482962913144690};
  return high ? hi[k] : lo[k];
}
// The same taps as arrays, for the SIMD twins.
inline constexpr float kLo[4] = {dwt_tap(false, 0), dwt_tap(false, 1), dwt_tap(false, 2),
                                 dwt_tap(false, 3)};
inline constexpr float kHi[4] = {dwt_tap(true, 0), dwt_tap(true, 1), dwt_tap(true, 2),
                                 dwt_tap(true, 3)};

// A DWT output: a float sum from 0 of four products, in tap order.
VMAFEXACT_HD inline float taps4(bool high, float s0, float s1, float s2, float s3) {
  float accum = 0;
  accum += dwt_tap(high, 0) * s0;
  accum += dwt_tap(high, 1) * s1;
  accum += dwt_tap(high, 2) * s2;
  accum += dwt_tap(high, 3) * s3;
  return accum;
}

// dwt2_src_indices_filt_s()'s index k (0..3) of output `out` over n inputs:
// 2 out - 1 + k mirrored, the first (k = 0) at both ends, the others at the
// far end only.
VMAFEXACT_HD inline int dwt_source_index(int out, int k, int n) {
  const int ind = 2 * out - 1 + k;
  if (k == 0) return ind < 0 ? -ind : (ind >= n ? 2 * n - ind - 1 : ind);
  return ind >= n ? 2 * n - ind - 1 : ind;
}

// The DWT's vertical pass over columns 0..width-1 of an output row's four
// source rows: the low-pass row, and unless lo_only the high-pass row.
inline void dwt_vertical_row(const float* const (&rows)[4], int width, bool lo_only, float* lo,
                             float* hi) {
  for (int j = 0; j < width; ++j) {
    const float s0 = rows[0][j], s1 = rows[1][j], s2 = rows[2][j], s3 = rows[3][j];
    lo[j] = taps4(false, s0, s1, s2, s3);
    if (!lo_only) hi[j] = taps4(true, s0, s1, s2, s3);
  }
}

// The DWT's horizontal pass over outputs begin..end-1 whose four columns
// 2j-1..2j+2 lie inside the row (no mirroring): bands a and v from the
// low-pass row, h and d from the high-pass row (not with lo_only).
inline void dwt_horizontal_row(const float* lo, const float* hi, int begin, int end, bool lo_only,
                               float* const (&bands)[4]) {
  for (int j = begin; j < end; ++j) {
    const float* l = lo + 2 * j - 1;
    bands[0][j] = taps4(false, l[0], l[1], l[2], l[3]);  // a
    if (lo_only) continue;
    bands[2][j] = taps4(true, l[0], l[1], l[2], l[3]);  // v
    const float* h = hi + 2 * j - 1;
    bands[1][j] = taps4(false, h[0], h[1], h[2], h[3]);  // h
    bands[3][j] = taps4(true, h[0], h[1], h[2], h[3]);   // d
  }
}

// FLOAT_ONE_BY_30 and FLOAT_ONE_BY_15: double literals, so products with them
// are taken in double.
inline constexpr double kOneBy30 = 0.0333333351;
inline constexpr double kOneBy15 = 0.0666666701;

// adm_csf_s() of one sample: the weighted band value, and its |value| / 30
// for the masking.
VMAFEXACT_HD inline void csf(float src, float factor, float& dst, float& flt) {
  const float value = factor * src;
  dst = value;
  flt = static_cast<float>(kOneBy30 * fabsf(value));
}

// csf() over columns begin..end-1 of a row.
inline void csf_row(const float* src, float* dst, float* flt, int begin, int end, float factor) {
  for (int j = begin; j < end; ++j) csf(src[j], factor, dst[j], flt[j]);
}

// A p-norm term: the cube for the default p = 3, else the C library's powf.
// Device code has no powf with the C library's bits: the CUDA twin computes
// p = 3 only (its stage refuses other values), and a NaN here would show it.
VMAFEXACT_HD inline float cube_or_pow(float x, double p_norm) {
  if (p_norm == 3.0) return x * x * x;
#if defined(__CUDA_ARCH__)
  return NAN;
#else
  return ::powf(x, static_cast<float>(p_norm));
#endif
}

// adm_csf_den_scale_s()'s terms of one sample: |weighted band value| to the
// p-norm's power, added to the row's sum of each orientation (h, v, d, in that
// order).
VMAFEXACT_HD inline void den_terms(const float (&value)[3], const float (&rfactor)[3],
                                   double p_norm, float (&inner)[3]) {
  for (int theta = 0; theta < 3; ++theta)
    inner[theta] += cube_or_pow(fabsf(rfactor[theta] * value[theta]), p_norm);
}

// adm_cm_s()'s terms of one sample: its three band values (value), weighted;
// with masking the threshold, the sum over h, v, d of the 3x3 neighbourhood of
// |csf| / 30 (`neighbour(theta, a, b)`, row a and column b) whose centre is
// |weighted band| / 15 instead (`centre(theta)`, added in double), each
// neighbourhood summed row by row; then |weighted| - threshold clipped at 0,
// to the p-norm's power.
template <class Neighbour, class Centre>
VMAFEXACT_HD inline void cm_terms(const float (&value)[3], const float (&rfactor)[3], bool masking,
                                  double p_norm, Neighbour&& neighbour, Centre&& centre,
                                  float (&terms)[3]) {
  float x[3];
  for (int theta = 0; theta < 3; ++theta) x[theta] = value[theta] * rfactor[theta];
  float thr = 0;
  if (masking)
    for (int theta = 0; theta < 3; ++theta) {
      float sum = 0;
      for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) {
          if (a == 1 && b == 1)
            sum = static_cast<float>(sum + kOneBy15 * fabsf(centre(theta)));
          else
            sum += neighbour(theta, a, b);
        }
      thr += sum;
    }
  for (int theta = 0; theta < 3; ++theta) {
    float v = fabsf(x[theta]) - thr;
    v = v < 0.0f ? 0.0f : v;
    terms[theta] = cube_or_pow(v, p_norm);
  }
}

// The rows [top, bottom) and columns [left, right) a pass covers.
struct Region {
  int left, top, right, bottom;
};

// ADM_BORDER_FACTOR's margin of a side of n: the (int) of a double, as
// libvmaf's int initialisers truncate; `taps` more samples less.
VMAFEXACT_HD inline int border(int n, int taps) {
  constexpr double kBorderFactor = 0.1;  // ADM_BORDER_FACTOR
  return static_cast<int>(n * kBorderFactor - 0.5 - taps);
}

// libvmaf's region within the border of a w x h band, where den_scale() and
// cm() sum.
VMAFEXACT_HD inline Region inner_region(int w, int h) {
  const int left = border(w, 0), top = border(h, 0);
  return {left, top, w - left, h - top};
}

// The same region plus a tap on each side, within the band: what decouple()
// and csf() write for the cm() filter to read.
VMAFEXACT_HD inline Region tap_region(int w, int h) {
  const int left = border(w, 1), top = border(h, 1);
  const int right = w - left + 2, bottom = h - top + 2;
  return {left < 0 ? 0 : left, top < 0 ? 0 : top, right > w ? w : right, bottom > h ? h : bottom};
}

// Which neighbours libvmaf's adm_cm_s() macro for a position takes along an
// axis: the first, a middle or the last row (column).
enum class Edge { kFirst, kMiddle, kLast };

// The positions adm_cm_s() visits along one axis of an n-sample band, in its
// order: 0 as the first where the region reaches it, the middle ones, n - 1
// as the last likewise. A band one sample high (wide) is visited once as
// first and once as last, with both macros.
struct CmAxis {
  int n = 0;
  bool first = false;
  int begin = 0, end = 0;  // the middle positions
  bool last = false;

  VMAFEXACT_HD int middle_count() const { return end > begin ? end - begin : 0; }
  VMAFEXACT_HD int count() const { return (first ? 1 : 0) + middle_count() + (last ? 1 : 0); }
  // The v-th visited position and its edge.
  VMAFEXACT_HD void at(int v, int& position, Edge& edge) const {
    if (first) {
      if (v == 0) {
        position = 0, edge = Edge::kFirst;
        return;
      }
      --v;
    }
    if (v < middle_count()) {
      position = begin + v, edge = Edge::kMiddle;
      return;
    }
    position = n - 1, edge = Edge::kLast;
  }
};

// The axis of positions [low, high) of an n-sample band.
VMAFEXACT_HD inline CmAxis cm_axis(int low, int high, int n) {
  return {n, low <= 0, low > 1 ? low : 1, high < n - 1 ? high : n - 1, high > n - 1};
}

// The three neighbours (k - 1, k, k + 1 in the middle) the macro for `edge`
// takes at position k of an n-sample axis.
VMAFEXACT_HD inline void cm_neighbours(Edge edge, int k, int n, int (&out)[3]) {
  if (edge == Edge::kFirst)
    out[0] = 1, out[1] = 0, out[2] = 1;
  else if (edge == Edge::kLast)
    out[0] = n - 2, out[1] = n - 1, out[2] = n - 1;
  else
    out[0] = k - 1, out[1] = k, out[2] = k + 1;
}

// The bands adm_cm_s() reads, each the first of three buffers (h, v, d):
// the values (src), the |csf| / 30 planes (flt) and the planes whose
// |value| / 15 is the centre of the neighbourhood (angles).
struct CmBands {
  int src, flt, angles;
};

// adm_cm_s()'s terms of sample (i, j) of a w x h level, visited with these
// edges, its reads through `read(index)` in `layout`.
template <class Read>
VMAFEXACT_HD inline void cm_sample_terms(Read&& read, const ArenaLayout& layout,
                                         const CmBands& bands, int w, int h, int i, Edge row_edge,
                                         int j, Edge column_edge, const float (&rfactor)[3],
                                         bool masking, double p_norm, float (&terms)[3]) {
  const float value[3] = {read(layout.at(bands.src, i, j)), read(layout.at(bands.src + 1, i, j)),
                          read(layout.at(bands.src + 2, i, j))};
  int r[3] = {}, c[3] = {};
  if (masking) {
    cm_neighbours(row_edge, i, h, r);
    cm_neighbours(column_edge, j, w, c);
  }
  cm_terms(
      value, rfactor, masking, p_norm,
      [&](int theta, int a, int b) { return read(layout.at(bands.flt + theta, r[a], c[b])); },
      [&](int theta) { return read(layout.at(bands.angles + theta, r[1], c[1])); }, terms);
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
  const auto divide = [divider](float n, float d) { return divs(n, d, divider); };
  for (int j = begin; j < end; ++j) {
    const float o[3] = {row.ref[0][j], row.ref[1][j], row.ref[2][j]};
    const float t[3] = {row.dist[0][j], row.dist[1][j], row.dist[2][j]};
    float rst[3], add[3];
    decouple(o, t, gain, cos_sq, divide, rst, add);
    for (int theta = 0; theta < 3; ++theta) {
      row.restored[theta][j] = rst[theta];
      row.additive[theta][j] = add[theta];
    }
  }
}

}  // namespace vmafexact::float_adm::pixel
