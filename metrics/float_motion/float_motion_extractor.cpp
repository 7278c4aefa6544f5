#include "float_motion/float_motion_extractor.h"

#include <string>

#include "common/error.h"
#include "motion/motion.h"

namespace vmafexact::float_motion {

namespace {

constexpr std::string_view kProvided[] = {"VMAF_feature_motion_score", "VMAF_feature_motion2_score",
                                          "VMAF_feature_motion3_score"};
enum ProvidedIndex { kMotion, kMotion2, kMotion3 };

constexpr FloatMotionParams kDefaults{};

// float_motion.c's table, in its order.
constexpr OptionSpec kOptions[] = {
    {.name = "debug",
     .type = OptionType::kBool,
     .default_value = kDefaults.debug,
     .help = "write each frame's own score as motion (on by default)"},
    {.name = "motion_force_zero",
     .type = OptionType::kBool,
     .default_value = kDefaults.force_zero,
     .feature_param = true,
     .alias = "force_0",
     .help = "write 0 for every frame, read nothing"},
    {.name = "motion_fps_weight",
     .type = OptionType::kDouble,
     .default_value = kDefaults.fps_weight,
     .min = 0.0,
     .max = 5.0,
     .feature_param = true,
     .alias = "mfw",
     .help = "weight of the scores (frame-rate correction)"},
    {.name = "motion_blend_factor",
     .type = OptionType::kDouble,
     .default_value = kDefaults.blend_factor,
     .min = 0.0,
     .max = 1.0,
     .feature_param = true,
     .alias = "mbf",
     .help = "blend factor of motion3"},
    {.name = "motion_blend_offset",
     .type = OptionType::kDouble,
     .default_value = kDefaults.blend_offset,
     .min = 0.0,
     .max = 1000.0,
     .feature_param = true,
     .alias = "mbo",
     .help = "blend offset of motion3"},
    {.name = "motion_add_scale1",
     .type = OptionType::kBool,
     .default_value = kDefaults.add_scale1,
     .feature_param = true,
     .alias = "mdc",
     .help = "add the score of both planes bilinearly halved"},
    {.name = "motion_filter_size",
     .type = OptionType::kInt,
     .default_value = kDefaults.filter_size,
     .min = 0,
     .max = 9,
     .feature_param = true,
     .alias = "mfs",
     .help = "blur filter: 1 (none), 3 (three taps), any other value five taps"},
    {.name = "motion_add_uv",
     .type = OptionType::kBool,
     .default_value = kDefaults.add_uv,
     .feature_param = true,
     .alias = "mau",
     .help = "add the chroma planes' scores"},
    {.name = "motion_max_val",
     .type = OptionType::kDouble,
     .default_value = kDefaults.max_val,
     .min = 0.0,
     .max = 10000.0,
     .feature_param = true,
     .alias = "mmxv",
     .help = "upper bound of the scores"},
};

class FloatMotionExtractor final : public StagedExtractor<FloatMotionSums> {
 public:
  bool reads_chroma() const override { return false; }
  FloatMotionExtractor(const OptionValues& options, FloatMotionStageFactory make_stage)
      : StagedExtractor(descriptor(), options,
                        [make_stage, params = params_of(options)](const PictureFormat& format) {
                          return make_stage(format, params);
                        }),
        params_(params_of(options)) {}

  unsigned latency_frames() const override { return params_.force_zero ? 0u : 1u; }
  bool keeps_state() const override { return true; }
  // libvmaf flags float_motion TEMPORAL: under subsampling it sees every frame.
  bool sees_every_frame() const override { return true; }

  void submit(const PictureView& ref, const PictureView& dist, unsigned index) override {
    if (!params_.force_zero) StagedExtractor::submit(ref, dist, index);
  }

  void extract(const PictureView& ref, const PictureView& dist, unsigned index,
               FeatureCollector& scores) override {
    if (index != frames_seen_)
      throw Error("float_motion: frames must arrive in order from 0 (expected frame " +
                  std::to_string(frames_seen_) + ", got " + std::to_string(index) + ")");
    ++frames_seen_;
    if (params_.force_zero) {
      // Nothing is read; libvmaf writes motion2, motion3 and (debug) motion as 0.
      scores.append(key(kMotion2), index, 0.0);
      scores.append(key(kMotion3), index, 0.0);
      if (params_.debug) scores.append(key(kMotion), index, 0.0);
      return;
    }
    StagedExtractor::extract(ref, dist, index, scores);
  }

  void flush(FeatureCollector& scores) override {
    if (params_.force_zero || frames_seen_ == 0 || flushed_) return;
    flushed_ = true;
    const unsigned last = frames_seen_ - 1;
    if (last > 0) {
      scores.append(key(kMotion2), last, weighted(previous_score_), WritePhase::kFlush);
      scores.append(key(kMotion3), last, blended(previous_score_), WritePhase::kFlush);
    } else {
      scores.append(key(kMotion3), last, 0.0, WritePhase::kFlush);
    }
  }

