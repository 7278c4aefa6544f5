// libvmaf's integer motion extractor ("motion", integer_motion.c) over a stage
// of any backend.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "common/feature_stage.h"
#include "motion/motion.h"

namespace vmafexact::motion {

// Name, provided features (the sad score, motion, motion2, motion3) and
// options, as libvmaf declares them.
const FeatureDescriptor& descriptor();

// The parameters of the arithmetic, from parsed options.
MotionParams params_of(const OptionValues& options);

// One frame's per-pixel sum: motion_sad() of its reference luma against the
// reference luma frame_distance() frames earlier; nullopt while the stage
// holds fewer earlier planes than that (the first frames).
using MotionSums = std::optional<std::uint64_t>;

struct MotionDsp;  // motion_dsp.h

// The CPU stage: host copies of the last `depth` reference luma planes and
// motion_sad() against the oldest, through the best DSP table cpu::flags()
// allows or a given one.
class MotionCpuStage final : public FeatureStage<MotionSums> {
 public:
  MotionCpuStage(const PictureFormat& format, unsigned depth);
  MotionCpuStage(const PictureFormat& format, unsigned depth, const MotionDsp& dsp);
  MotionSums compute(const PictureView& ref, const PictureView& dist, unsigned index) override;
  void set_band_runner(BandRunner& runner) override { runner_ = &runner; }

 private:
  PictureFormat format_;
  unsigned depth_;
  const MotionDsp* dsp_;
  std::vector<std::vector<std::uint8_t>> planes_;  // oldest first
  std::vector<std::int16_t> scratch_;  // split rows (motion_dsp.h), one per band
  BandRunner* runner_ = &serial_band_runner();
};

// The extractor over the stages `make_stage` makes (the CPU's or a twin's),
// made for a format and the depth of planes kept (params.frame_distance()).
// It reads the reference's luma only. Frame i's sad score is written when
// frame i is extracted; its motion2 and motion3 when the later frame they
// need arrives (frame i + 1, or frame 2 for frames 0 and 1 with the five-frame
// window) or at flush(), with the values libvmaf's flush writes. With the
// debug option it also writes the sad score again as "integer_motion", as
// libvmaf does.
using MotionStageFactory =
    std::function<std::unique_ptr<FeatureStage<MotionSums>>(const PictureFormat&, unsigned depth)>;
std::unique_ptr<FeatureExtractor> make_extractor(const OptionValues& options,
                                                 MotionStageFactory make_stage);
// The extractor over MotionCpuStage (the registry's CPU factory).
std::unique_ptr<FeatureExtractor> make_cpu_extractor(const OptionValues& options);

}  // namespace vmafexact::motion
