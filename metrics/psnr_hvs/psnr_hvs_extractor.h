// libvmaf's PSNR-HVS extractor ("psnr_hvs", third_party/xiph/psnr_hvs.c) over
// a stage of any backend.
#pragma once

#include <memory>

#include "common/feature_stage.h"
#include "psnr_hvs/psnr_hvs.h"

namespace vmafexact::psnr_hvs {

// Name, provided features (psnr_hvs_y, psnr_hvs_cb, psnr_hvs_cr, psnr_hvs) and
// options (none), as libvmaf declares them.
const FeatureDescriptor& descriptor();

std::unique_ptr<FeatureExtractor> make_extractor(const OptionValues& options,
                                                 StageFactory<PsnrHvsSums> make_stage);
// The extractor over PsnrHvsCpuStage (the registry's CPU factory).
std::unique_ptr<FeatureExtractor> make_cpu_extractor(const OptionValues& options);

}  // namespace vmafexact::psnr_hvs
