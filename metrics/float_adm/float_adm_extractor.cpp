#include "float_adm/float_adm_extractor.h"

#include <string>

#include "common/error.h"

namespace vmafexact::float_adm {

namespace {

constexpr std::string_view kProvided[] = {"VMAF_feature_adm2_score",
                                          "VMAF_feature_aim_score",
                                          "VMAF_feature_adm3_score",
                                          "VMAF_feature_adm_scale0_score",
                                          "VMAF_feature_adm_scale1_score",
                                          "VMAF_feature_adm_scale2_score",
                                          "VMAF_feature_adm_scale3_score",
                                          "adm_num",
                                          "adm_den",
                                          "adm_scale0",
                                          "adm_num_scale0",
                                          "adm_den_scale0",
                                          "adm_num_scale1",
                                          "adm_den_scale1",
                                          "adm_num_scale2",
                                          "adm_den_scale2",
                                          "adm_num_scale3",
                                          "adm_den_scale3"};
enum ProvidedIndex {
  kAdm2 = 0,
  kAim = 1,
  kAdm3 = 2,
  kScale0 = 3,
  kNum = 7,
  kDen = 8,
  kNumScale0 = 10
};

constexpr FloatAdmParams kDefaults{};

constexpr OptionSpec factor_option(std::string_view name, std::string_view help) {
  return {.name = name,
          .type = OptionType::kDouble,
          .default_value = -1.0,
          .min = -1.0,
          .max = 10.0,
          .feature_param = true,
          .alias = name.substr(4),
          .help = help};
}

// float_adm.c's table, in its order.
constexpr OptionSpec kOptions[] = {
    {.name = "debug",
     .type = OptionType::kBool,
     .default_value = 0,
     .help = "also write adm, adm_num, adm_den and each scale's num and den"},
    {.name = "adm_enhn_gain_limit",
     .type = OptionType::kDouble,
     .default_value = kDefaults.enhn_gain_limit,
     .min = 1.0,
     .max = 100.0,
     .feature_param = true,
     .alias = "egl",
     .help = "enhancement gain limit (1: no gain)"},
    {.name = "adm_norm_view_dist",
     .type = OptionType::kDouble,
     .default_value = kDefaults.norm_view_dist,
     .min = 0.75,
     .max = 24.0,
     .feature_param = true,
     .alias = "nvd",
     .help = "viewing distance / display height"},
    {.name = "adm_noise_weight",
     .type = OptionType::kDouble,
     .default_value = kDefaults.noise_weight,
     .min = 0.0,
     .max = 1500.0,
     .feature_param = true,
     .alias = "nw",
     .help = "noise weight"},
    {.name = "adm_csf_scale",
     .type = OptionType::kDouble,
     .default_value = kDefaults.csf_scale,
     .min = 0.0,
     .max = 50.0,
     .feature_param = true,
     .alias = "scf",
     .help = "scale of the Barten CSF (h, v)"},
    {.name = "adm_csf_diag_scale",
     .type = OptionType::kDouble,
     .default_value = kDefaults.csf_diag_scale,
     .min = 0.0,
     .max = 50.0,
     .feature_param = true,
     .alias = "scfd",
     .help = "scale of the Barten CSF (d)"},
    {.name = "adm_ref_display_height",
     .type = OptionType::kInt,
     .default_value = kDefaults.ref_display_height,
     .min = 1,
     .max = 4320,
     .feature_param = true,
     .alias = "rdf",
     .help = "display height in pixels"},
    {.name = "adm_csf_mode",
     .type = OptionType::kInt,
     .default_value = kDefaults.csf_mode,
     .min = 0,
     .max = 9,
     .feature_param = true,
     .alias = "csf",
     .help = "CSF: 1 Barten, 2 ADM's own, any other Watson 1997"},
    {.name = "adm_bypass_cm",
     .type = OptionType::kInt,
     .default_value = kDefaults.bypass_cm,
     .min = 0,
     .max = 1,
     .feature_param = true,
     .alias = "bcm",
     .help = "1: no contrast masking"},
    {.name = "adm_adm3_apply_hm",
     .type = OptionType::kBool,
     .default_value = kDefaults.adm3_apply_hm,
     .feature_param = true,
     .alias = "aah",
     .help = "adm3 as the harmonic mean of adm2 and aim"},
    {.name = "adm_p_norm",
     .type = OptionType::kDouble,
     .default_value = kDefaults.p_norm,
     .min = 1.0,
     .max = 20.0,
     .feature_param = true,
     .alias = "apn",
     .help = "p of the p-norms"},
    {.name = "adm_dlm_weight",
     .type = OptionType::kDouble,
     .default_value = kDefaults.dlm_weight,
     .min = 0.0,
     .max = 1.0,
     .feature_param = true,
     .alias = "dlmw",
     .help = "weight of adm2 against aim in adm3"},
    {.name = "adm_min_val",
     .type = OptionType::kDouble,
     .default_value = kDefaults.min_val,
     .min = 0.0,
     .max = 1.0,
     .feature_param = true,
     .alias = "min",
     .help = "lower bound of adm3"},
    factor_option("adm_f1s0", "CSF weight of scale 0 (h, v); -1: the CSF's"),
    factor_option("adm_f1s1", "CSF weight of scale 1 (h, v); -1: the CSF's"),
    factor_option("adm_f1s2", "CSF weight of scale 2 (h, v); -1: the CSF's"),
    factor_option("adm_f1s3", "CSF weight of scale 3 (h, v); -1: the CSF's"),
    factor_option("adm_f2s0", "CSF weight of scale 0 (d); -1: the CSF's"),
    factor_option("adm_f2s1", "CSF weight of scale 1 (d); -1: the CSF's"),
    factor_option("adm_f2s2", "CSF weight of scale 2 (d); -1: the CSF's"),
    factor_option("adm_f2s3", "CSF weight of scale 3 (d); -1: the CSF's"),
    {.name = "adm_skip_aim_scale",
     .type = OptionType::kInt,
     .default_value = kDefaults.skip_aim_scale,
     .min = 0,
     .max = 3,
     .feature_param = true,
     .alias = "sasc",
     .help = "leave this scale out of aim"},
    {.name = "adm_skip_scale0",
     .type = OptionType::kBool,
     .default_value = kDefaults.skip_scale0,
     .feature_param = true,
     .alias = "ssz",
     .help = "do not compute scale 0"},
};

class FloatAdmExtractor final : public StagedExtractor<FloatAdmSums> {
 public:
  bool reads_chroma() const override { return false; }
  FloatAdmExtractor(const OptionValues& options, FloatAdmStageFactory make_stage)
      : StagedExtractor(descriptor(), options,
                        [make_stage, params = params_of(options)](const PictureFormat& format) {
                          return make_stage(format, params);
                        }),
        params_(params_of(options)) {}

