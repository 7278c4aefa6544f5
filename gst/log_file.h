// The score log on disk: written to a temporary file beside the target and
// renamed into place, so a failed or interrupted run never leaves a cut-off
// log where a good one was, and starting never truncates an existing file.
#pragma once

#include <functional>
#include <ostream>
#include <string>

namespace vmafexact::gst {

// A new, empty, uniquely named file beside `path` (".NAME.XXXXXX" in its
// folder); empty string on failure.
std::string make_temporary_beside(const std::string& path);

// Whether a log can be created beside `path` (its folder exists and is
// writable): tried with a temporary file that is removed again; `path`
// itself is not touched.
bool log_folder_writable(const std::string& path);

// Writes `body` to a temporary file in the folder of `path`, then renames it
// over `path`. False, with no file left behind and `path` untouched, when any
// step fails (folder not writable, disk full, ...).
bool write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& body);

}  // namespace vmafexact::gst
