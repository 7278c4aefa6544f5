// libvmaf's float ANSNR extractor ("float_ansnr", float_ansnr.c) over a stage
// of any backend.
#pragma once

#include <memory>

#include "common/feature_stage.h"
#include "float_ansnr/float_ansnr.h"

namespace vmafexact::float_ansnr {

// Name, provided features (float_ansnr, float_anpsnr) and options (none).
const FeatureDescriptor& descriptor();

std::unique_ptr<FeatureExtractor> make_extractor(const OptionValues& options,
                                                 StageFactory<FloatAnsnrSums> make_stage);
// The extractor over FloatAnsnrCpuStage (the registry's CPU factory).
std::unique_ptr<FeatureExtractor> make_cpu_extractor(const OptionValues& options);

}  // namespace vmafexact::float_ansnr