 private:
  void check_format(const PictureFormat& format) override {
    check_supported_bpc("float_adm", format.bpc);
    if (format.width == 0 || format.height == 0) throw Error("float_adm: empty picture");
    if (format.width >= kCleanSide && format.height >= kCleanSide) return;
    if (!FloatAdmComputer(format.width, format.height, params_).valid())
      throw Error("float_adm: libvmaf reads memory it never wrote on " +
                  std::to_string(format.width) + "x" + std::to_string(format.height) +
                  " pictures (its DWT and masking reach outside the smallest bands), so its "
                  "scores are undefined; pictures must be at least " +
                  std::to_string(kCleanSide) + "x" + std::to_string(kCleanSide) +
                  " (a few smaller sizes, such as 16x16, are scored: there libvmaf reads only "
                  "values it wrote earlier)");
  }

  void finish(const FloatAdmSums& sums, unsigned index, FeatureCollector& scores) override {
    // compute_adm()'s double sums of the levels' floats.
    double num = 0, den = 0, aim_num = 0, aim_den = 0;
    for (int scale = 0; scale < kScales; ++scale) {
      num += sums.num[scale];
      den += sums.den[scale];
      if (params_.skip_aim_scale != scale) {
        aim_den += sums.den[scale];
        aim_num += sums.aim_num[scale];
      }
    }
    const int w = static_cast<int>(format().width), h = static_cast<int>(format().height);
    const double numden_limit = 1e-10 * (w * h) / (1920.0 * 1080.0);
    num = num < numden_limit ? 0 : num;
    den = den < numden_limit ? 0 : den;
    // libvmaf then sets adm2 to 1 and leaves aim (and so adm3) uninitialised.
    if (den == 0.0)
      throw Error("float_adm: frame " + std::to_string(index) +
                  " has no reference energy at all (possible only with adm_noise_weight=0 on a "
                  "flat reference); libvmaf leaves its aim and adm3 undefined");
    const double aim_ratio = aim_num / aim_den;
    const double aim = aim_ratio < 1.0f ? aim_ratio : 1.0f;
    const double score = num / den;
    const auto at_least = [](double value, double min) { return value > min ? value : min; };
    scores.append(key(kAdm2), index, score);
    scores.append(key(kAim), index, aim);
    scores.append(key(kAdm3), index,
                  params_.adm3_apply_hm
                      ? at_least(2 * score * aim / (score + aim), params_.min_val)
                      : at_least(score * params_.dlm_weight + (1 - aim) * (1 - params_.dlm_weight),
                                 params_.min_val));
    for (int scale = 0; scale < kScales; ++scale)
      scores.append(key(kScale0 + scale), index,
                    static_cast<double>(sums.num[scale]) / static_cast<double>(sums.den[scale]));
    if (!params_.debug) return;
    // "adm" is not among libvmaf's provided features: its name never takes
    // the options' suffix.
    scores.append("adm", index, score);
    scores.append(key(kNum), index, num);
    scores.append(key(kDen), index, den);
    for (int scale = 0; scale < kScales; ++scale) {
      scores.append(key(kNumScale0 + 2 * scale), index, sums.num[scale]);
      scores.append(key(kNumScale0 + 2 * scale + 1), index, sums.den[scale]);
    }
  }

