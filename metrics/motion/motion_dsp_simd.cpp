// The SIMD twins of the motion DSP routines, written once over the vector
// layer `V` (metrics/common/simd.h: N 32-bit lanes in an integer vector I) and
// compiled once per ISA by metrics/meson.build (motion_dsp_avx2(),
// motion_dsp_avx512()).
//
// Exactness against motion_dsp_scalar.h (whose sums are exact int64):
//  * filter5's taps add to 65536. For 8-bit samples a sum 3571 (a + e) +
//    16004 (b + d) + 26386 c of differences (|d| <= 255) and its rounding fit
//    in int32: computed so. With bpc 8 the sums of the outer and the inner
//    differences (|a + e| <= 510) and the centre one are int16 lanes, paired
//    for pmaddwd (a + e with b + d, c with 1 for the rounding 128): 2N columns
//    a step. Their sum S gives hi = S >> 16 and lo = (S >> 8) & 255 (floor
//    shifts compose), both int16; interleaving the 16-bit lanes into pairs
//    and packing the 32-bit results back (per 128-bit block, both) keeps the
//    columns in place.
//  * Larger values (16-bit containers' differences, |d| <= 65535, whatever
//    bpc says) are split as v = 256 h + l, h = v >> 8 (arithmetic), 0 <= l < 256,
//    and F(v) = 256 F(h) + F(l). With S = F(l) + R (R the rounding constant,
//    0 <= R <= 2^15): (F(v) + R) >> s = (256 F(h) + S) >> s =
//    (F(h) + (S >> 8)) >> (s - 8) for s >= 8 (floor shifts compose). F(l) < 2^24,
//    and F(h) fits in int32 while |v| < 2^23 + 2^8: the vertical pass's outputs
//    are below 2^32 / 2^bpc <= 2^23 (bpc >= 9 for 16-bit containers), 65280
//    for 8 bit; F(h) + (S >> 8) stays within int32 (at most 2^31 - 128).
//  * The horizontal pass reads that split from the rows (motion_dsp.h): hi
//    (|hi| < 2^15) and lo are int16, two adjacent columns per 32-bit lane for
//    pmaddwd (products below 2^30, pair sums below 2^31): a load at column
//    x - 2 + 2p serves the even outputs x + 2m (taps 2p, 2p + 1) and the odd
//    ones x + 2m + 1 (taps 2p - 1, 2p), 0 outside the filter, so 2N outputs
//    take three loads a row. The int32 sums wrap only where the true sum of
//    F(hi) (at least -2^31) and S >> 8 fits, so the result is the true one.
//    The absolute values are summed modulo 2^32 in any order, as the scalar's
//    uint32 sum.
// Each row's borders and the columns beyond the last whole vector go to the
// scalar reference.

#include <cstdint>

#include "common/simd.h"
#include "motion/motion_dsp.h"
#include "motion/motion_dsp_scalar.h"

