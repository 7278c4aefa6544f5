// libvmaf's float PSNR extractor ("float_psnr", float_psnr.c) over a stage of
// any backend.
#pragma once

#include <memory>

#include "common/feature_stage.h"
#include "float_psnr/float_psnr.h"

namespace vmafexact::float_psnr {

// Name, provided feature (float_psnr) and options (none), as libvmaf declares them.
const FeatureDescriptor& descriptor();

std::unique_ptr<FeatureExtractor> make_extractor(const OptionValues& options,
                                                 StageFactory<FloatPsnrSums> make_stage);
// The extractor over FloatPsnrCpuStage (the registry's CPU factory).
std::unique_ptr<FeatureExtractor> make_cpu_extractor(const OptionValues& options);

}  // namespace vmafexact::float_psnr
