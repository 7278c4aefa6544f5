#include "vif/vif_extractor.h"

#include "common/error.h"

namespace vmafexact::vif {

namespace {

// libvmaf's provided_features of integer VIF, in the order it writes them.
const std::vector<std::string>& provided_names() {
  static const std::vector<std::string> names = {
      "VMAF_integer_feature_vif_scale0_score",
      "VMAF_integer_feature_vif_scale1_score",
      "VMAF_integer_feature_vif_scale2_score",
      "VMAF_integer_feature_vif_scale3_score",
      "integer_vif",
      "integer_vif_num",
      "integer_vif_den",
      "integer_vif_num_scale0",
      "integer_vif_den_scale0",
      "integer_vif_num_scale1",
      "integer_vif_den_scale1",
      "integer_vif_num_scale2",
      "integer_vif_den_scale2",
      "integer_vif_num_scale3",
      "integer_vif_den_scale3",
  };
  return names;
}

}  // namespace

std::unique_ptr<FeatureExtractor> make_integer_vif_extractor(const FeatureOptions& options) {
  for (const auto& [name, value] : options) {
    // The short names appear in score names only: libvmaf looks options up by
    // their full names and silently ignores these, which would be a surprise.
    if (name == "egl" || name == "ssclz")
      throw Error("vif: option '" + name + "' is only the score-name suffix of " +
                  (name == "egl" ? "vif_enhn_gain_limit" : "vif_skip_scale0") +
                  "; libvmaf takes the option by that full name");
  }
  OptionReader reader("vif", options);
  VifParams params;
  const bool debug = reader.read_bool("debug", false);
  params.enhn_gain_limit = reader.read_double("vif_enhn_gain_limit", kDefaultEnhnGainLimit,
                                              kMinEnhnGainLimit, kDefaultEnhnGainLimit);
  params.skip_scale0 = reader.read_bool("vif_skip_scale0", false);
  reader.finish();
  return std::make_unique<IntegerVifExtractor>(params, debug);
}

std::vector<std::string> IntegerVifExtractor::provided_features() const { return provided_names(); }

std::string IntegerVifExtractor::score_key(std::string_view provided_name) const {
  // libvmaf's feature parameters (debug is not one), sorted by name in the suffix.
  std::vector<NamedOption> non_default;
  if (params_.enhn_gain_limit != kDefaultEnhnGainLimit)
    non_default.push_back({"vif_enhn_gain_limit", "egl",
                           format_option_double(params_.enhn_gain_limit), false});
  if (params_.skip_scale0) non_default.push_back({"vif_skip_scale0", "ssclz", "true", true});
  return feature_name_with_options(provided_name, std::move(non_default));
}

void IntegerVifExtractor::init(const PictureFormat& format) {
  kernel_.emplace(format.width, format.height, format.bpc, params_);
  keys_.clear();
  for (const auto& name : provided_names()) keys_.push_back(score_key(name));
}

void IntegerVifExtractor::extract(const PictureView& ref, const PictureView& dist, unsigned index,
                                  FeatureCollector& scores) {
  if (!kernel_) throw Error("vif: extract() before init()");
  append_scores(kernel_->compute(ref.planes[0], dist.planes[0], *runner_), index, scores);
}

void IntegerVifExtractor::append_scores(const FrameSums& sums, unsigned index,
                                        FeatureCollector& scores) const {
  const FrameScores s = finish_frame(sums, params_.skip_scale0);
  for (unsigned scale = 0; scale < kScaleCount; ++scale)
    scores.append(keys_[scale], index, s.scale[scale]);
  if (!debug_) return;
  scores.append(keys_[4], index, s.vif);
  scores.append(keys_[5], index, s.num);
  scores.append(keys_[6], index, s.den);
  for (unsigned scale = 0; scale < kScaleCount; ++scale) {
    scores.append(keys_[7 + 2 * scale], index, s.num_scale[scale]);
    scores.append(keys_[8 + 2 * scale], index, s.den_scale[scale]);
  }
}

}  // namespace vmafexact::vif
