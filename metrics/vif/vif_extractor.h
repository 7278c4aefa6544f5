// libvmaf's integer VIF extractor ("vif", integer_vif.c) over a stage of any
// backend.
#pragma once

#include <memory>

#include "common/feature_stage.h"
#include "vif/vif.h"

namespace vmafexact::vif {

// Name, provided features and options, as libvmaf declares them:
//   vif_enhn_gain_limit  double in [1, 100], default 100; score suffix _egl_<%g>
//   vif_skip_scale0      bool, default false; score suffix _ssclz
//   debug                bool, default false; adds integer_vif, integer_vif_num,
//                        integer_vif_den and integer_vif_{num,den}_scale0..3
const FeatureDescriptor& descriptor();

// The parameters of the per-pixel stage, from parsed options.
VifParams params_of(const OptionValues& options);

// The extractor over the stages `make_stage` makes (the CPU's or a twin's).
std::unique_ptr<FeatureExtractor> make_extractor(const OptionValues& options,
                                                 StageFactory<FrameSums> make_stage);
// The extractor over the CPU stage, VifCpuStage (the registry's CPU factory).
std::unique_ptr<FeatureExtractor> make_cpu_extractor(const OptionValues& options);

}  // namespace vmafexact::vif
