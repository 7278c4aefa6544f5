// Text pieces both log writers need (log_writer.cpp, the whole-log reference,
// and log_stream.cpp, the streamed one), so that they print names and numbers
// the same way.
#pragma once

#include <string>
#include <string_view>

namespace vmafexact::log_text {

// printf of one double, any length.
std::string printf_double(const char* format, double value);
// A name inside JSON's quotes: '"' and '\' escaped, as libvmaf writes it.
std::string json_escape(std::string_view text);
// A name or value inside an XML attribute.
std::string xml_escape(std::string_view text);

}  // namespace vmafexact::log_text
