// libvmaf's integer ADM extractor ("adm", integer_adm.c) over a stage of any
// backend.
#pragma once

#include <memory>

#include "adm/adm.h"
#include "common/feature_stage.h"

namespace vmafexact::adm {

// Name, provided features (integer_adm2, integer_aim, integer_adm3,
// integer_adm_scale0..3, and num/den values with debug=true) and options, as
// libvmaf declares them.
const FeatureDescriptor& descriptor();

// The options of the per-pixel stage, from parsed options. Throws
// vmafexact::Error for a combination libvmaf refuses or that is not supported
// (adm_csf_mode 1..3).
AdmOptions adm_options_of(const OptionValues& options);

// The extractor over the stages `make_stage` makes (the CPU's or a twin's).
std::unique_ptr<FeatureExtractor> make_extractor(const OptionValues& options,
                                                 StageFactory<FrameSums> make_stage);
// The extractor over the CPU stage, AdmCpuStage (the registry's CPU factory).
std::unique_ptr<FeatureExtractor> make_cpu_extractor(const OptionValues& options);

}  // namespace vmafexact::adm
