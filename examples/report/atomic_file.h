// Files written whole or not at all: a temporary file beside the target,
// renamed into place.
#pragma once

#include <string>
#include <string_view>

namespace vmafexact::report::detail {

// Writes `bytes` to a new temporary file in the folder of `path` (created with
// mode 0666 less the umask, or the mode of the file it replaces), flushes it to
// disk and renames it over `path`. On any failure the temporary file is removed,
// an existing `path` is left as it was, and std::runtime_error says
// "cannot write PATH: CAUSE".
void write_file_atomically(const std::string& path, std::string_view bytes);

}  // namespace vmafexact::report::detail
