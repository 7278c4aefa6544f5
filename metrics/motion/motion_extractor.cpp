#include "motion/motion_extractor.h"

#include <algorithm>
#include <cstring>

#include "common/cpu.h"
#include "common/error.h"
#include "motion/motion_dsp.h"

namespace vmafexact::motion {

namespace {

constexpr const char* kSadName = "VMAF_integer_feature_motion_sad_score";
constexpr const char* kMotionName = "VMAF_integer_feature_motion_score";
constexpr const char* kMotion2Name = "VMAF_integer_feature_motion2_score";
constexpr const char* kMotion3Name = "VMAF_integer_feature_motion3_score";

// The feature parameters that differ from their defaults, named as libvmaf
// names them in score keys (the option's alias; doubles as %g, booleans bare).
std::vector<NamedOption> non_default_options(const MotionParams& p) {
  const MotionParams defaults;
  std::vector<NamedOption> named;
  auto add_double = [&](const char* name, const char* alias, double value, double default_value) {
    if (value != default_value) named.push_back({name, alias, format_option_double(value), false});
  };
  auto add_bool = [&](const char* name, const char* alias, bool value, bool default_value) {
    if (value != default_value) named.push_back({name, alias, value ? "true" : "false", true});
  };
  add_bool("motion_force_zero", "force_0", p.force_zero, defaults.force_zero);
  add_double("motion_blend_factor", "mbf", p.blend_factor, defaults.blend_factor);
  add_double("motion_blend_offset", "mbo", p.blend_offset, defaults.blend_offset);
  add_double("motion_fps_weight", "mfw", p.fps_weight, defaults.fps_weight);
  add_double("motion_max_val", "mmxv", p.max_val, defaults.max_val);
  add_bool("motion_five_frame_window", "mffw", p.five_frame_window, defaults.five_frame_window);
  add_bool("motion_moving_average", "mma", p.moving_average, defaults.moving_average);
  return named;
}

unsigned bytes_per_sample(unsigned bpc) { return bpc == 8 ? 1u : 2u; }

class HostMotionHistory final : public MotionHistory {
 public:
  void reset(const PictureFormat& format, unsigned depth) override {
    format_ = format;
    depth_ = depth;
    planes_.clear();
    scratch_.assign(format.width, 0);
  }
  unsigned size() const override { return static_cast<unsigned>(planes_.size()); }

