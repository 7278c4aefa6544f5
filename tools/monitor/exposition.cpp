#include "exposition.h"

#include <array>
#include <cmath>
#include <cstdio>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "vmafexact_config.h"

namespace vmafexact::monitor_tool {
namespace {

constexpr const char* kOpenMetricsType =
    "application/openmetrics-text; version=1.0.0; charset=utf-8";
constexpr const char* kTextType = "text/plain; version=0.0.4; charset=utf-8";

// Shortest text that reads back as the same double.
std::string number_text(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
  char text[40];
  std::snprintf(text, sizeof text, "%.17g", value);
  return text;
}

std::string count_text(guint64 value) { return std::to_string(value); }

double seconds_of(GstClockTime time) { return static_cast<double>(time) / GST_SECOND; }

// The Accept header is read with the request reader's own field helpers.
using monitor_http::equals_ignoring_case;
using monitor_http::trim_whitespace;

// A media range's q parameter (RFC 9110 12.4.2); 1 without one.
double quality_of(std::string_view parameters) {
  while (!parameters.empty()) {
    const auto semicolon = parameters.find(';');
    const std::string_view parameter = trim_whitespace(parameters.substr(0, semicolon));
    parameters =
        semicolon == std::string_view::npos ? std::string_view{} : parameters.substr(semicolon + 1);
    const auto equals = parameter.find('=');
    if (equals == std::string_view::npos ||
        !equals_ignoring_case(trim_whitespace(parameter.substr(0, equals)), "q"))
      continue;
    const std::string value(trim_whitespace(parameter.substr(equals + 1)));
    char* end = nullptr;
    const double q = g_ascii_strtod(value.c_str(), &end);
    return end && *end == '\0' && !value.empty() ? q : 1;
  }
  return 1;
}

// The kinds, in the order their families are written, with their names'
// part and unit.
struct Kind {
  ScoreKind kind;
  const char* name;  // vmafexact_frame_<name>, ...
  const char* unit;  // OpenMetrics' UNIT where the family's name ends with it
  const char* what;  // for HELP
};
constexpr std::array<Kind, 3> kKinds{{
    {ScoreKind::kVmaf, "vmaf", "", "model outputs (VMAF: 0-100; every model's score)"},
    {ScoreKind::kPsnrDecibels, "psnr_decibels", "decibels", "PSNR-like scores, in dB"},
    {ScoreKind::kFeature, "feature", "",
     "the other features' scores, each in libvmaf's unit for it"},
}};

bool starts_with(std::string_view text, std::string_view prefix) {
  return text.substr(0, prefix.size()) == prefix;
}

bool is_model_score(std::string_view score, const std::vector<std::string>& model_keys) {
  for (const std::string& key : model_keys) {
    if (score == key) return true;
    if (score.size() <= key.size() + 1 || !starts_with(score, key) || score[key.size()] != '_')
      continue;
    const std::string_view rest = score.substr(key.size() + 1);
    if (rest == "bagging" || rest == "stddev" || rest == "ci_p95_lo" || rest == "ci_p95_hi")
      return true;
    if (rest.find_first_not_of("0123456789") == std::string_view::npos) return true;
  }
  return false;
}

// One family at a time, in either format.
using Labels = std::vector<std::pair<std::string_view, std::string>>;

class Writer {
 public:
  explicit Writer(ExpositionFormat format) : format_(format) {}

  // `name` is the family's (OpenMetrics: without _total or _info); `type`
  // counter, gauge, summary or info.
  void family(std::string_view name, std::string_view type, std::string_view help,
              std::string_view unit = {}) {
    std::string metadata_name(name);
    std::string_view written_type = type;
    if (format_ == ExpositionFormat::kText) {
      // The text format names a counter's or info's family as its samples.
      if (type == "counter") metadata_name += "_total";
      if (type == "info") {
        metadata_name += "_info";
        written_type = "gauge";
      }
      text_ += "# HELP " + metadata_name + ' ' + escaped(help, false) + '\n';
      text_ += "# TYPE " + metadata_name + ' ' + std::string(written_type) + '\n';
      return;
    }
    text_ += "# TYPE " + metadata_name + ' ' + std::string(written_type) + '\n';
    if (!unit.empty()) text_ += "# UNIT " + metadata_name + ' ' + std::string(unit) + '\n';
    text_ += "# HELP " + metadata_name + ' ' + escaped(help, true) + '\n';
  }

