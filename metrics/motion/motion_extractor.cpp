#include "motion/motion_extractor.h"

#include <cstring>

#include "common/cpu.h"
#include "common/error.h"
#include "motion/motion_dsp.h"

namespace vmafexact::motion {

namespace {

constexpr std::string_view kProvided[] = {
    "VMAF_integer_feature_motion_sad_score", "VMAF_integer_feature_motion_score",
    "VMAF_integer_feature_motion2_score", "VMAF_integer_feature_motion3_score"};
enum ProvidedIndex { kSad, kMotion, kMotion2, kMotion3 };

constexpr MotionParams kDefaults{};

constexpr OptionSpec kOptions[] = {
    {.name = "debug", .type = OptionType::kBool, .default_value = 0,
     .help = "also write the sad score as integer_motion"},
    {.name = "motion_force_zero", .type = OptionType::kBool, .default_value = kDefaults.force_zero,
     .feature_param = true, .alias = "force_0", .help = "write 0 for every frame, read nothing"},
    {.name = "motion_blend_factor", .type = OptionType::kDouble,
     .default_value = kDefaults.blend_factor, .min = 0.0, .max = 1.0, .feature_param = true,
     .alias = "mbf", .help = "blend factor of motion3"},
    {.name = "motion_blend_offset", .type = OptionType::kDouble,
     .default_value = kDefaults.blend_offset, .min = 0.0, .max = 1000.0, .feature_param = true,
     .alias = "mbo", .help = "blend offset of motion3"},
    {.name = "motion_fps_weight", .type = OptionType::kDouble,
     .default_value = kDefaults.fps_weight, .min = 0.0, .max = 5.0, .feature_param = true,
     .alias = "mfw", .help = "weight of the sad score (frame-rate correction)"},
    {.name = "motion_max_val", .type = OptionType::kDouble, .default_value = kDefaults.max_val,
     .min = 0.0, .max = 10000.0, .feature_param = true, .alias = "mmxv",
     .help = "upper bound of the scores"},
    {.name = "motion_five_frame_window", .type = OptionType::kBool,
     .default_value = kDefaults.five_frame_window, .feature_param = true, .alias = "mffw",
     .help = "compare frame i with frame i - 2"},
    {.name = "motion_moving_average", .type = OptionType::kBool,
     .default_value = kDefaults.moving_average, .feature_param = true, .alias = "mma",
     .help = "motion3 as the mean with the previous frame's"},
};

unsigned bytes_per_sample(unsigned bpc) { return bpc == 8 ? 1u : 2u; }

class IntegerMotionExtractor final : public StagedExtractor<MotionSums> {
 public:
  bool reads_chroma() const override { return false; }
  IntegerMotionExtractor(const OptionValues& options, MotionStageFactory make_stage)
      : StagedExtractor(descriptor(), options,
                        [make_stage, depth = params_of(options).frame_distance()](
                            const PictureFormat& format) { return make_stage(format, depth); }),
        params_(params_of(options)),
        debug_(options.get_bool("debug")),
        sequence_(params_) {}

  unsigned latency_frames() const override { return sequence_.latency_frames(); }
  // libvmaf flags motion PREV_REF: under subsampling it still sees every frame.
  bool sees_every_frame() const override { return true; }

  void submit(const PictureView& ref, const PictureView& dist, unsigned index) override {
    if (!params_.force_zero) StagedExtractor::submit(ref, dist, index);
  }

  void extract(const PictureView& ref, const PictureView& dist, unsigned index,
               FeatureCollector& scores) override {
    if (index != frames_seen_)
      throw Error("motion: frames must arrive in order from 0 (expected frame " +
                  std::to_string(frames_seen_) + ", got " + std::to_string(index) + ")");
    const PlaneView& luma = ref.planes[0];
    if (luma.width != format().width || luma.height != format().height || ref.bpc != format().bpc)
      throw Error("motion: picture format differs from the one given to init()");
    // With motion_force_zero nothing is read.
    if (params_.force_zero) finish(std::nullopt, index, scores);
    else StagedExtractor::extract(ref, dist, index, scores);
  }

  void flush(FeatureCollector& scores) override {
    sequence_.end_of_stream();
    write_ready(scores);
  }

