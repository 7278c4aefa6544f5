#include "cambi/cambi_extractor.h"

#include "common/cpu.h"
#include "common/error.h"

namespace vmafexact::cambi {

namespace {

constexpr std::string_view kProvided[] = {"Cambi_feature_cambi_score"};
// libvmaf writes the full-reference scores under these names as they are.
constexpr std::string_view kSourceKey = "cambi_source";
constexpr std::string_view kFullReferenceKey = "cambi_full_reference";

// libvmaf's option table (cambi.c), in its order.
constexpr OptionSpec kOptions[] = {
    {.name = "cambi_max_val", .type = OptionType::kDouble, .default_value = CambiDefaults::max_val,
     .min = 0.0, .max = 1000.0, .feature_param = true, .alias = "cmxv",
     .help = "upper bound of the scores"},
    {.name = "enc_width", .type = OptionType::kInt, .default_value = 0, .min = 180, .max = 7680,
     .feature_param = true, .alias = "encw",
     .help = "encoding width (0: the picture's); the picture is scaled down to it"},
    {.name = "enc_height", .type = OptionType::kInt, .default_value = 0, .min = 150, .max = 7680,
     .feature_param = true, .alias = "ench", .help = "encoding height (0: the picture's)"},
    {.name = "enc_bitdepth", .type = OptionType::kInt, .default_value = 0, .min = 6, .max = 16,
     .feature_param = true, .alias = "encbd",
     .help = "encoding bit depth (0: the picture's); below 10 the picture is anti-dithered"},
    {.name = "src_width", .type = OptionType::kInt, .default_value = 0, .min = 320, .max = 7680,
     .feature_param = true, .alias = "srcw",
     .help = "source width (0: the picture's), used with full_ref"},
    {.name = "src_height", .type = OptionType::kInt, .default_value = 0, .min = 200, .max = 4320,
     .feature_param = true, .alias = "srch",
     .help = "source height (0: the picture's), used with full_ref"},
    {.name = "window_size", .type = OptionType::kInt, .default_value = CambiDefaults::window_size,
     .min = 15, .max = 127, .feature_param = true, .alias = "ws",
     .help = "window at 4K (65: about one degree), scaled to the picture"},
    {.name = "topk", .type = OptionType::kDouble, .default_value = CambiDefaults::topk, .min = 0.0001,
     .max = 1.0, .feature_param = true,
     .help = "ratio of the c-values pooled (wins over cambi_topk when not 0.6)"},
    {.name = "cambi_topk", .type = OptionType::kDouble, .default_value = CambiDefaults::cambi_topk,
     .min = 0.0001, .max = 1.0, .feature_param = true, .alias = "ctpk",
     .help = "ratio of the c-values pooled"},
    {.name = "tvi_threshold", .type = OptionType::kDouble,
     .default_value = CambiDefaults::tvi_threshold, .min = 0.0001, .max = 1.0, .feature_param = true,
     .alias = "tvit", .help = "visibility threshold of a luminance step, relative to the mean"},
    {.name = "cambi_vis_lum_threshold", .type = OptionType::kDouble,
     .default_value = CambiDefaults::vis_lum_threshold, .min = 0.0, .max = 300.0,
     .feature_param = true, .alias = "vlt",
     .help = "luminance (nits) below which banding is taken as invisible"},
    {.name = "max_log_contrast", .type = OptionType::kInt,
     .default_value = CambiDefaults::max_log_contrast, .min = 0, .max = 5, .feature_param = true,
     .alias = "mlc", .help = "largest contrast considered: 2^max_log_contrast 10-bit levels"},
    {.name = "heatmaps_path", .type = OptionType::kString,
     .help = "folder for libvmaf's debug heatmaps: not supported (an error when given)"},
    {.name = "full_ref", .type = OptionType::kBool, .default_value = CambiDefaults::full_ref,
     .help = "also score the reference: cambi_source and cambi_full_reference"},
    {.name = "eotf", .type = OptionType::kString, .feature_param = true,
     .help = "EOTF of the visibility thresholds: bt1886 or pq", .default_text = "bt1886"},
    {.name = "cambi_eotf", .type = OptionType::kString, .feature_param = true, .alias = "ceot",
     .help = "EOTF of the visibility thresholds, wins over eotf when not bt1886",
     .default_text = "bt1886"},
    {.name = "cambi_high_res_speedup", .type = OptionType::kInt,
     .default_value = CambiDefaults::high_res_speedup, .min = 0, .max = 2160, .feature_param = true,
     .alias = "hrs",
     .help = "from this height's pixel count on (1080, 1440, 2160), score at half size"},
};

class CambiExtractor final : public StagedExtractor<CambiSums> {
 public:
  bool reads_chroma() const override { return false; }
  CambiExtractor(const OptionValues& options, CambiStageFactory make_stage)
      : StagedExtractor(descriptor(), options,
                        [this, make_stage](const PictureFormat&) { return make_stage(setup_); }),
        params_(params_of(options)) {}

