#include "reference_setup.h"

#include <algorithm>

#include "common/error.h"
#include "model/model.h"
#include "scorer.h"

namespace vmafexact::test {

bool is_unclaimed_key(const std::string& key) {
  static const std::vector<std::string> unclaimed = {
      "float_ssim", "float_ms_ssim", "cambi", "adm2", "aim", "adm3", "adm_scale0",
      "adm_scale1", "adm_scale2", "adm_scale3", "vif_scale0", "vif_scale1", "vif_scale2",
      "vif_scale3", "motion", "motion2", "motion3"};
  return std::find(unclaimed.begin(), unclaimed.end(), key) != unclaimed.end();
}

namespace {

bool starts_with(const std::string& text, const char* prefix) { return text.rfind(prefix, 0) == 0; }

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

}  // namespace

ReferenceSetup reference_setup(const ReferenceLog& log) {
  ReferenceSetup setup;
  const auto has_key = [&](const char* key) {
    return std::find(log.frame_key_order.begin(), log.frame_key_order.end(), key) !=
           log.frame_key_order.end();
  };
  const bool vmaf = has_key("vmaf") && model_usable("vmaf_v0.6.1");
  const bool vmaf_neg = has_key("vmaf_neg") && model_usable("vmaf_v0.6.1neg");
  std::vector<std::string> features;
  for (const auto& key : log.frame_key_order) {
    if (is_unclaimed_key(key)) continue;
    bool available = true;
    if (key == "vmaf" || key == "vmaf_neg") {
      available = key == "vmaf" ? vmaf : vmaf_neg;
    } else if (key.find("_egl_") != std::string::npos) {  // inputs of vmaf_v0.6.1neg only
      available = vmaf_neg;
    } else {
      std::string feature;
      if (starts_with(key, "psnr_")) feature = "psnr";
      else if (starts_with(key, "integer_vif")) feature = "vif";
      else if (starts_with(key, "integer_adm") || starts_with(key, "integer_aim")) feature = "adm";
      else if (starts_with(key, "integer_motion") || key == "VMAF_integer_feature_motion_sad_score")
        feature = "motion";
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

}  // namespace vmafexact::test
