#include "cambi/cambi.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <utility>

#include "cambi/cambi_dsp_scalar.h"
#include "common/error.h"
#include "common/feature_options.h"

namespace vmafexact::cambi {

const std::array<float, kReciprocalSize> kReciprocal = {
#include "cambi/cambi_reciprocal_table.inc"
};

// --- luminance (libvmaf's luminance_tools.c) ------------------------------------

double bt1886_eotf(double v) {
  // libvmaf's constants and expressions, so that the compiler folds them alike.
  constexpr double kGamma = 2.4, kLw = 300.0, kLb = 0.01;
  const double a = std::pow(std::pow(kLw, 1.0 / kGamma) - std::pow(kLb, 1.0 / kGamma), kGamma);
  const double b = std::pow(kLb, 1.0 / kGamma) /
                   (std::pow(kLw, 1.0 / kGamma) - std::pow(kLb, 1.0 / kGamma));
  const double shifted = v + b;
  return a * std::pow(shifted > 0 ? shifted : 0.0, kGamma);
}

double pq_eotf(double v) {
  constexpr double m_1 = 0.1593017578125, m_2 = 78.84375;
  constexpr double c_1 = 0.8359375, c_2 = 18.8515625, c_3 = 18.6875;
  const double num = std::pow(v, 1.0 / m_2) - c_1;
  const double num_clipped = num > 0 ? num : 0.0;
  const double den = c_2 - c_3 * std::pow(v, 1.0 / m_2);
  return 10000 * std::pow(num_clipped / den, 1.0 / m_1);
}

double luminance(int sample, Eotf eotf) {
  const int clipped = std::clamp(sample, kLumaFoot, kLumaHead);
  const double normalized =
      static_cast<double>(clipped - kLumaFoot) / (kLumaHead - kLumaFoot);
  return eotf == Eotf::kPq ? pq_eotf(normalized) : bt1886_eotf(normalized);
}

namespace {

// libvmaf's tvi_condition: the step from sample to sample + diff is visible.
bool step_visible(int sample, int diff, double threshold, Eotf eotf) {
  const double mean = luminance(sample, eotf);
  const double stepped = luminance(sample + diff, eotf);
  return stepped - mean > threshold * mean;
}

enum class Bisect { kTooSmall, kCorrect, kTooBig };

Bisect bisect_at(int sample, int diff, double threshold, Eotf eotf) {
  if (!step_visible(sample, diff, threshold, eotf)) return Bisect::kTooBig;
  if (step_visible(sample + 1, diff, threshold, eotf)) return Bisect::kTooSmall;
  return Bisect::kCorrect;
}

}  // namespace

int tvi_for_diff(int diff, double tvi_threshold, Eotf eotf) {
  constexpr int kMaxSample = (1 << 10) - 1;
  int foot = kLumaFoot;
  int head = kLumaHead - diff - 1;
  Bisect at = bisect_at(foot, diff, tvi_threshold, eotf);
  if (at == Bisect::kTooBig) return 0;
  if (at == Bisect::kCorrect) return foot;
  at = bisect_at(head, diff, tvi_threshold, eotf);
  if (at == Bisect::kTooSmall) return kMaxSample;
  if (at == Bisect::kCorrect) return head;
  // foot is too small and head too big: libvmaf's bisection, which always
  // keeps them at least two apart and so ends.
  for (int step = 0; step < 64; ++step) {
    const int mid = foot + (head - foot) / 2;
    at = bisect_at(mid, diff, tvi_threshold, eotf);
    if (at == Bisect::kCorrect) return mid;
    (at == Bisect::kTooBig ? head : foot) = mid;
  }
  throw Error("cambi: the visibility threshold's bisection did not end (cannot happen)");
}

int vlt_luma(double vis_lum_threshold, Eotf eotf) {
  // libvmaf counts up from the foot; the head's luminance (300 or 10000) is at
  // least the largest threshold allowed, so the count ends there.
  int sample = kLumaFoot;
  while (sample < kLumaHead && luminance(sample, eotf) < vis_lum_threshold) ++sample;
  return sample == kLumaFoot ? 0 : sample;
}

unsigned adjusted_window(unsigned window_size, unsigned width, unsigned height, bool speedup) {
  // libvmaf: ((ws * (w + h)) / 375) >> 4 in unsigned arithmetic, kept in a uint16.
  auto window = static_cast<std::uint16_t>(((window_size * (width + height)) / 375) >> 4);
  if (speedup) window = static_cast<std::uint16_t>((window + 1) >> 1);
  return window | 1u;
}

unsigned mask_index(unsigned width, unsigned height) {
  const std::uint32_t shifted = (width >> 6) * (height >> 6);
  int ceil_log2 = 0;
  if (shifted != 0)
    for (std::uint32_t rest = shifted - 1; rest > 0; rest >>= 1) ++ceil_log2;
  return static_cast<std::uint16_t>(
      (kMaskFilterSize * kMaskFilterSize + 3 * (ceil_log2 - 11) - 1) >> 1);
}

unsigned pixels_in_window(unsigned window) {
  const auto odd = static_cast<std::uint16_t>(2 * (window >> 1) + 1);
  return static_cast<std::uint16_t>(odd * odd);
}

std::vector<unsigned> nearest_map(unsigned in_size, unsigned out_size) {
  // libvmaf's decimate_generic_*: float ratio and start, the position stepped
  // in float, rounded through (int)(x + 0.5) in double.
  const float ratio = static_cast<float>(in_size) / static_cast<float>(out_size);
  const float start = static_cast<float>(ratio / 2 - 0.5);
  std::vector<unsigned> map(out_size);
  float x = start;
  for (unsigned j = 0; j < out_size; ++j) {
    map[j] = static_cast<unsigned>(static_cast<int>(x + 0.5));
    x += ratio;
  }
  return map;
}

// --- contrast tables -------------------------------------------------------------

ContrastRowTables ContrastTables::row_tables() const {
  ContrastRowTables t;
  t.num_diffs = num_diffs;
  t.band_base = band_base;
  t.weights = weights.data();
  t.first_diff = first_diff.data();
  t.reciprocal = kReciprocal.data();
  return t;
}

ContrastTables make_contrast_tables(int max_log_contrast, double tvi_threshold,
                                    double vis_lum_threshold, Eotf eotf) {
  ContrastTables t;
  t.num_diffs = 1 << max_log_contrast;
  const int nd = t.num_diffs;
  for (int d = 0; d < nd; ++d) {
    t.weights[d] = kContrastWeights[d];
    t.tvi[d] = static_cast<std::uint16_t>(tvi_for_diff(d + 1, tvi_threshold, eotf) + nd);
    // c_values_row starts at the first diff that applies and takes every later
    // one, and reads no count above the band: both need thresholds that grow
    // with the diff, as they do for both EOTFs (a larger step stays visible up
    // to a brighter sample).
    if (d > 0 && t.tvi[d] < t.tvi[d - 1])
      throw Error("cambi: visibility thresholds that shrink with the diff (tvi_threshold " +
                  format_option_double(tvi_threshold) + "); not supported");
  }
  t.vlt = static_cast<std::uint16_t>(vlt_luma(vis_lum_threshold, eotf));
  // libvmaf's band of sample values worth counting: the others only feed
  // c-values that are zero anyway.
  t.band_base = std::max(0, int{t.vlt} - 3 * nd + 1);
  t.band_size = int{t.tvi[nd - 1]} + 1 - t.band_base;
  // libvmaf keeps the band's size in a uint16: below zero it wraps, and
  // libvmaf writes outside its histograms (it crashes).
  if (t.band_size < 0)
    throw Error("cambi: cambi_vis_lum_threshold " + format_option_double(vis_lum_threshold) +
                " is above every visibility threshold (its sample " + std::to_string(t.vlt) +
                " exceeds " + std::to_string(int{t.tvi[nd - 1]} + 3 * nd) +
                "): libvmaf crashes there; lower it or raise tvi_threshold or max_log_contrast");
  for (unsigned v = 0; v <= kMaxWorkingSample; ++v) {
    // libvmaf's conditions on value = v + num_diffs:
    // value <= tvi[d] and value + d + 1 > vlt_luma.
    const int value = static_cast<int>(v) + nd;
    const int row = static_cast<int>(v) - t.band_base;
    int first = nd;
    if (row >= 0 && row < t.band_size)
      for (int d = 0; d < nd; ++d)
        if (value <= t.tvi[d] && value + d + 1 > t.vlt) {
          first = d;
          break;
        }
    t.first_diff[v] = static_cast<std::uint8_t>(first);
  }
  return t;
}

// --- setup ----------------------------------------------------------------------

namespace {

Eotf parse_eotf(const std::string& name) {
  if (name == "bt1886") return Eotf::kBt1886;
  if (name == "pq") return Eotf::kPq;
  throw Error("cambi: unknown EOTF '" + name + "' (libvmaf takes bt1886 or pq)");
}

// libvmaf's picture stride (vmaf_picture_alloc): samples rounded up to 32.
unsigned libvmaf_stride(unsigned width) { return (width + 31) & ~31u; }

// Every scale must be at least half a window wide and high: libvmaf's first
// pass over a scale counts the columns and rows [0, pad) whatever the scale's
// size, reading samples outside it that would change the c-values. (A scale
// exactly pad rows high also makes libvmaf compute c-values of rows below the
// picture, outside its buffers, but those are not pooled: the scores hold.)
void check_scales(const PassSetup& pass, bool speedup, const char* what) {
  const unsigned pad = pass.window >> 1;
  unsigned w = pass.width, h = pass.height;
  for (int scale = 0; scale < kNumScales; ++scale) {
    if (scale > 0 || speedup) w = (w + 1) >> 1, h = (h + 1) >> 1;
    if (w < pad || h < pad)
      throw Error(std::string("cambi: the ") + what + " size " +
                  size_text(pass.width, pass.height) + " is too thin for its window of " +
                  std::to_string(pass.window) + ": at scale " + std::to_string(scale) + " it is " +
                  size_text(w, h) + ", less than the window's half (" + std::to_string(pad) +
                  ") across, where libvmaf reads outside the picture");
  }
}

void check_map(unsigned in_size, unsigned out_size, const char* axis) {
  if (in_size == out_size) return;
  const std::vector<unsigned> map = nearest_map(in_size, out_size);
  if (map.back() >= in_size)
    throw Error(std::string("cambi: scaling ") + std::to_string(in_size) + " " + axis + " to " +
                std::to_string(out_size) + " reads sample " + std::to_string(map.back()) +
                " in libvmaf (its float steps overshoot), outside the picture");
}

}  // namespace

CambiSetup resolve_setup(const CambiParams& params, const PictureFormat& format) {
  check_supported_bpc("cambi", format.bpc);
  if (format.width == 0 || format.height == 0) throw Error("cambi: empty picture");
  const unsigned w = format.width, h = format.height;
  CambiSetup s;
  s.format = format;
  s.full_ref = params.full_ref;
  s.max_val = params.max_val;
  // libvmaf's init, in its order.
  s.enc_bitdepth = params.enc_bitdepth == 0 ? format.bpc : static_cast<unsigned>(params.enc_bitdepth);
  unsigned enc_w = static_cast<unsigned>(params.enc_width);
  unsigned enc_h = static_cast<unsigned>(params.enc_height);
  if (enc_w == 0 || enc_h == 0) enc_w = w, enc_h = h;
  unsigned src_w = static_cast<unsigned>(params.src_width);
  unsigned src_h = static_cast<unsigned>(params.src_height);
  if (src_w == 0 || src_h == 0) src_w = w, src_h = h;
  // An encoding larger than the picture was upscaled: it is scored as it is.
  if (enc_h > h || enc_w > w) enc_w = w, enc_h = h;
  if (enc_w < kMinSide && enc_h < kMinSide)
    throw Error("cambi: picture " + size_text(enc_w, enc_h) + " is smaller than libvmaf's minimum: " +
                "its width or its height must be at least " + std::to_string(kMinSide) +
                (params.enc_width || params.enc_height ? " (the encoding size enc_width x enc_height)"
                                                       : ""));
  if (src_w < kMinSide && src_h < kMinSide)
    throw Error("cambi: source size " + size_text(src_w, src_h) +
                " is smaller than libvmaf's minimum: its width or its height must be at least " +
                std::to_string(kMinSide));
  if ((src_w > enc_w && src_h < enc_h) || (src_w < enc_w && src_h > enc_h))
    throw Error("cambi: source size " + size_text(src_w, src_h) + " and encoding size " +
                size_text(enc_w, enc_h) +
                " must not be larger in one dimension and smaller in the other (libvmaf refuses it)");
  const int enc_pixels = static_cast<int>(enc_w * enc_h);
  switch (params.high_res_speedup) {
    case 1080: s.high_res_speedup = enc_pixels >= 1920 * 1080; break;
    case 1440: s.high_res_speedup = enc_pixels >= 2560 * 1440; break;
    case 2160: s.high_res_speedup = enc_pixels >= 3840 * 2160; break;
    default: s.high_res_speedup = false; break;
  }
  const Eotf eotf = parse_eotf(params.cambi_eotf != "bt1886" ? params.cambi_eotf : params.eotf);
  s.contrast = make_contrast_tables(params.max_log_contrast, params.tvi_threshold,
                                    params.vis_lum_threshold, eotf);
  const auto window = static_cast<unsigned>(params.window_size);
  s.enc = {enc_w, enc_h, adjusted_window(window, enc_w, enc_h, s.high_res_speedup)};
  s.src = {src_w, src_h, adjusted_window(window, src_w, src_h, s.high_res_speedup)};
  const unsigned largest_window = std::max(s.enc.window, s.src.window);
  if (largest_window * largest_window >= static_cast<unsigned>(kReciprocalSize))
    throw Error("cambi: window " + std::to_string(largest_window) + " (window_size " +
                std::to_string(window) + " scaled to " + size_text(enc_w, enc_h) +
                (s.src.window > s.enc.window ? " or the source size " + size_text(src_w, src_h) : "") +
                ") is too large for libvmaf's reciprocal table (at most 65); lower window_size");
  s.topk = params.topk != 0.6 ? params.topk : params.cambi_topk;

  // Where libvmaf computes from outside its buffers, refused (docs/features/cambi.md).
  check_scales(s.enc, s.high_res_speedup, "encoding");
  check_map(w, enc_w, "columns");
  check_map(h, enc_h, "rows");
  if (s.full_ref) {
    check_scales(s.src, s.high_res_speedup, "source");
    check_map(w, src_w, "columns");
    check_map(h, src_h, "rows");
    // libvmaf copies a 10-bit distorted picture of the encoding size with
    // memcpy, with the picture's stride, into buffers as wide as the source
    // size: with a wider source the rows land shifted.
    if (format.bpc == 10 && enc_w == w && enc_h == h &&
        libvmaf_stride(std::max(src_w, enc_w)) != libvmaf_stride(w))
      throw Error("cambi: full_ref with a source width of " + std::to_string(src_w) +
                  " at 10 bits, wider than the picture (" + std::to_string(w) +
                  "): libvmaf copies the distorted rows with the wrong stride there");
  }
  return s;
}

// --- finishing and pooling ---------------------------------------------------------

double weighted_score(const ScaleScores& scores, unsigned window) {
  double score = 0.0;
  for (int scale = 0; scale < kNumScales; ++scale) score += scores[scale] * kScaleWeights[scale];
  return score / pixels_in_window(window);
}

double spatial_pooling(float* values, unsigned n, double topk, const CambiDsp& dsp) {
  const int count = static_cast<int>(n);
  const int k = std::clamp(static_cast<int>(topk * count), 1, count);
  dsp.quick_select(values, count, k);
  return dsp.ordered_sum(values, k) / k;
}

// --- the per-picture pipeline ---------------------------------------------------------

CambiPicture::CambiPicture(const CambiSetup& setup, const CambiDsp& dsp)
    : setup_(&setup), dsp_(&dsp), row_tables_(setup.contrast.row_tables()) {
  unsigned width = setup.enc.width, height = setup.enc.height;
  if (setup.full_ref) width = std::max(width, setup.src.width), height = std::max(height, setup.src.height);
  stride_ = width;
  const std::size_t samples = std::size_t{width} * height + 2 * kReadAhead;
  image_.assign(samples, 0);
  mask_.assign(samples, 0);
  // The c-values and the histograms are of the scales, the first of which is
  // half the pass's size with the high-resolution speed-up: sized for that
  // (a quarter of the pages to fault in at 1080p; compute_c_values grows them
  // for larger calls).
  unsigned scale0_width = 0;
  std::size_t scale0_samples = 0;
  for (const PassSetup* pass : {&setup.enc, &setup.src}) {
    if (pass == &setup.src && !setup.full_ref) continue;
    unsigned w = pass->width, h = pass->height;
    if (setup.high_res_speedup) w = (w + 1) >> 1, h = (h + 1) >> 1;
    scale0_width = std::max(scale0_width, w);
    scale0_samples = std::max(scale0_samples, std::size_t{w} * h);
  }
  c_values_.assign(scale0_samples + 2 * kReadAhead, 0.0f);
  const ContrastTables& t = setup.contrast;
  if (t.band_size > 0)
    histogram_.assign(std::size_t(t.band_size + 2 * t.num_diffs) * scale0_width + 2 * kReadAhead, 0);
  rows_.assign(3 * (std::size_t{width} + kReadAhead), 0);
  derivatives_.assign(8 * (std::size_t{width} + kReadAhead), 0);
  counts_.assign(std::size_t{width} + 6 + 2 * kReadAhead, 0);
}

void CambiPicture::preprocess(const PlaneView& luma, const PassSetup& pass) {
  const unsigned bpc = setup_->format.bpc;
  const unsigned in_w = luma.width, in_h = luma.height, w = pass.width, h = pass.height;
  const bool anti_dither = setup_->enc_bitdepth < 10;
  const unsigned shift = bpc > 10 ? bpc - 10 : 0;
  // libvmaf refuses 10- and 12-bit pictures holding larger samples.
  const unsigned limit = bpc == 8 || bpc == 16 ? 0xFFFFu : (1u << bpc) - 1;
  auto check = [&](unsigned largest) {
    if (largest > limit)
      throw Error("cambi: a " + std::to_string(bpc) + "-bit picture holds the sample " +
                  std::to_string(largest) + ", above " + std::to_string(limit) +
                  "; libvmaf refuses such input");
  };
  std::uint16_t* out = image_.data();
  if (in_w == w && in_h == h) {
    for (unsigned i = 0; i < h; ++i) {
      std::uint16_t* dst = out + std::size_t{i} * stride_;
      const bool last = i + 1 == h;
      const unsigned largest =
          bpc == 8 ? dsp_->preprocess_8(luma.row<std::uint8_t>(i),
                                        last ? nullptr : luma.row<std::uint8_t>(i + 1), w,
                                        anti_dither, dst)
                   : dsp_->preprocess_16(luma.row<std::uint16_t>(i),
                                         last ? nullptr : luma.row<std::uint16_t>(i + 1), w, shift,
                                         anti_dither, dst);
      check(largest);
    }
    return;
  }
  // Scaled: libvmaf validates the whole picture, then picks samples by its maps.
  for (unsigned y = 0; y < in_h; ++y) {
    unsigned largest = 0;
    if (bpc == 8) {
      const std::uint8_t* row = luma.row<std::uint8_t>(y);
      for (unsigned x = 0; x < in_w; ++x) largest = std::max<unsigned>(largest, row[x]);
    } else {
      const std::uint16_t* row = luma.row<std::uint16_t>(y);
      for (unsigned x = 0; x < in_w; ++x) largest = std::max<unsigned>(largest, row[x]);
    }
    check(largest);
  }
  const std::vector<unsigned> map_x = nearest_map(in_w, w), map_y = nearest_map(in_h, h);
  const std::size_t row_size = stride_ + kReadAhead;
  auto convert = [&](unsigned i, std::uint16_t* dst) {
    if (bpc == 8) {
      const std::uint8_t* row = luma.row<std::uint8_t>(map_y[i]);
      for (unsigned j = 0; j < w; ++j) dst[j] = static_cast<std::uint16_t>(row[map_x[j]] << 2);
    } else {
      const std::uint16_t* row = luma.row<std::uint16_t>(map_y[i]);
      for (unsigned j = 0; j < w; ++j) dst[j] = scalar::to_10_bits(row[map_x[j]], shift);
    }
  };
  if (!anti_dither) {
    for (unsigned i = 0; i < h; ++i) convert(i, out + std::size_t{i} * stride_);
    return;
  }
  std::uint16_t* current = rows_.data();
  std::uint16_t* next = rows_.data() + row_size;
  convert(0, current);
  for (unsigned i = 0; i < h; ++i) {
    const bool last = i + 1 == h;
    if (!last) convert(i + 1, next);
    dsp_->anti_dither(current, last ? nullptr : next, w, out + std::size_t{i} * stride_);
    std::swap(current, next);
  }
}

void CambiPicture::spatial_mask(unsigned w, unsigned h) {
  const unsigned index = mask_index(w, h);
  const std::size_t row_size = stride_ + kReadAhead;
  std::fill(counts_.begin(), counts_.end(), 0);
  std::uint8_t* counts = counts_.data() + 3;  // 3 zeros before, zeros after
  auto derivative_row = [&](int r) { return derivatives_.data() + (r % 8) * row_size; };
  const int height = static_cast<int>(h);
  int lo = 0, hi = -1;  // the derivative rows counted
  for (int i = 0; i < height; ++i) {
    const int lo_target = std::max(0, i - kMaskPad), hi_target = std::min(height - 1, i + kMaskPad);
    while (lo < lo_target || hi < hi_target) {
      const std::uint8_t* leaving = nullptr;
      const std::uint8_t* entering = nullptr;
      if (lo < lo_target) leaving = derivative_row(lo++);
      if (hi < hi_target) {
        ++hi;
        std::uint8_t* row = derivative_row(hi);  // 8 slots: never the leaving row's
        const std::uint16_t* image = image_.data() + std::size_t(hi) * stride_;
        dsp_->derivative(image, hi + 1 < height ? image + stride_ : nullptr, w, row);
        entering = row;
      }
      dsp_->update_counts(counts, entering, leaving, w);
    }
    dsp_->mask_row(counts, w, index, mask_.data() + std::size_t(i) * stride_);
  }
}

void CambiPicture::decimate(unsigned w, unsigned h) {
  for (unsigned i = 0; i < h; ++i) {
    const std::size_t from = std::size_t{2 * i} * stride_, to = std::size_t{i} * stride_;
    dsp_->decimate_16(image_.data() + from, w, image_.data() + to);
    dsp_->decimate_8(mask_.data() + from, w, mask_.data() + to);
  }
}

void CambiPicture::mode_filter(unsigned w, unsigned h) {
  // The horizontal mode of each row, then the vertical mode of three of them
  // into the row in the middle; the first and last rows stay as they are.
  const std::size_t row_size = stride_ + kReadAhead;
  auto ring = [&](unsigned i) { return rows_.data() + (i % 3) * row_size; };
  for (unsigned i = 0; i < h; ++i) {
    dsp_->mode_horizontal(image_.data() + std::size_t{i} * stride_, w, ring(i));
    if (i > 1)
      dsp_->mode_vertical(ring(0), ring(1), ring(2), w, image_.data() + std::size_t{i - 1} * stride_);
  }
}

void CambiPicture::compute_c_values(unsigned w, unsigned h, unsigned window) {
  // (grown with zeros: the slack after the values stays zero)
  if (c_values_.size() < std::size_t{w} * h + 2 * kReadAhead)
    c_values_.resize(std::size_t{w} * h + 2 * kReadAhead, 0.0f);
  float* out = c_values();
  const ContrastTables& t = setup_->contrast;
  if (t.band_size <= 0) {  // no sample is counted: every c-value is 0
    std::fill(out, out + std::size_t{w} * h, 0.0f);
    return;
  }
  const int pad = static_cast<int>(window >> 1), height = static_cast<int>(h);
  // Rows -num_diffs .. band_size + num_diffs - 1 of w counts (the outer ones
  // stay zero) and the slack the SIMD twins may touch.
  const std::size_t used = std::size_t(t.band_size + 2 * t.num_diffs) * w + 2 * kReadAhead;
  if (histogram_.size() < used) histogram_.resize(used);
  std::fill(histogram_.begin(), histogram_.begin() + static_cast<std::ptrdiff_t>(used), 0);
  const HistogramView histogram{histogram_.data() + std::size_t(t.num_diffs) * w,
                                static_cast<std::ptrdiff_t>(w), t.band_size};
  auto image_row = [&](int r) { return image_.data() + std::size_t(r) * stride_; };
  auto mask_row = [&](int r) { return mask_.data() + std::size_t(r) * stride_; };
  int lo = 0, hi = -1;  // the rows in the window
  for (int i = 0; i < height; ++i) {
    const int lo_target = std::max(0, i - pad), hi_target = std::min(height - 1, i + pad);
    while (lo < lo_target || hi < hi_target) {
      const bool leave = lo < lo_target, enter = hi < hi_target;
      dsp_->slide(histogram, w, static_cast<unsigned>(pad), t.band_base,
                  leave ? image_row(lo) : nullptr, leave ? mask_row(lo) : nullptr,
                  enter ? image_row(hi + 1) : nullptr, enter ? mask_row(hi + 1) : nullptr);
      lo += leave;
      hi += enter;
    }
    dsp_->c_values_row(histogram, row_tables_, image_row(i), mask_row(i), w,
                       out + std::size_t(i) * w);
  }
}

ScaleScores CambiPicture::score(const PlaneView& luma, const PassSetup& pass) {
  preprocess(luma, pass);
  spatial_mask(pass.width, pass.height);
  ScaleScores scores{};
  unsigned w = pass.width, h = pass.height;
  for (int scale = 0; scale < kNumScales; ++scale) {
    if (scale > 0 || setup_->high_res_speedup) {
      w = (w + 1) >> 1;
      h = (h + 1) >> 1;
      decimate(w, h);
    }
    mode_filter(w, h);
    compute_c_values(w, h, pass.window);
    scores[scale] = spatial_pooling(c_values(), w * h, setup_->topk, *dsp_);
  }
  return scores;
}

}  // namespace vmafexact::cambi
