// The SIMD twins of the ADM DSP routines (adm_dsp.h), written once over GCC's
// vector extensions with N 32-bit lanes, and compiled once per ISA by
// metrics/meson.build (adm_dsp_avx2(): N = 8, adm_dsp_avx512(): N = 16, each
// with its own instruction set flags). Where GCC's generic lowering of a step
// is slow (widening loads, narrowing stores, half-vector conversions,
// vpmuldq), the step is the vector layer's instruction (metrics/common/simd.h,
// the ISA's `V`), the generic vector cast to V's type and back.
//
// Exactness, routine by routine, against adm_dsp_scalar.h:
//  * Every step is the scalar step on the same type per lane: int32 arithmetic
//    that libvmaf does in int32 is done modulo 2^32 (unsigned lanes, the
//    scalar's wrap-arounds), int64 arithmetic in int64 lanes, casts to int16 /
//    int32 are truncations (__builtin_convertvector), shifts of signed lanes
//    are arithmetic as the scalar's are.
//  * Scale 0's vertical pass sums in 32 bits where the scalar sums in 64: the
//    result (sum - dc + round) >> bpc is cut to 16 bits, and for bpc <= 16 a
//    multiple of 2^32 in the sum changes the shifted value by a multiple of
//    2^(32 - bpc) >= 2^16, so the 16 bits kept are the same.
//  * Sums of integers (the masking threshold in uint32, the cube sums in int64 /
//    uint64) are exact in any order.
//  * The decoupling's angle test and gain limit: the same float/double
//    operations per lane as pixel::within_one_degree / apply_gain_limit (see
//    within_one_degree below).
//  * The division table's entries are computed, not gathered: a double
//    division whose truncation equals the table's (see reciprocal_q30).
//  * Products of int32 values in int64 take even and odd lanes apart
//    (by_pairs): vpmuldq reads the low 32 bits of each 64-bit lane.
// Columns a vector cannot own (the first output of a DWT row, the masking
// stage's first and last column, where the neighbours are mirrored, and each
// row's columns beyond the last whole vector) go to the scalar reference.

#include <algorithm>
#include <cstdint>
#include <utility>

#include "adm/adm_dsp.h"
#include "adm/adm_dsp_scalar.h"
#include "common/simd.h"

