#include "adm/adm_extractor.h"

namespace vmafexact::adm {

namespace {

// libvmaf's provided_features of "adm", in its order of writing.
constexpr std::string_view kProvided[] = {
    "VMAF_integer_feature_adm2_score", "VMAF_integer_feature_aim_score",
    "VMAF_integer_feature_adm3_score", "integer_adm_scale0",
    "integer_adm_scale1",              "integer_adm_scale2",
    "integer_adm_scale3",              "integer_adm",
    "integer_adm_num",                 "integer_adm_den",
    "integer_adm_num_scale0",          "integer_adm_den_scale0",
    "integer_adm_num_scale1",          "integer_adm_den_scale1",
    "integer_adm_num_scale2",          "integer_adm_den_scale2",
    "integer_adm_num_scale3",          "integer_adm_den_scale3"};

constexpr std::size_t kAlwaysWritten = 7;  // without debug: the first seven

constexpr AdmOptions kDefaults{};

constexpr OptionSpec kOptions[] = {
    {.name = "debug", .type = OptionType::kBool, .default_value = kDefaults.debug,
     .help = "also write integer_adm, integer_adm_num/_den and their per-scale values"},
    {.name = "adm_csf_scale", .type = OptionType::kDouble, .default_value = kDefaults.csf_scale,
     .min = 0.0, .max = 50.0, .feature_param = true, .alias = "scf",
     .help = "Barten CSF scale (adm_csf_mode 1..3)"},
    {.name = "adm_csf_diag_scale", .type = OptionType::kDouble,
     .default_value = kDefaults.csf_diag_scale, .min = 0.0, .max = 50.0, .feature_param = true,
     .alias = "scfd", .help = "Barten CSF diagonal scale (adm_csf_mode 1..3)"},
    {.name = "adm_dlm_weight", .type = OptionType::kDouble, .default_value = kDefaults.dlm_weight,
     .min = 0.0, .max = 1.0, .feature_param = true, .alias = "dlmw",
     .help = "weight of DLM in integer_adm3"},
    {.name = "adm_enhn_gain_limit", .type = OptionType::kDouble,
     .default_value = kDefaults.enhn_gain_limit, .min = 1.0, .max = 100.0,
     .feature_param = true, .alias = "egl", .help = "enhancement gain limit"},
    {.name = "adm_norm_view_dist", .type = OptionType::kDouble,
     .default_value = kDefaults.norm_view_dist, .min = 0.75, .max = 24.0, .feature_param = true,
     .alias = "nvd", .help = "normalized viewing distance (picture heights)"},
    {.name = "adm_ref_display_height", .type = OptionType::kInt,
     .default_value = kDefaults.ref_display_height, .min = 1, .max = 4320,
     .feature_param = true, .alias = "rdh", .help = "reference display height (pixels)"},
    {.name = "adm_csf_mode", .type = OptionType::kInt, .default_value = kDefaults.csf_mode,
     .min = 0, .max = 3, .feature_param = true, .alias = "csf",
     .help = "contrast sensitivity: 0 Watson 1997, 1 Barten, 2 Barten-Watson blend (VMAF v1), 3 blend re-fitted"},
    {.name = "adm_noise_weight", .type = OptionType::kDouble,
     .default_value = kDefaults.noise_weight, .min = 0.0, .max = 1500.0, .feature_param = true,
     .alias = "nw", .help = "noise weight of the masking threshold"},
    {.name = "adm_skip_aim", .type = OptionType::kBool, .default_value = kDefaults.skip_aim,
     .help = "skip AIM (integer_aim and integer_adm3 score 0)"},
    {.name = "adm_skip_scale0", .type = OptionType::kBool, .default_value = kDefaults.skip_scale0,
     .feature_param = true, .alias = "ssz", .help = "skip scale 0"},
    {.name = "adm_min_val", .type = OptionType::kDouble, .default_value = kDefaults.min_val,
     .min = 0.0, .max = 1.0, .feature_param = true, .alias = "min",
     .help = "lower bound of integer_adm3"},
};

class IntegerAdmExtractor final : public StagedExtractor<FrameSums> {
 public:
  bool reads_chroma() const override { return false; }
  IntegerAdmExtractor(const OptionValues& options, StageFactory<FrameSums> make_stage)
      : StagedExtractor(descriptor(), options, std::move(make_stage)),
        adm_options_(adm_options_of(options)),
        weights_(csf_weights(adm_options_)) {}

 private:
  void check_format(const PictureFormat& format) override {
    check_supported_bpc("adm", format.bpc);
    check_picture_size(format.width, format.height);
  }

  void finish(const FrameSums& sums, unsigned index, FeatureCollector& scores) override {
    const AdmScores s = finish_scores(sums, format().width, format().height, adm_options_, weights_);
    const double values[] = {s.adm2,       s.aim,        s.adm3,       s.scale[0],   s.scale[1],
                             s.scale[2],   s.scale[3],   s.adm2,       s.num,        s.den,
                             s.num_den[0], s.num_den[1], s.num_den[2], s.num_den[3], s.num_den[4],
                             s.num_den[5], s.num_den[6], s.num_den[7]};
    const std::size_t count = adm_options_.debug ? std::size(values) : kAlwaysWritten;
    for (std::size_t k = 0; k < count; ++k) scores.append(key(k), index, values[k]);
  }

  AdmOptions adm_options_;
  CsfWeights weights_;
};

}  // namespace

const FeatureDescriptor& descriptor() {
  static const FeatureDescriptor descriptor{
      "adm", "integer ADM (integer_adm2, integer_aim, integer_adm3, integer_adm_scale0..3)",
      kProvided, kOptions};
  return descriptor;
}

AdmOptions adm_options_of(const OptionValues& options) {
  AdmOptions o;
  o.debug = options.get_bool("debug");
  o.csf_scale = options.get_double("adm_csf_scale");
  o.csf_diag_scale = options.get_double("adm_csf_diag_scale");
  o.dlm_weight = options.get_double("adm_dlm_weight");
  o.enhn_gain_limit = options.get_double("adm_enhn_gain_limit");
  o.norm_view_dist = options.get_double("adm_norm_view_dist");
  o.ref_display_height = options.get_int("adm_ref_display_height");
  o.csf_mode = options.get_int("adm_csf_mode");
  o.noise_weight = options.get_double("adm_noise_weight");
  o.skip_aim = options.get_bool("adm_skip_aim");
  o.skip_scale0 = options.get_bool("adm_skip_scale0");
  o.min_val = options.get_double("adm_min_val");
  csf_weights(o);  // rejects what libvmaf would refuse at every frame
  return o;
}

std::unique_ptr<FeatureExtractor> make_extractor(const OptionValues& options,
                                                 StageFactory<FrameSums> make_stage) {
  return std::make_unique<IntegerAdmExtractor>(options, std::move(make_stage));
}

std::unique_ptr<FeatureExtractor> make_cpu_extractor(const OptionValues& options) {
  return make_extractor(options, [adm_options = adm_options_of(options)](const PictureFormat& format) {
    return std::make_unique<AdmCpuStage>(format.width, format.height, adm_options);
  });
}

}  // namespace vmafexact::adm
