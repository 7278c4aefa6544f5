#include "adm/adm.h"
#include "adm/adm_barten.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <numbers>
#include <string>
#include <type_traits>

#include "adm/adm_dsp.h"
#include "adm/adm_dsp_scalar.h"
#include "adm/adm_pixel.h"
#include "common/cpu.h"
#include "common/error.h"
#include "common/feature_options.h"

namespace vmafexact::adm {

using pixel::dwt_tap_index;
using pixel::round_offset;
using pixel::Scale0Arith;
using pixel::ScaleNArith;

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

}  // namespace

pixel::Db2Taps db2_taps() {
  const auto& f = db2();
  pixel::Db2Taps taps{};
  for (int k = 0; k < 4; ++k) {
    taps.lo[k] = f.lo[k];
    taps.hi[k] = f.hi[k];
  }
  taps.lo_sum = f.lo_sum;
  return taps;
}

float cos_1deg_sq() {
  static const float value = static_cast<float>(std::cos(1.0 * std::numbers::pi / 180.0) *
                                                std::cos(1.0 * std::numbers::pi / 180.0));
  return value;
}

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

namespace {

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

}  // namespace

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

namespace {

// libvmaf's conversions of a ceil(log2(...)) to its shift types.
std::uint32_t ceil_log2_u32(double value) {
  return static_cast<std::uint32_t>(std::ceil(std::log2(value)));
}

// ---------------------------------------------------------------------------
// The row loops of the stage. Each takes a range of rows, so that a stage can
// be cut into bands (common/bands.h); a row's work does not depend on the cut.

// int64 sums formed modulo 2^64 (adm_dsp_scalar.h): real pictures stay far
// from the limit, and in modular arithmetic the order of the rows, and of the
// bands, does not change the result.
using scalar::wrapping_add;

// Asks for a row's cache lines ahead of its use: the DWT streams pictures and
// bands larger than the caches, and each row starts a new stream.
template <typename T>
inline void prefetch_row(const T* row, int count) {
  const auto* p = reinterpret_cast<const char*>(row);
  const std::size_t bytes = static_cast<std::size_t>(count) * sizeof(T);
  for (std::size_t b = 0; b < bytes; b += 64) __builtin_prefetch(p + b);
}

// The DWT (per row: adm_dsp.h).

// Scale 0 from the picture, output row i: the vertical pass removes the DC
// offset and shifts by bpc (libvmaf's 8-bit and high-bit-depth code differ
// only in that shift); the horizontal pass shifts by 16. Bands are int16, and
// band_h, band_v, band_d may be null (the approximation only). `tmp` holds
// 2 * w int16 (the vertical results, int16 values).
template <typename Sample>
void dwt_picture_row(const AdmDsp& dsp, const PlaneView& plane, unsigned bpc, int w, int h, int i,
                     std::int16_t* band_a, std::int16_t* band_h, std::int16_t* band_v,
                     std::int16_t* band_d, std::int16_t* tmp) {
  std::int16_t* tmp_lo = tmp;
  std::int16_t* tmp_hi = tmp + w;
  const Sample* rows[4];
  for (int k = 0; k < 4; ++k) rows[k] = plane.row<Sample>(dwt_tap_index(2 * i - 1 + k, h));
  // The next output row's two new picture rows, fetched while this one runs:
  // a chunk of them before each chunk of the vertical pass, so that the
  // prefetches do not wait on each other for the line fill buffers.
  const Sample* next[2] = {nullptr, nullptr};
  if (2 * i + 3 < h)
    for (int k = 2; k < 4; ++k) next[k - 2] = plane.row<Sample>(dwt_tap_index(2 * i + 1 + k, h));
  constexpr int kChunk = 256;  // columns
  for (int c = 0; c < w; c += kChunk) {
    const int n = std::min(kChunk, w - c);
    if (next[0])
      for (const Sample* row : next) prefetch_row(row + c, n);
    const Sample* chunk[4] = {rows[0] + c, rows[1] + c, rows[2] + c, rows[3] + c};
    if constexpr (sizeof(Sample) == 1)
      dsp.dwt0_vertical_8(chunk, bpc, n, tmp_lo + c, tmp_hi + c);
    else
      dsp.dwt0_vertical_16(chunk, bpc, n, tmp_lo + c, tmp_hi + c);
  }
  dsp.dwt0_horizontal(tmp_lo, tmp_hi, w, band_a, band_v, band_h, band_d);
}

// Scales 1..3 from the previous scale's int32 approximation band (w x h),
// output rows [begin, end): the passes' rounding shifts depend on the scale.
// Bands are int32.
void dwt_band(const AdmDsp& dsp, const std::int32_t* src, int w, int h, int scale,
              std::int32_t* band_a, std::int32_t* band_h, std::int32_t* band_v,
              std::int32_t* band_d, std::int32_t* tmp, int begin, int end) {
  const int out_w = (w + 1) / 2;
  std::int32_t* tmp_lo = tmp;
  std::int32_t* tmp_hi = tmp + w;
  for (int i = begin; i < end; ++i) {
    const std::int32_t* rows[4];
    for (int k = 0; k < 4; ++k)
      rows[k] = src + static_cast<std::size_t>(dwt_tap_index(2 * i - 1 + k, h)) * w;
    if (i + 1 < end)  // as in dwt_picture
      for (int k = 2; k < 4; ++k)
        prefetch_row(src + static_cast<std::size_t>(dwt_tap_index(2 * i + 1 + k, h)) * w, w);
    dsp.dwtn_vertical(rows, scale, w, tmp_lo, tmp_hi);
    const std::size_t at = static_cast<std::size_t>(i) * out_w;
    dsp.dwtn_horizontal(tmp_lo, tmp_hi, scale, w, band_a + at, band_v + at, band_h + at,
                        band_d + at);
  }
}

// Three bands (h, v, d) of one scale, row-major with stride `width`.
template <typename Band>
struct Hvd {
  std::array<Band*, 3> band{};
};

// The table's routines of one scale's arithmetic.
template <class Arith>
struct ScaleDsp;
template <>
struct ScaleDsp<Scale0Arith> {
  static auto decouple(const AdmDsp& dsp) { return dsp.decouple_0; }
  static auto csf(const AdmDsp& dsp) { return dsp.csf_0; }
  static auto masked_cubes(const AdmDsp& dsp) { return dsp.masked_cubes_0; }
  static auto reference_cubes(const AdmDsp& dsp) { return dsp.reference_cubes_0; }
};
template <>
struct ScaleDsp<ScaleNArith> {
  static auto decouple(const AdmDsp& dsp) { return dsp.decouple_n; }
  static auto csf(const AdmDsp& dsp) { return dsp.csf_n; }
  static auto masked_cubes(const AdmDsp& dsp) { return dsp.masked_cubes_n; }
  static auto reference_cubes(const AdmDsp& dsp) { return dsp.reference_cubes_n; }
};

// The rows and columns the masking stage reads: the scored region and one
// more on each side, within the band.
struct Span {
  int begin, end;
};
inline Span widen(int begin, int end, int size) { return {std::max(begin - 1, 0), std::min(end + 1, size)}; }

// The rows one band of a scale's masking pass keeps: a window of three band
// rows (a ring, row r in slot r % 3) of the reference and distorted DWT bands,
// of the restored and additive images and of both masking images (the CSF
// image and its 1/30 shares, of the additive image for DLM and of the restored
// image for AIM), per orientation. A row enters once, when the band first
// reads it, so each band works in a few hundred kilobytes instead of full-size
// bands.
template <typename Band>
class MaskingWindow {
 public:
  // The samples one window holds for bands `width` wide.
  static std::size_t samples(int width) {
    return static_cast<std::size_t>(kSlots) * kImages * 3 * static_cast<std::size_t>(width);
  }
  // `storage` holds samples(width) samples.
  MaskingWindow(Band* storage, int width) : storage_(storage), width_(width) {}

