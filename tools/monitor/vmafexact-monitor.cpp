// vmafexact-monitor: runs a vmafexact pipeline for as long as its inputs live and
// serves the element's scores as OpenMetrics (Prometheus) on /metrics, and
// optionally as JSON lines for log shippers. Reference: docs/live-monitoring.md.
//
//   vmafexact-monitor --ref URI --dist URI [OPTIONS]
//   vmafexact-monitor --pipeline "... vmafexact name=v ..." [OPTIONS]
//
// It talks to the element only through its properties (--set) and its bus
// messages (vmafexact-frame, -window, -alert, -summary). Everything runs on one
// GLib main loop: the bus watch, the HTTP server and the signal handlers, so the
// figures need no lock.

#include <glib-unix.h>
#include <gst/gst.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <future>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "common/error.h"
#include "monitor_http.h"
#include "output/output_file.h"
#include "support/decoded_video.h"
#include "support/handles.h"
#include "support/message_json.h"
#include "vmafexact_config.h"

namespace {

namespace tools = vmafexact::tools;
namespace monitor_http = vmafexact::monitor_http;
using tools::ErrorPtr;
using tools::GCharPtr;
using tools::GObjectPtr;
using tools::GstObjectPtr;
using tools::LoopPtr;

// ---------------------------------------------------------------- options

constexpr const char* kDefaultListen = "127.0.0.1:9464";

struct Options {
  std::string ref_uri;
  std::string dist_uri;
  std::string pipeline;
  std::vector<std::pair<std::string, std::string>> properties;  // --set NAME=VALUE, in order
  std::string listen = kDefaultListen;
  std::string jsonl;  // "" none, "-" stdout
  bool exit_on_eos = true;
  unsigned eos_timeout_s = 10;
  gint64 ref_offset = 0;   // ns added to the running times on ref_sink
  gint64 dist_offset = 0;  // and on dist_sink
};

// "250ms", "1.5s", "40000us", "-2s" or plain nanoseconds.
std::optional<gint64> parse_duration(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  const double number = g_ascii_strtod(text.c_str(), &end);
  if (end == text.c_str() || !std::isfinite(number)) return std::nullopt;
  const std::string_view unit = end;
  double scale = 0;
  if (unit.empty() || unit == "ns")
    scale = 1;
  else if (unit == "us")
    scale = 1e3;
  else if (unit == "ms")
    scale = 1e6;
  else if (unit == "s")
    scale = 1e9;
  else
    return std::nullopt;
  const double nanoseconds = std::round(number * scale);
  if (std::fabs(nanoseconds) > 1e18) return std::nullopt;  // about 31 years
  return static_cast<gint64>(nanoseconds);
}

void print_usage(std::FILE* to, const char* program) {
  std::fprintf(
      to,
      "usage: %s --ref URI --dist URI [OPTIONS]\n"
      "       %s --pipeline \"DESCRIPTION with vmafexact name=v\" [OPTIONS]\n"
      "Runs a vmafexact pipeline and serves its scores on http://ADDRESS/metrics (OpenMetrics).\n"
      "  --ref URI, --dist URI   reference and distorted inputs: anything uridecodebin opens\n"
      "                          (file:///..., rtsp://, srt://, udp://, ...; a plain path is a "
      "file)\n"
      "  --pipeline DESCRIPTION  a gst-launch-1.0 description instead, with a vmafexact named v\n"
      "  --set NAME=VALUE        set a vmafexact property (repeatable), e.g. --set features=psnr\n"
      "  --listen HOST:PORT      the HTTP server's address (default %s; port 0: any free port)\n"
      "  --jsonl FILE|-          also write one JSON line per frame, window, alert and summary\n"
      "                          message (- for standard output), flushed line by line\n"
      "  --exit-on-eos           exit once the pipeline has ended (the default)\n"
      "  --no-exit-on-eos        keep serving /metrics after the end of the stream, until\n"
      "                          SIGINT or SIGTERM\n"
      "  --ref-offset DURATION   add DURATION (250ms, 1.5s, -40ms) to the reference's running\n"
      "                          times before pairing, e.g. the delay of the encoder chain when\n"
      "                          the reference is captured before it\n"
      "  --dist-offset DURATION  the same for the distorted input\n"
      "  --eos-timeout SECONDS   after SIGINT/SIGTERM, how long to wait for the end of the\n"
      "                          stream before stopping without it (default 10)\n"
      "SIGINT/SIGTERM send EOS, wait for the summary and exit 0; a second one stops at once.\n"
      "SIGHUP reopens the --jsonl file (after a log rotation).\n",
      program, program, kDefaultListen);
}

[[noreturn]] void usage_error(const char* program, const std::string& message) {
  std::fprintf(stderr, "%s: %s\n", program, message.c_str());
  std::fprintf(stderr, "Run %s --help for the options.\n", program);
  std::exit(2);
}

Options parse_options(int argc, char** argv) {
  Options options;
  const char* program = argv[0];
  for (int i = 1; i < argc; ++i) {
    const std::string_view arg = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage_error(program, std::string(arg) + " needs a value");
      return argv[++i];
    };
    if (arg == "-h" || arg == "--help") {
      print_usage(stdout, program);
      std::exit(0);
    } else if (arg == "--ref") {
      options.ref_uri = value();
    } else if (arg == "--dist") {
      options.dist_uri = value();
    } else if (arg == "--pipeline") {
      options.pipeline = value();
    } else if (arg == "--set") {
      const std::string assignment = value();
      const auto equals = assignment.find('=');
      if (equals == std::string::npos || equals == 0)
        usage_error(program,
                    "--set takes NAME=VALUE (e.g. --set features=psnr), not '" + assignment + "'");
      options.properties.emplace_back(assignment.substr(0, equals), assignment.substr(equals + 1));
    } else if (arg == "--listen") {
      options.listen = value();
    } else if (arg == "--jsonl") {
      options.jsonl = value();
      if (options.jsonl.empty()) usage_error(program, "--jsonl needs a file name or -");
    } else if (arg == "--exit-on-eos") {
      options.exit_on_eos = true;
    } else if (arg == "--no-exit-on-eos") {
      options.exit_on_eos = false;
    } else if (arg == "--ref-offset" || arg == "--dist-offset") {
      const std::string text = value();
      const auto offset = parse_duration(text);
      if (!offset)
        usage_error(program, std::string(arg) +
                                 " takes a duration such as 250ms, 1.5s or -40ms, not '" + text +
                                 "'");
      (arg == "--ref-offset" ? options.ref_offset : options.dist_offset) = *offset;
    } else if (arg == "--eos-timeout") {
      const std::string text = value();
      char* end = nullptr;
      const unsigned long seconds = std::strtoul(text.c_str(), &end, 10);
      if (text.empty() || *end || text[0] == '-' || seconds > 86400)
        usage_error(program,
                    "--eos-timeout takes a number of seconds (0 to 86400), not '" + text + "'");
      options.eos_timeout_s = static_cast<unsigned>(seconds);
    } else {
      usage_error(program, "unknown argument '" + std::string(arg) + "'");
    }
  }
  const bool uris = !options.ref_uri.empty() || !options.dist_uri.empty();
  if (uris && !options.pipeline.empty())
    usage_error(program, "give either --ref and --dist, or --pipeline, not both");
  if (!uris && options.pipeline.empty())
    usage_error(program, "give --ref URI and --dist URI, or --pipeline DESCRIPTION");
  if (uris && (options.ref_uri.empty() || options.dist_uri.empty()))
    usage_error(program, "give both --ref URI and --dist URI");
  return options;
}

