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
  // its models read, and VMAF v1's CAMBI and SpEED scores.
  static constexpr std::array<std::pair<std::string_view, std::string_view>, 39> aliases = {{
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
      {"Cambi_feature_cambi_score", "cambi"},
      {"Speed_chroma_feature_speed_chroma_u_score", "speed_chroma_u"},
      {"Speed_chroma_feature_speed_chroma_v_score", "speed_chroma_v"},
      {"Speed_chroma_feature_speed_chroma_uv_score", "speed_chroma_uv"},
      {"Speed_temporal_feature_speed_temporal_score", "speed_temporal"},
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

std::string libvmaf_dictionary_value(const std::string& text) {
  float ignored = 0;
  char trailing = 0;
  if (std::sscanf(text.c_str(), "%f %c", &ignored, &trailing) != 1) return text;
  char* end = nullptr;
  const double value = std::strtof(text.c_str(), &end);  // a float, as libvmaf reads it
  if (value == 0 && end == text.c_str()) return text;
  return format_option_double(value);
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

namespace {

std::string describe_range(const OptionSpec& spec) {
  switch (spec.type) {
    case OptionType::kBool: return "a boolean (true or false)";
    case OptionType::kInt:
      return "an integer in [" + std::to_string(static_cast<long long>(spec.min)) + ", " +
             std::to_string(static_cast<long long>(spec.max)) + "]";
    case OptionType::kDouble:
      return "a number in [" + format_option_double(spec.min) + ", " +
             format_option_double(spec.max) + "]";
    case OptionType::kString: return "a text";
  }
  return {};
}

// The value of `text` for `spec`, or nullopt when it is not one.
std::optional<double> parse_value(const OptionSpec& spec, const std::string& text) {
  if (spec.type == OptionType::kString) return 0.0;
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  switch (spec.type) {
    case OptionType::kBool:
      if (text == "true" || text == "1") return 1.0;
      if (text == "false" || text == "0") return 0.0;
      return std::nullopt;
    case OptionType::kInt: {
      const long value = std::strtol(text.c_str(), &end, 10);
      if (*end != '\0' || errno == ERANGE || value < spec.min || value > spec.max)
        return std::nullopt;
      return static_cast<double>(value);
    }
    case OptionType::kDouble: {
      const double value = std::strtod(text.c_str(), &end);
      if (*end != '\0' || errno == ERANGE || !(value >= spec.min && value <= spec.max))
        return std::nullopt;
      return value;
    }
    case OptionType::kString: return 0.0;  // the text itself is kept (texts_)
  }
  return std::nullopt;
}

std::string format_value(const OptionSpec& spec, double value) {
  switch (spec.type) {
    case OptionType::kBool: return value != 0 ? "true" : "false";
    case OptionType::kInt: return std::to_string(static_cast<int>(value));
    case OptionType::kDouble: return format_option_double(value);
    case OptionType::kString: return {};  // named from texts_
  }
  return {};
}

}  // namespace

OptionValues::OptionValues(std::string_view extractor, std::span<const OptionSpec> table,
                           const FeatureOptions& given)
    : extractor_(extractor), table_(table) {
  values_.reserve(table.size());
  texts_.reserve(table.size());
  for (const auto& spec : table) {
    values_.push_back(spec.default_value);
    texts_.emplace_back(spec.default_text);
  }
  for (const auto& option : given) {
    // Named rather than a structured binding: clang 14 cannot capture those.
    const std::string& name = option.first;
    const std::string text = libvmaf_dictionary_value(option.second);
    const auto spec = std::find_if(table.begin(), table.end(),
                                   [&](const OptionSpec& s) { return s.name == name; });
    if (spec == table.end()) {
      // A score-name suffix given as an option: libvmaf would ignore it silently.
      for (const auto& s : table)
        if (!s.alias.empty() && s.alias == name)
          throw Error(extractor_ + ": option '" + name + "' is only the score-name suffix of " +
                      std::string(s.name) + "; libvmaf takes the option by that full name");
      std::string known;
      for (const auto& s : table) known += (known.empty() ? "" : ", ") + std::string(s.name);
      throw Error(extractor_ + ": unknown option '" + name + "'" +
                  (known.empty() ? std::string(" (it takes no options)")
                                 : " (options: " + known + ")"));
    }
    const auto value = parse_value(*spec, text);
    if (!value)
      throw Error(extractor_ + ": option " + name + "=" + option.second +
                  (text != option.second ? " (" + text + " once libvmaf stores it)" : "") +
                  " is not " + describe_range(*spec));
    const auto at = static_cast<std::size_t>(spec - table.begin());
    values_[at] = *value;
    if (spec->type == OptionType::kString) texts_[at] = text;
  }
  for (std::size_t i = 0; i < table.size(); ++i) {
    const OptionSpec& spec = table[i];
    if (!spec.feature_param) continue;
    const bool is_string = spec.type == OptionType::kString;
    // libvmaf compares strings with strcmp, the others by value.
    if (is_string ? texts_[i] == spec.default_text : values_[i] == spec.default_value) continue;
    named_.push_back({std::string(spec.name), std::string(spec.alias.empty() ? spec.name : spec.alias),
                      is_string ? texts_[i] : format_value(spec, values_[i]),
                      spec.type == OptionType::kBool});
  }
}

double OptionValues::value_of(std::string_view name, OptionType type) const {
  for (std::size_t i = 0; i < table_.size(); ++i)
    if (table_[i].name == name && table_[i].type == type) return values_[i];
  // A programming error: the extractor asked for an option its table lacks.
  throw Error(extractor_ + ": no option '" + std::string(name) + "' of that type in its table");
}

bool OptionValues::get_bool(std::string_view name) const {
  return value_of(name, OptionType::kBool) != 0;
}
int OptionValues::get_int(std::string_view name) const {
  return static_cast<int>(value_of(name, OptionType::kInt));
}
double OptionValues::get_double(std::string_view name) const {
  return value_of(name, OptionType::kDouble);
}
const std::string& OptionValues::get_string(std::string_view name) const {
  for (std::size_t i = 0; i < table_.size(); ++i)
    if (table_[i].name == name && table_[i].type == OptionType::kString) return texts_[i];
  throw Error(extractor_ + ": no option '" + std::string(name) + "' of that type in its table");
}

}  // namespace vmafexact
