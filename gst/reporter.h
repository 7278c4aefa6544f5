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

#include "common/error.h"
#include "frame_pairer.h"
#include "input.h"
#include "message_fields.h"
#include "provenance.h"
#include "scorer.h"
#include "scoring_session.h"
#include "settings.h"
#include "streamed_log.h"

namespace vmafexact::gst {

// What the element posts on the bus, for gst-inspect-1.0 (which prints every
// metadata key of an element): the messages, and the kinds of errors and
// warnings. Their fields and texts: docs/element.md.
inline constexpr const char* kPostedMessages =
    "Element messages: vmafexact-frame (each frame's scores, once final), vmafexact-summary "
    "(frame counts, each score pooled, provenance; at end of stream), vmafexact-window (each "
    "rolling window's figures; with window set), vmafexact-alert (an alert raised or "
    "cleared, an input stalled; with alert or input-timeout set). Errors: invalid settings "
    "at start (LIBRARY/SETTINGS), log files that cannot be written (RESOURCE), unsupported or "
    "mismatched formats (STREAM/FORMAT, CORE/NEGOTIATION), frames that cannot be read "
    "(STREAM/DECODE), scoring failures (STREAM/FAILED). Warnings: unpaired frames, a stream "
    "that ended first, nothing scored, frames without timestamps, an alert on a score the "
    "run lacks, caps downstream refuses, a window cut at its frame limit. Every field and "
    "text: docs/element.md.";

class Reporter {
 public:
  explicit Reporter(GstElement* element) : element_(element) {}

  void post_frames(const std::vector<FinishedFrame>& frames, const FeatureCollector& scores) const;
  // `scorer`: null when no pair came (no threads field then).
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
  // End of stream: the warnings about a stream that ended first or nothing
  // scored, then the summary.
  void end_of_stream(const Scorer* scorer, const FramePairer& pairer,
                     const Provenance& provenance, const PooledExtras& add_pooled) const;
  // Live: the `ended` input's stream ended and the `silent` one sent nothing
  // within the latency after it: the run ends without its end.
  void warn_abandoned(const char* ended, const char* silent) const;
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
  // A frame of `input` (`buffer`) could not be read, or the pair could not
  // be prepared (ScoringSession::push()).
  void frame_unreadable(const UnreadableFrame& unreadable, const Input& input,
                        GstBuffer* buffer) const;
  void frames_unprepared(const UnpreparedFrame& unprepared) const;
  // A failure while frames flow: the device's (a GPU call) is a resource's
  // failure, so that an application can tell it from a stream it cannot score.
  void scoring_failed(const Error& error) const;

  // Adds final frames to the session's streamed log (none: nothing to do),
  // in order until one cannot be written. False after posting an error.
  bool log_frames(StreamedLog* log, const std::vector<FinishedFrame>& frames,
                  const ScoringSession& session) const;
  // The log could not be written to `path` (an error): `cause`, the
  // writer's error text, says why.
  void log_write_failed(const std::string& path, const std::string& cause) const;

 private:
  GstElement* element_;  // not owned: the reporter is part of it
};

}  // namespace vmafexact::gst
