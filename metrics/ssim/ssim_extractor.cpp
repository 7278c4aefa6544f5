#include "ssim/ssim_extractor.h"

#include <string>

#include "common/cpu.h"

namespace vmafexact::ssim {

namespace {

constexpr std::string_view kSsimProvided[] = {"float_ssim", "float_ssim_l", "float_ssim_c",
                                              "float_ssim_s"};
// In the order libvmaf writes them: the score, then l, c and s of scales 0..4.
constexpr std::string_view kMsSsimProvided[] = {
    "float_ms_ssim",          "float_ms_ssim_l_scale0", "float_ms_ssim_l_scale1",
    "float_ms_ssim_l_scale2", "float_ms_ssim_l_scale3", "float_ms_ssim_l_scale4",
    "float_ms_ssim_c_scale0", "float_ms_ssim_c_scale1", "float_ms_ssim_c_scale2",
    "float_ms_ssim_c_scale3", "float_ms_ssim_c_scale4", "float_ms_ssim_s_scale0",
    "float_ms_ssim_s_scale1", "float_ms_ssim_s_scale2", "float_ms_ssim_s_scale3",
    "float_ms_ssim_s_scale4"};

// libvmaf's tables: none of these options is a feature parameter, so none
// changes a score's name.
#define VMAFEXACT_SSIM_COMMON_OPTIONS                                                        \
  {.name = "enable_lcs", .type = OptionType::kBool, .default_value = 0,                      \
   .help = "also write the means of the luminance, contrast and structure terms"},           \
      {.name = "enable_db", .type = OptionType::kBool, .default_value = 0,                   \
       .help = "write the score as dB: -10 log10(1 - score)"},                               \
      {.name = "clip_db", .type = OptionType::kBool, .default_value = 0,                     \
       .help = "with enable_db, clip the dB score at that of an MSE of 0.5 / (w * h)"}

constexpr OptionSpec kSsimOptions[] = {
    VMAFEXACT_SSIM_COMMON_OPTIONS,
    {.name = "scale", .type = OptionType::kInt, .default_value = 0, .min = 0, .max = 10,
     .help = "downscaling factor before filtering (0: auto, max(1, round(min(w, h) / 256)); "
             "1: none)"},
};

constexpr OptionSpec kMsSsimOptions[] = {VMAFEXACT_SSIM_COMMON_OPTIONS};

#undef VMAFEXACT_SSIM_COMMON_OPTIONS

// What both extractors do with a score: enable_db, then the score's key.
class DbOptions {
 public:
  explicit DbOptions(const OptionValues& options)
      : enable_db_(options.get_bool("enable_db")), clip_db_(options.get_bool("clip_db")) {}
  void start(const PictureFormat& format) {
    max_db_ = max_db(clip_db_, format.bpc, format.width, format.height);
  }
  double apply(double score) const { return enable_db_ ? to_db(score, max_db_) : score; }

 private:
  bool enable_db_, clip_db_;
  double max_db_ = 0;
};

class SsimExtractor final : public StagedExtractor<SsimMeans> {
 public:
  bool reads_chroma() const override { return false; }
  SsimExtractor(const OptionValues& options, StageFactory<SsimMeans> make_stage)
      : StagedExtractor(ssim_descriptor(), options, std::move(make_stage)),
        db_(options),
        enable_lcs_(options.get_bool("enable_lcs")),
        scale_option_(options.get_int("scale")) {}

 private:
  void check_format(const PictureFormat& format) override {
    check_supported_bpc("float_ssim", format.bpc);
    const int scale = ssim_scale(scale_option_, format.width, format.height);
    const int w = decimated_size(static_cast<int>(format.width), scale);
    const int h = decimated_size(static_cast<int>(format.height), scale);
    if (w < kWindow || h < kWindow)
      throw Error("float_ssim: picture " + size_text(format.width, format.height) +
                  (scale > 1 ? " downscaled by " + std::to_string(scale) + " to " +
                                   size_text(static_cast<unsigned>(w), static_cast<unsigned>(h))
                             : std::string()) +
                  " is smaller than SSIM's 11x11 window, where libvmaf's score is meaningless"
                  " (0 or NaN)" +
                  (scale > 1 ? "; choose a smaller scale (scale=1 does not downscale)" : ""));
  }
  void start(const PictureFormat& format) override { db_.start(format); }

  void finish(const SsimMeans& means, unsigned index, FeatureCollector& scores) override {
    scores.append(key(0), index, db_.apply(static_cast<double>(means.ssim)));
    if (!enable_lcs_) return;
    scores.append(key(1), index, static_cast<double>(means.l));
    scores.append(key(2), index, static_cast<double>(means.c));
    scores.append(key(3), index, static_cast<double>(means.s));
  }

  DbOptions db_;
  bool enable_lcs_;
  int scale_option_;
};

class MsSsimExtractor final : public StagedExtractor<MsSsimMeans> {
 public:
  bool reads_chroma() const override { return false; }
  MsSsimExtractor(const OptionValues& options, StageFactory<MsSsimMeans> make_stage)
      : StagedExtractor(ms_ssim_descriptor(), options, std::move(make_stage)),
        db_(options),
        enable_lcs_(options.get_bool("enable_lcs")) {}

