// The per-pixel arithmetic of integer ADM, shared by the CPU path (adm.cpp)
// and the CUDA twin (cuda/adm/): every function here is written once and
// compiled for the host and, under nvcc, for the device (VMAFEXACT_HD), so
// both backends evaluate the same operations on the same types (the int16 and
// int32 wrap-arounds libvmaf has included, as explicit casts).
//
// Plain C++ only: no std::array, std::abs, std::clamp in device-callable code.
#pragma once

#include <bit>
#include <cstdint>

#include "common/host_device.h"

namespace vmafexact::adm::pixel {

// ---------------------------------------------------------------------------
// Small helpers with defined results for every input.

// |x| of an int32 as libvmaf's abs() gives it (INT32_MIN stays INT32_MIN).
VMAFEXACT_HD inline std::int32_t abs32(std::int32_t x) {
  return x < 0 ? static_cast<std::int32_t>(0u - static_cast<std::uint32_t>(x)) : x;
}
VMAFEXACT_HD inline std::int64_t abs64(std::int64_t x) {
  return x < 0 ? static_cast<std::int64_t>(0ull - static_cast<std::uint64_t>(x)) : x;
}
// Leading zero bits of a nonzero uint32.
VMAFEXACT_HD inline int leading_zeros(std::uint32_t x) {
#if defined(__CUDA_ARCH__)
  return __clz(static_cast<int>(x));
#else
  return std::countl_zero(x);
#endif
}

// libvmaf's "(uint32_t)pow(2, shift - 1)": the rounding offset of a right shift.
VMAFEXACT_HD constexpr std::uint32_t round_offset(std::uint32_t shift) {
  return shift == 0 ? 0u : (1u << (shift - 1));
}

// The DWT's index of tap k (k = 2i-1 .. 2i+2) of an axis of n samples: one
// sample mirrored without repeating the edge at the start, mirrored with the
// edge repeated at the end (libvmaf's dwt2_src_indices_filt, for n >= 5).
VMAFEXACT_HD inline int dwt_tap_index(int k, int n) {
  if (k < 0) return -k;
  if (k >= n) return 2 * n - k - 1;
  return k;
}

// The masking stage's neighbour index: -1 mirrors to 1, n repeats n - 1.
VMAFEXACT_HD inline int mask_neighbour_index(int k, int n) {
  if (k < 0) return 1;
  if (k >= n) return n - 1;
  return k;
}

// ---------------------------------------------------------------------------
// The DWT (db2 in Q15). Taps come from the host (adm.cpp's db2()).

struct Db2Taps {
  std::int32_t lo[4];
  std::int32_t hi[4];
  std::int32_t lo_sum;
};

// Scale 0, vertical pass over 4 picture samples (rows 2i-1 .. 2i+2): the
// low-pass result with the DC offset removed, both shifted by bpc and stored
// as int16 (libvmaf sums in int32; at 16 bits its partial sums may wrap, the
// results fit, so the wide sum gives the same values).
VMAFEXACT_HD inline void dwt0_vertical(const Db2Taps& f, const std::int32_t (&s)[4], unsigned bpc,
                                       std::int32_t& lo_out, std::int32_t& hi_out) {
  const std::int64_t vp_round = std::int64_t{1} << (bpc - 1);
  const std::int64_t dc = std::int64_t{f.lo_sum} * vp_round;
  std::int64_t lo = 0, hi = 0;
  for (int k = 0; k < 4; ++k) {
    lo += std::int64_t{f.lo[k]} * s[k];
    hi += std::int64_t{f.hi[k]} * s[k];
  }
  lo_out = static_cast<std::int16_t>((lo - dc + vp_round) >> bpc);
  hi_out = static_cast<std::int16_t>((hi + vp_round) >> bpc);
}

// Scale 0, horizontal pass over 4 vertical results (columns 2j-1 .. 2j+2):
// the bands a (lo of lo), v (hi of lo), h (lo of hi), d (hi of hi), int16.
struct Dwt0Out {
  std::int16_t a, v, h, d;
};
VMAFEXACT_HD inline std::int16_t dwt0_horizontal_one(const std::int32_t (&taps)[4],
                                                     const std::int32_t (&x)[4]) {
  std::int32_t sum = 0;
  for (int k = 0; k < 4; ++k) sum += taps[k] * x[k];
  return static_cast<std::int16_t>((sum + 32768) >> 16);
}

// Scales 1..3: the passes' rounding shifts depend on the scale.
VMAFEXACT_HD inline int dwt_vp_shift(int scale) { return scale == 1 ? 0 : 16; }
VMAFEXACT_HD inline int dwt_hp_shift(int scale) { return scale == 2 ? 16 : 15; }

VMAFEXACT_HD inline void dwtn_vertical(const Db2Taps& f, const std::int32_t (&s)[4], int scale,
                                       std::int32_t& lo_out, std::int32_t& hi_out) {
  const int vp_shift = dwt_vp_shift(scale);
  const std::int64_t vp_round = vp_shift ? std::int64_t{1} << (vp_shift - 1) : 0;
  std::int64_t lo = 0, hi = 0;
  for (int k = 0; k < 4; ++k) {
    lo += std::int64_t{f.lo[k]} * s[k];
    hi += std::int64_t{f.hi[k]} * s[k];
  }
  lo_out = static_cast<std::int32_t>((lo + vp_round) >> vp_shift);
  hi_out = static_cast<std::int32_t>((hi + vp_round) >> vp_shift);
}

VMAFEXACT_HD inline std::int32_t dwtn_horizontal_one(const std::int32_t (&taps)[4],
                                                     const std::int32_t (&x)[4], int scale) {
  const int hp_shift = dwt_hp_shift(scale);
  const std::int64_t hp_round = std::int64_t{1} << (hp_shift - 1);
  std::int64_t sum = 0;
  for (int k = 0; k < 4; ++k) sum += std::int64_t{taps[k]} * x[k];
  return static_cast<std::int32_t>((sum + hp_round) >> hp_shift);
}

// ---------------------------------------------------------------------------
// The decoupling.

// libvmaf's test "is the angle between (oh, ov) and (th, tv) below 1 degree",
// evaluated per pixel in float and double exactly as libvmaf writes it.
// cos_1deg_sq is float(cos(1 deg)^2), computed once on the host.
VMAFEXACT_HD inline bool within_one_degree(std::int64_t oh, std::int64_t ov, std::int64_t th,
                                           std::int64_t tv, float cos_1deg_sq) {
  // The sums are formed modulo 2^64 (unsigned, then back): they only leave the
  // int64 range for bands at INT32_MIN, where libvmaf's C (signed overflow)
  // wraps the same way on every compiler it is built with; here it is defined.
  const auto wrap_sum = [](std::int64_t a, std::int64_t b) {
    return static_cast<std::int64_t>(static_cast<std::uint64_t>(a) + static_cast<std::uint64_t>(b));
  };
  const std::int64_t dot = wrap_sum(oh * th, ov * tv);
  const std::int64_t o_mag_sq = wrap_sum(oh * oh, ov * ov);
  const std::int64_t t_mag_sq = wrap_sum(th * th, tv * tv);
  const double dot_scaled = static_cast<float>(dot) / 4096.0;
  return dot_scaled >= 0.0 &&
         dot_scaled * dot_scaled >= static_cast<double>(cos_1deg_sq) *
                                        (static_cast<float>(o_mag_sq) / 4096.0) *
                                        (static_cast<float>(t_mag_sq) / 4096.0);
}

// The enhancement-gain step shared by both decouplings: where the angles agree
// and k > 0, the restored value may grow by up to egl, but not past the
// distorted value. libvmaf's MIN/MAX in double, then truncation to the band type.
// (libvmaf tests the sign of the float product k/32768 * o/64, which is that of
// o whenever k > 0.)
template <typename Band>
VMAFEXACT_HD inline Band apply_gain_limit(Band rst, Band t, std::int64_t k, Band o, bool angle,
                                          double egl) {
  if (!angle || k <= 0) return rst;
  const double grown = rst * egl;
  const double tt = t;
  if (o > 0) return static_cast<Band>(grown < tt ? grown : tt);
  if (o < 0) return static_cast<Band>(grown > tt ? grown : tt);
  return rst;
}

// round(2^bits / divisor): libvmaf's fixed-point 1/15 and 1/30.
constexpr std::int64_t fixed_reciprocal(int bits, int divisor) {
  return ((std::int64_t{1} << bits) + divisor / 2) / divisor;
}
constexpr std::int32_t kOneBy15Q17 = fixed_reciprocal(17, 15);  // 8738
constexpr std::int32_t kOneBy30Q17 = fixed_reciprocal(17, 30);  // 4369
constexpr std::int64_t kOneBy15Q32 = fixed_reciprocal(32, 15);  // 286331153
constexpr std::int64_t kOneBy30Q32 = fixed_reciprocal(32, 30);  // 143165577
static_assert(kOneBy15Q17 == 8738 && kOneBy30Q17 == 4369);
static_assert(kOneBy15Q32 == 286331153 && kOneBy30Q32 == 143165577);

// libvmaf's scales 1..3 round their Q32 products by adding (int32)(1u << 31),
// which is -2^31: the rounding offset is negative.
constexpr std::int64_t kQ32RoundingOffset = -(std::int64_t{1} << 31);

// ---------------------------------------------------------------------------
// Per-scale arithmetic: scale 0 (int16 bands, Q15 division, Q21/Q23 CSF) and
// scales 1..3 (int32 bands, normalised division, Q32 CSF) differ in types,
// shifts and rounding; the stages built on them are the same.

struct Scale0Arith {
  using Band = std::int16_t;
  std::int32_t rfactor[3];  // Q21 (h, v), Q23 (d)

