// What vmafexact must compute to reproduce a libvmaf reference log: the models
// and extra features, in the element's property syntax, and which keys are
// compared. Shared by the conformance and the pipeline tests.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "fixtures.h"

namespace vmafexact::test {

// The options run's arguments in the element's syntax (libvmaf's:
// --model version=vmaf_v0.6.1:vif.vif_enhn_gain_limit=1.0
// --feature psnr=enable_mse=true:enable_apsnr=true:min_sse=0.5
// --feature float_ssim=enable_lcs=true --feature float_ms_ssim=enable_lcs=true
// --feature cambi=cambi_max_val=10).
inline constexpr const char* kOptionsModels = "vmaf_v0.6.1:vif.vif_enhn_gain_limit=1.0";
inline constexpr const char* kOptionsFeatures =
    "psnr=enable_mse=true:enable_apsnr=true:min_sse=0.5,float_ssim=enable_lcs=true,"
    "float_ms_ssim=enable_lcs=true,cambi=cambi_max_val=10";

// The .models run (integer built-in models that no other run scores) and the
// .floatmodels run (tests/fixtures/ref-float-models/), in the element's syntax;
// make_references.sh gives libvmaf the same models under the same names.
inline constexpr const char* kModelsRun =
    "vmaf_4k_v0.6.1neg:name=vmaf_4k_neg,vmaf_4k_v0.6.1:name=vmaf_4k,vmaf_b_v0.6.3:name=vmaf_b";
inline constexpr const char* kFloatModelsRun =
    "vmaf_float_v0.6.1:name=vmaf_float,vmaf_float_v0.6.1neg:name=vmaf_float_neg,"
    "vmaf_float_4k_v0.6.1:name=vmaf_float_4k,vmaf_float_b_v0.6.3:name=vmaf_float_b";

struct ReferenceSetup {
  std::string models;    // "model" property: "vmaf_v0.6.1,vmaf_v0.6.1neg:name=vmaf_neg"
  std::string features;  // "features" property: "psnr,motion"
  std::vector<std::string> expected_keys;  // every key of the log, in its order
  std::vector<std::string> not_yet;        // keys whose feature this build lacks (a failure)
  std::vector<std::string> unknown;        // keys this function does not know (a test bug)
  bool empty() const { return models.empty() && features.empty(); }
};

// `log_name` tells the runs apart: "<dis>.v1.max.json" scored vmaf_v1.0.16_3d0h
// alone, "<dis>.v1all.max.json" all eight v1 models, "<dis>.options.max.json"
// the options run (kOptionsModels, kOptionsFeatures), "<dis>.models.max.json"
// and "<dis>.floatmodels.max.json" the models of kModelsRun and kFloatModelsRun; any other log is
// vmaf_v0.6.1 (and vmaf_neg) with the features its keys name.
ReferenceSetup reference_setup(const ReferenceLog& log, std::string_view log_name = {});

// Whether every extractor the setup runs (its models' inputs and its features)
// has a CUDA twin in the registry.
bool every_feature_has_a_cuda_twin(const ReferenceSetup& setup);

}  // namespace vmafexact::test
