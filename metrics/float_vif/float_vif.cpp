#include "float_vif/float_vif.h"

#include <math.h>  // ::powf, as libvmaf calls it

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace vmafexact::float_vif {

namespace {

// vif_tools.c's log2_poly_s: double literals rounded to float.
constexpr float kLog2Poly[9] = {-0.012671635276421, 0.064841182402670,  -0.157048836463065,
                                0.257167726303123,  -0.353800560300520, 0.480131410397451,
                                -0.721314327952201, 1.442694803896991,  0};

// vif_tools.h's valid_kernelscales, each written as libvmaf writes it.
constexpr float kValidKernelscales[] = {
    1.0,           1.0f / 2.0f,    3.0f / 2.0f, 2.0f,         2.0f / 3.0f,
    24.0f / 10.0f, 360.0f / 97.0f, 4.0f / 3.0f, 3.5f / 3.0f,  3.75f / 3.0f,
    4.25f / 3.0f,  5.0f / 3.0f,    3.0f,        1.0f / 2.25f, 1.4746f,
    1.54f,         1.6f,           1.06667f,    0.711111f,    0.740740f,
    1.111111f,
};

constexpr double kPi = 3.14159265358979323846;  // M_PI

float horner(float x) {
  float var = 0;
  for (const float coefficient : kLog2Poly) var = var * x + coefficient;
  return var;
}

int round_up_to_odd(float f) {
  const int ceiling = static_cast<int>(std::ceil(static_cast<double>(f)));
  return ceiling % 2 == 0 ? ceiling + 1 : ceiling;
}

// get_gaussian_pdf(): exp and sqrt in double, the result as floats.
float gaussian_pdf(float x, float mean, float stdev) {
  const float num = static_cast<float>(std::exp(-0.5 * (x - mean) / stdev * (x - mean) / stdev));
  const float den = static_cast<float>(1 / (stdev * std::sqrt(2 * kPi)));
  return num / den;
}

int filter_size(int scale, float kernelscale) {
  const int n = (1 << (4 - scale)) + 1;
  const int size = round_up_to_odd(static_cast<float>(n) * kernelscale);
  return size > 3 ? size : 3;
}

// vif_tools.c's mirror: once about 0 and about n - 1.
int mirror(int i, int n) { return i < 0 ? -i : (i >= n ? 2 * n - i - 2 : i); }

// vif_filter1d_s() (its _sq and _xy variants are this over the squares or
// the product, formed once: products()): each row's vertical pass, then the
// horizontal pass, each output a float sum from 0 of the float products
// f[k] * value in tap order. The loops run over the taps outside and the
// columns inside, so each column's sum sees the same operations in the same
// order as libvmaf's, and the compiler may run the columns side by side
// (no contraction into fused multiply-adds: -ffp-contract=off).
void filter1d(const std::vector<float>& f, const FloatPlane& a, FloatPlane& dst,
              std::vector<float>& scratch) {
  const unsigned w = a.width, h = a.height;
  if (dst.width != w || dst.height != h) dst = FloatPlane(w, h);
  scratch.resize(std::size_t{w});
  float* const tmp = scratch.data();
  const int fwidth = static_cast<int>(f.size());
  const int half = fwidth / 2;
  const int width = static_cast<int>(w), height = static_cast<int>(h);
  for (int i = 0; i < height; ++i) {
    std::fill(tmp, tmp + w, 0.0f);
    for (int fi = 0; fi < fwidth; ++fi) {
      const unsigned row = static_cast<unsigned>(mirror(i - half + fi, height));
      const float* src = a.row(row);
      const float tap = f[static_cast<std::size_t>(fi)];
      for (unsigned j = 0; j < w; ++j) tmp[j] += tap * src[j];
    }
    float* const out = dst.row(static_cast<unsigned>(i));
    // Columns whose taps all lie inside the row, side by side; the mirrored
    // borders one at a time.
    const int inner_begin = half < width ? half : width;
    const int inner_end = width - half > inner_begin ? width - half : inner_begin;
    for (int j = inner_begin; j < inner_end; ++j) out[j] = 0.0f;
    for (int fj = 0; fj < fwidth; ++fj) {
      const float tap = f[static_cast<std::size_t>(fj)];
      const float* src = tmp + (fj - half);
      for (int j = inner_begin; j < inner_end; ++j) out[j] += tap * src[j];
    }
    for (int j = 0; j < width; ++j) {
      if (j == inner_begin) j = inner_end;
      if (j >= width) break;
      float accum = 0;
      for (int fj = 0; fj < fwidth; ++fj) accum += f[fj] * tmp[mirror(j - half + fj, width)];
      out[j] = accum;
    }
  }
}

// a * b sample by sample (float products) into `out`.
void products(const FloatPlane& a, const FloatPlane& b, FloatPlane& out) {
  if (out.width != a.width || out.height != a.height) out = FloatPlane(a.width, a.height);
  for (unsigned i = 0; i < a.height; ++i) {
    const float* x = a.row(i);
    const float* y = b.row(i);
    float* o = out.row(i);
    for (unsigned j = 0; j < a.width; ++j) o[j] = x[j] * y[j];
  }
}

// vif_dec2_s(): every other sample of every other row.
void decimate(const FloatPlane& src, FloatPlane& dst) {
  const unsigned w = src.width / 2, h = src.height / 2;
  FloatPlane out(w, h);
  for (unsigned i = 0; i < h; ++i)
    for (unsigned j = 0; j < w; ++j) out.row(i)[j] = src.row(2 * i)[2 * j];
  dst = std::move(out);
}

template <class T>
T max_of(T x, T y) {
  return x > y ? x : y;
}
template <class T>
T min_of(T x, T y) {
  return x < y ? x : y;
}

// vif_tools.c's log2f_approx(): the exponent plus a polynomial of the
// mantissa. Inline in the statistic's loop.
inline float log2_approx(float x) {
  if (x == 0) return -std::numeric_limits<float>::infinity();
  if (x < 0) return std::numeric_limits<float>::quiet_NaN();
  const std::uint32_t bits = std::bit_cast<std::uint32_t>(x);
  const std::uint32_t exponent = (bits & 0x7F800000u) >> 23;
  const std::uint32_t mantissa = bits & 0x007FFFFFu;
  const float remain = std::bit_cast<float>(mantissa | 0x3F800000u);
  const float log_base = static_cast<float>(static_cast<std::int32_t>(exponent) - 127);
  const float log_remain = horner(remain - 1.0f);
  return log_base + log_remain;
}

// vif_statistic_s() ('matching_matlab'), over one scale.
void statistic(const FloatPlane& mu1, const FloatPlane& mu2, const FloatPlane& xx,
               const FloatPlane& yy, const FloatPlane& xy, double enhn_gain_limit, double sigma_nsq,
               float& num, float& den) {
  // powf of the float value, divided in double, stored as a float.
  const float sigma_max_inv =
      static_cast<float>(::powf(static_cast<float>(sigma_nsq), 2.0f) / (255.0 * 255.0));
  const float eps = 1.0e-10f;
  const float gain_limit = static_cast<float>(enhn_gain_limit);
  float accum_num = 0.0f;
  float accum_den = 0.0f;
  for (unsigned i = 0; i < mu1.height; ++i) {
    float accum_inner_num = 0;
    float accum_inner_den = 0;
    for (unsigned j = 0; j < mu1.width; ++j) {
      const float mu1_val = mu1.row(i)[j];
      const float mu2_val = mu2.row(i)[j];
      const float mu1_sq = mu1_val * mu1_val;
      const float mu2_sq = mu2_val * mu2_val;
      const float mu1_mu2 = mu1_val * mu2_val;
      float sigma1_sq = xx.row(i)[j] - mu1_sq;
      float sigma2_sq = yy.row(i)[j] - mu2_sq;
      const float sigma12 = xy.row(i)[j] - mu1_mu2;

      sigma1_sq = max_of(sigma1_sq, 0.0f);
      sigma2_sq = max_of(sigma2_sq, 0.0f);
      float g = sigma12 / (sigma1_sq + eps);
      float sv_sq = sigma2_sq - g * sigma12;
      if (sigma1_sq < eps) {
        g = 0.0f;
        sv_sq = sigma2_sq;
        sigma1_sq = 0.0f;
      }
      if (sigma2_sq < eps) {
        g = 0.0f;
        sv_sq = 0.0f;
      }
      if (g < 0.0f) {
        sv_sq = sigma2_sq;
        g = 0.0f;
      }
      sv_sq = max_of(sv_sq, eps);
      g = min_of(g, gain_limit);

      // sigma_nsq is a double: the divisions and the 1 + are taken in double,
      // and the approximate log2 takes their float.
      float num_val =
          log2_approx(static_cast<float>(1.0f + (g * g * sigma1_sq) / (sv_sq + sigma_nsq)));
      float den_val = log2_approx(static_cast<float>(1.0f + sigma1_sq / sigma_nsq));
      if (sigma12 < 0.0f) num_val = 0.0f;
      if (sigma1_sq < sigma_nsq) {
        num_val = 1.0f - sigma2_sq * sigma_max_inv;
        den_val = 1.0f;
      }
      accum_inner_num += num_val;
      accum_inner_den += den_val;
    }
    accum_num += accum_inner_num;
    accum_den += accum_inner_den;
  }
  num = accum_num;
  den = accum_den;
}

}  // namespace

float log2f_approx(float x) { return log2_approx(x); }

bool valid_kernelscale(double kernelscale) {
  const float k = static_cast<float>(kernelscale);
  for (const float valid : kValidKernelscales)
    if (std::fabs(k - valid) < 1e-3) return true;
  return false;
}

std::vector<float> vif_filter(int scale, double kernelscale) {
  const int size = filter_size(scale, static_cast<float>(kernelscale));
  const float stdev = static_cast<float>(size) / 5.0f;
  // get_1d_gaussian_kernel(): the pdf at -k..k, normalised by its float sum.
  std::vector<float> out(static_cast<std::size_t>(size));
  float sum = 0;
  const int k = (size - 1) / 2;
  for (int i = 0; i < size; ++i) {
    out[i] = gaussian_pdf(static_cast<float>(i - k), 0, stdev);
    sum += out[i];
  }
  for (auto& tap : out) tap /= sum;
  return out;
}

std::array<ScaleSize, kScales> scale_sizes(unsigned width, unsigned height) {
  std::array<ScaleSize, kScales> sizes{};
  sizes[0] = {width, height};
  for (int s = 1; s < kScales; ++s) sizes[s] = {sizes[s - 1].width / 2, sizes[s - 1].height / 2};
  return sizes;
}

ScaleSize prescaled_size(unsigned width, unsigned height, double prescale) {
  return {static_cast<unsigned>(static_cast<int>(width * prescale + 0.5)),
          static_cast<unsigned>(static_cast<int>(height * prescale + 0.5))};
}

FloatVifSums compute_vif(const FloatPlane& ref, const FloatPlane& dist,
                         const FloatVifParams& params) {
  FloatVifSums sums;
  FloatPlane ref_scale, dis_scale, mu1, mu2, xx, yy, xy, square;
  std::vector<float> tmp;
  const FloatPlane* cur_ref = &ref;
  const FloatPlane* cur_dis = &dist;
  for (int scale = params.skip_scale0 ? 1 : 0; scale < kScales; ++scale) {
    const std::vector<float> filter = vif_filter(scale, params.kernelscale);
    if (scale > 0) {
      // Low-pass the previous scale with this scale's filter, then keep every other sample.
      filter1d(filter, *cur_ref, mu1, tmp);
      filter1d(filter, *cur_dis, mu2, tmp);
      decimate(mu1, ref_scale);
      decimate(mu2, dis_scale);
      cur_ref = &ref_scale;
      cur_dis = &dis_scale;
    }
    const FloatPlane& r = *cur_ref;
    const FloatPlane& d = *cur_dis;
    filter1d(filter, r, mu1, tmp);
    filter1d(filter, d, mu2, tmp);
    // The squares and the product once per scale, not once per tap: the
    // same float products the filter would form row by row.
    products(r, r, square);
    filter1d(filter, square, xx, tmp);
    products(d, d, square);
    filter1d(filter, square, yy, tmp);
    products(r, d, square);
    filter1d(filter, square, xy, tmp);
    statistic(mu1, mu2, xx, yy, xy, params.enhn_gain_limit, params.sigma_nsq, sums.num[scale],
              sums.den[scale]);
  }
  return sums;
}

FloatVifCpuStage::FloatVifCpuStage(const PictureFormat& format, const FloatVifParams& params)
    : format_(format), params_(params) {
  const ScaleSize scaled = prescaled_size(format.width, format.height, params.prescale);
  ref_scaled_ = FloatPlane(scaled.width, scaled.height);
  dist_scaled_ = FloatPlane(scaled.width, scaled.height);
}

FloatVifSums FloatVifCpuStage::compute(const PictureView& ref, const PictureView& dist, unsigned) {
  copy_plane_to_float(ref.planes[0], format_.bpc, -128, ref_);
  copy_plane_to_float(dist.planes[0], format_.bpc, -128, dist_);
  scale_plane(params_.prescale_method, ref_, ref_scaled_);
  scale_plane(params_.prescale_method, dist_, dist_scaled_);
  return compute_vif(ref_scaled_, dist_scaled_, params_);
}

}  // namespace vmafexact::float_vif