  // The restored value k * o with k = clamp(t / o, 0, 1) in Q15 via the table.
  VMAFEXACT_HD static Band restore(Band o, Band t, bool angle, double egl,
                                   const std::int32_t* div) {
    const std::int32_t tmp_k =
        o == 0 ? 32768
               : static_cast<std::int32_t>((std::int64_t{div[o + 32768]} * t + 16384) >> 15);
    const std::int32_t k = tmp_k < 0 ? 0 : tmp_k > 32768 ? 32768 : tmp_k;
    const Band rst = static_cast<Band>((k * o + 16384) >> 15);
    return apply_gain_limit<Band>(rst, t, k, o, angle, egl);
  }
  VMAFEXACT_HD static Band subtract(Band t, Band rst) { return static_cast<Band>(t - rst); }

  // The CSF-weighted value and its 1/30 (the neighbours' masking share).
  VMAFEXACT_HD Band csf(Band src, int theta) const {
    const int shift = theta == 2 ? 17 : 15;
    const std::int32_t round = theta == 2 ? 65535 : 16384;  // sic: d
    return static_cast<Band>((rfactor[theta] * std::int32_t{src} + round) >> shift);
  }
  VMAFEXACT_HD static Band csf_share(Band dst) {
    return static_cast<Band>((kOneBy30Q17 * abs32(std::int32_t{dst}) + 2048) >> 12);
  }
  // The centre's masking share: 1/15 of its CSF value, cast to int16 as libvmaf.
  VMAFEXACT_HD static std::int32_t centre_share(Band dst) {
    return static_cast<Band>((kOneBy15Q17 * abs32(std::int32_t{dst}) + 2048) >> 12);
  }
  // The signal as the masking stage weighs it (CSF factor, not yet shifted).
  VMAFEXACT_HD std::int32_t signal(Band src, int theta) const {
    return std::int32_t{src} * rfactor[theta];
  }
  VMAFEXACT_HD static int mask_shift(int theta) { return theta == 2 ? 12 : 10; }
  VMAFEXACT_HD static int square_shift(int theta) { return theta == 2 ? 30 : 29; }

