#include "vif/vif_extractor.h"

namespace vmafexact::vif {

namespace {

// libvmaf's provided_features of integer VIF, in the order it writes them.
constexpr std::string_view kProvided[] = {
    "VMAF_integer_feature_vif_scale0_score",
    "VMAF_integer_feature_vif_scale1_score",
    "VMAF_integer_feature_vif_scale2_score",
    "VMAF_integer_feature_vif_scale3_score",
    "integer_vif",
    "integer_vif_num",
    "integer_vif_den",
    "integer_vif_num_scale0",
    "integer_vif_den_scale0",
    "integer_vif_num_scale1",
    "integer_vif_den_scale1",
    "integer_vif_num_scale2",
    "integer_vif_den_scale2",
    "integer_vif_num_scale3",
    "integer_vif_den_scale3",
};

constexpr OptionSpec kOptions[] = {
    {.name = "debug", .type = OptionType::kBool, .default_value = 0,
     .help = "also write integer_vif, integer_vif_num/_den and their per-scale values"},
    {.name = "vif_enhn_gain_limit", .type = OptionType::kDouble,
     .default_value = kDefaultEnhnGainLimit, .min = kMinEnhnGainLimit,
     .max = kDefaultEnhnGainLimit, .feature_param = true, .alias = "egl",
     .help = "enhancement gain limit"},
    {.name = "vif_skip_scale0", .type = OptionType::kBool, .default_value = 0,
     .feature_param = true, .alias = "ssclz", .help = "skip scale 0 (it scores 0)"},
};

class IntegerVifExtractor final : public StagedExtractor<FrameSums> {
 public:
  bool reads_chroma() const override { return false; }
  using StagedExtractor::StagedExtractor;

 private:
  void check_format(const PictureFormat& format) override {
    // The stage checks depth and size (VifCpuStage's constructor); a twin's
    // stage is made after the same check here.
    VifCpuStage::check_format(format.width, format.height, format.bpc);
  }

  void finish(const FrameSums& sums, unsigned index, FeatureCollector& scores) override {
    const FrameScores s = finish_frame(sums, options().get_bool("vif_skip_scale0"));
    for (unsigned scale = 0; scale < kScaleCount; ++scale) scores.append(key(scale), index, s.scale[scale]);
    if (!options().get_bool("debug")) return;
    scores.append(key(4), index, s.vif);
    scores.append(key(5), index, s.num);
    scores.append(key(6), index, s.den);
    for (unsigned scale = 0; scale < kScaleCount; ++scale) {
      scores.append(key(7 + 2 * scale), index, s.num_scale[scale]);
      scores.append(key(8 + 2 * scale), index, s.den_scale[scale]);
    }
  }
};

}  // namespace

const FeatureDescriptor& descriptor() {
  static const FeatureDescriptor descriptor{
      "vif", "integer VIF at four scales (integer_vif_scale0..3)", kProvided, kOptions};
  return descriptor;
}

VifParams params_of(const OptionValues& options) {
  VifParams params;
  params.enhn_gain_limit = options.get_double("vif_enhn_gain_limit");
  params.skip_scale0 = options.get_bool("vif_skip_scale0");
  return params;
}

std::unique_ptr<FeatureExtractor> make_extractor(const OptionValues& options,
                                                 StageFactory<FrameSums> make_stage) {
  return std::make_unique<IntegerVifExtractor>(descriptor(), options, std::move(make_stage));
}

std::unique_ptr<FeatureExtractor> make_cpu_extractor(const OptionValues& options) {
  return make_extractor(options, [params = params_of(options)](const PictureFormat& format) {
    return std::make_unique<VifCpuStage>(format.width, format.height, format.bpc, params);
  });
}

}  // namespace vmafexact::vif
