// The reporter: everything the element tells the application — each frame's
// vmafexact-frame message, the vmafexact-summary message, the warnings about
// unpaired frames and short streams, and the libvmaf-format log (written with
// metrics/output/log_writer.h).
#pragma once

#include <gst/gst.h>

#include <chrono>
#include <functional>
#include <string>
#include <optional>
#include <string_view>
#include <vector>

#include "scorer.h"
#include "scoring_session.h"
#include "settings.h"
#include "streamed_log.h"

namespace vmafexact::gst {

// The fields of the vmafexact-frame and vmafexact-summary messages besides the
// scores: a score of one of these names would overwrite the field, so such a
// score name is refused at start.
inline constexpr std::string_view kMessageFields[] = {
    "index",           "pts",
    "running-time",    "stream-time",
    "duration",        "frames-scored",
    "frames-unpaired", "frames-unpaired-ref",
    "frames-unpaired-dist", "frames-paired-by-arrival-order",
    "frames-skipped-late",
    "threads",         "frames-in-flight",
    // vmafexact-window (gst/monitor.h).
    "window-start",    "window-end",      "frames",          "partial",
    "truncated",
    // Provenance: where the scores come from.
    "vmafexact-version", "libvmaf-version", "models", "backend",
    // libvmaf's aggregate metrics, summary fields of their own (psnr's apsnr).
    "apsnr_y",         "apsnr_cb",
    "apsnr_cr"};
bool is_message_field(std::string_view name);

class Reporter {
 public:
  explicit Reporter(GstElement* element) : element_(element) {}

  void post_frames(const std::vector<FinishedFrame>& frames, const FeatureCollector& scores) const;
  // `scorer`: null when no pair came; `provenance`: string fields added.
  // `add_pooled`: adds fields to each score's `pooled` structure (the monitor's percentiles).
  using PooledExtras = std::function<void(const std::string& name, GstStructure* pooled)>;
  void post_summary(const Scorer* scorer, guint64 unpaired_ref, guint64 unpaired_dist,
                    guint64 skipped_late,
                    guint64 paired_by_arrival_order, const Provenance& provenance,
                    const PooledExtras& add_pooled = {}) const;

  // `side` and `other_side`: "reference", "distorted".
  // A live run skips pairs: the scorer is slower than the frames arrive.
  void warn_skipped_late(GstClockTime late_by, guint64 skipped_so_far, GstClockTime max_lateness) const;
  void warn_unpaired(const char* side, const char* other_side, GstClockTime time,
                     std::optional<GstClockTime> other_time, bool last) const;
  void warn_ended_first(bool ref_longer, guint64 scored, guint64 trailing) const;
  void warn_nothing_scored() const;
  // Once per run: frames are paired in arrival order because the `untimed`
  // input ("reference", "distorted", or "reference and distorted") carries no
  // timestamps.
  void warn_arrival_order(const char* untimed) const;

  // Writes the log if log-location is set: `log`, the streamed log of the
  // scoring session (null when no pair came: an empty log is written, its
  // rotated name first checked by `may_write`, as StreamedLog's are).
  // False after posting an error.
  bool write_log(const Settings& settings, const Scorer* scorer, StreamedLog* log,
                 const Provenance& provenance, std::chrono::steady_clock::duration scoring_time,
                 const std::function<bool(const std::string& path)>& may_write) const;
  // The log could not be written to `path` (an error): `cause`, the
  // writer's error text, says why.
  void log_write_failed(const std::string& path, const std::string& cause) const;

 private:
  GstElement* element_;  // not owned: the reporter is part of it
};

}  // namespace vmafexact::gst
