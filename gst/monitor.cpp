#include "monitor.h"

#include <algorithm>

#include "common/error.h"
#include "element_debug.h"
#include "gst_handles.h"

namespace vmafexact::gst {
namespace {

std::optional<Nanoseconds> time_or_none(GstClockTime time) {
  if (!GST_CLOCK_TIME_IS_VALID(time)) return std::nullopt;
  return time;
}

GstClockTime clock_time(std::optional<Nanoseconds> time) {
  return time ? *time : GST_CLOCK_TIME_NONE;
}

StructurePtr window_structure(const WindowStats& stats) {
  return StructurePtr(gst_structure_new(
      "window", "min", G_TYPE_DOUBLE, stats.min, "max", G_TYPE_DOUBLE, stats.max, "mean",
      G_TYPE_DOUBLE, stats.mean, "harmonic_mean", G_TYPE_DOUBLE, stats.harmonic_mean, "p1",
      G_TYPE_DOUBLE, stats.p1, "p5", G_TYPE_DOUBLE, stats.p5, "p50", G_TYPE_DOUBLE, stats.p50,
      "low1_mean", G_TYPE_DOUBLE, stats.low1_mean, "low5_mean", G_TYPE_DOUBLE, stats.low5_mean,
      nullptr));
}

// The timer's period: a stall is seen at most a period after the timeout.
GstClockTime tick_period(Nanoseconds timeout) {
  return std::clamp<GstClockTime>(timeout / 4, 10 * GST_MSECOND, GST_SECOND);
}

constexpr const char* kRoles[] = {"reference", "distorted"};

}  // namespace

std::optional<MonitorPlan> plan_monitor(GstElement* element, const Settings& settings) {
  GstElement* self = element;  // for GST_ELEMENT_ERROR
  MonitorPlan plan;
  const char* property = "window";
  try {
    plan.window = parse_span(settings.window, "window");
    if (plan.window) check_window_length(*plan.window);  // a frame window's memory
    property = "window-step";
    plan.step = parse_span(settings.window_step, "window-step");
    if (plan.step && !plan.window)
      throw Error("window-step is set but window is not; set window too (e.g. window=10s)");
    if (plan.window && !plan.step) plan.step = plan.window;  // tumbling
    if (plan.window && plan.step->unit != plan.window->unit)
      throw Error("window-step '" + settings.window_step + "' and window '" + settings.window +
                  "' must both be durations or both numbers of frames (e.g. window=10s "
                  "window-step=1s, or window=300f window-step=30f)");
    // A tiny step would open windows without end (memory, messages).
    if (plan.window) check_window_step(*plan.window, *plan.step);
    property = "input-timeout";
    if (const auto timeout = parse_span(settings.input_timeout, "input-timeout", false))
      plan.input_timeout = timeout->amount;
    property = "alert";
    plan.alerts = parse_alerts(settings.alert);
    for (const auto& alert : plan.alerts)
      if (alert.on_window && !plan.window)
        throw Error("alert '" + alert.text + "' is evaluated on=window, but window is not set; "
                    "set window (e.g. window=10s) or drop on=window");
  } catch (const Error& error) {
    GST_ELEMENT_ERROR(self, LIBRARY, SETTINGS, ("Invalid %s property: %s.", property, error.what()),
                      ("See the %s property in docs/element.md (gst-inspect-1.0 vmafexact).",
                       property));
    return std::nullopt;
  }
  return plan;
}

// ---- StallWatch -----------------------------------------------------------

StallWatch::~StallWatch() { stop(); }

void StallWatch::start(GstElement* element, Nanoseconds timeout,
                       const std::array<GstPad*, 2>& pads) {
  stop();
  const std::lock_guard lock(mutex_);
  element_ = element;
  timeout_ = timeout;
  clock_ = gst_system_clock_obtain();
  const GstClockTime now = gst_clock_get_time(clock_);
  for (unsigned i = 0; i < 2; ++i) {
    sides_[i] = Side{};
    sides_[i].pad = pads[i];
    sides_[i].last = now;
    sides_[i].probe = gst_pad_add_probe(
        pads[i],
        static_cast<GstPadProbeType>(GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_BUFFER_LIST |
                                     GST_PAD_PROBE_TYPE_EVENT_DOWNSTREAM |
                                     GST_PAD_PROBE_TYPE_EVENT_FLUSH),
        on_pad_data, this, nullptr);
  }
  const GstClockTime period = tick_period(timeout);
  timer_ = gst_clock_new_periodic_id(clock_, now + period, period);
  // The timer's callback may run on the clock's thread until the clock lets
  // go of it: the element (which holds this watch) stays alive until then.
  // (on_timer_released drops the reference once the clock frees the timer.)
  gst_object_ref(element_);
  if (gst_clock_id_wait_async(timer_, on_tick, this, on_timer_released) != GST_CLOCK_OK)
    GST_WARNING_OBJECT(element_, "could not start the input-timeout timer");
  active_ = true;
}

void StallWatch::stop() {
  GstClockID timer = nullptr;
  GstClock* clock = nullptr;
  {
    const std::lock_guard lock(mutex_);
    if (!active_) return;
    active_ = false;
    for (Side& side : sides_)
      if (side.probe) gst_pad_remove_probe(side.pad, side.probe);
    sides_ = {};
    timer = std::exchange(timer_, nullptr);
    clock = std::exchange(clock_, nullptr);
  }
  // Outside the lock: a tick in progress finishes (it sees active_ false).
  if (timer) {
    gst_clock_id_unschedule(timer);
    gst_clock_id_unref(timer);
  }
  if (clock) gst_object_unref(clock);
}

void StallWatch::on_timer_released(gpointer self) {
  gst_object_unref(static_cast<StallWatch*>(self)->element_);
}

gboolean StallWatch::on_tick(GstClock*, GstClockTime, GstClockID, gpointer self) {
  static_cast<StallWatch*>(self)->tick();
  return TRUE;
}

GstPadProbeReturn StallWatch::on_pad_data(GstPad* pad, GstPadProbeInfo* info, gpointer data) {
  auto* self = static_cast<StallWatch*>(data);
  std::unique_lock lock(self->mutex_);
  if (!self->active_) return GST_PAD_PROBE_OK;
  const unsigned i = pad == self->sides_[0].pad ? 0 : 1;
  Side& side = self->sides_[i];
  bool arrived = (GST_PAD_PROBE_INFO_TYPE(info) &
                  (GST_PAD_PROBE_TYPE_BUFFER | GST_PAD_PROBE_TYPE_BUFFER_LIST)) != 0;
  if (GstEvent* event = (GST_PAD_PROBE_INFO_TYPE(info) & GST_PAD_PROBE_TYPE_EVENT_BOTH)
                            ? GST_PAD_PROBE_INFO_EVENT(info)
                            : nullptr) {
    switch (GST_EVENT_TYPE(event)) {
      case GST_EVENT_EOS: side.ended = true; break;  // an input that ended is not stalled
      case GST_EVENT_FLUSH_STOP:
      case GST_EVENT_STREAM_START:
        side.ended = false;
        arrived = true;
        break;
      default: break;
    }
  }
  if (arrived || side.ended) {
    side.last = gst_clock_get_time(self->clock_);
    if (side.stalled) {
      side.stalled = false;
      lock.unlock();  // an application may stop the element from a bus sync handler
      self->post(i, false, 0);
    }
  }
  return GST_PAD_PROBE_OK;
}

void StallWatch::tick() {
  // Only a playing pipeline expects frames: paused time does not count.
  GstState state;
  {
    const ObjectLock lock(element_);
    state = GST_STATE(element_);
  }
  std::array<std::optional<GstClockTime>, 2> stalled_for;
  {
    const std::lock_guard lock(mutex_);
    if (!active_) return;
    const GstClockTime now = gst_clock_get_time(clock_);
    for (unsigned i = 0; i < 2; ++i) {
      Side& side = sides_[i];
      if (state != GST_STATE_PLAYING) {
        side.last = now;
        continue;
      }
      if (side.ended || side.stalled || now < side.last || now - side.last <= timeout_) continue;
      side.stalled = true;
      stalled_for[i] = now - side.last;
    }
  }
  // Posted outside the lock: an application may stop the element from a bus sync handler.
  for (unsigned i = 0; i < 2; ++i)
    if (stalled_for[i]) post(i, true, *stalled_for[i]);
}

void StallWatch::post(unsigned side, bool raised, GstClockTime stalled_for) {
  const guint64 ref = unpaired_[0], dist = unpaired_[1];
  GstStructure* message = gst_structure_new(
      "vmafexact-alert", "alert", G_TYPE_STRING, "input-stalled", "input", G_TYPE_STRING,
      kRoles[side], "state", G_TYPE_STRING, raised ? "raised" : "cleared", "running-time",
      GST_TYPE_CLOCK_TIME, gst_element_get_current_running_time(element_), "frames-unpaired",
      G_TYPE_UINT64, ref + dist, "frames-unpaired-ref", G_TYPE_UINT64, ref,
      "frames-unpaired-dist", G_TYPE_UINT64, dist, nullptr);
  if (raised)
    gst_structure_set(message, "stalled-for", GST_TYPE_CLOCK_TIME, stalled_for, nullptr);
  gst_element_post_message(element_, gst_message_new_element(GST_OBJECT(element_), message));
}

// ---- Monitor --------------------------------------------------------------

void Monitor::start(MonitorPlan plan, const std::array<GstPad*, 2>& pads) {
  stop();
  plan_ = std::move(plan);
  reset_measurement();
  warned_truncated_window_ = false;
  if (plan_.input_timeout) stall_.start(element_, *plan_.input_timeout, pads);
}

void Monitor::stop() {
  stall_.stop();
  plan_ = MonitorPlan{};
  reset_measurement();
}

void Monitor::flush() {
  reset_measurement();
  stall_.set_unpaired(0, 0);
}

void Monitor::reset_measurement() {
  windows_.reset();
  if (plan_.window) windows_ = std::make_unique<RollingWindows>(*plan_.window, *plan_.step);
  alert_states_.clear();
  for (const auto& alert : plan_.alerts) alert_states_.emplace_back(alert);
  names_.clear();
  quantiles_.clear();
  checked_alert_scores_ = false;
}

std::size_t Monitor::score_index(const std::string& name) {
  const auto found = std::find(names_.begin(), names_.end(), name);
  if (found != names_.end()) return static_cast<std::size_t>(found - names_.begin());
  names_.push_back(name);
  quantiles_.emplace_back(exact_limit_);
  return names_.size() - 1;
}

void Monitor::pair_pushed(GstClockTime running_time) {
  if (windows_) windows_->pair_pushed(time_or_none(running_time));
}

void Monitor::unpaired(bool dist, GstClockTime running_time, GstClockTime duration,
                       guint64 unpaired_ref, guint64 unpaired_dist) {
  stall_.set_unpaired(unpaired_ref, unpaired_dist);
  if (windows_)
    post_windows(windows_->add_unpaired(dist, time_or_none(running_time), time_or_none(duration)));
}

void Monitor::skipped(GstClockTime running_time, GstClockTime duration) {
  if (windows_)
    post_windows(windows_->add_unscored(Unscored::kSkippedPair, time_or_none(running_time),
                                        time_or_none(duration)));
}

void Monitor::check_alert_scores() {
  if (checked_alert_scores_) return;
  checked_alert_scores_ = true;
  for (const auto& alert : plan_.alerts) {
    if (std::find(names_.begin(), names_.end(), alert.score) != names_.end()) continue;
    std::string known;
    for (const auto& name : names_) known += (known.empty() ? "" : ", ") + name;
    GST_ELEMENT_WARNING(element_, LIBRARY, SETTINGS,
                        ("The alert '%s' names the score '%s', which this run does not produce; "
                         "it will never be raised.",
                         alert.text.c_str(), alert.score.c_str()),
                        ("Name one of the scores of this run in the alert property: %s.",
                         known.c_str()));
  }
}

void Monitor::frames(const std::vector<FinishedFrame>& finished, const FeatureCollector& scores) {
  for (const FinishedFrame& frame : finished) {
    std::vector<std::optional<double>> values(names_.size());
    for (const auto& [name, value] : scores.frame_scores(frame.index)) {
      const std::size_t index = score_index(name);
      if (index >= values.size()) values.resize(index + 1);
      values[index] = value;
      quantiles_[index].add(value);
    }
    check_alert_scores();
    const auto running_time = time_or_none(frame.timing.running_time);
    const auto duration = time_or_none(frame.timing.duration);
    // The window for alerts: the one this frame completed, else the one it is in.
    std::optional<WindowReport> window;
    if (windows_) {
      auto closed = windows_->add_frame(running_time, duration, values);
      post_windows(closed);
      window = closed.empty() ? windows_->current() : std::optional(std::move(closed.back()));
    }
    const std::optional<Nanoseconds> end =
        running_time ? std::optional(*running_time + duration.value_or(0)) : std::nullopt;
    for (std::size_t a = 0; a < plan_.alerts.size(); ++a) {
      const AlertSpec& spec = plan_.alerts[a];
      if (spec.on_window) continue;
      const auto found = std::find(names_.begin(), names_.end(), spec.score);
      if (found == names_.end()) continue;
      const auto& value = values[static_cast<std::size_t>(found - names_.begin())];
      if (!value) continue;
      if (const auto change = alert_states_[a].update(*value, running_time, end, 1))
        post_alert(spec, *change, frame.timing.running_time, window);
    }
  }
}

void Monitor::finish() {
  if (windows_) post_windows(windows_->finish());
}

void Monitor::add_provenance(GstStructure* message) const {
  if (provenance_) provenance_->set_fields(message);  // as in the summary
}

void Monitor::post_windows(const std::vector<WindowReport>& reports) {
  for (const WindowReport& report : reports) {
    GstStructure* message = gst_structure_new(
        "vmafexact-window", "window-start", GST_TYPE_CLOCK_TIME, clock_time(report.start),
        "window-end", GST_TYPE_CLOCK_TIME, clock_time(report.end), "frames", G_TYPE_UINT64,
        report.frames, "frames-unpaired", G_TYPE_UINT64, report.unpaired_ref + report.unpaired_dist,
        "frames-unpaired-ref", G_TYPE_UINT64, report.unpaired_ref, "frames-unpaired-dist",
        G_TYPE_UINT64, report.unpaired_dist, "frames-skipped-late", G_TYPE_UINT64, report.skipped,
        "partial", G_TYPE_BOOLEAN, report.partial, "truncated", G_TYPE_BOOLEAN, report.truncated,
        nullptr);
    add_provenance(message);
    if (report.truncated) warn_truncated_window(report);
    for (std::size_t s = 0; s < report.stats.size() && s < names_.size(); ++s)
      if (report.stats[s])
        gst_structure_set(message, names_[s].c_str(), GST_TYPE_STRUCTURE,
                          window_structure(*report.stats[s]).get(), nullptr);
    gst_element_post_message(element_, gst_message_new_element(GST_OBJECT(element_), message));
    // Alerts on window means, in the window's order.
    for (std::size_t a = 0; a < plan_.alerts.size(); ++a) {
      const AlertSpec& spec = plan_.alerts[a];
      if (!spec.on_window) continue;
      const auto found = std::find(names_.begin(), names_.end(), spec.score);
      const std::size_t s = static_cast<std::size_t>(found - names_.begin());
      if (found == names_.end() || s >= report.stats.size() || !report.stats[s]) continue;
      if (const auto change =
              alert_states_[a].update(report.stats[s]->mean, report.start, report.end, report.frames))
        post_alert(spec, *change, clock_time(report.end), report);
    }
  }
}

void Monitor::warn_truncated_window(const WindowReport& report) {
  if (warned_truncated_window_ || !plan_.window) return;
  warned_truncated_window_ = true;
  // The frame rate the window saw, from the frames it holds and their span.
  const std::uint64_t held =
      report.frames + report.unpaired_ref + report.unpaired_dist + report.skipped;
  const double seconds = report.start && report.end && *report.end > *report.start
                             ? static_cast<double>(*report.end - *report.start) / GST_SECOND
                             : 0.;
  const double fps = seconds > 0. ? static_cast<double>(held) / seconds : 0.;
  const std::string window = span_text(*plan_.window);
  // The longest window that holds no more at this rate, in whole seconds (ms under 1 s).
  std::string longest = "a shorter one";
  if (fps > 0.) {
    const auto span =
        static_cast<Nanoseconds>(static_cast<double>(kMaxWindowFrames) / fps * GST_SECOND);
    const Nanoseconds unit = span >= GST_SECOND ? GST_SECOND : GST_MSECOND;
    longest = span_text({Span::Unit::kTime, std::max<Nanoseconds>(span / unit, 1) * unit});
  }
  GST_ELEMENT_WARNING(
      element_, LIBRARY, SETTINGS,
      ("window=%s reached %" G_GUINT64_FORMAT
       " frames, the most a window holds, after %.1f s (about %.0f fps); it was "
       "posted then with truncated=true, and so is every window that would hold "
       "more.",
       window.c_str(), kMaxWindowFrames, seconds, fps),
      ("Set a shorter window: at most %s at this frame rate (%" G_GUINT64_FORMAT " frames).",
       longest.c_str(), kMaxWindowFrames));
}

void Monitor::post_alert(const AlertSpec& spec, const AlertChange& change,
                         GstClockTime running_time, const std::optional<WindowReport>& window) {
  GstStructure* message = gst_structure_new(
      "vmafexact-alert", "alert", G_TYPE_STRING, spec.text.c_str(), "state", G_TYPE_STRING,
      change.raised ? "raised" : "cleared", "score", G_TYPE_STRING, spec.score.c_str(), "value",
      G_TYPE_DOUBLE, change.value, "threshold", G_TYPE_DOUBLE, change.threshold, "running-time",
      GST_TYPE_CLOCK_TIME, running_time, nullptr);
  add_provenance(message);
  if (window) {
    const auto found = std::find(names_.begin(), names_.end(), spec.score);
    const std::size_t s = static_cast<std::size_t>(found - names_.begin());
    if (found != names_.end() && s < window->stats.size() && window->stats[s])
      gst_structure_set(message, "window", GST_TYPE_STRUCTURE,
                        window_structure(*window->stats[s]).get(), nullptr);
  }
  gst_element_post_message(element_, gst_message_new_element(GST_OBJECT(element_), message));
}

void Monitor::add_percentiles(const std::string& name, GstStructure* pooled) const {
  const auto found = std::find(names_.begin(), names_.end(), name);
  if (found == names_.end()) return;
  const auto figures = quantiles_[static_cast<std::size_t>(found - names_.begin())].figures();
  if (!figures) return;
  gst_structure_set(pooled, "p1", G_TYPE_DOUBLE, figures->p1, "p5", G_TYPE_DOUBLE, figures->p5,
                    "p50", G_TYPE_DOUBLE, figures->p50, "low1_mean", G_TYPE_DOUBLE,
                    figures->low1_mean, "low5_mean", G_TYPE_DOUBLE, figures->low5_mean, nullptr);
}

}  // namespace vmafexact::gst
