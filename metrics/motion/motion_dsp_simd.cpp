// The SIMD twins of the motion DSP routines, written once over the vector
// layer `V` (metrics/common/simd.h: N 32-bit lanes in an integer vector I) and
// compiled once per ISA by metrics/meson.build (motion_dsp_avx2(),
// motion_dsp_avx512()).
//
// Exactness against motion_dsp_scalar.h (whose sums are exact int64):
//  * filter5's taps add to 65536. For 8-bit samples a sum 3571 (a + e) +
//    16004 (b + d) + 26386 c of differences (|d| <= 255) and its rounding fit
//    in int32: computed so.
//  * Larger values (16-bit containers' differences, |d| <= 65535, whatever
//    bpc says; every horizontal input) are split as v = 256 h + l, h = v >> 8
//    (arithmetic), 0 <= l < 256, and F(v) = 256 F(h) + F(l). With S = F(l) + R
//    (R the rounding constant, 0 <= R <= 2^15): S = 256 q + r, 0 <= r < 256, so
//    (F(v) + R) >> s = (256 (F(h) + q) + r) >> s = (F(h) + (S >> 8)) >> (s - 8)
//    for s >= 8 (floor division: r / 256 < 1 never carries). F(l) < 2^24, and
//    F(h) fits in int32 while |v| < 2^23 + 2^8: the vertical pass's outputs
//    are below 2^32 / 2^bpc <= 2^23 (bpc >= 9 for 16-bit containers), 65280
//    for 8 bit; F(h) + (S >> 8) stays within int32 (at most 2^31 - 128).
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

template <class V, typename Sample>
std::int32_t vertical(const Sample* const* prev, const Sample* const* cur, unsigned bpc, unsigned w,
                      std::int32_t* blurred) {
  using I = typename V::I;
  constexpr unsigned N = V::N;
  const std::int32_t round = std::int32_t{1} << (bpc - 1);
  I any = V::zero();
  unsigned x = 0;
  if constexpr (sizeof(Sample) == 1) {
    const I round_v = V::set32(round);
    for (; x + N <= w; x += N) {
      I diff[5];
      for (int k = 0; k < 5; ++k) diff[k] = V::sub32(V::load(prev[k] + x), V::load(cur[k] + x));
      const I sum = filter5<V>(diff[0], diff[1], diff[2], diff[3], diff[4]);
      const I out = V::sra32(V::add32(sum, round_v), bpc);
      V::store(blurred + x, out);
      any = V::or_(any, out);
    }
  } else {
    for (; x + N <= w; x += N) {
      I diff[5];
      for (int k = 0; k < 5; ++k) diff[k] = V::sub32(V::load(prev[k] + x), V::load(cur[k] + x));
      const I out = filter5_round_split<V>(diff, round, bpc);
      V::store(blurred + x, out);
      any = V::or_(any, out);
    }
  }
  return V::or_all32(any) | scalar::vertical(prev, cur, bpc, x, w, blurred);
}

template <class V>
std::uint32_t horizontal(const std::int32_t* blurred, unsigned w) {
  using I = typename V::I;
  constexpr unsigned N = V::N;
  const unsigned begin = w < 2 ? w : 2;
  std::uint32_t sad = scalar::horizontal(blurred, 0, begin, w);
  unsigned x = begin;
  I acc = V::zero();
  // Interior columns x with x + 2 <= w - 1: no mirroring.
  for (; x + N + 2 <= w; x += N) {
    I v[5];
    for (int k = 0; k < 5; ++k) v[k] = V::load(blurred + x - 2 + k);
    acc = V::add32(acc, V::abs32(filter5_round_split<V>(v, 1 << 15, 16)));
  }
  return sad + V::sum32(acc) + scalar::horizontal(blurred, x, w, w);
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
