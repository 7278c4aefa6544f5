#include "common/feature_options.h"

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include "common/error.h"

namespace vmafexact {

std::string_view feature_name_alias(std::string_view provided_name) {
  // libvmaf's alias table (feature/alias.c): the integer and float features that
  // its models read.
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 34> aliases = {{
      {"VMAF_feature_adm2_score", "adm2"},
      {"VMAF_feature_aim_score", "aim"},
      {"VMAF_feature_adm3_score", "adm3"},
      {"VMAF_feature_adm_scale0_score", "adm_scale0"},
      {"VMAF_feature_adm_scale1_score", "adm_scale1"},
      {"VMAF_feature_adm_scale2_score", "adm_scale2"},
      {"VMAF_feature_adm_scale3_score", "adm_scale3"},
      {"VMAF_feature_motion_score", "motion"},
      {"VMAF_feature_motion2_score", "motion2"},
      {"VMAF_feature_motion3_score", "motion3"},
      {"VMAF_feature_vif_scale0_score", "vif_scale0"},
      {"VMAF_feature_vif_scale1_score", "vif_scale1"},
      {"VMAF_feature_vif_scale2_score", "vif_scale2"},
      {"VMAF_feature_vif_scale3_score", "vif_scale3"},
      {"VMAF_integer_feature_adm2_score", "integer_adm2"},
      {"VMAF_integer_feature_aim_score", "integer_aim"},
      {"VMAF_integer_feature_adm3_score", "integer_adm3"},
      {"VMAF_integer_feature_adm_scale0_score", "integer_adm_scale0"},
      {"VMAF_integer_feature_adm_scale1_score", "integer_adm_scale1"},
      {"VMAF_integer_feature_adm_scale2_score", "integer_adm_scale2"},
      {"VMAF_integer_feature_adm_scale3_score", "integer_adm_scale3"},
      {"VMAF_integer_feature_motion_score", "integer_motion"},
      {"VMAF_integer_feature_motion2_score", "integer_motion2"},
      {"VMAF_integer_feature_motion3_score", "integer_motion3"},
      {"VMAF_integer_feature_vif_scale0_score", "integer_vif_scale0"},
      {"VMAF_integer_feature_vif_scale1_score", "integer_vif_scale1"},
      {"VMAF_integer_feature_vif_scale2_score", "integer_vif_scale2"},
      {"VMAF_integer_feature_vif_scale3_score", "integer_vif_scale3"},
      {"VMAF_feature_vif_scale0_num", "vif_num_scale0"},
      {"VMAF_feature_vif_scale0_den", "vif_den_scale0"},
      {"VMAF_feature_vif_scale1_num", "vif_num_scale1"},
      {"VMAF_feature_vif_scale1_den", "vif_den_scale1"},
      {"VMAF_feature_vif_scale2_num", "vif_num_scale2"},
      {"VMAF_feature_vif_scale2_den", "vif_den_scale2"},
  }};
  for (const auto& [name, alias] : aliases)
    if (name == provided_name) return alias;
  return provided_name;
}

std::string format_option_double(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%g", value);
  return text;
}

std::string feature_name_with_options(std::string_view provided_name,
                                      std::vector<NamedOption> non_default) {
  if (non_default.empty()) return std::string(feature_name_alias(provided_name));
  std::sort(non_default.begin(), non_default.end(),
            [](const NamedOption& a, const NamedOption& b) { return a.name < b.name; });
  std::string name(feature_name_alias(provided_name));
  for (const auto& option : non_default) {
    name += '_';
    name += option.alias;
    if (!option.is_bool) {
      name += '_';
      name += option.value;
    }
  }
  return name;
}

OptionReader::OptionReader(std::string_view extractor, const FeatureOptions& options)
    : extractor_(extractor), options_(options), used_(options.size(), false) {}

std::optional<std::string> OptionReader::take(std::string_view name) {
  std::optional<std::string> value;
  for (std::size_t i = 0; i < options_.size(); ++i) {
    if (options_[i].first != name) continue;
    used_[i] = true;
    value = options_[i].second;  // the last one given wins, as in libvmaf's dictionary
  }
  return value;
}

double OptionReader::read_double(std::string_view name, double default_value, double min,
                                 double max) {
  const auto text = take(name);
  if (!text) return default_value;
  char* end = nullptr;
  errno = 0;
  const double value = std::strtod(text->c_str(), &end);
  if (text->empty() || *end != '\0' || errno == ERANGE || !(value >= min && value <= max))
    throw Error(extractor_ + ": option " + std::string(name) + "=" + *text +
                " is not a number in [" + format_option_double(min) + ", " +
                format_option_double(max) + "]");
  return value;
}

int OptionReader::read_int(std::string_view name, int default_value, int min, int max) {
  const auto text = take(name);
  if (!text) return default_value;
  char* end = nullptr;
  errno = 0;
  const long value = std::strtol(text->c_str(), &end, 10);
  if (text->empty() || *end != '\0' || errno == ERANGE || value < min || value > max)
    throw Error(extractor_ + ": option " + std::string(name) + "=" + *text +
                " is not an integer in [" + std::to_string(min) + ", " + std::to_string(max) +
                "]");
  return static_cast<int>(value);
}

bool OptionReader::read_bool(std::string_view name, bool default_value) {
  const auto text = take(name);
  if (!text) return default_value;
  if (*text == "true" || *text == "1") return true;
  if (*text == "false" || *text == "0") return false;
  throw Error(extractor_ + ": option " + std::string(name) + "=" + *text +
              " is not a boolean (true or false)");
}

void OptionReader::finish() const {
  for (std::size_t i = 0; i < options_.size(); ++i)
    if (!used_[i])
      throw Error(extractor_ + ": unknown option '" + options_[i].first + "'");
}

}  // namespace vmafexact
