#include "exposition.h"

#include <cmath>
#include <cstdio>
#include <string_view>
#include <utility>
#include <vector>

#include "vmafexact_config.h"

namespace vmafexact::monitor_tool {
namespace {

// OpenMetrics numbers: shortest text that reads back as the same double.
std::string number_text(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

std::string label_value(std::string_view value) {
  std::string escaped;
  for (const char c : value) {
    if (c == '\\')
      escaped += "\\\\";
    else if (c == '"')
      escaped += "\\\"";
    else if (c == '\n')
      escaped += "\\n";
    else
      escaped += c;
  }
  return '"' + escaped + '"';
}

double seconds_of(GstClockTime time) { return static_cast<double>(time) / GST_SECOND; }

using Labels = std::vector<std::pair<std::string, std::string>>;

Labels alert_labels(const AlertState& alert) {
  Labels labels{{"alert", alert.alert}};
  if (!alert.input.empty()) labels.emplace_back("input", alert.input);
  return labels;
}

// Writes an OpenMetrics text exposition: each family's metadata, then its
// samples, contiguous; "# EOF" last.
class Exposition {
 public:
  void family(std::string_view name, std::string_view type, std::string_view help,
              std::string_view unit = {}) {
    text_ += "# TYPE " + std::string(name) + ' ' + std::string(type) + '\n';
    if (!unit.empty()) text_ += "# UNIT " + std::string(name) + ' ' + std::string(unit) + '\n';
    text_ += "# HELP " + std::string(name) + ' ' + std::string(help) + '\n';
  }
  void sample(std::string_view name, const Labels& labels, const std::string& value) {
    text_ += name;
    if (!labels.empty()) {
      text_ += '{';
      bool first = true;
      for (const auto& [label, label_text] : labels) {
        if (!first) text_ += ',';
        first = false;
        text_ += std::string(label) + '=' + label_value(label_text);
      }
      text_ += '}';
    }
    text_ += ' ' + value + '\n';
  }
  std::string finish() {
    text_ += "# EOF\n";
    return std::move(text_);
  }

 private:
  std::string text_;
};

}  // namespace

std::string render_metrics(const Figures& f) {
  Exposition out;
  out.family("vmafexact_build", "info",
             "vmafexact's version, the libvmaf version whose scores it reproduces, and the "
             "element's model and backend properties.");
  out.sample("vmafexact_build_info",
             {{"version", f.version},
              {"libvmaf", VMAFEXACT_LIBVMAF_VERSION},
              {"model", f.model},
              {"backend", f.backend}},
             "1");

  out.family("vmafexact_frames_scored", "counter",
             "Frame pairs scored (from the vmafexact-frame messages' index, and the summary's "
             "count at the end).");
  out.sample("vmafexact_frames_scored_total", {}, std::to_string(f.frames_scored()));
  out.family("vmafexact_frames_unpaired", "counter",
             "Frames not scored for want of a partner on the other input (from tumbling "
             "vmafexact-window messages, input-stalled alerts and the summary).");
  out.sample("vmafexact_frames_unpaired_total", {{"input", "reference"}},
             std::to_string(f.unpaired_ref()));
  out.sample("vmafexact_frames_unpaired_total", {{"input", "distorted"}},
             std::to_string(f.unpaired_dist()));
  out.family("vmafexact_frames_skipped_late", "counter",
             "Live: frame pairs skipped unscored because scoring fell behind real time by more "
             "than max-lateness (from tumbling vmafexact-window messages and the summary).");
  out.sample("vmafexact_frames_skipped_late_total", {}, std::to_string(f.skipped_late()));

  out.family("vmafexact_score", "gauge", "Each score of the last vmafexact-frame message.");
  for (const auto& [score, value] : f.last_scores)
    out.sample("vmafexact_score", {{"score", score}}, number_text(value));
  out.family("vmafexact_last_frame_index", "gauge",
             "Index of the last vmafexact-frame message's frame.");
  if (f.last_index) out.sample("vmafexact_last_frame_index", {}, std::to_string(*f.last_index));
  out.family("vmafexact_last_frame_running_time_seconds", "gauge",
             "Running time of the last scored frame.", "seconds");
  if (GST_CLOCK_TIME_IS_VALID(f.last_running_time))
    out.sample("vmafexact_last_frame_running_time_seconds", {},
               number_text(seconds_of(f.last_running_time)));
  out.family("vmafexact_last_frame_timestamp_seconds", "gauge",
             "Wall-clock time (Unix seconds) when the last vmafexact-frame message arrived.",
             "seconds");
  if (f.last_index)
    out.sample("vmafexact_last_frame_timestamp_seconds", {}, number_text(f.last_frame_unix_time));

  out.family("vmafexact_window", "gauge",
             "Each score's figures over the last window (vmafexact-window message).");
  for (const auto& [score, stats] : f.window_stats)
    for (const auto& [stat, value] : stats)
      out.sample("vmafexact_window", {{"score", score}, {"stat", stat}}, number_text(value));
  out.family("vmafexact_window_frames", "gauge", "Frame pairs scored in the last window.");
  if (f.have_window) out.sample("vmafexact_window_frames", {}, std::to_string(f.window_frames));
  out.family("vmafexact_window_frames_unpaired", "gauge",
             "Frames left unpaired in the last window, per input.");
  if (f.have_window) {
    out.sample("vmafexact_window_frames_unpaired", {{"input", "reference"}},
               std::to_string(f.window_unpaired_ref));
    out.sample("vmafexact_window_frames_unpaired", {{"input", "distorted"}},
               std::to_string(f.window_unpaired_dist));
  }
  out.family("vmafexact_window_frames_skipped_late", "gauge",
             "Frame pairs skipped in the last window because scoring fell behind real time.");
  if (f.have_window)
    out.sample("vmafexact_window_frames_skipped_late", {}, std::to_string(f.window_skipped_late));
  out.family("vmafexact_window_end_seconds", "gauge", "Running time of the last window's end.",
             "seconds");
  if (f.have_window && GST_CLOCK_TIME_IS_VALID(f.window_end))
    out.sample("vmafexact_window_end_seconds", {}, number_text(seconds_of(f.window_end)));

  out.family("vmafexact_alert_active", "gauge",
             "1 while an alert is raised, 0 once cleared (vmafexact-alert messages); an alert "
             "appears at its first message.");
  for (const auto& [key, alert] : f.alerts)
    out.sample("vmafexact_alert_active", alert_labels(alert), alert.active ? "1" : "0");
  out.family("vmafexact_alert_value", "gauge", "The score's value in the alert's last message.");
  for (const auto& [key, alert] : f.alerts)
    if (alert.value)
      out.sample("vmafexact_alert_value", alert_labels(alert), number_text(*alert.value));
  out.family("vmafexact_alert_threshold", "gauge", "The alert's threshold.");
  for (const auto& [key, alert] : f.alerts)
    if (alert.threshold)
      out.sample("vmafexact_alert_threshold", alert_labels(alert), number_text(*alert.threshold));
  out.family("vmafexact_alert_raised", "counter", "Times the alert was raised.");
  for (const auto& [key, alert] : f.alerts)
    out.sample("vmafexact_alert_raised_total", alert_labels(alert), std::to_string(alert.raised));

  out.family("vmafexact_summary", "gauge",
             "Each score pooled over the whole run (vmafexact-summary message, at end of stream).");
  for (const auto& [score, stats] : f.pooled)
    for (const auto& [stat, value] : stats)
      out.sample("vmafexact_summary", {{"score", score}, {"stat", stat}}, number_text(value));
  out.family("vmafexact_end_of_stream", "gauge",
             "1 once the pipeline has reached its end of stream (summary posted), else 0.");
  out.sample("vmafexact_end_of_stream", {}, f.end_of_stream ? "1" : "0");
  return out.finish();
}

}  // namespace vmafexact::monitor_tool
