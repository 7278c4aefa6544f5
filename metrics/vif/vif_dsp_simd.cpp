// The SIMD twins of the VIF DSP routines, written once over the vector layer
// `V` (metrics/common/simd.h) and compiled once per ISA by metrics/meson.build
// (vif_dsp_avx2(), vif_dsp_avx512(), and vif_dsp_avx512vnni(): the AVX-512
// build with VNNI as well, whose V::add_madd16 is one vpdpwssd, the horizontal
// filters' multiply-adds fused with their sums, modulo 2^32 as before: the
// same bits; vif_dsp.cpp hands it out as the AVX-512 table where the CPU has
// VNNI and the mask allows it). No FMA: the project builds with
// -ffp-contract=off, and meson checks the objects.
//
// V has N 32-bit lanes in an integer vector I (also read as N/2 64-bit lanes),
// a lane mask M, half-width integer vectors H and double vectors D of N/2 lanes.
// Exactness, routine by routine, against vif_dsp_scalar.h:
//  * 32-bit sums (means, low-pass) are computed modulo 2^32 as the scalar code's
//    uint32 sums are; 64-bit sums of squares hold exact products (< 2^48) of a
//    32-bit factor and a sample or a 32-bit row entry, as the scalar's do. Sums
//    of integers are exact in any order.
//  * 8-bit statistic, vertical: every term and the sum fit in 32 bits (taps sum
//    to 65536, 65536 * 255^2 < 2^32), so 32-bit lanes give the 64-bit values.
//  * accumulate_pixel: the same integer steps per lane; the log2 lookups find
//    the same exponent and the same 16 leading bits; the gain uses IEEE double
//    division, multiplication, subtraction and addition per element, in the
//    scalar's order, and truncation toward zero (no FMA: built without
//    contraction); sums added in a different order are exact integers.
// Each row's columns beyond the last whole vector go to the scalar reference.

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include "common/simd.h"
#include "vif/vif_dsp.h"
#include "vif/vif_dsp_scalar.h"