  std::uint64_t sad_then_keep(const PlaneView& luma, bool score) override {
    const std::size_t row_bytes = std::size_t{luma.width} * bytes_per_sample(format_.bpc);
    std::uint64_t sad = 0;
    if (score) {
      const PlaneView earlier{planes_.front().data(), static_cast<std::ptrdiff_t>(row_bytes),
                              luma.width, luma.height};
      sad = motion_sad(earlier, luma, format_.bpc, scratch_, motion_dsp(cpu::flags()), *runner_);
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
  void set_band_runner(BandRunner& runner) override { runner_ = &runner; }

 private:
  PictureFormat format_{};
  unsigned depth_ = 1;
  std::vector<std::vector<std::uint8_t>> planes_;  // oldest first
  std::vector<std::int32_t> scratch_;
  BandRunner* runner_ = &serial_band_runner();
};

}  // namespace

std::unique_ptr<MotionHistory> make_host_motion_history() {
  return std::make_unique<HostMotionHistory>();
}

std::unique_ptr<FeatureExtractor> make_integer_motion_extractor(const FeatureOptions& options) {
  return make_integer_motion_extractor(options, make_host_motion_history());
}

std::unique_ptr<FeatureExtractor> make_integer_motion_extractor(
    const FeatureOptions& options, std::unique_ptr<MotionHistory> history) {
  // libvmaf's options of "motion", by their full names, with its ranges.
  OptionReader reader("motion", options);
  MotionParams params;
  params.force_zero = reader.read_bool("motion_force_zero", params.force_zero);
  params.blend_factor = reader.read_double("motion_blend_factor", params.blend_factor, 0.0, 1.0);
  params.blend_offset = reader.read_double("motion_blend_offset", params.blend_offset, 0.0, 1000.0);
  params.fps_weight = reader.read_double("motion_fps_weight", params.fps_weight, 0.0, 5.0);
  params.max_val = reader.read_double("motion_max_val", params.max_val, 0.0, 10000.0);
  params.five_frame_window =
      reader.read_bool("motion_five_frame_window", params.five_frame_window);
  params.moving_average = reader.read_bool("motion_moving_average", params.moving_average);
  const bool debug = reader.read_bool("debug", false);
  reader.finish();
  return std::make_unique<IntegerMotionExtractor>(params, debug, std::move(history));
}

IntegerMotionExtractor::IntegerMotionExtractor(const MotionParams& params, bool debug,
                                               std::unique_ptr<MotionHistory> history)
    : params_(params), debug_(debug), sequence_(params), history_(std::move(history)) {
  if (!history_) throw Error("motion: no plane history");
  sad_key_ = score_key(kSadName);
  motion_key_ = score_key(kMotionName);
  motion2_key_ = score_key(kMotion2Name);
  motion3_key_ = score_key(kMotion3Name);
}

std::vector<std::string> IntegerMotionExtractor::provided_features() const {
  return {kSadName, kMotionName, kMotion2Name, kMotion3Name};
}

std::string IntegerMotionExtractor::score_key(std::string_view provided_name) const {
  return feature_name_with_options(provided_name, non_default_options(params_));
}

void IntegerMotionExtractor::init(const PictureFormat& format) {
  if (!is_supported_bpc(format.bpc))
    throw Error("motion: unsupported bit depth " + std::to_string(format.bpc) +
                " (libvmaf takes 8, 10, 12 or 16)");
  // The 5-tap filter mirrors two samples beyond each border, which needs three
  // samples across; libvmaf reads outside the picture below that. With
  // motion_force_zero nothing is read and every size is accepted.
  if (!params_.force_zero && (format.width < kMinSide || format.height < kMinSide))
    throw Error("motion: pictures must be at least " + std::to_string(kMinSide) + "x" +
                std::to_string(kMinSide) + "; this one is " + std::to_string(format.width) +
                "x" + std::to_string(format.height));
  if (format.width == 0 || format.height == 0) throw Error("motion: empty picture");
  format_ = format;
  sequence_ = MotionSequence(params_);
  history_->reset(format, params_.frame_distance());
  frames_seen_ = 0;
}

void IntegerMotionExtractor::extract(const PictureView& ref, const PictureView& dist,
                                     unsigned index, FeatureCollector& scores) {
  (void)dist;  // motion reads the reference only
  if (index != frames_seen_)
    throw Error("motion: frames must arrive in order from 0 (expected frame " +
                std::to_string(frames_seen_) + ", got " + std::to_string(index) + ")");
  const PlaneView& luma = ref.planes[0];
  if (luma.width != format_.width || luma.height != format_.height || ref.bpc != format_.bpc)
    throw Error("motion: picture format differs from the one given to init()");

  double score = 0.0;
  if (!params_.force_zero) {
    const bool scored = index >= params_.first_scored_index();
    if (scored && history_->size() < params_.frame_distance())
      throw Error("motion: no earlier frame for frame " + std::to_string(index));
    const std::uint64_t sad = history_->sad_then_keep(luma, scored);
    if (scored) score = sad_to_score(sad, luma.width, luma.height, params_);
  }
  ++frames_seen_;

  scores.append(sad_key_, index, score);
  if (debug_) scores.append(motion_key_, index, score);
  sequence_.add_sad(score);
  write_ready(scores);
}

void IntegerMotionExtractor::write_ready(FeatureCollector& scores) {
  for (const FrameMotion& frame : sequence_.take_ready()) {
    scores.append(motion2_key_, frame.index, frame.motion2);
    scores.append(motion3_key_, frame.index, frame.motion3);
  }
}

void IntegerMotionExtractor::flush(FeatureCollector& scores) {
  sequence_.end_of_stream();
  write_ready(scores);
}

}  // namespace vmafexact::motion
