// integer motion (libvmaf's "motion", integer_motion.c).
#pragma once

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "common/feature_extractor.h"
#include "motion/motion.h"

namespace vmafexact::motion {

// Where the extractor keeps the earlier reference luma planes and computes a
// frame's sum against them: host copies and motion_sad() on the CPU
// (HostMotionHistory), device copies and a kernel in the CUDA twin. Everything
// else (options, checks, keys, MotionSequence) is the extractor's, shared.
class MotionHistory {
 public:
  virtual ~MotionHistory() = default;
  // Forgets every plane; the planes that follow have this format, and at most
  // `depth` of them are kept (the extractor's frame_distance()).
  virtual void reset(const PictureFormat& format, unsigned depth) = 0;
  // How many planes are kept now.
  virtual unsigned size() const = 0;
  // When `score`: motion_sad() of the oldest plane kept (the earlier frame)
  // against `luma`, else 0. Then keeps a copy of `luma`, dropping the oldest
  // plane when `depth` are kept. `luma` need not stay valid after the call.
  virtual std::uint64_t sad_then_keep(const PlaneView& luma, bool score) = 0;
  // Where the host's sum cuts its rows into bands (bands.h). Default: ignored.
  virtual void set_band_runner(BandRunner& runner) { (void)runner; }
};

// Host copies of the planes and motion_sad() (the CPU path).
std::unique_ptr<MotionHistory> make_host_motion_history();

// Throws vmafexact::Error for an unknown option or a value out of range.
std::unique_ptr<FeatureExtractor> make_integer_motion_extractor(const FeatureOptions& options);
// The same extractor computing its sums with `history` (a backend's twin).
std::unique_ptr<FeatureExtractor> make_integer_motion_extractor(
    const FeatureOptions& options, std::unique_ptr<MotionHistory> history);

// libvmaf's "motion" extractor. It reads the reference's luma only. Frame i's
// sad score is written when frame i is extracted; its motion2 and motion3 when
// the later frame they need arrives (frame i + 1, or frame 2 for frames 0 and 1
// with the five-frame window) or at flush(), with the values libvmaf's flush
// writes. With the debug option it also writes the sad score again as
// "integer_motion", as libvmaf does.
class IntegerMotionExtractor final : public FeatureExtractor {
 public:
  IntegerMotionExtractor(const MotionParams& params, bool debug,
                         std::unique_ptr<MotionHistory> history = make_host_motion_history());

  std::string_view name() const override { return "motion"; }
  std::vector<std::string> provided_features() const override;
  std::string score_key(std::string_view provided_name) const override;
  void init(const PictureFormat& format) override;
  void extract(const PictureView& ref, const PictureView& dist, unsigned index,
               FeatureCollector& scores) override;
  void flush(FeatureCollector& scores) override;
  void set_band_runner(BandRunner& runner) override { history_->set_band_runner(runner); }
  unsigned latency_frames() const override { return sequence_.latency_frames(); }
  // libvmaf flags motion PREV_REF: under subsampling it still sees every frame.
  bool sees_every_frame() const override { return true; }

 private:
  void write_ready(FeatureCollector& scores);

  MotionParams params_;
  bool debug_ = false;
  PictureFormat format_{};
  std::string sad_key_, motion_key_, motion2_key_, motion3_key_;
  MotionSequence sequence_;
  // The last frame_distance() reference luma planes.
  std::unique_ptr<MotionHistory> history_;
  unsigned frames_seen_ = 0;
};

}  // namespace vmafexact::motion
