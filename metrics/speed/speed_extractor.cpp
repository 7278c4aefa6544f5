#include "speed/speed_extractor.h"

#include <cstring>
#include <string>

#include "common/cpu.h"
#include "common/error.h"
#include "speed/speed_dsp.h"

namespace vmafexact::speed {

namespace {

constexpr std::string_view kChromaProvided[] = {"Speed_chroma_feature_speed_chroma_u_score",
                                                "Speed_chroma_feature_speed_chroma_v_score",
                                                "Speed_chroma_feature_speed_chroma_uv_score"};
enum ChromaIndex { kU, kV, kUV };
constexpr std::string_view kTemporalProvided[] = {"Speed_temporal_feature_speed_temporal_score"};

// The options both libvmaf tables share, in its order; then speed_chroma's
// speed_max_val and speed_weight_var_mode, or speed_temporal's speed_max_val
// (a feature parameter that names the score but clips nothing) and
// speed_use_ref_diff.
#define VMAFEXACT_SPEED_COMMON_OPTIONS                                                            \
  {.name = "speed_kernelscale", .type = OptionType::kDouble, .default_value = 1.0, .min = 0.1,   \
   .max = 4.0, .feature_param = true, .alias = "ks",                                              \
   .help = "scale of the Gaussian kernels (one of libvmaf's table, e.g. 1, 0.5, 1.5, 2)"},       \
      {.name = "speed_prescale", .type = OptionType::kDouble, .default_value = 1.0, .min = 0.1,  \
       .max = 4.0, .feature_param = true, .alias = "ps",                                          \
       .help = "scale factor of the picture before filtering (2 doubles each side)"},             \
      {.name = "speed_prescale_method", .type = OptionType::kString, .feature_param = true,      \
       .alias = "psm", .help = "prescale method: nearest, bilinear, bicubic or lanczos4",         \
       .default_text = "nearest"},                                                                \
      {.name = "speed_sigma_nn", .type = OptionType::kDouble, .default_value = 0.29, .min = 0.1, \
       .max = 2.0, .feature_param = true, .alias = "snn",                                         \
       .help = "standard deviation of the neural noise"},                                        \
      {.name = "speed_nn_floor", .type = OptionType::kDouble, .default_value = 0.0, .min = 0.0,  \
       .max = 1.0, .feature_param = true, .alias = "nnf",                                         \
       .help = "neural noise floor, as a fraction of speed_sigma_nn"}

constexpr OptionSpec kChromaOptions[] = {
    VMAFEXACT_SPEED_COMMON_OPTIONS,
    {.name = "speed_max_val", .type = OptionType::kDouble, .default_value = 1000.0, .min = 0.0,
     .max = 1000.0, .feature_param = true, .alias = "mxv",
     .help = "upper bound of the scores (larger ones are clipped to it)"},
    {.name = "speed_weight_var_mode", .type = OptionType::kInt, .default_value = 0, .min = 0,
     .max = 6, .feature_param = true, .alias = "wvm",
     .help = "how the variances weight the entropies (libvmaf's modes 0 to 6)"},
};

constexpr OptionSpec kTemporalOptions[] = {
    VMAFEXACT_SPEED_COMMON_OPTIONS,
    {.name = "speed_max_val", .type = OptionType::kDouble, .default_value = 1000.0, .min = 0.0,
     .max = 1000.0, .feature_param = true, .alias = "mxv",
     .help = "names the score only: libvmaf's speed_temporal clips nothing with it"},
    {.name = "speed_use_ref_diff", .type = OptionType::kBool, .default_value = 0,
     .feature_param = true, .alias = "urd",
     .help = "the distorted difference is previous distorted - current reference"},
};

#undef VMAFEXACT_SPEED_COMMON_OPTIONS

unsigned bytes_per_sample(unsigned bpc) { return bpc == 8 ? 1u : 2u; }

class SpeedChromaExtractor final : public StagedExtractor<ChromaSums> {
 public:
  SpeedChromaExtractor(const OptionValues& options, ChromaStageFactory make_stage)
      : StagedExtractor(chroma_descriptor(), options,
                        [make_stage, params = params_of(options)](const PictureFormat& format) {
                          const SpeedGeometry chroma = SpeedGeometry::of(
                              chroma_plane_width(format.width, format.chroma),
                              chroma_plane_height(format.height, format.chroma), params.prescale);
                          return make_stage(format, chroma, params);
                        }),
        max_val_(options.get_double("speed_max_val")),
        params_(params_of(options)) {}

