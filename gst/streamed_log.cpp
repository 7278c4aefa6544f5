#include "streamed_log.h"

#include <glib/gstdio.h>

#include <charconv>
#include <sstream>

#include "common/error.h"
#include "output/output_file.h"

namespace vmafexact::gst {

LogRotation parse_log_rotation(std::string_view text) {
  LogRotation rotation;
  if (text.empty()) return rotation;
  guint64 count = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), count);
  const std::string_view unit = text.substr(static_cast<std::size_t>(end - text.data()));
  const auto fail = [&](const std::string& why) {
    return Error("log-rotate \"" + std::string(text) + "\": " + why +
                 " (write a duration such as 90s, 30m, 1h or 1d, or a frame count such as "
                 "100000frames)");
  };
  if (error != std::errc() || end == text.data()) throw fail("no number first");
  if (count == 0) throw fail("zero never rotates");
  if (unit == "frames") {
    rotation.kind = LogRotation::Kind::kFrames;
    rotation.frames = count;
    return rotation;
  }
  guint64 seconds_per_unit = 0;
  if (unit == "s")
    seconds_per_unit = 1;
  else if (unit == "m")
    seconds_per_unit = 60;
  else if (unit == "h")
    seconds_per_unit = 3600;
  else if (unit == "d")
    seconds_per_unit = 86400;
  else
    throw fail(unit.empty() ? "no unit" : "unknown unit '" + std::string(unit) + "'");
  if (count > G_MAXUINT64 / GST_SECOND / seconds_per_unit) throw fail("too long");
  rotation.kind = LogRotation::Kind::kDuration;
  rotation.duration = count * seconds_per_unit * GST_SECOND;
  return rotation;
}

StreamedLog::StreamedLog(Options options) : options_(std::move(options)) { open_body(); }

void StreamedLog::open_body() {
  // Beside the log's (resolved) file, on its disk; for a device or FIFO in
  // the temporary folder. Throws vmafexact::Error naming the log.
  output::TemporaryFile scratch(output::resolve_output(options_.location));
  body_ = std::fstream(scratch.path(),
                       std::ios::in | std::ios::out | std::ios::trunc | std::ios::binary);
  // Unlinked at once: the open stream keeps it, a crash leaves nothing behind.
  scratch.remove();
  if (!body_) throw Error(output::cannot_write(options_.location, "cannot open a scratch file"));
  stream_.emplace(options_.format, options_.precision,
                  options_.rotation.kind != LogRotation::Kind::kNone);
  pools_.clear();
  has_frames_ = false;
}

bool StreamedLog::add_frame(unsigned index,
                            const std::vector<std::pair<std::string, double>>& scores,
                            GstClockTime running_time, const std::vector<std::string>& names,
                            std::chrono::steady_clock::duration scoring_time) {
  const auto now = std::chrono::steady_clock::now();
  if (has_frames_) {
    bool due = false;
    switch (options_.rotation.kind) {
      case LogRotation::Kind::kNone:
        break;
      case LogRotation::Kind::kFrames:
        due = index - first_frame_ >= options_.rotation.frames;
        break;
      case LogRotation::Kind::kDuration:
        // The frames' running time where both have one, else the wall clock.
        if (GST_CLOCK_TIME_IS_VALID(running_time) && GST_CLOCK_TIME_IS_VALID(first_running_time_))
          due = running_time >= first_running_time_ &&
                running_time - first_running_time_ >= options_.rotation.duration;
        else
          due = std::chrono::duration_cast<std::chrono::nanoseconds>(now - first_wall_).count() >=
                static_cast<gint64>(options_.rotation.duration);
        break;
    }
    if (due) {
      if (!write_file(index, names, {}, scoring_time)) return false;
      open_body();
    }
  }
  if (!has_frames_) {
    has_frames_ = true;
    first_frame_ = index;
    first_running_time_ = running_time;
    first_wall_ = now;
    scoring_time_at_start_ = scoring_time;
    first_time_.reset(g_date_time_new_now_utc());
  }
  std::ostringstream entry;
  stream_->write_frame(entry, index, scores);
  body_ << entry.view();
  pools_.add_frame(scores);
  return true;
}

bool StreamedLog::write_file(unsigned end_frame, const std::vector<std::string>& names,
                             const std::vector<std::pair<std::string, double>>& aggregates,
                             std::chrono::steady_clock::duration scoring_time) {
  const bool rotating = options_.rotation.kind != LogRotation::Kind::kNone;
  // A refused name ended the run with an error: no file under another name
  // at stop.
  if (refused_) return false;
  if (!first_time_) first_time_.reset(g_date_time_new_now_utc());
  // A rotated file gets a name of its own, never one already taken, and not
  // another element's file.
  std::string path = rotating ? names_.next(files_written_, first_time_.get()) : options_.location;
  if (rotating && options_.may_write && !options_.may_write(path)) {
    failed_path_ = path;
    refused_ = true;
    return false;
  }
  LogInfo info;
  info.version = options_.version;
  info.width = options_.width;
  info.height = options_.height;
  info.subsample = options_.subsample;
  info.provenance = options_.provenance;
  // As the whole log: frames scored (this file's) per second of scoring.
  const unsigned frames = end_frame - (has_frames_ ? first_frame_ : end_frame);
  info.frame_count = rotating ? frames : end_frame;
  const double seconds = std::chrono::duration<double>(
                             scoring_time - (rotating ? scoring_time_at_start_
                                                      : std::chrono::steady_clock::duration{}))
                             .count();
  info.fps = seconds > 0 ? info.frame_count / seconds : 0.0;

  body_.flush();
  const bool body_ok = static_cast<bool>(body_);
  bool written = false;
  if (!body_ok)
    failed_cause_ = output::cannot_write(
        path, "its frames' entries could not be written to a scratch file (is the disk full?)");
  if (body_ok) {
    try {
      output::write_output(path, [&](std::ostream& out) {
        stream_->write_head(out, names, info);
        body_.seekg(0);
        if (stream_->frames_written() > 0) out << body_.rdbuf();
        stream_->write_tail(out, names, pools_, aggregates);
      });
      written = true;
    } catch (const Error& error) {
      GST_WARNING("%s", error.what());
      failed_cause_ = error.what();
    }
  }
  body_.close();
  if (!written) {
    failed_path_ = path;
    return false;
  }
  ++files_written_;
  last_path_ = path;
  return true;
}

bool StreamedLog::finish(unsigned frames_pushed, const std::vector<std::string>& names,
                         const std::vector<std::pair<std::string, double>>& aggregates,
                         std::chrono::steady_clock::duration scoring_time) {
  return write_file(frames_pushed, names, aggregates, scoring_time);
}

}  // namespace vmafexact::gst
