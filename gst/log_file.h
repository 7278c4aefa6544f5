// The element's score logs on disk, through the project's one output writer
// (metrics/output/output_file.h): a regular file is written to a temporary
// file beside it and renamed into place (a failed or interrupted run never
// leaves a cut-off log where a good one was, and starting never truncates an
// existing file); a symlink's target is what is written; a device, FIFO or
// socket (/dev/null, a named pipe) is written in place, never replaced.
//
// When a log cannot be written, the element's error says why (the writer's
// cause) and what to do about it, which depends on what the path is: a
// folder, a block device, a missing or read-only folder, a FIFO without a
// reader, a full disk.
#pragma once

#include <sys/stat.h>

#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "common/error.h"
#include "output/output_file.h"

namespace vmafexact::gst {

// An error about the log at `path`: `text` (the message, without its final
// period) names the path and the cause, `advice` (the details) the fix.
struct LogError {
  std::string text;
  std::string advice;
};

namespace log_file_detail {

inline std::string in_quotes(std::string_view text) {
  std::string out("\"");
  out.append(text).append("\"");
  return out;
}

// The fix for a path that output_problem() refuses.
inline std::string advice_for(const std::string& path, const output::OutputProblem& problem) {
  using Kind = output::OutputProblem::Kind;
  switch (problem.kind) {
    case Kind::kNotAFile: {
      struct stat status {};
      const bool block = ::stat(path.c_str(), &status) == 0 && S_ISBLK(status.st_mode);
      if (block)
        return "Set log-location to a file name; a block device is never written (a character "
               "device such as /dev/null, a FIFO or a socket is).";
      std::string folder = path;
      if (!folder.empty() && folder.back() != '/') folder += '/';
      return "Set log-location to a file name (e.g. " + folder + "scores.json).";
    }
    case Kind::kFolderMissing:
      return "Create the folder " + log_file_detail::in_quotes(problem.folder) +
             " (mkdir -p), or set log-location to a file in an existing folder.";
    case Kind::kFolderNotWritable:
      return "Make the folder " + log_file_detail::in_quotes(problem.folder) +
             " writable by the user running the pipeline, or set log-location to a file in a "
             "writable folder.";
    case Kind::kNotWritable:
      break;
  }
  return "Give the user running the pipeline write access to " + log_file_detail::in_quotes(path) +
         ", or set log-location to another file.";
}

}  // namespace log_file_detail

// The start check: why a log cannot be written to `path` (checked without
// touching anything: no file created, no FIFO opened); nullopt when it can.
inline std::optional<LogError> log_location_problem(const std::string& path) {
  using Kind = output::OutputProblem::Kind;
  const auto problem = output::output_problem(path);
  if (!problem) return std::nullopt;
  std::string text = "log-location " + log_file_detail::in_quotes(path) + " cannot be written: ";
  if (problem->kind == Kind::kFolderMissing)
    text += "its folder " + log_file_detail::in_quotes(problem->folder) + " does not exist" +
            (problem->cause == "not a folder" ? " (a file has that name)" : "");
  else if (problem->kind == Kind::kFolderNotWritable)
    text += "its folder " + log_file_detail::in_quotes(problem->folder) + ": " + problem->cause;
  else
    text += problem->cause;
  return LogError{std::move(text), log_file_detail::advice_for(path, *problem)};
}

// A write of the log to `path` failed with the writer's `error` text
// ("cannot write PATH: CAUSE", or a cause alone).
inline LogError log_write_error(const std::string& path, std::string_view error) {
  const std::string prefix = output::cannot_write(path, "");
  std::string_view cause = error;
  if (cause.substr(0, prefix.size()) == prefix) cause.remove_prefix(prefix.size());
  LogError result;
  result.text = "Could not write the score log to " + log_file_detail::in_quotes(path) + ": " +
                std::string(cause.empty() ? "unknown cause" : cause);
  // What the path is now picks the fix (the folder may have gone since the start).
  if (const auto problem = output::output_problem(path)) {
    result.advice = log_file_detail::advice_for(path, *problem);
    return result;
  }
  struct stat status {};
  if (::stat(path.c_str(), &status) == 0 && S_ISFIFO(status.st_mode)) {
    result.advice = "Start the FIFO's reader (e.g. cat " + path +
                    ") before the element writes its log, which it does at end of stream (with "
                    "log-rotate, at each rotation), or set log-location to a file.";
    return result;
  }
  if (::stat(path.c_str(), &status) == 0 && S_ISSOCK(status.st_mode)) {
    result.advice = "Start the process that listens on the socket " +
                    log_file_detail::in_quotes(path) + " first, or set log-location to a file.";
    return result;
  }
  result.advice =
      "Check that the disk has room and the folder is still writable, or change the "
      "log-location property. An existing file there was left as it was.";
  return result;
}

// Writes `body` to `path` as above. The writer's error text when any step
// fails (folder not writable, disk full, no reader on a FIFO, ...), with no
// temporary file left behind and an existing file untouched; nullopt when
// the log was written.
inline std::optional<std::string> write_log_file(const std::string& path,
                                                 const std::function<void(std::ostream&)>& body) {
  try {
    output::write_output(path, body);
    return std::nullopt;
  } catch (const Error& error) {
    return std::string(error.what());
  }
}

}  // namespace vmafexact::gst
