#include "request.h"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "common/error.h"
#include "registry.h"

namespace vmafexact {

std::string identity_of(const FeatureRequest& request) {
  return feature_entry(request.name).descriptor.parse(request.options).identity();
}

namespace {

std::string_view trim(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

// Text from the user as ASCII, for an error message: bytes outside printable
// ASCII (a tab, a newline, UTF-8 or not) as \xNN.
std::string printable(std::string_view text) {
  std::string shown;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte < 0x7f) {
      shown += c;
    } else {
      char escaped[8];
      std::snprintf(escaped, sizeof escaped, "\\x%02X", byte);
      shown += escaped;
    }
  }
  return shown;
}

bool is_ascii_letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

// A score name goes into every log as it is, where nothing can escape it:
// libvmaf's XML log writes it as an attribute name, the CSV and SUB layouts as
// a column and a label, the element's messages as a field name (which
// gst_structure_from_string() reads back in ASCII only). So a model's name is
// an XML name in ASCII: a letter or '_', then letters, digits, '_', '-', '.'.
void check_score_name(std::string_view name, std::string_view entry) {
  for (std::size_t i = 0; i < name.size(); ++i) {
    const char c = name[i];
    const bool allowed = is_ascii_letter(c) || c == '_' ||
                         (i > 0 && ((c >= '0' && c <= '9') || c == '-' || c == '.'));
    if (allowed) continue;
    const auto byte = static_cast<unsigned char>(c);
    char what[64];
    if (c == ' ')
      std::snprintf(what, sizeof what, "a space");
    else if (c == '\t')
      std::snprintf(what, sizeof what, "a tab");
    else if (c == '\n')
      std::snprintf(what, sizeof what, "a newline");
    else if (byte < 0x20 || byte == 0x7f)
      std::snprintf(what, sizeof what, "the control character 0x%02X", byte);
    else if (byte >= 0x80)
      std::snprintf(what, sizeof what, "a byte outside ASCII (0x%02X)", byte);
    else
      std::snprintf(what, sizeof what, "'%c'", c);
    throw Error("model entry '" + printable(entry) + "': the name '" + printable(name) + "' " +
                (i == 0 ? "starts with " : "holds ") + what +
                "; a score name is written as it is into every log (an XML attribute name, a "
                "CSV column, a message field), so it holds only ASCII letters, digits, '_', '-' "
                "and '.', and starts with a letter or '_' (e.g. name=vmaf_4k)");
  }
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> parts;
  std::size_t start = 0;
  while (true) {
    const std::size_t end = text.find(separator, start);
    parts.push_back(text.substr(start, end == std::string_view::npos ? end : end - start));
    if (end == std::string_view::npos) break;
    start = end + 1;
  }
  return parts;
}

// "vif.vif_enhn_gain_limit=1.0" of model entry `entry`, checked against the
// registry: the extractor, its option and the value.
ModelOverload parse_overload(std::string_view option, std::string_view entry) {
  const auto fail = [&](const std::string& what) -> Error {
    return Error("model overload '" + std::string(option) + "' in '" + std::string(entry) +
                 "': " + what);
  };
  const std::size_t equals = option.find('=');
  const std::size_t dot = option.find('.');
  if (equals == std::string_view::npos)
    throw fail("no value (write EXTRACTOR.OPTION=VALUE, e.g. vif.vif_enhn_gain_limit=1.0)");
  ModelOverload overload{std::string(trim(option.substr(0, dot))),
                         std::string(trim(option.substr(dot + 1, equals - dot - 1))),
                         std::string(trim(option.substr(equals + 1)))};
  if (overload.extractor.empty() || overload.option.empty() ||
      overload.option.find('.') != std::string::npos ||
      overload.value.find('=') != std::string::npos)
    throw fail("malformed (write EXTRACTOR.OPTION=VALUE, e.g. vif.vif_enhn_gain_limit=1.0)");
  try {
    feature_entry(overload.extractor).descriptor.parse({{overload.option, overload.value}});
  } catch (const Error& error) {
    throw fail(error.what());
  }
  return overload;
}

}  // namespace

std::vector<FeatureRequest> parse_feature_list(std::string_view list) {
  std::vector<FeatureRequest> requests;
  for (std::string_view item : split(list, ',')) {
    item = trim(item);
    if (item.empty()) continue;
    FeatureRequest request;
    const std::size_t equals = item.find('=');
    request.name = std::string(trim(item.substr(0, equals)));
    if (equals != std::string_view::npos) {
      for (std::string_view option : split(item.substr(equals + 1), ':')) {
        option = trim(option);
        const std::size_t option_equals = option.find('=');
        if (option.empty() || option_equals == std::string_view::npos || option_equals == 0)
          throw Error("malformed option '" + std::string(option) + "' of feature '" +
                      request.name + "' (expected name=option=value:option=value)");
        request.options.emplace_back(std::string(trim(option.substr(0, option_equals))),
                                     std::string(trim(option.substr(option_equals + 1))));
      }
    }
    make_feature_extractor(request.name, request.options);  // validates, throws if bad
    const std::string identity = identity_of(request);
    if (std::none_of(requests.begin(), requests.end(),
                     [&](const FeatureRequest& kept) { return identity_of(kept) == identity; }))
      requests.push_back(std::move(request));
  }
  return requests;
}

std::vector<ModelSpec> parse_model_list(std::string_view list) {
  std::vector<ModelSpec> specs;
  for (std::string_view entry : split(list, ',')) {
    entry = trim(entry);
    if (entry.empty()) continue;
    const auto parts = split(entry, ':');
    ModelSpec spec;
    std::string_view head = trim(parts[0]);
    if (head.rfind("version=", 0) == 0) {
      spec.source = std::string(head.substr(8));
    } else if (head.rfind("path=", 0) == 0) {
      spec.source = std::string(head.substr(5));
      spec.is_path = true;
    } else {
      spec.source = std::string(head);
      spec.is_path = head.find('/') != std::string_view::npos ||
                     (head.size() > 5 && head.substr(head.size() - 5) == ".json");
    }
    if (spec.source.empty())
      throw Error("model entry '" + std::string(entry) + "' names no model");
    for (std::size_t i = 1; i < parts.size(); ++i) {
      const std::string_view option = trim(parts[i]);
      if (option.rfind("name=", 0) == 0 && option.size() > 5) {
        spec.key = std::string(option.substr(5));
        check_score_name(spec.key, entry);
      } else if (option == "disable_clip" || option == "disable_clip=true") {
        spec.predict.disable_clip = true;
      } else if (option == "enable_transform" || option == "enable_transform=true") {
        spec.predict.enable_transform = true;
      } else if (const std::size_t dot = option.find('.');
                 dot != std::string_view::npos && dot < option.find('=')) {
        spec.overloads.push_back(parse_overload(option, entry));
      } else {
        throw Error("unknown model option '" + std::string(option) + "' in '" +
                    std::string(entry) +
                    "' (name=KEY, disable_clip, enable_transform, or a feature overload "
                    "EXTRACTOR.OPTION=VALUE such as vif.vif_enhn_gain_limit=1.0)");
      }
    }
    specs.push_back(std::move(spec));
  }
  return specs;
}

}  // namespace vmafexact