  // One band row of every image the window holds. The source (ScaleSource)
  // points ref and dist at its own rows or fills the window's.
  struct Row {
    Hvd<const Band> ref, dist;
    Hvd<Band> ref_rows, dist_rows;  // the window's rows for them
    Hvd<Band> restored, additive, centre_additive, share_additive, centre_restored, share_restored;
  };
  // The window's slot of band row `row`, and whether it holds that row already.
  // The caller fills a slot that does not.
  Row& row(int row, bool& present) {
    const int slot = row % kSlots;
    present = held_[slot] == row;
    held_[slot] = row;
    Row& images = rows_[slot];
    if (!present) {
      Band* p = storage_ + static_cast<std::size_t>(slot) * kImages * 3 * width_;
      for (auto* hvd : {&images.ref_rows, &images.dist_rows, &images.restored, &images.additive,
                        &images.centre_additive, &images.share_additive, &images.centre_restored,
                        &images.share_restored})
        for (int theta = 0; theta < 3; ++theta, p += width_) hvd->band[theta] = p;
    }
    return images;
  }

 private:
  static constexpr int kSlots = 3;   // the rows above, here and below
  static constexpr int kImages = 8;  // images per orientation in a Row
  Band* storage_;
  int width_;
  std::array<int, kSlots> held_{-1, -1, -1};
  std::array<Row, kSlots> rows_{};
};

// Where a scale's DWT rows come from: full bands already transformed (scales
// 1..3), read in place.
template <typename Band>
struct BandSource {
  Hvd<Band> ref, dist;
  int width;
  // Points `row`'s ref and dist at band row i (`owned`: unused here).
  void load(unsigned, int i, bool, typename MaskingWindow<Band>::Row& row) const {
    const std::size_t base = static_cast<std::size_t>(i) * width;
    for (int theta = 0; theta < 3; ++theta) {
      row.ref.band[theta] = ref.band[theta] + base;
      row.dist.band[theta] = dist.band[theta] + base;
    }
  }
  // Rows outside the scored region are not visited here.
  void approximation_only(unsigned, int) const {}
};

// Adds two bands' sums per orientation modulo 2^64, as one pass forms them.
struct AddModulo {
  template <typename Sum>
  std::array<Sum, 3> operator()(std::array<Sum, 3> total, const std::array<Sum, 3>& part) const {
    for (int theta = 0; theta < 3; ++theta) {
      if constexpr (std::is_signed_v<Sum>)
        total[theta] = wrapping_add(total[theta], part[theta]);
      else
        total[theta] += part[theta];  // unsigned: modulo 2^64 by definition
    }
    return total;
  }
};

// A scale's integer sums, in one pass over band rows [first_row, end_row) cut
// into bands: per row of the scored region the reference cube sums, then the
// masked cube sums of DLM (the restored image masked by the additive
// impairment) and of AIM (the additive impairment masked by the restored
// image). Each band row enters the band's window once (its DWT rows from
// `source`, then libvmaf's adm_decouple and adm_csf); of the rows of the range
// outside the scored region only the two next to it enter, the others only give
// the source its work (approximation_only()). The
// masking (libvmaf's adm_cm) of row i reads rows i - 1, i and i + 1 of the
// masking image: outside the band, a neighbour above is mirrored (row 1) and
// one below repeats the edge, as for the columns. Each row's sums are rounded
// and shifted before they are added, so the cut and the order of the bands do
// not change them. `windows` holds a MaskingWindow per band.
template <class Arith, class Source>
void score_scale(BandRunner& runner, const AdmDsp& dsp, const Arith& arith, const ScaleGeometry& g,
                 int first_row, int end_row, std::size_t samples_per_row, const Source& source,
                 std::vector<typename Arith::Band>& windows, const AdmOptions& options,
                 ScaleSums& out) {
  using Band = typename Arith::Band;
  const std::size_t window_samples = MaskingWindow<Band>::samples(g.width);
  if (windows.size() < window_samples * runner.max_bands())
    windows.resize(window_samples * runner.max_bands());
  const auto split = ScaleDsp<Arith>::decouple(dsp);
  const auto weigh = ScaleDsp<Arith>::csf(dsp);
  const auto cubes = ScaleDsp<Arith>::masked_cubes(dsp);
  const auto reference_cubes = ScaleDsp<Arith>::reference_cubes(dsp);
  // The columns the masking reads: the scored ones and one more on each side.
  const Span cols = widen(g.left, g.right, g.width);
  const std::int64_t row_round = round_offset(g.num_row_shift);
  const std::uint64_t den_row_round =
      g.den_row_shift == 0 ? 0 : (std::uint64_t{1} << (g.den_row_shift - 1));
  const int w = g.width, h = g.height;

  // The masked cube sums of one row, rounded and shifted, added to `sums`.
  const auto add_masked_row = [&](const std::array<Hvd<Band>, 3>& share, const Hvd<Band>& centre,
                                  const Hvd<Band>& signal, std::array<std::int64_t, 3>& sums) {
    MaskRows<Band> rows{};
    for (int theta = 0; theta < 3; ++theta) {
      for (int k = 0; k < 3; ++k) rows.share[theta][k] = share[k].band[theta];
      rows.centre[theta] = centre.band[theta];
      rows.signal[theta] = signal.band[theta];
    }
    std::int64_t row_sum[3] = {0, 0, 0};
    cubes(arith, rows, w, g.left, g.right, g.num_cube_shift.data(), row_sum);
    for (int theta = 0; theta < 3; ++theta)
      sums[theta] = wrapping_add(sums[theta], wrapping_add(row_sum[theta], row_round) >> g.num_row_shift);
  };

  const ScaleSums sums = sum_row_bands<ScaleSums>(
      runner, first_row, end_row, samples_per_row, [&](unsigned band, int begin, int end) {
        ScaleSums part;
        MaskingWindow<Band> window(windows.data() + band * window_samples, w);
        // Band row `i` of every image, loaded, decoupled and weighed when it
        // enters.
        const auto enter = [&](int i) -> const typename MaskingWindow<Band>::Row& {
          bool present = false;
          auto& images = window.row(i, present);
          if (present) return images;
          source.load(band, i, i >= begin && i < end, images);
          DecoupleRows<Band> row{};
          for (int theta = 0; theta < 3; ++theta) {
            row.ref[theta] = images.ref.band[theta];
            row.dist[theta] = images.dist.band[theta];
            row.restored[theta] = images.restored.band[theta];
            row.additive[theta] = images.additive.band[theta];
          }
          split(row, cols.begin, cols.end, options.enhn_gain_limit);
          for (int theta = 0; theta < 3; ++theta) {
            weigh(arith, theta, images.additive.band[theta], cols.begin, cols.end,
                  images.centre_additive.band[theta], images.share_additive.band[theta]);
            if (!options.skip_aim)
              weigh(arith, theta, images.restored.band[theta], cols.begin, cols.end,
                    images.centre_restored.band[theta], images.share_restored.band[theta]);
          }
          return images;
        };
        for (int i = begin; i < end; ++i) {
          if (i < g.top || i >= g.bottom) {
            // A border row: only the rows next to the scored region are read
            // by its masking; the others only give the source its work (scale
            // 0: the approximation row for scale 1).
            if (i >= g.top - 1 && i <= g.bottom)
              enter(i);
            else
              source.approximation_only(band, i);
            continue;
          }
          const auto& above = enter(pixel::mask_neighbour_index(i - 1, h));
          const auto& here = enter(i);
          const auto& below = enter(pixel::mask_neighbour_index(i + 1, h));
          // libvmaf's adm_csf_den_scale / adm_csf_den_s123: per row rounded
          // and shifted.
          for (int theta = 0; theta < 3; ++theta) {
            const std::uint64_t row_sum =
                reference_cubes(arith, here.ref.band[theta], g.left, g.right, g.den_cube_shift);
            part.den[theta] += (row_sum + den_row_round) >> g.den_row_shift;
          }
          add_masked_row({above.share_additive, here.share_additive, below.share_additive},
                         here.centre_additive, here.restored, part.num);
          if (!options.skip_aim)
            add_masked_row({above.share_restored, here.share_restored, below.share_restored},
                           here.centre_restored, here.additive, part.aim);
        }
        return part;
      },
      [](ScaleSums total, const ScaleSums& part) {
        const AddModulo add;
        total.den = add(total.den, part.den);
        total.num = add(total.num, part.num);
        total.aim = add(total.aim, part.aim);
        return total;
      });
  out = sums;
}

// Scale 0's DWT rows, transformed from the pictures as the masking pass reads
// them (no full-size scale-0 bands): h, v and d go to the window's rows; the
// approximation row is widened to int32 into the scale-1 input of its picture
// by the one band that owns the row, so every row is written once.
struct PictureSource {
  const AdmDsp& dsp;
  const PlaneView &ref_plane, &dist_plane;
  unsigned bpc;
  int w, h;                                   // picture size
  int out_w;                                  // scale-0 band width
  std::int32_t *ref_approx, *dist_approx;     // scale-0 approximation bands, int32
  std::int16_t* scratch;                      // per band: scratch_size int16
  std::size_t scratch_size;

