#include "float_vif/float_vif_extractor.h"

#include <string>

#include "common/error.h"

namespace vmafexact::float_vif {

namespace {

constexpr std::string_view kProvided[] = {"VMAF_feature_vif_scale0_score",
                                          "VMAF_feature_vif_scale1_score",
                                          "VMAF_feature_vif_scale2_score",
                                          "VMAF_feature_vif_scale3_score",
                                          "vif",
                                          "vif_num",
                                          "vif_den",
                                          "vif_num_scale0",
                                          "vif_den_scale0",
                                          "vif_num_scale1",
                                          "vif_den_scale1",
                                          "vif_num_scale2",
                                          "vif_den_scale2",
                                          "vif_num_scale3",
                                          "vif_den_scale3"};
enum ProvidedIndex { kScale0 = 0, kVif = 4, kNum = 5, kDen = 6, kNumScale0 = 7 };

constexpr FloatVifParams kDefaults{};

// float_vif.c's table, in its order.
constexpr OptionSpec kOptions[] = {
    {.name = "debug",
     .type = OptionType::kBool,
     .default_value = 0,
     .help = "also write vif, vif_num, vif_den and each scale's num and den"},
    {.name = "vif_enhn_gain_limit",
     .type = OptionType::kDouble,
     .default_value = kDefaults.enhn_gain_limit,
     .min = 1.0,
     .max = 100.0,
     .feature_param = true,
     .alias = "egl",
     .help = "enhancement gain limit (1: no gain)"},
    {.name = "vif_kernelscale",
     .type = OptionType::kDouble,
     .default_value = kDefaults.kernelscale,
     .min = 0.1,
     .max = 4.0,
     .feature_param = true,
     .alias = "ks",
     .help = "scale of the Gaussian filters (one of libvmaf's 21 listed values)"},
    {.name = "vif_prescale",
     .type = OptionType::kDouble,
     .default_value = kDefaults.prescale,
     .min = 0.1,
     .max = 4.0,
     .feature_param = true,
     .alias = "ps",
     .help = "resize the pictures by this factor first"},
    {.name = "vif_scale1_min_val",
     .type = OptionType::kDouble,
     .default_value = 0.0,
     .min = 0.0,
     .max = 1.0,
     .feature_param = true,
     .alias = "s1miv",
     .help = "lower bound of vif_scale1"},
    {.name = "vif_scale2_min_val",
     .type = OptionType::kDouble,
     .default_value = 0.0,
     .min = 0.0,
     .max = 1.0,
     .feature_param = true,
     .alias = "s2miv",
     .help = "lower bound of vif_scale2"},
    {.name = "vif_scale3_min_val",
     .type = OptionType::kDouble,
     .default_value = 0.0,
     .min = 0.0,
     .max = 1.0,
     .feature_param = true,
     .alias = "s3miv",
     .help = "lower bound of vif_scale3"},
    {.name = "vif_prescale_method",
     .type = OptionType::kString,
     .feature_param = true,
     .alias = "pm",
     .help = "resizing method: nearest, bilinear, bicubic or lanczos4",
     .default_text = "nearest"},
    {.name = "vif_sigma_nsq",
     .type = OptionType::kDouble,
     .default_value = kDefaults.sigma_nsq,
     .min = 0.0,
     .max = 5.0,
     .feature_param = true,
     .alias = "snsq",
     .help = "neural noise variance"},
    {.name = "vif_skip_scale0",
     .type = OptionType::kBool,
     .default_value = kDefaults.skip_scale0,
     .feature_param = true,
     .alias = "ssclz",
     .help = "write 0 for scale 0, compute scales 1..3"},
};

class FloatVifExtractor final : public StagedExtractor<FloatVifSums> {
 public:
  bool reads_chroma() const override { return false; }
  FloatVifExtractor(const OptionValues& options, FloatVifStageFactory make_stage)
      : StagedExtractor(descriptor(), options,
                        [make_stage, params = params_of(options)](const PictureFormat& format) {
                          return make_stage(format, params);
                        }),
        params_(params_of(options)) {}