  // One value of the reference cube sum.
  VMAFEXACT_HD std::uint64_t den_cube(Band value, std::uint32_t /*den_cube_shift*/) const {
    const auto a = static_cast<std::uint16_t>(abs32(std::int32_t{value}));
    return std::uint64_t{a} * a * a;
  }
};

struct ScaleNArith {
  using Band = std::int32_t;
  std::uint32_t rfactor[3];  // Q32
  int scale;                 // 1..3

  VMAFEXACT_HD static Band restore(Band o, Band t, bool angle, double egl,
                                   const std::int32_t* div) {
    std::int64_t tmp_k = 32768;
    if (o != 0) {
      // |o| reduced to its 15 leading bits (rounded), the shift remembered.
      const auto abs_o = static_cast<std::uint32_t>(abs32(o));
      int shift = 0;
      std::uint32_t top15 = abs_o;
      if (abs_o >= 32768) {
        shift = 17 - leading_zeros(abs_o);
        top15 = static_cast<std::uint16_t>((abs_o + (1u << (shift - 1))) >> shift);
      }
      const int sign = o < 0 ? -1 : 1;
      tmp_k = ((std::int64_t{div[top15 + 32768]} * t) * sign + (std::int64_t{1} << (14 + shift))) >>
              (15 + shift);
    }
    const std::int64_t k = tmp_k < 0 ? 0 : tmp_k > 32768 ? 32768 : tmp_k;
    const Band rst = static_cast<Band>((k * o + 16384) >> 15);
    return apply_gain_limit<Band>(rst, t, k, o, angle, egl);
  }
  VMAFEXACT_HD static Band subtract(Band t, Band rst) {
    return static_cast<Band>(std::int64_t{t} - std::int64_t{rst});
  }

