#include "reporter.h"

#include <cstdio>
#include <fstream>
#include <string>

#include "element_debug.h"
#include "gst_handles.h"
#include "log_file.h"
#include "output/log_writer.h"
#include "video_picture.h"
#include "vmafexact_config.h"

namespace vmafexact::gst {

namespace {

std::string time_string(GstClockTime time) {
  if (!GST_CLOCK_TIME_IS_VALID(time)) return "none";
  char text[64];
  std::snprintf(text, sizeof text, "%" GST_TIME_FORMAT, GST_TIME_ARGS(time));
  return text;
}

}  // namespace

void Reporter::post_frames(const std::vector<FinishedFrame>& frames,
                           const FeatureCollector& scores) const {
  for (const FinishedFrame& frame : frames) {
    const FrameTiming& timing = frame.timing;
    GstStructure* structure = gst_structure_new(
        "vmafexact-frame", "index", G_TYPE_UINT64, static_cast<guint64>(frame.index), "pts",
        GST_TYPE_CLOCK_TIME, timing.pts, "running-time", GST_TYPE_CLOCK_TIME, timing.running_time,
        "stream-time", GST_TYPE_CLOCK_TIME, timing.stream_time, "duration", GST_TYPE_CLOCK_TIME,
        timing.duration, nullptr);
    for (const auto& [name, value] : scores.frame_scores(frame.index))
      gst_structure_set(structure, name.c_str(), G_TYPE_DOUBLE, value, nullptr);
    gst_element_post_message(element_, gst_message_new_element(GST_OBJECT(element_), structure));
  }
}

void Reporter::post_summary(const Scorer* scorer, guint64 unpaired_ref, guint64 unpaired_dist,
                            guint64 skipped_late,
                            guint64 paired_by_arrival_order, const Provenance& provenance,
                            const PooledExtras& add_pooled) const {
  const guint64 scored = scorer ? scorer->frames_pushed() : 0;
  GstStructure* summary = gst_structure_new(
      "vmafexact-summary", "frames-scored", G_TYPE_UINT64, scored, "frames-unpaired",
      G_TYPE_UINT64, unpaired_ref + unpaired_dist, "frames-unpaired-ref", G_TYPE_UINT64,
      unpaired_ref, "frames-unpaired-dist", G_TYPE_UINT64, unpaired_dist,
      "frames-paired-by-arrival-order", G_TYPE_UINT64, paired_by_arrival_order,
      "frames-skipped-late", G_TYPE_UINT64, skipped_late, nullptr);
  if (scorer)
    gst_structure_set(summary, "threads", G_TYPE_UINT, scorer->threads(), "frames-in-flight",
                      G_TYPE_UINT, scorer->frames_at_once(), nullptr);
  provenance.set_text_fields(summary);  // threads: the scorer's, above
  if (scorer && scored > 0) {
    // Pooled as the frames became final (running values, libvmaf's bits):
    // over frames 0 .. scored-1.
    for (const auto& name : scorer->scores().names()) {
      const auto pooled = scorer->pooled().pooled(name);
      if (!pooled) continue;
      StructurePtr stats(gst_structure_new(
          "pooled", "min", G_TYPE_DOUBLE, pooled->min, "max", G_TYPE_DOUBLE, pooled->max,
          "mean", G_TYPE_DOUBLE, pooled->mean, "harmonic_mean", G_TYPE_DOUBLE,
          pooled->harmonic_mean, nullptr));
      if (add_pooled) add_pooled(name, stats.get());
      gst_structure_set(summary, name.c_str(), GST_TYPE_STRUCTURE, stats.get(), nullptr);
    }
  }
  // libvmaf's aggregate metrics (psnr's apsnr_y, ...): one gdouble each, set at
  // end of stream, under the names its logs list them by.
  if (scorer)
    for (const auto& [name, value] : scorer->scores().aggregates())
      gst_structure_set(summary, name.c_str(), G_TYPE_DOUBLE, value, nullptr);
  gst_element_post_message(element_, gst_message_new_element(GST_OBJECT(element_), summary));
}

void Reporter::warn_skipped_late(GstClockTime late_by, guint64 skipped_so_far,
                                 GstClockTime max_lateness) const {
  GST_ELEMENT_WARNING(
      element_, CORE, CLOCK,
      ("Scoring is slower than real time: a pair of frames came %s late, more than "
       "max-lateness (%s), and was skipped unscored (%" G_GUINT64_FORMAT
       " pairs skipped so far; the summary and the windows count them as frames-skipped-late).",
       time_string(late_by).c_str(), time_string(max_lateness).c_str(), skipped_so_far),
      ("Lower the load: subsample=N, fewer features, more threads, backend=cuda with frames in "
       "CUDA memory, or smaller frames (videoscale); max-lateness=-1 scores every frame, ever "
       "later."));
}

void Reporter::warn_unpaired(const char* side, const char* other_side, GstClockTime time,
                             std::optional<GstClockTime> other_time, bool last) const {
  const std::string other = other_time ? "the nearest " + std::string(other_side) +
                                             " frame is at " + time_string(*other_time)
                                       : "no " + std::string(other_side) + " frame was waiting";
  GST_ELEMENT_WARNING(
      element_, STREAM, FAILED,
      ("The %s frame at running time %s has no %s frame; it is not scored (%s).%s", side,
       time_string(time).c_str(), other_side, other.c_str(),
       last ? " Further unpaired frames are counted in the summary without a warning." : ""),
      ("Frames are paired by running time, within half a frame duration. Give both inputs the "
       "same frame rate and timestamps (for example with videorate), or check the source for "
       "dropped frames."));
}

void Reporter::warn_ended_first(bool ref_longer, guint64 scored, guint64 trailing) const {
  GST_ELEMENT_WARNING(
      element_, STREAM, FAILED,
      ("The %s stream ended first: %" G_GUINT64_FORMAT " frames were scored and the last %"
       G_GUINT64_FORMAT " %s frames have no %s frame and were not scored.",
       ref_longer ? "distorted" : "reference", scored, trailing,
       ref_longer ? "reference" : "distorted", ref_longer ? "distorted" : "reference"),
      ("Give both inputs the same length (e.g. num-buffers on the sources), or ignore this "
       "warning if the scored part is what you wanted."));
}

void Reporter::warn_nothing_scored() const {
  GST_ELEMENT_WARNING(element_, STREAM, FAILED, ("No frame pair was scored."),
                      ("Both inputs must carry frames with matching running times."));
}

void Reporter::end_of_stream(const Scorer* scorer, const FramePairer& pairer,
                             const Provenance& provenance, const PooledExtras& add_pooled) const {
  const guint64 scored = scorer ? scorer->frames_pushed() : 0;
  const guint64 trailing_ref = pairer.trailing(Side::kRef);
  const guint64 trailing_dist = pairer.trailing(Side::kDist);
  if (trailing_ref || trailing_dist)
    warn_ended_first(trailing_ref > 0, scored, trailing_ref > 0 ? trailing_ref : trailing_dist);
  if (scored == 0) warn_nothing_scored();
  post_summary(scorer, pairer.unpaired(Side::kRef), pairer.unpaired(Side::kDist),
               pairer.skipped(), pairer.paired_by_arrival_order(), provenance, add_pooled);
}

void Reporter::warn_abandoned(const char* ended, const char* silent) const {
  GST_ELEMENT_WARNING(
      element_, STREAM, FAILED,
      ("The %s stream ended and the %s input sent nothing within the latency after it: "
       "ending without waiting for the %s input's end.",
       ended, silent, silent),
      ("Live, a frame waits for its partner only until its running time plus the "
       "latency; check the %s source (docs/reliability.md).",
       silent));
}

void Reporter::frame_unreadable(const UnreadableFrame& unreadable, const Input& input,
                                GstBuffer* buffer) const {
  if (!unreadable.reason.empty()) {
    GST_ELEMENT_ERROR(element_, STREAM, DECODE,
                      ("Could not read a %s frame: %s.", input.role, unreadable.reason.c_str()),
                      ("The buffer's video meta describes planes its memory does not hold; "
                       "check the element in front of this pad."));
    return;
  }
  GST_ELEMENT_ERROR(element_, STREAM, DECODE,
                    ("Could not read a %s frame: the buffer holds %" G_GSIZE_FORMAT
                     " bytes where its caps (%s) need %" G_GSIZE_FORMAT ".",
                     input.role, gst_buffer_get_size(buffer),
                     describe_video_info(*input.info).c_str(), GST_VIDEO_INFO_SIZE(&*input.info)),
                    ("Upstream sent a buffer that does not match its caps; check the "
                     "parser or decoder in front of this pad (rawvideoparse needs the "
                     "exact frame layout)."));
}

void Reporter::frames_unprepared(const UnpreparedFrame& unprepared) const {
  GST_ELEMENT_ERROR(element_, RESOURCE, FAILED,
                    ("Could not prepare the frames: %s.", unprepared.reason.c_str()), (nullptr));
}

void Reporter::scoring_failed(const Error& error) const {
  if (dynamic_cast<const DeviceError*>(&error))
    GST_ELEMENT_ERROR(element_, RESOURCE, FAILED, ("Scoring failed on the GPU: %s.", error.what()),
                      (nullptr));
  else
    GST_ELEMENT_ERROR(element_, STREAM, FAILED, ("Scoring failed: %s.", error.what()), (nullptr));
}

void Reporter::warn_arrival_order(const char* untimed) const {
  GST_ELEMENT_WARNING(
      element_, STREAM, FAILED,
      ("The %s input carries no timestamps, so frames are paired in arrival order: a frame "
       "dropped or repeated on either input shifts every later pair and its scores are wrong. "
       "The summary counts these pairs (frames-paired-by-arrival-order).",
       untimed),
      ("Give both inputs timestamps (a parser such as rawvideoparse, a demuxer, or "
       "do-timestamp=true on a live source), so that frames are paired by running time."));
}

bool Reporter::write_log(const Settings& settings, const Scorer* scorer, StreamedLog* log,
                         const Provenance& provenance,
                         std::chrono::steady_clock::duration scoring_time,
                         const std::function<bool(const std::string& path)>& may_write) const {
  if (settings.log_location.empty()) return true;
  std::optional<std::string> failure;  // the writer's error text
  std::string path = settings.log_location;
  if (scorer && log) {
    const bool written = log->finish(scorer->frames_pushed(), scorer->scores().names(),
                                     scorer->scores().aggregates(), scoring_time);
    if (!written && log->refused()) return false;  // its error is posted
    if (!written) {
      path = log->failed_path();
      failure = log->failed_cause();
    }
  } else {
    // No pair came: a log without frames, as libvmaf writes for an empty run.
    LogInfo info;
    info.version = "vmafexact " VMAFEXACT_VERSION " (libvmaf " VMAFEXACT_LIBVMAF_VERSION ")";
    info.subsample = settings.subsample;
    info.provenance = provenance.as_text();
    if (!settings.log_rotate.empty()) {
      std::unique_ptr<GDateTime, decltype(&g_date_time_unref)> now(g_date_time_new_now_utc(),
                                                                   g_date_time_unref);
      path = RotatedNames(settings.log_location).next(0, now.get());  // never a file there
      // Nor another element's file (multifilesink's, not there yet).
      if (may_write && !may_write(path)) return false;  // its error is posted
    }
    FeatureCollector no_scores;
    failure = write_log_file(path, [&](std::ostream& out) {
      vmafexact::write_log(out, settings.log_format, settings.log_precision, no_scores, info);
    });
  }
  if (failure) {
    log_write_failed(path, *failure);
    return false;
  }
  GST_INFO_OBJECT(element_, "wrote %u frames to %s", scorer ? scorer->frames_pushed() : 0u,
                  settings.log_location.c_str());
  return true;
}

bool Reporter::log_frames(StreamedLog* log, const std::vector<FinishedFrame>& frames,
                          const ScoringSession& session) const {
  if (!log) return true;
  const FeatureCollector& scores = session.scorer().scores();
  for (const FinishedFrame& frame : frames)
    if (!log->add_frame(frame.index, scores.frame_scores(frame.index), frame.timing.running_time,
                        scores.names(), session.scoring_time())) {
      if (!log->refused())  // a refusal posted its own error
        log_write_failed(log->failed_path(), log->failed_cause());
      return false;
    }
  return true;
}

void Reporter::log_write_failed(const std::string& path, const std::string& cause) const {
  const LogError error = log_write_error(path, cause);
  GST_ELEMENT_ERROR(element_, RESOURCE, WRITE, ("%s.", error.text.c_str()),
                    ("%s", error.advice.c_str()));
}

}  // namespace vmafexact::gst
