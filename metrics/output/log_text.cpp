#include "output/log_text.h"

#include <array>
#include <cstdio>

namespace vmafexact::log_text {

std::string printf_double(const char* format, double value) {
  std::array<char, 512> buffer{};
  const int n = std::snprintf(buffer.data(), buffer.size(), format, value);
  if (n < 0) return {};
  if (static_cast<std::size_t>(n) < buffer.size()) return std::string(buffer.data(), n);
  std::string large(static_cast<std::size_t>(n) + 1, '\0');
  std::snprintf(large.data(), large.size(), format, value);
  large.resize(static_cast<std::size_t>(n));
  return large;
}

namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD in UTF-8

struct CodePoint {
  char32_t value = 0;
  std::size_t length = 0;  // 0: no valid UTF-8 sequence starts here
};

// The UTF-8 sequence at text[at]: overlong forms, surrogates and values past
// U+10FFFF are not valid, as in JSON's and XML's UTF-8.
CodePoint code_point_at(std::string_view text, std::size_t at) {
  const auto first = static_cast<unsigned char>(text[at]);
  if (first < 0x80) return {first, 1};
  std::size_t length = 0;
  char32_t value = 0, smallest = 0;
  if ((first & 0xE0) == 0xC0) {
    length = 2, value = first & 0x1F, smallest = 0x80;
  } else if ((first & 0xF0) == 0xE0) {
    length = 3, value = first & 0x0F, smallest = 0x800;
  } else if ((first & 0xF8) == 0xF0) {
    length = 4, value = first & 0x07, smallest = 0x10000;
  } else {
    return {};
  }
  if (text.size() - at < length) return {};
  for (std::size_t k = 1; k < length; ++k) {
    const auto next = static_cast<unsigned char>(text[at + k]);
    if ((next & 0xC0) != 0x80) return {};
    value = (value << 6) | (next & 0x3F);
  }
  if (value < smallest || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) return {};
  return {value, length};
}

// Walks `text` by code point: a byte that starts no valid UTF-8 sequence
// becomes U+FFFD; each code point is given to `escape(value, bytes, out)`,
// which appends it as is or escaped.
template <typename Escape>
std::string escape_code_points(std::string_view text, Escape escape) {
  std::string escaped;
  for (std::size_t at = 0; at < text.size();) {
    const CodePoint point = code_point_at(text, at);
    if (point.length == 0) {
      escaped += kReplacement;
      ++at;
      continue;
    }
    escape(point.value, text.substr(at, point.length), escaped);
    at += point.length;
  }
  return escaped;
}

}  // namespace

// Every text a log quotes (names, provenance such as a model file's path) is
// made valid: control characters escaped, bytes that are not UTF-8 replaced by
// U+FFFD, so that the log parses whatever the text holds.
std::string json_escape(std::string_view text) {
  return escape_code_points(text, [](auto value, std::string_view bytes, std::string& out) {
    switch (value) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      default:
        if (value < 0x20) {
          char code[8];
          std::snprintf(code, sizeof code, "\\u%04X", static_cast<unsigned>(value));
          out += code;
        } else {
          out += bytes;
        }
    }
  });
}

std::string xml_escape(std::string_view text) {
  return escape_code_points(text, [](auto value, std::string_view bytes, std::string& out) {
    switch (value) {
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      // As character references, so that a parser keeps them in an attribute.
      case '\t': out += "&#9;"; break;
      case '\n': out += "&#10;"; break;
      case '\r': out += "&#13;"; break;
      default:
        // XML 1.0 has no other control character below 0x20, nor U+FFFE/U+FFFF,
        // not even as a reference.
        if (value < 0x20 || value == 0xFFFE || value == 0xFFFF)
          out += kReplacement;
        else
          out += bytes;
    }
  });
}

}  // namespace vmafexact::log_text