 private:
  void check_format(const PictureFormat& format) override { setup_ = resolve_setup(params_, format); }

  void finish(const CambiSums& sums, unsigned index, FeatureCollector& scores) override {
    const double max_val = setup_.max_val;
    auto capped = [&](double score) { return score < max_val ? score : max_val; };
    const double dist = weighted_score(sums.dist, setup_.enc.window);
    scores.append(key(0), index, capped(dist));
    if (!setup_.full_ref) return;
    if (!sums.has_src) throw Error("cambi: full_ref without the reference's scores");
    const double src = weighted_score(sums.src, setup_.src.window);
    scores.append(kSourceKey, index, capped(src));
    const double difference = dist - src;
    scores.append(kFullReferenceKey, index, capped(0 > difference ? 0.0 : difference));
  }

  CambiParams params_;
  CambiSetup setup_;
};

}  // namespace

const FeatureDescriptor& descriptor() {
  static const FeatureDescriptor descriptor{
      "cambi", "CAMBI banding (cambi; with full_ref also cambi_source, cambi_full_reference)",
      kProvided, kOptions};
  return descriptor;
}

CambiParams params_of(const OptionValues& options) {
  if (!options.get_string("heatmaps_path").empty())
    throw Error("cambi: heatmaps_path is not supported (libvmaf's debug heatmap files)");
  CambiParams p;
  p.max_val = options.get_double("cambi_max_val");
  p.enc_width = options.get_int("enc_width");
  p.enc_height = options.get_int("enc_height");
  p.enc_bitdepth = options.get_int("enc_bitdepth");
  p.src_width = options.get_int("src_width");
  p.src_height = options.get_int("src_height");
  p.window_size = options.get_int("window_size");
  p.topk = options.get_double("topk");
  p.cambi_topk = options.get_double("cambi_topk");
  p.tvi_threshold = options.get_double("tvi_threshold");
  p.vis_lum_threshold = options.get_double("cambi_vis_lum_threshold");
  p.max_log_contrast = options.get_int("max_log_contrast");
  p.full_ref = options.get_bool("full_ref");
  p.eotf = options.get_string("eotf");
  p.cambi_eotf = options.get_string("cambi_eotf");
  p.high_res_speedup = options.get_int("cambi_high_res_speedup");
  return p;
}

CambiCpuStage::CambiCpuStage(const CambiSetup& setup)
    : CambiCpuStage(setup, cambi_dsp(cpu::flags())) {}

CambiCpuStage::CambiCpuStage(const CambiSetup& setup, const CambiDsp& dsp)
    : setup_(setup), picture_(setup_, dsp) {}

CambiSums CambiCpuStage::compute(const PictureView& ref, const PictureView& dist, unsigned) {
  const PlaneView& dist_luma = dist.planes[0];
  if (dist_luma.width != setup_.format.width || dist_luma.height != setup_.format.height ||
      dist.bpc != setup_.format.bpc)
    throw Error("cambi: picture format differs from the one given to init()");
  CambiSums sums;
  sums.dist = picture_.score(dist_luma, setup_.enc);
  if (setup_.full_ref) {
    sums.src = picture_.score(ref.planes[0], setup_.src);
    sums.has_src = true;
  }
  return sums;
}

std::unique_ptr<FeatureExtractor> make_extractor(const OptionValues& options,
                                                 CambiStageFactory make_stage) {
  return std::make_unique<CambiExtractor>(options, std::move(make_stage));
}

std::unique_ptr<FeatureExtractor> make_cpu_extractor(const OptionValues& options) {
  return make_extractor(options, [](const CambiSetup& setup) {
    return std::make_unique<CambiCpuStage>(setup);  // its DSP table chosen once per stream
  });
}

}  // namespace vmafexact::cambi