// HOST:PORT with HOST an IP address literal ([...] for IPv6) or "localhost".
// Names other than localhost are refused rather than resolved: the address is
// where the scores are exposed, so it must be the one the user meant.
GObjectPtr<GSocketAddress> parse_listen_address(const std::string& text, std::string& problem) {
  const auto colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size()) {
    problem = "expected HOST:PORT, e.g. 127.0.0.1:9464, [::1]:9464 or 0.0.0.0:9464";
    return {};
  }
  std::string host = text.substr(0, colon);
  const std::string port_text = text.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']')
    host = host.substr(1, host.size() - 2);
  else if (host.find(':') != std::string::npos) {
    problem = "write an IPv6 address in brackets, e.g. [::1]:9464";
    return {};
  }
  char* end = nullptr;
  const unsigned long port = std::strtoul(port_text.c_str(), &end, 10);
  if (*end || port_text[0] == '-' || port_text[0] == '+' || port > 65535) {
    problem = "the port '" + port_text + "' is not a number from 0 to 65535";
    return {};
  }
  if (host == "localhost") host = "127.0.0.1";
  GObjectPtr<GInetAddress> address(g_inet_address_new_from_string(host.c_str()));
  if (!address) {
    problem = "'" + host + "' is not an IP address (use e.g. 127.0.0.1, 0.0.0.0, [::1] or [::])";
    return {};
  }
  return GObjectPtr<GSocketAddress>(
      g_inet_socket_address_new(address.get(), static_cast<guint16>(port)));
}

// ---------------------------------------------------------------- figures

struct AlertState {
  std::string alert;
  std::string input;  // input alerts only ("reference", "distorted")
  std::string score;
  bool active = false;
  std::optional<double> value;
  std::optional<double> threshold;
  guint64 raised = 0;
};

