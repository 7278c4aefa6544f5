// libvmaf's float ADM extractor ("float_adm", float_adm.c) over a stage of any
// backend.
#pragma once

#include <memory>

#include "common/feature_stage.h"
#include "float_adm/float_adm.h"

namespace vmafexact::float_adm {

// Name, provided features (adm2, aim, adm3, adm_scale0..3, and debug's) and
// options, as libvmaf declares them.
const FeatureDescriptor& descriptor();

FloatAdmParams params_of(const OptionValues& options);

using FloatAdmStageFactory = std::function<std::unique_ptr<FeatureStage<FloatAdmSums>>(
    const PictureFormat&, const FloatAdmParams&)>;
std::unique_ptr<FeatureExtractor> make_extractor(const OptionValues& options,
                                                 FloatAdmStageFactory make_stage);
// The extractor over FloatAdmCpuStage (the registry's CPU factory).
std::unique_ptr<FeatureExtractor> make_cpu_extractor(const OptionValues& options);

}  // namespace vmafexact::float_adm