 private:
  void check_format(const PictureFormat& format) override {
    check_supported_bpc("speed_chroma", format.bpc);
    if (format.chroma == ChromaFormat::k400)
      throw Error("speed_chroma: gray (4:0:0) pictures have no chroma planes; libvmaf refuses "
                  "them too");
    const unsigned chroma_w = chroma_plane_width(format.width, format.chroma);
    const unsigned chroma_h = chroma_plane_height(format.height, format.chroma);
    // The smallest picture of this chroma format whose planes are large enough
    // without prescaling.
    const bool halved_w = format.chroma != ChromaFormat::k444;
    const bool halved_h = format.chroma == ChromaFormat::k420;
    const unsigned min_w = kMinScaledSide * (halved_w ? 2 : 1);
    const unsigned min_h = kMinScaledSide * (halved_h ? 2 : 1);
    const std::string format_name(chroma_format_name(format.chroma));
    checked_geometry("speed_chroma", "the " + format_name + " chroma planes", chroma_w, chroma_h,
                     params_,
                     "; unscaled, a " + format_name + " picture needs at least " +
                         size_text(min_w, min_h) + " (this one is " +
                         size_text(format.width, format.height) + ")");
  }

  void finish(const ChromaSums& sums, unsigned index, FeatureCollector& scores) override {
    const float u = sums.u.score, v = sums.v.score;
    // A singular channel takes the other's score for the mean (libvmaf's
    // imputation); otherwise (u + v) / 2 with the sum in float.
    float uv;
    if (sums.u.singular && !sums.v.singular) uv = v;
    else if (sums.v.singular && !sums.u.singular) uv = u;
    else uv = static_cast<float>(static_cast<double>(u + v) / 2.0);
    // MIN(score, max_val) in double; a NaN score gives max_val, as there.
    const auto clipped = [&](float score) {
      return static_cast<double>(score) < max_val_ ? static_cast<double>(score) : max_val_;
    };
    scores.append(key(kU), index, clipped(u));
    scores.append(key(kV), index, clipped(v));
    scores.append(key(kUV), index, clipped(uv));
  }

  double max_val_;
  SpeedParams params_;
};

class SpeedTemporalExtractor final : public StagedExtractor<TemporalSums> {
 public:
  bool reads_chroma() const override { return false; }
  SpeedTemporalExtractor(const OptionValues& options, TemporalStageFactory make_stage)
      : StagedExtractor(temporal_descriptor(), options,
                        [make_stage, params = params_of(options),
                         use_ref_diff = options.get_bool("speed_use_ref_diff")](
                            const PictureFormat& format) {
                          const SpeedGeometry luma =
                              SpeedGeometry::of(format.width, format.height, params.prescale);
                          return make_stage(format, luma, params, use_ref_diff);
                        }),
        params_(params_of(options)) {}

  // libvmaf flags speed_temporal TEMPORAL: it sees every frame, in order.
  bool sees_every_frame() const override { return true; }
  // Its scores are written when their frame is extracted (no latency), but it
  // keeps the previous frame, so it runs on one instance, frames in order.
  bool keeps_state() const override { return true; }

  void extract(const PictureView& ref, const PictureView& dist, unsigned index,
               FeatureCollector& scores) override {
    if (index != frames_seen_)
      throw Error("speed_temporal: frames must arrive in order from 0 (expected frame " +
                  std::to_string(frames_seen_) + ", got " + std::to_string(index) + ")");
    const PlaneView& luma = ref.planes[0];
    if (luma.width != format().width || luma.height != format().height || ref.bpc != format().bpc)
      throw Error("speed_temporal: picture format differs from the one given to init()");
    StagedExtractor::extract(ref, dist, index, scores);
  }

