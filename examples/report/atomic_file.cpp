#include "atomic_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <random>
#include <stdexcept>

namespace vmafexact::report::detail {
namespace {

[[noreturn]] void fail(const std::string& path, std::string_view cause) {
  std::string message("cannot write ");
  message.append(path).append(": ").append(cause);
  throw std::runtime_error(message);
}

// The temporary file: removed when it goes unless it was renamed into place.
class TemporaryFile {
 public:
  explicit TemporaryFile(const std::string& target) {
    const std::filesystem::path target_path(target);
    const std::filesystem::path folder =
        target_path.has_parent_path() ? target_path.parent_path() : std::filesystem::path(".");
    std::random_device entropy;
    for (int attempt = 0; attempt < 100; ++attempt) {
      char suffix[16];
      std::snprintf(suffix, sizeof suffix, ".%08x", static_cast<unsigned>(entropy()));
      std::string leaf(".");
      leaf.append(target_path.filename().string()).append(suffix);
      std::string candidate = (folder / leaf).string();
      // 0666: the kernel applies the umask, as for any new file.
      fd_ = ::open(candidate.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      if (fd_ >= 0) {
        path_ = std::move(candidate);
        return;
      }
      if (errno != EEXIST) fail(target, std::strerror(errno));
    }
    fail(target, "no free name for a temporary file beside it");
  }
  ~TemporaryFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!path_.empty()) ::unlink(path_.c_str());
  }
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;

  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  // Closes the descriptor; false (errno set) when the last writes failed.
  bool close() {
    const int fd = fd_;
    fd_ = -1;
    return ::close(fd) == 0;
  }
  void keep() { path_.clear(); }

 private:
  int fd_ = -1;
  std::string path_;
};

}  // namespace

void write_file_atomically(const std::string& path, std::string_view bytes) {
  if (path.empty()) fail(path, "empty file name");
  if (!std::filesystem::path(path).has_filename()) fail(path, "names a folder, not a file");
  TemporaryFile temporary(path);
  for (std::string_view left = bytes; !left.empty();) {
    const ssize_t written = ::write(temporary.fd(), left.data(), left.size());
    if (written < 0) {
      if (errno == EINTR) continue;
      fail(path, std::strerror(errno));
    }
    left.remove_prefix(static_cast<std::size_t>(written));
  }
  // A file being replaced keeps its permissions.
  struct stat existing {};
  if (::stat(path.c_str(), &existing) == 0 && S_ISREG(existing.st_mode) &&
      ::fchmod(temporary.fd(), existing.st_mode & 07777) != 0) {
    fail(path, std::strerror(errno));
  }
  if (::fsync(temporary.fd()) != 0 || !temporary.close()) fail(path, std::strerror(errno));
  if (std::rename(temporary.path().c_str(), path.c_str()) != 0) fail(path, std::strerror(errno));
  temporary.keep();
}

}  // namespace vmafexact::report::detail
