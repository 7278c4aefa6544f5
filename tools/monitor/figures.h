// vmafexact-monitor's figures: what the element's bus messages (vmafexact-frame,
// -window, -alert, -summary) have said so far, read into plain values that the
// exposition (exposition.h) writes on each scrape. Everything runs on the
// program's one main loop, so the figures need no lock.
#pragma once

#include <gst/gst.h>

#include <algorithm>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace vmafexact::monitor_tool {

// Each score's figures (min, max, mean, p5, ...) in a window or summary
// message, in the element's order.
using ScoreStats = std::vector<std::pair<std::string, std::vector<std::pair<std::string, double>>>>;

struct AlertState {
  std::string alert;
  std::string input;  // input alerts only ("reference", "distorted")
  std::string score;
  bool active = false;
  std::optional<double> value;
  std::optional<double> threshold;
  guint64 raised = 0;
};

// What one pipeline's bus has said so far; read by the HTTP handler.
struct Figures {
  // Frames.
  std::vector<std::pair<std::string, double>> last_scores;  // the element's order
  guint64 frame_messages = 0;
  std::optional<guint64> last_index;
  GstClockTime last_running_time = GST_CLOCK_TIME_NONE;
  double last_frame_unix_time = 0;
  // Running time advanced between consecutive frame messages: the media
  // scored, whose rate() against wall-clock time says whether scoring keeps up.
  // Summed in nanoseconds, so that it is the last frame's running time less
  // the first's to the bit.
  GstClockTime media_time = 0;
  double media_seconds = 0;
  // Windows: the last one's figures, and the sums over all.
  bool have_window = false;
  ScoreStats window_stats;
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
  ScoreStats pooled;
  // The models' score names, from the last window, alert or summary message's
  // `models` field ("vmaf=vmaf_v0.6.1, neg=vmaf_v0.6.1neg"); empty before one.
  std::vector<std::string> model_keys;
  // The summary's aggregates (apsnr_y, ...): one value each for the whole run.
  std::vector<std::pair<std::string, double>> aggregates;
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

// One channel of the monitor: its current pipeline's figures and what the
// earlier pipelines (before a restart) counted, so that counters never go down.
struct ChannelFigures {
  std::string name;
  std::string model, backend;               // vmafexact_channel_info
  bool up = false;                          // playing and scoring; set by the channel
  std::map<std::string, guint64> restarts;  // by reason: "error", "eos", "stall"
  Figures run;                              // the current pipeline's (take_* fill it)
  // The earlier runs' counters, added to run's:
  guint64 carried_scored = 0, carried_unpaired_ref = 0, carried_unpaired_dist = 0,
          carried_skipped_late = 0;
  double carried_media_seconds = 0;
  std::map<std::pair<std::string, std::string>, guint64> carried_alert_raised;  // by alert, input

  guint64 frames_scored() const { return carried_scored + run.frames_scored(); }
  guint64 unpaired_ref() const { return carried_unpaired_ref + run.unpaired_ref(); }
  guint64 unpaired_dist() const { return carried_unpaired_dist + run.unpaired_dist(); }
  guint64 skipped_late() const { return carried_skipped_late + run.skipped_late(); }
  double media_seconds() const { return carried_media_seconds + run.media_seconds; }
  guint64 alert_raised(const std::pair<std::string, std::string>& alert) const;
  // The models' score names: the messages' (run.model_keys) once one had
  // them, else those the model property names with ":name=".
  std::vector<std::string> model_keys() const;

  // Before a new pipeline starts: folds run's counters into carried_*, resets run.
  void new_run();
};

// Each reads one message's structure into the figures.
void take_frame(Figures& figures, const GstStructure* frame);
void take_window(Figures& figures, const GstStructure* window);
// An alert message without alert or state is ignored, with a warning on
// standard error.
void take_alert(Figures& figures, const GstStructure* alert);
void take_summary(Figures& figures, const GstStructure* summary);

// The score names in a `models` field: "KEY=NAME (PATH), KEY=NAME, ...".
std::vector<std::string> model_keys_of(std::string_view models);
// The score names a `model` property gives explicitly (":name=KEY").
std::vector<std::string> named_model_keys(std::string_view model_property);

}  // namespace vmafexact::monitor_tool
