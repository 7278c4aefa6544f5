// libvmaf's float VIF extractor ("float_vif", float_vif.c) over a stage of any
// backend.
#pragma once

#include <memory>

#include "common/feature_stage.h"
#include "float_vif/float_vif.h"

namespace vmafexact::float_vif {

// Name, provided features (vif_scale0..3, and with debug vif, vif_num,
// vif_den and each scale's num and den) and options, as libvmaf declares them.
const FeatureDescriptor& descriptor();

// The parameters of the arithmetic, from parsed options; throws
// vmafexact::Error for a vif_prescale_method libvmaf does not know.
FloatVifParams params_of(const OptionValues& options);

using FloatVifStageFactory = std::function<std::unique_ptr<FeatureStage<FloatVifSums>>(
    const PictureFormat&, const FloatVifParams&)>;
std::unique_ptr<FeatureExtractor> make_extractor(const OptionValues& options,
                                                 FloatVifStageFactory make_stage);
// The extractor over FloatVifCpuStage (the registry's CPU factory).
std::unique_ptr<FeatureExtractor> make_cpu_extractor(const OptionValues& options);

}  // namespace vmafexact::float_vif
