// Logs laid out as the libvmaf 3.2.0 `vmaf` tool writes them (output.c), so that
// tooling which reads libvmaf's JSON, XML, CSV or SUB (MicroDVD subtitles, its
// --sub) reads vmafexact's unchanged.
#pragma once

#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/feature_collector.h"

namespace vmafexact {

enum class LogFormat { kJson, kXml, kCsv, kSub };
enum class LogPrecision {
  kDefault,  // libvmaf's printing: %.6f, or %.16f when the fraction has more than 6 leading zeros
  kMax,      // %.17g: every double round-trips
};

std::optional<LogFormat> parse_log_format(std::string_view name);
// "json", "xml", "csv", "sub".
const char* log_format_name(LogFormat format);
// The layout a file name's extension names: .json, .xml, .csv or .sub, in any case;
// nullopt for any other extension or none.
std::optional<LogFormat> log_format_of_path(std::string_view path);
std::optional<LogPrecision> parse_log_precision(std::string_view name);

struct LogInfo {
  std::string version;     // written where libvmaf writes its version
  double fps = 0.;         // frames scored per second of scoring
  unsigned width = 0;      // XML's qualityWidth / qualityHeight
  unsigned height = 0;
  unsigned subsample = 1;  // only frames i % subsample == 0 are listed and pooled
  unsigned frame_count = 0;  // frames pooled: 0 .. frame_count-1
  // Where the scores come from (vmafexact's and libvmaf's versions, models,
  // backend, threads), as key and value: JSON's "provenance" object after
  // "fps", XML's <provenance> element after <fyi>; the CSV layout has no room
  // for it. Empty: nothing is written (libvmaf's layout exactly).
  std::vector<std::pair<std::string, std::string>> provenance;
};

// One score as libvmaf prints it at the given precision.
std::string format_score(double value, LogPrecision precision);

// The collector's aggregates() go under JSON's "aggregate_metrics" and XML's
// <aggregate_metrics>, as libvmaf writes them; its CSV and SUB have none (nor
// pooled values: a line per frame only).
void write_log(std::ostream& out, LogFormat format, LogPrecision precision,
               const FeatureCollector& scores, const LogInfo& info);

}  // namespace vmafexact
