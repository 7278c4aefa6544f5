// Text pieces of the logs (log_text.cpp): printf of a number and the escaping
// of names and values, for the layouts (log_stream.cpp) and format_score().
#pragma once

#include <string>
#include <string_view>

namespace vmafexact::log_text {

// printf of one double, any length.
std::string printf_double(const char* format, double value);
// Text inside JSON's quotes: '"', '\' and control characters escaped, bytes
// that are not UTF-8 replaced by U+FFFD.
std::string json_escape(std::string_view text);
// Text inside an XML attribute: markup characters as entities, tab and line
// breaks as references, other control characters and bytes that are not UTF-8
// replaced by U+FFFD (XML 1.0 cannot hold them).
std::string xml_escape(std::string_view text);

}  // namespace vmafexact::log_text