// What the bus has said so far; read by the HTTP handler.
struct Figures {
  // Build information.
  std::string version;
  std::string model;
  std::string backend;
  // Frames.
  std::vector<std::pair<std::string, double>> last_scores;  // the element's order
  guint64 frame_messages = 0;
  std::optional<guint64> last_index;
  GstClockTime last_running_time = GST_CLOCK_TIME_NONE;
  double last_frame_unix_time = 0;
  // Windows: the last one's figures, and the sums over all.
  bool have_window = false;
  std::vector<std::pair<std::string, std::vector<std::pair<std::string, double>>>> window_stats;
  guint64 window_frames = 0;
  guint64 window_unpaired_ref = 0;
  guint64 window_unpaired_dist = 0;
  guint64 window_skipped_late = 0;
  GstClockTime window_start = GST_CLOCK_TIME_NONE;
  GstClockTime window_end = GST_CLOCK_TIME_NONE;
  GstClockTime previous_window_end = GST_CLOCK_TIME_NONE;
  guint64 windows_unpaired_ref_sum = 0;
  guint64 windows_unpaired_dist_sum = 0;
  guint64 windows_skipped_late_sum = 0;
  // Summary.
  bool have_summary = false;
  guint64 summary_scored = 0;
  guint64 summary_unpaired_ref = 0;
  guint64 summary_unpaired_dist = 0;
  guint64 summary_skipped_late = 0;
  std::vector<std::pair<std::string, std::vector<std::pair<std::string, double>>>> pooled;
  // Alerts, keyed by expression and input.
  std::map<std::pair<std::string, std::string>, AlertState> alerts;
  bool end_of_stream = false;

  // Input-stalled alerts carry the run's unpaired counts so far.
  guint64 alert_unpaired_ref = 0;
  guint64 alert_unpaired_dist = 0;

  // Counters must never go down: each takes the largest count any message gave
  // (frame messages miss the frames off a subsample grid, windows may overlap,
  // the summary comes last).
  guint64 frames_scored() const {
    return std::max({frame_messages, last_index ? *last_index + 1 : 0, summary_scored});
  }
  guint64 unpaired_ref() const {
    return std::max({windows_unpaired_ref_sum, alert_unpaired_ref, summary_unpaired_ref});
  }
  guint64 unpaired_dist() const {
    return std::max({windows_unpaired_dist_sum, alert_unpaired_dist, summary_unpaired_dist});
  }
  guint64 skipped_late() const { return std::max(windows_skipped_late_sum, summary_skipped_late); }
};

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

// ---------------------------------------------------------------- messages

// Each score's figures in a window or summary message: its nested structures'
// gdouble fields (min, max, mean, p5, ...), in the element's order.
std::vector<std::pair<std::string, std::vector<std::pair<std::string, double>>>> nested_stats(
    const GstStructure* structure) {
  std::vector<std::pair<std::string, std::vector<std::pair<std::string, double>>>> result;
  const gint fields = gst_structure_n_fields(structure);
  for (gint i = 0; i < fields; ++i) {
    const gchar* name = gst_structure_nth_field_name(structure, i);
    const GValue* value = gst_structure_get_value(structure, name);
    if (!GST_VALUE_HOLDS_STRUCTURE(value)) continue;
    const GstStructure* nested = gst_value_get_structure(value);
    std::vector<std::pair<std::string, double>> values;
    const gint stats = gst_structure_n_fields(nested);
    for (gint j = 0; j < stats; ++j) {
      const gchar* stat = gst_structure_nth_field_name(nested, j);
      const GValue* number = gst_structure_get_value(nested, stat);
      if (G_VALUE_HOLDS_DOUBLE(number)) values.emplace_back(stat, g_value_get_double(number));
    }
    result.emplace_back(name, std::move(values));
  }
  return result;
}

guint64 uint64_field(const GstStructure* structure, const char* name, guint64 otherwise = 0) {
  guint64 number = otherwise;
  gst_structure_get_uint64(structure, name, &number);
  return number;
}

void take_frame(Figures& f, const GstStructure* s) {
  f.last_scores.clear();
  const gint fields = gst_structure_n_fields(s);
  for (gint i = 0; i < fields; ++i) {
    const gchar* name = gst_structure_nth_field_name(s, i);
    const GValue* value = gst_structure_get_value(s, name);
    if (G_VALUE_HOLDS_DOUBLE(value)) f.last_scores.emplace_back(name, g_value_get_double(value));
  }
  ++f.frame_messages;
  guint64 index = 0;
  if (gst_structure_get_uint64(s, "index", &index)) f.last_index = index;
  f.last_running_time = uint64_field(s, "running-time", GST_CLOCK_TIME_NONE);
  f.last_frame_unix_time = static_cast<double>(g_get_real_time()) / G_USEC_PER_SEC;
}