 private:
  void check_format(const PictureFormat& format) override {
    check_supported_bpc("float_motion", format.bpc);
    if (format.width == 0 || format.height == 0) throw Error("float_motion: empty picture");
    if (params_.force_zero) return;  // nothing is read
    if (params_.add_uv && format.chroma == ChromaFormat::k400)
      throw Error("float_motion: motion_add_uv needs chroma planes (libvmaf refuses gray input)");
    if (params_.add_uv && params_.add_scale1)
      throw Error(
          "float_motion: motion_add_uv with motion_add_scale1 is not supported: libvmaf halves "
          "the chroma planes with the chroma width's row stride over buffers laid out with the "
          "luma's, reading samples it never wrote");
    if (params_.add_scale1 &&
        static_cast<int>(format.width * 0.5 + 0.5) > static_cast<int>(kBilinearMaxWidth))
      throw Error("float_motion: motion_add_scale1 takes pictures at most " +
                  std::to_string(2 * kBilinearMaxWidth) +
                  " wide (libvmaf's bilinear limit); "
                  "this one is " +
                  std::to_string(format.width));
    // The mirrored filter reads outside the plane below radius + 1 samples.
    const unsigned side = min_side(params_.filter_size);
    const auto check_plane = [&](unsigned w, unsigned h, const char* what) {
      if (w < side || h < side)
        throw Error("float_motion: " + std::string(what) + " must be at least " +
                    std::to_string(side) + "x" + std::to_string(side) + " for its " +
                    std::to_string(motion_filter(params_.filter_size).size()) +
                    "-tap filter; this one is " + std::to_string(w) + "x" + std::to_string(h));
    };
    check_plane(format.width, format.height, "pictures");
    if (params_.add_uv)
      check_plane(chroma_plane_width(format.width, format.chroma),
                  chroma_plane_height(format.height, format.chroma),
                  "chroma planes (motion_add_uv)");
  }

  void start(const PictureFormat&) override {
    frames_seen_ = 0;
    previous_score_ = 0.0;
    flushed_ = false;
  }

  // MIN(score * motion_fps_weight, motion_max_val), and its blend.
  double weighted(double score) const {
    const double value = score * params_.fps_weight;
    return value < params_.max_val ? value : params_.max_val;
  }
  double blended(double score) const {
    const double value = motion::motion_blend(score * params_.fps_weight, params_.blend_factor,
                                              params_.blend_offset);
    return value < params_.max_val ? value : params_.max_val;
  }

  void finish(const FloatMotionSums& sums, unsigned index, FeatureCollector& scores) override {
    if (!sums) {
      if (index != 0)
        throw Error("float_motion: no earlier frame for frame " + std::to_string(index));
      scores.append(key(kMotion2), index, 0.0);
      if (params_.debug) scores.append(key(kMotion), index, 0.0);
      return;
    }
    const double score = *sums;
    if (params_.debug) scores.append(key(kMotion), index, weighted(score));
    if (index == 1) {
      scores.append(key(kMotion3), 0, blended(score));
    } else {
      // libvmaf recomputes the previous frame's score (the same bits) and
      // keeps the smaller.
      const double smaller = previous_score_ < score ? previous_score_ : score;
      scores.append(key(kMotion2), index - 1, weighted(smaller));
      scores.append(key(kMotion3), index - 1, blended(smaller));
    }
    previous_score_ = score;
  }

  FloatMotionParams params_;
  unsigned frames_seen_ = 0;
  double previous_score_ = 0.0;
  bool flushed_ = false;
};

}  // namespace

const FeatureDescriptor& descriptor() {
  static const FeatureDescriptor descriptor{
      "float_motion", "float motion (motion2, motion3, and each frame's motion)", kProvided,
      kOptions};
  return descriptor;
}

FloatMotionParams params_of(const OptionValues& options) {
  FloatMotionParams params;
  params.debug = options.get_bool("debug");
  params.force_zero = options.get_bool("motion_force_zero");
  params.fps_weight = options.get_double("motion_fps_weight");
  params.blend_factor = options.get_double("motion_blend_factor");
  params.blend_offset = options.get_double("motion_blend_offset");
  params.add_scale1 = options.get_bool("motion_add_scale1");
  params.filter_size = options.get_int("motion_filter_size");
  params.add_uv = options.get_bool("motion_add_uv");
  params.max_val = options.get_double("motion_max_val");
  return params;
}

std::unique_ptr<FeatureExtractor> make_extractor(const OptionValues& options,
                                                 FloatMotionStageFactory make_stage) {
  return std::make_unique<FloatMotionExtractor>(options, std::move(make_stage));
}

std::unique_ptr<FeatureExtractor> make_cpu_extractor(const OptionValues& options) {
  return make_extractor(options, [](const PictureFormat& format, const FloatMotionParams& params) {
    return std::make_unique<FloatMotionCpuStage>(format, params);
  });
}

}  // namespace vmafexact::float_motion