 private:
  void check_format(const PictureFormat& format) override {
    check_supported_bpc("speed_temporal", format.bpc);
    const SpeedGeometry g =
        checked_geometry("speed_temporal", "luma planes", format.width, format.height, params_, "");
    // libvmaf's two frame buffers per picture hold `height` rows only: a
    // prescale that adds rows writes beyond them (heap corruption there).
    if (g.scaled_height > g.height)
      throw Error("speed_temporal: speed_prescale=" + format_option_double(params_.prescale) +
                  " scales " + size_text(format.width, format.height) + " pictures to " +
                  size_text(g.scaled_width, g.scaled_height) +
                  ", taller than the picture; libvmaf's speed_temporal then writes beyond its "
                  "frame buffers. Use a prescale that does not add rows (at most 1)");
  }

  void start(const PictureFormat&) override { frames_seen_ = 0; }

  void finish(const TemporalSums& score, unsigned index, FeatureCollector& scores) override {
    if (index > 0 && !score)
      throw Error("speed_temporal: no previous frame for frame " + std::to_string(index));
    ++frames_seen_;
    // The first frame scores 0; the others are not clipped (libvmaf's
    // speed_temporal never applies speed_max_val).
    scores.append(key(0), index, score ? static_cast<double>(*score) : 0.0);
  }

