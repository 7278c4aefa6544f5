// The progress line on standard error: frames scored (of the frames expected
// from the inputs' durations; with several encodes, the slowest encode's),
// frames per second, the running mean of VMAF (or of the first score without
// a model; one encode only) and the time left, redrawn in place.
// Drawn only when standard error is a terminal, unless forced on or off.
#pragma once

#include <gst/gst.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace vmafexact::cli {

class Progress {
 public:
  // `expected_frames`: frame pairs the inputs should give (none: unknown).
  Progress(bool enabled, std::optional<guint64> expected_frames, std::size_t encodes = 1);
  ~Progress() { clear(); }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  bool enabled() const { return enabled_; }
  // A vmafexact-frame message of an encode: counts it and adds its score to
  // the mean.
  void on_frame(const GstStructure* frame, std::size_t encode = 0);
  // Redraws the line (at most every 100 ms unless `force`).
  void draw(bool force = false);
  // Removes the line, e.g. before another line is printed on standard error.
  void clear();
  // Prints `line` on standard error above the progress line.
  void print(const std::string& line);

 private:
  bool enabled_;
  std::optional<guint64> expected_;
  std::vector<guint64> frames_;  // per encode, pairs scored: the last index + 1
  guint64 slowest() const;
  std::string score_name_;
  double score_sum_ = 0;
  guint64 score_count_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point drawn_at_{};
  bool shown_ = false;
};

}  // namespace vmafexact::cli
