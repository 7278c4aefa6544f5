#include "ciede/ciede.h"

#include <cmath>
#include <cstdint>

namespace vmafexact::ciede {

namespace {

// libvmaf's M_PI. Every step below keeps its float or double type: the C
// code calls the double functions (atan2, cos, sin, sqrt, pow, exp) on floats
// promoted to double and stores results in floats where it does.
constexpr double kPi = 3.14159265358979323846;

double d(float value) { return static_cast<double>(value); }

// get_h_prime(): the hue angle in [0, 2 pi).
float hue_angle(float x, float y) {
  if (x == 0.0 && y == 0.0) return 0.0;
  float angle = static_cast<float>(std::atan2(d(x), d(y)));
  if (angle < 0.0) angle += 2. * kPi;
  return angle;
}

// get_delta_h_prime().
float hue_difference(float c1, float c2, float h1, float h2) {
  if (c1 == 0.0 || c2 == 0.0) return 0.0;
  if (std::fabs(h1 - h2) <= kPi) return h2 - h1;
  if (h2 <= h1) return static_cast<float>(d(h2 - h1) + 2. * kPi);
  return static_cast<float>(d(h2 - h1) - 2. * kPi);
}

// get_upcase_h_bar_prime(): the mean hue.
float mean_hue(float h1, float h2) {
  return static_cast<float>(std::fabs(d(h1 - h2)) > kPi ? (d(h1 + h2) + 2.0 * kPi) / 2.0
                                                        : d(h1 + h2) / 2.0);
}

// get_upcase_t().
float hue_weight(float mean) {
  const double h = d(mean);
  return static_cast<float>(1.0 - 0.17 * std::cos(h - kPi / 6.0) + 0.24 * std::cos(2.0 * h) +
                            0.32 * std::cos(3.0 * h + kPi / 30.0) -
                            0.20 * std::cos(4.0 * h - 7.0 * kPi / 20.0));
}

float radians_to_degrees(float radians) { return static_cast<float>(d(radians) * (180.0 / kPi)); }
float degrees_to_radians(float degrees) { return static_cast<float>(d(degrees) * (kPi / 180.0)); }

// get_r_sub_t(): the rotation term, with powf where libvmaf calls it.
float rotation(float c_bar_prime, float mean) {
  const float degrees = static_cast<float>((d(radians_to_degrees(mean)) - 275.0) * (1.0 / 25.0));
  const float c7 = powf(c_bar_prime, 7.0f);
  const float ratio = c7 / (c7 + powf(25.0f, 7.0f));
  const float angle =
      degrees_to_radians(static_cast<float>(60.0 * std::exp(d(-(powf(degrees, 2.0f))))));
  return static_cast<float>(-2.0 * std::sqrt(d(ratio)) * std::sin(d(angle)));
}

// pow(x, 2) and the like on a float, in double, as the C code calls them.
double square(float x) { return std::pow(d(x), 2.0); }

// rgb_to_xyz_map(): the sRGB transfer function inverted.
double linear(double c) {
  if (c > 10. / 255.) return std::pow((c + 0.055) * (1.0 / 1.055), 2.4);
  return c * (1.0 / 12.92);
}

// xyz_to_lab_map(): its float result.
float lab_map(double c) {
  const double kappa = 24389.0 / 27.0, epsilon = 216.0 / 24389.0;
  if (c > epsilon) return static_cast<float>(std::pow(c, 1.0 / 3.0));
  return static_cast<float>((kappa * c + 16.0) * (1.0 / 116.0));
}

unsigned align32(unsigned n) { return (n + 31u) & ~31u; }

}  // namespace

Lab lab_of(double y, double u, double v, unsigned bpc) {
  const double scale = 1 << (bpc - 8);
  y = (y - 16. * scale) * (1. / (219. * scale));
  u = (u - 128. * scale) * (1. / (224. * scale));
  v = (v - 128. * scale) * (1. / (224. * scale));
  // BT.709, as libvmaf assumes.
  const double r = linear(y + 1.28033 * v);
  const double g = linear(y - 0.21482 * u - 0.38059 * v);
  const double b = linear(y + 2.12798 * u);
  const double x = lab_map(
      (r * 0.4124564390896921 + g * 0.357576077643909 + b * 0.18043748326639894) * (1.0 / 0.95047));
  const double yy =
      lab_map(r * 0.21267285140562248 + g * 0.715152155287818 + b * 0.07217499330655958);
  const double z =
      lab_map((r * 0.019333895582329317 + g * 0.119192025881303 + b * 0.9503040785363677) *
              (1.0 / 1.08883));
  return {static_cast<float>((116.0 * yy) - 16.0), static_cast<float>(500.0 * (x - yy)),
          static_cast<float>(200.0 * (yy - z))};
}

float delta_e_2000(const Lab& first, const Lab& second) {
  // libvmaf's KSubArgs: floats.
  const float k_l = 0.65f, k_c = 1.0f, k_h = 4.0f;
  const float delta_l_prime = second.l - first.l;
  const float l_bar = (first.l + second.l) / 2;
  const float c1 = static_cast<float>(std::sqrt(square(first.a) + square(first.b)));
  const float c2 = static_cast<float>(std::sqrt(square(second.a) + square(second.b)));
  const float c_bar = (c1 + c2) / 2;
  const double c_bar7 = std::pow(d(c_bar), 7.0);
  const double g = 1 - std::sqrt(c_bar7 / (c_bar7 + std::pow(25.0, 7.0)));
  const float a_prime_1 = static_cast<float>(d(first.a) + d(first.a / 2) * g);
  const float a_prime_2 = static_cast<float>(d(second.a) + d(second.a / 2) * g);
  const float c_prime_1 = static_cast<float>(std::sqrt(square(a_prime_1) + square(first.b)));
  const float c_prime_2 = static_cast<float>(std::sqrt(square(a_prime_2) + square(second.b)));
  const float c_bar_prime = (c_prime_1 + c_prime_2) / 2;
  const float delta_c_prime = c_prime_2 - c_prime_1;
  const float s_l =
      static_cast<float>(1. + ((0.015 * square(l_bar - 50)) / std::sqrt(20 + square(l_bar - 50))));
  const float s_c = static_cast<float>(1. + 0.045 * d(c_bar_prime));
  const float h_prime_1 = hue_angle(first.b, a_prime_1);
  const float h_prime_2 = hue_angle(second.b, a_prime_2);
  const float delta_h_prime = hue_difference(c1, c2, h_prime_1, h_prime_2);
  const float delta_upcase_h_prime = static_cast<float>(2.0 * std::sqrt(d(c_prime_1 * c_prime_2)) *
                                                        std::sin(d(delta_h_prime) / 2.0));
  const float upcase_h_bar_prime = mean_hue(h_prime_1, h_prime_2);
  const float t = hue_weight(upcase_h_bar_prime);
  const float s_h = static_cast<float>(1.0 + 0.015 * d(c_bar_prime) * d(t));
  const float r_t = rotation(c_bar_prime, upcase_h_bar_prime);
  const float lightness = delta_l_prime / (k_l * s_l);
  const float chroma = delta_c_prime / (k_c * s_c);
  const float hue = delta_upcase_h_prime / (k_h * s_h);
  return static_cast<float>(
      std::sqrt(square(lightness) + square(chroma) + square(hue) + d(r_t * chroma * hue)));
}

ChromaMap::ChromaMap(const PictureFormat& format)
    : chroma_(format.chroma),
      chroma_width_(chroma_plane_width(format.width, format.chroma)),
      chroma_height_(chroma_plane_height(format.height, format.chroma)),
      stride_(align32(chroma_width_)) {
  if (format.width == 0 || format.height == 0) return;
  if (chroma_ == ChromaFormat::k420) {
    inside_ = format.width % 2 == 0 && format.height % 2 == 0;
  } else if (chroma_ == ChromaFormat::k422) {
    // The last pixel's read, as a place in libvmaf's chroma buffer.
    const std::size_t last = std::size_t{(format.height - 1) / 2} * stride_ + (format.width - 1);
    inside_ = chroma_width_ > 0 && last < std::size_t{chroma_height_} * stride_;
  }
}

ChromaSite ChromaMap::site(unsigned x, unsigned y) const {
  switch (chroma_) {
    case ChromaFormat::k420:
      return {y / 2, x / 2};
    case ChromaFormat::k422: {
      // scale_chroma_planes(): in_buf[j] of row y / 2, j up to the luma width.
      const std::size_t place = std::size_t{y / 2} * stride_ + x;
      return {static_cast<unsigned>(place / stride_), static_cast<unsigned>(place % stride_)};
    }
    default:
      return {y, x};
  }
}

double ciede_score(double sum, unsigned width, unsigned height) {
  // `ref_pic->w[0] * ref_pic->h[0]`: an unsigned product.
  return 45. - 20. * std::log10(sum / (width * height));
}

namespace {

template <class Sample>
std::uint32_t sample_at(const PlaneView& plane, const ChromaSite& site) {
  // A column past the plane's width is libvmaf's zeroed row padding.
  return site.column < plane.width ? plane.row<Sample>(site.row)[site.column] : 0u;
}

// lab_of() is a pure function of a pixel's three samples, and natural video
// repeats them: a small direct-mapped cache per band keeps the last Lab of
// each slot. The values are those lab_of() returns, so the bits are too.
class LabCache {
 public:
  explicit LabCache(unsigned bpc) : bpc_(bpc), slots_(kSlots) {}
  const Lab& operator()(std::uint32_t y, std::uint32_t u, std::uint32_t v) {
    const std::uint64_t key = (std::uint64_t{y} << 32) | (std::uint64_t{u} << 16) | v;
    Slot& slot = slots_[(y * 0x9E3779B1u ^ u * 0x85EBCA77u ^ v * 0xC2B2AE3Du) >> (32 - kBits)];
    if (slot.key != key) {
      slot.key = key;
      slot.lab = lab_of(static_cast<float>(y), static_cast<float>(u), static_cast<float>(v), bpc_);
    }
    return slot.lab;
  }