namespace vmafexact::adm {
namespace VMAFEXACT_ISA {
namespace {

using V = simd::VMAFEXACT_ISA::V;

constexpr int N = V::N;

// The layer's vector-extension types (metrics/common/simd.h) by lane type.
namespace lanes = simd::VMAFEXACT_ISA::lanes;
using VU8 = lanes::U8;
using VI16 = lanes::I16;
using VU16 = lanes::U16;
using VI32 = lanes::I;
using VU32 = lanes::U;

template <typename T>
struct VectorOf;
template <>
struct VectorOf<std::uint8_t> {
  using type = VU8;
};
template <>
struct VectorOf<std::uint16_t> {
  using type = VU16;
};
template <>
struct VectorOf<std::int16_t> {
  using type = VI16;
};
template <>
struct VectorOf<std::int32_t> {
  using type = VI32;
};

// N consecutive values from p (unaligned).
template <typename T>
[[gnu::always_inline]] inline typename VectorOf<T>::type load(const T* p) {
  typename VectorOf<T>::type v;
  __builtin_memcpy(&v, p, sizeof v);
  return v;
}
template <typename T, typename Vec>
[[gnu::always_inline]] inline void store(T* p, Vec v) {
  static_assert(sizeof(Vec) == N * sizeof(T));
  __builtin_memcpy(p, &v, sizeof v);
}
// Lane-wise conversion: widening sign- or zero-extends, narrowing truncates.
template <typename To, typename From>
[[gnu::always_inline]] inline To cvt(From v) {
  return __builtin_convertvector(v, To);
}
// The same bits as the other signedness.
[[gnu::always_inline]] inline VU32 u32(VI32 v) { return (VU32)v; }
[[gnu::always_inline]] inline VI32 i32(VU32 v) { return (VI32)v; }

// The scalar's (int16) of each lane, sign-extended back to int32 in place
// (two shifts, where narrowing and widening again would shuffle).
[[gnu::always_inline]] inline VI32 trunc16(VI32 v) { return v << 16 >> 16; }
// The low 16 bits of each lane stored as N int16 (vpmovdw with AVX-512).
[[gnu::always_inline]] inline void store16(std::int16_t* p, VI32 v) { V::store_low16(p, (V::I)v); }

// N int16 values widened to int32 lanes (one vpmovsxwd: GCC's generic
// convert widens the two halves apart and joins them).
[[gnu::always_inline]] inline VI32 load32(const std::int16_t* p) { return (VI32)V::load(p); }
[[gnu::always_inline]] inline VI32 load32(const std::int32_t* p) { return load(p); }

// Lanes 0, 2, 4, .. of the 2N lanes a, b.
template <int... I>
[[gnu::always_inline]] inline VI32 evens(VI32 a, VI32 b, std::integer_sequence<int, I...>) {
  return __builtin_shufflevector(a, b, (2 * I)...);
}
template <typename V>
[[gnu::always_inline]] inline V abs_lanes(V v) {
  return v < 0 ? -v : v;
}

// |v| per lane in the unsigned type: defined for INT32_MIN too (2^31), where
// negating the signed lane would overflow.
[[gnu::always_inline]] inline VU32 magnitude_lanes(VI32 v) { return v < 0 ? 0u - u32(v) : u32(v); }

// The lanes' sum, formed modulo 2^bits (in the unsigned type of the lanes'
// width), as the scalar reference does: defined even for the harness's
// extreme bands.
template <typename V>
[[gnu::always_inline]] inline auto sum_lanes(V v) {
  using Sum = decltype(v[0] + 0);
  std::make_unsigned_t<Sum> sum = 0;
  for (int l = 0; l < static_cast<int>(sizeof(V) / sizeof(v[0])); ++l)
    sum += static_cast<std::make_unsigned_t<Sum>>(v[l]);
  return static_cast<Sum>(sum);
}

// Steps with 64-bit lanes (int64, uint64, double) run on half vectors (N/2
// lanes), so that they fill one hardware register (simd.h's lanes).
constexpr int H = lanes::kHalfLanes;
using VI32H = lanes::IHalf;
using VI64H = lanes::I64Half;
using VU64H = lanes::U64Half;
using VFH = lanes::FHalf;
using VDH = lanes::DHalf;

// Conversions between half vectors, one instruction each: GCC's generic
// convert splits these into quarter vectors and joins them. Each is the
// scalar's conversion: int32 -> double and float -> double exact, double ->
// float rounded to nearest, double -> int32 truncated, int32 -> int64
// sign-extended, int64 -> int32 the low 32 bits (AVX2 has no vpmovqd).
[[gnu::always_inline]] inline VDH to_f64(VI32H v) { return (VDH)V::cvt_i32_f64((V::H)v); }
[[gnu::always_inline]] inline VDH to_f64(VFH v) { return (VDH)V::cvt_f32_f64((V::F)v); }
[[gnu::always_inline]] inline VFH to_f32(VDH v) { return (VFH)V::cvt_f64_f32((V::D)v); }
[[gnu::always_inline]] inline VI32H to_i32(VDH v) { return (VI32H)V::cvtt_f64_i32((V::D)v); }
[[gnu::always_inline]] inline VI64H to_i64(VI32H v) { return (VI64H)V::cvt_i32_i64((V::H)v); }
[[gnu::always_inline]] inline VI32H to_i32(VI64H v) { return (VI32H)V::cvt_i64_i32((V::I)v); }

// Lane-wise a + b modulo 2^64 for int64 lanes (defined, unlike signed +).
[[gnu::always_inline]] inline VI64H wrap_add(VI64H a, VI64H b) {
  return reinterpret_cast<VI64H>(reinterpret_cast<VU64H>(a) + reinterpret_cast<VU64H>(b));
}

template <int... I>
[[gnu::always_inline]] inline VI32H low_half(VI32 v, std::integer_sequence<int, I...>) {
  return __builtin_shufflevector(v, v, I...);
}
template <int... I>
[[gnu::always_inline]] inline VI32H high_half(VI32 v, std::integer_sequence<int, I...>) {
  return __builtin_shufflevector(v, v, (I + H)...);
}
template <int... I>
[[gnu::always_inline]] inline VI32 join(VI32H a, VI32H b, std::integer_sequence<int, I...>) {
  return __builtin_shufflevector(a, b, I...);
}
// Lanes S .. S + N - 1 of the 2N lanes a, b (valignd).
template <int S, int... I>
[[gnu::always_inline]] inline VU32 slide(VU32 a, VU32 b, std::integer_sequence<int, I...>) {
  return __builtin_shufflevector(a, b, (S + I)...);
}
// Lanes a[0], b[0], a[2], b[2], .. (the low 32 bits of each 64-bit lane).
template <int... I>
[[gnu::always_inline]] inline VI32 interleave_low(VI32 a, VI32 b,
                                                  std::integer_sequence<int, I...>) {
  return __builtin_shufflevector(a, b, (I % 2 ? N + I - 1 : I)...);
}
// a * b of lanes that hold sign-extended int32 values: the exact product, from
// the low 32 bits of each lane (vpmuldq; GCC would otherwise emulate a 64x64
// multiply where AVX2 has none).
[[gnu::always_inline]] inline VI64H mul32(VI64H a, VI64H b) {
  return (VI64H)V::muls32x32((V::I)a, (V::I)b);
}
[[gnu::always_inline]] inline VI64H mul32(std::int64_t a, VI64H b) { return mul32(VI64H{} + a, b); }

// f(low halves of a...) and f(high halves of a...) joined.
template <typename F, typename... A>
[[gnu::always_inline]] inline VI32 by_halves(F f, A... a) {
  constexpr auto half = std::make_integer_sequence<int, H>{};
  return join(f(low_half(a, half)...), f(high_half(a, half)...),
              std::make_integer_sequence<int, N>{});
}

// f over the even lanes of a..., then over the odd lanes, each int32 lane pair
// seen as one 64-bit lane; the low 32 bits of f's results (the scalar's int32
// truncation), put back in lane order. f must read its arguments only through
// mul32 (vpmuldq reads the low 32 bits of each 64-bit lane, sign-extended):
// this skips the widening of by_halves.
template <typename F, typename... A>
[[gnu::always_inline]] inline VI32 by_pairs(F f, A... a) {
  const VI32 even = (VI32)f((VI64H)a...);
  const VI32 odd = (VI32)f((VI64H)((VU64H)a >> 32)...);
  return interleave_low(even, odd, std::make_integer_sequence<int, N>{});
}

// Runs block(j) over the columns [begin, end) in whole vectors, the last one
// ending at `end` (overlapping the one before: the routines using it compute
// each column on its own, so a column done twice is written twice the same).
// Returns the first column left to the scalar reference: end, or begin where
// the range is narrower than a vector.
template <typename F>
[[gnu::always_inline]] inline int per_column(int begin, int end, F block) {
  if (end - begin < N) return begin;
  int j = begin;
  for (; j + N <= end; j += N) block(j);
  if (j < end) block(end - N);
  return end;
}

// ---------------------------------------------------------------------------
// The DWT.

// N samples from p zero-extended to uint32 lanes. GCC lowers the generic
// convert from 8-bit lanes element by element (through general registers),
// so the widening is the layer's vpmovzx*.
template <typename Sample>
[[gnu::always_inline]] inline VU32 widen(const Sample* p) {
  return (VU32)V::load(p);
}

template <typename Sample>
void dwt0_vertical(const Sample* const* rows, unsigned bpc, int w, std::int16_t* lo,
                   std::int16_t* hi) {
  const pixel::Db2Taps f = db2_taps();
  const std::uint32_t vp_round = 1u << (bpc - 1);
  const std::uint32_t dc = static_cast<std::uint32_t>(f.lo_sum) * vp_round;  // modulo 2^32
  const int shift = static_cast<int>(bpc);
  const int done = per_column(
      0, w, [&](int j) __attribute__((always_inline)) {
        VU32 sum_lo = VU32{} + (vp_round - dc), sum_hi = VU32{} + vp_round;
        for (int k = 0; k < 4; ++k) {
          const VU32 s = widen(rows[k] + j);
          sum_lo += static_cast<std::uint32_t>(f.lo[k]) * s;
          sum_hi += static_cast<std::uint32_t>(f.hi[k]) * s;
        }
        // (int16) of the arithmetic shift: store16 keeps the low 16 bits.
        store16(lo + j, i32(sum_lo) >> shift);
        store16(hi + j, i32(sum_hi) >> shift);
      });
  scalar::dwt0_vertical(rows, bpc, done, w, lo, hi);
}

// The db2 taps k and k + 1 as one int16 pair per 32-bit lane (pmaddwd's
// operand: tap k in the low half).
[[gnu::always_inline]] inline V::I tap_pair(const std::int32_t (&taps)[4], int k) {
  return V::set32(static_cast<std::uint32_t>(taps[k + 1]) << 16 |
                  static_cast<std::uint16_t>(taps[k]));
}

// 8-bit pictures: 2N columns per step in int16 pairs of rows, (row 0, row 1)
// and (row 2, row 3) interleaved per 32-bit lane, two taps per pmaddwd
// instead of a 32-bit multiply per tap. The taps (Q15) and the samples fit
// int16, so each sum is the scalar's int64 sum. Its shifted value fits int16:
// lo's taps {15826, 27411, 7345, -4240} put lo - dc + 128 (dc = 46342 * 128)
// in [-7012848, 6966762], its >> 8 in [-27394, 27213]; hi's taps
// {-4240, -7345, 27411, -15826} put hi + 128 in [-6989677, 6989933], its >> 8
// in [-27304, 27304]. So vpackssdw's saturation never acts: the pack is
// the scalar's (int16) truncation, and the pack of the interleave_lo16 and
// interleave_hi16 halves puts the columns back in order.
void dwt0_vertical_8(const std::uint8_t* const* rows, unsigned bpc, int w, std::int16_t* lo,
                     std::int16_t* hi) {
  if (bpc != 8) return dwt0_vertical(rows, bpc, w, lo, hi);
  const pixel::Db2Taps f = db2_taps();
  const V::I lo01 = tap_pair(f.lo, 0), lo23 = tap_pair(f.lo, 2);
  const V::I hi01 = tap_pair(f.hi, 0), hi23 = tap_pair(f.hi, 2);
  const V::I lo_start = V::set32(128u - static_cast<std::uint32_t>(f.lo_sum) * 128u);
  const V::I hi_start = V::set32(128u);
  constexpr int C = 2 * N;  // columns per step
  const auto block = [&](int j) __attribute__((always_inline)) {
    const V::I r0 = V::load_u8_as_u16(rows[0] + j), r1 = V::load_u8_as_u16(rows[1] + j);
    const V::I r2 = V::load_u8_as_u16(rows[2] + j), r3 = V::load_u8_as_u16(rows[3] + j);
    const V::I p01[2] = {V::interleave_lo16(r0, r1), V::interleave_hi16(r0, r1)};
    const V::I p23[2] = {V::interleave_lo16(r2, r3), V::interleave_hi16(r2, r3)};
    V::I out_lo[2], out_hi[2];
    for (int half = 0; half < 2; ++half) {
      out_lo[half] = V::template srai32<8>(
          V::add_madd16(V::add_madd16(lo_start, lo01, p01[half]), lo23, p23[half]));
      out_hi[half] = V::template srai32<8>(
          V::add_madd16(V::add_madd16(hi_start, hi01, p01[half]), hi23, p23[half]));
    }
    V::store16(reinterpret_cast<std::uint16_t*>(lo + j), V::pack_i32_i16(out_lo[0], out_lo[1]));
    V::store16(reinterpret_cast<std::uint16_t*>(hi + j), V::pack_i32_i16(out_hi[0], out_hi[1]));
  };
  if (w < C) return scalar::dwt0_vertical(rows, bpc, 0, w, lo, hi);
  int j = 0;
  for (; j + C <= w; j += C) block(j);
  if (j < w) block(w - C);  // overlaps the step before: the same values again
}

// Scale 0's horizontal pass over int16 vertical results, two taps per
// pmaddwd: lane m of a 32-bit load at column 2j - 1 holds columns 2(j + m) - 1
// and 2(j + m), taps 0 and 1 of output j + m; one at 2j + 1 holds its taps 2
// and 3. The taps (db2 in Q15) fit int16 and the values are int16, so each sum
// is the scalar's int32 sum (below 2^31 in magnitude); (sum + 2^15) >> 16 cut
// to int16 as the scalar's.
void dwt0_horizontal(const std::int16_t* tmp_lo, const std::int16_t* tmp_hi, int w, std::int16_t* a,
                     std::int16_t* v, std::int16_t* h, std::int16_t* d) {
  const pixel::Db2Taps f = db2_taps();
  const int out_w = (w + 1) / 2;
  scalar::dwt0_horizontal(tmp_lo, tmp_hi, w, 0, std::min(1, out_w), a, v, h, d);
  const auto pair = [](const std::int32_t(&taps)[4], int k) {
    return V::set32(static_cast<std::uint32_t>(taps[k + 1]) << 16 |
                    static_cast<std::uint16_t>(taps[k]));
  };
  const V::I lo01 = pair(f.lo, 0), lo23 = pair(f.lo, 2), hi01 = pair(f.hi, 0), hi23 = pair(f.hi, 2);
  const V::I round = V::set32(32768);
  const auto band = [&](const std::int16_t* row, int j, V::I taps01, V::I taps23)
      __attribute__((always_inline)) {
    const auto pairs_at = [&](int column) __attribute__((always_inline)) {
      return V::load(reinterpret_cast<const std::uint32_t*>(row + column));
    };
    const V::I sum = V::add_madd16(V::add_madd16(round, taps01, pairs_at(2 * j - 1)), taps23,
                                   pairs_at(2 * j + 1));
    return (VI32)V::template srai32<16>(sum);
  };
  int j = 1;
  // Reads columns 2j - 1 .. 2j + 2N: inside the row while 2j + 2N <= w - 1.
  for (; 2 * j + 2 * N <= w - 1; j += N) {
    store16(a + j, band(tmp_lo, j, lo01, lo23));
    if (!v) continue;
    store16(v + j, band(tmp_lo, j, hi01, hi23));
    store16(h + j, band(tmp_hi, j, lo01, lo23));
    store16(d + j, band(tmp_hi, j, hi01, hi23));
  }
  scalar::dwt0_horizontal(tmp_lo, tmp_hi, w, std::min(j, out_w), out_w, a, v, h, d);
}

void dwtn_vertical(const std::int32_t* const* rows, int scale, int w, std::int32_t* lo,
                   std::int32_t* hi) {
  const pixel::Db2Taps f = db2_taps();
  const int shift = pixel::dwt_vp_shift(scale);
  const std::int64_t round = shift ? std::int64_t{1} << (shift - 1) : 0;
  const int done = per_column(
      0, w, [&](int j) __attribute__((always_inline)) {
        const VI32 s[4] = {load(rows[0] + j), load(rows[1] + j), load(rows[2] + j),
                           load(rows[3] + j)};
        const auto pass = [&](const std::int32_t(&taps)[4]) {
          return by_pairs(
              [&](VI64H s0, VI64H s1, VI64H s2, VI64H s3) {
                const VI64H sum = VI64H{} + round + mul32(std::int64_t{taps[0]}, s0) +
                                  mul32(std::int64_t{taps[1]}, s1) +
                                  mul32(std::int64_t{taps[2]}, s2) +
                                  mul32(std::int64_t{taps[3]}, s3);
                return sum >> shift;
              },
              s[0], s[1], s[2], s[3]);
        };
        store(lo + j, pass(f.lo));
        store(hi + j, pass(f.hi));
      });
  scalar::dwtn_vertical(rows, scale, done, w, lo, hi);
}

// Output j + q's taps 0 and 1 are row[2(j + q) - 1] and row[2(j + q)]: the
// low and high halves of 64-bit lane q of N int32 loaded at row + 2j - 1;
// taps 2 and 3 likewise from row + 2j + 1. vpmuldq reads a lane's low half
// (sign-extended), so the high halves are shifted down: each pair of loads
// gives the four taps of N/2 outputs, no shuffles, and the two halves'
// results are joined from their low halves (the scalar's int32 truncation).
// The shifts of the sums are logical: the 32 bits kept, shift .. shift + 31 of
// the 64-bit sum, are the same as the arithmetic shift's.
void dwtn_horizontal(const std::int32_t* tmp_lo, const std::int32_t* tmp_hi, int scale, int w,
                     std::int32_t* a, std::int32_t* v, std::int32_t* h, std::int32_t* d) {
  const pixel::Db2Taps f = db2_taps();
  const int shift = pixel::dwt_hp_shift(scale);
  const std::int64_t round = std::int64_t{1} << (shift - 1);
  const int out_w = (w + 1) / 2;
  scalar::dwtn_horizontal(tmp_lo, tmp_hi, scale, w, 0, std::min(1, out_w), a, v, h, d);
  // The four taps of N/2 outputs from p = row + 2j - 1 (reads p[0 .. N + 1]).
  struct Taps {
    VI64H x[4];
  };
  const auto taps_at = [](const std::int32_t* p) __attribute__((always_inline)) {
    Taps t;
    __builtin_memcpy(&t.x[0], p, sizeof t.x[0]);
    __builtin_memcpy(&t.x[2], p + 2, sizeof t.x[2]);
    t.x[1] = (VI64H)((VU64H)t.x[0] >> 32);
    t.x[3] = (VI64H)((VU64H)t.x[2] >> 32);
    return t;
  };
  const auto half = [&](const std::int32_t(&taps)[4], const Taps& t)
      __attribute__((always_inline)) {
    const VI64H sum = VI64H{} + round + mul32(std::int64_t{taps[0]}, t.x[0]) +
                      mul32(std::int64_t{taps[1]}, t.x[1]) +
                      mul32(std::int64_t{taps[2]}, t.x[2]) +
                      mul32(std::int64_t{taps[3]}, t.x[3]);
    return (VI32)((VU64H)sum >> shift);
  };
  constexpr auto lanes = std::make_integer_sequence<int, N>{};
  int j = 1;
  // Reads columns 2j - 1 .. 2j + 2N: inside the row while 2j + 2N <= w - 1.
  for (; 2 * j + 2 * N <= w - 1; j += N) {
    const Taps lo0 = taps_at(tmp_lo + 2 * j - 1), lo1 = taps_at(tmp_lo + 2 * j - 1 + N);
    const Taps hi0 = taps_at(tmp_hi + 2 * j - 1), hi1 = taps_at(tmp_hi + 2 * j - 1 + N);
    store(a + j, evens(half(f.lo, lo0), half(f.lo, lo1), lanes));
    store(v + j, evens(half(f.hi, lo0), half(f.hi, lo1), lanes));
    store(h + j, evens(half(f.lo, hi0), half(f.lo, hi1), lanes));
    store(d + j, evens(half(f.hi, hi0), half(f.hi, hi1), lanes));
  }
  scalar::dwtn_horizontal(tmp_lo, tmp_hi, scale, w, std::min(j, out_w), out_w, a, v, h, d);
}

// ---------------------------------------------------------------------------
// The decoupling.

// The division table's entry for each lane: 2^30 / a truncated toward zero,
// for |a| <= 32768 (any value where a == 0, which the callers replace). A
// double division replaces the table gather: 2^30 / a is either an integer,
// which the division gives exactly, or at least 1/|a| >= 2^-15 from one, while
// the division's rounding error is at most 2^-23, so the truncations agree.
[[gnu::always_inline]] inline VI32 reciprocal_q30(VI32 a) {
  return by_halves(
      [](VI32H x) {
        const VDH divisor = to_f64(x == 0 ? VI32H{} + 1 : x);
        return to_i32(1073741824.0 / divisor);
      },
      a);
}

// float(x) / 4096.0 in double, for integer-valued doubles x (exact integers
// below 2^53: converting them to float rounds as the scalar's int64 -> float).
[[gnu::always_inline]] inline VDH float_scaled(VDH x) { return to_f64(to_f32(x)) / 4096.0; }

// pixel::within_one_degree per lane, as a lane mask. The products and sums of
// int16 values are exact in double (below 2^32), so they equal the scalar's
// int64 values; then the scalar's float conversion, its division by 4096.0
// and its products, in its order (no FMA: built without contraction).
[[gnu::always_inline]] inline VI32H within_one_degree(VI32H oh_i, VI32H ov_i, VI32H th_i,
                                                      VI32H tv_i, double cos_sq) {
  const VDH oh = to_f64(oh_i), ov = to_f64(ov_i), th = to_f64(th_i), tv = to_f64(tv_i);
  const VDH dot = oh * th + ov * tv;
  const VDH o_mag_sq = oh * oh + ov * ov;
  const VDH t_mag_sq = th * th + tv * tv;
  const VDH dot_scaled = float_scaled(dot);
  const VDH rhs = (cos_sq * float_scaled(o_mag_sq)) * float_scaled(t_mag_sq);
  return to_i32(VI64H((dot_scaled >= 0.0) & (dot_scaled * dot_scaled >= rhs)));
}

// pixel::apply_gain_limit's value where it applies: MIN (o > 0) or MAX (o < 0)
// of rst * egl and t in double, truncated.
[[gnu::always_inline]] inline VI32H gain_limited(VI32H rst, VI32H t, VI32H o, double egl) {
  const VDH grown = to_f64(rst) * egl;
  const VDH tt = to_f64(t);
  const VI64H positive = to_i64(o) > 0;
  const VDH smaller = grown < tt ? grown : tt;
  const VDH larger = grown > tt ? grown : tt;
  return to_i32(positive ? smaller : larger);
}

// A whole gain limit (libvmaf's default 100, VMAF v1's 1): then gain_limited's
// double product rst * egl is an integer, exact, and so are its min and max
// with t and their truncation. At scale 0 (|rst| <= 2^15, egl <= 2^15) the
// product fits int32: the limit in integer lanes gives the same values.
[[gnu::always_inline]] inline bool whole_gain_limit(double egl) {
  return egl >= 1.0 && egl <= 32768.0 && egl == static_cast<double>(static_cast<int>(egl));
}

// Scale 0 (pixel::Scale0Arith::restore and subtract, per lane).
void decouple_0(const DecoupleRows<std::int16_t>& rows, int begin, int end, double egl) {
  const double cos_sq = cos_1deg_sq();
  const bool whole_egl = whole_gain_limit(egl);
  const std::int32_t egl_int = whole_egl ? static_cast<std::int32_t>(egl) : 1;
  const int done = per_column(
      begin, end, [&](int j) __attribute__((always_inline)) {
        const VI32 angle =
            by_halves([cos_sq](VI32H oh, VI32H ov, VI32H th,
                               VI32H tv) { return within_one_degree(oh, ov, th, tv, cos_sq); },
                      load32(rows.ref[0] + j), load32(rows.ref[1] + j), load32(rows.dist[0] + j),
                      load32(rows.dist[1] + j));
        for (int theta = 0; theta < 3; ++theta) {
          const VI32 o = load32(rows.ref[theta] + j), t = load32(rows.dist[theta] + j);
          // k = clamp(t / o, 0, 1) in Q15 via the table (32768 where o == 0).
          const VI32 reciprocal = reciprocal_q30(o);
          VI32 k = by_pairs([](VI64H r, VI64H tt) { return (mul32(r, tt) + 16384) >> 15; },
                            reciprocal, t);
          k = o == 0 ? VI32{} + 32768 : k;
          k = k < 0 ? VI32{} : k;
          k = k > 32768 ? VI32{} + 32768 : k;
          VI32 rst = trunc16((k * o + 16384) >> 15);
          const VI32 apply = angle & (k > 0) & (o != 0);
          VI32 limited;
          if (whole_egl) {
            const VI32 grown = rst * egl_int;
            limited = o > 0 ? (grown < t ? grown : t) : (grown > t ? grown : t);
          } else {
            limited = by_halves([egl](VI32H r, VI32H tt, VI32H oo,
                                      VI32H) { return gain_limited(r, tt, oo, egl); },
                                rst, t, o, o);
          }
          rst = apply ? trunc16(limited) : rst;
          store16(rows.restored[theta] + j, rst);
          store16(rows.additive[theta] + j, t - rst);
        }
      });
  scalar::decouple<pixel::Scale0Arith>(rows, done, end, egl);
}

#if defined(__AVX512BW__)
// Scale 0 with AVX-512 where the gain limit is whole (libvmaf's default 100,
// VMAF v1's 1); decouple_0 otherwise. The same values, by fewer steps:
//  * The angle test's sums from pmaddwd of (oh, ov) and (th, tv) pairs: each
//    is exact in 32 bits but for pmaddwd's one wrap, 2^31 (all four -32768,
//    or a magnitude of two -32768) read back as uint32. The dot product's
//    true value lies in [-2^31 + 65536, 2^31], so it is >= 0 exactly where its
//    uint32 is <= 2^31, and there vcvtudq2ps rounds it as the scalar's int64
//    -> float; the magnitudes (in [0, 2^31]) likewise. The scalar compares
//    (d/4096)^2 >= (c * (o/4096)) * (t/4096) in double (d, o, t those floats, c
//    = float(cos^2 1 deg)): d^2 and c * o are exact (48-bit products), so
//    scaling both sides by 2^24 changes no rounding: d^2 >= (c * o) * t.
//  * k = clamp((R * t + 2^14) >> 15, 0, 32768), R = the table's 2^30 / o: R as
//    in reciprocal_q30 (a double division, truncated), R * t + 2^14 exact in
//    double (below 2^46), its floor after the exact scaling by 2^-15 one
//    conversion rounding down; o == 0 lanes take no division (masked) and k =
//    32768.
//  * rst = (k * o + 2^14) >> 15 has |rst| <= |o| (k <= 2^15), so it is its
//    own int16; the limit min(rst * egl, t) (o > 0, rst >= 0) lies between
//    min(0, t) and t, max(rst * egl, t) (o < 0) between t and max(0, t): int16
//    too, and rst * egl (|rst|, egl <= 2^15) fits int32. The scalar's
//    truncations to int16 change nothing there.
void decouple_0_avx512(const DecoupleRows<std::int16_t>& rows, int begin, int end, double egl) {
  if (!whole_gain_limit(egl)) return decouple_0(rows, begin, end, egl);
  const auto egl_int = static_cast<std::int32_t>(egl);
  const __m512i egl_v = _mm512_set1_epi32(egl_int);
  const __m512d cos_sq = _mm512_set1_pd(cos_1deg_sq());
  const __m512d two30 = _mm512_set1_pd(1073741824.0), half_unit = _mm512_set1_pd(16384.0);
  const __m512d by_2_15 = _mm512_set1_pd(1.0 / 32768.0);
  const __m512i zero = _mm512_setzero_si512(), full = _mm512_set1_epi32(32768);
  const __m512i round15 = _mm512_set1_epi32(16384);
  const auto load16 = [](const std::int16_t* p) {
    return _mm512_cvtepi16_epi32(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
  };
  const auto store16_lanes = [](std::int16_t* p, __m512i v) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), _mm512_cvtepi32_epi16(v));
  };
  // (d^2 >= (c * o) * t) of 8 lanes, from floats.
  const auto angle_half = [&](__m256 d, __m256 o, __m256 t) {
    const __m512d dd = _mm512_cvtps_pd(d);
    const __m512d rhs = _mm512_mul_pd(_mm512_mul_pd(cos_sq, _mm512_cvtps_pd(o)), _mm512_cvtps_pd(t));
    return _mm512_cmp_pd_mask(_mm512_mul_pd(dd, dd), rhs, _CMP_GE_OQ);
  };
  // floor((trunc(2^30 / o) * t + 2^14) / 2^15) of 8 lanes (o != 0 where `nz`).
  const auto k_half = [&](__m256i o, __m256i t, __mmask8 nz) {
    const __m512d r = _mm512_roundscale_pd(
        _mm512_mask_div_pd(two30, nz, two30, _mm512_cvtepi32_pd(o)),
        _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    const __m512d q = _mm512_add_pd(_mm512_mul_pd(r, _mm512_cvtepi32_pd(t)), half_unit);
    return _mm512_cvt_roundpd_epi32(_mm512_mul_pd(q, by_2_15),
                                    _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
  };
  const int done = per_column(
      begin, end, [&](int j) __attribute__((always_inline)) {
        __m512i o[3], t[3];
        for (int theta = 0; theta < 3; ++theta) {
          o[theta] = load16(rows.ref[theta] + j);
          t[theta] = load16(rows.dist[theta] + j);
        }
        // Odd int16 lanes from the second value: (oh, ov) and (th, tv) pairs.
        const __m512i p = _mm512_mask_blend_epi16(0xAAAAAAAAu, o[0], _mm512_slli_epi32(o[1], 16));
        const __m512i q = _mm512_mask_blend_epi16(0xAAAAAAAAu, t[0], _mm512_slli_epi32(t[1], 16));
        const __m512i dot = _mm512_madd_epi16(p, q);
        const __mmask16 nonnegative =
            _mm512_cmple_epu32_mask(dot, _mm512_set1_epi32(static_cast<int>(0x80000000u)));
        const __m512 d = _mm512_cvtepu32_ps(dot);
        const __m512 om = _mm512_cvtepu32_ps(_mm512_madd_epi16(p, p));
        const __m512 tm = _mm512_cvtepu32_ps(_mm512_madd_epi16(q, q));
        const __mmask16 angle =
            nonnegative &
            _mm512_kunpackb(angle_half(_mm512_extractf32x8_ps(d, 1), _mm512_extractf32x8_ps(om, 1),
                                       _mm512_extractf32x8_ps(tm, 1)),
                            angle_half(_mm512_castps512_ps256(d), _mm512_castps512_ps256(om),
                                       _mm512_castps512_ps256(tm)));
        for (int theta = 0; theta < 3; ++theta) {
          const __m512i oo = o[theta], tt = t[theta];
          const __mmask16 nz = _mm512_test_epi32_mask(oo, oo);
          const __m256i k_lo = k_half(_mm512_castsi512_si256(oo), _mm512_castsi512_si256(tt),
                                      static_cast<__mmask8>(nz));
          const __m256i k_hi = k_half(_mm512_extracti64x4_epi64(oo, 1),
                                      _mm512_extracti64x4_epi64(tt, 1),
                                      static_cast<__mmask8>(nz >> 8));
          __m512i k = _mm512_inserti64x4(_mm512_castsi256_si512(k_lo), k_hi, 1);
          k = _mm512_mask_mov_epi32(full, nz, k);
          k = _mm512_min_epi32(_mm512_max_epi32(k, zero), full);
          __m512i rst =
              _mm512_srai_epi32(_mm512_add_epi32(_mm512_mullo_epi32(k, oo), round15), 15);
          const __mmask16 apply = angle & nz & _mm512_cmpgt_epi32_mask(k, zero);
          const __m512i grown = egl_int == 1 ? rst : _mm512_mullo_epi32(rst, egl_v);
          const __mmask16 positive = _mm512_cmpgt_epi32_mask(oo, zero);
          const __m512i limited = _mm512_mask_blend_epi32(positive, _mm512_max_epi32(grown, tt),
                                                          _mm512_min_epi32(grown, tt));
          rst = _mm512_mask_mov_epi32(rst, apply, limited);
          store16_lanes(rows.restored[theta] + j, rst);
          store16_lanes(rows.additive[theta] + j, _mm512_sub_epi32(tt, rst));
        }
      });
  scalar::decouple<pixel::Scale0Arith>(rows, done, end, egl);
}
#endif

// Scales 1..3 (pixel::ScaleNArith::restore and subtract, per lane). AVX-512
// converts int64 to float (vcvtqq2ps, rounding as the scalar's conversion)
// and counts leading zeros (vplzcntd); AVX2 takes the angle test in double
// where that is exact and counts leading zeros from a float's exponent.
[[gnu::always_inline]] inline VI64H wrapping_add(VI64H a, VI64H b) {
  return (VI64H)((VU64H)a + (VU64H)b);
}

// Lane-wise x >> n of int64 lanes, arithmetic, n in 0..63 per lane (AVX2 has
// no vpsravq: the logical shift of x's bits with the sign flipped, flipped
// back).
[[gnu::always_inline]] inline VI64H shift_right_signed(VI64H x, VI64H n) {
  const VU64H sign = (VU64H)(x < 0);
  return (VI64H)((((VU64H)x ^ sign) >> (VU64H)n) ^ sign);
}

// Leading zeros of lanes >= 256: floor(log2 v) from the exponent of
// float(v >> 8), exact below 2^24 (AVX2 has no vplzcntd).
[[gnu::always_inline]] inline VI32 leading_zeros_from_256(VU32 v) {
  const lanes::F f = __builtin_convertvector((VI32)(v >> 8u), lanes::F);
  const VI32 floor_log2 = (((VI32)f >> 23) & 0xFF) - 127 + 8;
  return 31 - floor_log2;
}

template <class W = V>
void decouple_n(const DecoupleRows<std::int32_t>& rows, int begin, int end, double egl) {
  {
    const double cos_sq = cos_1deg_sq();
    const int done = per_column(
        begin, end, [&](int j) __attribute__((always_inline)) {
          if constexpr (!W::kAvx512) {
            // AVX2 converts no int64 to float. The angle test's int64 sums are
            // exact in double, where within_one_degree() computes them, when every
            // value is below 2^26 (products below 2^52, sums of two below 2^53):
            // then double -> float rounds as the scalar's int64 -> float. Other
            // columns (no real picture's: its bands stay far below) take the
            // scalar reference.
            const VU32 magnitude =
                magnitude_lanes(load(rows.ref[0] + j)) | magnitude_lanes(load(rows.ref[1] + j)) |
                magnitude_lanes(load(rows.dist[0] + j)) | magnitude_lanes(load(rows.dist[1] + j));
            bool small = true;
            for (int l = 0; l < N; ++l) small &= magnitude[l] < (1u << 26);
            if (!small) {
              scalar::decouple<pixel::ScaleNArith>(rows, j, j + N, egl);
              return;
            }
          }
          const VI32 angle = [&]() __attribute__((always_inline)) {
            if constexpr (!W::kAvx512) {
              return by_halves(
                  [cos_sq](VI32H oh, VI32H ov, VI32H th, VI32H tv) {
                    return within_one_degree(oh, ov, th, tv, cos_sq);
                  },
                  load(rows.ref[0] + j), load(rows.ref[1] + j), load(rows.dist[0] + j),
                  load(rows.dist[1] + j));
            } else {
              // The angle test on int64 values (the scalar's wrapping sums of exact
              // products), converted to float from int64 as the scalar converts them.
              return by_halves(
                  [cos_sq](VI32H oh_i, VI32H ov_i, VI32H th_i, VI32H tv_i) {
                    const VI64H oh = to_i64(oh_i), ov = to_i64(ov_i);
                    const VI64H th = to_i64(th_i), tv = to_i64(tv_i);
                    const auto float_of = [](VI64H x) {
                      return to_f64((VFH)W::cvt_i64_f32((typename W::I)x)) / 4096.0;
                    };
                    const VDH dot_scaled = float_of(wrapping_add(mul32(oh, th), mul32(ov, tv)));
                    const VDH rhs =
                        (cos_sq * float_of(wrapping_add(mul32(oh, oh), mul32(ov, ov)))) *
                        float_of(wrapping_add(mul32(th, th), mul32(tv, tv)));
                    return to_i32(VI64H((dot_scaled >= 0.0) & (dot_scaled * dot_scaled >= rhs)));
                  },
                  load(rows.ref[0] + j), load(rows.ref[1] + j), load(rows.dist[0] + j),
                  load(rows.dist[1] + j));
            }
          }
          ();
          for (int theta = 0; theta < 3; ++theta) {
            const VI32 o = load(rows.ref[theta] + j), t = load(rows.dist[theta] + j);
            // |o| reduced to its 15 leading bits (rounded), the shift remembered.
            const VU32 abs_o = o < 0 ? 0u - u32(o) : u32(o);
            const VI32 big = abs_o >= 32768u;
            VI32 lz;
            if constexpr (W::kAvx512)
              lz = (VI32)W::lzcnt32((typename W::I)abs_o);
            else
              lz = leading_zeros_from_256(abs_o);  // used only where big
            const VI32 shift = big ? 17 - lz : VI32{};
            const VU32 half_unit = big ? (VU32{} + 1u) << u32(big ? shift - 1 : VI32{}) : VU32{};
            const VU32 top15 = big ? ((abs_o + half_unit) >> u32(shift)) & 0xFFFFu : abs_o;
            const VI32 reciprocal = reciprocal_q30(i32(top15));
            // tmp_k, k = clamp(tmp_k, 0, 32768) and rst in int64 lanes; k > 0 kept.
            VI32 k_positive;
            const auto restore = [&](VI32H o_h, VI32H t_h, VI32H r_h, VI32H s_h, VI32H& positive) {
              const VI64H o64 = to_i64(o_h), s64 = to_i64(s_h);
              VI64H product = mul32(to_i64(r_h), to_i64(t_h));
              product = o64 < 0 ? -product : product;
              VI64H tmp_k;
              if constexpr (W::kAvx512)
                tmp_k = (product + ((VI64H{} + 1) << (s64 + 14))) >> (s64 + 15);
              else
                tmp_k = shift_right_signed(product + ((VI64H{} + 1) << (s64 + 14)), s64 + 15);
              tmp_k = o64 == 0 ? VI64H{} + 32768 : tmp_k;
              tmp_k = tmp_k < 0 ? VI64H{} : tmp_k;
              tmp_k = tmp_k > 32768 ? VI64H{} + 32768 : tmp_k;
              positive = to_i32(VI64H(tmp_k > 0));
              return to_i32((mul32(tmp_k, o64) + 16384) >> 15);
            };
            constexpr auto half = std::make_integer_sequence<int, H>{};
            VI32H positive_lo, positive_hi;
            VI32 rst =
                join(restore(low_half(o, half), low_half(t, half), low_half(reciprocal, half),
                             low_half(shift, half), positive_lo),
                     restore(high_half(o, half), high_half(t, half), high_half(reciprocal, half),
                             high_half(shift, half), positive_hi),
                     std::make_integer_sequence<int, N>{});
            k_positive = join(positive_lo, positive_hi, std::make_integer_sequence<int, N>{});
            const VI32 apply = angle & k_positive & (o != 0);
            const VI32 limited = by_halves(
                [egl](VI32H r, VI32H tt, VI32H oo) { return gain_limited(r, tt, oo, egl); }, rst, t,
                o);
            rst = apply ? limited : rst;
            store(rows.restored[theta] + j, rst);
            store(rows.additive[theta] + j, i32(u32(t) - u32(rst)));
          }
        });
    scalar::decouple<pixel::ScaleNArith>(rows, done, end, egl);
  }
}

#if defined(__AVX512BW__)
// Scales 1..3 with AVX-512 (pixel::ScaleNArith::restore and subtract, per
// lane), with fewer steps than decouple_n:
//  * The angle test as the scalar's: int64 products and wrapping sums, their
//    floats (vcvtqq2ps), d >= 0 read from the int64 sum, and the comparison
//    d^2 >= (c * o) * t without the scalar's /4096 (both sides scaled by 2^24,
//    as in decouple_0_avx512: d^2 and c * o are exact, the one rounding is the
//    same).
//  * tmp_k = (P + 2^(14+s)) >> (15+s), P = D * t * sign, D = the table's entry
//    of |o|'s 15 leading bits (shift s): in double, sign * D as in
//    reciprocal_q30 (a division by the signed top bits, truncated), P rounded
//    only where |P| > 2^53. Where |P| < 2^53 - 2^31, P + 2^(14+s) is exact and
//    so are the scaling by 2^-(15+s) (vscalefpd) and the floor. Elsewhere
//    |tmp_k| > 2^21 on both sides, of the same sign (rounding is monotone), and
//    clamp(tmp_k, 0, 32768) is 0 or 32768 on both. Computed as
//    floor(P 2^-(15+s) + 0.5), clamped before the floor (the bounds are whole).
//  * rst = (k * o + 2^14) >> 15: k o exact in double (below 2^47), the
//    scaling exact, one conversion rounding down; |rst| <= |o|, an int32.
//  * A gain limit of 1: min(rst, t) (o > 0) or max(rst, t) in int32, the
//    double's values; other limits as decouple_n (gain_limited).
void decouple_n_avx512(const DecoupleRows<std::int32_t>& rows, int begin, int end, double egl) {
  const bool egl_one = egl == 1.0;
  const __m512d cos_sq = _mm512_set1_pd(cos_1deg_sq());
  const __m512d two30 = _mm512_set1_pd(1073741824.0), one_half = _mm512_set1_pd(0.5);
  const __m512d zero_d = _mm512_setzero_pd(), full_d = _mm512_set1_pd(32768.0);
  const __m512d round15 = _mm512_set1_pd(16384.0), by_2_15 = _mm512_set1_pd(1.0 / 32768.0);
  const __m512i zero = _mm512_setzero_si512(), one = _mm512_set1_epi32(1);
  const auto load = [](const std::int32_t* p) { return _mm512_loadu_si512(p); };
  const auto low = [](__m512i v) { return _mm512_castsi512_si256(v); };
  const auto high = [](__m512i v) { return _mm512_extracti64x4_epi64(v, 1); };
  // The angle test of 8 lanes.
  const auto angle_half = [&](__m256i oh_i, __m256i ov_i, __m256i th_i, __m256i tv_i)
      __attribute__((always_inline)) {
    const __m512i oh = _mm512_cvtepi32_epi64(oh_i), ov = _mm512_cvtepi32_epi64(ov_i);
    const __m512i th = _mm512_cvtepi32_epi64(th_i), tv = _mm512_cvtepi32_epi64(tv_i);
    const __m512i dot = _mm512_add_epi64(_mm512_mul_epi32(oh, th), _mm512_mul_epi32(ov, tv));
    const __m512i om = _mm512_add_epi64(_mm512_mul_epi32(oh, oh), _mm512_mul_epi32(ov, ov));
    const __m512i tm = _mm512_add_epi64(_mm512_mul_epi32(th, th), _mm512_mul_epi32(tv, tv));
    const __m512d d = _mm512_cvtps_pd(_mm512_cvtepi64_ps(dot));
    const __m512d rhs = _mm512_mul_pd(_mm512_mul_pd(cos_sq, _mm512_cvtps_pd(_mm512_cvtepi64_ps(om))),
                                      _mm512_cvtps_pd(_mm512_cvtepi64_ps(tm)));
    return static_cast<__mmask8>(_mm512_cmpge_epi64_mask(dot, zero) &
                                 _mm512_cmp_pd_mask(_mm512_mul_pd(d, d), rhs, _CMP_GE_OQ));
  };
  // k (double) and rst of 8 lanes; k > 0 to `positive`.
  const auto restore_half = [&](__m256i o_i, __m256i t_i, __m256i top_i, __m256i expo_i,
                                __mmask8 nz, __mmask8& positive) __attribute__((always_inline)) {
    const __m512d od = _mm512_cvtepi32_pd(o_i);
    const __m512d reciprocal = _mm512_roundscale_pd(
        _mm512_mask_div_pd(two30, nz, two30, _mm512_cvtepi32_pd(top_i)),
        _MM_FROUND_TO_ZERO | _MM_FROUND_NO_EXC);
    const __m512d x = _mm512_scalef_pd(_mm512_mul_pd(reciprocal, _mm512_cvtepi32_pd(t_i)),
                                       _mm512_cvtepi32_pd(expo_i));
    __m512d k = _mm512_min_pd(_mm512_max_pd(_mm512_add_pd(x, one_half), zero_d), full_d);
    k = _mm512_roundscale_pd(k, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
    k = _mm512_mask_mov_pd(full_d, nz, k);  // o == 0: 32768
    positive = _mm512_cmp_pd_mask(k, zero_d, _CMP_GT_OQ);
    return _mm512_cvt_roundpd_epi32(_mm512_mul_pd(_mm512_add_pd(_mm512_mul_pd(k, od), round15), by_2_15),
                                    _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
  };
  const int done = per_column(
      begin, end, [&](int j) __attribute__((always_inline)) {
        const __m512i oh = load(rows.ref[0] + j), ov = load(rows.ref[1] + j);
        const __m512i th = load(rows.dist[0] + j), tv = load(rows.dist[1] + j);
        const __mmask16 angle =
            _mm512_kunpackb(angle_half(high(oh), high(ov), high(th), high(tv)),
                            angle_half(low(oh), low(ov), low(th), low(tv)));
        for (int theta = 0; theta < 3; ++theta) {
          const __m512i o = load(rows.ref[theta] + j), t = load(rows.dist[theta] + j);
          // |o| (INT32_MIN: 2^31 as uint32) reduced to its 15 leading bits
          // (rounded; at most 32768), the shift s remembered; signed as o.
          const __m512i abs_o = _mm512_abs_epi32(o);
          const __mmask16 big = _mm512_cmpge_epu32_mask(abs_o, _mm512_set1_epi32(32768));
          const __m512i shift =
              _mm512_maskz_sub_epi32(big, _mm512_set1_epi32(17), _mm512_lzcnt_epi32(abs_o));
          const __m512i half_unit =
              _mm512_maskz_sllv_epi32(big, one, _mm512_sub_epi32(shift, one));
          const __m512i top = _mm512_srlv_epi32(_mm512_add_epi32(abs_o, half_unit), shift);
          const __m512i signed_top =
              _mm512_mask_sub_epi32(top, _mm512_cmplt_epi32_mask(o, zero), zero, top);
          const __m512i expo = _mm512_sub_epi32(_mm512_set1_epi32(-15), shift);
          const __mmask16 nz = _mm512_test_epi32_mask(o, o);
          __mmask8 positive_lo, positive_hi;
          const __m256i rst_lo = restore_half(low(o), low(t), low(signed_top), low(expo),
                                              static_cast<__mmask8>(nz), positive_lo);
          const __m256i rst_hi = restore_half(high(o), high(t), high(signed_top), high(expo),
                                              static_cast<__mmask8>(nz >> 8), positive_hi);
          __m512i rst = _mm512_inserti64x4(_mm512_castsi256_si512(rst_lo), rst_hi, 1);
          const __mmask16 apply = angle & nz & _mm512_kunpackb(positive_hi, positive_lo);
          __m512i limited;
          if (egl_one) {
            limited = _mm512_mask_blend_epi32(_mm512_cmpgt_epi32_mask(o, zero),
                                              _mm512_max_epi32(rst, t), _mm512_min_epi32(rst, t));
          } else {
            limited = (__m512i)by_halves(
                [egl](VI32H r, VI32H tt, VI32H oo) { return gain_limited(r, tt, oo, egl); },
                (VI32)rst, (VI32)t, (VI32)o);
          }
          rst = _mm512_mask_mov_epi32(rst, apply, limited);
          _mm512_storeu_si512(rows.restored[theta] + j, rst);
          _mm512_storeu_si512(rows.additive[theta] + j, _mm512_sub_epi32(t, rst));
        }
      });
  scalar::decouple<pixel::ScaleNArith>(rows, done, end, egl);
}
#endif

// ---------------------------------------------------------------------------
// The CSF.

void csf_0(const pixel::Scale0Arith& arith, int theta, const std::int16_t* src, int begin, int end,
           std::int16_t* centre, std::int16_t* share) {
  const int shift = theta == 2 ? 17 : 15;
  const std::uint32_t round = theta == 2 ? 65535 : 16384;  // as Scale0Arith::csf
  const auto factor = static_cast<std::uint32_t>(arith.rfactor[theta]);
  const int done = per_column(
      begin, end, [&](int j) __attribute__((always_inline)) {
        const VU32 x = u32(load32(src + j));
        VU32 weighted = factor * x + round;
        const VI32 value = trunc16(i32(weighted) >> shift);
        const VI32 magnitude = abs_lanes(value);
        // store16 keeps the low 16 bits: the scalar's int16 of each share.
        store16(centre + j, (pixel::kOneBy15Q17 * magnitude + 2048) >> 12);
        store16(share + j, (pixel::kOneBy30Q17 * magnitude + 2048) >> 12);
      });
  scalar::csf(arith, theta, src, done, end, centre, share);
}

#if defined(__AVX512BW__)
// csf_0 in 16-bit lanes, 32 columns a vector, for weights of 16 bits (all of
// libvmaf's scale-0 weights). The scalar's int32 sum S = w * x + round (w <=
// 65535, |x| <= 32768: S within int32) from its 16-bit halves: the low half of
// w * x (vpmullw), its high half (vpmulhw of w as int16, plus x where w >=
// 2^15), the carry of adding round to the low half. The CSF value is S >> 15
// cut to int16, bits 15..30: the high half's bits 0..14 and the low half's bit
// 15; or S >> 17 (d), which fits int16: the high half >> 1. The share
// (4369 m + 2048) >> 12 of m = |value| (32768 for -32768, as abs32) is
// (69904 m + 2^15) >> 16 = m + (4368 m + 2^15) >> 16: m plus the high half of
// 4368 m (vpmulhuw) plus bit 15 of its low half, modulo 2^16 as the scalar's
// int16; the centre's (8738 m + 2048) >> 12 = (139808 m + 2^15) >> 16 likewise
// 2m plus the halves of 8736 m.
void csf_0_avx512(const pixel::Scale0Arith& arith, int theta, const std::int16_t* src, int begin,
                  int end, std::int16_t* centre, std::int16_t* share) {
  const std::int32_t weight = arith.rfactor[theta];
  if (weight < 0 || weight > 65535) return csf_0(arith, theta, src, begin, end, centre, share);
  const bool diagonal = theta == 2;
  const __m512i w16 = _mm512_set1_epi16(static_cast<short>(weight));
  const bool w_high = weight >= 32768;
  const __m512i round = _mm512_set1_epi16(static_cast<short>(diagonal ? 65535 : 16384));
  const __m512i share_factor = _mm512_set1_epi16(pixel::kOneBy30Q17 * 16 - 65536);  // 4368
  const __m512i centre_factor = _mm512_set1_epi16(pixel::kOneBy15Q17 * 16 - 2 * 65536);  // 8736
  const __m512i one = _mm512_set1_epi16(1);
  constexpr int C = 32;
  const auto block = [&](int j) __attribute__((always_inline)) {
    const __m512i x = _mm512_loadu_si512(src + j);
    const __m512i low = _mm512_mullo_epi16(x, w16);
    __m512i high = _mm512_mulhi_epi16(x, w16);
    if (w_high) high = _mm512_add_epi16(high, x);
    const __m512i low_sum = _mm512_add_epi16(low, round);
    high = _mm512_mask_add_epi16(high, _mm512_cmplt_epu16_mask(low_sum, low), high, one);
    const __m512i value =
        diagonal ? _mm512_srai_epi16(high, 1)
                 : _mm512_or_si512(_mm512_slli_epi16(high, 1), _mm512_srli_epi16(low_sum, 15));
    const __m512i m = _mm512_abs_epi16(value);
    // m * whole + (m * factor + 2^15) >> 16, modulo 2^16.
    const auto part = [&](__m512i whole, __m512i factor) __attribute__((always_inline)) {
      return _mm512_add_epi16(_mm512_add_epi16(whole, _mm512_mulhi_epu16(m, factor)),
                              _mm512_srli_epi16(_mm512_mullo_epi16(m, factor), 15));
    };
    _mm512_storeu_si512(centre + j, part(_mm512_add_epi16(m, m), centre_factor));
    _mm512_storeu_si512(share + j, part(m, share_factor));
  };
  if (end - begin < C) return scalar::csf(arith, theta, src, begin, end, centre, share);
  int j = begin;
  for (; j + C <= end; j += C) block(j);
  if (j < end) block(end - C);  // overlaps the step before: the same values again
}
#endif

#if !defined(__AVX512BW__)  // AVX-512: csf_n_avx512
void csf_n(const pixel::ScaleNArith& arith, int theta, const std::int32_t* src, int begin, int end,
           std::int32_t* centre, std::int32_t* share) {
  const std::int64_t factor = arith.rfactor[theta];
  const int done = per_column(
      begin, end, [&](int j) __attribute__((always_inline)) {
        const VI32 value =
            by_halves([factor](VI32H x) { return to_i32((factor * to_i64(x) + (1 << 27)) >> 28); },
                      load(src + j));
        // 1/15 and 1/30 of |value| in Q32, each rounded with the negative offset.
        const auto share_of = [](VI32 v, std::int64_t fraction) __attribute__((always_inline)) {
          return by_halves(
              [fraction](VI32H x) {
                const VI64H magnitude = abs_lanes(to_i64(x));
                return to_i32((fraction * magnitude + pixel::kQ32RoundingOffset) >> 32);
              },
              v);
        };
        store(centre + j, share_of(value, pixel::kOneBy15Q32));
        store(share + j, share_of(value, pixel::kOneBy30Q32));
      });
  scalar::csf(arith, theta, src, done, end, centre, share);
}
#endif

#if defined(__AVX512BW__)
// csf_n with AVX-512 on the 32-bit lanes in place, each pair of them a 64-bit
// lane whose low half vpmuldq / vpmuludq read (the odd lanes shifted down):
//  * value = (w x + 2^27) >> 28 (w < 2^32 unsigned, x int32): vpmuldq takes w
//    as int32, w - 2^32 where w >= 2^31, and x 2^32 is added back (modulo
//    2^64, the scalar's int64 product). The 32 bits kept, 28 .. 59 of the sum,
//    go to the low half (even lanes: >> 28) or the high half (odd lanes:
//    << 4) of their 64-bit lane.
//  * the shares (K m - 2^31) >> 32 of m = |value| (2^31 for INT32_MIN, as
//    abs64): K m exact from vpmuludq (below 2^60), the result the high half of
//    the 64-bit difference (odd lanes: in place; even lanes: >> 32).
constexpr __mmask16 kOddLanes = 0xAAAA;

// The first step's value, (w x + 2^27) >> 28 cut to int32, per lane; also the
// masking's weighted signal at scales 1..3 (ScaleNArith::signal is the same
// expression).
[[gnu::always_inline]] inline __m512i csf_value_n(__m512i x, std::uint32_t weight) {
  const __m512i w = _mm512_set1_epi64(weight);
  const __m512i round = _mm512_set1_epi64(1 << 27);
  __m512i even = _mm512_mul_epi32(x, w);
  __m512i odd = _mm512_mul_epi32(_mm512_srli_epi64(x, 32), w);
  if (weight >= 0x80000000u) {
    even = _mm512_add_epi64(even, _mm512_slli_epi64(x, 32));
    odd = _mm512_add_epi64(
        odd, _mm512_and_si512(x, _mm512_set1_epi64(static_cast<long long>(0xFFFFFFFF00000000ull))));
  }
  return _mm512_mask_blend_epi32(kOddLanes, _mm512_srli_epi64(_mm512_add_epi64(even, round), 28),
                                 _mm512_slli_epi64(_mm512_add_epi64(odd, round), 4));
}

void csf_n_avx512(const pixel::ScaleNArith& arith, int theta, const std::int32_t* src, int begin,
                  int end, std::int32_t* centre, std::int32_t* share) {
  const std::uint32_t weight = arith.rfactor[theta];
  const __m512i offset = _mm512_set1_epi64(pixel::kQ32RoundingOffset);
  const __m512i k15 = _mm512_set1_epi64(pixel::kOneBy15Q32);
  const __m512i k30 = _mm512_set1_epi64(pixel::kOneBy30Q32);
  const int done = per_column(
      begin, end, [&](int j) __attribute__((always_inline)) {
        const __m512i value = csf_value_n(_mm512_loadu_si512(src + j), weight);
        const __m512i m = _mm512_abs_epi32(value);
        const __m512i m_odd = _mm512_srli_epi64(m, 32);
        const auto share_of = [&](__m512i k) __attribute__((always_inline)) {
          const __m512i e = _mm512_add_epi64(_mm512_mul_epu32(m, k), offset);
          const __m512i o = _mm512_add_epi64(_mm512_mul_epu32(m_odd, k), offset);
          return _mm512_mask_blend_epi32(kOddLanes, _mm512_srli_epi64(e, 32), o);
        };
        _mm512_storeu_si512(centre + j, share_of(k15));
        _mm512_storeu_si512(share + j, share_of(k30));
      });
  scalar::csf(arith, theta, src, done, end, centre, share);
}
#endif

// ---------------------------------------------------------------------------
// Contrast masking and the cube sums.

// The CSF-weighted signal, per scale.
[[gnu::always_inline]] inline VU32 weighted_signal(const pixel::Scale0Arith& arith, VI32 signal,
                                                   int theta) {
  return u32(signal) * static_cast<std::uint32_t>(arith.rfactor[theta]);
}
[[gnu::always_inline]] inline VU32 weighted_signal(const pixel::ScaleNArith& arith, VI32 signal,
                                                   int theta) {
#if defined(__AVX512BW__)
  return (VU32)csf_value_n((__m512i)signal, arith.rfactor[theta]);  // the same expression
#else
  const std::int64_t factor = arith.rfactor[theta];
  return u32(by_halves([factor](VI32H v) { return to_i32((to_i64(v) * factor + (1 << 27)) >> 28); },
                       signal));
#endif
}

template <class Arith>
void masked_cubes(const Arith& arith, const MaskRows<typename Arith::Band>& rows, int w, int begin,
                  int end, const std::uint32_t* cube_shift, std::int64_t* sums) {
  // Column 0 mirrors its left neighbour: the scalar reference takes it.
  const int first = std::min(std::max(begin, 1), end);
  scalar::masked_cubes(arith, rows, w, begin, first, cube_shift, sums);
  VI64H acc[3][2] = {};
  int j = first;
  // The last column (w - 1) repeats itself as its right neighbour: scalar.
  // The threshold from column sums: V(c), the shares of the three rows and
  // the three orientations at column c, loaded once for columns j+1 .. j+N
  // and slid by one and two lanes for the left and centre columns; minus the
  // centre column's own shares, plus its 1/15 (uint32 sums: any order).
  const auto column_sums = [&](int c) {
    VU32 sum = VU32{};
    for (int theta = 0; theta < 3; ++theta)
      for (int r = 0; r < 3; ++r) sum += u32(load32(rows.share[theta][r] + c));
    return sum;
  };
  constexpr auto lanes = std::make_integer_sequence<int, N>{};
  // Lanes N-2 and N-1 hold V(j - 1) and V(j).
  VU32 edge = j + N <= end && j + N <= w - 1 ? slide<2>(VU32{}, column_sums(j - 1), lanes) : VU32{};
  for (; j + N <= end && j + N <= w - 1; j += N) {
    const VU32 right = column_sums(j + 1);
    VU32 threshold = slide<N - 2>(edge, right, lanes) + slide<N - 1>(edge, right, lanes) + right;
    for (int theta = 0; theta < 3; ++theta)
      threshold += u32(load32(rows.centre[theta] + j)) - u32(load32(rows.share[theta][1] + j));
    edge = right;
    for (int theta = 0; theta < 3; ++theta) {
      const VU32 weighted = weighted_signal(arith, load32(rows.signal[theta] + j), theta);
      const VU32 magnitude = i32(weighted) < 0 ? 0u - weighted : weighted;
      const VU32 mask = threshold << Arith::mask_shift(theta);
      VI32 x = i32(magnitude - mask);
      x = x < 0 ? VI32{} : x;
      const int sq = Arith::square_shift(theta);
      const int shift = static_cast<int>(cube_shift[theta]);
      const auto round = static_cast<std::int64_t>(pixel::round_offset(cube_shift[theta]));
      // The cubes of the even lanes of x, then of the odd ones: vpmuldq reads
      // the low 32 bits of each 64-bit lane, sign-extended, which also makes
      // it the scalar's int32 truncation of x_sq.
      const auto cubes = [&](VI64H x64) {
        const VI64H x_sq = (mul32(x64, x64) + (std::int64_t{1} << (sq - 1))) >> sq;
        const VI64H term = mul32(x_sq, x64) + round;
        // AVX-512: a count per lane (vpsravq, one uop; a count in an xmm
        // register takes two on Intel).
#if defined(__AVX512F__)
        return (VI64H)_mm512_srav_epi64((__m512i)term, _mm512_set1_epi64(shift));
#else
        return term >> shift;
#endif
      };
      // Lane sums modulo 2^64, as the scalar reference forms them.
      acc[theta][0] = wrap_add(acc[theta][0], cubes((VI64H)x));
      acc[theta][1] = wrap_add(acc[theta][1], cubes((VI64H)((VU64H)x >> 32)));
    }
  }
  for (int theta = 0; theta < 3; ++theta)
    sums[theta] =
        scalar::wrapping_add(sums[theta], sum_lanes(wrap_add(acc[theta][0], acc[theta][1])));
  scalar::masked_cubes(arith, rows, w, j, end, cube_shift, sums);
}

// The magnitudes a <= 2^15 of int16 values: a^2 < 2^31 and a^3 = a^2 a exact
// from two vpmuludq (unsigned 32 x 32 -> 64 bits of each 64-bit lane's low
// half), on the even lanes in place and the odd ones shifted down.
std::uint64_t reference_cubes_0(const pixel::Scale0Arith& arith, const std::int16_t* row, int begin,
                                int end, std::uint32_t den_cube_shift) {
  VU64H acc = VU64H{};
  int j = begin;
  for (; j + N <= end; j += N) {
    const auto a = (V::I)abs_lanes(load32(row + j));
    const V::I a_odd = V::odd(a);
    acc += (VU64H)V::mulu32x32(V::mulu32x32(a, a), a);
    acc += (VU64H)V::mulu32x32(V::mulu32x32(a_odd, a_odd), a_odd);
  }
  return sum_lanes(acc) + scalar::reference_cubes(arith, row, j, end, den_cube_shift);
}

std::uint64_t reference_cubes_n(const pixel::ScaleNArith& arith, const std::int32_t* row, int begin,
                                int end, std::uint32_t den_cube_shift) {
  const int sq = arith.scale == 2 ? 30 : 31;
  const std::uint64_t sq_round = std::uint64_t{1} << sq;  // as ScaleNArith::den_cube
  const std::uint64_t round = pixel::round_offset(den_cube_shift);
  const int shift = static_cast<int>(den_cube_shift);
  constexpr auto half = std::make_integer_sequence<int, H>{};
  VU64H acc = VU64H{};
  int j = begin;
  for (; j + N <= end; j += N) {
    const VI32 value = load(row + j);
    // |value| as uint32 (INT32_MIN stays 2^31), zero-extended per half.
    const VI32 magnitude = i32(value < 0 ? 0u - u32(value) : u32(value));
    for (const VI32H m : {low_half(magnitude, half), high_half(magnitude, half)}) {
      const VU64H a = (VU64H)to_i64(m) & 0xFFFFFFFFu;  // zero-extended
      acc += ((((a * a + sq_round) >> sq) * a) + round) >> shift;
    }
  }
  return sum_lanes(acc) + scalar::reference_cubes(arith, row, j, end, den_cube_shift);
}

AdmDsp make_dsp(const char* isa) {
  return AdmDsp{
      isa,
      dwt0_vertical_8,
      dwt0_vertical<std::uint16_t>,
      dwt0_horizontal,
      dwtn_vertical,
      dwtn_horizontal,
#if defined(__AVX512BW__)
      decouple_0_avx512,
      decouple_n_avx512,
      csf_0_avx512,
      csf_n_avx512,
#else
      decouple_0,
      decouple_n<>,
      csf_0,
      csf_n,
#endif
      masked_cubes<pixel::Scale0Arith>,
      masked_cubes<pixel::ScaleNArith>,
      reference_cubes_0,
      reference_cubes_n,
  };
}

}  // namespace
}  // namespace VMAFEXACT_ISA

const AdmDsp& VMAFEXACT_ISA_NAMED(adm_dsp)() {
  static const AdmDsp dsp = VMAFEXACT_ISA::make_dsp(simd::VMAFEXACT_ISA::kIsaName);
  return dsp;
}

}  // namespace vmafexact::adm
