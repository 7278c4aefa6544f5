// What a run is asked to score, as the user writes it: the features list
// (libvmaf's --feature syntax) and the model list (libvmaf's --model syntax),
// parsed and checked against the registry. The element's properties, the
// vmafexact tool's options and the tests all read their lists here.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "common/feature_options.h"
#include "model/model.h"

namespace vmafexact {

// An extractor by libvmaf's name, with options ("adm" + adm_enhn_gain_limit=1).
struct FeatureRequest {
  std::string name;
  FeatureOptions options;
  bool operator==(const FeatureRequest&) const = default;
};

// Parses a comma-separated feature list in libvmaf's --feature syntax:
// "psnr, adm=adm_enhn_gain_limit=1.0:adm_csf_mode=0". A request whose
// identity (name and non-default feature parameters, OptionValues::identity())
// an earlier one has is dropped, as libvmaf drops it.
// Throws vmafexact::Error naming an unknown feature or a malformed option.
std::vector<FeatureRequest> parse_feature_list(std::string_view list);

// What makes two requests one extractor (OptionValues::identity()),
// without making one. Throws vmafexact::Error for an unknown name or bad
// options.
std::string identity_of(const FeatureRequest& request);

// libvmaf's model feature overload (`vmaf --model version=X:vif.vif_enhn_gain_limit=1.0`,
// vmaf_model_feature_overload()): one option set on every input of the model
// that the extractor `extractor` computes, over what the model's file sets.
struct ModelOverload {
  std::string extractor;  // libvmaf's extractor name, e.g. "vif"
  std::string option;     // e.g. "vif_enhn_gain_limit"
  std::string value;      // as given, e.g. "1.0"
  bool operator==(const ModelOverload&) const = default;
};

// One entry of a model list: a built-in version or a JSON file, and options.
struct ModelSpec {
  std::string source;  // built-in version ("vmaf_v0.6.1") or path of a JSON model file
  bool is_path = false;
  std::string key;     // score name; empty: "vmaf" for the first model, else the model's name
  model::PredictOptions predict;
  std::vector<ModelOverload> overloads;  // in the order given
};

// Parses a comma-separated model list. Each entry is a built-in name or a path
// (anything with a '/' or ending in .json), or libvmaf's form
// "version=NAME" / "path=FILE", followed by ":name=KEY", ":disable_clip",
// ":enable_transform" and feature overloads ":EXTRACTOR.OPTION=VALUE" as wanted.
// Throws vmafexact::Error for malformed entries, and for an overload naming an
// unknown extractor or option or a value the option does not take.
std::vector<ModelSpec> parse_model_list(std::string_view list);

}  // namespace vmafexact