  static std::size_t scratch_for(int w) { return 2 * static_cast<std::size_t>(w) + (w + 1) / 2; }

  // Row i of one picture: h, v, d to `hvd` (or none), its approximation to
  // `approx` when non-null.
  void transform(unsigned band, const PlaneView& plane, int i, Hvd<std::int16_t>* hvd,
                 std::int32_t* approx) const {
    std::int16_t* tmp = scratch + band * scratch_size;
    std::int16_t* a = tmp + 2 * static_cast<std::size_t>(w);
    std::int16_t* no_band = nullptr;
    auto* band_h = hvd ? hvd->band[0] : no_band;
    auto* band_v = hvd ? hvd->band[1] : no_band;
    auto* band_d = hvd ? hvd->band[2] : no_band;
    if (bpc == 8)
      dwt_picture_row<std::uint8_t>(dsp, plane, bpc, w, h, i, a, band_h, band_v, band_d, tmp);
    else
      dwt_picture_row<std::uint16_t>(dsp, plane, bpc, w, h, i, a, band_h, band_v, band_d, tmp);
    if (approx) std::copy(a, a + out_w, approx + static_cast<std::size_t>(i) * out_w);
  }
  // The approximation row only (a border row the masking does not read).
  void approximation_only(unsigned band, int i) const {
    transform(band, ref_plane, i, nullptr, ref_approx);
    transform(band, dist_plane, i, nullptr, dist_approx);
  }
  void load(unsigned band, int i, bool owned,
            MaskingWindow<std::int16_t>::Row& row) const {
    transform(band, ref_plane, i, &row.ref_rows, owned ? ref_approx : nullptr);
    transform(band, dist_plane, i, &row.dist_rows, owned ? dist_approx : nullptr);
    for (int theta = 0; theta < 3; ++theta) {
      row.ref.band[theta] = row.ref_rows.band[theta];
      row.dist.band[theta] = row.dist_rows.band[theta];
    }
  }
};

// One scale's numerator or denominator from three floats, as libvmaf adds them.
float add_orientations(const std::array<float, 3>& values) {
  return values[0] + values[1] + values[2];
}

}  // namespace

