#include "markup_text.h"

#include <glib.h>

#include <cmath>
#include <cstdio>
#include <memory>

namespace vmafexact::report::detail {
namespace {

struct GFree {
  void operator()(gchar* text) const { g_free(text); }
};
using GCharPtr = std::unique_ptr<gchar, GFree>;

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

}  // namespace

std::string clean_text(std::string_view text) {
  const GCharPtr valid(g_utf8_make_valid(text.data(), static_cast<gssize>(text.size())));
  std::string cleaned;
  cleaned.reserve(text.size());
  for (const char* at = valid.get(); *at != '\0'; at = g_utf8_next_char(at)) {
    const gunichar character = g_utf8_get_char(at);
    if (g_unichar_iscntrl(character)) {
      cleaned.append(kReplacement);
    } else {
      cleaned.append(at, static_cast<std::size_t>(g_utf8_next_char(at) - at));
    }
  }
  return cleaned;
}

std::string escape_markup(std::string_view text) {
  std::string escaped;
  for (const char character : clean_text(text)) {
    switch (character) {
      case '&':
        escaped.append("&amp;");
        break;
      case '<':
        escaped.append("&lt;");
        break;
      case '>':
        escaped.append("&gt;");
        break;
      case '"':
        escaped.append("&quot;");
        break;
      case '\'':
        escaped.append("&#39;");
        break;
      default:
        escaped.push_back(character);
    }
  }
  return escaped;
}

std::string format_number(double value) {
  if (std::isnan(value)) return "\xE2\x80\x94";  // U+2014 EM DASH
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.6g", value);
  return buffer;
}

}  // namespace vmafexact::report::detail