namespace vmafexact::vif {
namespace VMAFEXACT_ISA {
namespace {

// N lanes below 2^16 stored as biased int16 entries (StatRows): the low 16
// bits of value - 32768.
template <class V>
inline void store_biased(std::int16_t* p, typename V::I v) {
  V::store_low16(p, V::sub32(v, V::set32(32768)));
}

// N 32-bit sums stored split into their low and high 16 bits (StatRows).
template <class V>
inline void store_split_lanes(std::int16_t* lo, std::int16_t* hi, unsigned j, typename V::I v) {
  store_biased<V>(lo + j, v);  // the low 16 bits: truncation drops the rest
  store_biased<V>(hi + j, V::template srli32<16>(v));
}

inline bool taps_fit_int16(const Filter& filter);
inline std::uint32_t tap_sum(const Filter& filter);
inline std::uint32_t tap_pair(const Filter& filter, int low);

#if defined(__AVX512BW__)
// The 16-bit vertical pass above scale 0 (means and squares both
// (sum + 32768) >> 16) for taps below 2^15 summing to at most 65536, AVX-512,
// 32 columns a step; returns the first column not done. The window's rows go
// in pairs (2p, 2p + 1) through one multiply-add (V::add_madd16) with taps 2p
// and 2p + 1: x, and each square and product x * y (below 2^32) split into its
// low and high 16 bits (vpmullw, vpmulhuw), all biased by -32768 to fit int16
// and interleaved row with row (vpunpcklwd / vpunpckhwd: columns 0-3 and 4-7 of
// every 128-bit lane). The sums start from 32768 times the taps' sum, which
// takes the bias off modulo 2^32. A row of 16-bit values filtered by taps
// summing to at most 65536 is below 2^32, so the low halves' sum lo and the
// high halves' sum hi are exact, and (65536 * hi + lo + 32768) >> 16 is
// hi + (lo + 32768) >> 16 (lo + 32768 < 2^32), modulo 2^32 as the scalar's cut
// to 32 bits. vpackssdw puts the columns back in order (its two sources'
// 128-bit lanes hold columns 0-3 and 4-7 of the same eight) and cannot
// saturate the biased values. Against the 64-bit products of the one-tap loop
// below: about a fifth fewer instructions per output.
template <class V, unsigned kWidth>
unsigned stat_vertical_16_paired(const std::uint16_t* const* ref, const std::uint16_t* const* dis,
                                 const Filter& filter, unsigned w, const StatRows& out) {
  using I = typename V::I;
  constexpr unsigned kPairs = (kWidth + 1) / 2;
  I taps[kPairs];
  for (unsigned p = 0; p < kPairs; ++p)
    taps[p] = V::set32(tap_pair(filter, static_cast<int>(2 * p)));
  const std::uint32_t sum = tap_sum(filter);
  const I bias16 = _mm512_set1_epi16(static_cast<short>(0x8000));
  const I unbias = V::set32(32768u * sum);
  const I unbias_round = V::set32(32768u * sum + 32768u);
  const I bias32 = V::set32(32768);
  // The eight quantities per column: x, y, then x*x, y*y, x*y as (low, high).
  constexpr unsigned kQuantities = 8;
  unsigned j = 0;
  for (; j + 32 <= w; j += 32) {
    I acc[kQuantities][2];
    for (unsigned q = 0; q < kQuantities; ++q) {
      // The means and the low halves round; the high halves do not.
      const I start = q < 2 || q % 2 == 0 ? unbias_round : unbias;
      acc[q][0] = acc[q][1] = start;
    }
#pragma GCC unroll 16
    for (unsigned p = 0; p < kPairs; ++p) {
      // A filter of odd width: its last pair's second row is its first (tap 0).
      const unsigned second = 2 * p + 1 < kWidth ? 2 * p + 1 : 2 * p;
      const I x0 = _mm512_loadu_si512(ref[2 * p] + j), x1 = _mm512_loadu_si512(ref[second] + j);
      const I y0 = _mm512_loadu_si512(dis[2 * p] + j), y1 = _mm512_loadu_si512(dis[second] + j);
      const auto add = [&](unsigned q, I v0, I v1) __attribute__((always_inline)) {
        v0 = _mm512_xor_si512(v0, bias16);
        v1 = _mm512_xor_si512(v1, bias16);
        acc[q][0] = V::add_madd16(acc[q][0], _mm512_unpacklo_epi16(v0, v1), taps[p]);
        acc[q][1] = V::add_madd16(acc[q][1], _mm512_unpackhi_epi16(v0, v1), taps[p]);
      };
      add(0, x0, x1);
      add(1, y0, y1);
      add(2, _mm512_mullo_epi16(x0, x0), _mm512_mullo_epi16(x1, x1));
      add(3, _mm512_mulhi_epu16(x0, x0), _mm512_mulhi_epu16(x1, x1));
      add(4, _mm512_mullo_epi16(y0, y0), _mm512_mullo_epi16(y1, y1));
      add(5, _mm512_mulhi_epu16(y0, y0), _mm512_mulhi_epu16(y1, y1));
      add(6, _mm512_mullo_epi16(x0, y0), _mm512_mullo_epi16(x1, y1));
      add(7, _mm512_mulhi_epu16(x0, y0), _mm512_mulhi_epu16(x1, y1));
    }
    // Values below 2^16 of both halves, biased, in column order.
    const auto store = [&](std::int16_t* to, I low_columns, I high_columns)
                           __attribute__((always_inline)) {
      _mm512_storeu_si512(to + j, _mm512_packs_epi32(V::sub32(low_columns, bias32),
                                                     V::sub32(high_columns, bias32)));
    };
    store(out.mu1, V::template srli32<16>(acc[0][0]), V::template srli32<16>(acc[0][1]));
    store(out.mu2, V::template srli32<16>(acc[1][0]), V::template srli32<16>(acc[1][1]));
    const auto store_square = [&](std::int16_t* lo, std::int16_t* hi, const I* low_sums,
                                  const I* high_sums) __attribute__((always_inline)) {
      I value[2];
      for (unsigned h = 0; h < 2; ++h)
        value[h] = V::add32(high_sums[h], V::template srli32<16>(low_sums[h]));
      const I low16 = V::set32(0xFFFF);
      store(lo, V::and_(value[0], low16), V::and_(value[1], low16));
      store(hi, V::template srli32<16>(value[0]), V::template srli32<16>(value[1]));
    };
    store_square(out.xx_lo, out.xx_hi, acc[2], acc[3]);
    store_square(out.yy_lo, out.yy_hi, acc[4], acc[5]);
    store_square(out.xy_lo, out.xy_hi, acc[6], acc[7]);
  }
  return j;
}
#endif

// kWidth: the filter's width, known at compile time so that the tap loops
// unroll (0: filter.width at run time).
template <class V, typename Sample, unsigned kWidth>
void stat_vertical_width(const Sample* const* ref, const Sample* const* dis, const Filter& filter,
                         const VerticalRounding& rd, unsigned w, const StatRows& out) {
  using I = typename V::I;
  constexpr unsigned N = V::N;
  const unsigned fwidth = kWidth != 0 ? kWidth : filter.width;
  I taps[kMaxFilterWidth];
  for (unsigned k = 0; k < fwidth; ++k) taps[k] = V::set32(filter.taps[k]);
  const I round_mu = V::set32(rd.round_mu);
  unsigned j = 0;
  if constexpr (sizeof(Sample) == 1) {
    if (rd.round_sq == 0 && rd.shift_sq == 0) {
      // kBlock vectors side by side: each tap's row pointers are read once for all.
      // One vector a step, the tap loop not unrolled: unrolled (or two vectors a
      // step) GCC hoists the taps' loads and spills them; fewer instructions,
      // but half again as slow on the fixtures (perf, same process).
      constexpr unsigned kBlock = 1;
      auto block = [&]<unsigned kCount>(std::integral_constant<unsigned, kCount>)
          __attribute__((always_inline)) {
        I mu1[kCount], mu2[kCount], xx[kCount], yy[kCount], xy[kCount];
        for (unsigned b = 0; b < kCount; ++b) mu1[b] = mu2[b] = xx[b] = yy[b] = xy[b] = V::zero();
#pragma GCC unroll 1
        for (unsigned k = 0; k < fwidth; ++k) {
          const Sample* ref_row = ref[k] + j;
          const Sample* dis_row = dis[k] + j;
          for (unsigned b = 0; b < kCount; ++b) {
            const I r = V::load(ref_row + b * N), d = V::load(dis_row + b * N);
            const I cr = V::mullo32(taps[k], r), cd = V::mullo32(taps[k], d);
            mu1[b] = V::add32(mu1[b], cr);
            mu2[b] = V::add32(mu2[b], cd);
            xx[b] = V::add32(xx[b], V::mullo32(cr, r));
            yy[b] = V::add32(yy[b], V::mullo32(cd, d));
            xy[b] = V::add32(xy[b], V::mullo32(cr, d));
          }
        }
        for (unsigned b = 0; b < kCount; ++b) {
          const unsigned at = j + b * N;
          store_biased<V>(out.mu1 + at, V::srl32(V::add32(mu1[b], round_mu), rd.shift_mu));
          store_biased<V>(out.mu2 + at, V::srl32(V::add32(mu2[b], round_mu), rd.shift_mu));
          store_split_lanes<V>(out.xx_lo, out.xx_hi, at, xx[b]);
          store_split_lanes<V>(out.yy_lo, out.yy_hi, at, yy[b]);
          store_split_lanes<V>(out.xy_lo, out.xy_hi, at, xy[b]);
        }
      };
      for (; j + kBlock * N <= w; j += kBlock * N)
        block(std::integral_constant<unsigned, kBlock>{});
      for (; j + N <= w; j += N) block(std::integral_constant<unsigned, 1>{});
    }
  } else {
#if defined(__AVX512BW__)
    if constexpr (kWidth != 0) {
      if (rd.round_mu == 32768 && rd.shift_mu == 16 && rd.round_sq == 32768 &&
          rd.shift_sq == 16 && taps_fit_int16(filter) && tap_sum(filter) <= 65536)
        j = stat_vertical_16_paired<V, kWidth>(ref, dis, filter, w, out);
    }
#endif
    const I round_sq = V::set64(rd.round_sq);
    for (; j + N <= w; j += N) {
      I mu1 = V::zero(), mu2 = V::zero();
      I xx_e = V::zero(), xx_o = V::zero(), yy_e = V::zero(), yy_o = V::zero();
      I xy_e = V::zero(), xy_o = V::zero();
#pragma GCC unroll 1
      for (unsigned k = 0; k < fwidth; ++k) {
        const I r = V::load(ref[k] + j), d = V::load(dis[k] + j);
        const I cr = V::mullo32(taps[k], r), cd = V::mullo32(taps[k], d);
        mu1 = V::add32(mu1, cr);
        mu2 = V::add32(mu2, cd);
        const I r_o = V::odd(r), d_o = V::odd(d), cr_o = V::odd(cr), cd_o = V::odd(cd);
        xx_e = V::add64(xx_e, V::mulu32x32(cr, r));
        xx_o = V::add64(xx_o, V::mulu32x32(cr_o, r_o));
        yy_e = V::add64(yy_e, V::mulu32x32(cd, d));
        yy_o = V::add64(yy_o, V::mulu32x32(cd_o, d_o));
        xy_e = V::add64(xy_e, V::mulu32x32(cr, d));
        xy_o = V::add64(xy_o, V::mulu32x32(cr_o, d_o));
      }
      store_biased<V>(out.mu1 + j, V::srl32(V::add32(mu1, round_mu), rd.shift_mu));
      store_biased<V>(out.mu2 + j, V::srl32(V::add32(mu2, round_mu), rd.shift_mu));
      auto finish = [&](I even, I odd) {
        return V::join(V::srl64(V::add64(even, round_sq), rd.shift_sq),
                       V::srl64(V::add64(odd, round_sq), rd.shift_sq));
      };
      store_split_lanes<V>(out.xx_lo, out.xx_hi, j, finish(xx_e, xx_o));
      store_split_lanes<V>(out.yy_lo, out.yy_hi, j, finish(yy_e, yy_o));
      store_split_lanes<V>(out.xy_lo, out.xy_hi, j, finish(xy_e, xy_o));
    }
  }
  scalar::stat_vertical<Sample, kWidth>(ref, dis, filter, rd, j, w, out);
}

// Calls body(std::integral_constant<unsigned, width>) for VIF's four filter
// widths, body(integral_constant<unsigned, 0>) for any other.
template <typename Body>
[[gnu::always_inline]] inline void with_filter_width(const Filter& filter, Body body) {
  switch (filter.width) {
    case 17:
      return body(std::integral_constant<unsigned, 17>{});
    case 9:
      return body(std::integral_constant<unsigned, 9>{});
    case 5:
      return body(std::integral_constant<unsigned, 5>{});
    case 3:
      return body(std::integral_constant<unsigned, 3>{});
    default:
      return body(std::integral_constant<unsigned, 0>{});
  }
}

template <class V, typename Sample>
void stat_vertical(const Sample* const* ref, const Sample* const* dis, const Filter& filter,
                   const VerticalRounding& rd, unsigned w, const StatRows& out) {
  with_filter_width(filter, [&](auto width) {
    stat_vertical_width<V, Sample, width()>(ref, dis, filter, rd, w, out);
  });
}

inline bool is_symmetric(const Filter& filter) {
  for (unsigned k = 0; k < filter.half(); ++k)
    if (filter.taps[k] != filter.taps[filter.width - 1 - k]) return false;
  return true;
}

inline bool taps_fit_int16(const Filter& filter) {
  for (unsigned k = 0; k < filter.width; ++k)
    if (filter.taps[k] >= 32768) return false;
  return true;
}

inline std::uint32_t tap_sum(const Filter& filter) {
  std::uint32_t sum = 0;
  for (unsigned k = 0; k < filter.width; ++k) sum += filter.taps[k];
  return sum;
}

// Taps `low` and `low + 1` as one pmaddwd operand: two int16 lanes, tap `low`
// in the low half; taps outside the filter are 0.
inline std::uint32_t tap_pair(const Filter& filter, int low) {
  const auto tap = [&](int k) -> std::uint32_t {
    return k >= 0 && k < static_cast<int>(filter.width) ? filter.taps[k] : 0;
  };
  return tap(low + 1) << 16 | tap(low);
}

// kRows rows of the 8-bit vertical pass with libvmaf's 8-bit rounding (the
// squares kept whole) and taps below 2^15: the window's rows are read in pairs
// (2p, 2p + 1), each pair once for all kRows outputs, as int16 pairs in 32-bit
// lanes (row 2p low) for pmaddwd: output n takes the pair with its taps
// 2p - n and 2p + 1 - n (0 outside the filter). The squares and the product
// (below 2^16) are formed once per pair in 16 bits and biased by -32768 to fit
// int16; the outputs start from 32768 times the taps' sum, which removes the
// bias. Every sum is taken modulo 2^32 and the true sums are below 2^32
// (taps summing to 65536, squares below 2^16), so they are the scalar's.
//
// kLowpass: the rows' window pairs also give the decimation's vertical
// low-pass (9 taps, LowpassRows) of the even outputs n, whose window (rows
// n + 4 .. n + 12, centred with the 17-tap one) is pairs (n + 4) / 2 on, taps
// 2p - n - 4 and 2p - n - 3; their sums (below 2^24) stay exact.
template <class V, unsigned kWidth, unsigned kRows, bool kLowpass>
void stat_vertical_8_rows(const std::uint8_t* const* ref, const std::uint8_t* const* dis,
                          const Filter& filter, const VerticalRounding& rd, unsigned w,
                          const StatRows* out, const LowpassRows* lowpass) {
  using I = typename V::I;
  constexpr unsigned N = V::N;
  constexpr unsigned kPairs = (kWidth + kRows - 1) / 2;
  static_assert((kWidth + kRows - 1) % 2 == 0, "the window is read in whole pairs");
  // Whether output n's taps reach pair p (known at compile time).
  constexpr auto reaches = [](unsigned n, unsigned p) {
    return 2 * p + 1 >= n && 2 * p < n + kWidth;
  };
  std::uint32_t tap_pairs[kRows][kPairs];
  for (unsigned n = 0; n < kRows; ++n)
    for (unsigned p = 0; p < kPairs; ++p)
      tap_pairs[n][p] = tap_pair(filter, static_cast<int>(2 * p) - static_cast<int>(n));
  const I unbias = V::set32(32768u * tap_sum(filter));
  const I bias16 = V::set32(0x80008000u);
  const I round_mu = V::set32(rd.round_mu);
  // The low-pass outputs: m = 0, 1 for block rows 0 and 2 (m = n / 2).
  constexpr unsigned kLowpassRows = kLowpass ? (kRows + 1) / 2 : 0;
  constexpr unsigned kLowpassWidth = 9, kLowpassOffset = (kWidth - kLowpassWidth) / 2;
  static_assert(kLowpassOffset % 2 == 0, "the low-pass window starts on a pair");
  constexpr auto lowpass_reaches = [](unsigned m, unsigned p) {
    return 2 * p + 1 >= 2 * m + kLowpassOffset && 2 * p < 2 * m + kLowpassOffset + kLowpassWidth;
  };
  std::uint32_t lowpass_pairs[kLowpassRows + 1][kPairs] = {};
  I lowpass_round = V::zero();
  if constexpr (kLowpass) {
    for (unsigned m = 0; m < kLowpassRows; ++m)
      for (unsigned p = 0; p < kPairs; ++p)
        lowpass_pairs[m][p] = tap_pair(
            *lowpass->filter, static_cast<int>(2 * p) - static_cast<int>(2 * m + kLowpassOffset));
    lowpass_round = V::set32(lowpass->round);
  }
  unsigned j = 0;
  for (; j + N <= w; j += N) {
    I mu1[kRows], mu2[kRows], xx[kRows], yy[kRows], xy[kRows];
    I low_ref[kLowpassRows + 1], low_dis[kLowpassRows + 1];
    for (unsigned n = 0; n < kRows; ++n) {
      mu1[n] = mu2[n] = V::zero();
      xx[n] = yy[n] = xy[n] = unbias;
    }
    for (unsigned m = 0; m < kLowpassRows; ++m) low_ref[m] = low_dis[m] = lowpass_round;
#pragma GCC unroll 16
    for (unsigned p = 0; p < kPairs; ++p) {
      const I r =
          V::or_(V::load(ref[2 * p] + j), V::template slli32<16>(V::load(ref[2 * p + 1] + j)));
      const I d =
          V::or_(V::load(dis[2 * p] + j), V::template slli32<16>(V::load(dis[2 * p + 1] + j)));
      const I rr = V::sub16(V::mullo16(r, r), bias16);
      const I dd = V::sub16(V::mullo16(d, d), bias16);
      const I rdp = V::sub16(V::mullo16(r, d), bias16);
#pragma GCC unroll 16
      for (unsigned n = 0; n < kRows; ++n) {
        if (!reaches(n, p)) continue;
        const I t = V::set32(tap_pairs[n][p]);
        mu1[n] = V::add_madd16(mu1[n], r, t);
        mu2[n] = V::add_madd16(mu2[n], d, t);
        xx[n] = V::add_madd16(xx[n], rr, t);
        yy[n] = V::add_madd16(yy[n], dd, t);
        xy[n] = V::add_madd16(xy[n], rdp, t);
      }
#pragma GCC unroll 16
      for (unsigned m = 0; m < kLowpassRows; ++m) {
        if (!lowpass_reaches(m, p)) continue;
        const I t = V::set32(lowpass_pairs[m][p]);
        low_ref[m] = V::add_madd16(low_ref[m], r, t);
        low_dis[m] = V::add_madd16(low_dis[m], d, t);
      }
    }
    for (unsigned m = 0; m < kLowpassRows; ++m) {
      // store_biased keeps the low 16 bits: the scalar's cut to 16 bits.
      store_biased<V>(lowpass->ref_out[m] + j, V::srl32(low_ref[m], lowpass->shift));
      store_biased<V>(lowpass->dis_out[m] + j, V::srl32(low_dis[m], lowpass->shift));
    }
    for (unsigned n = 0; n < kRows; ++n) {
      store_biased<V>(out[n].mu1 + j, V::srl32(V::add32(mu1[n], round_mu), rd.shift_mu));
      store_biased<V>(out[n].mu2 + j, V::srl32(V::add32(mu2[n], round_mu), rd.shift_mu));
      store_split_lanes<V>(out[n].xx_lo, out[n].xx_hi, j, xx[n]);
      store_split_lanes<V>(out[n].yy_lo, out[n].yy_hi, j, yy[n]);
      store_split_lanes<V>(out[n].xy_lo, out[n].xy_hi, j, xy[n]);
    }
  }
  for (unsigned n = 0; n < kRows; ++n)
    scalar::stat_vertical<std::uint8_t, kWidth>(ref + n, dis + n, filter, rd, j, w, out[n]);
  for (unsigned m = 0; m < kLowpassRows; ++m)
    scalar::lowpass_vertical<std::uint8_t, kLowpassWidth>(
        ref + kLowpassOffset + 2 * m, dis + kLowpassOffset + 2 * m, *lowpass->filter,
        lowpass->round, lowpass->shift, j, w, lowpass->ref_out[m], lowpass->dis_out[m]);
}

template <class V, typename Sample>
void lowpass_vertical(const Sample* const* ref, const Sample* const* dis, const Filter& filter,
                      std::uint32_t round, unsigned shift, unsigned w, std::int16_t* ref_out,
                      std::int16_t* dis_out);

// kStatBlock rows of the 8-bit vertical pass: VIF's 17-tap filter at libvmaf's
// 8-bit rounding in pairs of window rows (4 outputs a step with 32 vector
// registers, 2 with 16; the low-pass rows with them where its filter has 9
// taps below 2^15), anything else a row at a time.
template <class V>
void stat_vertical_8_block(const std::uint8_t* const* ref, const std::uint8_t* const* dis,
                           const Filter& filter, const VerticalRounding& rd, unsigned w,
                           const StatRows* out, const LowpassRows* lowpass) {
  constexpr unsigned kRows = V::N >= 16 ? 4 : 2;
  static_assert(kStatBlock % kRows == 0 && kStatBlock / kRows * ((kRows + 1) / 2) == 2);
  const bool paired =
      filter.width == 17 && rd.round_sq == 0 && rd.shift_sq == 0 && taps_fit_int16(filter);
  const bool fused =
      lowpass != nullptr && lowpass->filter->width == 9 && taps_fit_int16(*lowpass->filter);
  if (paired && (fused || lowpass == nullptr)) {
    for (unsigned n = 0; n < kStatBlock; n += kRows) {
      if (fused) {
        // This call's low-pass rows: block rows n and n + 2 inside it.
        LowpassRows part = *lowpass;
        for (unsigned m = 0; m < (kRows + 1) / 2; ++m) {
          part.ref_out[m] = lowpass->ref_out[n / 2 + m];
          part.dis_out[m] = lowpass->dis_out[n / 2 + m];
        }
        stat_vertical_8_rows<V, 17, kRows, true>(ref + n, dis + n, filter, rd, w, out + n, &part);
      } else {
        stat_vertical_8_rows<V, 17, kRows, false>(ref + n, dis + n, filter, rd, w, out + n,
                                                  nullptr);
      }
    }
    return;
  }
  for (unsigned n = 0; n < kStatBlock; ++n)
    stat_vertical<V, std::uint8_t>(ref + n, dis + n, filter, rd, w, out[n]);
  if (lowpass == nullptr) return;
  const unsigned offset = filter.half() - lowpass->filter->half();
  for (unsigned m = 0; m < 2; ++m)
    lowpass_vertical<V, std::uint8_t>(ref + offset + 2 * m, dis + offset + 2 * m, *lowpass->filter,
                                      lowpass->round, lowpass->shift, w, lowpass->ref_out[m],
                                      lowpass->dis_out[m]);
}

// (a * b + 2^31) >> 32 per 32-bit lane, in 64 bits (accumulate_pixel's mu
// products): the even lanes' results shifted down into place, the odd lanes'
// already in the high halves of their 64-bit lanes.
template <class V>
inline typename V::I mul_round_high(typename V::I a, typename V::I b) {
  const typename V::I half = V::set64(0x80000000u);
  return V::blend_odd(V::template srli64<32>(V::add64(V::mulu32x32(a, b), half)),
                      V::add64(V::mulu32x32(V::odd(a), V::odd(b)), half));
}

// libvmaf's log2 ratio of the gain, for N lanes where sigma1_sq >= sigma_nsq,
// sigma12 > 0 and sigma2_sq > 0: log2_64(g*g*sigma1_sq + numer1) -
// log2_64(numer1) in accumulate_pixel's order. The gain is formed in doubles,
// N/2 lanes at a time (the integers are exact in double); the two logs are
// looked up N lanes at once, numer1's as log2_32 (it is below 2^32, where
// log2_64 and log2_32 agree).
template <class V>
inline typename V::I gain_log(typename V::I s1, typename V::I s12, typename V::I s2,
                              const std::uint16_t* table, double enhn_gain_limit) {
  using D = typename V::D;
  using H = typename V::H;
  struct Half {
    D numer1_tmp;
    H sv_sq;
  };
  const auto half = [&](H s1_h, H s12_h, H s2_h) __attribute__((always_inline)) {
    const D s1 = V::cvt_i32_f64(s1_h), s12 = V::cvt_i32_f64(s12_h), s2 = V::cvt_i32_f64(s2_h);
    const double eps = 65536 * 1.0e-10;  // as accumulate_pixel writes it
    D g = V::divd(s12, V::addd(s1, V::set1d(eps)));
    const D sv = V::subd(s2, V::muld(g, s12));
    // sv_sq = sv > 0 ? (int32)sv : 0; sv <= sigma2_sq < 2^31, so the truncated
    // double is that integer exactly.
    const D sv_sq = V::truncd(V::positive_or_zero(sv));
    g = V::mind(g, V::set1d(enhn_gain_limit));  // g < limit ? g : limit
    const D numer1 = V::addd(sv_sq, V::set1d(static_cast<double>(kSigmaNsq)));
    // (int64)(g * g * sigma1_sq) + numer1: the truncation is exact and so is the
    // sum (both below 2^53; g <= 100, sigma1_sq < 2^31).
    return Half{V::addd(V::truncd(V::muld(V::muld(g, g), s1)), numer1), V::cvtt_f64_i32(sv_sq)};
  };
  const Half lo = half(V::low_half(s1), V::low_half(s12), V::low_half(s2));
  const Half hi = half(V::high_half(s1), V::high_half(s12), V::high_half(s2));
  // numer1 = sv_sq + sigma_nsq < 2^31 + 2^17: unsigned 32 bits, as libvmaf's.
  const typename V::I numer1 = V::add32(V::combine(lo.sv_sq, hi.sv_sq), V::set32(kSigmaNsq));
  return V::sub32(V::log2_64x2(table, lo.numer1_tmp, hi.numer1_tmp), V::log2_32(table, numer1));
}

// The horizontal filter of a StatRows row, N outputs at a time, in 32-bit
// lanes modulo 2^32 as the scalar's uint32 sums: each entry holds x - 32768
// (x < 2^16), so the lanes sum taps * x - 32768 * (sum of the taps), and
// `unbias` (32768 times the taps' sum) restores taps * x. The sums of a row of
// 16-bit values fit in 32 bits (the taps sum to 65536), so they are exact.
//
// paired_filter: taps below 2^15, two per int16 multiply-add (pmaddwd): lane
// m of a load at column first + 2p holds entries first + 2m + 2p and
// first + 2m + 2p + 1, which are taps 2p and 2p + 1 of output first + 2m + half
// (the even outputs) and taps 2p - 1 and 2p of the next one (the odd outputs):
// each load serves both, with tap pairs even_taps[p] and odd_taps[p] (0 outside
// the filter), so 2N outputs of a row take (kWidth + 1) / 2 loads. With 16
// vector registers (AVX2) the sixteen sums of eight rows do not fit, so the
// even and the odd outputs are filtered one after the other, each load taken
// as the multiply-add's memory operand (the first overload).
template <class V, unsigned kWidth>
[[gnu::always_inline]] inline typename V::I paired_filter(const std::int16_t* row, int first,
                                                          const typename V::I* tap_pairs,
                                                          typename V::I start) {
  typename V::I acc = start;
#pragma GCC unroll 16
  for (unsigned p = 0; p < (kWidth + 1) / 2; ++p)
    acc = V::add_madd16(
        acc, tap_pairs[p],
        V::load(reinterpret_cast<const std::uint32_t*>(row + first + 2 * static_cast<int>(p))));
  return acc;
}
template <class V, unsigned kWidth>
[[gnu::always_inline]] inline void paired_filter(const std::int16_t* row, int first,
                                                 const typename V::I* even_taps,
                                                 const typename V::I* odd_taps, typename V::I start,
                                                 typename V::I& even, typename V::I& odd) {
  constexpr unsigned pairs = (kWidth + 1) / 2;
  static_assert(kWidth % 2 == 1, "odd outputs take the even outputs' pairs");
  even = odd = start;
#pragma GCC unroll 16
  for (unsigned p = 0; p < pairs; ++p) {
    const typename V::I entries =
        V::load(reinterpret_cast<const std::uint32_t*>(row + first + 2 * static_cast<int>(p)));
    even = V::add_madd16(even, entries, even_taps[p]);
    odd = V::add_madd16(odd, entries, odd_taps[p]);
  }
}

// symmetric_filter: any taps (VIF's 3-tap filter has one of 43690), for a
// filter of kWidth symmetric taps (taps[k] == taps[kWidth - 1 - k]): the two
// columns of a tap pair are added before the multiply; N consecutive outputs.
template <class V, unsigned kWidth>
[[gnu::always_inline]] inline typename V::I symmetric_filter(const std::int16_t* row, int first,
                                                             const typename V::I* taps,
                                                             typename V::I unbias) {
  constexpr unsigned half = kWidth / 2;
  typename V::I acc = V::add32(unbias, V::mullo32(taps[half], V::load(row + first + half)));
#pragma GCC unroll 16
  for (unsigned k = 0; k < half; ++k)
    acc = V::add32(acc, V::mullo32(taps[k], V::add32(V::load(row + first + k),
                                                     V::load(row + first + (kWidth - 1 - k)))));
  return acc;
}

// (xx + 32768) >> 16 cut to 32 bits, for xx = (hi << 16) + lo given its
// filtered halves, the low one with 32768 added (`round_lo`, stat_horizontal):
// hi + (lo + 32768) >> 16. lo + 32768 stays below 2^32 where the taps sum to at
// most 65536 (65535 * 65536 + 32768 < 2^32), which stat_horizontal checks.
template <class V>
[[gnu::always_inline]] inline typename V::I round_joined(typename V::I lo_rounded,
                                                         typename V::I hi) {
  return V::add32(hi, V::template srli32<16>(lo_rounded));
}

// The horizontal pass's vector constants, one set for both of its loops
// (stat_horizontal_packed, stat_horizontal_width).
template <class V>
struct HorizontalConstants {
  using I = typename V::I;
  explicit HorizontalConstants(const Filter& filter) : HorizontalConstants(tap_sum(filter)) {}
  explicit HorizontalConstants(std::uint32_t sum)
      : unbias(V::set32(32768u * sum)), round_lo(V::set32(32768u * sum + 32768u)) {}
  I unbias;    // takes the rows' -32768 bias off the filtered sums
  I round_lo;  // unbias and round (round_joined)
  I nsq = V::set32(kSigmaNsq);
  I one = V::set32(1);
  I den_log_offset = V::set32(2048 * 17);
  I low32 = V::set64(0xFFFFFFFFu);
};

// The AVX-512 horizontal pass for taps below 2^15, in two loops per block of
// kPackBlock columns. The first filters the eight rows (paired_filter, 2N
// outputs a step), finishes the pixels below the noise floor (sigma1_sq <
// sigma_nsq: no logarithm) and packs the others' sigma1_sq, sigma2_sq and
// sigma12 side by side (vpcompressd); the second takes the packed pixels N at
// a time through the logarithms and the gain. In one loop a step (eight rows
// filtered, then three table gathers behind a double division) is too long
// for the core to run the next step's filtering while it waits on the
// gathers, which took a third of the pass; the second loop's steps are short
// enough to overlap, and its gathers have every lane busy where the first
// loop's often had half. Every sum is of integers, so the order is free; the
// zeros stored after the last packed pixel add log2(sigma_nsq) - 17 * 2048 = 0
// to den_log and fail the gain's sigma12 > 0, so they add nothing.
template <class V, unsigned kWidth>
void stat_horizontal_packed(const StatRows& in, const Filter& filter, unsigned w,
                            const std::uint16_t* table, double enhn_gain_limit, ScaleSums& sums) {
  using I = typename V::I;
  using M = typename V::M;
  constexpr unsigned N = V::N;
  constexpr unsigned kStep = 2 * N;
  constexpr unsigned kPairs = (kWidth + 1) / 2;
  constexpr int half = static_cast<int>(kWidth / 2);
  I even_taps[kPairs], odd_taps[kPairs];
  for (unsigned p = 0; p < kPairs; ++p) {
    even_taps[p] = V::set32(tap_pair(filter, static_cast<int>(2 * p)));
    odd_taps[p] = V::set32(tap_pair(filter, static_cast<int>(2 * p) - 1));
  }
  const HorizontalConstants<V> constants(filter);
  // Named references, not a structured binding: the lambdas below capture
  // them, which clang before 16 (Debian 12 has 14, scripts/fuzz.sh) refuses.
  const I& unbias = constants.unbias;
  const I& round_lo = constants.round_lo;
  const I& nsq = constants.nsq;
  const I& one = constants.one;
  const I& den_log_offset = constants.den_log_offset;
  const I& low32 = constants.low32;

  // Columns per block: each int32 lane sum below adds at most kPackBlock / N
  // terms below 2^17 before it moves to the int64 sums; the packed values of a
  // block (6 KiB) stay in L1.
  constexpr unsigned kPackBlock = 512;
  alignas(64) std::int32_t packed_s1[kPackBlock + N];
  alignas(64) std::int32_t packed_s2[kPackBlock + N];
  alignas(64) std::int32_t packed_s12[kPackBlock + N];

  I num_non_log_e = V::zero(), num_non_log_o = V::zero();  // 64-bit lanes
  const std::array<std::int16_t*, StatRows::kCount> rows = in.all();
  unsigned j = 0;
  while (j + kStep <= w) {
    const unsigned block_end = std::min(w, j + kPackBlock);
    I den_non_log = V::zero();
    unsigned packed = 0;
    // The first loop's work on N filtered pixels (filtered[r]: StatRows row r).
    const auto pack = [&](const I* filtered) __attribute__((always_inline)) {
      const I mu1 = filtered[0], mu2 = filtered[1];
      const I mu1_sq = mul_round_high<V>(mu1, mu1);
      const I mu2_sq = mul_round_high<V>(mu2, mu2);
      const I mu1_mu2 = mul_round_high<V>(mu1, mu2);
      const I sigma1_sq = V::sub32(round_joined<V>(filtered[2], filtered[3]), mu1_sq);
      const I sigma2_sq = V::max0_32(V::sub32(round_joined<V>(filtered[4], filtered[5]), mu2_sq));
      const I sigma12 = V::sub32(round_joined<V>(filtered[6], filtered[7]), mu1_mu2);
      const M non_log = V::lt32(sigma1_sq, nsq);
      den_non_log = V::add_count(den_non_log, non_log);
      const I nl = V::maskz(non_log, sigma2_sq);
      num_non_log_e = V::add64(num_non_log_e, V::and_(nl, low32));
      num_non_log_o = V::add64(num_non_log_o, V::odd(nl));
      const M log = V::mask_andnot(non_log, V::mask_first(N));
      V::store(packed_s1 + packed, V::compress32(log, sigma1_sq));
      V::store(packed_s2 + packed, V::compress32(log, sigma2_sq));
      V::store(packed_s12 + packed, V::compress32(log, sigma12));
      packed += V::count(log);
    };
    for (; j + kStep <= block_end; j += kStep) {
      const int first = static_cast<int>(j) - half;
      I even[StatRows::kCount], odd[StatRows::kCount];
      const auto filter_row = [&](unsigned r, I start) __attribute__((always_inline)) {
        paired_filter<V, kWidth>(rows[r], first, even_taps, odd_taps, start, even[r], odd[r]);
      };
      filter_row(0, unbias);
      filter_row(1, unbias);
      filter_row(2, round_lo);
      filter_row(3, unbias);
      filter_row(4, round_lo);
      filter_row(5, unbias);
      filter_row(6, round_lo);
      filter_row(7, unbias);
      pack(even);
      pack(odd);
    }
    // Zeros after the last packed pixel, up to the second loop's last vector.
    V::store(packed_s1 + packed, V::zero());
    V::store(packed_s2 + packed, V::zero());
    V::store(packed_s12 + packed, V::zero());
    I den_log = V::zero(), num_log = V::zero();
    for (unsigned k = 0; k < packed; k += N) {
      const I s1 = V::load(packed_s1 + k);
      const I s2 = V::load(packed_s2 + k);
      const I s12 = V::load(packed_s12 + k);
      // log2_32(sigma_nsq + sigma1_sq) - 17 * 2048 (0 in the lanes after the last).
      den_log = V::add32(den_log, V::sub32(V::log2_32(table, V::add32(nsq, s1)), den_log_offset));
      const M gain = V::mask_and(V::gt0_32(s12), V::gt0_32(s2));
      if (!V::any(gain)) continue;
      const I g_s1 = V::select(gain, s1, nsq);
      const I g_s12 = V::select(gain, s12, one);
      const I g_s2 = V::select(gain, s2, one);
      num_log =
          V::add32(num_log, V::maskz(gain, gain_log<V>(g_s1, g_s12, g_s2, table, enhn_gain_limit)));
    }
    sums.den_non_log += V::sum32_signed_wide(den_non_log);
    sums.den_log += V::sum32_signed_wide(den_log);
    sums.num_log += V::sum32_signed_wide(num_log);
  }
  sums.num_non_log += static_cast<std::int64_t>(V::sum64(V::add64(num_non_log_e, num_non_log_o)));
  scalar::stat_horizontal<kWidth>(in, filter, j, w, table, enhn_gain_limit, sums);
}

// kPaired: the taps fit int16 (paired_filter, the even outputs then the odd
// ones, 2N outputs a step), else symmetric_filter (N outputs a step).
template <class V, unsigned kWidth, bool kPaired>
void stat_horizontal_width(const StatRows& in, const Filter& filter, unsigned w,
                           const std::uint16_t* table, double enhn_gain_limit, ScaleSums& sums) {
  // AVX-512: the two loops of stat_horizontal_packed. With AVX2 they were no
  // faster (an AMD EPYC: its 8-lane gathers cost less, the compress is a
  // table lookup and a permute).
  if constexpr (kPaired && V::kAvx512)
    return stat_horizontal_packed<V, kWidth>(in, filter, w, table, enhn_gain_limit, sums);
  using I = typename V::I;
  using M = typename V::M;
  constexpr unsigned N = V::N;
  constexpr unsigned kStep = kPaired ? 2 * N : N;
  constexpr int half = static_cast<int>(kWidth / 2);
  // kPaired: the tap pairs (paired_filter); else the taps.
  I taps[kWidth];
  for (unsigned k = 0; k < kWidth; ++k) {
    if constexpr (kPaired) {
      if (k % 2 == 0) taps[k / 2] = V::set32(tap_pair(filter, static_cast<int>(k)));
    } else {
      taps[k] = V::set32(filter.taps[k]);
    }
  }
  const HorizontalConstants<V> constants(filter);
  // Named references, not a structured binding: the lambdas below capture
  // them, which clang before 16 (Debian 12 has 14, scripts/fuzz.sh) refuses.
  const I& unbias = constants.unbias;
  const I& round_lo = constants.round_lo;
  const I& nsq = constants.nsq;
  const I& one = constants.one;
  const I& den_log_offset = constants.den_log_offset;
  const I& low32 = constants.low32;

  I num_non_log_e = V::zero(), num_non_log_o = V::zero();  // 64-bit lanes
  // 32-bit lane sums, moved to the int64 sums every kChunk pixels: each lane
  // adds at most kChunk / N terms below 2^17.
  constexpr unsigned kChunk = 4096;
  I den_non_log, den_log, num_log;

  // accumulate_pixel, N pixels at a time (in any order: the sums are exact).
  // filtered(r, start): StatRows row r (mu1, mu2, xx_lo, xx_hi, ...) filtered
  // for the N pixels, its sum started at `start`, on demand (the low halves
  // start at round_lo for round_joined, the others at unbias).
  const auto accumulate = [&](auto&& filtered) __attribute__((always_inline)) {
    const I mu1 = filtered(0, unbias);
    const I mu2 = filtered(1, unbias);
    const I mu1_sq = mul_round_high<V>(mu1, mu1);
    const I mu2_sq = mul_round_high<V>(mu2, mu2);
    const I mu1_mu2 = mul_round_high<V>(mu1, mu2);
    const I xx_filt = round_joined<V>(filtered(2, round_lo), filtered(3, unbias));
    const I yy_filt = round_joined<V>(filtered(4, round_lo), filtered(5, unbias));
    const I xy_filt = round_joined<V>(filtered(6, round_lo), filtered(7, unbias));
    const I sigma1_sq = V::sub32(xx_filt, mu1_sq);
    const I sigma2_sq = V::max0_32(V::sub32(yy_filt, mu2_sq));
    const I sigma12 = V::sub32(xy_filt, mu1_mu2);

    const M non_log = V::lt32(sigma1_sq, nsq);
    den_non_log = V::add_count(den_non_log, non_log);
    const I nl = V::maskz(non_log, sigma2_sq);
    num_non_log_e = V::add64(num_non_log_e, V::and_(nl, low32));
    num_non_log_o = V::add64(num_non_log_o, V::odd(nl));
    if (V::all(non_log)) return;

    // den_log: log2_32(sigma_nsq + sigma1_sq) - 17 * 2048 (other lanes: a safe value).
    const I v = V::select(non_log, nsq, V::add32(nsq, sigma1_sq));
    den_log =
        V::add32(den_log, V::maskz_not(non_log, V::sub32(V::log2_32(table, v), den_log_offset)));

    const M gain = V::mask_andnot(non_log, V::mask_and(V::gt0_32(sigma12), V::gt0_32(sigma2_sq)));
    if (!V::any(gain)) return;
    const I s1 = V::select(gain, sigma1_sq, nsq);
    const I s12 = V::select(gain, sigma12, one);
    const I s2 = V::select(gain, sigma2_sq, one);
    num_log = V::add32(num_log, V::maskz(gain, gain_log<V>(s1, s12, s2, table, enhn_gain_limit)));
  };

  const std::array<std::int16_t*, StatRows::kCount> rows = in.all();
  unsigned j = 0;
  while (j + kStep <= w) {
    const unsigned chunk_end = std::min(w, j + kChunk);
    den_non_log = V::zero(), den_log = V::zero(), num_log = V::zero();
    for (; j + kStep <= chunk_end; j += kStep) {
      const int first = static_cast<int>(j) - half;
      if constexpr (kPaired) {
        // The even outputs, then the odd ones as the even outputs of the
        // columns one further on.
        const auto at = [&](int column) __attribute__((always_inline)) {
          return [&, column](unsigned r, I start) __attribute__((always_inline)) {
            return paired_filter<V, kWidth>(rows[r], column, taps, start);
          };
        };
        accumulate(at(first));
        accumulate(at(first + 1));
      } else {
        accumulate([&](unsigned r, I start) __attribute__((always_inline)) {
          return symmetric_filter<V, kWidth>(rows[r], first, taps, start);
        });
      }
    }
    sums.den_non_log += V::sum32_signed_wide(den_non_log);
    sums.den_log += V::sum32_signed_wide(den_log);
    sums.num_log += V::sum32_signed_wide(num_log);
  }
  sums.num_non_log += static_cast<std::int64_t>(V::sum64(V::add64(num_non_log_e, num_non_log_o)));
  scalar::stat_horizontal<kWidth>(in, filter, j, w, table, enhn_gain_limit, sums);
}

// VIF's four filters (17, 9, 5 and 3 taps, symmetric) with their width known
// at compile time; any other filter goes to the scalar reference.
template <class V>
void stat_horizontal(const StatRows& in, const Filter& filter, unsigned w,
                     const std::uint16_t* table, double enhn_gain_limit, ScaleSums& sums) {
  const bool paired = taps_fit_int16(filter);
  bool done = false;
  with_filter_width(filter, [&](auto width) {
    if constexpr (width() != 0) {
      if (tap_sum(filter) > 65536) return;  // round_joined needs lo + 32768 below 2^32
      if (paired) {
        stat_horizontal_width<V, width(), true>(in, filter, w, table, enhn_gain_limit, sums);
        done = true;
      } else if (is_symmetric(filter)) {
        stat_horizontal_width<V, width(), false>(in, filter, w, table, enhn_gain_limit, sums);
        done = true;
      }
    }
  });
  if (!done) scalar::stat_horizontal(in, filter, 0, w, table, enhn_gain_limit, sums);
}

template <class V, typename Sample>
void lowpass_vertical(const Sample* const* ref, const Sample* const* dis, const Filter& filter,
                      std::uint32_t round, unsigned shift, unsigned w, std::int16_t* ref_out,
                      std::int16_t* dis_out) {
  using I = typename V::I;
  constexpr unsigned N = V::N;
  const unsigned fwidth = filter.width;
  I taps[kMaxFilterWidth];
  for (unsigned k = 0; k < fwidth; ++k) taps[k] = V::set32(filter.taps[k]);
  const I round_v = V::set32(round);
  unsigned j = 0;
  for (; j + N <= w; j += N) {
    I acc_ref = V::zero(), acc_dis = V::zero();
    for (unsigned k = 0; k < fwidth; ++k) {
      acc_ref = V::add32(acc_ref, V::mullo32(taps[k], V::load(ref[k] + j)));
      acc_dis = V::add32(acc_dis, V::mullo32(taps[k], V::load(dis[k] + j)));
    }
    // store_biased keeps the low 16 bits: the scalar's cut to 16 bits.
    store_biased<V>(ref_out + j, V::srl32(V::add32(acc_ref, round_v), shift));
    store_biased<V>(dis_out + j, V::srl32(V::add32(acc_dis, round_v), shift));
  }
  scalar::lowpass_vertical(ref, dis, filter, round, shift, j, w, ref_out, dis_out);
}

// The decimating horizontal low-pass over biased rows: each lane sums
// taps * (x - 32768) modulo 2^32 from a start of 32768 times the taps' sum
// (the bias) plus 32768 (the rounding); the true sum is below 2^32 while the
// taps sum to at most 65536, so (sum) >> 16 is the scalar's. Taps below 2^15
// go two per pmaddwd: lane m of a load at column 2 * oj - half + 2p holds the
// entries of taps 2p and 2p + 1 of output oj + m, so N outputs take
// (fwidth + 1) / 2 loads a picture. Other taps (the 3-tap filter's 43690)
// filter 2N columns and keep the even ones. Reads columns up to
// 2 * out_w - 1 + half, inside the mirrored row.
template <class V>
void lowpass_horizontal(const std::int16_t* ref_in, const std::int16_t* dis_in,
                        const Filter& filter, unsigned out_w, std::uint16_t* ref_out,
                        std::uint16_t* dis_out) {
  using I = typename V::I;
  constexpr unsigned N = V::N;
  const unsigned fwidth = filter.width;
  const int half = static_cast<int>(filter.half());
  const std::uint32_t sum = tap_sum(filter);
  unsigned oj = 0;
  if (sum <= 65536 && fwidth % 2 == 1) {
    const I start = V::set32(32768u * sum + 32768u);
    if (taps_fit_int16(filter)) {
      const unsigned pairs = (fwidth + 1) / 2;
      I tap_pairs[(kMaxFilterWidth + 1) / 2];
      for (unsigned p = 0; p < pairs; ++p)
        tap_pairs[p] = V::set32(tap_pair(filter, static_cast<int>(2 * p)));
      const auto pair_at = [](const std::int16_t* row, int column) {
        return V::load(reinterpret_cast<const std::uint32_t*>(row + column));
      };
      for (; oj + N <= out_w; oj += N) {
        const int first = static_cast<int>(2 * oj) - half;
        I ref_acc = start, dis_acc = start;
        for (unsigned p = 0; p < pairs; ++p) {
          const int column = first + 2 * static_cast<int>(p);
          ref_acc = V::add_madd16(ref_acc, tap_pairs[p], pair_at(ref_in, column));
          dis_acc = V::add_madd16(dis_acc, tap_pairs[p], pair_at(dis_in, column));
        }
        V::store_u16_of_small(ref_out + oj, V::template srli32<16>(ref_acc));
        V::store_u16_of_small(dis_out + oj, V::template srli32<16>(dis_acc));
      }
    } else {
      I taps[kMaxFilterWidth];
      for (unsigned k = 0; k < fwidth; ++k) taps[k] = V::set32(filter.taps[k]);
      for (; oj + N <= out_w; oj += N) {
        const int first = static_cast<int>(2 * oj) - half;
        I ref_a = start, ref_b = start, dis_a = start, dis_b = start;
        for (unsigned k = 0; k < fwidth; ++k) {
          const int c = first + static_cast<int>(k);
          ref_a = V::add32(ref_a, V::mullo32(taps[k], V::load(ref_in + c)));
          ref_b = V::add32(ref_b, V::mullo32(taps[k], V::load(ref_in + c + N)));
          dis_a = V::add32(dis_a, V::mullo32(taps[k], V::load(dis_in + c)));
          dis_b = V::add32(dis_b, V::mullo32(taps[k], V::load(dis_in + c + N)));
        }
        V::store_u16_of_small(ref_out + oj, V::template srli32<16>(V::evens(ref_a, ref_b)));
        V::store_u16_of_small(dis_out + oj, V::template srli32<16>(V::evens(dis_a, dis_b)));
      }
    }
  }
  scalar::lowpass_horizontal(ref_in, dis_in, filter, oj, out_w, ref_out, dis_out);
}

template <class V>
constexpr VifDsp make_dsp(const char* isa) {
  return VifDsp{
      isa,
      stat_vertical<V, std::uint8_t>,
      stat_vertical<V, std::uint16_t>,
      stat_vertical_8_block<V>,
      stat_horizontal<V>,
      lowpass_vertical<V, std::uint8_t>,
      lowpass_vertical<V, std::uint16_t>,
      lowpass_horizontal<V>,
  };
}

}  // namespace
}  // namespace VMAFEXACT_ISA

const VifDsp& VMAFEXACT_ISA_NAMED(vif_dsp)() {
  static constexpr VifDsp dsp =
      VMAFEXACT_ISA::make_dsp<simd::VMAFEXACT_ISA::V>(simd::VMAFEXACT_ISA::kIsaName);
  return dsp;
}

}  // namespace vmafexact::vif