// ---------------------------------------------------------------------------

namespace {

// libvmaf converts its float weights to fixed point with C casts that are
// undefined out of range; the x86-64 code GCC emits for them truncates through
// a signed 32-bit integer (uint16) or a signed 64-bit integer (uint32) and keeps
// the low bits. Only Barten's mode 1, whose weights exceed 1, reaches that.
std::uint16_t fixed_u16(double value) {
  if (!(value > -2147483649.0 && value < 2147483648.0)) return 0;  // 0x80000000's low bits
  return static_cast<std::uint16_t>(static_cast<std::int32_t>(value));
}
std::uint32_t fixed_u32(double value) {
  if (!(value > -9223372036854775809.0 && value < 9223372036854775808.0)) return 0;
  return static_cast<std::uint32_t>(static_cast<std::int64_t>(value));
}

// The float weight 1/Q of a level for orientations h, v (diagonal false) or d.
float csf_factor(const AdmOptions& options, int scale, bool diagonal) {
  switch (options.csf_mode) {
    case kCsfBarten:
      return barten_csf(scale, options.norm_view_dist, options.ref_display_height,
                        kCsfLuminance, diagonal ? options.csf_diag_scale : options.csf_scale);
    case kCsfBartenWatsonBlend:
    case kCsfBartenWatsonBlendMae:
      // csf_weights() has checked that a table exists.
      return blended_csf(options.csf_mode, scale, diagonal, options.norm_view_dist,
                         options.ref_display_height)
          .value_or(0.0f);
    default:
      return 1.0f / watson_quant_step(scale, diagonal ? 2 : 1, options.norm_view_dist,
                                      options.ref_display_height);
  }
}

}  // namespace