namespace vmafexact::motion {
namespace VMAFEXACT_ISA {
namespace {

template <class V>
typename V::I filter5(typename V::I a, typename V::I b, typename V::I c, typename V::I d,
                      typename V::I e) {
  const typename V::I outer = V::mullo32(V::add32(a, e), V::set32(3571));
  const typename V::I inner = V::mullo32(V::add32(b, d), V::set32(16004));
  return V::add32(V::add32(outer, inner), V::mullo32(c, V::set32(26386)));
}

// (F(v) + round) >> shift (the split above): shift >= 8, 0 <= round <= 2^15.
template <class V>
typename V::I filter5_round_split(const typename V::I* v, std::int32_t round, unsigned shift) {
  using I = typename V::I;
  I hi[5], lo[5];
  const I low8 = V::set32(255);
  for (int k = 0; k < 5; ++k) {
    hi[k] = V::template srai32<8>(v[k]);
    lo[k] = V::and_(v[k], low8);
  }
  const I f_hi = filter5<V>(hi[0], hi[1], hi[2], hi[3], hi[4]);
  const I f_lo = V::add32(filter5<V>(lo[0], lo[1], lo[2], lo[3], lo[4]), V::set32(round));
  return V::sra32(V::add32(f_hi, V::template srai32<8>(f_lo)), shift - 8);
}

// N values v (|v| < 2^23) stored split (motion_dsp.h).
template <class V>
inline void store_split(std::int16_t* hi, std::int16_t* lo, typename V::I v) {
  V::store_low16(hi, V::template srai32<8>(v));
  V::store_low16(lo, V::and_(v, V::set32(255)));
}

// Two int16 taps as one pmaddwd operand, `low` in the low half.
template <class V>
inline typename V::I tap_pair(std::uint32_t low, std::uint32_t high) {
  return V::set32(high << 16 | low);
}

template <class V, typename Sample>
std::int32_t vertical(const Sample* const* prev, const Sample* const* cur, unsigned bpc, unsigned w,
                      std::int16_t* hi, std::int16_t* lo) {
  using I = typename V::I;
  constexpr unsigned N = V::N;
  const std::int32_t round = std::int32_t{1} << (bpc - 1);
  I any = V::zero();
  std::int32_t any_split = 0;  // the OR of the values of the 16-bit steps
  unsigned x = 0;
  if constexpr (sizeof(Sample) == 1) {
    if (bpc == 8) {
      constexpr unsigned L = V::N16;
      const I outer_inner = tap_pair<V>(3571, 16004);
      const I centre_round = tap_pair<V>(26386, 128);
      const I ones = V::set16(1), low8 = V::set32(255);
      I any_hi = V::zero(), any_lo = V::zero();
      for (; x + L <= w; x += L) {
        I diff[5];
        for (int k = 0; k < 5; ++k)
          diff[k] = V::sub16(V::load_u8_as_u16(prev[k] + x), V::load_u8_as_u16(cur[k] + x));
        const I outer = V::add16(diff[0], diff[4]), inner = V::add16(diff[1], diff[3]);
        const auto sum = [&](I pairs, I centre) __attribute__((always_inline)) {
          return V::add32(V::madd16(pairs, outer_inner), V::madd16(centre, centre_round));
        };
        const I sum_lo = sum(V::interleave_lo16(outer, inner), V::interleave_lo16(diff[2], ones));
        const I sum_hi = sum(V::interleave_hi16(outer, inner), V::interleave_hi16(diff[2], ones));
        const I out_hi = V::pack_i32_i16(V::template srai32<16>(sum_lo),
                                         V::template srai32<16>(sum_hi));
        const I out_lo = V::pack_i32_i16(V::and_(V::template srli32<8>(sum_lo), low8),
                                         V::and_(V::template srli32<8>(sum_hi), low8));
        V::store16(reinterpret_cast<std::uint16_t*>(hi + x), out_hi);
        V::store16(reinterpret_cast<std::uint16_t*>(lo + x), out_lo);
        any_hi = V::or_(any_hi, out_hi);
        any_lo = V::or_(any_lo, out_lo);
      }
      // v = hi << 8 | lo (lo < 256), so the OR of the values is the OR of the
      // hi (sign-extended) shifted, with that of the lo.
      const auto or16 = [](std::int32_t pairs) {
        const auto bits = static_cast<std::uint32_t>(pairs);
        return static_cast<std::int16_t>((bits | bits >> 16) & 0xFFFFu);
      };
      any_split = std::int32_t{or16(V::or_all32(any_hi))} * 256 | or16(V::or_all32(any_lo));
    }
    const I round_v = V::set32(round);
    for (; x + N <= w; x += N) {
      I diff[5];
      for (int k = 0; k < 5; ++k) diff[k] = V::sub32(V::load(prev[k] + x), V::load(cur[k] + x));
      const I sum = filter5<V>(diff[0], diff[1], diff[2], diff[3], diff[4]);
      const I out = V::sra32(V::add32(sum, round_v), bpc);
      store_split<V>(hi + x, lo + x, out);
      any = V::or_(any, out);
    }
  } else {
    for (; x + N <= w; x += N) {
      I diff[5];
      for (int k = 0; k < 5; ++k) diff[k] = V::sub32(V::load(prev[k] + x), V::load(cur[k] + x));
      const I out = filter5_round_split<V>(diff, round, bpc);
      store_split<V>(hi + x, lo + x, out);
      any = V::or_(any, out);
    }
  }
  return any_split | V::or_all32(any) | scalar::vertical(prev, cur, bpc, x, w, hi, lo);
}

template <class V>
std::uint32_t horizontal(const std::int16_t* hi, const std::int16_t* lo, unsigned w) {
  using I = typename V::I;
  constexpr unsigned N = V::N;
  const unsigned begin = w < 2 ? w : 2;
  std::uint32_t sad = scalar::horizontal(hi, lo, 0, begin, w);
  unsigned x = begin;
  // kFilter's taps t0 .. t4 in pairs: the even outputs' (t0, t1), (t2, t3),
  // (t4, 0), the odd outputs' (0, t0), (t1, t2), (t3, t4).
  const I even_taps[3] = {tap_pair<V>(3571, 16004), tap_pair<V>(26386, 16004),
                          tap_pair<V>(3571, 0)};
  const I odd_taps[3] = {tap_pair<V>(0, 3571), tap_pair<V>(16004, 26386),
                         tap_pair<V>(16004, 3571)};
  const I round = V::set32(1u << 15);
  I acc = V::zero();
  // |(F(hi) + (F(lo) + 2^15) >> 8) >> 8| of one output set.
  const auto magnitude = [&](const I (&pairs_hi)[3], const I (&pairs_lo)[3], const I (&taps)[3])
      __attribute__((always_inline)) {
    I f_hi = V::madd16(pairs_hi[0], taps[0]);
    I f_lo = V::add_madd16(round, pairs_lo[0], taps[0]);
    for (int p = 1; p < 3; ++p) {
      f_hi = V::add_madd16(f_hi, pairs_hi[p], taps[p]);
      f_lo = V::add_madd16(f_lo, pairs_lo[p], taps[p]);
    }
    return V::abs32(V::template srai32<8>(V::add32(f_hi, V::template srai32<8>(f_lo))));
  };
  // Interior columns: outputs x .. x + 2N - 1 read columns x - 2 .. x + 2N + 1,
  // no mirroring while x + 2N + 1 <= w - 1.
  for (; x + 2 * N + 2 <= w; x += 2 * N) {
    I pairs_hi[3], pairs_lo[3];
    for (unsigned p = 0; p < 3; ++p) {
      pairs_hi[p] = V::load(reinterpret_cast<const std::uint32_t*>(hi + x - 2 + 2 * p));
      pairs_lo[p] = V::load(reinterpret_cast<const std::uint32_t*>(lo + x - 2 + 2 * p));
    }
    acc = V::add32(acc, magnitude(pairs_hi, pairs_lo, even_taps));
    acc = V::add32(acc, magnitude(pairs_hi, pairs_lo, odd_taps));
  }
  // The interior columns left (up to w - 3): one more step ending there,
  // overlapping the last, its outputs before x masked out.
  if (x + 2 < w && x >= 2 * N + 2) {
    const unsigned last = w - 2 - 2 * N;  // its first output
    I pairs_hi[3], pairs_lo[3];
    for (unsigned p = 0; p < 3; ++p) {
      pairs_hi[p] = V::load(reinterpret_cast<const std::uint32_t*>(hi + last - 2 + 2 * p));
      pairs_lo[p] = V::load(reinterpret_cast<const std::uint32_t*>(lo + last - 2 + 2 * p));
    }
    // Lane m's outputs: last + 2m (even) and last + 2m + 1 (odd).
    const I even_column = V::add32(V::add32(V::iota32(), V::iota32()), V::set32(last));
    const I before = V::set32(x - 1);
    const I new_even = V::gt_i32(even_column, before);
    const I new_odd = V::gt_i32(V::add32(even_column, V::set32(1)), before);
    acc = V::add32(acc, V::and_(new_even, magnitude(pairs_hi, pairs_lo, even_taps)));
    acc = V::add32(acc, V::and_(new_odd, magnitude(pairs_hi, pairs_lo, odd_taps)));
    x = w - 2;
  }
  return sad + V::sum32(acc) + scalar::horizontal(hi, lo, x, w, w);
}

template <class V>
constexpr MotionDsp make_dsp(const char* isa) {
  return MotionDsp{isa, vertical<V, std::uint8_t>, vertical<V, std::uint16_t>, horizontal<V>};
}

}  // namespace
}  // namespace VMAFEXACT_ISA

const MotionDsp& VMAFEXACT_ISA_NAMED(motion_dsp)() {
  static constexpr MotionDsp dsp =
      VMAFEXACT_ISA::make_dsp<simd::VMAFEXACT_ISA::V>(simd::VMAFEXACT_ISA::kIsaName);
  return dsp;
}

}  // namespace vmafexact::motion