 private:
  void check_format(const PictureFormat& format) override {
    check_supported_bpc("motion", format.bpc);
    // The 5-tap filter mirrors two samples beyond each border, which needs three
    // samples across; libvmaf reads outside the picture below that. With
    // motion_force_zero nothing is read and every size is accepted.
    if (!params_.force_zero && (format.width < kMinSide || format.height < kMinSide))
      throw Error("motion: pictures must be at least " + std::to_string(kMinSide) + "x" +
                  std::to_string(kMinSide) + "; this one is " + std::to_string(format.width) +
                  "x" + std::to_string(format.height));
    if (format.width == 0 || format.height == 0) throw Error("motion: empty picture");
  }

  void start(const PictureFormat&) override {
    sequence_ = MotionSequence(params_);
    frames_seen_ = 0;
  }

  void finish(const MotionSums& sad, unsigned index, FeatureCollector& scores) override {
    const bool scored = !params_.force_zero && index >= params_.first_scored_index();
    if (scored && !sad) throw Error("motion: no earlier frame for frame " + std::to_string(index));
    const double score = scored ? sad_to_score(*sad, format().width, format().height, params_) : 0.0;
    ++frames_seen_;
    scores.append(key(kSad), index, score);
    if (debug_) scores.append(key(kMotion), index, score);
    sequence_.add_sad(score);
    write_ready(scores);
  }

  void write_ready(FeatureCollector& scores) {
    for (const FrameMotion& frame : sequence_.take_ready()) {
      // libvmaf writes these in its flush: they take that place among the names.
      scores.append(key(kMotion2), frame.index, frame.motion2, WritePhase::kFlush);
      scores.append(key(kMotion3), frame.index, frame.motion3, WritePhase::kFlush);
    }
  }

  MotionParams params_;
  bool debug_ = false;
  MotionSequence sequence_;
  unsigned frames_seen_ = 0;
};

}  // namespace

const FeatureDescriptor& descriptor() {
  static const FeatureDescriptor descriptor{
      "motion", "integer motion (integer_motion2, integer_motion3, and the sad score)", kProvided,
      kOptions};
  return descriptor;
}

MotionParams params_of(const OptionValues& options) {
  MotionParams params;
  params.force_zero = options.get_bool("motion_force_zero");
  params.blend_factor = options.get_double("motion_blend_factor");
  params.blend_offset = options.get_double("motion_blend_offset");
  params.fps_weight = options.get_double("motion_fps_weight");
  params.max_val = options.get_double("motion_max_val");
  params.five_frame_window = options.get_bool("motion_five_frame_window");
  params.moving_average = options.get_bool("motion_moving_average");
  return params;
}

MotionCpuStage::MotionCpuStage(const PictureFormat& format, unsigned depth)
    : MotionCpuStage(format, depth, motion_dsp(cpu::flags())) {}

MotionCpuStage::MotionCpuStage(const PictureFormat& format, unsigned depth, const MotionDsp& dsp)
    : format_(format), depth_(depth), dsp_(&dsp) {
  scratch_.assign(2 * std::size_t{format.width}, 0);
}

MotionSums MotionCpuStage::compute(const PictureView& ref, const PictureView&, unsigned) {
  const PlaneView& luma = ref.planes[0];
  const std::size_t row_bytes = std::size_t{luma.width} * bytes_per_sample(format_.bpc);
  MotionSums sad;
  if (planes_.size() == depth_) {
    const PlaneView earlier{planes_.front().data(), static_cast<std::ptrdiff_t>(row_bytes),
                            luma.width, luma.height};
    sad = motion_sad(earlier, luma, format_.bpc, scratch_, *dsp_, *runner_);
  }
  // Keep depth_ planes, oldest first, reusing the oldest buffer.
  std::vector<std::uint8_t> buffer;
  if (planes_.size() == depth_) {
    buffer = std::move(planes_.front());
    planes_.erase(planes_.begin());
  }
  buffer.resize(row_bytes * luma.height);
  for (unsigned y = 0; y < luma.height; ++y)
    std::memcpy(buffer.data() + row_bytes * y,
                luma.data + luma.stride * static_cast<std::ptrdiff_t>(y), row_bytes);
  planes_.push_back(std::move(buffer));
  return sad;
}

std::unique_ptr<FeatureExtractor> make_extractor(const OptionValues& options,
                                                 MotionStageFactory make_stage) {
  return std::make_unique<IntegerMotionExtractor>(options, std::move(make_stage));
}

std::unique_ptr<FeatureExtractor> make_cpu_extractor(const OptionValues& options) {
  return make_extractor(options, [](const PictureFormat& format, unsigned depth) {
    return std::make_unique<MotionCpuStage>(format, depth);
  });
}

}  // namespace vmafexact::motion