void take_window(Figures& f, const GstStructure* s) {
  f.have_window = true;
  f.window_stats = nested_stats(s);
  f.window_frames = uint64_field(s, "frames");
  f.window_unpaired_ref = uint64_field(s, "frames-unpaired-ref");
  f.window_unpaired_dist = uint64_field(s, "frames-unpaired-dist");
  f.window_skipped_late = uint64_field(s, "frames-skipped-late");
  f.window_start = uint64_field(s, "window-start", GST_CLOCK_TIME_NONE);
  f.window_end = uint64_field(s, "window-end", GST_CLOCK_TIME_NONE);
  // Tumbling windows add up to the run's unpaired counts; overlapping ones
  // (window-step shorter than window) would count frames twice, so they add
  // nothing and the counters follow the alerts and the summary.
  if (!GST_CLOCK_TIME_IS_VALID(f.previous_window_end) || !GST_CLOCK_TIME_IS_VALID(f.window_start) ||
      f.window_start >= f.previous_window_end) {
    f.windows_unpaired_ref_sum += f.window_unpaired_ref;
    f.windows_unpaired_dist_sum += f.window_unpaired_dist;
    f.windows_skipped_late_sum += f.window_skipped_late;
  }
  f.previous_window_end = f.window_end;
}

void take_alert(Figures& f, const GstStructure* s) {
  const gchar* expression = gst_structure_get_string(s, "alert");
  const gchar* state = gst_structure_get_string(s, "state");
  if (!expression || !state) {
    std::fprintf(stderr, "warning: a vmafexact-alert message without alert or state: ignored\n");
    return;
  }
  const gchar* input = gst_structure_get_string(s, "input");
  const gchar* score = gst_structure_get_string(s, "score");
  AlertState& alert = f.alerts[{expression, input ? input : ""}];
  alert.alert = expression;
  alert.input = input ? input : "";
  if (score) alert.score = score;
  const bool raised = std::string_view(state) == "raised";
  if (raised && !alert.active) ++alert.raised;
  alert.active = raised;
  gdouble number = 0;
  if (gst_structure_get_double(s, "value", &number)) alert.value = number;
  if (gst_structure_get_double(s, "threshold", &number)) alert.threshold = number;
  guint64 count = 0;
  if (gst_structure_get_uint64(s, "frames-unpaired-ref", &count))
    f.alert_unpaired_ref = std::max(f.alert_unpaired_ref, count);
  if (gst_structure_get_uint64(s, "frames-unpaired-dist", &count))
    f.alert_unpaired_dist = std::max(f.alert_unpaired_dist, count);
}

void take_summary(Figures& f, const GstStructure* s) {
  f.have_summary = true;
  f.summary_scored = uint64_field(s, "frames-scored");
  f.summary_unpaired_ref = uint64_field(s, "frames-unpaired-ref");
  f.summary_unpaired_dist = uint64_field(s, "frames-unpaired-dist");
  f.summary_skipped_late = uint64_field(s, "frames-skipped-late");
  f.pooled = nested_stats(s);
}

// ---------------------------------------------------------------- the program

class Monitor {
 public:
  explicit Monitor(Options options) : options_(std::move(options)) {}
  int run();

 private:
  bool build_pipeline();
  bool build_from_uris();
  bool set_properties();
  bool open_jsonl();
  void reopen_jsonl();
  bool start_server();
  void write_json_line(const GstStructure* structure);
  gboolean on_bus_message(GstMessage* message);
  void on_signal(const char* name);
  void on_eos_timeout();
  bool stop_pipeline();
  void quit(int status) {
    status_ = status;
    g_main_loop_quit(loop_.get());
  }

  static gboolean bus_callback(GstBus*, GstMessage* message, gpointer self) {
    return static_cast<Monitor*>(self)->on_bus_message(message);
  }
  static gboolean sigint_callback(gpointer self) {
    static_cast<Monitor*>(self)->on_signal("SIGINT");
    return G_SOURCE_CONTINUE;
  }
  static gboolean sigterm_callback(gpointer self) {
    static_cast<Monitor*>(self)->on_signal("SIGTERM");
    return G_SOURCE_CONTINUE;
  }
  static gboolean sighup_callback(gpointer self) {
    static_cast<Monitor*>(self)->reopen_jsonl();
    return G_SOURCE_CONTINUE;
  }
  static gboolean eos_timeout_callback(gpointer self) {
    static_cast<Monitor*>(self)->on_eos_timeout();
    return G_SOURCE_REMOVE;
  }

