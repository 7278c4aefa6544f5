#include "ssim/ssim.h"

#include <cmath>
#include <cstdint>
#include <limits>

#include "common/error.h"

namespace vmafexact::ssim {

// The IQA library's published filter taps (Tom Distler's IQA, as libvmaf
// ships it in feature/ms_ssim.c): the 9/7 biorthogonal wavelet low-pass
// filter, and the per-scale exponents of Wang et al.'s MS-SSIM.
const float kLowPass[kLowPassTaps * kLowPassTaps] = {
    0.000714f,  -0.000450f, -0.002090f, 0.007132f,  0.016114f,  0.007132f,  -0.002090f, -0.000450f, 0.000714f,
    -0.000450f, 0.000283f,  0.001316f,  -0.004490f, -0.010146f, -0.004490f, 0.001316f,  0.000283f,  -0.000450f,
    -0.002090f, 0.001316f,  0.006115f,  -0.020867f, -0.047149f, -0.020867f, 0.006115f,  0.001316f,  -0.002090f,
    0.007132f,  -0.004490f, -0.020867f, 0.071207f,  0.160885f,  0.071207f,  -0.020867f, -0.004490f, 0.007132f,
    0.016114f,  -0.010146f, -0.047149f, 0.160885f,  0.363505f,  0.160885f,  -0.047149f, -0.010146f, 0.016114f,
    0.007132f,  -0.004490f, -0.020867f, 0.071207f,  0.160885f,  0.071207f,  -0.020867f, -0.004490f, 0.007132f,
    -0.002090f, 0.001316f,  0.006115f,  -0.020867f, -0.047149f, -0.020867f, 0.006115f,  0.001316f,  -0.002090f,
    -0.000450f, 0.000283f,  0.001316f,  -0.004490f, -0.010146f, -0.004490f, 0.001316f,  0.000283f,  -0.000450f,
    0.000714f,  -0.000450f, -0.002090f, 0.007132f,  0.016114f,  0.007132f,  -0.002090f, -0.000450f, 0.000714f,
};
const float kAlphas[kScales] = {0.0000f, 0.0000f, 0.0000f, 0.0000f, 0.1333f};
const float kBetas[kScales] = {0.0448f, 0.2856f, 0.3001f, 0.2363f, 0.1333f};
const float kGammas[kScales] = {0.0448f, 0.2856f, 0.3001f, 0.2363f, 0.1333f};

void luma_to_float(const PlaneView& luma, unsigned bpc, const SsimDsp& dsp, FloatImage& out) {
  out.resize(static_cast<int>(luma.width), static_cast<int>(luma.height));
  // picture_copy(): high bit depths are brought to the 8-bit range.
  const float scaler = bpc == 10 ? 4.0f : bpc == 12 ? 16.0f : 256.0f;
  for (unsigned y = 0; y < luma.height; ++y) {
    if (bpc == 8)
      dsp.convert_row_8(luma.row<std::uint8_t>(y), luma.width, out.row(static_cast<int>(y)));
    else
      dsp.convert_row_16(luma.row<std::uint16_t>(y), luma.width, scaler,
                         out.row(static_cast<int>(y)));
  }
}

namespace {

// The IQA library's _round(): halves away from zero, the fraction taken in
// float and compared in double.
int iqa_round(float a) {
  const int sign = a > 0.0f ? 1 : -1;
  const int truncated = static_cast<int>(a);
  return a - static_cast<float>(truncated) >= 0.5 ? truncated + sign : truncated;
}

}  // namespace

int auto_scale(int w, int h) {
  const int rounded = iqa_round(static_cast<float>(w < h ? w : h) / 256.0f);
  return rounded > 1 ? rounded : 1;
}

std::vector<float> box_kernel(int factor) {
  return std::vector<float>(static_cast<std::size_t>(factor) * static_cast<std::size_t>(factor),
                            1.0f / static_cast<float>(factor * factor));
}

void decimate(const FloatImage& in, const float* kernel, int taps, int factor, const SsimDsp& dsp,
              FloatImage& out, std::vector<float>& scratch) {
  out.resize(decimated_size(in.w, factor), decimated_size(in.h, factor));
  scratch.resize(decimate_scratch_floats(in.w, taps, factor));
  for (int y = 0; y < out.h; ++y)
    dsp.decimate_row(in.data.data(), in.w, in.h, kernel, taps, factor, y,
                     static_cast<unsigned>(out.w), out.row(y), scratch.data());
}

SsimMeans SsimWorkspace::means(const FloatImage& ref, const FloatImage& dist, const SsimDsp& dsp) {
  const int w = ref.w, h = ref.h;
  if (dist.w != w || dist.h != h || w < kWindow || h < kWindow)
    throw Error("ssim: pictures of " + std::to_string(w) + "x" + std::to_string(h) + " and " +
                std::to_string(dist.w) + "x" + std::to_string(dist.h) +
                ": both must be one size, at least 11x11");
  // The valid part of the convolution: where the window lies inside.
  const int out_w = w - (kWindow - 1), out_h = h - (kWindow - 1);
  const auto row_floats = static_cast<std::size_t>(w);
  const auto out_floats = static_cast<std::size_t>(out_w);
  products_.resize(3 * row_floats);
  ring_.resize(kMaps * kWindow * out_floats);
  filtered_.resize(kMaps * out_floats);
  float* const rr = products_.data();
  float* const dd = rr + row_floats;
  float* const rd = dd + row_floats;
  const auto ring_row = [&](int map, int y) {
    return ring_.data() + (static_cast<std::size_t>(map) * kWindow + static_cast<std::size_t>(y % kWindow)) * out_floats;
  };
  const auto filtered = [&](int map) { return filtered_.data() + static_cast<std::size_t>(map) * out_floats; };

  TermSums sums;
  for (int y = 0; y < h; ++y) {
    // The five maps libvmaf filters, in its order: ref, dist, ref^2, dist^2, ref*dist.
    dsp.products_row(ref.row(y), dist.row(y), static_cast<unsigned>(w), rr, dd, rd);
    const float* const sources[kMaps] = {ref.row(y), dist.row(y), rr, dd, rd};
    for (int map = 0; map < kMaps; ++map)
      dsp.gaussian_row(sources[map], static_cast<unsigned>(out_w), ring_row(map, y));
    if (y < kWindow - 1) continue;
    const int first = y - (kWindow - 1);  // the output row's top input row
    for (int map = 0; map < kMaps; ++map) {
      const float* rows[kWindow];
      for (int v = 0; v < kWindow; ++v) rows[v] = ring_row(map, first + v);
      dsp.gaussian_column(rows, static_cast<unsigned>(out_w), filtered(map));
    }
    dsp.terms_row(filtered(0), filtered(1), filtered(2), filtered(3), filtered(4),
                  static_cast<unsigned>(out_w), &sums);
  }
  const double count = static_cast<double>(out_w * out_h);
  return {static_cast<float>(sums.ssim / count), static_cast<float>(sums.l / count),
          static_cast<float>(sums.c / count), static_cast<float>(sums.s / count)};
}

double ms_ssim_score(const std::array<SsimMeans, kScales>& scales) {
  double score = 1.0;
  for (int i = 0; i < kScales; ++i) {
    const SsimMeans& m = scales[static_cast<std::size_t>(i)];
    score *= std::pow(static_cast<double>(m.l), static_cast<double>(kAlphas[i])) *
             std::pow(static_cast<double>(m.c), static_cast<double>(kBetas[i])) *
             std::pow(static_cast<double>(m.s), static_cast<double>(kGammas[i]));
    if (score == std::numeric_limits<double>::infinity())
      throw Error("float_ms_ssim: the score is infinite at scale " + std::to_string(i) +
                  " (libvmaf fails the frame: \"ms_ssim is INFINITY\")");
  }
  return score;
}

double to_db(double score, double max_db) {
  const double db = -10. * std::log10(1 - score);
  return db < max_db ? db : max_db;  // libvmaf's MIN(): NaN gives max_db
}

double max_db(bool clip_db, unsigned bpc, unsigned w, unsigned h) {
  if (!clip_db) return std::numeric_limits<double>::infinity();
  const unsigned peak = (1u << bpc) - 1;
  const double mse = 0.5 / (w * h);  // libvmaf's unsigned product
  return std::ceil(10. * std::log10(peak * peak / mse));
}

}  // namespace vmafexact::ssim
