#include "output/output_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <streambuf>
#include <utility>
#include <vector>

#include "common/error.h"

namespace vmafexact::output {
namespace {

std::string error_text(int error) { return std::strerror(error); }

[[noreturn]] void fail(const std::string& path, std::string_view cause) {
  throw Error(cannot_write(path, cause));
}

std::string folder_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  if (slash == 0) return "/";
  return path.substr(0, slash);
}

std::string leaf_of(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

// A descriptor, closed when it goes.
class UniqueFd {
 public:
  explicit UniqueFd(int fd = -1) : fd_(fd) {}
  ~UniqueFd() {
    if (fd_ >= 0) ::close(fd_);
  }
  UniqueFd(const UniqueFd&) = delete;
  UniqueFd& operator=(const UniqueFd&) = delete;
  int get() const { return fd_; }
  void reset(int fd) {
    close();
    fd_ = fd;
  }
  int release() { return std::exchange(fd_, -1); }
  // Closes now; the error of close() (a deferred write error), or 0.
  int close() {
    const int fd = std::exchange(fd_, -1);
    return fd >= 0 && ::close(fd) != 0 ? errno : 0;
  }

 private:
  int fd_;
};

// While it lives, a write to a pipe or socket whose reader is gone fails
// with EPIPE instead of killing the process with SIGPIPE (as the element
// must not: the application owns the signal's disposition).
class SigpipeBlocked {
 public:
  SigpipeBlocked() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    sigset_t pending;
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &pipe_, &previous_);
  }
  ~SigpipeBlocked() { pthread_sigmask(SIG_SETMASK, &previous_, nullptr); }
  SigpipeBlocked(const SigpipeBlocked&) = delete;
  SigpipeBlocked& operator=(const SigpipeBlocked&) = delete;
  // After EPIPE: takes the SIGPIPE the write raised, so that it is not
  // delivered when the mask is restored.
  void consume() {
    if (was_pending_) return;
    const timespec none{};
    while (sigtimedwait(&pipe_, nullptr, &none) < 0 && errno == EINTR) {
    }
  }

 private:
  sigset_t pipe_{};
  sigset_t previous_{};
  bool was_pending_ = false;
};

// 0, or the errno of the write that failed.
int write_all(int fd, const char* data, std::size_t size, bool to_stream) {
  std::optional<SigpipeBlocked> blocked;
  if (to_stream) blocked.emplace();
  while (size > 0) {
    const ssize_t written = ::write(fd, data, size);
    if (written < 0) {
      if (errno == EINTR) continue;
      const int error = errno;
      if (error == EPIPE && blocked) blocked->consume();
      return error;
    }
    data += written;
    size -= static_cast<std::size_t>(written);
  }
  return 0;
}

// An ostream's buffer over a descriptor that keeps the errno of the first
// failed write (std::ofstream loses it).
class FdBuffer : public std::streambuf {
 public:
  FdBuffer(int fd, bool to_stream) : fd_(fd), to_stream_(to_stream), buffer_(1 << 16) {
    setp(buffer_.data(), buffer_.data() + buffer_.size());
  }
  int error() const { return error_; }