CsfWeights csf_weights(const AdmOptions& options) {
  // libvmaf refuses (at every frame) a viewing condition finer than 3 heights of
  // 1080 lines: its 16-bit pipeline cannot represent it.
  if (options.norm_view_dist * options.ref_display_height < 3.0 * 1080)
    throw Error("adm: adm_norm_view_dist * adm_ref_display_height must be at least 3240 "
                "(3.0 x 1080), as in libvmaf; it is " +
                std::to_string(options.norm_view_dist * options.ref_display_height));
  // libvmaf's blended CSFs are tables for a few viewing conditions; for any
  // other it weighs every band by -22 (its -EINVAL as a float), a meaningless
  // score, so vmafexact refuses it.
  if ((options.csf_mode == kCsfBartenWatsonBlend || options.csf_mode == kCsfBartenWatsonBlendMae) &&
      !blended_csf(options.csf_mode, 0, false, options.norm_view_dist, options.ref_display_height))
    throw Error("adm: adm_csf_mode=" + std::to_string(options.csf_mode) +
                " (Barten-Watson blend) has weights only for " + kBlendedCsfConditions +
                "; got adm_ref_display_height=" + std::to_string(options.ref_display_height) +
                " with adm_norm_view_dist=" + format_option_double(options.norm_view_dist));
  CsfWeights weights;
  for (int scale = 0; scale < 4; ++scale) {
    // Orientations h and v share one weight, d has its own.
    const float factor_hv = csf_factor(options, scale, false);
    const float factor_d = csf_factor(options, scale, true);
    weights.rfactor[scale] = {factor_hv, factor_hv, factor_d};
    if (scale > 0)
      for (int theta = 0; theta < 3; ++theta)
        weights.fixed[scale][theta] = fixed_u32(weights.rfactor[scale][theta] * std::pow(2.0, 32));
  }
  // Scale 0: libvmaf uses fixed constants at Watson's default viewing condition
  // and the truncated Q21/Q23 values otherwise.
  if (std::fabs(options.norm_view_dist * options.ref_display_height - 3.0 * 1080) < 1.0e-8 &&
      options.csf_mode == kCsfWatson97) {
    weights.scale0_fixed = {36453, 36453, 49417};
  } else {
    weights.scale0_fixed = {fixed_u16(weights.rfactor[0][0] * std::pow(2.0, 21)),
                            fixed_u16(weights.rfactor[0][1] * std::pow(2.0, 21)),
                            fixed_u16(weights.rfactor[0][2] * std::pow(2.0, 23))};
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

void check_picture_size(unsigned width, unsigned height) {
  if (width < kMinimumSide || height < kMinimumSide)
    throw Error("adm: pictures must be at least " + std::to_string(kMinimumSide) + "x" +
                std::to_string(kMinimumSide) + "; this one is " + std::to_string(width) + "x" +
                std::to_string(height));
}

AdmCpuStage::AdmCpuStage(unsigned width, unsigned height, const AdmOptions& options)
    : AdmCpuStage(width, height, options, adm_dsp(cpu::flags())) {}

AdmCpuStage::AdmCpuStage(unsigned width, unsigned height, const AdmOptions& options,
                         const AdmDsp& dsp)
    : width_(width), height_(height), options_(options), weights_(csf_weights(options)),
      dsp_(&dsp) {
  check_picture_size(width, height);
  geometry_ = scale_geometry(width, height);
  const std::size_t size0 = static_cast<std::size_t>(geometry_[0].width) * geometry_[0].height;
  const std::size_t size1 = static_cast<std::size_t>(geometry_[1].width) * geometry_[1].height;
  // int32: per picture two approximation slots (scale-0 and scale-1 sized, see
  // compute()) and the h, v, d bands (scale-1 sized).
  ref32_.assign(size0 + 4 * size1, 0);
  dist32_.assign(size0 + 4 * size1, 0);
  rows32_.assign(2 * static_cast<std::size_t>(width), 0);  // one band; compute() adds more
  rows16_.assign(2 * static_cast<std::size_t>(width), 0);
}

FrameSums AdmCpuStage::compute(const PlaneView& ref, const PlaneView& dist, unsigned bpc,
                              BandRunner& runner) {
  FrameSums sums;
  const int w = static_cast<int>(width_), h = static_cast<int>(height_);
  const std::size_t size0 = static_cast<std::size_t>(geometry_[0].width) * geometry_[0].height;
  // The DWT's intermediate rows: one set per band.
  const std::size_t tmp_size = 2 * static_cast<std::size_t>(width_);
  if (rows32_.size() < tmp_size * runner.max_bands()) rows32_.resize(tmp_size * runner.max_bands());
  const auto tmp = [&](unsigned band) { return rows32_.data() + band * tmp_size; };

  // int32 approximation bands (ref32_, dist32_): two slots, slot 0 of scale-0
  // size and slot 1 of scale-1 size (followed by h, v, d). Scale 0's band goes
  // to slot 0; scale s reads slot (s - 1) % 2 and writes slot s % 2, so that
  // no band is copied between scales.
  const auto slot = [&](std::vector<std::int32_t>& buffer, int index) {
    return buffer.data() + index * size0;
  };

  // Scale 0 from the pictures, row by row as its masking pass reads them, its
  // approximation rows widened to int32 into slot 0.
  const std::size_t scratch_size = PictureSource::scratch_for(w);
  if (rows16_.size() < scratch_size * runner.max_bands())
    rows16_.resize(scratch_size * runner.max_bands());
  const PictureSource source0{*dsp_,        ref,           dist,        bpc,
                              w,            h,             geometry_[0].width,
                              slot(ref32_, 0), slot(dist32_, 0), rows16_.data(), scratch_size};
  if (options_.skip_scale0) {
    for_each_row_band(runner, 0, geometry_[0].height, 4 * static_cast<std::size_t>(w),
                      [&](unsigned band, int begin, int end) {
                        for (int i = begin; i < end; ++i) source0.approximation_only(band, i);
                      });
  } else {
    const Scale0Arith arith{{weights_.scale0_fixed[0], weights_.scale0_fixed[1],
                             weights_.scale0_fixed[2]}};
    // A row's work: its DWT (four picture rows' worth) and its masking.
    const std::size_t samples_per_row =
        4 * static_cast<std::size_t>(w) + 3 * static_cast<std::size_t>(geometry_[0].width);
    score_scale(runner, *dsp_, arith, geometry_[0], 0, geometry_[0].height, samples_per_row,
                source0, windows16_, options_, sums.scales[0]);
  }

  // Scales 1..3, each from the previous approximation band.
  const std::size_t size1 = static_cast<std::size_t>(geometry_[1].width) * geometry_[1].height;
  const auto hvd = [&](std::vector<std::int32_t>& buffer) {
    std::int32_t* details = slot(buffer, 1) + size1;
    return Hvd<std::int32_t>{{details, details + size1, details + 2 * size1}};
  };
  for (int s = 1; s < 4; ++s) {
    const ScaleGeometry& in = geometry_[s - 1];
    const ScaleGeometry& g = geometry_[s];
    const auto transform = [&](std::vector<std::int32_t>& buffer, std::int32_t* rows, int begin,
                               int end) {
      const Hvd<std::int32_t> out = hvd(buffer);
      dwt_band(*dsp_, slot(buffer, (s - 1) % 2), in.width, in.height, s, slot(buffer, s % 2),
               out.band[0], out.band[1], out.band[2], rows, begin, end);
    };
    for_each_row_band(runner, 0, g.height, 4 * static_cast<std::size_t>(in.width),
                      [&](unsigned band, int begin, int end) {
                        transform(ref32_, tmp(band), begin, end);
                        transform(dist32_, tmp(band), begin, end);
                      });
    const ScaleNArith arith{{weights_.fixed[s][0], weights_.fixed[s][1], weights_.fixed[s][2]}, s};
    const BandSource<std::int32_t> source{hvd(ref32_), hvd(dist32_), g.width};
    score_scale(runner, *dsp_, arith, g, g.top, g.bottom, 3 * static_cast<std::size_t>(g.width),
                source, windows32_, options_, sums.scales[s]);
  }
  return sums;
}

}  // namespace vmafexact::adm
