// Command-line numbers of the benchmark programs (vmafexact-bench,
// vmafexact-gst-bench): the whole argument must be the number, so that "12x",
// "-1" or "" are refused instead of read in part or wrapped.
#pragma once

#include <stdexcept>
#include <string>

namespace vmafexact::bench {

// The whole text as a count of at most 10^9 (base 0 also takes 0x...), else
// std::invalid_argument (std::stoul's own errors are std::logic_errors too).
inline unsigned count_of(const std::string& text, int base = 10) {
  std::size_t used = 0;
  const unsigned long count = text.find('-') == std::string::npos ? std::stoul(text, &used, base) : 0;
  if (used == 0 || used != text.size() || count > 1000000000ul) throw std::invalid_argument(text);
  return static_cast<unsigned>(count);
}

}  // namespace vmafexact::bench
