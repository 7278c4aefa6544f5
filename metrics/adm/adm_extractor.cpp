#include "adm/adm_extractor.h"

#include "common/error.h"

namespace vmafexact::adm {

namespace {

// libvmaf's provided_features of "adm", in its order of writing.
const std::vector<std::string>& provided_names() {
  static const std::vector<std::string> names = {
      "VMAF_integer_feature_adm2_score", "VMAF_integer_feature_aim_score",
      "VMAF_integer_feature_adm3_score", "integer_adm_scale0",
      "integer_adm_scale1",              "integer_adm_scale2",
      "integer_adm_scale3",              "integer_adm",
      "integer_adm_num",                 "integer_adm_den",
      "integer_adm_num_scale0",          "integer_adm_den_scale0",
      "integer_adm_num_scale1",          "integer_adm_den_scale1",
      "integer_adm_num_scale2",          "integer_adm_den_scale2",
      "integer_adm_num_scale3",          "integer_adm_den_scale3"};
  return names;
}

constexpr std::size_t kAlwaysWritten = 7;  // without debug: the first seven

}  // namespace

AdmOptions read_adm_options(const FeatureOptions& options, std::vector<NamedOption>* named) {
  OptionReader reader("adm", options);
  const AdmOptions defaults;
  AdmOptions o;
  std::vector<NamedOption> parameters;
  // A parameter (libvmaf's VMAF_OPT_FLAG_FEATURE_PARAM) with a value other than
  // its default names the scores: "_alias_value" (%g or %d), "_alias" for bools.
  const auto real = [&](const char* name, const char* alias, double def, double min, double max) {
    const double value = reader.read_double(name, def, min, max);
    if (value != def) parameters.push_back({name, alias, format_option_double(value), false});
    return value;
  };
  const auto integer = [&](const char* name, const char* alias, int def, int min, int max) {
    const int value = reader.read_int(name, def, min, max);
    if (value != def) parameters.push_back({name, alias, std::to_string(value), false});
    return value;
  };
  o.debug = reader.read_bool("debug", defaults.debug);
  o.csf_scale = real("adm_csf_scale", "scf", defaults.csf_scale, 0.0, 50.0);
  o.csf_diag_scale = real("adm_csf_diag_scale", "scfd", defaults.csf_diag_scale, 0.0, 50.0);
  o.dlm_weight = real("adm_dlm_weight", "dlmw", defaults.dlm_weight, 0.0, 1.0);
  o.enhn_gain_limit = real("adm_enhn_gain_limit", "egl", defaults.enhn_gain_limit, 1.0, 100.0);
  o.norm_view_dist = real("adm_norm_view_dist", "nvd", defaults.norm_view_dist, 0.75, 24.0);
  o.ref_display_height =
      integer("adm_ref_display_height", "rdh", defaults.ref_display_height, 1, 4320);
  o.csf_mode = integer("adm_csf_mode", "csf", defaults.csf_mode, 0, 3);
  o.noise_weight = real("adm_noise_weight", "nw", defaults.noise_weight, 0.0, 1500.0);
  o.skip_aim = reader.read_bool("adm_skip_aim", defaults.skip_aim);
  o.skip_scale0 = reader.read_bool("adm_skip_scale0", defaults.skip_scale0);
  if (o.skip_scale0 != defaults.skip_scale0)
    parameters.push_back({"adm_skip_scale0", "ssz", "", true});
  o.min_val = real("adm_min_val", "min", defaults.min_val, 0.0, 1.0);
  reader.finish();
  csf_weights(o);  // rejects what libvmaf would refuse at every frame
  if (named) *named = std::move(parameters);
  return o;
}

std::unique_ptr<FeatureExtractor> make_integer_adm_extractor(const FeatureOptions& options) {
  std::vector<NamedOption> named;
  const AdmOptions adm_options = read_adm_options(options, &named);
  return std::make_unique<IntegerAdmExtractor>(adm_options, std::move(named));
}

IntegerAdmExtractor::IntegerAdmExtractor(const AdmOptions& options, std::vector<NamedOption> named)
    : options_(options), named_(std::move(named)) {
  for (const auto& provided : provided_names()) keys_.push_back(score_key(provided));
}

std::vector<std::string> IntegerAdmExtractor::provided_features() const { return provided_names(); }

std::string IntegerAdmExtractor::score_key(std::string_view provided_name) const {
  return feature_name_with_options(provided_name, named_);
}

void check_adm_format(const PictureFormat& format) {
  if (!is_supported_bpc(format.bpc))
    throw Error("adm: unsupported bit depth " + std::to_string(format.bpc) +
                " (libvmaf takes 8, 10, 12 or 16)");
  check_picture_size(format.width, format.height);
}

void IntegerAdmExtractor::init(const PictureFormat& format) {
  computer_.reset();
  check_adm_format(format);
  computer_.emplace(format.width, format.height, options_);  // checks the size
  format_ = format;
}

void IntegerAdmExtractor::extract(const PictureView& ref, const PictureView& dist, unsigned index,
                                  FeatureCollector& scores) {
  if (!computer_) throw Error("adm: extract() before init()");
  const FrameSums sums = computer_->compute(ref.planes[0], dist.planes[0], ref.bpc, *runner_);
  const AdmScores s =
      finish_scores(sums, format_.width, format_.height, options_, computer_->weights());
  append_adm_scores(s, keys_, options_.debug, index, scores);
}

void append_adm_scores(const AdmScores& s, const std::vector<std::string>& keys, bool debug,
                       unsigned index, FeatureCollector& scores) {
  const double values[] = {s.adm2,       s.aim,        s.adm3,       s.scale[0],   s.scale[1],
                           s.scale[2],   s.scale[3],   s.adm2,       s.num,        s.den,
                           s.num_den[0], s.num_den[1], s.num_den[2], s.num_den[3], s.num_den[4],
                           s.num_den[5], s.num_den[6], s.num_den[7]};
  const std::size_t count = debug ? keys.size() : kAlwaysWritten;
  for (std::size_t k = 0; k < count; ++k) scores.append(keys[k], index, values[k]);
}

}  // namespace vmafexact::adm
