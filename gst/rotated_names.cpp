#include "rotated_names.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <regex>
#include <string_view>
#include <system_error>

namespace vmafexact::gst {
namespace {

namespace fs = std::filesystem;

constexpr std::string_view kIndex = "{index}";
constexpr std::string_view kTime = "{time}";

bool has_placeholder(std::string_view text) {
  return text.find(kIndex) != std::string_view::npos || text.find(kTime) != std::string_view::npos;
}

// The length of the pattern's extension (".json"), 0 when its file name has
// none or the part after the last '.' holds a placeholder.
std::size_t extension_length(const std::string& pattern) {
  const std::size_t slash = pattern.rfind('/');
  const std::size_t leaf = slash == std::string::npos ? 0 : slash + 1;
  const std::size_t dot = pattern.rfind('.');
  if (dot == std::string::npos || dot <= leaf) return 0;
  const std::string_view extension = std::string_view(pattern).substr(dot);
  return has_placeholder(extension) || extension.find('{') != std::string_view::npos
             ? 0
             : extension.size();
}

// Anything is there: a file, a folder, a device, a dangling symlink.
bool taken(const std::string& path) {
  std::error_code error;
  const auto status = fs::symlink_status(path, error);
  // A folder that cannot be searched (file_type::none): the write will fail
  // and say so; probing more names would not help.
  return status.type() != fs::file_type::not_found && status.type() != fs::file_type::none;
}

std::string regex_escaped(std::string_view text) {
  std::string escaped;
  for (const char c : text) {
    if (std::string_view("\\^$.|?*+()[]{}").find(c) != std::string_view::npos) escaped += '\\';
    escaped += c;
  }
  return escaped;
}

// A regular expression for the names of `pattern` (a path or a file name).
std::regex rotated_names_regex(const std::string& pattern) {
  const std::size_t extension = extension_length(pattern);
  const std::string_view stem = std::string_view(pattern).substr(0, pattern.size() - extension);
  std::string expression;
  for (std::size_t at = 0; at < stem.size();) {
    if (stem.substr(at).starts_with(kIndex)) {
      expression += "[0-9]{6,}";
      at += kIndex.size();
    } else if (stem.substr(at).starts_with(kTime)) {
      expression += "[0-9]{8}T[0-9]{6}Z";
      at += kTime.size();
    } else {
      expression += regex_escaped(stem.substr(at, 1));
      ++at;
    }
  }
  expression += "(-[1-9][0-9]*)?" + regex_escaped(std::string_view(pattern).substr(stem.size()));
  return std::regex(expression);
}

fs::path folder_of(const fs::path& path) {
  return path.has_parent_path() ? path.parent_path() : fs::path(".");
}

}  // namespace

std::string rotated_log_name(const std::string& pattern, unsigned counter, GDateTime* time) {
  std::string name = pattern;
  const auto replace = [&](std::string_view key, const std::string& value) {
    for (std::size_t at = name.find(key); at != std::string::npos;
         at = name.find(key, at + value.size()))
      name.replace(at, key.size(), value);
  };
  char digits[16];
  std::snprintf(digits, sizeof digits, "%06u", counter);
  replace("{index}", digits);
  if (time) {
    std::unique_ptr<GDateTime, decltype(&g_date_time_unref)> utc(g_date_time_to_utc(time),
                                                                 g_date_time_unref);
    std::unique_ptr<gchar, decltype(&g_free)> text(g_date_time_format(utc.get(), "%Y%m%dT%H%M%SZ"),
                                                   g_free);
    replace("{time}", text ? text.get() : "");
  }
  return name;
}

std::string with_collision_suffix(const std::string& pattern, const std::string& name,
                                  unsigned suffix) {
  const std::size_t extension = std::min(extension_length(pattern), name.size());
  const std::size_t at = name.size() - extension;
  return name.substr(0, at) + '-' + std::to_string(suffix) + name.substr(at);
}

std::string RotatedNames::next(unsigned index, GDateTime* time) {
  const std::string name = rotated_log_name(pattern_, index, time);
  // The previous file's name again (a {time} pattern within one second):
  // after its suffix, so that no earlier file of the run is probed again.
  unsigned suffix = name == last_name_ ? last_suffix_ + 1 : 0;
  std::string path = suffix ? with_collision_suffix(pattern_, name, suffix) : name;
  while (taken(path)) path = with_collision_suffix(pattern_, name, ++suffix);
  last_name_ = name;
  last_suffix_ = suffix;
  return path;
}

bool is_rotated_name(const std::string& pattern, const std::string& path) {
  try {
    const fs::path pattern_path(pattern), file_path(path);
    const std::string pattern_folder = folder_of(pattern_path).string();
    if (has_placeholder(pattern_folder)) {
      // Placeholders in a folder name: the whole paths, made absolute.
      return std::regex_match(
          fs::absolute(file_path).lexically_normal().string(),
          rotated_names_regex(fs::absolute(pattern_path).lexically_normal().string()));
    }
    std::error_code error;
    if (!fs::equivalent(pattern_folder, folder_of(file_path), error) || error) return false;
    return std::regex_match(file_path.filename().string(),
                            rotated_names_regex(pattern_path.filename().string()));
  } catch (const std::exception&) {
    return false;  // a path std::filesystem cannot handle names no rotated file
  }
}

}  // namespace vmafexact::gst
