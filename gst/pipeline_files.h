// The files that the other elements of the element's pipeline read or write
// (a filesrc's or filesink's location, a file:// uri of uridecodebin or
// playbin, the numbered files of a multifilesrc's or multifilesink's printf
// pattern), so that a log-location naming one of them is refused: the log
// replaces its file at the end, which would destroy an input or race with a
// writer.
#pragma once

#include <gst/gst.h>

#include <optional>
#include <string>

namespace vmafexact::gst {

struct PipelineFile {
  std::string element;   // the element's name, for the message
  std::string path;      // as the element names it
  bool pattern = false;  // `path` is a printf pattern of numbered files ("f%03d.yuv")
};

// Whether `a` and `b` name the same existing file, however spelt.
bool same_file(const std::string& a, const std::string& b);

// Whether `path` is one of the files that the printf pattern `pattern` names
// with an integer (multifilesrc's "f%03d.yuv", "%d", "%%" for a '%'): in the
// same folder on disk (however spelt) with a file name that the pattern
// prints for some number. False for a pattern that is not one (no integer
// conversion, or a conversion other than d, i, u, x, X, o).
bool matches_numbered_pattern(const std::string& pattern, const std::string& path);

// The first element of the pipeline `element` is in (other than `element`)
// whose file is `path` (the same file on disk, however named, or one of its
// numbered files), if any.
std::optional<PipelineFile> pipeline_element_using(GstElement* element, const std::string& path);

// The first element of the pipeline (other than `element`) whose file could
// be one of the rotated files of the log-location pattern `rotation_pattern`
// (is_rotated_name()), if any. Numbered patterns are not compared with it
// here: each rotated name is checked with pipeline_element_using() before it
// is written.
std::optional<PipelineFile> pipeline_element_named_by(GstElement* element,
                                                      const std::string& rotation_pattern);

}  // namespace vmafexact::gst
