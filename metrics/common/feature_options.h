// Extractor options as libvmaf takes them (`--feature adm=adm_enhn_gain_limit=1.0`
// or a model's feature_opts_dicts): each extractor declares a table of its
// options (libvmaf's VmafOption: name, type, default, range, alias, whether it
// is a feature parameter), and one parser reads any extractor's options
// through its table. Feature parameters with values other than their default
// name the scores (integer_adm2 -> integer_adm2_egl_1) and tell extractors
// apart, as libvmaf's vmaf_feature_name_from_options() does.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vmafexact {

// Name/value pairs in the order given; values as text.
using FeatureOptions = std::vector<std::pair<std::string, std::string>>;

enum class OptionType { kBool, kInt, kDouble, kString };

// One option of an extractor, as libvmaf declares it.
struct OptionSpec {
  std::string_view name;   // libvmaf's option name, e.g. "adm_enhn_gain_limit"
  OptionType type = OptionType::kDouble;
  double default_value = 0;  // bool: 0 or 1
  double min = 0, max = 0;   // the accepted range (int and double)
  // libvmaf's VMAF_OPT_FLAG_FEATURE_PARAM: a value other than the default
  // shows in score names, under `alias` (or the name when it has none).
  bool feature_param = false;
  std::string_view alias = {};
  std::string_view help = {};  // one line for users (docs, property help)
  // kString: the default text (libvmaf's default_val.s; any text is accepted,
  // the extractor checks it, as libvmaf's init does).
  std::string_view default_text = {};
};

// An option whose value differs from its default and which is a feature
// parameter, so it shows in score names.
struct NamedOption {
  std::string name;   // the option's name, e.g. "adm_enhn_gain_limit" (the sort key)
  std::string alias;  // its short name in scores, e.g. "egl" (or the name)
  std::string value;  // formatted as libvmaf does: %g for doubles, %d for ints, strings as given
  bool is_bool = false;  // booleans append "_alias" only
};

// libvmaf's vmaf_feature_name_from_options(): with no non-default parameter the
// name stays as given; otherwise its alias followed by "_alias_value" for each
// parameter in alphabetical order of the options' names.
std::string feature_name_with_options(std::string_view provided_name,
                                      std::vector<NamedOption> non_default);

// libvmaf's alias of a provided feature name ("VMAF_integer_feature_adm2_score"
// -> "integer_adm2"); the name itself where libvmaf has no alias.
std::string_view feature_name_alias(std::string_view provided_name);

// printf("%g") of a double, as libvmaf formats double options in names.
std::string format_option_double(double value);

// A value as libvmaf's vmaf_feature_dictionary_set() stores it, which every
// option passes through (--feature, model files, model overloads): text that
// sscanf reads as one float is read with strtof and printed with "%g" (six
// significant digits: "1.0" -> "1", "0.1234567" -> "0.123457"); other text as given.
std::string libvmaf_dictionary_value(const std::string& text);

// The values of every option of one extractor (defaults where none was
// given), read through its table.
class OptionValues {
 public:
  // Throws vmafexact::Error naming the extractor, the option and the accepted
  // values for an unknown option (pointing from a score-name alias to its
  // option) or a value of the wrong type or out of range. Values are read as
  // libvmaf stores them (libvmaf_dictionary_value()); the last value given
  // for an option wins, as in libvmaf's dictionary.
  OptionValues(std::string_view extractor, std::span<const OptionSpec> table,
               const FeatureOptions& given);

  bool get_bool(std::string_view name) const;
  int get_int(std::string_view name) const;
  double get_double(std::string_view name) const;
  const std::string& get_string(std::string_view name) const;

  // The feature parameters whose values differ from their defaults.
  const std::vector<NamedOption>& named() const { return named_; }
  // The collector key of a provided feature with these options.
  std::string score_key(std::string_view provided_name) const {
    return feature_name_with_options(provided_name, named_);
  }
  // What makes two extractors of the same name one, as libvmaf's
  // feature_extractor_vector_append() decides: the extractor's name with its
  // non-default feature parameters ("adm_egl_1"). Options that are not
  // feature parameters (debug) do not count.
  std::string identity() const { return score_key(extractor_); }
  const std::string& extractor() const { return extractor_; }

 private:
  double value_of(std::string_view name, OptionType type) const;
  std::string extractor_;
  std::span<const OptionSpec> table_;
  std::vector<double> values_;  // parallel to table_
  std::vector<std::string> texts_;  // parallel to table_: the kString values
  std::vector<NamedOption> named_;
};

}  // namespace vmafexact
