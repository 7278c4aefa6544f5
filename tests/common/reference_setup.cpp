#include "reference_setup.h"

#include <algorithm>

#include "common/error.h"
#include "common/feature_options.h"
#include "model/model.h"
#include "registry.h"
#include "scorer.h"

namespace vmafexact::test {

namespace {

// The registry's extractor that writes `key` with its default options (libvmaf's
// alias of one of its provided features), or "" where none does.
std::string extractor_writing(const std::string& key) {
  for (const FeatureEntry& entry : feature_registry())
    for (const std::string_view provided : entry.descriptor.provided)
      if (feature_name_alias(provided) == key) return std::string(entry.name());
  return {};
}

bool feature_available(const std::string& name) {
  try {
    make_feature_extractor(name);
    return true;
  } catch (const Error&) {
    return false;
  }
}

// A built-in model whose every input has an extractor in this build.
bool model_usable(const char* version) {
  try {
    const auto model = model::load_builtin_model(version);
    model_feature_requests(model);
    return true;
  } catch (const Error&) {
    return false;
  }
}

// The VMAF v1 models of the .v1all. logs, in the order of their runs.
constexpr const char* kV1Models[] = {
    "vmaf_v1.0.16_3d0h",     "vmaf_v1.0.16_5d0h",     "vmaf_v1.0.16_3d0h_2160",
    "vmaf_v1.0.16_1d5h_2160", "vmaf_v1.0.16_hfr_3d0h", "vmaf_v1.0.16_hfr_5d0h",
    "vmaf_v1.0.16_hfr_3d0h_2160", "vmaf_v1.0.16_hfr_1d5h_2160"};

// A VMAF v1 log: its runs named models only, so every key is a model's score or
// input (with its options' suffix).
ReferenceSetup v1_setup(const ReferenceLog& log, bool all_models) {
  ReferenceSetup setup;
  bool usable = true;
  for (const char* version : kV1Models) {
    usable = usable && model_usable(version);
    setup.models += std::string(setup.models.empty() ? "" : ",") + version;
    if (!all_models) break;
  }
  (usable ? setup.expected_keys : setup.not_yet) = log.frame_key_order;
  if (!usable) setup.models.clear();
  return setup;
}

// A run of given models and features: every key is claimed.
ReferenceSetup run_setup(const ReferenceLog& log, const char* models, const char* features) {
  ReferenceSetup setup;
  setup.models = models;
  setup.features = features;
  setup.expected_keys = log.frame_key_order;
  return setup;
}

}  // namespace

ReferenceSetup reference_setup(const ReferenceLog& log, std::string_view log_name) {
  if (log_name.find(".options.") != std::string_view::npos)
    return run_setup(log, kOptionsModels, kOptionsFeatures);
  if (log_name.find(".models.") != std::string_view::npos) return run_setup(log, kModelsRun, "");
  if (log_name.find(".floatmodels.") != std::string_view::npos)
    return run_setup(log, kFloatModelsRun, "");
  if (log_name.find(".v1.") != std::string_view::npos) return v1_setup(log, false);
  if (log_name.find(".v1all.") != std::string_view::npos) return v1_setup(log, true);
  ReferenceSetup setup;
  const auto has_key = [&](const char* key) {
    return std::find(log.frame_key_order.begin(), log.frame_key_order.end(), key) !=
           log.frame_key_order.end();
  };
  const bool vmaf = has_key("vmaf") && model_usable("vmaf_v0.6.1");
  const bool vmaf_neg = has_key("vmaf_neg") && model_usable("vmaf_v0.6.1neg");
  std::vector<std::string> features;
  for (const auto& key : log.frame_key_order) {
    bool available = true;
    if (key == "vmaf" || key == "vmaf_neg") {
      available = key == "vmaf" ? vmaf : vmaf_neg;
    } else if (key.find("_egl_") != std::string::npos) {  // inputs of vmaf_v0.6.1neg only
      available = vmaf_neg;
    } else {
      const std::string feature = extractor_writing(key);
      if (feature.empty()) {
        setup.unknown.push_back(key);
        continue;
      }
      available = feature_available(feature);
      if (available && std::find(features.begin(), features.end(), feature) == features.end())
        features.push_back(feature);
    }
    (available ? setup.expected_keys : setup.not_yet).push_back(key);
  }
  if (vmaf) setup.models = "vmaf_v0.6.1";
  if (vmaf_neg) setup.models += std::string(setup.models.empty() ? "" : ",") + "vmaf_v0.6.1neg:name=vmaf_neg";
  for (const auto& feature : features)
    setup.features += (setup.features.empty() ? "" : ",") + feature;
  return setup;
}

bool every_feature_has_a_cuda_twin(const ReferenceSetup& setup) {
  return features_without_cuda_twin(load_models(parse_model_list(setup.models)),
                                    parse_feature_list(setup.features))
      .empty();
}

}  // namespace vmafexact::test
