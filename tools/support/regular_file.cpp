#include "regular_file.h"

#include "unique_fd.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace vmafexact::tools {
namespace {

const char* kind_of(mode_t mode) {
  if (S_ISDIR(mode)) return "a folder";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "not a regular file";
}

}  // namespace

std::optional<std::string> read_regular_file(const std::string& path, std::uint64_t limit,
                                             std::string& why) {
  // O_NONBLOCK: opening a FIFO without a writer must not wait for one.
  const int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  if (fd < 0) {
    why = std::strerror(errno);
    return std::nullopt;
  }
  const UniqueFd owner(fd);
  struct stat status {};
  if (fstat(fd, &status) != 0) {
    why = std::strerror(errno);
    return std::nullopt;
  }
  if (!S_ISREG(status.st_mode)) {
    why = std::string("is ") + kind_of(status.st_mode) + ", not a regular file";
    return std::nullopt;
  }
  const auto size = static_cast<std::uint64_t>(status.st_size);
  if (limit > 0 && size > limit) {
    why = "is " + std::to_string(size) + " bytes, more than " + std::to_string(limit);
    return std::nullopt;
  }
  std::string bytes;
  bytes.reserve(size);
  char buffer[65536];
  for (;;) {
    const ssize_t got = read(fd, buffer, sizeof buffer);
    if (got < 0) {
      if (errno == EINTR) continue;
      why = std::strerror(errno);
      return std::nullopt;
    }
    if (got == 0) break;
    bytes.append(buffer, static_cast<std::size_t>(got));
    // A file that grows while it is read is cut at the limit, not read forever.
    if (limit > 0 && bytes.size() > limit) {
      why = "grew past " + std::to_string(limit) + " bytes while read";
      return std::nullopt;
    }
  }
  return bytes;
}

}  // namespace vmafexact::tools