  SpeedParams params_;
  unsigned frames_seen_ = 0;
};

}  // namespace

const FeatureDescriptor& chroma_descriptor() {
  static const FeatureDescriptor descriptor{
      "speed_chroma",
      "SpEED of the chroma planes (speed_chroma_u, speed_chroma_v, speed_chroma_uv)",
      kChromaProvided, kChromaOptions};
  return descriptor;
}

const FeatureDescriptor& temporal_descriptor() {
  static const FeatureDescriptor descriptor{
      "speed_temporal", "SpEED of the luma frame differences (speed_temporal)", kTemporalProvided,
      kTemporalOptions};
  return descriptor;
}

SpeedParams params_of(const OptionValues& options) {
  const std::string& extractor = options.extractor();
  SpeedParams params;
  params.kernelscale = options.get_double("speed_kernelscale");
  if (!is_valid_kernelscale(params.kernelscale))
    throw Error(extractor + ": speed_kernelscale=" + format_option_double(params.kernelscale) +
                " is not one of libvmaf's kernel scales (" + std::string(kKernelscaleValues) +
                "); libvmaf crashes with it");
  params.prescale = options.get_double("speed_prescale");
  const std::string& method = options.get_string("speed_prescale_method");
  const auto scale_method = scale_method_from_name(method);
  if (!scale_method)
    throw Error(extractor + ": speed_prescale_method=" + method + " is not one of " +
                std::string(kScaleMethodNames) + "; libvmaf crashes with it");
  params.prescale_method = *scale_method;
  params.sigma_nn = options.get_double("speed_sigma_nn");
  params.nn_floor = options.get_double("speed_nn_floor");
  // speed_temporal's table has no weight mode; libvmaf leaves it 0.
  params.weight_var_mode =
      extractor == "speed_chroma" ? options.get_int("speed_weight_var_mode") : 0;
  return params;
}

SpeedGeometry checked_geometry(std::string_view extractor, std::string_view what, unsigned width,
                               unsigned height, const SpeedParams& params, std::string_view hint) {
  const SpeedGeometry g = SpeedGeometry::of(width, height, params.prescale);
  const std::string name(extractor);
  const std::string scaled =
      params.prescale == 1.0
          ? std::string()
          : " (" + size_text(g.scaled_width, g.scaled_height) + " with speed_prescale=" +
                format_option_double(params.prescale) + ")";
  if (!g.has_blocks())
    throw Error(name + ": " + std::string(what) + " of " + size_text(width, height) + scaled +
                " are smaller than libvmaf's minimum of " + std::to_string(kMinScaledSide) + "x" +
                std::to_string(kMinScaledSide) +
                " samples (one 5x5 block after 16x decimation); libvmaf logs \"SpEED: image too "
                "small\" and crashes on them" + std::string(hint));
  if (!g.rescaled && (g.scaled_width > width || g.scaled_height > height))
    throw Error(name + ": speed_prescale=" + format_option_double(params.prescale) +
                " is within 1e-3 of 1, so libvmaf does not scale, but it rounds " +
                size_text(width, height) + " up to " + size_text(g.scaled_width, g.scaled_height) +
                " and filters samples it never wrote. Use speed_prescale=1 or one at least "
                "1e-3 away from it");
  return g;
}

SpeedChromaCpuStage::SpeedChromaCpuStage(const SpeedGeometry& chroma, const SpeedParams& params,
                                         const SpeedDsp& dsp)
    : kernel_(chroma, params, dsp), dsp_(&dsp) {}

ChromaSums SpeedChromaCpuStage::compute(const PictureView& ref, const PictureView& dist, unsigned) {
  ChromaSums sums;
  PlaneRows ref_u(ref.planes[1], ref.bpc, *dsp_), dis_u(dist.planes[1], ref.bpc, *dsp_);
  sums.u = kernel_.score(ref_u, dis_u);
  PlaneRows ref_v(ref.planes[2], ref.bpc, *dsp_), dis_v(dist.planes[2], ref.bpc, *dsp_);
  sums.v = kernel_.score(ref_v, dis_v);
  return sums;
}

SpeedTemporalCpuStage::SpeedTemporalCpuStage(const PictureFormat& format,
                                             const SpeedGeometry& luma, const SpeedParams& params,
                                             bool use_ref_diff, const SpeedDsp& dsp)
    : format_(format), use_ref_diff_(use_ref_diff), kernel_(luma, params, dsp), dsp_(&dsp) {}

TemporalSums SpeedTemporalCpuStage::compute(const PictureView& ref, const PictureView& dist,
                                            unsigned) {
  const unsigned w = format_.width, h = format_.height;
  const std::size_t row_bytes = std::size_t{w} * bytes_per_sample(format_.bpc);
  TemporalSums score;
  if (!previous_ref_.empty()) {
    const PlaneView prev_ref{previous_ref_.data(), static_cast<std::ptrdiff_t>(row_bytes), w, h};
    const PlaneView prev_dis{previous_dis_.data(), static_cast<std::ptrdiff_t>(row_bytes), w, h};
    PlaneRows prev_ref_rows(prev_ref, format_.bpc, *dsp_), prev_dis_rows(prev_dis, format_.bpc, *dsp_);
    PlaneRows cur_ref_rows(ref.planes[0], format_.bpc, *dsp_);
    PlaneRows cur_dis_rows(dist.planes[0], format_.bpc, *dsp_);
    DifferenceRows ref_diff(prev_ref_rows, cur_ref_rows, w, *dsp_);
    DifferenceRows dis_diff(prev_dis_rows, use_ref_diff_ ? cur_ref_rows : cur_dis_rows, w, *dsp_);
    score = kernel_.score(ref_diff, dis_diff).score;
  }
  const auto keep = [&](const PlaneView& plane, std::vector<std::uint8_t>& copy) {
    copy.resize(row_bytes * h);
    for (unsigned y = 0; y < h; ++y)
      std::memcpy(copy.data() + row_bytes * y, plane.data + plane.stride * static_cast<std::ptrdiff_t>(y),
                  row_bytes);
  };
  keep(ref.planes[0], previous_ref_);
  keep(dist.planes[0], previous_dis_);
  return score;
}

std::unique_ptr<FeatureExtractor> make_chroma_extractor(const OptionValues& options,
                                                        ChromaStageFactory make_stage) {
  return std::make_unique<SpeedChromaExtractor>(options, std::move(make_stage));
}

std::unique_ptr<FeatureExtractor> make_temporal_extractor(const OptionValues& options,
                                                          TemporalStageFactory make_stage) {
  return std::make_unique<SpeedTemporalExtractor>(options, std::move(make_stage));
}

std::unique_ptr<FeatureExtractor> make_chroma_cpu_extractor(const OptionValues& options) {
  return make_chroma_extractor(
      options, [](const PictureFormat&, const SpeedGeometry& chroma, const SpeedParams& params) {
        return std::make_unique<SpeedChromaCpuStage>(chroma, params, speed_dsp(cpu::flags()));
      });
}

std::unique_ptr<FeatureExtractor> make_temporal_cpu_extractor(const OptionValues& options) {
  return make_temporal_extractor(options, [](const PictureFormat& format, const SpeedGeometry& luma,
                                             const SpeedParams& params, bool use_ref_diff) {
    return std::make_unique<SpeedTemporalCpuStage>(format, luma, params, use_ref_diff,
                                                   speed_dsp(cpu::flags()));
  });
}

}  // namespace vmafexact::speed