  VMAFEXACT_HD Band csf(Band src, int theta) const {
    return static_cast<Band>((std::int64_t{rfactor[theta]} * src + (1 << 27)) >> 28);
  }
  VMAFEXACT_HD static Band csf_share(Band dst) {
    return static_cast<Band>((kOneBy30Q32 * abs64(std::int64_t{dst}) + kQ32RoundingOffset) >> 32);
  }
  VMAFEXACT_HD static std::int32_t centre_share(Band dst) {
    return static_cast<std::int32_t>(
        (kOneBy15Q32 * abs64(std::int64_t{dst}) + kQ32RoundingOffset) >> 32);
  }
  VMAFEXACT_HD std::int32_t signal(Band src, int theta) const {
    return static_cast<std::int32_t>((std::int64_t{src} * rfactor[theta] + (1 << 27)) >> 28);
  }
  VMAFEXACT_HD static int mask_shift(int) { return 0; }
  VMAFEXACT_HD static int square_shift(int) { return 30; }

  VMAFEXACT_HD std::uint64_t den_cube(Band value, std::uint32_t den_cube_shift) const {
    const int sq = scale == 2 ? 30 : 31;  // scales 1, 2, 3: 31, 30, 31
    const std::uint64_t sq_round = std::uint64_t{1} << sq;  // sic: libvmaf adds 2^sq
    const auto a = static_cast<std::uint32_t>(abs32(value));
    return ((((std::uint64_t{a} * a + sq_round) >> sq) * a) + round_offset(den_cube_shift)) >>
           den_cube_shift;
  }
};

// One term of a masked cube sum: the CSF-weighted signal value reduced by the
// masking threshold (shifted per orientation), clipped at 0 and cubed with
// libvmaf's intermediate shifts. `threshold` is the uint32 (wrapping) sum of
// the 3x3 neighbourhood's shares over the three orientations.
template <class Arith>
VMAFEXACT_HD inline std::int64_t masked_cube(const Arith& arith, typename Arith::Band signal,
                                             int theta, std::uint32_t threshold,
                                             std::uint32_t cube_shift) {
  const std::int32_t weighted = arith.signal(signal, theta);
  const std::uint32_t mask = threshold << Arith::mask_shift(theta);
  auto x = static_cast<std::int32_t>(static_cast<std::uint32_t>(abs32(weighted)) - mask);
  if (x < 0) x = 0;
  const int sq = Arith::square_shift(theta);
  const auto x_sq =
      static_cast<std::int32_t>((std::int64_t{x} * x + (std::int64_t{1} << (sq - 1))) >> sq);
  return (std::int64_t{x_sq} * x + round_offset(cube_shift)) >> cube_shift;
}

}  // namespace vmafexact::adm::pixel
