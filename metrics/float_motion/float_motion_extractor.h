// libvmaf's float motion extractor ("float_motion", float_motion.c) over a
// stage of any backend.
#pragma once

#include <memory>

#include "common/feature_stage.h"
#include "float_motion/float_motion.h"

namespace vmafexact::float_motion {

// Name, provided features (motion, motion2, motion3) and options, as libvmaf
// declares them.
const FeatureDescriptor& descriptor();

// The parameters of the arithmetic, from parsed options.
FloatMotionParams params_of(const OptionValues& options);

// The extractor over the stages `make_stage` makes. It reads the reference
// only and writes as libvmaf does: frame i's "motion" (debug, on by default)
// when frame i is extracted, frame i - 1's motion2 and motion3 then too (frame
// 0's motion2 at once, its motion3 at frame 1), and the last frame's at flush().
using FloatMotionStageFactory = std::function<std::unique_ptr<FeatureStage<FloatMotionSums>>(
    const PictureFormat&, const FloatMotionParams&)>;
std::unique_ptr<FeatureExtractor> make_extractor(const OptionValues& options,
                                                 FloatMotionStageFactory make_stage);
// The extractor over FloatMotionCpuStage (the registry's CPU factory).
std::unique_ptr<FeatureExtractor> make_cpu_extractor(const OptionValues& options);

}  // namespace vmafexact::float_motion
