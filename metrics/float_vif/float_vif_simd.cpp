// The row kernels of float VIF (FloatVifDsp) for kLanes columns side by side,
// in GCC's vector extensions (metrics/common/simd.h's lanes): compiled once
// per ISA by metrics/meson.build (float_vif_dsp_avx2(): 8 lanes,
// float_vif_dsp_avx512(): 16). Every lane runs the
// operations of float_vif_pixel.h on its column in the same order (vector
// arithmetic is IEEE per lane; a branch becomes a select of the same value),
// and the columns left over run the scalar reference (its table's vertical
// pass, float_vif_pixel.h's sums and statistic), so each twin gives
// the scalar reference's bits (the twin harness, FloatVifTwin, checks it).

#include <cstdint>
#include <limits>

#include "common/simd.h"
#include "float_vif/float_vif.h"
#include "float_vif/float_vif_pixel.h"

namespace vmafexact::float_vif {
namespace VMAFEXACT_ISA {
namespace {

using namespace simd::VMAFEXACT_ISA::lanes;

template <bool kMoments>
void vertical_rows(const float* taps, int taps_count, const float* const* ref_rows,
                   const float* const* dist_rows, unsigned begin, unsigned end, float* const* out) {
  unsigned j = begin;
  for (; j + kLanes <= end; j += kLanes) {
    F mu1{}, mu2{}, xx{}, yy{}, xy{};
    for (int k = 0; k < taps_count; ++k) {
      const F tap = splat(taps[k]);
      const F r = load(ref_rows[k] + j);
      const F d = load(dist_rows[k] + j);
      mu1 += tap * r;
      mu2 += tap * d;
      if constexpr (kMoments) {
        xx += tap * (r * r);
        yy += tap * (d * d);
        xy += tap * (r * d);
      }
    }
    store(out[0] + j, mu1);
    store(out[1] + j, mu2);
    if constexpr (kMoments) {
      store(out[2] + j, xx);
      store(out[3] + j, yy);
      store(out[4] + j, xy);
    }
  }
  float_vif_dsp_scalar().vertical(taps, taps_count, ref_rows, dist_rows, j, end, kMoments, out);
}

void vertical(const float* taps, int taps_count, const float* const* ref_rows,
              const float* const* dist_rows, unsigned begin, unsigned end, bool moments,
              float* const* out) {
  if (moments)
    vertical_rows<true>(taps, taps_count, ref_rows, dist_rows, begin, end, out);
  else
    vertical_rows<false>(taps, taps_count, ref_rows, dist_rows, begin, end, out);
}

void horizontal(const float* taps, int taps_count, const float* row, int begin, int end,
                float* out) {
  const float* first = row - taps_count / 2;  // the first tap's sample of column 0
  int j = begin;
  for (; j + kLanes <= end; j += kLanes) {
    F accum{};
    for (int k = 0; k < taps_count; ++k) accum += splat(taps[k]) * load(first + j + k);
    store(out + j, accum);
  }
  for (; j < end; ++j) out[j] = pixel::tap_sum(taps, taps_count, first + j);
}

// log2_approx() per lane.
inline F log2_lanes(F x) {
  const U bits = (U)x;  // the float's bits
  const U exponent = (bits & 0x7F800000u) >> 23;
  const U mantissa = bits & 0x007FFFFFu;
  const F remain = (F)(mantissa | 0x3F800000u);
  const F log_base = __builtin_convertvector((I)exponent - 127, F);
  const F m = remain - 1.0f;
  F var{};
  for (int k = 0; k < pixel::kLog2PolyCount; ++k) var = var * m + pixel::log2_poly(k);
  F result = log_base + var;
  result = x == 0.0f ? splat(-std::numeric_limits<float>::infinity()) : result;
  return x < 0.0f ? splat(std::numeric_limits<float>::quiet_NaN()) : result;
}

void statistic(const float* const* rows, unsigned width, const StatisticConstants& c, float* num,
               float* den) {
  const F zero{};
  const F eps = splat(pixel::kEps);
  const F gain_limit = splat(c.gain_limit);
  const D sigma_nsq = D{} + c.sigma_nsq;
  unsigned j = 0;
  for (; j + kLanes <= width; j += kLanes) {
    const F mu1 = load(rows[0] + j), mu2 = load(rows[1] + j);
    const F mu1_sq = mu1 * mu1;
    const F mu2_sq = mu2 * mu2;
    const F mu1_mu2 = mu1 * mu2;
    F sigma1_sq = load(rows[2] + j) - mu1_sq;
    F sigma2_sq = load(rows[3] + j) - mu2_sq;
    const F sigma12 = load(rows[4] + j) - mu1_mu2;

    sigma1_sq = sigma1_sq > zero ? sigma1_sq : zero;
    sigma2_sq = sigma2_sq > zero ? sigma2_sq : zero;
    F g = sigma12 / (sigma1_sq + eps);
    F sv_sq = sigma2_sq - g * sigma12;
    const I flat_ref = sigma1_sq < eps;
    g = flat_ref ? zero : g;
    sv_sq = flat_ref ? sigma2_sq : sv_sq;
    sigma1_sq = flat_ref ? zero : sigma1_sq;
    const I flat_dist = sigma2_sq < eps;
    g = flat_dist ? zero : g;
    sv_sq = flat_dist ? zero : sv_sq;
    const I negative_gain = g < zero;
    sv_sq = negative_gain ? sigma2_sq : sv_sq;
    g = negative_gain ? zero : g;
    sv_sq = sv_sq > eps ? sv_sq : eps;
    g = g < gain_limit ? g : gain_limit;

    const D sigma1_sq_d = __builtin_convertvector(sigma1_sq, D);
    const D gain_term = __builtin_convertvector(g * g * sigma1_sq, D);
    const D num_arg = 1.0 + gain_term / (__builtin_convertvector(sv_sq, D) + sigma_nsq);
    const D den_arg = 1.0 + sigma1_sq_d / sigma_nsq;
    F num_val = log2_lanes(__builtin_convertvector(num_arg, F));
    F den_val = log2_lanes(__builtin_convertvector(den_arg, F));
    num_val = sigma12 < zero ? zero : num_val;
    const I below_noise = __builtin_convertvector(sigma1_sq_d < sigma_nsq, I);
    num_val = below_noise ? 1.0f - sigma2_sq * c.sigma_max_inv : num_val;
    den_val = below_noise ? splat(1.0f) : den_val;
    store(num + j, num_val);
    store(den + j, den_val);
  }
  for (; j < width; ++j)
    pixel::statistic(rows[0][j], rows[1][j], rows[2][j], rows[3][j], rows[4][j], c, num[j], den[j]);
}

}  // namespace
}  // namespace VMAFEXACT_ISA

const FloatVifDsp& VMAFEXACT_ISA_NAMED(float_vif_dsp)() {
  static constexpr FloatVifDsp dsp{simd::VMAFEXACT_ISA::kIsaName, VMAFEXACT_ISA::vertical,
                                   VMAFEXACT_ISA::horizontal, VMAFEXACT_ISA::statistic};
  return dsp;
}

}  // namespace vmafexact::float_vif
