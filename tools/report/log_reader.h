// The report's input read back from a vmafexact JSON log (docs/log-formats.md),
// for `vmafexact report LOG.json ...`: the page rebuilt without scoring again.
// The log's provenance (the keys the tool sets through extra-provenance,
// docs/report.md) gives each input's file, size, duration, codec and bitrate.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "report.h"

namespace vmafexact::report {

// What one log holds: its encode, and the run's facts.
struct LogContent {
  Encode encode;
  std::vector<std::string> model_names;  // the models' score names ("vmaf", ...)
  // The provenance object's string fields, in the log's order.
  std::vector<std::pair<std::string, std::string>> provenance;
  std::string value(std::string_view key) const;  // "" when absent
};

// Reads a JSON log's text. `name` names the log in errors. Never crashes on any
// input: throws std::runtime_error("LOG: not a vmafexact JSON log: ...") naming
// what is wrong (not JSON, no "frames" list, a frame without "metrics", ...).
// Per-frame series in frame order (frameNum; missing frames are NaN), pooled
// figures from "pooled_metrics" with p1/p5/p50 and the 1 % / 5 % lows computed
// from the frames (as the element's summary computes them), each score's kind by
// classify_score() over the models named in provenance "models".
LogContent read_log(std::string_view text, const std::string& name);

// The page of several logs of one reference: one encode per log (in order), the
// reference's and the run's facts from the first log's provenance, and the worst
// `worst_frames` frames of each encode from its series (no pictures: the page
// says so).
Report report_from_logs(const std::vector<LogContent>& logs, int worst_frames);

}  // namespace vmafexact::report