  void sample(std::string_view name, const Labels& labels, const std::string& value) {
    text_ += name;
    if (!labels.empty()) {
      text_ += '{';
      bool first = true;
      for (const auto& [label, label_text] : labels) {
        if (!first) text_ += ',';
        first = false;
        text_ += std::string(label) + "=\"" + escaped(label_text, true) + '"';
      }
      text_ += '}';
    }
    text_ += ' ' + value + '\n';
  }

  std::string finish() {
    if (format_ == ExpositionFormat::kOpenMetrics) text_ += "# EOF\n";
    return std::move(text_);
  }

 private:
  // Label values escape \, " and line feeds in both formats; HELP escapes "
  // in OpenMetrics only. Both formats are UTF-8: bytes that are not (a model
  // file's path in another encoding) become U+FFFD rather than fail the scrape.
  static std::string escaped(std::string_view text, bool quotes) {
    std::string valid;
    if (!g_utf8_validate(text.data(), static_cast<gssize>(text.size()), nullptr)) {
      gchar* made_valid = g_utf8_make_valid(text.data(), static_cast<gssize>(text.size()));
      valid = made_valid;
      g_free(made_valid);
      text = valid;
    }
    std::string result;
    for (const char c : text) {
      if (c == '\\')
        result += "\\\\";
      else if (c == '"' && quotes)
        result += "\\\"";
      else if (c == '\n')
        result += "\\n";
      else
        result += c;
    }
    return result;
  }

