// libvmaf's CIEDE2000 extractor ("ciede", ciede.c) over a stage of any backend.
#pragma once

#include <memory>

#include "ciede/ciede.h"
#include "common/feature_stage.h"

namespace vmafexact::ciede {

// Name, provided feature (ciede2000) and options (none), as libvmaf declares them.
const FeatureDescriptor& descriptor();

std::unique_ptr<FeatureExtractor> make_extractor(const OptionValues& options,
                                                 StageFactory<CiedeSums> make_stage);
// The extractor over CiedeCpuStage (the registry's CPU factory).
std::unique_ptr<FeatureExtractor> make_cpu_extractor(const OptionValues& options);

}  // namespace vmafexact::ciede