 private:
  void check_format(const PictureFormat& format) override {
    check_supported_bpc("float_vif", format.bpc);
    if (format.width == 0 || format.height == 0) throw Error("float_vif: empty picture");
    const ScaleSize scaled = prescaled_size(format.width, format.height, params_.prescale);
    if (params_.prescale_method == ScaleMethod::kBilinear && scaled.width > kBilinearMaxWidth)
      throw Error("float_vif: bilinear prescaling takes at most " +
                  std::to_string(kBilinearMaxWidth) +
                  " columns (libvmaf's limit); this one makes " + std::to_string(scaled.width));
    // libvmaf's compute_vif() fails on any other kernel scale, at every frame.
    if (!valid_kernelscale(params_.kernelscale))
      throw Error("float_vif: vif_kernelscale=" + format_option_double(params_.kernelscale) +
                  " is not one of libvmaf's kernel scales (1, 0.5, 1.5, 2, 2/3, 2.4, 360/97, "
                  "4/3, 3.5/3, 3.75/3, 4.25/3, 5/3, 3, 1/2.25, 1.4746, 1.54, 1.6, 1.06667, "
                  "0.711111, 0.74074, 1.111111)");
    // Each scale's filters mirror their taps once at the borders: a scale
    // narrower than the filter's radius + 1 makes libvmaf read samples it
    // never wrote (or outside its buffers).
    const auto sizes = scale_sizes(scaled.width, scaled.height);
    for (int scale = params_.skip_scale0 ? 1 : 0; scale < kScales; ++scale) {
      const unsigned side =
          static_cast<unsigned>(vif_filter(scale, params_.kernelscale).size() / 2 + 1);
      if (sizes[scale].width < side || sizes[scale].height < side) {
        const unsigned factor = 1u << scale;
        throw Error("float_vif: pictures must be at least " + std::to_string(side * factor) + "x" +
                    std::to_string(side * factor) +
                    (params_.prescale != 1.0 ? " after vif_prescale" : "") + " (scale " +
                    std::to_string(scale) + " is " + std::to_string(sizes[scale].width) + "x" +
                    std::to_string(sizes[scale].height) + ", its filter needs " +
                    std::to_string(side) + "x" + std::to_string(side) + "); this one is " +
                    std::to_string(scaled.width) + "x" + std::to_string(scaled.height));
      }
    }
  }

  void finish(const FloatVifSums& sums, unsigned index, FeatureCollector& scores) override {
    // libvmaf's double scores[8]: each scale's float num and den.
    double values[2 * kScales];
    for (int s = 0; s < kScales; ++s) {
      values[2 * s] = sums.num[s];
      values[2 * s + 1] = sums.den[s];
    }
    const auto at_least = [](double value, double min) { return value > min ? value : min; };
    scores.append(key(kScale0), index, params_.skip_scale0 ? 0.0 : values[0] / values[1]);
    for (int s = 1; s < kScales; ++s)
      scores.append(key(kScale0 + s), index,
                    at_least(values[2 * s] / values[2 * s + 1], params_.scale_min_val[s]));
    if (!params_.debug) return;
    const int start = params_.skip_scale0 ? 1 : 0;
    double num = 0.0, den = 0.0;
    for (int s = start; s < kScales; ++s) {
      num += values[2 * s];
      den += values[2 * s + 1];
    }
    scores.append(key(kVif), index, den == 0.0 ? 1.0 : num / den);
    scores.append(key(kNum), index, num);
    scores.append(key(kDen), index, den);
    for (int s = 0; s < kScales; ++s) {
      const bool skipped = s == 0 && params_.skip_scale0;
      scores.append(key(kNumScale0 + 2 * s), index, skipped ? 0.0 : values[2 * s]);
      scores.append(key(kNumScale0 + 2 * s + 1), index, skipped ? -1.0 : values[2 * s + 1]);
    }
  }

  FloatVifParams params_;
};

}  // namespace

const FeatureDescriptor& descriptor() {
  static const FeatureDescriptor descriptor{"float_vif", "float VIF (vif_scale0..3)", kProvided,
                                            kOptions};
  return descriptor;
}

FloatVifParams params_of(const OptionValues& options) {
  FloatVifParams params;
  params.debug = options.get_bool("debug");
  params.enhn_gain_limit = options.get_double("vif_enhn_gain_limit");
  params.kernelscale = options.get_double("vif_kernelscale");
  params.prescale = options.get_double("vif_prescale");
  params.scale_min_val[1] = options.get_double("vif_scale1_min_val");
  params.scale_min_val[2] = options.get_double("vif_scale2_min_val");
  params.scale_min_val[3] = options.get_double("vif_scale3_min_val");
  const std::string& method = options.get_string("vif_prescale_method");
  const auto scale_method = scale_method_from_name(method);
  if (!scale_method)
    throw Error("float_vif: unknown vif_prescale_method '" + method +
                "' (libvmaf takes nearest, bilinear, bicubic or lanczos4)");
  params.prescale_method = *scale_method;
  params.sigma_nsq = options.get_double("vif_sigma_nsq");
  params.skip_scale0 = options.get_bool("vif_skip_scale0");
  return params;
}

std::unique_ptr<FeatureExtractor> make_extractor(const OptionValues& options,
                                                 FloatVifStageFactory make_stage) {
  return std::make_unique<FloatVifExtractor>(options, std::move(make_stage));
}

std::unique_ptr<FeatureExtractor> make_cpu_extractor(const OptionValues& options) {
  return make_extractor(options, [](const PictureFormat& format, const FloatVifParams& params) {
    return std::make_unique<FloatVifCpuStage>(format, params);
  });
}

}  // namespace vmafexact::float_vif
