// Integer VIF as libvmaf 3.2.0's "vif" extractor computes it (integer_vif.c),
// on the luma plane, at four scales.
//
// Two stages, split where other backends join:
//  * VifCpuStage::compute() is the per-pixel stage. For each scale it filters the
//    picture and adds, per pixel, integer terms into libvmaf's four int64
//    accumulators (ScaleSums). The sums are exact, so any order of pixels gives
//    the same result; the only floating point in this stage is libvmaf's per-pixel
//    gain g, a double whose result is truncated back to an integer per pixel.
//  * finish_scale() / finish_frame() are the finishing functions: they turn the
//    accumulators into libvmaf's float numerator and denominator of each scale
//    and into the scores, in libvmaf's order of operations.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "common/bands.h"
#include "common/feature_stage.h"
#include "common/picture.h"
#include "vif/vif_tables.h"

namespace vmafexact::vif {

// libvmaf's defaults and bounds of vif_enhn_gain_limit.
inline constexpr double kDefaultEnhnGainLimit = 100.0;
inline constexpr double kMinEnhnGainLimit = 1.0;

// The smallest picture side libvmaf's integer VIF scores: the fourth scale has
// side / 8 samples and must not be empty (with fewer than 8 columns libvmaf
// writes 0/0 for it, with fewer than 8 rows it crashes). From 8 to 15 the
// fourth scale is one sample wide or high and libvmaf's mirror padding reads
// samples its buffers kept from the third scale; VifCpuStage does the same.
inline constexpr unsigned kMinSide = 8;

// libvmaf's accumulators of one scale, summed over every pixel of the scale:
//  num_log      sum of 2048 * log2 ratios where sigma1^2 >= 2 (with signal gain)
//  den_log      sum of 2048 * log2(1 + sigma1^2 / 2) where sigma1^2 >= 2
//  num_non_log  sum of max(sigma2^2, 0) where sigma1^2 < 2
//  den_non_log  number of pixels where sigma1^2 < 2
// (variances in the fixed-point units of libvmaf, where 2 is 131072.)
struct ScaleSums {
  std::int64_t num_log = 0;
  std::int64_t den_log = 0;
  std::int64_t num_non_log = 0;
  std::int64_t den_non_log = 0;

  ScaleSums& operator+=(const ScaleSums& other) {
    num_log += other.num_log;
    den_log += other.den_log;
    num_non_log += other.num_non_log;
    den_non_log += other.den_non_log;
    return *this;
  }
  bool operator==(const ScaleSums&) const = default;
};

using FrameSums = std::array<ScaleSums, kScaleCount>;

struct VifParams {
  double enhn_gain_limit = kDefaultEnhnGainLimit;  // g is clipped to this
  bool skip_scale0 = false;                        // scale 0 is not computed, scores 0
};

struct VifDsp;
struct StatRows;

// Rows of an 8-bit vertical block (VifDsp::stat_vertical_8_block).
inline constexpr unsigned kStatBlock = 4;

// The per-pixel stage for pictures of one size and bit depth. Holds libvmaf's
// working buffers (allocated once, the per-row ones once per band); compute()
// reads plane 0 of each picture. Its row routines come from a VifDsp table
// (vif_dsp.h): the best SIMD twins that cpu::flags() allows when the kernel is
// built, or a given table.
class VifCpuStage final : public FeatureStage<FrameSums> {
 public:
  // Throws vmafexact::Error for a bit depth or size libvmaf cannot score.
  VifCpuStage(unsigned width, unsigned height, unsigned bpc, const VifParams& params);
  VifCpuStage(unsigned width, unsigned height, unsigned bpc, const VifParams& params,
              const VifDsp& dsp);

  const VifDsp& dsp() const { return *dsp_; }
  // Throws vmafexact::Error, naming the limit, for a bit depth or size
  // libvmaf's integer VIF cannot score (every backend checks this first).
  static void check_format(unsigned width, unsigned height, unsigned bpc);

  // The accumulators of every scale (scale 0 left at zero with skip_scale0).
  // The row loops of each scale run in bands through `runner` (common/bands.h);
  // any runner gives the same sums. Not reentrant: one compute() at a time.
  FrameSums compute(const PlaneView& ref, const PlaneView& dist,
                    BandRunner& runner = serial_band_runner());
  // The stage's contract: compute() of the luma planes on the runner set last.
  FrameSums compute(const PictureView& ref, const PictureView& dist, unsigned) override {
    return compute(ref.planes[0], dist.planes[0], *runner_);
  }
  void set_band_runner(BandRunner& runner) override { runner_ = &runner; }

 private:
  struct Image {  // one picture at scales 1..3, with 8 mirrored rows above and below
    std::vector<std::uint16_t> samples;
    std::uint16_t* row(int r) { return samples.data() + (r + kPadRows) * stride; }
    std::ptrdiff_t stride = 0;
  };
  static constexpr int kPadRows = 8;
  static constexpr int kPadColumns = 8;