  ExpositionFormat format_;
  std::string text_;
};

Labels channel_label(const ChannelFigures& channel) { return {{"channel", channel.name}}; }

Labels with(Labels labels, std::string_view name, std::string value) {
  labels.emplace_back(name, std::move(value));
  return labels;
}

Labels alert_labels(const ChannelFigures& channel, const AlertState& alert) {
  Labels labels = with(channel_label(channel), "alert", alert.alert);
  if (!alert.input.empty()) labels.emplace_back("input", alert.input);
  return labels;
}

// A window's or the run's figures of one score, as the summary's quantiles
// and the gauges beside it.
struct StatNames {
  std::vector<std::pair<double, std::optional<double>>> quantiles;  // 0, 0.01, 0.05, 0.5, 1
  std::optional<double> mean, harmonic_mean, low1_mean, low5_mean;
};

StatNames stat_names(const std::vector<std::pair<std::string, double>>& stats) {
  StatNames names;
  std::optional<double> min, p1, p5, p50, max;
  for (const auto& [stat, value] : stats) {
    if (stat == "min")
      min = value;
    else if (stat == "p1")
      p1 = value;
    else if (stat == "p5")
      p5 = value;
    else if (stat == "p50")
      p50 = value;
    else if (stat == "max")
      max = value;
    else if (stat == "mean")
      names.mean = value;
    else if (stat == "harmonic_mean")
      names.harmonic_mean = value;
    else if (stat == "low1_mean")
      names.low1_mean = value;
    else if (stat == "low5_mean")
      names.low5_mean = value;
  }
  names.quantiles = {{0, min}, {0.01, p1}, {0.05, p5}, {0.5, p50}, {1, max}};
  return names;
}

const char* quantile_text(double quantile) {
  if (quantile == 0) return "0";
  if (quantile == 0.01) return "0.01";
  if (quantile == 0.05) return "0.05";
  if (quantile == 0.5) return "0.5";
  return "1";
}

// The score statistics of windows ("window") or of the run ("run"), for
// every kind: the summary with its quantiles, then the means.
void write_statistics(Writer& out, const std::vector<const ChannelFigures*>& channels,
                      std::string_view scope, const char* over,
                      const ScoreStats& (*stats_of)(const ChannelFigures&),
                      std::optional<guint64> (*count_of)(const ChannelFigures&)) {
  for (const Kind& kind : kKinds) {
    const std::string base = "vmafexact_" + std::string(scope) + '_' + kind.name;
    const auto each = [&](auto&& write) {
      for (const ChannelFigures* channel : channels) {
        const std::vector<std::string> keys = channel->model_keys();
        for (const auto& [score, stats] : stats_of(*channel))
          if (score_kind(score, keys) == kind.kind) write(*channel, score, stat_names(stats));
      }
    };
    out.family(base, "summary",
               std::string("Each score's distribution over ") + over + ": " + kind.what +
                   "; quantile 0 is the minimum, 1 the maximum, 0.01/0.05/0.5 nearest-rank "
                   "percentiles" +
                   (scope == "window" ? "; _count the window's frames." : "."),
               kind.unit);
    each([&](const ChannelFigures& channel, const std::string& score, const StatNames& names) {
      const Labels labels = with(channel_label(channel), "score", score);
      for (const auto& [quantile, value] : names.quantiles)
        if (value)
          out.sample(base, with(labels, "quantile", quantile_text(quantile)), number_text(*value));
      if (const auto count = count_of(channel))
        out.sample(base + "_count", labels, count_text(*count));
    });
    out.family(
        base + "_mean", "gauge",
        std::string("Each score's mean over ") + over + " (as libvmaf pools): " + kind.what + '.');
    each([&](const ChannelFigures& channel, const std::string& score, const StatNames& names) {
      if (names.mean)
        out.sample(base + "_mean", with(channel_label(channel), "score", score),
                   number_text(*names.mean));
    });
    out.family(base + "_harmonic_mean", "gauge",
               std::string("Each score's harmonic mean over ") + over +
                   " (libvmaf's n / sum(1 / (s + 1)) - 1): " + kind.what + '.');
    each([&](const ChannelFigures& channel, const std::string& score, const StatNames& names) {
      if (names.harmonic_mean)
        out.sample(base + "_harmonic_mean", with(channel_label(channel), "score", score),
                   number_text(*names.harmonic_mean));
    });
    out.family(base + "_low_mean", "gauge",
               std::string("Each score's mean over the lowest share of frames over ") + over +
                   " (share 0.01: low1_mean, 0.05: low5_mean): " + kind.what + '.');
    each([&](const ChannelFigures& channel, const std::string& score, const StatNames& names) {
      const Labels labels = with(channel_label(channel), "score", score);
      if (names.low1_mean)
        out.sample(base + "_low_mean", with(labels, "share", "0.01"),
                   number_text(*names.low1_mean));
      if (names.low5_mean)
        out.sample(base + "_low_mean", with(labels, "share", "0.05"),
                   number_text(*names.low5_mean));
    });
  }
}

const ScoreStats& window_stats(const ChannelFigures& channel) { return channel.run.window_stats; }
const ScoreStats& run_stats(const ChannelFigures& channel) { return channel.run.pooled; }
std::optional<guint64> window_count(const ChannelFigures& channel) {
  return channel.run.window_frames;
}
std::optional<guint64> run_count(const ChannelFigures&) { return std::nullopt; }

}  // namespace

ExpositionFormat negotiate_format(std::string_view accept) {
  while (!accept.empty()) {
    const auto comma = accept.find(',');
    const std::string_view range = trim_whitespace(accept.substr(0, comma));
    accept = comma == std::string_view::npos ? std::string_view{} : accept.substr(comma + 1);
    const auto semicolon = range.find(';');
    const std::string_view type = trim_whitespace(range.substr(0, semicolon));
    if (equals_ignoring_case(type, "application/openmetrics-text") &&
        quality_of(semicolon == std::string_view::npos ? std::string_view{}
                                                       : range.substr(semicolon + 1)) > 0)
      return ExpositionFormat::kOpenMetrics;
  }
  return ExpositionFormat::kText;
}

ScoreKind score_kind(std::string_view score, const std::vector<std::string>& model_keys) {
  if (is_model_score(score, model_keys)) return ScoreKind::kVmaf;
  for (const std::string_view decibels :
       {"psnr", "apsnr", "float_psnr", "float_anpsnr", "float_ansnr"})
    if (starts_with(score, decibels)) return ScoreKind::kPsnrDecibels;
  // libvmaf's feature names (docs/element.md's Features), with the suffixes
  // that non-default parameters add.
  for (const std::string_view feature : {"integer_", "VMAF_", "float_", "cambi", "speed_", "mse_",
                                         "motion", "adm", "aim", "vif", "ciede", "ssim", "ms_ssim"})
    if (starts_with(score, feature)) return ScoreKind::kFeature;
  // Whatever else a frame carries is a model's score: "vmaf", a further
  // model's version ("vmaf_v0.6.1neg") or its :name=KEY.
  return ScoreKind::kVmaf;
}

Rendered render_metrics(const std::vector<const ChannelFigures*>& channels,
                        std::string_view version, ExpositionFormat format) {
  Writer out(format);
  const auto each = [&](auto&& write) {
    for (const ChannelFigures* channel : channels) write(*channel, channel->run);
  };

  out.family("vmafexact_build", "info",
             "vmafexact's version and the libvmaf version whose scores it reproduces.");
  out.sample("vmafexact_build_info",
             {{"version", std::string(version)}, {"libvmaf", VMAFEXACT_LIBVMAF_VERSION}}, "1");
  out.family("vmafexact_channel", "info", "Each channel's model and backend properties.");
  each([&](const ChannelFigures& c, const Figures&) {
    out.sample("vmafexact_channel_info",
               {{"channel", c.name}, {"model", c.model}, {"backend", c.backend}}, "1");
  });
  out.family("vmafexact_channel_up", "gauge",
             "1 while the channel's pipeline is playing and scoring, else 0 (starting, "
             "restarting, ended).");
  each([&](const ChannelFigures& c, const Figures&) {
    out.sample("vmafexact_channel_up", channel_label(c), c.up ? "1" : "0");
  });
  out.family("vmafexact_channel_restarts", "counter",
             "Times the channel's pipeline was restarted, by reason: error, eos (its input "
             "ended), stall (no frame scored for stall-timeout).");
  each([&](const ChannelFigures& c, const Figures&) {
    for (const char* reason : {"error", "eos", "stall"}) {
      const auto found = c.restarts.find(reason);
      out.sample("vmafexact_channel_restarts_total", with(channel_label(c), "reason", reason),
                 count_text(found != c.restarts.end() ? found->second : 0));
    }
    for (const auto& [reason, count] : c.restarts)
      if (reason != "error" && reason != "eos" && reason != "stall")
        out.sample("vmafexact_channel_restarts_total", with(channel_label(c), "reason", reason),
                   count_text(count));
  });

  out.family("vmafexact_frames_scored", "counter",
             "Frame pairs scored, over the channel's restarts (from the vmafexact-frame messages' "
             "index, and the summary's count at the end).");
  each([&](const ChannelFigures& c, const Figures&) {
    out.sample("vmafexact_frames_scored_total", channel_label(c), count_text(c.frames_scored()));
  });
  out.family("vmafexact_frames_unpaired", "counter",
             "Frames not scored for want of a partner on the other input, over the channel's "
             "restarts (from tumbling vmafexact-window messages, input-stalled alerts and the "
             "summary).");
  each([&](const ChannelFigures& c, const Figures&) {
    out.sample("vmafexact_frames_unpaired_total", with(channel_label(c), "input", "reference"),
               count_text(c.unpaired_ref()));
    out.sample("vmafexact_frames_unpaired_total", with(channel_label(c), "input", "distorted"),
               count_text(c.unpaired_dist()));
  });
  out.family("vmafexact_frames_skipped_late", "counter",
             "Live: frame pairs skipped unscored because scoring fell behind real time by more "
             "than max-lateness, over the channel's restarts.");
  each([&](const ChannelFigures& c, const Figures&) {
    out.sample("vmafexact_frames_skipped_late_total", channel_label(c),
               count_text(c.skipped_late()));
  });
  out.family("vmafexact_media_scored_seconds", "counter",
             "Running time advanced by the scored frames, over the channel's restarts: its rate() "
             "below 1 means scoring is slower than real time.",
             "seconds");
  each([&](const ChannelFigures& c, const Figures&) {
    out.sample("vmafexact_media_scored_seconds_total", channel_label(c),
               number_text(c.media_seconds()));
  });

  out.family("vmafexact_last_frame_index", "gauge",
             "Index of the last vmafexact-frame message's frame (from 0 at each restart).");
  each([&](const ChannelFigures& c, const Figures& f) {
    if (f.last_index)
      out.sample("vmafexact_last_frame_index", channel_label(c), count_text(*f.last_index));
  });
  out.family("vmafexact_last_frame_running_time_seconds", "gauge",
             "Running time of the last scored frame.", "seconds");
  each([&](const ChannelFigures& c, const Figures& f) {
    if (GST_CLOCK_TIME_IS_VALID(f.last_running_time))
      out.sample("vmafexact_last_frame_running_time_seconds", channel_label(c),
                 number_text(seconds_of(f.last_running_time)));
  });
  out.family("vmafexact_last_frame_timestamp_seconds", "gauge",
             "Wall-clock time (Unix seconds) when the last vmafexact-frame message arrived.",
             "seconds");
  each([&](const ChannelFigures& c, const Figures& f) {
    if (f.frame_messages > 0)
      out.sample("vmafexact_last_frame_timestamp_seconds", channel_label(c),
                 number_text(f.last_frame_unix_time));
  });
  for (const Kind& kind : kKinds) {
    const std::string name = std::string("vmafexact_frame_") + kind.name;
    out.family(name, "gauge",
               std::string("Each score of the last vmafexact-frame message: ") + kind.what + '.',
               kind.unit);
    each([&](const ChannelFigures& c, const Figures& f) {
      const std::vector<std::string> keys = c.model_keys();
      for (const auto& [score, value] : f.last_scores)
        if (score_kind(score, keys) == kind.kind)
          out.sample(name, with(channel_label(c), "score", score), number_text(value));
    });
  }

  write_statistics(out, channels, "window", "the last window", window_stats, window_count);
  out.family("vmafexact_window_frames", "gauge", "Frame pairs scored in the last window.");
  each([&](const ChannelFigures& c, const Figures& f) {
    if (f.have_window)
      out.sample("vmafexact_window_frames", channel_label(c), count_text(f.window_frames));
  });
  out.family("vmafexact_window_frames_unpaired", "gauge",
             "Frames left unpaired in the last window, per input.");
  each([&](const ChannelFigures& c, const Figures& f) {
    if (!f.have_window) return;
    out.sample("vmafexact_window_frames_unpaired", with(channel_label(c), "input", "reference"),
               count_text(f.window_unpaired_ref));
    out.sample("vmafexact_window_frames_unpaired", with(channel_label(c), "input", "distorted"),
               count_text(f.window_unpaired_dist));
  });
  out.family("vmafexact_window_frames_skipped_late", "gauge",
             "Frame pairs skipped in the last window because scoring fell behind real time.");
  each([&](const ChannelFigures& c, const Figures& f) {
    if (f.have_window)
      out.sample("vmafexact_window_frames_skipped_late", channel_label(c),
                 count_text(f.window_skipped_late));
  });
  out.family("vmafexact_window_end_seconds", "gauge", "Running time of the last window's end.",
             "seconds");
  each([&](const ChannelFigures& c, const Figures& f) {
    if (f.have_window && GST_CLOCK_TIME_IS_VALID(f.window_end))
      out.sample("vmafexact_window_end_seconds", channel_label(c),
                 number_text(seconds_of(f.window_end)));
  });

  out.family("vmafexact_alert_active", "gauge",
             "1 while an alert is raised, 0 once cleared (vmafexact-alert messages); an alert "
             "appears at its first message.");
  each([&](const ChannelFigures& c, const Figures& f) {
    for (const auto& [key, alert] : f.alerts)
      out.sample("vmafexact_alert_active", alert_labels(c, alert), alert.active ? "1" : "0");
  });
  out.family("vmafexact_alert_value", "gauge",
             "The score's value in the alert's last message (the score's unit).");
  each([&](const ChannelFigures& c, const Figures& f) {
    for (const auto& [key, alert] : f.alerts)
      if (alert.value)
        out.sample("vmafexact_alert_value", alert_labels(c, alert), number_text(*alert.value));
  });
  out.family("vmafexact_alert_threshold", "gauge",
             "The threshold the alert's last message crossed (the score's unit).");
  each([&](const ChannelFigures& c, const Figures& f) {
    for (const auto& [key, alert] : f.alerts)
      if (alert.threshold)
        out.sample("vmafexact_alert_threshold", alert_labels(c, alert),
                   number_text(*alert.threshold));
  });
  out.family("vmafexact_alert_raised", "counter",
             "Times the alert was raised, over the channel's restarts.");
  each([&](const ChannelFigures& c, const Figures& f) {
    // Alerts of earlier runs keep their counts, also when this run has not
    // posted them yet.
    std::map<std::pair<std::string, std::string>, AlertState> alerts = f.alerts;
    for (const auto& [key, raised] : c.carried_alert_raised)
      if (!alerts.contains(key)) {
        alerts[key].alert = key.first;
        alerts[key].input = key.second;
      }
    for (const auto& [key, alert] : alerts)
      out.sample("vmafexact_alert_raised_total", alert_labels(c, alert),
                 count_text(c.alert_raised(key)));
  });

  write_statistics(out, channels, "run", "the whole run (the summary at end of stream)", run_stats,
                   run_count);
  for (const Kind& kind : kKinds) {
    const std::string name = std::string("vmafexact_run_aggregate_") + kind.name;
    out.family(name, "gauge",
               std::string("libvmaf's aggregate metrics of the whole run (vmafexact-summary: "
                           "apsnr_y, ...): ") +
                   kind.what + '.',
               kind.unit);
    each([&](const ChannelFigures& c, const Figures& f) {
      const std::vector<std::string> keys = c.model_keys();
      for (const auto& [score, value] : f.aggregates)
        if (score_kind(score, keys) == kind.kind)
          out.sample(name, with(channel_label(c), "score", score), number_text(value));
    });
  }
  out.family("vmafexact_end_of_stream", "gauge",
             "1 once the channel's pipeline has reached its end of stream (summary posted), else "
             "0.");
  each([&](const ChannelFigures& c, const Figures& f) {
    out.sample("vmafexact_end_of_stream", channel_label(c), f.end_of_stream ? "1" : "0");
  });

  return {format == ExpositionFormat::kOpenMetrics ? kOpenMetricsType : kTextType, out.finish()};
}

}  // namespace vmafexact::monitor_tool