 protected:
  int_type overflow(int_type ch) override {
    if (drain() != 0) return traits_type::eof();
    if (!traits_type::eq_int_type(ch, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(ch);
      pbump(1);
    }
    return traits_type::not_eof(ch);
  }
  int sync() override { return drain() == 0 ? 0 : -1; }

 private:
  int drain() {
    const auto size = static_cast<std::size_t>(pptr() - pbase());
    if (size > 0 && error_ == 0) error_ = write_all(fd_, pbase(), size, to_stream_);
    setp(buffer_.data(), buffer_.data() + buffer_.size());
    return error_;
  }

  int fd_;
  bool to_stream_;
  std::vector<char> buffer_;
  int error_ = 0;
};

const std::string& host_name() {
  static const std::string name = [] {
    std::array<char, 256> text{};
    if (gethostname(text.data(), text.size() - 1) != 0 || text[0] == '\0') return std::string("localhost");
    std::string host(text.data());
    for (char& c : host)
      if (c == '/') c = '_';
    return host;
  }();
  return name;
}

// ".NAME.vmafexact.HOST." for a target named NAME (cut to keep the whole
// name within NAME_MAX).
std::string temporary_prefix(const std::string& target) {
  std::string name = leaf_of(target);
  if (name.size() > 120) name.resize(120);
  return "." + name + ".vmafexact." + host_name().substr(0, 64) + ".";
}

// Removes the temporary files of this host's processes that are gone.
void remove_stale_temporaries(const std::string& folder, const std::string& prefix) {
  DIR* directory = ::opendir(folder.c_str());
  if (!directory) return;
  const pid_t self = getpid();
  while (const dirent* entry = ::readdir(directory)) {
    const std::string_view name(entry->d_name);
    if (name.substr(0, prefix.size()) != prefix) continue;
    const std::string_view rest = name.substr(prefix.size());
    const std::size_t dot = rest.find('.');
    if (dot == 0 || dot == std::string_view::npos || dot > 10) continue;
    long pid = 0;
    bool digits = true;
    for (char c : rest.substr(0, dot)) {
      if (c < '0' || c > '9') digits = false;
      pid = pid * 10 + (c - '0');
    }
    if (!digits || pid <= 0 || pid == self) continue;
    if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
    ::unlinkat(::dirfd(directory), entry->d_name, 0);
  }
  ::closedir(directory);
}

std::string scratch_folder() {
  const char* tmpdir = std::getenv("TMPDIR");
  return tmpdir && *tmpdir ? tmpdir : "/tmp";
}

// The descriptor /dev/stdout, /dev/stderr, /dev/fd/N or /proc/self/fd/N
// names: written through a copy of it, as a shell's `>&N` would, whoever
// owns what it leads to.
std::optional<int> descriptor_named(const std::string& path) {
  if (path == "/dev/stdout") return 1;
  if (path == "/dev/stderr") return 2;
  for (const std::string_view stem : {"/dev/fd/", "/proc/self/fd/"}) {
    if (path.compare(0, stem.size(), stem) != 0 || path.size() == stem.size()) continue;
    int fd = 0;
    for (const char c : std::string_view(path).substr(stem.size())) {
      if (c < '0' || c > '9' || fd > 100000000) return std::nullopt;
      fd = fd * 10 + (c - '0');
    }
    return fd;
  }
  return std::nullopt;
}

struct Resolved {
  std::optional<OutputTarget> target;
  OutputProblem::Kind problem = OutputProblem::Kind::kNotAFile;
  std::string cause;
};

Resolved resolve(const std::string& path) {
  Resolved result;
  const auto problem = [&](OutputProblem::Kind kind, std::string cause) {
    result.problem = kind;
    result.cause = std::move(cause);
    return result;
  };
  if (path.empty()) return problem(OutputProblem::Kind::kNotAFile, "empty file name");
  OutputTarget target;
  target.path = path;
  if (const auto fd = descriptor_named(path)) {
    const int flags = ::fcntl(*fd, F_GETFL);
    if (flags == -1) return problem(OutputProblem::Kind::kNotWritable, error_text(errno));
    if ((flags & O_ACCMODE) == O_RDONLY)
      return problem(OutputProblem::Kind::kNotWritable, "the descriptor is not open for writing");
    struct stat status {};
    if (::fstat(*fd, &status) != 0)
      return problem(OutputProblem::Kind::kNotWritable, error_text(errno));
    target.kind = OutputTarget::Kind::kStream;
    target.resolved = path;
    target.is_fifo = S_ISFIFO(status.st_mode);
    target.is_socket = S_ISSOCK(status.st_mode);
    target.descriptor = *fd;
    result.target = target;
    return result;
  }
  std::string current = path;
  for (int hops = 0; hops < 40; ++hops) {
    struct stat status {};
    if (::lstat(current.c_str(), &status) != 0) {
      const int error = errno;
      if (error != ENOENT) return problem(OutputProblem::Kind::kNotWritable, error_text(error));
      if (current.back() == '/')
        return problem(OutputProblem::Kind::kNotAFile, "names a folder, not a file");
      target.resolved = current;  // a new file (a dangling link's target)
      result.target = target;
      return result;
    }
    if (S_ISLNK(status.st_mode)) {
      // /dev/stdout, /dev/fd/N: /proc's links name open descriptors, not
      // paths; what they lead to is written in place.
      if (current.rfind("/proc/", 0) == 0) {
        struct stat followed {};
        if (::stat(path.c_str(), &followed) != 0)
          return problem(OutputProblem::Kind::kNotWritable, error_text(errno));
        if (S_ISDIR(followed.st_mode))
          return problem(OutputProblem::Kind::kNotAFile, "it is a folder");
        if (S_ISBLK(followed.st_mode))
          return problem(OutputProblem::Kind::kNotAFile, "it is a block device, not a file");
        target.kind = OutputTarget::Kind::kStream;
        target.resolved = path;
        target.is_fifo = S_ISFIFO(followed.st_mode);
        target.is_socket = S_ISSOCK(followed.st_mode);
        result.target = target;
        return result;
      }
      std::vector<char> text(static_cast<std::size_t>(status.st_size > 0 ? status.st_size : 255) + 1);
      const ssize_t length = ::readlink(current.c_str(), text.data(), text.size());
      if (length < 0) return problem(OutputProblem::Kind::kNotWritable, error_text(errno));
      const std::string link(text.data(), static_cast<std::size_t>(length));
      current = link.front() == '/' ? link : folder_of(current) + "/" + link;
      continue;
    }
    if (S_ISDIR(status.st_mode)) return problem(OutputProblem::Kind::kNotAFile, "it is a folder");
    if (S_ISBLK(status.st_mode))
      return problem(OutputProblem::Kind::kNotAFile, "it is a block device, not a file");
    target.resolved = current;
    if (!S_ISREG(status.st_mode)) {
      target.kind = OutputTarget::Kind::kStream;
      target.is_fifo = S_ISFIFO(status.st_mode);
      target.is_socket = S_ISSOCK(status.st_mode);
    }
    result.target = target;
    return result;
  }
  return problem(OutputProblem::Kind::kNotWritable, error_text(ELOOP));
}

// A device, FIFO or socket opened for writing.
int open_stream(const OutputTarget& target) {
  if (target.descriptor >= 0) {
    const int fd = ::fcntl(target.descriptor, F_DUPFD_CLOEXEC, 3);
    if (fd < 0) fail(target.path, error_text(errno));
    return fd;
  }
  if (target.is_socket) {
    UniqueFd socket_fd(::socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0));
    if (socket_fd.get() < 0) fail(target.path, error_text(errno));
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    if (target.resolved.size() >= sizeof address.sun_path)
      fail(target.path, "the socket's path is too long to connect to");
    std::memcpy(address.sun_path, target.resolved.c_str(), target.resolved.size() + 1);
    int result;
    while ((result = ::connect(socket_fd.get(), reinterpret_cast<const sockaddr*>(&address),
                               sizeof address)) != 0 &&
           errno == EINTR) {
    }
    if (result != 0) {
      const int error = errno;
      fail(target.path, "cannot connect to the socket: " + error_text(error) +
                            (error == ECONNREFUSED ? " (no process listens on it)" : ""));
    }
    return socket_fd.release();
  }
  int flags = O_WRONLY | O_NOCTTY | O_CLOEXEC;
  // A FIFO without a reader: ENXIO at once rather than a wait for ever.
  if (target.is_fifo) flags |= O_NONBLOCK;
  struct stat status {};
  // A regular file behind /dev/stdout (`> out.json`, `>> out.json`): appended to.
  if (::stat(target.resolved.c_str(), &status) == 0 && S_ISREG(status.st_mode)) flags |= O_APPEND;
  int fd;
  while ((fd = ::open(target.resolved.c_str(), flags)) < 0 && errno == EINTR) {
  }
  if (fd < 0) {
    if (target.is_fifo && errno == ENXIO)
      fail(target.path, "no process reads the FIFO (start its reader first)");
    fail(target.path, error_text(errno));
  }
  if (target.is_fifo) ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

}  // namespace

