// The element's score logs on disk, through the project's one output writer
// (metrics/output/output_file.h): a regular file is written to a temporary
// file beside it and renamed into place (a failed or interrupted run never
// leaves a cut-off log where a good one was, and starting never truncates an
// existing file); a symlink's target is what is written; a device, FIFO or
// socket (/dev/null, a named pipe) is written in place, never replaced.
#pragma once

#include <functional>
#include <ostream>
#include <string>

#include "common/error.h"
#include "output/output_file.h"

namespace vmafexact::gst {

// Whether a log can be written to `path` (a file's folder exists and is
// writable; a device or FIFO may be written), checked without touching
// anything.
inline bool log_folder_writable(const std::string& path) {
  return !output::output_problem(path).has_value();
}

// Writes `body` to `path` as above. False, with no temporary file left behind
// and an existing file untouched, when any step fails (folder not writable,
// disk full, no reader on a FIFO, ...).
inline bool write_file_atomically(const std::string& path,
                                  const std::function<void(std::ostream&)>& body) {
  try {
    output::write_output(path, body);
    return true;
  } catch (const Error&) {
    return false;
  }
}

}  // namespace vmafexact::gst
