// The row kernels of float ADM (FloatAdmDsp) for kLanes columns side by side,
// in GCC's vector extensions (metrics/common/simd.h's lanes): compiled once
// per ISA by metrics/meson.build (float_adm_dsp_avx2(): 8 lanes,
// float_adm_dsp_avx512(): 16). Every lane runs the
// operations of float_adm_pixel.h on its column in the same order (vector
// arithmetic is IEEE per lane; a branch becomes a select of the same value;
// the reference's reciprocal estimate is looked up in its table per lane),
// and the columns left over run float_adm_pixel.h itself, so each twin gives
// the scalar reference's bits (the twin harness, FloatAdmTwin, checks it).

#include <cstddef>
#include <cstdint>
#include <utility>

#include "common/simd.h"
#include "float_adm/float_adm.h"
#include "float_adm/float_adm_pixel.h"

namespace vmafexact::float_adm {
namespace VMAFEXACT_ISA {
namespace {

using namespace simd::VMAFEXACT_ISA::lanes;

// rcp_estimate() per lane.
inline F rcp_lanes(F x) {
  const U bits = (U)x;  // the float's bits
  const U sign = bits & 0x80000000u;
  const U exponent = (bits >> 23) & 0xFFu;
  const U mantissa = bits & 0x7FFFFFu;
  const std::uint32_t* table = rcp_estimate_table();
  const U index = mantissa >> 11;
  U estimate;
  for (int l = 0; l < kLanes; ++l) estimate[l] = table[index[l]];
  const I result_exponent = (I)((estimate >> 23) & 0xFFu) - (I)exponent + 127;
  U out = sign | ((U)result_exponent << 23) | (estimate & 0x7FFFFFu);
  out = result_exponent <= 0 ? sign : out;  // below the normals: zero
  out = exponent == 0xFFu ? (mantissa != 0u ? (bits | 0x400000u) : sign)
                          : out;                      // inf: 0, NaN: quieted
  out = exponent == 0u ? (sign | 0x7F800000u) : out;  // zero, subnormal: inf
  return (F)out;
}

// pixel::divs() with the reference's estimate, per lane.
inline F divs_lanes(F n, F d) {
  const F xi = rcp_lanes(d);
  return n * (xi + xi * (1.0f - d * xi));
}

// pixel::limit() and limit_negative() per lane: the products and the
// comparison in double, the result stored as a float.
inline F limit_lanes(F rst, F t, double gain) {
  const D g = __builtin_convertvector(rst, D) * gain;
  const D t_d = __builtin_convertvector(t, D);
  const F limited = __builtin_convertvector(g < t_d ? g : t_d, F);
  return rst > 0.0f ? limited : rst;
}
inline F limit_negative_lanes(F rst, F t, double gain) {
  const D g = __builtin_convertvector(rst, D) * gain;
  const D t_d = __builtin_convertvector(t, D);
  const F limited = __builtin_convertvector(g > t_d ? g : t_d, F);
  return rst < 0.0f ? limited : rst;
}

void decouple(const DecoupleRow& row, int begin, int end, double gain, Divider divider) {
  if (divider != Divider::kReference) {  // this processor's RCPSS: one by one
    pixel::decouple_row(row, begin, end, gain, divider);
    return;
  }
  const F zero{};
  const F one = splat(1.0f);
  const float cos_sq = pixel::cos_1deg_sq();
  int j = begin;
  for (; j + kLanes <= end; j += kLanes) {
    F o[3], t[3], rst[3];
    for (int theta = 0; theta < 3; ++theta) {
      o[theta] = load(row.ref[theta] + j);
      t[theta] = load(row.dist[theta] + j);
      F k = divs_lanes(t[theta], o[theta] + pixel::kEps);
      const F below_one = k > one ? one : k;
      k = k < zero ? zero : below_one;
      rst[theta] = k * o[theta];
    }
    const F ot_dp = o[0] * t[0] + o[1] * t[1];
    const F o_mag_sq = o[0] * o[0] + o[1] * o[1];
    const F t_mag_sq = t[0] * t[0] + t[1] * t[1];
    const I angle_flag = (ot_dp >= zero) & (ot_dp * ot_dp >= cos_sq * o_mag_sq * t_mag_sq);
    for (int theta = 0; theta < 3; ++theta) {
      const F limited =
          limit_negative_lanes(limit_lanes(rst[theta], t[theta], gain), t[theta], gain);
      rst[theta] = angle_flag ? limited : rst[theta];
      store(row.restored[theta] + j, rst[theta]);
      store(row.additive[theta] + j, t[theta] - rst[theta]);
    }
  }
  pixel::decouple_row(row, j, end, gain, divider);
}

void cm(const CmRow& row, int begin, int end, const float (&rfactor)[3], bool masking,
        double p_norm) {
  if (p_norm != 3.0) {  // powf: one by one
    pixel::cm_row(row, begin, end, rfactor, masking, p_norm);
    return;
  }
  const F zero{};
  int j = begin;
  for (; j + kLanes <= end; j += kLanes) {
    F thr{};
    if (masking)
      for (int theta = 0; theta < 3; ++theta) {
        F sum{};
        for (int a = 0; a < 3; ++a)
          for (int b = 0; b < 3; ++b) {
            if (a == 1 && b == 1) {
              const D centre = __builtin_convertvector(abs_lanes(load(row.angles[theta] + j)), D);
              sum = __builtin_convertvector(
                  __builtin_convertvector(sum, D) + pixel::kOneBy15 * centre, F);
            } else {
              sum += load(row.flt[theta][a] + j - 1 + b);
            }
          }
        thr += sum;
      }
    for (int theta = 0; theta < 3; ++theta) {
      const F x = load(row.src[theta] + j) * rfactor[theta];
      F v = abs_lanes(x) - thr;
      v = v < zero ? zero : v;
      store(row.terms[theta] + j, v * v * v);
    }
  }
  pixel::cm_row(row, j, end, rfactor, masking, p_norm);
}

void csf(const float* src, float* dst, float* flt, int begin, int end, float factor) {
  int j = begin;
  for (; j + kLanes <= end; j += kLanes) {
    const F value = factor * load(src + j);
    store(dst + j, value);
    store(flt + j, __builtin_convertvector(
                       pixel::kOneBy30 * __builtin_convertvector(abs_lanes(value), D), F));
  }
  pixel::csf_row(src, dst, flt, j, end, factor);
}

// pixel::taps4() per lane.
inline F taps4_lanes(const float (&k)[4], F s0, F s1, F s2, F s3) {
  F accum{};
  accum += k[0] * s0;
  accum += k[1] * s1;
  accum += k[2] * s2;
  accum += k[3] * s3;
  return accum;
}

void dwt_vertical(const float* const (&rows)[4], int width, bool lo_only, float* lo, float* hi) {
  int j = 0;
  for (; j + kLanes <= width; j += kLanes) {
    const F s0 = load(rows[0] + j), s1 = load(rows[1] + j), s2 = load(rows[2] + j),
            s3 = load(rows[3] + j);
    store(lo + j, taps4_lanes(pixel::kLo, s0, s1, s2, s3));
    if (!lo_only) store(hi + j, taps4_lanes(pixel::kHi, s0, s1, s2, s3));
  }
  const float* const tail[4] = {rows[0] + j, rows[1] + j, rows[2] + j, rows[3] + j};
  pixel::dwt_vertical_row(tail, width - j, lo_only, lo + j, hi + j);
}

// Lanes First, First + 2, First + 4, ... of the pair (a, b): with First 0 the
// even, with 1 the odd samples of 2 * kLanes consecutive ones.
// __builtin_shufflevector: GCC (12 on) and clang both have it.
template <int First, std::size_t... Lane>
inline F every_other_lane(F a, F b, std::index_sequence<Lane...>) {
  return __builtin_shufflevector(a, b, (First + 2 * static_cast<int>(Lane))...);
}
template <int First>
inline F every_other_lane(F a, F b) {
  return every_other_lane<First>(a, b, std::make_index_sequence<kLanes>{});
}

// Columns 2j-1+k (k = 0..3) of outputs j..j+kLanes-1 of a row.
inline void taps_columns(const float* row, int j, F (&s)[4]) {
  const F a = load(row + 2 * j - 1), b = load(row + 2 * j - 1 + kLanes);
  const F c = load(row + 2 * j + 1), d = load(row + 2 * j + 1 + kLanes);
  s[0] = every_other_lane<0>(a, b);
  s[1] = every_other_lane<1>(a, b);
  s[2] = every_other_lane<0>(c, d);
  s[3] = every_other_lane<1>(c, d);
}

void dwt_horizontal(const float* lo, const float* hi, int begin, int end, bool lo_only,
                    float* const (&bands)[4]) {
  int j = begin;
  for (; j + kLanes <= end; j += kLanes) {
    F l[4];
    taps_columns(lo, j, l);
    store(bands[0] + j, taps4_lanes(pixel::kLo, l[0], l[1], l[2], l[3]));  // a
    if (lo_only) continue;
    store(bands[2] + j, taps4_lanes(pixel::kHi, l[0], l[1], l[2], l[3]));  // v
    F h[4];
    taps_columns(hi, j, h);
    store(bands[1] + j, taps4_lanes(pixel::kLo, h[0], h[1], h[2], h[3]));  // h
    store(bands[3] + j, taps4_lanes(pixel::kHi, h[0], h[1], h[2], h[3]));  // d
  }
  pixel::dwt_horizontal_row(lo, hi, j, end, lo_only, bands);
}

}  // namespace
}  // namespace VMAFEXACT_ISA

const FloatAdmDsp& VMAFEXACT_ISA_NAMED(float_adm_dsp)() {
  static constexpr FloatAdmDsp dsp{simd::VMAFEXACT_ISA::kIsaName,
                                   VMAFEXACT_ISA::decouple,
                                   VMAFEXACT_ISA::cm,
                                   VMAFEXACT_ISA::csf,
                                   VMAFEXACT_ISA::dwt_vertical,
                                   VMAFEXACT_ISA::dwt_horizontal};
  return dsp;
}

}  // namespace vmafexact::float_adm
