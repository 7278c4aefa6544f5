// integer motion (libvmaf's "motion", integer_motion.c).
#pragma once

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "common/feature_extractor.h"
#include "motion/motion.h"

namespace vmafexact::motion {

// Throws vmafexact::Error for an unknown option or a value out of range.
std::unique_ptr<FeatureExtractor> make_integer_motion_extractor(const FeatureOptions& options);

// libvmaf's "motion" extractor. It reads the reference's luma only. Frame i's
// sad score is written when frame i is extracted; its motion2 and motion3 when
// the later frame they need arrives (frame i + 1, or frame 2 for frames 0 and 1
// with the five-frame window) or at flush(), with the values libvmaf's flush
// writes. With the debug option it also writes the sad score again as
// "integer_motion", as libvmaf does.
class IntegerMotionExtractor final : public FeatureExtractor {
 public:
  IntegerMotionExtractor(const MotionParams& params, bool debug);

  std::string_view name() const override { return "motion"; }
  std::vector<std::string> provided_features() const override;
  std::string score_key(std::string_view provided_name) const override;
  void init(const PictureFormat& format) override;
  void extract(const PictureView& ref, const PictureView& dist, unsigned index,
               FeatureCollector& scores) override;
  void flush(FeatureCollector& scores) override;
  unsigned latency_frames() const override { return sequence_.latency_frames(); }
  // libvmaf flags motion PREV_REF: under subsampling it still sees every frame.
  bool sees_every_frame() const override { return true; }

 private:
  void write_ready(FeatureCollector& scores);
  void remember_luma(const PlaneView& luma);

  MotionParams params_;
  bool debug_ = false;
  PictureFormat format_{};
  std::string sad_key_, motion_key_, motion2_key_, motion3_key_;
  MotionSequence sequence_;
  std::vector<std::int32_t> scratch_;
  // Copies of the last frame_distance() reference luma planes, oldest first.
  std::vector<std::vector<std::uint8_t>> history_;
  unsigned frames_seen_ = 0;
};

}  // namespace vmafexact::motion