  Options options_;
  LoopPtr loop_{g_main_loop_new(nullptr, FALSE)};
  GstObjectPtr<GstElement> pipeline_;
  GstObjectPtr<GstElement> vmafexact_;
  std::unique_ptr<monitor_http::MetricsServer> server_;
  std::ofstream jsonl_file_;
  std::optional<vmafexact::output::OutputFile> jsonl_stream_;  // a device, FIFO or socket
  std::ostream* jsonl_ = nullptr;
  Figures figures_;
  bool shutdown_requested_ = false;
  bool reached_eos_ = false;
  int status_ = 0;
  // The EOS a signal sends, from a thread of its own: gst_element_send_event()
  // blocks while a source's streaming thread is stuck downstream (it takes
  // the source's stream lock, holding the pipeline's state lock), and the
  // loop must go on serving /metrics and counting --eos-timeout meanwhile.
  std::thread eos_sender_;
  std::future<void> eos_sent_;
};

// A URI as given, or a path turned into a file:// URI.
std::optional<std::string> uri_of(const std::string& text, const char* option) {
  if (gst_uri_is_valid(text.c_str())) return text;
  ErrorPtr error;
  GError* raw_error = nullptr;
  GCharPtr uri(gst_filename_to_uri(text.c_str(), &raw_error));
  error.reset(raw_error);
  if (!uri || !g_file_test(text.c_str(), G_FILE_TEST_EXISTS)) {
    std::fprintf(stderr, "%s '%s' is neither a URI (scheme://...) nor an existing file.\n", option,
                 text.c_str());
    return std::nullopt;
  }
  return std::string(uri.get());
}

bool Monitor::build_from_uris() {
  const auto ref_uri = uri_of(options_.ref_uri, "--ref");
  const auto dist_uri = uri_of(options_.dist_uri, "--dist");
  if (!ref_uri || !dist_uri) return false;
  pipeline_.reset(static_cast<GstElement*>(gst_object_ref_sink(gst_pipeline_new("monitor"))));
  GstElement* vmafexact = gst_element_factory_make("vmafexact", "v");
  GstElement* sink = gst_element_factory_make("fakesink", "sink");
  if (!vmafexact || !sink) {
    std::fprintf(stderr, "Could not make the vmafexact or fakesink element.\n");
    if (vmafexact) gst_object_unref(gst_object_ref_sink(vmafexact));
    if (sink) gst_object_unref(gst_object_ref_sink(sink));
    return false;
  }
  // Scores come as fast as the inputs allow; a live source sets the pace itself.
  g_object_set(sink, "sync", FALSE, nullptr);
  gst_bin_add_many(GST_BIN(pipeline_.get()), vmafexact, sink, nullptr);
  if (!gst_element_link(vmafexact, sink)) {
    std::fprintf(stderr, "Could not link vmafexact to fakesink.\n");
    return false;
  }
  const std::pair<const std::string*, const char*> inputs[] = {{&*ref_uri, "ref"},
                                                               {&*dist_uri, "dist"}};
  for (const auto& [uri, side] : inputs) {
    const std::string prefix = side;
    GstElement* decoder = gst_element_factory_make("uridecodebin", (prefix + "_decoder").c_str());
    GstElement* queue = gst_element_factory_make("queue", (prefix + "_queue").c_str());
    GstElement* convert = gst_element_factory_make("videoconvert", (prefix + "_convert").c_str());
    if (!decoder || !queue || !convert) {
      std::fprintf(stderr,
                   "Could not make uridecodebin, queue or videoconvert (install "
                   "gstreamer1.0-plugins-base).\n");
      for (GstElement* made : {decoder, queue, convert})
        if (made) gst_object_unref(gst_object_ref_sink(made));
      return false;
    }
    g_object_set(decoder, "uri", uri->c_str(), nullptr);
    gst_bin_add_many(GST_BIN(pipeline_.get()), decoder, queue, convert, nullptr);
    const std::string pad = prefix + "_sink";
    if (!gst_element_link(queue, convert) ||
        !gst_element_link_pads(convert, "src", vmafexact, pad.c_str())) {
      std::fprintf(stderr, "Could not link the %s branch to vmafexact's %s.\n", side, pad.c_str());
      return false;
    }
    tools::link_decoded_video(decoder, queue);
  }
  vmafexact_.reset(static_cast<GstElement*>(gst_object_ref(vmafexact)));
  return true;
}