  // Row pointers of one picture at one scale, for rows -8 .. h+7 (index + 8).
  template <typename Sample>
  using Rows = std::vector<const Sample*>;

  // libvmaf's per-row buffers, indexed from -kPadColumns; one set per band.
  struct RowScratch {
    explicit RowScratch(unsigned width);
    // The statistic's rows, in StatRows::all()'s order (vif_dsp.h): one set per
    // row of an 8-bit block (kStatBlock); a single row uses the first.
    using StatSet = std::array<std::vector<std::int16_t>, 8>;
    std::array<StatSet, kStatBlock> stat;
    StatRows rows(unsigned set);
    // The decimation's low-passed rows, biased: two (an 8-bit block's rows 0
    // and 2), each width + 2 * kPadColumns long.
    std::vector<std::int16_t> ref_convol, dis_convol;
    std::int16_t* convol(std::vector<std::int16_t>& rows, unsigned m);
  };

  // decimate: also low-pass and decimate the scale's pictures for the next one,
  // row by row with the statistic (8-bit pictures at scale 0: subsample()'s
  // first pass from the statistic's window rows); place_decimated() remains.
  template <typename Sample>
  ScaleSums statistic(BandRunner& runner, const Rows<Sample>& ref, const Rows<Sample>& dis,
                      unsigned w, unsigned h, unsigned scale, bool decimate = false);
  template <typename Sample>
  void subsample(BandRunner& runner, const Rows<Sample>& ref, const Rows<Sample>& dis, unsigned w,
                 unsigned h, unsigned scale);
  // The decimation's vertical rounding at `scale`: (sum + round) >> shift.
  struct LowpassRounding {
    std::uint32_t round;
    unsigned shift;
  };
  LowpassRounding lowpass_rounding(unsigned scale) const;
  // Picture row i (even) of both pictures low-passed and decimated into row
  // i / 2: subsample()'s work for one row.
  template <typename Sample>
  void subsample_row(RowScratch& scratch, const Rows<Sample>& ref, const Rows<Sample>& dis,
                     unsigned w, unsigned scale, int i);
  // Decimated row oi of both pictures from their low-passed rows (biased,
  // unpadded): subsample()'s horizontal pass.
  void decimate_row(RowScratch& scratch, unsigned m, unsigned w, unsigned scale, unsigned oi);
  // The decimated pictures into the next scale's buffers (libvmaf's
  // decimate_and_pad), once every row is done.
  void place_decimated(unsigned w, unsigned h, unsigned scale);
  template <typename Sample>
  FrameSums compute_from(BandRunner& runner, const PlaneView& ref, const PlaneView& dist);
  void seed_one_wide_row(unsigned half);
  template <typename Sample>
  void scale0_rows(const PlaneView& plane, Rows<Sample>& rows) const;
  void image_rows(Image& image, unsigned h, Rows<std::uint16_t>& rows) const;

  unsigned width_, height_, bpc_;
  VifParams params_;
  const VifDsp* dsp_;
  const Log2Table& log2_;
  std::vector<int> scale0_row_index_;  // mirrored row of each row -8 .. height+7
  Image ref_image_, dis_image_;        // libvmaf's in-place decimated pictures
  std::vector<std::uint16_t> ref_decimated_, dis_decimated_;
  // At least one set; compute() adds one per band the runner may cut.
  std::vector<RowScratch> scratch_;
  // The set that ran the last row of the latest statistic: libvmaf's single set
  // of buffers holds what that row left there, and a later scale one sample
  // wide reads some of it (seed_one_wide_row()).
  unsigned last_statistic_set_ = 0;
  Rows<std::uint16_t> ref_rows_, dis_rows_;
  BandRunner* runner_ = &serial_band_runner();
};

// libvmaf's float numerator and denominator of one scale (its VifScore).
struct ScaleRatio {
  float num = 0.0f;
  float den = 0.0f;
};

// The finishing function of one scale:
//   num = num_log / 2048.0 + (den_non_log - (num_non_log / 16384.0) / 65025.0)
//   den = den_log / 2048.0 + den_non_log
// in double, each rounded once to float.
ScaleRatio finish_scale(const ScaleSums& sums);

// Every score libvmaf's integer VIF writes for one frame, as doubles.
struct FrameScores {
  std::array<double, kScaleCount> scale{};  // num / den in float; 0 for a skipped scale 0
  // With debug=true libvmaf also writes these:
  double vif = 0.0;  // sum of nums / sum of dens, in double (1 if the dens sum to 0)
  double num = 0.0;
  double den = 0.0;
  std::array<double, kScaleCount> num_scale{};  // a skipped scale 0: num 0, den -1
  std::array<double, kScaleCount> den_scale{};
};

FrameScores finish_frame(const FrameSums& sums, bool skip_scale0);

}  // namespace vmafexact::vif
