// The files of tests that write outputs (logs, reports, the tool's files): a
// scratch folder of a test's own, whole files read and written, a path's file
// type, and a FIFO read to its end on a thread of its own. Header-only: the
// test binaries that use it link nothing else of tests/common.
#pragma once

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <sstream>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

namespace vmafexact::test {

// The names of a folder's entries, sorted, hidden ones (temporary files) included.
inline std::vector<std::string> entry_names(const std::filesystem::path& folder) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(folder))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// A fresh folder under the system's temporary folder, named `prefix` and six
// random characters, removed with everything in it (its permissions restored
// first: a test may have made it read-only).
class ScratchFolder {
 public:
  explicit ScratchFolder(const std::string& prefix = "vmafexact-test") {
    std::string pattern = (std::filesystem::temp_directory_path() / (prefix + "-XXXXXX")).string();
    if (::mkdtemp(pattern.data()) == nullptr)
      throw std::system_error(errno, std::generic_category(), "mkdtemp " + pattern);
    path_ = pattern;
  }
  ~ScratchFolder() {
    std::error_code ignored;
    std::filesystem::permissions(path_, std::filesystem::perms::owner_all,
                                 std::filesystem::perm_options::add, ignored);
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& leaf) const { return path_ / leaf; }
  std::vector<std::string> entries() const { return entry_names(path_); }

 private:
  std::filesystem::path path_;
};

// The whole file as bytes ("" where it cannot be read).
inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

inline void write_file(const std::filesystem::path& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary) << bytes;
}

// What the path itself is (S_IFREG, S_IFLNK, S_IFIFO, ...: a link is not
// followed); 0 where there is nothing.
inline mode_t file_type(const std::filesystem::path& path) {
  struct stat status {};
  if (::lstat(path.c_str(), &status) != 0) return 0;
  return status.st_mode & S_IFMT;
}

// Everything read from `fd` until its writer closes it (a FIFO's, a pipe's or
// a socket's; opened without blocking): ends with "<timeout>" when no byte came
// for `patience`, and with "<error>" when reading failed.
inline std::string read_to_end(int fd, std::chrono::milliseconds patience) {
  std::string text;
  std::array<char, 65536> buffer{};
  for (;;) {
    pollfd ready{fd, POLLIN, 0};
    if (fd < 0 || ::poll(&ready, 1, static_cast<int>(patience.count())) <= 0)
      return text + "<timeout>";
    const ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n > 0)
      text.append(buffer.data(), static_cast<std::size_t>(n));
    else if (n == 0)
      return text;
    else if (errno != EAGAIN && errno != EINTR)
      return text + "<error>";
  }
}

// Reads a FIFO to its end (read_to_end()) on a thread of its own. Opened at
// once, without blocking: construct it before the writer starts, so that the
// writer finds a reader.
class FifoReader {
 public:
  explicit FifoReader(const std::filesystem::path& path,
                      std::chrono::milliseconds patience = std::chrono::seconds(60))
      : fd_(::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC)),
        text_(std::async(std::launch::async,
                         [fd = fd_, patience] { return read_to_end(fd, patience); })) {}
  ~FifoReader() {
    if (text_.valid()) text_.wait();
    if (fd_ >= 0) ::close(fd_);
  }
  FifoReader(const FifoReader&) = delete;
  FifoReader& operator=(const FifoReader&) = delete;

  bool opened() const { return fd_ >= 0; }
  // Everything read, once the writer closed the FIFO (call once).
  std::string text() { return text_.get(); }

 private:
  int fd_;
  std::future<std::string> text_;
};

}  // namespace vmafexact::test