bool Monitor::build_pipeline() {
  if (!options_.pipeline.empty()) {
    GError* raw_error = nullptr;
    GstElement* pipeline = gst_parse_launch_full(options_.pipeline.c_str(), nullptr,
                                                 GST_PARSE_FLAG_FATAL_ERRORS, &raw_error);
    ErrorPtr error(raw_error);
    if (pipeline) pipeline_.reset(static_cast<GstElement*>(gst_object_ref_sink(pipeline)));
    if (!pipeline || error) {
      std::fprintf(stderr, "Could not build the pipeline: %s\n",
                   error ? error->message : "unknown error");
      return false;
    }
    if (!GST_IS_BIN(pipeline_.get())) {
      std::fprintf(stderr, "The pipeline has no vmafexact element named v.\n");
      return false;
    }
    vmafexact_.reset(gst_bin_get_by_name(GST_BIN(pipeline_.get()), "v"));
    if (!vmafexact_) {
      std::fprintf(stderr,
                   "The pipeline has no element named v: write the element as "
                   "'vmafexact name=v'.\n");
      return false;
    }
    GstElementFactory* factory = gst_element_get_factory(vmafexact_.get());
    if (!factory || std::string_view(GST_OBJECT_NAME(factory)) != "vmafexact") {
      std::fprintf(stderr, "The element named v is a %s, not a vmafexact.\n",
                   factory ? GST_OBJECT_NAME(factory) : "?");
      return false;
    }
    return true;
  }
  return build_from_uris();
}

// --set NAME=VALUE: the value is read as gst-launch-1.0 reads it, for the
// property's type; an unknown property or an unreadable value is an error.
bool Monitor::set_properties() {
  GObjectClass* element_class = G_OBJECT_GET_CLASS(vmafexact_.get());
  for (const auto& [name, text] : options_.properties) {
    GParamSpec* spec = g_object_class_find_property(element_class, name.c_str());
    if (!spec || !(spec->flags & G_PARAM_WRITABLE)) {
      std::string names;
      guint count = 0;
      GParamSpec** specs = g_object_class_list_properties(element_class, &count);
      for (guint i = 0; i < count; ++i)
        if ((specs[i]->flags & G_PARAM_WRITABLE) && std::string_view(specs[i]->name) != "name" &&
            std::string_view(specs[i]->name) != "parent")
          names += std::string(names.empty() ? "" : ", ") + specs[i]->name;
      g_free(specs);
      std::fprintf(stderr, "--set %s=%s: vmafexact has no property '%s' (it has: %s).\n",
                   name.c_str(), text.c_str(), name.c_str(), names.c_str());
      return false;
    }
    GValue value = G_VALUE_INIT;
    g_value_init(&value, spec->value_type);
    const bool read = gst_value_deserialize_with_pspec(&value, text.c_str(), spec);
    if (read) g_object_set_property(G_OBJECT(vmafexact_.get()), name.c_str(), &value);
    g_value_unset(&value);
    if (!read) {
      std::fprintf(stderr, "--set %s=%s: '%s' is not a value of type %s for this property.\n",
                   name.c_str(), text.c_str(), text.c_str(), g_type_name(spec->value_type));
      return false;
    }
  }
  // Shift an input's running times, so that frames that belong together pair.
  for (const auto& [pad_name, offset] :
       {std::pair{"ref_sink", options_.ref_offset}, std::pair{"dist_sink", options_.dist_offset}}) {
    if (offset == 0) continue;
    GstObjectPtr<GstPad> pad(gst_element_get_static_pad(vmafexact_.get(), pad_name));
    if (pad) gst_pad_set_offset(pad.get(), offset);
  }
  // What the build_info metric reports.
  GstPlugin* plugin =
      gst_plugin_feature_get_plugin(GST_PLUGIN_FEATURE(gst_element_get_factory(vmafexact_.get())));
  figures_.version = plugin ? gst_plugin_get_version(plugin) : VMAFEXACT_VERSION;
  if (plugin) gst_object_unref(plugin);
  GCharPtr model;
  g_object_get(vmafexact_.get(), "model", &model, nullptr);
  figures_.model = model ? model.get() : "";
  GValue backend = G_VALUE_INIT;
  if (g_object_class_find_property(element_class, "backend")) {
    g_value_init(&backend, g_object_class_find_property(element_class, "backend")->value_type);
    g_object_get_property(G_OBJECT(vmafexact_.get()), "backend", &backend);
    GEnumValue* nick =
        G_VALUE_HOLDS_ENUM(&backend)
            ? g_enum_get_value(static_cast<GEnumClass*>(g_type_class_peek(G_VALUE_TYPE(&backend))),
                               g_value_get_enum(&backend))
            : nullptr;
    figures_.backend = nick ? nick->value_nick : "";
    g_value_unset(&backend);
  }
  return true;
}

