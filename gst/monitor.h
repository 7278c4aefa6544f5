// Live monitoring on the element side: rolling windows (vmafexact-window
// messages), score alerts and input-stalled alerts (vmafexact-alert), and the
// whole-stream percentiles of the summary. The statistics themselves are in
// metrics/pooling/rolling.h; this part turns them into messages and watches
// the inputs with a timer on the system clock, since a stalled input sends no
// buffer that could wake the element.
#pragma once

#include <gst/gst.h>

#include <array>
#include <atomic>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "common/feature_collector.h"
#include "pooling/rolling.h"
#include "provenance.h"
#include "scoring_session.h"
#include "settings.h"
#include "streamed_log.h"

namespace vmafexact::gst {

// The monitoring properties, parsed at start.
struct MonitorPlan {
  std::optional<Span> window, step;
  std::vector<AlertSpec> alerts;
  std::optional<Nanoseconds> input_timeout;
};

// Parses window, window-step, alert and input-timeout; nullopt after posting
// an element error that names the property, the bad part and the fix.
std::optional<MonitorPlan> plan_monitor(GstElement* element, const Settings& settings);

// Watches both sink pads for buffers (pad probes) and, from a periodic timer on
// the system clock, posts input-stalled alerts. Clock and probe callbacks come
// on other threads: everything here is under one mutex.
class StallWatch {
 public:
  StallWatch() = default;
  ~StallWatch();
  StallWatch(const StallWatch&) = delete;
  StallWatch& operator=(const StallWatch&) = delete;

  // `pads`: reference, distorted. The element stays referenced while the timer runs.
  void start(GstElement* element, Nanoseconds timeout, const std::array<GstPad*, 2>& pads);
  void stop();
  void set_unpaired(guint64 ref, guint64 dist) {
    unpaired_[0] = ref;
    unpaired_[1] = dist;
  }

 private:
  static GstPadProbeReturn on_pad_data(GstPad* pad, GstPadProbeInfo* info, gpointer self);
  static gboolean on_tick(GstClock* clock, GstClockTime time, GstClockID id, gpointer self);
  static void on_timer_released(gpointer self);
  void tick();
  void post(unsigned side, bool raised, GstClockTime stalled_for);

  struct Side {
    GstPad* pad = nullptr;  // owned by the element
    gulong probe = 0;
    GstClockTime last = GST_CLOCK_TIME_NONE;  // system clock time of the last buffer
    bool ended = false, stalled = false;
  };
  std::mutex mutex_;
  GstElement* element_ = nullptr;
  GstClock* clock_ = nullptr;  // the system clock, referenced while started
  GstClockID timer_ = nullptr;
  Nanoseconds timeout_ = 0;
  bool active_ = false;
  std::array<Side, 2> sides_{};
  std::array<std::atomic<guint64>, 2> unpaired_{};
};

class Monitor {
 public:
  explicit Monitor(GstElement* element) : element_(element) {}
  void attach(GstElement* element) { element_ = element; }

  // A run starts (after plan_monitor succeeded) and stops.
  void start(MonitorPlan plan, const std::array<GstPad*, 2>& pads);
  void stop();
  // A flushing seek: windows, alerts and percentiles start again.
  void flush();
  // A live pipeline (it reports a latency): the summary's percentiles are
  // exact for its first kLiveExactFrames frames only (about a minute at 60 fps,
  // 32 KiB per score), then go into the bounded sketch, so that memory is flat
  // after the first minute of a run of months; otherwise they are exact up to
  // StreamQuantiles::kExactLimit frames. Set before the first frame's scores.
  static constexpr std::size_t kLiveExactFrames = 4096;
  // What scores (versions, models, backend, threads), added to the window and
  // score-alert messages once scoring has started.
  void set_provenance(Provenance provenance) { provenance_ = std::move(provenance); }
  void set_live(bool live) {
    exact_limit_ = live ? kLiveExactFrames : StreamQuantiles::kExactLimit;
  }

  // A pair goes to the scorer; its scores come later through frames().
  void pair_pushed(GstClockTime running_time);
  // A frame of one input was not scored; counts: the run's unpaired frames so far.
  void unpaired(bool dist, GstClockTime running_time, GstClockTime duration, guint64 unpaired_ref,
                guint64 unpaired_dist);
  // A live pair skipped unscored because it came too late (max-lateness).
  void skipped(GstClockTime running_time, GstClockTime duration);
  // Frames whose scores are final, in frame order.
  void frames(const std::vector<FinishedFrame>& finished, const FeatureCollector& scores);
  // End of stream: the last windows.
  void finish();

  // Adds p1, p5, p50, low1_mean, low5_mean of `name` to a summary's `pooled`.
  void add_percentiles(const std::string& name, GstStructure* pooled) const;

 private:
  std::size_t score_index(const std::string& name);
  void post_windows(const std::vector<WindowReport>& reports);
  // Once a run: a window reached kMaxWindowFrames before its end.
  void warn_truncated_window(const WindowReport& report);
  void post_alert(const AlertSpec& spec, const AlertChange& change, GstClockTime running_time,
                  const std::optional<WindowReport>& window);
  void check_alert_scores();
  void add_provenance(GstStructure* message) const;
  void reset_measurement();

  GstElement* element_;  // not owned: the monitor is part of it
  MonitorPlan plan_;
  std::unique_ptr<RollingWindows> windows_;
  std::vector<AlertState> alert_states_;
  std::vector<std::string> names_;  // score names, in order first seen
  std::vector<StreamQuantiles> quantiles_;  // parallel to names_
  std::size_t exact_limit_ = StreamQuantiles::kExactLimit;  // of quantiles made from now on
  std::optional<Provenance> provenance_;  // none before scoring first started
  bool checked_alert_scores_ = false;
  bool warned_truncated_window_ = false;  // once a run: a window cut at kMaxWindowFrames
  StallWatch stall_;
};

}  // namespace vmafexact::gst
