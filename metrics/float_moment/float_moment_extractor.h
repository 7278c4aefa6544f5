// libvmaf's float moment extractor ("float_moment", float_moment.c) over a
// stage of any backend.
#pragma once

#include <memory>

#include "common/feature_stage.h"
#include "float_moment/float_moment.h"

namespace vmafexact::float_moment {

// Name, provided features and options (none), as libvmaf declares them.
const FeatureDescriptor& descriptor();

std::unique_ptr<FeatureExtractor> make_extractor(const OptionValues& options,
                                                 StageFactory<FloatMomentSums> make_stage);
// The extractor over FloatMomentCpuStage (the registry's CPU factory).
std::unique_ptr<FeatureExtractor> make_cpu_extractor(const OptionValues& options);

}  // namespace vmafexact::float_moment