std::string cannot_write(const std::string& path, std::string_view cause) {
  std::string text("cannot write ");
  text.append(path).append(": ").append(cause);
  return text;
}

OutputTarget resolve_output(const std::string& path) {
  Resolved resolved = resolve(path);
  if (!resolved.target) fail(path, resolved.cause);
  return *resolved.target;
}

std::optional<OutputProblem> output_problem(const std::string& path) {
  const Resolved resolved = resolve(path);
  if (!resolved.target) return OutputProblem{resolved.problem, resolved.cause, {}};
  const OutputTarget& target = *resolved.target;
  if (target.descriptor >= 0) return std::nullopt;  // open for writing: resolve() checked
  if (target.kind == OutputTarget::Kind::kStream) {
    struct stat status {};
    const bool device =
        ::stat(target.resolved.c_str(), &status) == 0 && S_ISCHR(status.st_mode);
    // A FIFO or socket is not opened: its reader would see the writer come
    // and go. A character device is (as /dev/null, without effect).
    if (device) {
      const int fd = ::open(target.resolved.c_str(), O_WRONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
      if (fd < 0) return OutputProblem{OutputProblem::Kind::kNotWritable, error_text(errno), {}};
      ::close(fd);
    } else if (::faccessat(AT_FDCWD, target.resolved.c_str(), W_OK, AT_EACCESS) != 0) {
      return OutputProblem{OutputProblem::Kind::kNotWritable, error_text(errno), {}};
    }
    return std::nullopt;
  }
  const std::string folder = folder_of(target.resolved);
  struct stat status {};
  if (::stat(folder.c_str(), &status) != 0)
    return OutputProblem{errno == ENOENT ? OutputProblem::Kind::kFolderMissing
                                         : OutputProblem::Kind::kFolderNotWritable,
                         error_text(errno), folder};
  if (!S_ISDIR(status.st_mode))
    return OutputProblem{OutputProblem::Kind::kFolderMissing, "not a folder", folder};
  if (::faccessat(AT_FDCWD, folder.c_str(), W_OK | X_OK, AT_EACCESS) != 0)
    return OutputProblem{OutputProblem::Kind::kFolderNotWritable, error_text(errno), folder};
  return std::nullopt;
}

TemporaryFile::TemporaryFile(const OutputTarget& target) {
  const bool beside = target.kind == OutputTarget::Kind::kFile;
  const std::string folder = beside ? folder_of(target.resolved) : scratch_folder();
  const std::string prefix = temporary_prefix(beside ? target.resolved : target.path);
  remove_stale_temporaries(folder, prefix);
  static constexpr char kLetters[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
  std::random_device entropy;
  const std::string stem = folder + "/" + prefix + std::to_string(getpid()) + ".";
  for (int attempt = 0; attempt < 100; ++attempt) {
    std::string candidate = stem;
    for (int i = 0; i < 6; ++i) candidate += kLetters[entropy() % (sizeof kLetters - 1)];
    // 0666: the kernel applies the umask, as for any new file.
    const int fd = ::open(candidate.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0) {
      fd_ = fd;
      path_ = std::move(candidate);
      return;
    }
    if (errno != EEXIST) {
      const int error = errno;
      if (beside) fail(target.path, error_text(error));
      fail(target.path, "cannot create a scratch file in " + folder + ": " + error_text(error));
    }
  }
  fail(target.path, "no free name for a temporary file in " + folder);
}

TemporaryFile::~TemporaryFile() { remove(); }

TemporaryFile::TemporaryFile(TemporaryFile&& other) noexcept
    : path_(std::exchange(other.path_, {})), fd_(std::exchange(other.fd_, -1)) {}

int TemporaryFile::close() {
  const int fd = std::exchange(fd_, -1);
  return fd >= 0 && ::close(fd) != 0 ? errno : 0;
}

void TemporaryFile::remove() {
  close();
  if (!path_.empty()) ::unlink(std::exchange(path_, {}).c_str());
}

void TemporaryFile::release() {
  close();
  path_.clear();
}

struct OutputFile::State {
  OutputTarget target;
  std::optional<TemporaryFile> temporary;  // kFile
  UniqueFd stream_fd;                      // kStream
  std::optional<FdBuffer> buffer;
  std::ostream out{nullptr};
  bool done = false;

  int fd() const { return temporary ? temporary->fd() : stream_fd.get(); }
  // Throws when a write failed.
  void check() {
    out.flush();
    if (buffer->error() != 0) fail(target.path, error_text(buffer->error()));
    if (!out) fail(target.path, "a write failed");
  }
};

OutputFile::OutputFile(const std::string& path) : state_(std::make_unique<State>()) {
  State& state = *state_;
  state.target = resolve_output(path);
  const bool stream = state.target.kind == OutputTarget::Kind::kStream;
  if (stream) {
    state.stream_fd.reset(open_stream(state.target));
  } else {
    state.temporary.emplace(state.target);
  }
  state.buffer.emplace(state.fd(), stream);
  state.out.rdbuf(&*state.buffer);
}

OutputFile::~OutputFile() = default;

std::ostream& OutputFile::stream() { return state_->out; }

const OutputTarget& OutputFile::target() const { return state_->target; }

void OutputFile::write(std::string_view bytes) {
  state_->out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  state_->check();
}

void OutputFile::commit() {
  State& state = *state_;
  if (state.done) return;
  state.check();
  const std::string& path = state.target.path;
  if (!state.temporary) {
    if (const int error = state.stream_fd.close(); error != 0) fail(path, error_text(error));
    state.done = true;
    return;
  }
  TemporaryFile& temporary = *state.temporary;
  // A file being replaced keeps its permissions.
  struct stat existing {};
  if (::stat(state.target.resolved.c_str(), &existing) == 0 && S_ISREG(existing.st_mode) &&
      ::fchmod(temporary.fd(), existing.st_mode & 07777) != 0)
    fail(path, error_text(errno));
  if (::fsync(temporary.fd()) != 0) fail(path, error_text(errno));
  if (const int error = temporary.close(); error != 0) fail(path, error_text(error));
  // On any failure the temporary file goes with this object.
  if (std::rename(temporary.path().c_str(), state.target.resolved.c_str()) != 0)
    fail(path, error_text(errno));
  temporary.release();
  state.done = true;
}

void write_output(const std::string& path, const std::function<void(std::ostream&)>& body) {
  OutputFile file(path);
  body(file.stream());
  file.commit();
}

void write_output(const std::string& path, std::string_view bytes) {
  OutputFile file(path);
  file.write(bytes);
  file.commit();
}

}  // namespace vmafexact::output
