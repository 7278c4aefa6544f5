// The score log of a run, streamed: each final frame's entry is written at
// once to a body file, and at end of stream (or when the log rotates) the
// complete log — head, entries, pooled and aggregate blocks — is assembled in
// a temporary file beside the target and renamed into place. Memory stays
// bounded for a run of any length, and the file equals the log written the
// old way (whole, from every frame's scores) byte for byte.
//
// The body file is created beside the target (beside a symlink's final
// target; for a device or FIFO in the temporary folder) and unlinked at once:
// the process holds it open, so a crash or a kill leaves nothing behind (the
// kernel frees it), and the target keeps its previous content until the
// rename. Only while a finished log is assembled does a named temporary file
// (".NAME.vmafexact.HOST.PID.XXXXXX") exist beside the target. The log is
// written through metrics/output/output_file.h: a device or FIFO in place.
#pragma once

#include <gst/gst.h>

#include <chrono>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "output/log_stream.h"
#include "pooling/pooling.h"
#include "rotated_names.h"

namespace vmafexact::gst {

// log-rotate: a new log file every so many frames or so much time.
struct LogRotation {
  enum class Kind { kNone, kFrames, kDuration };
  Kind kind = Kind::kNone;
  guint64 frames = 0;         // kFrames: input frames per file
  GstClockTime duration = 0;  // kDuration: running time per file
};

// Parses "" (no rotation), "N" followed by s, m, h or d (a duration) or by
// "frames" (a frame count), e.g. "1h", "30m", "90s", "100000frames". Throws
// vmafexact::Error naming the problem.
LogRotation parse_log_rotation(std::string_view text);

class StreamedLog {
 public:
  struct Options {
    std::string location;  // the file, or with rotation the pattern of the files
    LogFormat format = LogFormat::kJson;
    LogPrecision precision = LogPrecision::kDefault;
    LogRotation rotation;
    std::string version;
    std::vector<std::pair<std::string, std::string>> provenance;  // as text
    unsigned width = 0, height = 0, subsample = 1;
    // With rotation: whether a rotated file may be written at `path` (no
    // other element's file); false after the caller posted why.
    std::function<bool(const std::string& path)> may_write;
  };
  // Opens the body file beside the location; throws vmafexact::Error naming
  // the file when it cannot.
  explicit StreamedLog(Options options);

  // One final frame, in order (frames on the subsample grid): its scores in
  // the collector's names() order. `names`: every name known now (a rotated
  // file's CSV header); `scoring_time`: the run's scoring time so far.
  // Rotates first when due. False when a rotated file could not be written
  // (failed_path() names it).
  bool add_frame(unsigned index, const std::vector<std::pair<std::string, double>>& scores,
                 GstClockTime running_time, const std::vector<std::string>& names,
                 std::chrono::steady_clock::duration scoring_time);

  // End of stream: the last (or only) file, with the aggregates. False when
  // it could not be written; the target then keeps its previous content.
  bool finish(unsigned frames_pushed, const std::vector<std::string>& names,
              const std::vector<std::pair<std::string, double>>& aggregates,
              std::chrono::steady_clock::duration scoring_time);

  const std::string& failed_path() const { return failed_path_; }
  // Why it failed: the writer's error text ("cannot write PATH: CAUSE").
  const std::string& failed_cause() const { return failed_cause_; }
  unsigned files_written() const { return files_written_; }
  // The last failure was may_write's refusal (already reported).
  bool refused() const { return refused_; }

 private:
  void open_body();
  bool write_file(unsigned end_frame, const std::vector<std::string>& names,
                  const std::vector<std::pair<std::string, double>>& aggregates,
                  std::chrono::steady_clock::duration scoring_time);

  Options options_;
  // This file's part of the stream.
  std::fstream body_;
  std::optional<LogStream> stream_;
  RunningPools pools_;
  unsigned first_frame_ = 0;  // index of the part's first frame
  bool has_frames_ = false;
  GstClockTime first_running_time_ = GST_CLOCK_TIME_NONE;
  std::chrono::steady_clock::time_point first_wall_{};
  std::chrono::steady_clock::duration scoring_time_at_start_{};
  std::unique_ptr<GDateTime, decltype(&g_date_time_unref)> first_time_{nullptr, g_date_time_unref};
  unsigned files_written_ = 0;
  std::string failed_path_;
  std::string failed_cause_;
  bool refused_ = false;
  RotatedNames names_{options_.location};  // rotated files' names, never one taken
  std::string last_path_;  // the file written last
};

}  // namespace vmafexact::gst
