// The progress line on standard error: frames scored (of the frames expected
// from the inputs' durations), frames per second, the running mean of VMAF (or
// of the first score without a model) and the time left, redrawn in place.
// Drawn only when standard error is a terminal, unless forced on or off.
#pragma once

#include <gst/gst.h>

#include <chrono>
#include <optional>
#include <string>

namespace vmafexact::cli {

class Progress {
 public:
  // `expected_frames`: frame pairs the inputs should give (none: unknown).
  Progress(bool enabled, std::optional<guint64> expected_frames);
  ~Progress() { clear(); }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;

  bool enabled() const { return enabled_; }
  // A vmafexact-frame message: counts it and adds its score to the mean.
  void on_frame(const GstStructure* frame);
  // Redraws the line (at most every 100 ms unless `force`).
  void draw(bool force = false);
  // Removes the line, e.g. before another line is printed on standard error.
  void clear();
  // Prints `line` on standard error above the progress line.
  void print(const std::string& line);

 private:
  bool enabled_;
  std::optional<guint64> expected_;
  guint64 frames_ = 0;  // pairs scored: the last index + 1
  std::string score_name_;
  double score_sum_ = 0;
  guint64 score_count_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point drawn_at_{};
  bool shown_ = false;
};

}  // namespace vmafexact::cli
