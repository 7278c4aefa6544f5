// Outside text (a file's value, an argument) as a message shows it: on one
// line, control bytes as \xNN; longer than `max_bytes`, cut between UTF-8
// characters with "...". Shared by the monitor (station file, --listen) and
// the tool (batch manifests).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace vmafexact::tools {

inline std::string printable(std::string_view text,
                             std::size_t max_bytes = std::string_view::npos) {
  constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (out.size() >= max_bytes && (byte & 0xc0) != 0x80) {  // cut between characters
      out += "...";
      break;
    }
    if (byte < 0x20 || byte == 0x7f) {
      out += "\\x";
      out += kHex[byte >> 4];
      out += kHex[byte & 0xf];
    } else {
      out += c;
    }
  }
  return out;
}

}  // namespace vmafexact::tools
