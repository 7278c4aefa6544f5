// Reading a file the user named or a tool wrote, without trusting what it is:
// a FIFO would block the open, /dev/zero (or a symlink to it) never ends, a
// file may grow while read. Only a regular file of at most `limit` bytes is read.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace vmafexact::tools {

// The bytes of `path`, or nullopt with `why` saying what is wrong ("is a FIFO,
// not a regular file", "is 3000000 bytes, more than 1048576", the open's error).
// limit 0: no limit.
std::optional<std::string> read_regular_file(const std::string& path, std::uint64_t limit,
                                             std::string& why);

}  // namespace vmafexact::tools
