// Every file the project writes (the element's logs, the vmafexact tool's
// outputs, the report library's plot and page, the monitor's JSON lines) goes
// through here, so that a write respects what the path is:
//
// - a regular file, or a path that does not exist yet: written to a temporary
//   file beside it, flushed to disk and renamed into place (keeping the mode
//   of a file it replaces), so that a failed run never leaves a cut-off file
//   where a good one was;
// - a symlink (a chain of them, or a dangling one): its final target is what
//   is written or replaced; the link stays;
// - a character device, a FIFO or a socket (/dev/null, a named pipe):
//   opened and written in place, streamed, never renamed over; /dev/stdout,
//   /dev/stderr, /dev/fd/N and /proc/self/fd/N: a copy of that descriptor;
// - a folder or a block device: an error.
//
// Temporary files are named ".NAME.vmafexact.HOST.PID.XXXXXX": the next write
// of NAME removes those of this host whose process is gone (a SIGKILL leaves
// one behind). Errors are vmafexact::Error with the text "cannot write PATH:
// CAUSE", PATH as the user gave it, never the temporary file.
//
// Pure C++ and POSIX: no GLib, no GStreamer.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

namespace vmafexact::output {

struct OutputTarget {
  enum class Kind {
    kFile,    // written through a temporary file renamed over `resolved`
    kStream,  // opened and written in place (device, FIFO, socket, a descriptor)
  };
  std::string path;      // as given
  std::string resolved;  // the final target of its symlinks (kFile), else `path`
  Kind kind = Kind::kFile;
  bool is_fifo = false;
  bool is_socket = false;
  int descriptor = -1;  // /dev/stdout, /dev/fd/N, ...: this process's descriptor N
};

// What `path` is for writing. Throws vmafexact::Error ("cannot write PATH: it
// is a folder", "... a block device", a symlink loop, an unreadable folder).
OutputTarget resolve_output(const std::string& path);

// Why `path` could not be written, checked before a run without modifying
// anything (no file created, no device or FIFO opened that a reader would
// notice); nullopt when it can be.
struct OutputProblem {
  enum class Kind {
    kNotAFile,          // a folder, a block device, an empty name
    kFolderMissing,     // the folder of a file to create does not exist
    kFolderNotWritable,
    kNotWritable,       // a device, FIFO or socket this process may not write
  };
  Kind kind;
  std::string cause;   // e.g. "it is a folder", "Permission denied"
  std::string folder;  // kFolderMissing, kFolderNotWritable: the folder
};
std::optional<OutputProblem> output_problem(const std::string& path);

// One output being written. A file goes to a temporary file that commit()
// renames into place and the destructor removes when not committed; a stream
// target is written at once. Every failure throws vmafexact::Error naming
// the target.
class OutputFile {
 public:
  explicit OutputFile(const std::string& path);
  ~OutputFile();
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;

  // Writes here fail silently into the stream's state; write() and commit()
  // report them.
  std::ostream& stream();
  // Writes and flushes `bytes` (for lines that must leave at once); throws on
  // a failed write.
  void write(std::string_view bytes);
  // Flushes; a file is synced and renamed into place. Throws on failure.
  void commit();

  const OutputTarget& target() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

// The whole of an output at once: `body` writes it.
void write_output(const std::string& path, const std::function<void(std::ostream&)>& body);
void write_output(const std::string& path, std::string_view bytes);

// A scratch file for `target`'s content: in the folder of its resolved file
// (so that a rename can put it there), or for a stream in the system's
// temporary folder ($TMPDIR, else /tmp); named and cleaned as above. Removed
// when it goes unless released.
class TemporaryFile {
 public:
  explicit TemporaryFile(const OutputTarget& target);
  ~TemporaryFile();
  TemporaryFile(TemporaryFile&& other) noexcept;
  TemporaryFile& operator=(TemporaryFile&&) = delete;
  TemporaryFile(const TemporaryFile&) = delete;
  TemporaryFile& operator=(const TemporaryFile&) = delete;

  const std::string& path() const { return path_; }
  int fd() const { return fd_; }
  // Closes the descriptor (the file stays until the object goes): 0, or the
  // errno of a write that failed late.
  int close();
  // Removes the file now (and closes it).
  void remove();
  // Forgets the file (it was renamed into place).
  void release();

 private:
  std::string path_;
  int fd_ = -1;
};

// The text "cannot write PATH: CAUSE".
std::string cannot_write(const std::string& path, std::string_view cause);

}  // namespace vmafexact::output
