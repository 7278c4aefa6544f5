// The files that the other elements of the element's pipeline read or write
// (a filesrc's or filesink's location, a file:// uri of uridecodebin or
// playbin), so that a log-location naming one of them is refused: the log
// replaces its file at the end, which would destroy an input or race with a
// writer.
#pragma once

#include <gst/gst.h>

#include <optional>
#include <string>

namespace vmafexact::gst {

struct PipelineFile {
  std::string element;  // the element's name, for the message
  std::string path;     // as the element names it
};

// Whether `a` and `b` name the same existing file, however spelt.
bool same_file(const std::string& a, const std::string& b);

// The first element of the pipeline `element` is in (other than `element`)
// whose file is `path` (the same file on disk, however named), if any.
std::optional<PipelineFile> pipeline_element_using(GstElement* element, const std::string& path);

}  // namespace vmafexact::gst
