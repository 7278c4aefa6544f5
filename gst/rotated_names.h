// The names of rotated log files (log-rotate, log-location=PATTERN): each file
// of a run gets a name of its own, and none replaces a file that is already
// there. {index} alone is unique within a run, {time} (whole seconds) is not:
// a name that the previous file had, or that a file on disk has (one from an
// earlier run, an input, anything), gets a collision suffix "-N" before the
// pattern's extension, N the first that is free ("scores-20261206T044600Z-1.json").
#pragma once

#include <glib.h>

#include <string>
#include <utility>

namespace vmafexact::gst {

// The name of rotated file `counter` from the pattern: {index} becomes the
// counter (6 digits, from 000000), {time} the UTC wall time of the file's
// first frame (20261202T071732Z).
std::string rotated_log_name(const std::string& pattern, unsigned counter, GDateTime* time);

class RotatedNames {
 public:
  explicit RotatedNames(std::string pattern) : pattern_(std::move(pattern)) {}

  // The path of rotated file `index` whose first frame came at `time` (UTC
  // wall clock): the pattern's name (rotated_log_name()), suffixed when taken.
  // State is the previous file's name only, whatever the number of files.
  std::string next(unsigned index, GDateTime* time);

 private:
  std::string pattern_;
  std::string last_name_;     // the previous file's name before any suffix
  unsigned last_suffix_ = 0;  // and its suffix (0: none)
};

// `name` with the collision suffix `suffix` (1, 2, ...) before the extension
// of `pattern`'s file name (the part after its last '.', when it holds no
// {index} or {time}); at the end when there is none.
std::string with_collision_suffix(const std::string& pattern, const std::string& name,
                                  unsigned suffix);

// Whether the file `path` could be one of the rotated files of `pattern`:
// in the pattern's folder (the same folder on disk, however spelt), its name
// the pattern's with {index} as 6 or more digits, {time} as YYYYMMDDTHHMMSSZ,
// and an optional collision suffix.
bool is_rotated_name(const std::string& pattern, const std::string& path);

}  // namespace vmafexact::gst
