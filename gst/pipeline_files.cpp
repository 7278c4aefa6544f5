#include "pipeline_files.h"

#include <glib/gprintf.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "gst_handles.h"
#include "rotated_names.h"

namespace vmafexact::gst {
namespace {

namespace fs = std::filesystem;

// The elements whose location is a printf pattern of numbered files.
constexpr std::array<std::string_view, 5> kNumberedFileElements = {
    "multifilesrc", "multifilesink", "splitmuxsink", "hlssink", "hlssink2"};

// The string value of `element`'s property `name`, if it has one.
std::optional<std::string> string_property(GstElement* element, const char* name) {
  GParamSpec* spec = g_object_class_find_property(G_OBJECT_GET_CLASS(element), name);
  if (!spec || spec->value_type != G_TYPE_STRING || !(spec->flags & G_PARAM_READABLE))
    return std::nullopt;
  gchar* value = nullptr;
  g_object_get(element, name, &value, nullptr);
  GCharPtr owned(value);
  if (!value) return std::nullopt;
  return std::string(value);
}

// A piece of a numbered pattern: literal text, or an integer conversion.
struct Piece {
  std::string literal;
  std::string format;  // the conversion rewritten for a long long ("%05lld"); empty for a literal
  int base = 10;
  bool is_signed = true;
};

Piece literal_piece(std::string text) {
  Piece piece;
  piece.literal = std::move(text);
  return piece;
}

// The pieces of a printf pattern with one or two integer conversions; nullopt
// when it has none, more, or another conversion (%s: not a numbered pattern).
std::optional<std::vector<Piece>> numbered_pieces(std::string_view pattern) {
  std::vector<Piece> pieces;
  std::size_t conversions = 0;
  std::string literal;
  for (std::size_t at = 0; at < pattern.size();) {
    if (pattern[at] != '%') {
      literal += pattern[at++];
      continue;
    }
    if (at + 1 < pattern.size() && pattern[at + 1] == '%') {
      literal += '%';
      at += 2;
      continue;
    }
    std::size_t end = at + 1;
    const auto take = [&](std::string_view set) {
      while (end < pattern.size() && set.find(pattern[end]) != std::string_view::npos) ++end;
    };
    take("-+ #0");
    take("0123456789");  // width
    if (end < pattern.size() && pattern[end] == '.') {
      ++end;
      take("0123456789");  // precision: at least that many digits
    }
    const std::size_t spec_end = end;
    take("hlqjzt");  // length: the number is printed as a long long anyway
    if (end >= pattern.size()) return std::nullopt;
    Piece piece;
    const char conversion = pattern[end];
    switch (conversion) {
      case 'd':
      case 'i':
        break;
      case 'u':
        piece.is_signed = false;
        break;
      case 'x':
      case 'X':
        piece.is_signed = false;
        piece.base = 16;
        break;
      case 'o':
        piece.is_signed = false;
        piece.base = 8;
        break;
      default:
        return std::nullopt;
    }
    if (++conversions > 2) return std::nullopt;
    if (!literal.empty()) pieces.push_back(literal_piece(std::exchange(literal, {})));
    piece.format = std::string(pattern.substr(at, spec_end - at)) + "ll" + conversion;
    pieces.push_back(std::move(piece));
    at = end + 1;
  }
  if (conversions == 0) return std::nullopt;
  if (!literal.empty()) pieces.push_back(literal_piece(std::move(literal)));
  return pieces;
}

// The text `piece` prints for `number`.
std::string printed(const Piece& piece, long long number) {
  std::array<char, 128> text{};
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
  if (piece.is_signed)
    g_snprintf(text.data(), text.size(), piece.format.c_str(), number);
  else
    g_snprintf(text.data(), text.size(), piece.format.c_str(),
               static_cast<unsigned long long>(number));
#pragma GCC diagnostic pop
  return text.data();
}

// Whether `pieces` from `piece` on print exactly `name`: each conversion
// tries every short prefix that reads as a number and prints back the same.
bool prints(const std::vector<Piece>& pieces, std::size_t piece, std::string_view name) {
  if (piece == pieces.size()) return name.empty();
  const Piece& current = pieces[piece];
  if (current.format.empty())
    return name.starts_with(current.literal) &&
           prints(pieces, piece + 1, name.substr(current.literal.size()));
  constexpr std::size_t kLongestNumber = 64;  // wide enough for any width a name would use
  for (std::size_t length = 1; length <= std::min(name.size(), kLongestNumber); ++length) {
    const std::string text(name.substr(0, length));
    char* end = nullptr;
    errno = 0;
    const long long number =
        current.is_signed ? std::strtoll(text.c_str(), &end, current.base)
                          : static_cast<long long>(std::strtoull(text.c_str(), &end, current.base));
    if (errno != 0 || end != text.c_str() + text.size()) continue;
    if (printed(current, number) == text && prints(pieces, piece + 1, name.substr(length)))
      return true;
  }
  return false;
}

fs::path folder_of(const fs::path& path) {
  return path.has_parent_path() ? path.parent_path() : fs::path(".");
}

// The local file (or numbered pattern) an element reads or writes, if it names one.
std::optional<PipelineFile> file_of(GstElement* element) {
  PipelineFile file;
  if (auto location = string_property(element, "location")) {
    file.path = std::move(*location);
    GstElementFactory* factory = gst_element_get_factory(element);
    const std::string_view factory_name =
        factory ? gst_plugin_feature_get_name(GST_PLUGIN_FEATURE(factory)) : "";
    file.pattern = std::find(kNumberedFileElements.begin(), kNumberedFileElements.end(),
                             factory_name) != kNumberedFileElements.end() &&
                   numbered_pieces(file.path).has_value();
  } else if (auto uri = string_property(element, "uri")) {
    GCharPtr filename(g_filename_from_uri(uri->c_str(), nullptr, nullptr));
    if (!filename) return std::nullopt;
    file.path = filename.get();
  } else {
    return std::nullopt;
  }
  GCharPtr name(gst_element_get_name(element));
  file.element = name.get();
  return file;
}

// The first element of `element`'s pipeline (other than `element`) whose file
// `matches`.
std::optional<PipelineFile> find_element(GstElement* element,
                                         const std::function<bool(const PipelineFile&)>& matches) {
  // The outermost bin: the pipeline, or the bin an application keeps it in.
  GstObject* top = GST_OBJECT(gst_object_ref(element));
  while (GstObject* parent = gst_object_get_parent(top)) {
    gst_object_unref(top);
    top = parent;
  }
  const GstObjectPtr<GstObject> owned_top(top);
  std::optional<PipelineFile> found;
  if (!GST_IS_BIN(top)) return found;
  GstIterator* elements = gst_bin_iterate_recurse(GST_BIN(top));
  GValue item = G_VALUE_INIT;
  bool done = false;
  while (!done && !found) {
    switch (gst_iterator_next(elements, &item)) {
      case GST_ITERATOR_OK: {
        auto* other = GST_ELEMENT(g_value_get_object(&item));
        if (other != element)
          if (auto file = file_of(other); file && matches(*file)) found = std::move(file);
        g_value_reset(&item);
        break;
      }
      case GST_ITERATOR_RESYNC:
        gst_iterator_resync(elements);
        break;
      case GST_ITERATOR_ERROR:
      case GST_ITERATOR_DONE:
        done = true;
        break;
    }
  }
  g_value_unset(&item);
  gst_iterator_free(elements);
  return found;
}

}  // namespace

bool same_file(const std::string& a, const std::string& b) {
  std::error_code error;
  return std::filesystem::equivalent(a, b, error) && !error;
}

bool matches_numbered_pattern(const std::string& pattern, const std::string& path) {
  try {
    const fs::path pattern_path(pattern), file_path(path);
    const std::string pattern_folder = folder_of(pattern_path).string();
    if (pattern_folder.find('%') != std::string::npos) {
      // Conversions (or %%) in a folder name: the whole paths, made absolute.
      const auto pieces = numbered_pieces(fs::absolute(pattern_path).lexically_normal().string());
      return pieces && prints(*pieces, 0, fs::absolute(file_path).lexically_normal().string());
    }
    const auto pieces = numbered_pieces(pattern_path.filename().string());
    return pieces && same_file(pattern_folder, folder_of(file_path).string()) &&
           prints(*pieces, 0, file_path.filename().string());
  } catch (const std::exception&) {
    return false;  // a path std::filesystem cannot handle
  }
}

std::optional<PipelineFile> pipeline_element_using(GstElement* element, const std::string& path) {
  return find_element(element, [&](const PipelineFile& file) {
    return file.pattern ? matches_numbered_pattern(file.path, path) : same_file(file.path, path);
  });
}

std::optional<PipelineFile> pipeline_element_named_by(GstElement* element,
                                                      const std::string& rotation_pattern) {
  return find_element(element, [&](const PipelineFile& file) {
    return !file.pattern && is_rotated_name(rotation_pattern, file.path);
  });
}

}  // namespace vmafexact::gst
