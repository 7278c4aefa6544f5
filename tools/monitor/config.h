// vmafexact-monitor's station file, `--config FILE`: a GLib key file with an
// optional [monitor] group (process-wide settings and default element
// properties) and one [channel NAME] group per channel. Everything in it is
// checked before anything runs: an unknown group or key, a bad value, a
// duplicate channel is an error that names the file, the line, the group and
// key, the problem and the fix. Reference: docs/live-monitoring.md, "A station:
// several channels".
#pragma once

#include <gst/gst.h>

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vmafexact::monitor_tool {

// Larger files are refused: a station file is a few kilobytes, and this bounds
// what a mistaken path (a log, a device) can make the monitor read.
constexpr std::size_t kMaxConfigBytes = 1024 * 1024;

// One channel: its inputs (ref and dist) or its pipeline, and what is set on
// its vmafexact element.
struct ChannelConfig {
  std::string name;                     // [A-Za-z0-9_.-]{1,64}
  std::string ref, dist;                // as written (URI or path); both set, or pipeline
  std::string pipeline;                 // a gst-launch description with a vmafexact named v
  gint64 ref_offset = 0;                // ns added to the reference's running times
  gint64 dist_offset = 0;               // and to the distorted input's
  std::string scale_flags = "bicubic";  // FFmpeg's sws flags of vmafexactscale
  // [monitor]'s property.NAME defaults first (in file order, less those the
  // channel sets itself), then the channel's own, in file order.
  std::vector<std::pair<std::string, std::string>> properties;
  bool operator==(const ChannelConfig&) const = default;
};

struct MonitorConfig {
  std::optional<std::string> listen, jsonl;          // unset: the command line's or the default
  GstClockTime restart_delay = 1 * GST_SECOND;       // first backoff; doubles on each failure
  GstClockTime restart_delay_max = 60 * GST_SECOND;  // its cap
  GstClockTime stall_timeout = 10 * GST_SECOND;      // 0: never
  std::vector<ChannelConfig> channels;               // the enabled ones, in file order
  bool operator==(const MonitorConfig&) const = default;
};

// A file that cannot be used. what(): "FILE[:LINE]: [GROUP] KEY: problem; fix"
// (the parts that apply), one line.
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Reads and checks the file at `path` (a regular file of at most
// kMaxConfigBytes; a FIFO or device is refused without reading it).
// Throws ConfigError.
MonitorConfig load_config(const std::string& path);

// Checks `text` as the contents of a file called `name_for_errors`.
// Throws ConfigError, and nothing else.
MonitorConfig parse_config(std::string_view text, const std::string& name_for_errors);

// What a reload changes, by channel name: channels only in `before` (stop
// them), only in `after` (start them), in both but with any field different
// (restart them). Each list in `after`'s order (removed: `before`'s).
struct ConfigChanges {
  std::vector<std::string> removed, added, changed;
  bool operator==(const ConfigChanges&) const = default;
};
ConfigChanges diff_channels(const MonitorConfig& before, const MonitorConfig& after);

}  // namespace vmafexact::monitor_tool
