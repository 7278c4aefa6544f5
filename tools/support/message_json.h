// The element's bus messages as JSON: one line per message, as
// vmafexact-monitor's and vmafexact's --jsonl write them.
#pragma once

#include <gst/gst.h>

#include <nlohmann/json.hpp>
#include <string>

namespace vmafexact::tools {

// A message structure as JSON: numbers as numbers (an unknown time, and a
// non-finite double, as null), nested structures as objects, anything else as
// GStreamer's serialization.
nlohmann::ordered_json json_of(const GstStructure* structure);

// {"wallclock": ISO 8601 UTC now, "message": NAME, "fields": json_of(...)},
// on one line without its newline.
std::string json_line(const GstStructure* structure);

}  // namespace vmafexact::tools
