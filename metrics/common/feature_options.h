// Extractor options as libvmaf takes them (`--feature adm=adm_enhn_gain_limit=1.0`
// or a model's feature_opts_dicts), and libvmaf's naming of scores computed
// with non-default options (integer_adm2 -> integer_adm2_egl_1).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vmafexact {

// Name/value pairs in the order given; values as text.
using FeatureOptions = std::vector<std::pair<std::string, std::string>>;

// An option whose value differs from its default and which libvmaf marks as a
// feature parameter (VMAF_OPT_FLAG_FEATURE_PARAM), so it shows in score names.
struct NamedOption {
  std::string name;   // the option's name, e.g. "adm_enhn_gain_limit" (the sort key)
  std::string alias;  // its short name in scores, e.g. "egl" (or the name)
  std::string value;  // formatted as libvmaf does: %g for doubles, %d for ints
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

// Reads typed values out of FeatureOptions, throwing vmafexact::Error that
// names the extractor, the option and the accepted range. Every option must be
// read once; unread ones are unknown and rejected by finish().
class OptionReader {
 public:
  OptionReader(std::string_view extractor, const FeatureOptions& options);
  double read_double(std::string_view name, double default_value, double min, double max);
  int read_int(std::string_view name, int default_value, int min, int max);
  bool read_bool(std::string_view name, bool default_value);
  void finish() const;  // throws for options no read_* call asked for

 private:
  std::optional<std::string> take(std::string_view name);
  std::string extractor_;
  FeatureOptions options_;
  std::vector<bool> used_;
};

}  // namespace vmafexact
