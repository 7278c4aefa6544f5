#include "vif/vif.h"

#include <algorithm>
#include <string>

#include "common/error.h"
#include "common/cpu.h"
#include "vif/vif_dsp.h"
#include "vif/vif_pixel.h"

namespace vmafexact::vif {

VifKernel::VifKernel(unsigned width, unsigned height, unsigned bpc, const VifParams& params)
    : VifKernel(width, height, bpc, params, vif_dsp(cpu::flags())) {}

VifKernel::VifKernel(unsigned width, unsigned height, unsigned bpc, const VifParams& params,
                     const VifDsp& dsp)
    : width_(width), height_(height), bpc_(bpc), params_(params), dsp_(&dsp),
      log2_(log2_table()) {
  if (!is_supported_bpc(bpc))
    throw Error("vif: unsupported bit depth " + std::to_string(bpc) +
                " (libvmaf takes 8, 10, 12 or 16)");
  if (width < kMinSide || height < kMinSide)
    throw Error("vif: pictures must be at least " + std::to_string(kMinSide) + "x" +
                std::to_string(kMinSide) +
                " (its fourth scale is 1/8 of each side: libvmaf scores it 0/0 when fewer "
                "than 8 columns and crashes when fewer than 8 rows); this one is " +
                std::to_string(width) + "x" + std::to_string(height));
  if (!(params.enhn_gain_limit >= kMinEnhnGainLimit && params.enhn_gain_limit <= kDefaultEnhnGainLimit))
    throw Error("vif: vif_enhn_gain_limit must be in [1, 100]");

  // Scale 0 is read in place; its rows -8 .. height+7 map to picture rows.
  scale0_row_index_.resize(height + 2 * kPadRows);
  int* index = scale0_row_index_.data() + kPadRows;
  for (unsigned r = 0; r < height; ++r) index[r] = static_cast<int>(r);
  pad_mirror(index, height, vif_filter(0).half());

  // Scales 1..3 live in one picture-sized buffer each, as in libvmaf.
  for (Image* image : {&ref_image_, &dis_image_}) {
    image->stride = width / 2;
    image->samples.assign(static_cast<std::size_t>(image->stride) * (height / 2 + 2 * kPadRows), 0);
  }
  ref_decimated_.assign(static_cast<std::size_t>(width / 2) * (height / 2), 0);
  dis_decimated_.assign(ref_decimated_.size(), 0);
  for (auto* buffer : {&mu1_, &mu2_, &ref_sq_, &dis_sq_, &ref_dis_, &ref_convol_, &dis_convol_})
    buffer->assign(width + 2 * kPadColumns, 0);
}

// libvmaf's vif_statistic_8 / vif_statistic_16 at one scale: a vertical then a
// horizontal pass of the scale's filter over the picture, its square and the
// product of both pictures, and the per-pixel terms of accumulate().
template <typename Sample>
ScaleSums VifKernel::statistic(const Rows<Sample>& ref, const Rows<Sample>& dis, unsigned w,
                               unsigned h, unsigned scale) {
  const Filter& filter = vif_filter(scale);
  const unsigned fwidth = filter.width;
  const int half = static_cast<int>(filter.half());

  // Vertical rounding: at scale 0 the mean keeps 16 bits whatever the depth and
  // the squares keep the units of 8-bit squares; above scale 0 the samples are
  // already 16-bit and both drop 16 bits.
  std::uint32_t round_mu = 32768, round_sq = 32768;
  unsigned shift_mu = 16, shift_sq = 16;
  if (scale == 0) {
    shift_mu = bpc_;
    round_mu = 1u << (bpc_ - 1);
    shift_sq = 2 * (bpc_ - 8);
    round_sq = shift_sq == 0 ? 0 : 1u << (shift_sq - 1);
  }

  VerticalRounding rounding;
  rounding.round_mu = round_mu;
  rounding.shift_mu = shift_mu;
  rounding.round_sq = round_sq;
  rounding.shift_sq = shift_sq;
  const StatRows rows{mu1_.data() + kPadColumns, mu2_.data() + kPadColumns,
                      ref_sq_.data() + kPadColumns, dis_sq_.data() + kPadColumns,
                      ref_dis_.data() + kPadColumns};
  const Sample* ref_window[kMaxFilterWidth];
  const Sample* dis_window[kMaxFilterWidth];

  ScaleSums sums;
  for (unsigned i = 0; i < h; ++i) {
    for (unsigned k = 0; k < fwidth; ++k) {
      ref_window[k] = ref[i + k - half + kPadRows];
      dis_window[k] = dis[i + k - half + kPadRows];
    }
    if constexpr (sizeof(Sample) == 1)
      dsp_->stat_vertical_8(ref_window, dis_window, filter, rounding, w, rows);
    else
      dsp_->stat_vertical_16(ref_window, dis_window, filter, rounding, w, rows);
    for (std::uint32_t* row : {rows.mu1, rows.mu2, rows.xx, rows.yy, rows.xy})
      pad_mirror(row, w, filter.half());
    dsp_->stat_horizontal(rows, filter, w, log2_.data(), params_.enhn_gain_limit, sums);
  }
  return sums;
}

// libvmaf's subsample_rd_8 / subsample_rd_16: the picture at `scale` low-passed
// with the next scale's filter and decimated by two (even rows and columns),
// written over the top-left of the scale buffers, whose rows are then mirrored.
// Only the samples the decimation keeps are computed.
template <typename Sample>
void VifKernel::subsample(const Rows<Sample>& ref, const Rows<Sample>& dis, unsigned w, unsigned h,
                          unsigned scale) {
  const Filter& filter = vif_filter(scale + 1);
  const unsigned fwidth = filter.width;
  const int half = static_cast<int>(filter.half());
  const std::uint32_t round_v = scale == 0 ? 1u << (bpc_ - 1) : 32768;
  const unsigned shift_v = scale == 0 ? bpc_ : 16;

  std::uint32_t* ref_convol = ref_convol_.data() + kPadColumns;
  std::uint32_t* dis_convol = dis_convol_.data() + kPadColumns;
  const Sample* ref_window[kMaxFilterWidth];
  const Sample* dis_window[kMaxFilterWidth];
  const unsigned out_w = w / 2, out_h = h / 2;

  for (unsigned oi = 0; oi < out_h; ++oi) {
    const unsigned i = 2 * oi;
    for (unsigned k = 0; k < fwidth; ++k) {
      ref_window[k] = ref[i + k - half + kPadRows];
      dis_window[k] = dis[i + k - half + kPadRows];
    }
    if constexpr (sizeof(Sample) == 1)
      dsp_->lowpass_vertical_8(ref_window, dis_window, filter, round_v, shift_v, w, ref_convol,
                               dis_convol);
    else
      dsp_->lowpass_vertical_16(ref_window, dis_window, filter, round_v, shift_v, w, ref_convol,
                                dis_convol);
    pad_mirror(ref_convol, w, filter.half());
    pad_mirror(dis_convol, w, filter.half());
    dsp_->lowpass_horizontal(ref_convol, dis_convol, filter, out_w,
                             ref_decimated_.data() + oi * out_w, dis_decimated_.data() + oi * out_w);
  }

  // Written in place like libvmaf's decimate_and_pad: rows and columns beyond
  // the new size keep what the previous scale left there.
  for (auto [image, decimated] : {std::pair{&ref_image_, &ref_decimated_}, std::pair{&dis_image_, &dis_decimated_}}) {
    for (unsigned oi = 0; oi < out_h; ++oi)
      std::copy_n(decimated->data() + oi * out_w, out_w, image->row(static_cast<int>(oi)));
    for (int f = 1; f <= static_cast<int>(vif_filter(scale).half()); ++f) {
      std::copy_n(image->row(f), image->stride, image->row(-f));
      std::copy_n(image->row(static_cast<int>(out_h) - 1 - f), image->stride,
                  image->row(static_cast<int>(out_h) - 1 + f));
    }
  }
}

template <typename Sample>
void VifKernel::scale0_rows(const PlaneView& plane, Rows<Sample>& rows) const {
  rows.resize(scale0_row_index_.size());
  for (std::size_t r = 0; r < rows.size(); ++r)
    rows[r] = plane.row<Sample>(static_cast<unsigned>(scale0_row_index_[r]));
}

void VifKernel::image_rows(Image& image, unsigned h, Rows<std::uint16_t>& rows) const {
  rows.resize(h + 2 * kPadRows);
  for (std::size_t r = 0; r < rows.size(); ++r) rows[r] = image.row(static_cast<int>(r) - kPadRows);
}

template <typename Sample>
FrameSums VifKernel::compute_from(const PlaneView& ref, const PlaneView& dist) {
  FrameSums sums{};
  Rows<Sample> ref0, dis0;
  scale0_rows(ref, ref0);
  scale0_rows(dist, dis0);
  if (!params_.skip_scale0) sums[0] = statistic(ref0, dis0, width_, height_, 0);
  subsample(ref0, dis0, width_, height_, 0);

  unsigned w = width_ / 2, h = height_ / 2;
  for (unsigned scale = 1; scale < kScaleCount; ++scale) {
    if (scale > 1) {
      subsample(ref_rows_, dis_rows_, w, h, scale - 1);
      w /= 2;
      h /= 2;
    }
    image_rows(ref_image_, h, ref_rows_);
    image_rows(dis_image_, h, dis_rows_);
    sums[scale] = statistic(ref_rows_, dis_rows_, w, h, scale);
  }
  return sums;
}

FrameSums VifKernel::compute(const PlaneView& ref, const PlaneView& dist) {
  if (ref.width != width_ || ref.height != height_ || dist.width != width_ ||
      dist.height != height_)
    throw Error("vif: picture size changed from " + std::to_string(width_) + "x" +
                std::to_string(height_));
  return bpc_ == 8 ? compute_from<std::uint8_t>(ref, dist)
                   : compute_from<std::uint16_t>(ref, dist);
}

ScaleRatio finish_scale(const ScaleSums& sums) {
  ScaleRatio ratio;
  ratio.num = static_cast<float>(
      sums.num_log / 2048.0 +
      (sums.den_non_log - (sums.num_non_log / 16384.0) / 65025.0));
  ratio.den = static_cast<float>(sums.den_log / 2048.0 + sums.den_non_log);
  return ratio;
}

FrameScores finish_frame(const FrameSums& sums, bool skip_scale0) {
  FrameScores scores;
  std::array<ScaleRatio, kScaleCount> ratio;
  for (unsigned s = 0; s < kScaleCount; ++s) ratio[s] = finish_scale(sums[s]);

  for (unsigned s = 0; s < kScaleCount; ++s) {
    const float score = ratio[s].num / ratio[s].den;  // a float division, as in libvmaf
    scores.scale[s] = score;
    scores.num_scale[s] = ratio[s].num;
    scores.den_scale[s] = ratio[s].den;
  }
  const unsigned first = skip_scale0 ? 1 : 0;
  double num = ratio[first].num, den = ratio[first].den;
  for (unsigned s = first + 1; s < kScaleCount; ++s) {
    num += static_cast<double>(ratio[s].num);
    den += static_cast<double>(ratio[s].den);
  }
  scores.num = num;
  scores.den = den;
  scores.vif = den == 0.0 ? 1.0 : num / den;
  if (skip_scale0) {
    scores.scale[0] = 0.0;
    scores.num_scale[0] = 0.0;
    scores.den_scale[0] = -1.0;
  }
  return scores;
}

}  // namespace vmafexact::vif
