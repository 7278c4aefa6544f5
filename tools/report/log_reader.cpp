#include "log_reader.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <stdexcept>

#include "pooling/rolling.h"

namespace vmafexact::report {
namespace {

// Frame numbers beyond this are refused: a log of more frames than ten days at
// 120 fps is not one vmafexact wrote, and a series that long would not fit.
constexpr std::uint64_t kMaxFrameNumber = 100'000'000;

[[noreturn]] void refuse(const std::string& name, const std::string& what) {
  throw std::runtime_error(name + ": not a vmafexact JSON log: " + what +
                           " (give a log written with --json or log-location=*.json)");
}

double number_or_nan(const nlohmann::json& value) {
  return value.is_number() ? value.get<double>() : kUnknown;
}

// A provenance number given as a string ("1234", "2.5"); NaN when not one.
double parse_number(const std::string& text) {
  if (text.empty()) return kUnknown;
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  return end != nullptr && *end == '\0' && std::isfinite(value) ? value : kUnknown;
}

// "24000/1001" or "25"; NaN when not a positive rate.
double parse_rate(const std::string& text) {
  const std::size_t slash = text.find('/');
  if (slash == std::string::npos) {
    const double value = parse_number(text);
    return value > 0 ? value : kUnknown;
  }
  const double numerator = parse_number(text.substr(0, slash));
  const double denominator = parse_number(text.substr(slash + 1));
  return numerator > 0 && denominator > 0 ? numerator / denominator : kUnknown;
}

std::string file_stem(const std::string& path) {
  std::string base = path.substr(path.find_last_of('/') == std::string::npos
                                     ? 0
                                     : path.find_last_of('/') + 1);
  const std::size_t dot = base.find_last_of('.');
  if (dot != std::string::npos && dot > 0) base.resize(dot);
  return base;
}

}  // namespace

std::string LogContent::value(std::string_view key) const {
  for (const auto& [entry_key, entry_value] : provenance) {
    if (entry_key == key) return entry_value;
  }
  return {};
}

LogContent read_log(std::string_view text, const std::string& name) {
  // No exceptions from the parser (a discarded value instead), and no recursion
  // limit needed for what we read: only the top levels are walked.
  const nlohmann::json log = nlohmann::json::parse(text, nullptr, false);
  if (log.is_discarded()) refuse(name, "the text is not JSON");
  if (!log.is_object()) refuse(name, "the top level is not an object");
  const auto frames = log.find("frames");
  if (frames == log.end() || !frames->is_array()) refuse(name, "no \"frames\" list");

  LogContent content;
  if (const auto provenance = log.find("provenance");
      provenance != log.end() && provenance->is_object()) {
    for (const auto& [key, value] : provenance->items()) {
      if (value.is_string()) content.provenance.emplace_back(key, value.get<std::string>());
    }
  }
  // "models": "vmaf=vmaf_v0.6.1,vmaf_neg=vmaf_v0.6.1neg": the score names before '='.
  const std::string models = content.value("models");
  for (std::size_t begin = 0; begin < models.size();) {
    std::size_t end = models.find(',', begin);
    if (end == std::string::npos) end = models.size();
    std::string entry = models.substr(begin, end - begin);
    entry.erase(0, entry.find_first_not_of(' '));  // "vmaf=vmaf_v0.6.1, neg=..."
    const std::string score = entry.substr(0, entry.find('='));
    if (!score.empty()) content.model_names.push_back(score);
    begin = end + 1;
  }

  Encode& encode = content.encode;
  std::vector<std::string> order;  // score names, first appearance
  std::vector<std::vector<double>> columns;
  std::size_t frame_count = 0;
  for (std::size_t at = 0; at < frames->size(); ++at) {
    const nlohmann::json& frame = (*frames)[at];
    if (!frame.is_object()) refuse(name, "frame entry " + std::to_string(at) + " is not an object");
    const auto number = frame.find("frameNum");
    const auto metrics = frame.find("metrics");
    if (number == frame.end() || !number->is_number_unsigned())
      refuse(name, "frame entry " + std::to_string(at) + " has no \"frameNum\"");
    if (metrics == frame.end() || !metrics->is_object())
      refuse(name, "frame entry " + std::to_string(at) + " has no \"metrics\" object");
    const std::uint64_t index = number->get<std::uint64_t>();
    // Frames are listed in order, every subsample-th one at most: a number far
    // beyond the entries is not a log's (and would only cost memory).
    if (index > kMaxFrameNumber || index > 64 * (frames->size() + 1))
      refuse(name, "frame number " + std::to_string(index) + " is out of range for " +
                       std::to_string(frames->size()) + " frame entries");
    frame_count = std::max<std::size_t>(frame_count, index + 1);
    for (const auto& [key, value] : metrics->items()) {
      auto found = std::find(order.begin(), order.end(), key);
      if (found == order.end()) {
        order.push_back(key);
        columns.emplace_back();
        found = order.end() - 1;
      }
      std::vector<double>& column = columns[static_cast<std::size_t>(found - order.begin())];
      if (column.size() <= index) column.resize(index + 1, kUnknown);
      column[index] = number_or_nan(value);
    }
  }
  const auto pooled_block = log.find("pooled_metrics");
  for (std::size_t at = 0; at < order.size(); ++at) {
    Series series{order[at], std::move(columns[at]), classify_score(order[at], content.model_names)};
    series.values.resize(frame_count, kUnknown);
    Pooled pooled;
    pooled.name = series.name;
    std::vector<double> finite;
    for (const double value : series.values) {
      if (std::isfinite(value)) finite.push_back(value);
    }
    if (!finite.empty()) {
      const WindowStats stats = window_stats(finite);
      pooled = {series.name,    stats.min, stats.max, stats.mean,      stats.harmonic_mean,
                stats.p1,       stats.p5,  stats.p50, stats.low1_mean, stats.low5_mean};
    }
    // The log's own pooled figures (computed from every digit) where it has them.
    if (pooled_block != log.end() && pooled_block->is_object()) {
      const auto entry = pooled_block->find(series.name);
      if (entry != pooled_block->end() && entry->is_object()) {
        const auto take = [&](const char* key, double& field) {
          if (const auto value = entry->find(key); value != entry->end() && value->is_number())
            field = value->get<double>();
        };
        take("min", pooled.min);
        take("max", pooled.max);
        take("mean", pooled.mean);
        take("harmonic_mean", pooled.harmonic_mean);
      }
    }
    encode.pooled.push_back(pooled);
    encode.series.push_back(std::move(series));
  }

  // The models' scores first, as the tool orders them: the panel on top is VMAF.
  const auto is_model = [](const auto& entry) { return entry.kind == ScoreKind::model; };
  std::stable_partition(encode.series.begin(), encode.series.end(), is_model);
  std::stable_partition(encode.pooled.begin(), encode.pooled.end(), [&](const Pooled& pooled) {
    const Series* series = nullptr;
    for (const Series& candidate : encode.series) {
      if (candidate.name == pooled.name) series = &candidate;
    }
    return series != nullptr && is_model(*series);
  });

  const std::string distorted = content.value("distorted");
  encode.path = distorted.empty() ? name : distorted;
  encode.name = file_stem(encode.path);
  encode.size_bytes = parse_number(content.value("distorted_size_bytes"));
  encode.duration_s = parse_number(content.value("distorted_duration_s"));
  encode.bitrate_bps = parse_number(content.value("distorted_bitrate_bps"));
  if (std::isnan(encode.bitrate_bps) && encode.duration_s > 0 && encode.size_bytes >= 0)
    encode.bitrate_bps = encode.size_bytes * 8 / encode.duration_s;
  encode.codec = content.value("distorted_codec");
  encode.frame_rate = parse_rate(content.value("distorted_framerate"));
  if (const std::string alignment = content.value("alignment"); !alignment.empty())
    encode.details.emplace_back("alignment", alignment);
  encode.details.emplace_back("log", name);
  return content;
}

Report report_from_logs(const std::vector<LogContent>& logs, int worst_frames) {
  Report report;
  if (logs.empty()) return report;
  const LogContent& first = logs.front();
  report.reference_path = first.value("reference");
  report.reference_size_bytes = parse_number(first.value("reference_size_bytes"));
  report.reference_duration_s = parse_number(first.value("reference_duration_s"));
  report.reference_bitrate_bps = parse_number(first.value("reference_bitrate_bps"));
  report.reference_codec = first.value("reference_codec");
  report.date = first.value("date");
  report.command_line = first.value("command_line");
  report.scaler = first.value("scaler");
  // The rest of the first log's provenance, as it stands (versions, models, ...).
  static constexpr std::string_view kShownElsewhere[] = {
      "date", "command_line", "scaler", "reference", "reference_size_bytes",
      "reference_duration_s", "reference_codec", "reference_bitrate_bps", "distorted",
      "distorted_size_bytes", "distorted_duration_s", "distorted_codec", "distorted_bitrate_bps",
      "distorted_framerate", "alignment"};
  for (const auto& entry : first.provenance) {
    if (std::find(std::begin(kShownElsewhere), std::end(kShownElsewhere), entry.first) ==
        std::end(kShownElsewhere))
      report.provenance.push_back(entry);
  }
  std::string names;
  for (const LogContent& log : logs) {
    Encode encode = log.encode;
    for (const Series& series : encode.series) {
      if (series.kind == ScoreKind::model) {
        encode.worst_score = series.name;
        encode.worst_frames = select_worst_frames(series, encode.frame_rate,
                                                  static_cast<std::size_t>(std::max(0, worst_frames)));
        break;
      }
    }
    if (!names.empty()) names.append(", ");
    names.append(encode.name);
    report.encodes.push_back(std::move(encode));
  }
  const std::string reference_name =
      report.reference_path.empty() ? std::string("reference") : file_stem(report.reference_path);
  report.title = reference_name + " vs " + names;
  report.thumbnails_note =
      "Built from logs by vmafexact report: the worst frames are listed from the logs' scores, "
      "without pictures (thumbnails are captured only while scoring, with --html).";
  return report;
}

}  // namespace vmafexact::report
