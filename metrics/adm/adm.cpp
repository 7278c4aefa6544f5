#include "adm/adm.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <numbers>
#include <string>

#include "common/error.h"

namespace vmafexact::adm {

namespace {

// ---------------------------------------------------------------------------
// Constants, derived from their definitions.

// The Daubechies-2 (db2) reconstruction filters in Q15, as libvmaf rounds them:
// lo = round(2^15 * (1+s3, 3+s3, 3-s3, 1-s3) / (4 sqrt 2)), s3 = sqrt 3, and
// hi the quadrature mirror of lo. lo sums to 46342 (the "DC gain" libvmaf
// subtracts to centre the first pass); hi sums to 0.
struct Db2Filters {
  std::array<std::int32_t, 4> lo{}, hi{};
  std::int32_t lo_sum = 0;
  Db2Filters() {
    const double s3 = std::sqrt(3.0);
    const double norm = 4.0 * std::sqrt(2.0);
    const std::array<double, 4> taps = {(1 + s3) / norm, (3 + s3) / norm, (3 - s3) / norm,
                                        (1 - s3) / norm};
    for (int k = 0; k < 4; ++k) lo[k] = static_cast<std::int32_t>(std::lround(taps[k] * 32768.0));
    hi = {lo[3], -lo[2], lo[1], -lo[0]};
    lo_sum = lo[0] + lo[1] + lo[2] + lo[3];
  }
};

const Db2Filters& db2() {
  static const Db2Filters filters;
  return filters;
}

// round(2^bits / divisor): libvmaf's fixed-point 1/15 and 1/30.
constexpr std::int64_t fixed_reciprocal(int bits, int divisor) {
  return ((std::int64_t{1} << bits) + divisor / 2) / divisor;
}
constexpr std::int32_t kOneBy15Q17 = fixed_reciprocal(17, 15);   // 8738
constexpr std::int32_t kOneBy30Q17 = fixed_reciprocal(17, 30);   // 4369
constexpr std::int64_t kOneBy15Q32 = fixed_reciprocal(32, 15);   // 286331153
constexpr std::int64_t kOneBy30Q32 = fixed_reciprocal(32, 30);   // 143165577
static_assert(kOneBy15Q17 == 8738 && kOneBy30Q17 == 4369);
static_assert(kOneBy15Q32 == 286331153 && kOneBy30Q32 == 143165577);

// libvmaf's scales 1..3 round their Q32 products by adding (int32)(1u << 31),
// which is -2^31: the rounding offset is negative.
constexpr std::int64_t kQ32RoundingOffset = -(std::int64_t{1} << 31);

// libvmaf's division table: entry 32768 + i holds 2^30 / i (truncated) and
// entry 32768 - i its negation, for i = 1 .. 32768.
const std::vector<std::int32_t>& division_table() {
  static const std::vector<std::int32_t> table = [] {
    std::vector<std::int32_t> t(65537, 0);
    for (int i = 1; i <= 32768; ++i) {
      const std::int32_t reciprocal = (1 << 30) / i;
      t[32768 + i] = reciprocal;
      t[32768 - i] = -reciprocal;
    }
    return t;
  }();
  return table;
}

// Watson, Yang, Solomon, Villasenor, "Visibility of Wavelet Quantization Noise",
// IEEE Trans. Image Processing 6(8), 1997: the luma threshold model of formula
// (9) with its Table IV parameters (subject "sfl") and the Table V basis
// function amplitudes A(lambda, theta) of the 7/9 biorthogonal wavelet, levels
// 1..4 (libvmaf's scales 0..3), orientations LL, LH, HH, HL. As libvmaf, float.
// libvmaf declares these float and initialises them from double literals, so
// each is the double value rounded to float (written so here).
constexpr float kWatsonA = static_cast<float>(0.495), kWatsonK = static_cast<float>(0.466),
                kWatsonF0 = static_cast<float>(0.401);
constexpr std::array<float, 4> kWatsonG = {static_cast<float>(1.501), 1.0f,
                                           static_cast<float>(0.534), 1.0f};
constexpr std::array<std::array<double, 4>, 4> kBasisAmplitudeDecimal = {{
    {0.62171, 0.67234, 0.72709, 0.67234},
    {0.34537, 0.41317, 0.49428, 0.41317},
    {0.18004, 0.22727, 0.28688, 0.22727},
    {0.091401, 0.11792, 0.15214, 0.11792},
}};
inline float basis_amplitude(int lambda, int theta) {
  return static_cast<float>(kBasisAmplitudeDecimal[lambda][theta]);
}

// libvmaf's dwt_quant_step(): the visibility threshold Q of one DWT level and
// orientation, with libvmaf's float/double mix.
float watson_quant_step(int lambda, int theta, double norm_view_dist, int ref_display_height) {
  // Display resolution in pixels per degree (56.55 at 3 heights of 1080 lines).
  const float r =
      static_cast<float>(norm_view_dist * ref_display_height * std::numbers::pi / 180.0);
  const float temp = static_cast<float>(std::log10(std::pow(2.0, lambda + 1) * kWatsonF0 *
                                                   kWatsonG[theta] / r));
  const float exponent = kWatsonK * temp * temp;  // float arithmetic, as libvmaf
  return static_cast<float>(2.0 * kWatsonA * std::pow(10.0, exponent) /
                            basis_amplitude(lambda, theta));
}

// libvmaf's "(uint32_t)pow(2, shift - 1)": the rounding offset of a right shift.
constexpr std::uint32_t round_offset(std::uint32_t shift) {
  return shift == 0 ? 0u : (1u << (shift - 1));
}

// libvmaf's conversions of a ceil(log2(...)) to its shift types.
std::uint32_t ceil_log2_u32(double value) {
  return static_cast<std::uint32_t>(std::ceil(std::log2(value)));
}

// The DWT's index of tap k (k = 2i-1 .. 2i+2) of an axis of n samples: one
// sample mirrored without repeating the edge at the start, mirrored with the
// edge repeated at the end (libvmaf's dwt2_src_indices_filt, for n >= 5).
inline int dwt_tap_index(int k, int n) {
  if (k < 0) return -k;
  if (k >= n) return 2 * n - k - 1;
  return k;
}

// ---------------------------------------------------------------------------
// The DWT.

// Scale 0 from the picture: the vertical pass removes the DC offset and shifts
// by bpc (libvmaf's 8-bit and high-bit-depth code differ only in that shift);
// the horizontal pass shifts by 16. Bands are int16. `tmp` holds 2 * w ints.
template <typename Sample>
void dwt_picture(const PlaneView& plane, unsigned bpc, int w, int h, bool lowpass_only,
                 std::int16_t* band_a, std::int16_t* band_h, std::int16_t* band_v,
                 std::int16_t* band_d, std::int32_t* tmp) {
  const auto& f = db2();
  const int out_w = (w + 1) / 2, out_h = (h + 1) / 2;
  const std::int64_t vp_round = std::int64_t{1} << (bpc - 1);
  const std::int64_t dc = std::int64_t{f.lo_sum} * vp_round;
  std::int32_t* tmp_lo = tmp;
  std::int32_t* tmp_hi = tmp + w;
  for (int i = 0; i < out_h; ++i) {
    const Sample* rows[4];
    for (int k = 0; k < 4; ++k) rows[k] = plane.row<Sample>(dwt_tap_index(2 * i - 1 + k, h));
    for (int j = 0; j < w; ++j) {
      std::int64_t lo = 0, hi = 0;
      for (int k = 0; k < 4; ++k) {
        lo += std::int64_t{f.lo[k]} * rows[k][j];
        hi += std::int64_t{f.hi[k]} * rows[k][j];
      }
      // libvmaf sums in int32; at 16 bits the partial sums may wrap, the results
      // below fit, so the wide sum gives the same values. Stored as int16.
      tmp_lo[j] = static_cast<std::int16_t>((lo - dc + vp_round) >> bpc);
      tmp_hi[j] = static_cast<std::int16_t>((hi + vp_round) >> bpc);
    }
    for (int j = 0; j < out_w; ++j) {
      int cols[4];
      for (int k = 0; k < 4; ++k) cols[k] = dwt_tap_index(2 * j - 1 + k, w);
      std::int32_t a = 0;
      for (int k = 0; k < 4; ++k) a += f.lo[k] * tmp_lo[cols[k]];
      const std::size_t at = static_cast<std::size_t>(i) * out_w + j;
      band_a[at] = static_cast<std::int16_t>((a + 32768) >> 16);
      if (lowpass_only) continue;
      std::int32_t v = 0, hh = 0, d = 0;
      for (int k = 0; k < 4; ++k) {
        v += f.hi[k] * tmp_lo[cols[k]];
        hh += f.lo[k] * tmp_hi[cols[k]];
        d += f.hi[k] * tmp_hi[cols[k]];
      }
      band_v[at] = static_cast<std::int16_t>((v + 32768) >> 16);
      band_h[at] = static_cast<std::int16_t>((hh + 32768) >> 16);
      band_d[at] = static_cast<std::int16_t>((d + 32768) >> 16);
    }
  }
}

// Scales 1..3 from the previous scale's int32 approximation band (w x h): the
// passes' rounding shifts depend on the scale. Bands are int32.
void dwt_band(const std::int32_t* src, int w, int h, int scale, std::int32_t* band_a,
              std::int32_t* band_h, std::int32_t* band_v, std::int32_t* band_d,
              std::int32_t* tmp) {
  static constexpr std::array<int, 3> kVpShift = {0, 16, 16};
  static constexpr std::array<int, 3> kHpShift = {15, 16, 15};
  const auto& f = db2();
  const int vp_shift = kVpShift[scale - 1], hp_shift = kHpShift[scale - 1];
  const std::int64_t vp_round = vp_shift ? std::int64_t{1} << (vp_shift - 1) : 0;
  const std::int64_t hp_round = std::int64_t{1} << (hp_shift - 1);
  const int out_w = (w + 1) / 2, out_h = (h + 1) / 2;
  std::int32_t* tmp_lo = tmp;
  std::int32_t* tmp_hi = tmp + w;
  for (int i = 0; i < out_h; ++i) {
    const std::int32_t* rows[4];
    for (int k = 0; k < 4; ++k)
      rows[k] = src + static_cast<std::size_t>(dwt_tap_index(2 * i - 1 + k, h)) * w;
    for (int j = 0; j < w; ++j) {
      std::int64_t lo = 0, hi = 0;
      for (int k = 0; k < 4; ++k) {
        lo += std::int64_t{f.lo[k]} * rows[k][j];
        hi += std::int64_t{f.hi[k]} * rows[k][j];
      }
      tmp_lo[j] = static_cast<std::int32_t>((lo + vp_round) >> vp_shift);
      tmp_hi[j] = static_cast<std::int32_t>((hi + vp_round) >> vp_shift);
    }
    for (int j = 0; j < out_w; ++j) {
      int cols[4];
      for (int k = 0; k < 4; ++k) cols[k] = dwt_tap_index(2 * j - 1 + k, w);
      std::int64_t a = 0, v = 0, hh = 0, d = 0;
      for (int k = 0; k < 4; ++k) {
        a += std::int64_t{f.lo[k]} * tmp_lo[cols[k]];
        v += std::int64_t{f.hi[k]} * tmp_lo[cols[k]];
        hh += std::int64_t{f.lo[k]} * tmp_hi[cols[k]];
        d += std::int64_t{f.hi[k]} * tmp_hi[cols[k]];
      }
      const std::size_t at = static_cast<std::size_t>(i) * out_w + j;
      band_a[at] = static_cast<std::int32_t>((a + hp_round) >> hp_shift);
      band_v[at] = static_cast<std::int32_t>((v + hp_round) >> hp_shift);
      band_h[at] = static_cast<std::int32_t>((hh + hp_round) >> hp_shift);
      band_d[at] = static_cast<std::int32_t>((d + hp_round) >> hp_shift);
    }
  }
}

// ---------------------------------------------------------------------------
// Per-scale arithmetic: scale 0 (int16 bands, Q15 division, Q21/Q23 CSF) and
// scales 1..3 (int32 bands, normalised division, Q32 CSF) differ in types,
// shifts and rounding; the structure of the stages is shared below.

// libvmaf's test "is the angle between (oh, ov) and (th, tv) below 1 degree",
// evaluated per pixel in float and double exactly as libvmaf writes it.
inline bool within_one_degree(std::int64_t oh, std::int64_t ov, std::int64_t th, std::int64_t tv) {
  static const float cos_1deg_sq = static_cast<float>(std::cos(1.0 * std::numbers::pi / 180.0) *
                                                      std::cos(1.0 * std::numbers::pi / 180.0));
  const std::int64_t dot = oh * th + ov * tv;
  const std::int64_t o_mag_sq = oh * oh + ov * ov;
  const std::int64_t t_mag_sq = th * th + tv * tv;
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
inline Band apply_gain_limit(Band rst, Band t, std::int64_t k, Band o, bool angle, double egl) {
  if (!angle || k <= 0) return rst;
  const double grown = rst * egl;
  const double tt = t;
  if (o > 0) return static_cast<Band>(grown < tt ? grown : tt);
  if (o < 0) return static_cast<Band>(grown > tt ? grown : tt);
  return rst;
}

struct Scale0Arith {
  using Band = std::int16_t;
  std::array<std::int32_t, 3> rfactor;  // Q21 (h, v), Q23 (d)

  // The restored value k * o with k = clamp(t / o, 0, 1) in Q15 via the table.
  static Band restore(Band o, Band t, bool angle, double egl, const std::int32_t* div) {
    const std::int32_t tmp_k =
        o == 0 ? 32768
               : static_cast<std::int32_t>((std::int64_t{div[o + 32768]} * t + 16384) >> 15);
    const std::int32_t k = std::clamp(tmp_k, 0, 32768);
    const Band rst = static_cast<Band>((k * o + 16384) >> 15);
    return apply_gain_limit<Band>(rst, t, k, o, angle, egl);
  }
  static Band subtract(Band t, Band rst) { return static_cast<Band>(t - rst); }

  // The CSF-weighted value and its 1/30 (the neighbours' masking share).
  Band csf(Band src, int theta) const {
    static constexpr std::array<int, 3> kShift = {15, 15, 17};
    static constexpr std::array<std::int32_t, 3> kRound = {16384, 16384, 65535};  // sic: d
    return static_cast<Band>((rfactor[theta] * std::int32_t{src} + kRound[theta]) >> kShift[theta]);
  }
  static Band csf_share(Band dst) {
    return static_cast<Band>((kOneBy30Q17 * std::abs(std::int32_t{dst}) + 2048) >> 12);
  }
  // The centre's masking share: 1/15 of its CSF value, cast to int16 as libvmaf.
  static std::int32_t centre_share(Band dst) {
    return static_cast<Band>((kOneBy15Q17 * std::abs(std::int32_t{dst}) + 2048) >> 12);
  }
  // The signal as the masking stage weighs it (CSF factor, not yet shifted).
  std::int32_t signal(Band src, int theta) const { return std::int32_t{src} * rfactor[theta]; }
  static constexpr std::array<int, 3> kMaskShift = {10, 10, 12};
  static constexpr std::array<int, 3> kSquareShift = {29, 29, 30};

  // One value of the reference cube sum.
  static std::uint64_t den_cube(Band value, const ScaleGeometry&) {
    const auto a = static_cast<std::uint16_t>(std::abs(std::int32_t{value}));
    return std::uint64_t{a} * a * a;
  }
};

struct ScaleNArith {
  using Band = std::int32_t;
  std::array<std::uint32_t, 3> rfactor;  // Q32
  int scale;                             // 1..3

  static Band restore(Band o, Band t, bool angle, double egl, const std::int32_t* div) {
    std::int64_t tmp_k = 32768;
    if (o != 0) {
      // |o| reduced to its 15 leading bits (rounded), the shift remembered.
      auto abs_o = static_cast<std::uint32_t>(std::abs(o));
      int shift = 0;
      std::uint32_t top15 = abs_o;
      if (abs_o >= 32768) {
        shift = 17 - std::countl_zero(abs_o);
        top15 = static_cast<std::uint16_t>((abs_o + (1u << (shift - 1))) >> shift);
      }
      const int sign = o < 0 ? -1 : 1;
      tmp_k = ((std::int64_t{div[top15 + 32768]} * t) * sign + (std::int64_t{1} << (14 + shift))) >>
              (15 + shift);
    }
    const std::int64_t k = std::clamp<std::int64_t>(tmp_k, 0, 32768);
    const Band rst = static_cast<Band>((k * o + 16384) >> 15);
    return apply_gain_limit<Band>(rst, t, k, o, angle, egl);
  }
  static Band subtract(Band t, Band rst) {
    return static_cast<Band>(std::int64_t{t} - std::int64_t{rst});
  }

  Band csf(Band src, int theta) const {
    return static_cast<Band>((std::int64_t{rfactor[theta]} * src + (1 << 27)) >> 28);
  }
  static Band csf_share(Band dst) {
    return static_cast<Band>((kOneBy30Q32 * std::abs(std::int64_t{dst}) + kQ32RoundingOffset) >> 32);
  }
  static std::int32_t centre_share(Band dst) {
    return static_cast<std::int32_t>(
        (kOneBy15Q32 * std::abs(std::int64_t{dst}) + kQ32RoundingOffset) >> 32);
  }
  std::int32_t signal(Band src, int theta) const {
    return static_cast<std::int32_t>((std::int64_t{src} * rfactor[theta] + (1 << 27)) >> 28);
  }
  static constexpr std::array<int, 3> kMaskShift = {0, 0, 0};
  static constexpr std::array<int, 3> kSquareShift = {30, 30, 30};

  std::uint64_t den_cube(Band value, const ScaleGeometry& g) const {
    static constexpr std::array<int, 3> kSquareShiftDen = {31, 30, 31};
    const int sq = kSquareShiftDen[scale - 1];
    const std::uint64_t sq_round = std::uint64_t{1} << sq;  // sic: libvmaf adds 2^sq
    const auto a = static_cast<std::uint32_t>(std::abs(value));
    return ((((std::uint64_t{a} * a + sq_round) >> sq) * a) + round_offset(g.den_cube_shift)) >>
           g.den_cube_shift;
  }
};

// Three bands (h, v, d) of one scale, row-major with stride `width`.
template <typename Band>
struct Hvd {
  std::array<Band*, 3> band{};
};

// The cube sums of the reference over the scored region, per row rounded
// and shifted, then added (libvmaf's adm_csf_den_scale / adm_csf_den_s123).
template <class Arith>
void reference_cube_sums(const Arith& arith, const ScaleGeometry& g,
                         const Hvd<typename Arith::Band>& ref, std::array<std::uint64_t, 3>& out) {
  const std::uint64_t row_round =
      g.den_row_shift == 0 ? 0 : (std::uint64_t{1} << (g.den_row_shift - 1));
  out = {0, 0, 0};
  for (int i = g.top; i < g.bottom; ++i) {
    for (int theta = 0; theta < 3; ++theta) {
      const auto* row = ref.band[theta] + static_cast<std::size_t>(i) * g.width;
      std::uint64_t row_sum = 0;
      for (int j = g.left; j < g.right; ++j) row_sum += arith.den_cube(row[j], g);
      out[theta] += (row_sum + row_round) >> g.den_row_shift;
    }
  }
}

// The rows and columns the masking stage reads: the scored region and one
// more on each side, within the band.
struct Span {
  int begin, end;
};
inline Span widen(int begin, int end, int size) { return {std::max(begin - 1, 0), std::min(end + 1, size)}; }

// Splits the distorted bands into restored (r) and additive (a) parts
// (libvmaf's adm_decouple / adm_decouple_s123), over the rows/columns read later.
template <class Arith>
void decouple(const ScaleGeometry& g, const Hvd<typename Arith::Band>& ref,
              const Hvd<typename Arith::Band>& dist, double egl, Hvd<typename Arith::Band>& r,
              Hvd<typename Arith::Band>& a) {
  using Band = typename Arith::Band;
  const std::int32_t* div = division_table().data();
  const Span rows = widen(g.top, g.bottom, g.height), cols = widen(g.left, g.right, g.width);
  for (int i = rows.begin; i < rows.end; ++i) {
    const std::size_t base = static_cast<std::size_t>(i) * g.width;
    for (int j = cols.begin; j < cols.end; ++j) {
      const std::size_t at = base + j;
      const Band oh = ref.band[0][at], ov = ref.band[1][at];
      const Band th = dist.band[0][at], tv = dist.band[1][at];
      const bool angle = within_one_degree(oh, ov, th, tv);
      for (int theta = 0; theta < 3; ++theta) {
        const Band o = ref.band[theta][at], t = dist.band[theta][at];
        const Band rst = Arith::restore(o, t, angle, egl, div);
        r.band[theta][at] = rst;
        a.band[theta][at] = Arith::subtract(t, rst);
      }
    }
  }
}

// The CSF-weighted masking image and its 1/30 shares (libvmaf's adm_csf /
// i4_adm_csf), over the rows/columns the masking stage reads.
template <class Arith>
void contrast_sensitivity(const Arith& arith, const ScaleGeometry& g,
                          const Hvd<typename Arith::Band>& src, Hvd<typename Arith::Band>& csf,
                          Hvd<typename Arith::Band>& share) {
  const Span rows = widen(g.top, g.bottom, g.height), cols = widen(g.left, g.right, g.width);
  for (int theta = 0; theta < 3; ++theta) {
    for (int i = rows.begin; i < rows.end; ++i) {
      const std::size_t base = static_cast<std::size_t>(i) * g.width;
      for (int j = cols.begin; j < cols.end; ++j) {
        const auto value = arith.csf(src.band[theta][base + j], theta);
        csf.band[theta][base + j] = value;
        share.band[theta][base + j] = Arith::csf_share(value);
      }
    }
  }
}

// Contrast masking and cube sums (libvmaf's adm_cm / i4_adm_cm): each value of
// `signal`, weighted by the CSF, is reduced by the masking threshold of its 3x3
// neighbourhood in the masking image (1/30 of the 8 neighbours plus 1/15 of the
// centre, summed over the three orientations), clipped at 0 and cubed with
// libvmaf's intermediate shifts. Rows are summed, rounded and shifted, then
// added. Outside the band, a neighbour above/left is mirrored (row/column 1),
// one below/right repeats the edge.
template <class Arith>
void masked_cube_sums(const Arith& arith, const ScaleGeometry& g,
                      const Hvd<typename Arith::Band>& signal, const Hvd<typename Arith::Band>& csf,
                      const Hvd<typename Arith::Band>& share, std::array<std::int64_t, 3>& out) {
  const std::int64_t row_round = round_offset(g.num_row_shift);
  out = {0, 0, 0};
  const int w = g.width, h = g.height;
  for (int i = g.top; i < g.bottom; ++i) {
    const std::size_t row_above = static_cast<std::size_t>(i == 0 ? 1 : i - 1) * w;
    const std::size_t row_here = static_cast<std::size_t>(i) * w;
    const std::size_t row_below = static_cast<std::size_t>(i == h - 1 ? h - 1 : i + 1) * w;
    std::array<std::int64_t, 3> row_sum = {0, 0, 0};
    for (int j = g.left; j < g.right; ++j) {
      const int jl = j == 0 ? 1 : j - 1;
      const int jr = j == w - 1 ? w - 1 : j + 1;
      // libvmaf adds these in int32; wrapping (uint32) addition gives the same bits.
      std::uint32_t threshold = 0;
      for (int theta = 0; theta < 3; ++theta) {
        const auto* s = share.band[theta];
        std::uint32_t sum = 0;
        sum += static_cast<std::uint32_t>(s[row_above + jl]) + static_cast<std::uint32_t>(s[row_above + j]) +
               static_cast<std::uint32_t>(s[row_above + jr]);
        sum += static_cast<std::uint32_t>(s[row_here + jl]) +
               static_cast<std::uint32_t>(Arith::centre_share(csf.band[theta][row_here + j])) +
               static_cast<std::uint32_t>(s[row_here + jr]);
        sum += static_cast<std::uint32_t>(s[row_below + jl]) + static_cast<std::uint32_t>(s[row_below + j]) +
               static_cast<std::uint32_t>(s[row_below + jr]);
        threshold += sum;
      }
      for (int theta = 0; theta < 3; ++theta) {
        const std::int32_t weighted = arith.signal(signal.band[theta][row_here + j], theta);
        const auto mask = threshold << Arith::kMaskShift[theta];
        auto x = static_cast<std::int32_t>(static_cast<std::uint32_t>(std::abs(weighted)) - mask);
        if (x < 0) x = 0;
        const int sq = Arith::kSquareShift[theta];
        const auto x_sq = static_cast<std::int32_t>(
            (std::int64_t{x} * x + (std::int64_t{1} << (sq - 1))) >> sq);
        const std::uint32_t cube_shift = g.num_cube_shift[theta];
        row_sum[theta] += (std::int64_t{x_sq} * x + round_offset(cube_shift)) >> cube_shift;
      }
    }
    for (int theta = 0; theta < 3; ++theta)
      out[theta] += (row_sum[theta] + row_round) >> g.num_row_shift;
  }
}

// Working bands of one scale: restored, additive, CSF image and its shares.
template <typename Band>
struct ScaleWork {
  Hvd<Band> restored, additive, csf, share;
};

template <typename Band>
ScaleWork<Band> carve_work(std::vector<Band>& storage, std::size_t band_size) {
  ScaleWork<Band> work;
  Band* p = storage.data();
  for (auto* hvd : {&work.restored, &work.additive, &work.csf, &work.share})
    for (int theta = 0; theta < 3; ++theta, p += band_size) hvd->band[theta] = p;
  return work;
}

// Everything one scale contributes, given its DWT bands.
template <class Arith>
void score_scale(const Arith& arith, const ScaleGeometry& g, const Hvd<typename Arith::Band>& ref,
                 const Hvd<typename Arith::Band>& dist, ScaleWork<typename Arith::Band>& work,
                 const AdmOptions& options, ScaleSums& out) {
  decouple<Arith>(g, ref, dist, options.enhn_gain_limit, work.restored, work.additive);
  reference_cube_sums(arith, g, ref, out.den);
  // DLM: the restored image, masked by the additive impairment.
  contrast_sensitivity(arith, g, work.additive, work.csf, work.share);
  masked_cube_sums(arith, g, work.restored, work.csf, work.share, out.num);
  if (options.skip_aim) return;
  // AIM: the additive impairment, masked by the restored image.
  contrast_sensitivity(arith, g, work.restored, work.csf, work.share);
  masked_cube_sums(arith, g, work.additive, work.csf, work.share, out.aim);
}

// One scale's numerator or denominator from three floats, as libvmaf adds them.
float add_orientations(const std::array<float, 3>& values) {
  return values[0] + values[1] + values[2];
}

}  // namespace

// ---------------------------------------------------------------------------

CsfWeights csf_weights(const AdmOptions& options) {
  if (options.csf_mode != 0)
    throw Error("adm: adm_csf_mode=" + std::to_string(options.csf_mode) +
                " (Barten CSF modes) is not supported yet; only 0 (Watson 1997, the default)");
  // libvmaf refuses (at every frame) a viewing condition finer than 3 heights of
  // 1080 lines: its 16-bit pipeline cannot represent it.
  if (options.norm_view_dist * options.ref_display_height < 3.0 * 1080)
    throw Error("adm: adm_norm_view_dist * adm_ref_display_height must be at least 3240 "
                "(3.0 x 1080), as in libvmaf; it is " +
                std::to_string(options.norm_view_dist * options.ref_display_height));
  CsfWeights weights;
  for (int scale = 0; scale < 4; ++scale) {
    // Orientations h and v use the LH threshold, d the HH threshold.
    const float factor_hv =
        1.0f / watson_quant_step(scale, 1, options.norm_view_dist, options.ref_display_height);
    const float factor_d =
        1.0f / watson_quant_step(scale, 2, options.norm_view_dist, options.ref_display_height);
    weights.rfactor[scale] = {factor_hv, factor_hv, factor_d};
    if (scale > 0)
      for (int theta = 0; theta < 3; ++theta)
        weights.fixed[scale][theta] =
            static_cast<std::uint32_t>(weights.rfactor[scale][theta] * std::pow(2.0, 32));
  }
  // Scale 0: libvmaf uses fixed constants at its default viewing condition and
  // the truncated Q21/Q23 values otherwise.
  if (std::fabs(options.norm_view_dist * options.ref_display_height - 3.0 * 1080) < 1.0e-8) {
    weights.scale0_fixed = {36453, 36453, 49417};
  } else {
    weights.scale0_fixed = {
        static_cast<std::uint16_t>(weights.rfactor[0][0] * std::pow(2.0, 21)),
        static_cast<std::uint16_t>(weights.rfactor[0][1] * std::pow(2.0, 21)),
        static_cast<std::uint16_t>(weights.rfactor[0][2] * std::pow(2.0, 23))};
  }
  return weights;
}

std::array<ScaleGeometry, 4> scale_geometry(unsigned width, unsigned height) {
  std::array<ScaleGeometry, 4> scales;
  int w = static_cast<int>(width), h = static_cast<int>(height);
  for (int s = 0; s < 4; ++s) {
    w = (w + 1) / 2;
    h = (h + 1) / 2;
    ScaleGeometry& g = scales[s];
    g.width = w;
    g.height = h;
    // 10% border, as libvmaf rounds it (truncation of w * 0.1 - 0.5).
    g.left = static_cast<int>(w * 0.1 - 0.5);
    g.top = static_cast<int>(h * 0.1 - 0.5);
    g.right = w - g.left;
    g.bottom = h - g.top;
    const int region_w = g.right - g.left, region_h = g.bottom - g.top;
    if (s == 0) {
      const auto shift = static_cast<std::int32_t>(std::ceil(std::log2(region_h * region_w) - 20));
      g.den_row_shift = shift > 0 ? static_cast<std::uint32_t>(shift) : 0u;
      g.den_cube_shift = 0;
      const auto hv = static_cast<std::uint32_t>(std::ceil(std::log2(w) - 4));
      const auto d = static_cast<std::uint32_t>(std::ceil(std::log2(w) - 3));
      g.num_cube_shift = {hv, hv, d};
    } else {
      g.den_cube_shift = ceil_log2_u32(region_w);
      g.den_row_shift = ceil_log2_u32(region_h);
      const std::uint32_t cube = ceil_log2_u32(w);
      g.num_cube_shift = {cube, cube, cube};
    }
    g.num_row_shift = ceil_log2_u32(h);
  }
  return scales;
}

AdmScores finish_scores(const FrameSums& sums, unsigned width, unsigned height,
                        const AdmOptions& options, const CsfWeights& weights) {
  const auto geometry = scale_geometry(width, height);
  const float third = 1.0f / 3.0f;
  double num = 0, den = 0, aim_num = 0;
  AdmScores scores;
  for (int s = 0; s < 4; ++s) {
    const ScaleGeometry& g = geometry[s];
    const ScaleSums& in = sums.scales[s];
    float num_scale = 0.0f, den_scale = 0.0f, aim_scale = 0.0f;
    if (s == 0 && options.skip_scale0) {
      den_scale = 1e-10f;  // libvmaf's guard against a zero denominator
    } else {
      const int area = (g.bottom - g.top) * (g.right - g.left);
      // The noise floor added to every orientation (none for AIM).
      const float noise_floor = std::pow(static_cast<float>(area * options.noise_weight), third);
      const float no_noise = std::pow(static_cast<float>(area * 0.0), third);
      std::array<float, 3> den_o{}, num_o{}, aim_o{};
      for (int theta = 0; theta < 3; ++theta) {
        // Denominator: sum / 2^k (double), times rfactor^3 (double), then float.
        const double den_divisor =
            s == 0 ? std::pow(2, 18 - static_cast<std::int32_t>(g.den_row_shift))
                   : std::pow(2, static_cast<std::uint32_t>(
                                     (s == 1 ? 32u : s == 2 ? 27u : 23u) - g.den_row_shift -
                                     g.den_cube_shift));
        const double csf = static_cast<double>(in.den[theta]) / den_divisor *
                           std::pow(static_cast<double>(weights.rfactor[s][theta]), 3);
        den_o[theta] = std::pow(static_cast<float>(csf), third) + noise_floor;
        // Numerators: scale 0 divides in double, scales 1..3 in float.
        float num_f, aim_f;
        if (s == 0) {
          const std::uint32_t base = theta == 2 ? 57u : 52u;
          const double divisor =
              std::pow(2, static_cast<std::uint32_t>(base - g.num_cube_shift[theta] - g.num_row_shift));
          num_f = static_cast<float>(static_cast<double>(in.num[theta]) / divisor);
          aim_f = static_cast<float>(static_cast<double>(in.aim[theta]) / divisor);
        } else {
          const std::uint32_t base = s == 1 ? 45u : s == 2 ? 39u : 36u;
          const auto divisor = static_cast<float>(
              std::pow(2, static_cast<std::uint32_t>(base - g.num_cube_shift[theta] - g.num_row_shift)));
          num_f = static_cast<float>(in.num[theta]) / divisor;
          aim_f = static_cast<float>(in.aim[theta]) / divisor;
        }
        num_o[theta] = std::pow(num_f, third) + noise_floor;
        aim_o[theta] = std::pow(aim_f, third) + no_noise;
      }
      den_scale = add_orientations(den_o);
      num_scale = add_orientations(num_o);
      if (!options.skip_aim) aim_scale = add_orientations(aim_o);
    }
    num += num_scale;
    den += den_scale;
    aim_num += aim_scale;
    scores.num_den[2 * s] = num_scale;
    scores.num_den[2 * s + 1] = den_scale;
  }
  // Totals below a size-relative floor count as zero.
  const int pixels = static_cast<int>(width) * static_cast<int>(height);
  const double numden_limit = 1e-10 * pixels / (1920.0 * 1080.0);
  num = num < numden_limit ? 0 : num;
  den = den < numden_limit ? 0 : den;
  if (den == 0.0) {
    scores.adm2 = 1.0;
    // libvmaf leaves its AIM score unset (undefined) here; vmafexact writes 0.
    scores.aim = 0.0;
  } else {
    scores.aim = aim_num / den;
    scores.adm2 = num / den;
  }
  scores.num = num;
  scores.den = den;
  const double adm3 =
      scores.adm2 * options.dlm_weight + (1 - scores.aim) * (1 - options.dlm_weight);
  scores.adm3 = adm3 > options.min_val ? adm3 : options.min_val;
  for (int s = 0; s < 4; ++s) scores.scale[s] = scores.num_den[2 * s] / scores.num_den[2 * s + 1];
  return scores;
}

// ---------------------------------------------------------------------------

AdmComputer::AdmComputer(unsigned width, unsigned height, const AdmOptions& options)
    : width_(width), height_(height), options_(options), weights_(csf_weights(options)) {
  if (width < kMinimumSide || height < kMinimumSide)
    throw Error("adm: pictures must be at least " + std::to_string(kMinimumSide) + "x" +
                std::to_string(kMinimumSide) + "; this one is " + std::to_string(width) + "x" +
                std::to_string(height));
  geometry_ = scale_geometry(width, height);
  const std::size_t size0 = static_cast<std::size_t>(geometry_[0].width) * geometry_[0].height;
  const std::size_t size1 = static_cast<std::size_t>(geometry_[1].width) * geometry_[1].height;
  ref16_.assign(4 * size0, 0);
  dist16_.assign(4 * size0, 0);
  work16_.assign(12 * size0, 0);
  // int32: per picture the scale's input approximation (scale-0 sized) and the
  // four output bands (scale-1 sized); the working bands of scales 1..3.
  ref32_.assign(size0 + 4 * size1, 0);
  dist32_.assign(size0 + 4 * size1, 0);
  work32_.assign(12 * size1, 0);
  rows32_.assign(2 * static_cast<std::size_t>(width), 0);
}

FrameSums AdmComputer::compute(const PlaneView& ref, const PlaneView& dist, unsigned bpc) {
  FrameSums sums;
  const int w = static_cast<int>(width_), h = static_cast<int>(height_);
  const std::size_t size0 = static_cast<std::size_t>(geometry_[0].width) * geometry_[0].height;

  // Scale 0 from the pictures.
  const auto picture_dwt = [&](const PlaneView& plane, std::vector<std::int16_t>& bands) {
    std::int16_t* b = bands.data();
    if (bpc == 8)
      dwt_picture<std::uint8_t>(plane, bpc, w, h, options_.skip_scale0, b, b + size0,
                                b + 2 * size0, b + 3 * size0, rows32_.data());
    else
      dwt_picture<std::uint16_t>(plane, bpc, w, h, options_.skip_scale0, b, b + size0,
                                 b + 2 * size0, b + 3 * size0, rows32_.data());
  };
  picture_dwt(ref, ref16_);
  picture_dwt(dist, dist16_);
  if (!options_.skip_scale0) {
    const auto hvd = [&](std::vector<std::int16_t>& bands) {
      return Hvd<std::int16_t>{{bands.data() + size0, bands.data() + 2 * size0,
                                bands.data() + 3 * size0}};
    };
    const Scale0Arith arith{{weights_.scale0_fixed[0], weights_.scale0_fixed[1],
                             weights_.scale0_fixed[2]}};
    auto work = carve_work(work16_, size0);
    score_scale(arith, geometry_[0], hvd(ref16_), hvd(dist16_), work, options_, sums.scales[0]);
  }

  // Scales 1..3, each from the previous approximation band, widened to int32.
  std::copy(ref16_.begin(), ref16_.begin() + static_cast<std::ptrdiff_t>(size0), ref32_.begin());
  std::copy(dist16_.begin(), dist16_.begin() + static_cast<std::ptrdiff_t>(size0), dist32_.begin());
  for (int s = 1; s < 4; ++s) {
    const ScaleGeometry& in = geometry_[s - 1];
    const ScaleGeometry& g = geometry_[s];
    const std::size_t size = static_cast<std::size_t>(g.width) * g.height;
    const std::size_t size1 = static_cast<std::size_t>(geometry_[1].width) * geometry_[1].height;
    const auto transform = [&](std::vector<std::int32_t>& buffer) {
      std::int32_t* approx_in = buffer.data();
      std::int32_t* out = buffer.data() + size0;
      dwt_band(approx_in, in.width, in.height, s, out, out + size1, out + 2 * size1,
               out + 3 * size1, rows32_.data());
      return Hvd<std::int32_t>{{out + size1, out + 2 * size1, out + 3 * size1}};
    };
    const auto ref_hvd = transform(ref32_);
    const auto dist_hvd = transform(dist32_);
    const ScaleNArith arith{{weights_.fixed[s][0], weights_.fixed[s][1], weights_.fixed[s][2]}, s};
    auto work = carve_work(work32_, size);
    score_scale(arith, g, ref_hvd, dist_hvd, work, options_, sums.scales[s]);
    // The new approximation band is the next scale's input.
    std::copy(ref32_.begin() + static_cast<std::ptrdiff_t>(size0),
              ref32_.begin() + static_cast<std::ptrdiff_t>(size0 + size), ref32_.begin());
    std::copy(dist32_.begin() + static_cast<std::ptrdiff_t>(size0),
              dist32_.begin() + static_cast<std::ptrdiff_t>(size0 + size), dist32_.begin());
  }
  return sums;
}

}  // namespace vmafexact::adm