 private:
  void check_format(const PictureFormat& format) override {
    check_supported_bpc("float_ms_ssim", format.bpc);
    // libvmaf checks the window against the sides halved (rounding down)
    // once per scale: the fifth scale needs floor(side / 16) >= 11.
    constexpr unsigned kMinSide = kWindow << (kScales - 1);
    if (format.width < kMinSide || format.height < kMinSide)
      throw Error("float_ms_ssim: picture " + size_text(format.width, format.height) +
                  " is smaller than libvmaf's minimum of " + size_text(kMinSide, kMinSide) +
                  " (its fifth scale, 1/16 of each side, must hold SSIM's 11x11 window; libvmaf "
                  "fails with \"scale below 1x1\"); scale the video up, or score float_ssim");
  }
  void start(const PictureFormat& format) override { db_.start(format); }

  void finish(const MsSsimMeans& scales, unsigned index, FeatureCollector& scores) override {
    scores.append(key(0), index, db_.apply(ms_ssim_score(scales)));
    if (!enable_lcs_) return;
    for (std::size_t i = 0; i < kScales; ++i) {
      scores.append(key(1 + i), index, static_cast<double>(scales[i].l));
    }
    for (std::size_t i = 0; i < kScales; ++i)
      scores.append(key(1 + kScales + i), index, static_cast<double>(scales[i].c));
    for (std::size_t i = 0; i < kScales; ++i)
      scores.append(key(1 + 2 * kScales + i), index, static_cast<double>(scales[i].s));
  }

  DbOptions db_;
  bool enable_lcs_;
};

}  // namespace

const FeatureDescriptor& ssim_descriptor() {
  static const FeatureDescriptor descriptor{
      "float_ssim", "SSIM of the luma plane (float_ssim; float_ssim_l/_c/_s with enable_lcs)",
      kSsimProvided, kSsimOptions};
  return descriptor;
}

const FeatureDescriptor& ms_ssim_descriptor() {
  static const FeatureDescriptor descriptor{
      "float_ms_ssim",
      "MS-SSIM of the luma plane (float_ms_ssim; float_ms_ssim_{l,c,s}_scale0..4 with enable_lcs)",
      kMsSsimProvided, kMsSsimOptions};
  return descriptor;
}

int ssim_scale(int scale_option, unsigned w, unsigned h) {
  return scale_option > 0 ? scale_option : auto_scale(static_cast<int>(w), static_cast<int>(h));
}

SsimCpuStage::SsimCpuStage(int scale, const SsimDsp& dsp)
    : dsp_(&dsp), scale_(scale), kernel_(box_kernel(scale)) {}

SsimMeans SsimCpuStage::compute(const PictureView& ref, const PictureView& dist, unsigned) {
  luma_to_float(ref.planes[0], ref.bpc, *dsp_, ref_);
  luma_to_float(dist.planes[0], dist.bpc, *dsp_, dist_);
  if (scale_ == 1) return workspace_.means(ref_, dist_, *dsp_);
  decimate(ref_, kernel_.data(), scale_, scale_, *dsp_, ref_scaled_, scratch_);
  decimate(dist_, kernel_.data(), scale_, scale_, *dsp_, dist_scaled_, scratch_);
  return workspace_.means(ref_scaled_, dist_scaled_, *dsp_);
}

MsSsimCpuStage::MsSsimCpuStage(const SsimDsp& dsp) : dsp_(&dsp) {}

MsSsimMeans MsSsimCpuStage::compute(const PictureView& ref, const PictureView& dist, unsigned) {
  luma_to_float(ref.planes[0], ref.bpc, *dsp_, ref_[0]);
  luma_to_float(dist.planes[0], dist.bpc, *dsp_, dist_[0]);
  for (std::size_t i = 1; i < kScales; ++i) {
    decimate(ref_[i - 1], kLowPass, kLowPassTaps, 2, *dsp_, ref_[i], scratch_);
    decimate(dist_[i - 1], kLowPass, kLowPassTaps, 2, *dsp_, dist_[i], scratch_);
  }
  MsSsimMeans means;
  for (std::size_t i = 0; i < kScales; ++i) means[i] = workspace_.means(ref_[i], dist_[i], *dsp_);
  return means;
}

std::unique_ptr<FeatureExtractor> make_ssim_extractor(const OptionValues& options,
                                                      StageFactory<SsimMeans> make_stage) {
  return std::make_unique<SsimExtractor>(options, std::move(make_stage));
}

std::unique_ptr<FeatureExtractor> make_ms_ssim_extractor(const OptionValues& options,
                                                         StageFactory<MsSsimMeans> make_stage) {
  return std::make_unique<MsSsimExtractor>(options, std::move(make_stage));
}

std::unique_ptr<FeatureExtractor> make_ssim_cpu_extractor(const OptionValues& options) {
  const int scale_option = options.get_int("scale");
  return make_ssim_extractor(options, [scale_option](const PictureFormat& format) {
    return std::make_unique<SsimCpuStage>(ssim_scale(scale_option, format.width, format.height),
                                          ssim_dsp(cpu::flags()));  // chosen once per stream
  });
}

std::unique_ptr<FeatureExtractor> make_ms_ssim_cpu_extractor(const OptionValues& options) {
  return make_ms_ssim_extractor(options, [](const PictureFormat&) {
    return std::make_unique<MsSsimCpuStage>(ssim_dsp(cpu::flags()));
  });
}

}  // namespace vmafexact::ssim