 private:
  static constexpr unsigned kBits = 12, kSlots = 1u << kBits;
  struct Slot {
    std::uint64_t key = ~std::uint64_t{0};  // no pixel's key: samples have 16 bits at most
    Lab lab{};
  };
  unsigned bpc_;
  std::vector<Slot> slots_;
};

template <class Sample>
void differences_of_rows(const PictureView& ref, const PictureView& dist, const ChromaMap& map,
                         int first, int end, float* out) {
  const unsigned w = ref.width;
  LabCache lab(ref.bpc);
  for (int row = first; row < end; ++row) {
    const unsigned y = static_cast<unsigned>(row);
    const Sample* ref_luma = ref.planes[0].row<Sample>(y);
    const Sample* dist_luma = dist.planes[0].row<Sample>(y);
    for (unsigned x = 0; x < w; ++x) {
      const ChromaSite site = map.site(x, y);
      const std::uint32_t ry = ref_luma[x], ru = sample_at<Sample>(ref.planes[1], site),
                          rv = sample_at<Sample>(ref.planes[2], site);
      const std::uint32_t dy = dist_luma[x], du = sample_at<Sample>(dist.planes[1], site),
                          dv = sample_at<Sample>(dist.planes[2], site);
      // Equal samples give equal Lab, and ciede2000() of equal colours is +0
      // exactly (every difference 0, each term 0, sqrt(0)).
      if (ry == dy && ru == du && rv == dv) {
        out[std::size_t{y} * w + x] = 0.0f;
        continue;
      }
      const Lab first = lab(ry, ru, rv);
      out[std::size_t{y} * w + x] = delta_e_2000(first, lab(dy, du, dv));
    }
  }
}

}  // namespace

CiedeSums CiedeCpuStage::compute(const PictureView& ref, const PictureView& dist, unsigned) {
  const unsigned w = ref.width, h = ref.height;
  differences_.resize(std::size_t{w} * h);
  // Each pixel's difference side by side in bands; their double sum in
  // raster order, as libvmaf adds them (floats of many sizes: not exact in
  // another order).
  for_each_row_band(
      *runner_, 0, static_cast<int>(h), std::size_t{w} * 64, [&](unsigned, int first, int end) {
        if (ref.bpc == 8)
          differences_of_rows<std::uint8_t>(ref, dist, map_, first, end, differences_.data());
        else
          differences_of_rows<std::uint16_t>(ref, dist, map_, first, end, differences_.data());
      });
  CiedeSums sums;
  for (const float difference : differences_) sums.sum += difference;
  return sums;
}

}  // namespace vmafexact::ciede
