#include "vif/vif.h"

#include <algorithm>
#include <string>

#include "common/cpu.h"
#include "common/error.h"
#include "vif/vif_dsp.h"
#include "vif/vif_pixel.h"

namespace vmafexact::vif {

void VifCpuStage::check_format(unsigned width, unsigned height, unsigned bpc) {
  check_supported_bpc("vif", bpc);
  if (width < kMinSide || height < kMinSide)
    throw Error("vif: pictures must be at least " + std::to_string(kMinSide) + "x" +
                std::to_string(kMinSide) +
                " (its fourth scale is 1/8 of each side: libvmaf scores it 0/0 when fewer "
                "than 8 columns and crashes when fewer than 8 rows); this one is " +
                std::to_string(width) + "x" + std::to_string(height));
}

VifCpuStage::VifCpuStage(unsigned width, unsigned height, unsigned bpc, const VifParams& params)
    : VifCpuStage(width, height, bpc, params, vif_dsp(cpu::flags())) {}

VifCpuStage::VifCpuStage(unsigned width, unsigned height, unsigned bpc, const VifParams& params,
                         const VifDsp& dsp)
    : width_(width), height_(height), bpc_(bpc), params_(params), dsp_(&dsp), log2_(log2_table()) {
  check_format(width, height, bpc);
  if (!(params.enhn_gain_limit >= kMinEnhnGainLimit &&
        params.enhn_gain_limit <= kDefaultEnhnGainLimit))
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
  // Scales 1..2 decimate through these (scale 0 writes its images directly).
  ref_decimated_.assign(static_cast<std::size_t>(width / 4) * (height / 4), 0);
  dis_decimated_.assign(ref_decimated_.size(), 0);
  scratch_.emplace_back(width);
}

VifCpuStage::RowScratch::RowScratch(unsigned width) {
  static_assert(std::tuple_size_v<StatSet> == StatRows::kCount);
  for (StatSet& set : stat)
    for (auto& buffer : set) buffer.assign(width + 2 * kPadColumns + 1, 0);  // StatRows
  for (auto* buffer : {&ref_convol, &dis_convol}) buffer->assign(2 * (width + 2 * kPadColumns), 0);
}

std::int16_t* VifCpuStage::RowScratch::convol(std::vector<std::int16_t>& rows, unsigned m) {
  return rows.data() + m * (rows.size() / 2) + kPadColumns;
}

StatRows VifCpuStage::RowScratch::rows(unsigned set) {
  auto row = [&](unsigned r) { return stat[set][r].data() + kPadColumns; };
  return StatRows{row(0), row(1), row(2), row(3), row(4), row(5), row(6), row(7)};
}

// A row one sample wide is the one case where pad_mirror() reads columns it has
// not written (1 .. half, vif_pixel.h): libvmaf reads what its single set of
// buffers kept there from the last row of the previous scale, which was at
// least two samples wide and so wrote them. Every other set gets those values
// from the set that ran that row, so any band reads what the serial pass reads.
// (Rows of two or more samples write every column they read first, and the
// subsample's rows are always that wide.)
void VifCpuStage::seed_one_wide_row(unsigned half) {
  const RowScratch& last = scratch_[last_statistic_set_];
  for (unsigned set = 0; set < scratch_.size(); ++set) {
    if (set == last_statistic_set_) continue;
    RowScratch& to = scratch_[set];
    for (unsigned row = 0; row < StatRows::kCount; ++row)
      std::copy_n(last.stat[0][row].begin() + kPadColumns + 1, half,
                  to.stat[0][row].begin() + kPadColumns + 1);
  }
}

// libvmaf's vif_statistic_8 / vif_statistic_16 at one scale: a vertical then a
// horizontal pass of the scale's filter over the picture, its square and the
// product of both pictures, and the per-pixel terms of accumulate().
template <typename Sample>
ScaleSums VifCpuStage::statistic(BandRunner& runner, const Rows<Sample>& ref,
                                 const Rows<Sample>& dis, unsigned w, unsigned h, unsigned scale,
                                 bool decimate) {
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
  if (w == 1) seed_one_wide_row(filter.half());

  // Each band sums its rows on its own; the sums are exact, so the bands add up
  // to the serial pass's in any order.
  return sum_row_bands<ScaleSums>(
      runner, 0, static_cast<int>(h), w, [&](unsigned band, int begin, int end) {
        RowScratch& scratch = scratch_[band];
        std::array<StatRows, kStatBlock> rows;
        for (unsigned set = 0; set < kStatBlock; ++set) rows[set] = scratch.rows(set);
        const Sample* ref_window[kMaxFilterWidth + kStatBlock - 1];
        const Sample* dis_window[kMaxFilterWidth + kStatBlock - 1];
        // The window of `count` rows from row i on.
        const auto window = [&](int i, unsigned count) {
          for (unsigned k = 0; k < fwidth + count - 1; ++k) {
            ref_window[k] = ref[i + static_cast<int>(k) - half + kPadRows];
            dis_window[k] = dis[i + static_cast<int>(k) - half + kPadRows];
          }
        };
        ScaleSums sums;
        const auto horizontal = [&](const StatRows& stat) {
          for (std::int16_t* buffer : stat.all()) pad_mirror(buffer, w, filter.half());
          dsp_->stat_horizontal(stat, filter, w, log2_.data(), params_.enhn_gain_limit, sums);
        };
        // The decimation (8-bit only): rows 2 * oi, oi < h / 2, with the next
        // scale's filter and subsample()'s rounding at scale 0.
        const Filter& low_filter = vif_filter(std::min(scale + 1, kScaleCount - 1));
        const auto decimates = [&](int i) {
          return decimate && i % 2 == 0 && i / 2 < static_cast<int>(h / 2);
        };
        const auto single_row = [&](int i) {
          window(i, 1);
          if constexpr (sizeof(Sample) == 1)
            dsp_->stat_vertical_8(ref_window, dis_window, filter, rounding, w, rows[0]);
          else
            dsp_->stat_vertical_16(ref_window, dis_window, filter, rounding, w, rows[0]);
          horizontal(rows[0]);
          if (decimates(i)) subsample_row(scratch, ref, dis, w, scale, i);
        };
        int i = begin;
        if constexpr (sizeof(Sample) == 1) {
          // Blocks start on even rows when decimating: their rows 0 and 2 are
          // the ones the decimation keeps.
          if (decimate && i % 2 != 0 && i < end) single_row(i++);
          const LowpassRounding low_rounding = lowpass_rounding(scale);
          LowpassRows lowpass{
              &low_filter,
              low_rounding.round,
              low_rounding.shift,
              {scratch.convol(scratch.ref_convol, 0), scratch.convol(scratch.ref_convol, 1)},
              {scratch.convol(scratch.dis_convol, 0), scratch.convol(scratch.dis_convol, 1)}};
          // 8-bit rows kStatBlock at a time (their vertical pass shares its loads).
          for (; i + static_cast<int>(kStatBlock) <= end; i += kStatBlock) {
            window(i, kStatBlock);
            dsp_->stat_vertical_8_block(ref_window, dis_window, filter, rounding, w, rows.data(),
                                        decimate ? &lowpass : nullptr);
            for (const StatRows& stat : rows) horizontal(stat);
            for (unsigned m = 0; m < 2; ++m)
              if (decimates(i + 2 * static_cast<int>(m)))
                decimate_row(scratch, m, w, scale, static_cast<unsigned>(i / 2) + m);
          }
        }
        for (; i < end; ++i) single_row(i);
        if (end == static_cast<int>(h)) last_statistic_set_ = band;  // one band only
        return sums;
      });
}

// libvmaf's subsample_rd_8 / subsample_rd_16: the picture at `scale` low-passed
// with the next scale's filter and decimated by two (even rows and columns),
// written over the top-left of the scale buffers, whose rows are then mirrored.
// Only the samples the decimation keeps are computed.
template <typename Sample>
void VifCpuStage::subsample(BandRunner& runner, const Rows<Sample>& ref, const Rows<Sample>& dis,
                            unsigned w, unsigned h, unsigned scale) {
  // Bands of output rows: each writes its own rows of the decimated pictures.
  for_each_row_band(runner, 0, static_cast<int>(h / 2), w, [&](unsigned band, int begin, int end) {
    for (int oi = begin; oi < end; ++oi) subsample_row(scratch_[band], ref, dis, w, scale, 2 * oi);
  });
  place_decimated(w, h, scale);
}

VifCpuStage::LowpassRounding VifCpuStage::lowpass_rounding(unsigned scale) const {
  return scale == 0 ? LowpassRounding{1u << (bpc_ - 1), bpc_} : LowpassRounding{32768, 16};
}

template <typename Sample>
void VifCpuStage::subsample_row(RowScratch& scratch, const Rows<Sample>& ref,
                                const Rows<Sample>& dis, unsigned w, unsigned scale, int i) {
  const Filter& filter = vif_filter(scale + 1);
  const int half = static_cast<int>(filter.half());
  const Sample* ref_window[kMaxFilterWidth];
  const Sample* dis_window[kMaxFilterWidth];
  for (unsigned k = 0; k < filter.width; ++k) {
    ref_window[k] = ref[i + static_cast<int>(k) - half + kPadRows];
    dis_window[k] = dis[i + static_cast<int>(k) - half + kPadRows];
  }
  const LowpassRounding rounding = lowpass_rounding(scale);
  std::int16_t* ref_convol = scratch.convol(scratch.ref_convol, 0);
  std::int16_t* dis_convol = scratch.convol(scratch.dis_convol, 0);
  if constexpr (sizeof(Sample) == 1)
    dsp_->lowpass_vertical_8(ref_window, dis_window, filter, rounding.round, rounding.shift, w,
                             ref_convol, dis_convol);
  else
    dsp_->lowpass_vertical_16(ref_window, dis_window, filter, rounding.round, rounding.shift, w,
                              ref_convol, dis_convol);
  decimate_row(scratch, 0, w, scale, static_cast<unsigned>(i / 2));
}

void VifCpuStage::decimate_row(RowScratch& scratch, unsigned m, unsigned w, unsigned scale,
                               unsigned oi) {
  const Filter& filter = vif_filter(scale + 1);
  std::int16_t* ref_convol = scratch.convol(scratch.ref_convol, m);
  std::int16_t* dis_convol = scratch.convol(scratch.dis_convol, m);
  pad_mirror(ref_convol, w, filter.half());
  pad_mirror(dis_convol, w, filter.half());
  const unsigned out_w = w / 2;
  // Scale 0 reads the pictures, so its rows go straight to the images; above,
  // the images are what is read, so the rows wait in the decimated buffers.
  const std::size_t out = static_cast<std::size_t>(oi) * out_w;
  std::uint16_t* ref_out =
      scale == 0 ? ref_image_.row(static_cast<int>(oi)) : ref_decimated_.data() + out;
  std::uint16_t* dis_out =
      scale == 0 ? dis_image_.row(static_cast<int>(oi)) : dis_decimated_.data() + out;
  dsp_->lowpass_horizontal(ref_convol, dis_convol, filter, out_w, ref_out, dis_out);
}

// Once every band is done, written in place like libvmaf's decimate_and_pad:
// rows and columns beyond the new size keep what the previous scale left there.
void VifCpuStage::place_decimated(unsigned w, unsigned h, unsigned scale) {
  const unsigned out_w = w / 2, out_h = h / 2;
  for (auto [image, decimated] :
       {std::pair{&ref_image_, &ref_decimated_}, std::pair{&dis_image_, &dis_decimated_}}) {
    if (scale > 0)  // (scale 0's rows are in place already: decimate_row)
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
void VifCpuStage::scale0_rows(const PlaneView& plane, Rows<Sample>& rows) const {
  rows.resize(scale0_row_index_.size());
  for (std::size_t r = 0; r < rows.size(); ++r)
    rows[r] = plane.row<Sample>(static_cast<unsigned>(scale0_row_index_[r]));
}

void VifCpuStage::image_rows(Image& image, unsigned h, Rows<std::uint16_t>& rows) const {
  rows.resize(h + 2 * kPadRows);
  for (std::size_t r = 0; r < rows.size(); ++r) rows[r] = image.row(static_cast<int>(r) - kPadRows);
}

template <typename Sample>
FrameSums VifCpuStage::compute_from(BandRunner& runner, const PlaneView& ref,
                                    const PlaneView& dist) {
  FrameSums sums{};
  Rows<Sample> ref0, dis0;
  scale0_rows(ref, ref0);
  scale0_rows(dist, dis0);
  // 8-bit pictures decimate with scale 0's statistic (its window rows serve both).
  const bool decimate = sizeof(Sample) == 1 && !params_.skip_scale0;
  if (!params_.skip_scale0) sums[0] = statistic(runner, ref0, dis0, width_, height_, 0, decimate);
  if (decimate)
    place_decimated(width_, height_, 0);
  else
    subsample(runner, ref0, dis0, width_, height_, 0);

  unsigned w = width_ / 2, h = height_ / 2;
  for (unsigned scale = 1; scale < kScaleCount; ++scale) {
    if (scale > 1) {
      subsample(runner, ref_rows_, dis_rows_, w, h, scale - 1);
      w /= 2;
      h /= 2;
    }
    image_rows(ref_image_, h, ref_rows_);
    image_rows(dis_image_, h, dis_rows_);
    sums[scale] = statistic(runner, ref_rows_, dis_rows_, w, h, scale);
  }
  return sums;
}

FrameSums VifCpuStage::compute(const PlaneView& ref, const PlaneView& dist, BandRunner& runner) {
  if (ref.width != width_ || ref.height != height_ || dist.width != width_ ||
      dist.height != height_)
    throw Error("vif: picture size changed from " + std::to_string(width_) + "x" +
                std::to_string(height_));
  // One scratch set per band the runner may cut, made on first use (before any
  // band runs: the bands index scratch_, which must not move under them).
  while (scratch_.size() < std::max(runner.max_bands(), 1u)) scratch_.emplace_back(width_);
  return bpc_ == 8 ? compute_from<std::uint8_t>(runner, ref, dist)
                   : compute_from<std::uint16_t>(runner, ref, dist);
}

ScaleRatio finish_scale(const ScaleSums& sums) {
  ScaleRatio ratio;
  ratio.num = static_cast<float>(sums.num_log / 2048.0 +
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
