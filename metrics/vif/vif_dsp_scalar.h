// The scalar reference of each VIF DSP routine (vif_dsp.h), over a range of
// columns so that the SIMD twins can finish their rows with it. These are
// libvmaf's vif_statistic_8/16 and subsample_rd_8/16 loops, with its types.
// (Parameters are copied to locals first: stores to the row buffers could
// otherwise alias them, and the compiler would reload them per pixel.)
#pragma once

#include <cstdint>

#include "vif/vif_dsp.h"
#include "vif/vif_pixel.h"

namespace vmafexact::vif::scalar {

// kWidth: the filter's width when known at compile time (0: filter.width).
template <typename Sample, unsigned kWidth = 0>
inline void stat_vertical(const Sample* const* ref, const Sample* const* dis, const Filter& filter,
                          const VerticalRounding& rounding, unsigned begin, unsigned end,
                          const StatRows& out) {
  const unsigned fwidth = kWidth != 0 ? kWidth : filter.width;
  const std::uint32_t round_mu = rounding.round_mu;
  const unsigned shift_mu = rounding.shift_mu;
  const std::uint64_t round_sq = rounding.round_sq;
  const unsigned shift_sq = rounding.shift_sq;
  std::int16_t* const mu1 = out.mu1;
  std::int16_t* const mu2 = out.mu2;
  std::int16_t* const xx_lo = out.xx_lo;
  std::int16_t* const xx_hi = out.xx_hi;
  std::int16_t* const yy_lo = out.yy_lo;
  std::int16_t* const yy_hi = out.yy_hi;
  std::int16_t* const xy_lo = out.xy_lo;
  std::int16_t* const xy_hi = out.xy_hi;
  for (unsigned j = begin; j < end; ++j) {
    std::uint32_t acc_mu1 = 0, acc_mu2 = 0;
    std::uint64_t acc_xx = 0, acc_yy = 0, acc_xy = 0;
    for (unsigned k = 0; k < fwidth; ++k) {
      const std::uint32_t r = ref[k][j];
      const std::uint32_t d = dis[k][j];
      const std::uint32_t coeff_r = filter.taps[k] * r;
      const std::uint32_t coeff_d = filter.taps[k] * d;
      acc_mu1 += coeff_r;
      acc_mu2 += coeff_d;
      acc_xx += static_cast<std::uint64_t>(coeff_r) * r;
      acc_yy += static_cast<std::uint64_t>(coeff_d) * d;
      acc_xy += static_cast<std::uint64_t>(coeff_r) * d;
    }
    mu1[j] = biased(static_cast<std::uint16_t>((acc_mu1 + round_mu) >> shift_mu));
    mu2[j] = biased(static_cast<std::uint16_t>((acc_mu2 + round_mu) >> shift_mu));
    store_split(xx_lo, xx_hi, j, static_cast<std::uint32_t>((acc_xx + round_sq) >> shift_sq));
    store_split(yy_lo, yy_hi, j, static_cast<std::uint32_t>((acc_yy + round_sq) >> shift_sq));
    store_split(xy_lo, xy_hi, j, static_cast<std::uint32_t>((acc_xy + round_sq) >> shift_sq));
  }
}

template <unsigned kWidth = 0>
inline void stat_horizontal(const StatRows& in, const Filter& filter, unsigned begin, unsigned end,
                            const std::uint16_t* log2_table, double enhn_gain_limit,
                            ScaleSums& total) {
  const unsigned fwidth = kWidth != 0 ? kWidth : filter.width;
  const int half = static_cast<int>(filter.half());
  const std::int16_t* const mu1 = in.mu1;
  const std::int16_t* const mu2 = in.mu2;
  const std::int16_t* const xx_lo = in.xx_lo;
  const std::int16_t* const xx_hi = in.xx_hi;
  const std::int16_t* const yy_lo = in.yy_lo;
  const std::int16_t* const yy_hi = in.yy_hi;
  const std::int16_t* const xy_lo = in.xy_lo;
  const std::int16_t* const xy_hi = in.xy_hi;
  ScaleSums sums;
  for (unsigned j = begin; j < end; ++j) {
    std::uint32_t acc_mu1 = 0, acc_mu2 = 0;
    // libvmaf's 64-bit sums of xx, yy, xy, each from the sums of its two 16-bit
    // halves (StatRows): those are below 65536 * 65536 (the taps sum to 65536),
    // so 32 bits hold them exactly.
    std::uint32_t acc_xx_lo = 0, acc_xx_hi = 0, acc_yy_lo = 0, acc_yy_hi = 0;
    std::uint32_t acc_xy_lo = 0, acc_xy_hi = 0;
    const int first = static_cast<int>(j) - half;
    for (unsigned k = 0; k < fwidth; ++k) {
      const int c = first + static_cast<int>(k);
      const std::uint32_t coeff = filter.taps[k];
      acc_mu1 += coeff * unbiased(mu1[c]);
      acc_mu2 += coeff * unbiased(mu2[c]);
      acc_xx_lo += coeff * unbiased(xx_lo[c]);
      acc_xx_hi += coeff * unbiased(xx_hi[c]);
      acc_yy_lo += coeff * unbiased(yy_lo[c]);
      acc_yy_hi += coeff * unbiased(yy_hi[c]);
      acc_xy_lo += coeff * unbiased(xy_lo[c]);
      acc_xy_hi += coeff * unbiased(xy_hi[c]);
    }
    const auto joined = [](std::uint32_t lo, std::uint32_t hi) {
      return (std::uint64_t{hi} << 16) + lo;
    };
    accumulate_pixel(sums, acc_mu1, acc_mu2, joined(acc_xx_lo, acc_xx_hi),
                     joined(acc_yy_lo, acc_yy_hi), joined(acc_xy_lo, acc_xy_hi), log2_table,
                     enhn_gain_limit);
  }
  total += sums;
}

template <typename Sample, unsigned kWidth = 0>
inline void lowpass_vertical(const Sample* const* ref, const Sample* const* dis,
                             const Filter& filter, std::uint32_t round, unsigned shift,
                             unsigned begin, unsigned end, std::int16_t* ref_out,
                             std::int16_t* dis_out) {
  const unsigned fwidth = kWidth != 0 ? kWidth : filter.width;
  for (unsigned j = begin; j < end; ++j) {
    std::uint32_t acc_ref = 0, acc_dis = 0;
    for (unsigned k = 0; k < fwidth; ++k) {
      acc_ref += filter.taps[k] * static_cast<std::uint32_t>(ref[k][j]);
      acc_dis += filter.taps[k] * static_cast<std::uint32_t>(dis[k][j]);
    }
    ref_out[j] = biased(static_cast<std::uint16_t>((acc_ref + round) >> shift));
    dis_out[j] = biased(static_cast<std::uint16_t>((acc_dis + round) >> shift));
  }
}

template <unsigned kWidth = 0>
inline void lowpass_horizontal(const std::int16_t* ref_in, const std::int16_t* dis_in,
                               const Filter& filter, unsigned begin, unsigned end,
                               std::uint16_t* ref_out, std::uint16_t* dis_out) {
  const unsigned fwidth = kWidth != 0 ? kWidth : filter.width;
  const int half = static_cast<int>(filter.half());
  for (unsigned oj = begin; oj < end; ++oj) {
    const int first = static_cast<int>(2 * oj) - half;
    std::uint32_t acc_ref = 0, acc_dis = 0;
    for (unsigned k = 0; k < fwidth; ++k) {
      acc_ref += filter.taps[k] * unbiased(ref_in[first + static_cast<int>(k)]);
      acc_dis += filter.taps[k] * unbiased(dis_in[first + static_cast<int>(k)]);
    }
    ref_out[oj] = static_cast<std::uint16_t>((acc_ref + 32768) >> 16);
    dis_out[oj] = static_cast<std::uint16_t>((acc_dis + 32768) >> 16);
  }
}

}  // namespace vmafexact::vif::scalar