bool Monitor::open_jsonl() {
  if (options_.jsonl.empty()) return true;
  if (options_.jsonl == "-") {
    jsonl_ = &std::cout;
    return true;
  }
  // A device, FIFO or socket is written in place (a FIFO without a reader is
  // an error at once, not a wait); a file is appended to, as logrotate expects.
  try {
    if (vmafexact::output::resolve_output(options_.jsonl).kind ==
        vmafexact::output::OutputTarget::Kind::kStream) {
      jsonl_stream_.emplace(options_.jsonl);
      jsonl_ = &jsonl_stream_->stream();
      return true;
    }
  } catch (const vmafexact::Error& error) {
    std::fprintf(stderr, "--jsonl: %s\n", error.what());
    return false;
  }
  jsonl_file_.open(options_.jsonl, std::ios::out | std::ios::app);
  if (!jsonl_file_) {
    std::fprintf(stderr, "--jsonl %s: cannot open the file for appending: %s\n",
                 options_.jsonl.c_str(), std::strerror(errno));
    return false;
  }
  jsonl_ = &jsonl_file_;
  return true;
}

// SIGHUP: after logrotate moved the file away, write to a new one of the same name.
void Monitor::reopen_jsonl() {
  if (options_.jsonl.empty() || options_.jsonl == "-") return;
  jsonl_file_.close();
  jsonl_file_.clear();
  jsonl_stream_.reset();
  jsonl_ = nullptr;
  if (!open_jsonl()) quit(1);
}

void Monitor::write_json_line(const GstStructure* structure) {
  if (!jsonl_) return;
  *jsonl_ << tools::json_line(structure) << '\n';
  jsonl_->flush();
  if (!*jsonl_) {
    std::fprintf(stderr, "--jsonl %s: write failed: %s\n", options_.jsonl.c_str(),
                 std::strerror(errno));
    quit(1);
  }
}

bool Monitor::start_server() {
  std::string problem;
  const GObjectPtr<GSocketAddress> address = parse_listen_address(options_.listen, problem);
  if (!address) {
    std::fprintf(stderr, "--listen %s: %s.\n", options_.listen.c_str(), problem.c_str());
    return false;
  }
  server_ = std::make_unique<monitor_http::MetricsServer>(
      "vmafexact-monitor/" VMAFEXACT_VERSION, [this] { return render_metrics(figures_); });
  if (!server_->listen(address.get(), problem)) {
    std::fprintf(stderr, "--listen %s: cannot listen there: %s\n", options_.listen.c_str(),
                 problem.c_str());
    return false;
  }
  // With port 0 the system picks one: say which, for scripts and tests.
  std::fprintf(stderr, "vmafexact-monitor: serving %s\n", server_->metrics_url().c_str());
  return true;
}

gboolean Monitor::on_bus_message(GstMessage* message) {
  switch (GST_MESSAGE_TYPE(message)) {
    case GST_MESSAGE_ELEMENT: {
      if (GST_MESSAGE_SRC(message) != GST_OBJECT(vmafexact_.get())) break;
      const GstStructure* s = gst_message_get_structure(message);
      if (gst_structure_has_name(s, "vmafexact-frame")) {
        take_frame(figures_, s);
      } else if (gst_structure_has_name(s, "vmafexact-window")) {
        take_window(figures_, s);
      } else if (gst_structure_has_name(s, "vmafexact-alert")) {
        take_alert(figures_, s);
        const gchar* alert = gst_structure_get_string(s, "alert");
        const gchar* state = gst_structure_get_string(s, "state");
        const gchar* input = gst_structure_get_string(s, "input");
        std::fprintf(stderr, "alert %s%s%s: %s\n", alert ? alert : "?", input ? " on " : "",
                     input ? input : "", state ? state : "?");
      } else if (gst_structure_has_name(s, "vmafexact-summary")) {
        take_summary(figures_, s);
      } else {
        break;
      }
      write_json_line(s);
      break;
    }
    case GST_MESSAGE_WARNING: {
      GError* raw_error = nullptr;
      gchar* raw_debug = nullptr;
      gst_message_parse_warning(message, &raw_error, &raw_debug);
      ErrorPtr error(raw_error);
      GCharPtr debug(raw_debug);
      std::fprintf(stderr, "WARNING from %s: %s\n", GST_OBJECT_NAME(GST_MESSAGE_SRC(message)),
                   error->message);
      if (debug) std::fprintf(stderr, "  %s\n", debug.get());
      break;
    }
    case GST_MESSAGE_ERROR: {
      GError* raw_error = nullptr;
      gchar* raw_debug = nullptr;
      gst_message_parse_error(message, &raw_error, &raw_debug);
      ErrorPtr error(raw_error);
      GCharPtr debug(raw_debug);
      std::fprintf(stderr, "ERROR from %s: %s\n", GST_OBJECT_NAME(GST_MESSAGE_SRC(message)),
                   error->message);
      if (debug) std::fprintf(stderr, "  %s\n", debug.get());
      quit(1);
      break;
    }
    case GST_MESSAGE_EOS:
      reached_eos_ = true;
      figures_.end_of_stream = true;
      if (options_.exit_on_eos || shutdown_requested_) {
        quit(0);
      } else {
        std::fprintf(stderr,
                     "vmafexact-monitor: end of stream; still serving /metrics until SIGINT or "
                     "SIGTERM.\n");
      }
      break;
    default:
      break;
  }
  return G_SOURCE_CONTINUE;
}