  FloatAdmParams params_;
};

}  // namespace

const FeatureDescriptor& descriptor() {
  static const FeatureDescriptor descriptor{
      "float_adm", "float ADM (adm2, aim, adm3, adm_scale0..3)", kProvided, kOptions};
  return descriptor;
}

FloatAdmParams params_of(const OptionValues& options) {
  FloatAdmParams params;
  params.debug = options.get_bool("debug");
  params.enhn_gain_limit = options.get_double("adm_enhn_gain_limit");
  params.norm_view_dist = options.get_double("adm_norm_view_dist");
  params.noise_weight = options.get_double("adm_noise_weight");
  params.csf_scale = options.get_double("adm_csf_scale");
  params.csf_diag_scale = options.get_double("adm_csf_diag_scale");
  params.ref_display_height = options.get_int("adm_ref_display_height");
  params.csf_mode = options.get_int("adm_csf_mode");
  params.bypass_cm = options.get_int("adm_bypass_cm");
  params.adm3_apply_hm = options.get_bool("adm_adm3_apply_hm");
  params.p_norm = options.get_double("adm_p_norm");
  params.dlm_weight = options.get_double("adm_dlm_weight");
  params.min_val = options.get_double("adm_min_val");
  for (int s = 0; s < kScales; ++s) {
    params.f1[s] = options.get_double("adm_f1s" + std::to_string(s));
    params.f2[s] = options.get_double("adm_f2s" + std::to_string(s));
  }
  params.skip_aim_scale = options.get_int("adm_skip_aim_scale");
  params.skip_scale0 = options.get_bool("adm_skip_scale0");
  return params;
}

std::unique_ptr<FeatureExtractor> make_extractor(const OptionValues& options,
                                                 FloatAdmStageFactory make_stage) {
  return std::make_unique<FloatAdmExtractor>(options, std::move(make_stage));
}

std::unique_ptr<FeatureExtractor> make_cpu_extractor(const OptionValues& options) {
  return make_extractor(options, [](const PictureFormat& format, const FloatAdmParams& params) {
    return std::make_unique<FloatAdmCpuStage>(format, params);
  });
}

}  // namespace vmafexact::float_adm