void Monitor::on_signal(const char* name) {
  if (reached_eos_) {
    quit(status_);
    return;
  }
  if (shutdown_requested_) {
    std::fprintf(stderr, "vmafexact-monitor: %s again: stopping without the summary.\n", name);
    quit(1);
    return;
  }
  shutdown_requested_ = true;
  std::fprintf(stderr,
               "vmafexact-monitor: %s: ending the streams (EOS); waiting for the summary.\n", name);
  // The timer first: it must fire even if the EOS never gets through.
  if (options_.eos_timeout_s > 0)
    g_timeout_add_seconds(options_.eos_timeout_s, eos_timeout_callback, this);
  std::promise<void> sent;
  eos_sent_ = sent.get_future();
  eos_sender_ = std::thread(
      [pipeline = GstObjectPtr<GstElement>(static_cast<GstElement*>(gst_object_ref(pipeline_.get()))),
       sent = std::move(sent)]() mutable {
        gst_element_send_event(pipeline.get(), gst_event_new_eos());
        sent.set_value();
      });
}

void Monitor::on_eos_timeout() {
  if (reached_eos_) return;
  std::fprintf(stderr,
               "vmafexact-monitor: no end of stream %u s after the signal: stopping without the "
               "summary (raise --eos-timeout if the pipeline needs longer).\n",
               options_.eos_timeout_s);
  quit(1);
}

// Sets the pipeline to NULL, which writes the element's log if the stream did
// not end (docs/element.md); false, without touching it, while the EOS a
// signal sent is still blocked (waited for a moment only when the stream
// ended: its sender then returns at once).
bool Monitor::stop_pipeline() {
  if (eos_sender_.joinable()) {
    const auto wait = reached_eos_ ? std::chrono::seconds(1) : std::chrono::seconds(0);
    if (eos_sent_.wait_for(wait) != std::future_status::ready) return false;
    eos_sender_.join();
  }
  gst_element_set_state(pipeline_.get(), GST_STATE_NULL);
  return true;
}

int Monitor::run() {
  if (GstElementFactory* factory = gst_element_factory_find("vmafexact")) {
    gst_object_unref(factory);
  } else {
    std::fprintf(stderr,
                 "The vmafexact element is not installed. Point GStreamer at the build, e.g.\n"
                 "  GST_PLUGIN_PATH=$PWD/build/gst vmafexact-monitor ...\n");
    return 1;
  }
  if (!build_pipeline() || !set_properties() || !open_jsonl() || !start_server()) return 1;

  GstObjectPtr<GstBus> bus(gst_element_get_bus(pipeline_.get()));
  const guint watch = gst_bus_add_watch(bus.get(), bus_callback, this);
  const guint sigint = g_unix_signal_add(SIGINT, sigint_callback, this);
  const guint sigterm = g_unix_signal_add(SIGTERM, sigterm_callback, this);
  const guint sighup = g_unix_signal_add(SIGHUP, sighup_callback, this);

  // A failed state change has its reason on the bus, which the loop reads.
  gst_element_set_state(pipeline_.get(), GST_STATE_PLAYING);
  g_main_loop_run(loop_.get());

  g_source_remove(sigint);
  g_source_remove(sigterm);
  g_source_remove(sighup);
  if (!stop_pipeline()) {
    // The EOS is still blocked in a source, holding the pipeline's state lock:
    // going to NULL would block as well. Exit with what this program wrote
    // flushed; the status says the pipeline did not end cleanly.
    std::fprintf(stderr,
                 "vmafexact-monitor: the pipeline is still blocked taking the EOS (a streaming "
                 "thread does not return); exiting without stopping it.\n");
    if (jsonl_) jsonl_->flush();
    std::fflush(nullptr);
    std::_Exit(status_ != 0 ? status_ : 1);
  }
  g_source_remove(watch);
  server_.reset();
  return status_;
}

}  // namespace

int main(int argc, char** argv) {
  gst_init(&argc, &argv);
  Options options = parse_options(argc, argv);
  Monitor monitor(std::move(options));
  return monitor.run();
}
