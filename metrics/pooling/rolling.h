// Live monitoring statistics, with no GStreamer types: the figures of a window
// of per-frame scores (libvmaf's pooling plus percentiles), whole-stream
// percentiles in bounded memory, rolling windows over running time or frame
// counts, the parsers of the window, alert and timeout properties, and the
// alert state machine. The element (gst/monitor.h) only turns these into
// messages.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vmafexact {

using Nanoseconds = std::uint64_t;

// ---- Figures of a set of values -------------------------------------------

struct WindowStats {
  double min = 0., max = 0.;
  double mean = 0., harmonic_mean = 0.;  // libvmaf's: plain sums in frame order
  double p1 = 0., p5 = 0., p50 = 0.;     // nearest rank on the sorted values
  double low1_mean = 0., low5_mean = 0.;  // mean of the lowest 1 % / 5 % (at least one)
};

// The nearest rank (1-based) of `percent` among n values: ceil(percent * n / 100),
// at least 1. p50 of 4 values is the 2nd smallest, p1 of 250 the 3rd.
std::size_t nearest_rank(std::size_t n, unsigned percent);

// The figures of `values` (in frame order, not empty). min/max/mean/harmonic
// mean exactly as libvmaf's vmaf_feature_score_pooled(); pN = the value of
// nearest rank N on the values sorted ascending; lowN_mean = the sum, in
// ascending order, of the nearest_rank(n, N) smallest values, divided by
// their count.
WindowStats window_stats(const std::vector<double>& values);

// Percentiles of one score over a whole stream in bounded memory: exact (the
// values kept and sorted) up to `exact_limit` values; past it every value goes
// into a log-bucketed histogram (DDSketch's): a value x with |x| > kZeroLimit
// falls in bucket i = ceil(log(|x|) / log(gamma)), gamma = (1 + a) / (1 - a),
// a = kRelativeError, and stands for 2 gamma^i / (gamma + 1), within a of x
// relative to |x|; |x| <= kZeroLimit counts as 0. So each percentile is within
// a (0.5 %) of a value of the right rank, and lowN_mean within a of the mean
// of the right values (when they share a sign). At most one bucket per
// distinct power of gamma: about 4,200 for values from 1e-9 to 1e9.
class StreamQuantiles {
 public:
  static constexpr std::size_t kExactLimit = std::size_t{1} << 18;  // 2 MiB of doubles
  static constexpr double kRelativeError = 0.005;
  static constexpr double kZeroLimit = 1e-12;

  explicit StreamQuantiles(std::size_t exact_limit = kExactLimit) : exact_limit_(exact_limit) {}
  void add(double value);
  std::uint64_t count() const { return count_; }
  bool exact() const { return !sketched_; }

  struct Figures {
    double p1 = 0., p5 = 0., p50 = 0., low1_mean = 0., low5_mean = 0.;
  };
  std::optional<Figures> figures() const;  // nullopt without values

 private:
  void add_to_sketch(double value);
  // The value of rank k (1-based) and the sum of the k smallest, from the sketch.
  std::pair<double, double> sketch_rank(std::uint64_t rank) const;

  std::size_t exact_limit_;
  std::uint64_t count_ = 0;
  bool sketched_ = false;
  std::vector<double> exact_;
  std::map<int, std::uint64_t> positive_, negative_;  // bucket index -> count
  std::uint64_t zeros_ = 0;
};

// ---- Property parsers (throw vmafexact::Error naming the bad part and the fix) ----

// A window length or step: a duration or a number of frames.
struct Span {
  enum class Unit { kTime, kFrames };
  Unit unit = Unit::kTime;
  std::uint64_t amount = 0;  // nanoseconds or frames, more than 0
  bool operator==(const Span&) const = default;
};

// "10s", "500ms", "1.5s", "1m", "1h", "250us", "100ns", or "300f" (frames).
// Empty: nullopt (off). `property` names the property in errors.
std::optional<Span> parse_span(std::string_view text, std::string_view property,
                               bool frames_allowed = true);

// A span as the properties write it, in the largest unit that keeps it whole:
// "100ms", "1500ms", "1ns", "300f".
std::string span_text(const Span& span);

// Overlapping windows are bounded: a frame is in at most ceil(window / step)
// windows, so that many may be open at once and may close per frame. With
// step < window, that count is at most kMaxOverlappingWindows and a
// duration step at least kMinTimeStep (so at most 1000 windows close per
// second of running time). Memory, messages and work per frame stay bounded
// whatever the properties.
inline constexpr std::uint64_t kMaxOverlappingWindows = 1000;
inline constexpr std::uint64_t kMinTimeStep = 1'000'000;  // 1 ms

// Throws vmafexact::Error naming the step, the limit and the fix when `step`
// opens too many overlapping windows of `window` (or the units differ).
void check_window_step(const Span& window, const Span& step);

// A window holds at most kMaxWindowFrames frames (scored or not), 2 MiB per
// score as StreamQuantiles::kExactLimit, about 73 minutes at 60 fps: a frame
// window longer than that is refused; a duration window that reaches it
// before its end is posted then, truncated (see RollingWindows).
inline constexpr std::uint64_t kMaxWindowFrames = std::uint64_t{1} << 18;

// Throws vmafexact::Error naming the window, the limit and the fix when a
// frame `window` is longer than kMaxWindowFrames.
void check_window_length(const Span& window);

enum class Compare { kLess, kLessEqual, kGreater, kGreaterEqual };
bool compare(Compare op, double value, double threshold);

struct AlertSpec {
  std::string text;   // the expression as given (trimmed)
  std::string score;  // score name
  Compare op = Compare::kLess;
  double threshold = 0.;
  double clear = 0.;           // hysteresis: cleared once `value op clear` no longer holds
  std::optional<Span> hold;    // for=: how long the condition must hold to raise
  bool on_window = false;      // on=window: evaluated on each window's mean
};

// "vmaf<60:for=2s:clear=65;psnr_y<30;vmaf<=70:on=window", entries separated by ';'.
std::vector<AlertSpec> parse_alerts(std::string_view text);

// ---- Rolling windows ------------------------------------------------------

// What was not scored: a frame of one input without a partner, or a pair that
// a live run skipped because it came too late (the scorer fell behind).
enum class Unscored : unsigned { kRef = 0, kDist = 1, kSkippedPair = 2 };

// One window's figures. `stats` is indexed like the scores given to add_frame()
// (a score without values in the window: nullopt).
struct WindowReport {
  std::optional<Nanoseconds> start, end;
  std::uint64_t frames = 0, unpaired_ref = 0, unpaired_dist = 0, skipped = 0;
  std::vector<std::optional<WindowStats>> stats;
  bool partial = false;
  // A duration window cut at kMaxWindowFrames: it holds less than its span.
  bool truncated = false;

  std::uint64_t& count(Unscored kind) {
    return kind == Unscored::kRef ? unpaired_ref : kind == Unscored::kDist ? unpaired_dist : skipped;
  }
  bool empty() const { return !frames && !unpaired_ref && !unpaired_dist && !skipped; }
};

// Windows of scored frames, in running time (duration spans) or in frame
// counts. Memory holds only the frames and unpaired marks of the windows not
// yet posted, at most kMaxWindowFrames of them for duration windows: when the
// oldest open window holds that many before its end, it is posted at once
// with `truncated` set (start and end those of the frames it holds); then,
// with overlap (step < window), the windows go on along the step; without,
// the frames after the cut up to the window's end form the next (truncated)
// window. See docs/element.md ("Rolling windows") for the rules.
class RollingWindows {
 public:
  // Throws vmafexact::Error when check_window_step() or check_window_length()
  // refuses the pair.
  RollingWindows(Span window, Span step);

  // A pair was pushed for scoring; its scores come later through add_frame().
  // Time windows do not close past it before then.
  void pair_pushed(std::optional<Nanoseconds> running_time);
  // A scored frame, in frame order; `scores` indexed by score.
  std::vector<WindowReport> add_frame(std::optional<Nanoseconds> running_time,
                                      std::optional<Nanoseconds> duration,
                                      std::vector<std::optional<double>> scores);
  // A frame of one input that was not scored (`dist`: the distorted input's).
  std::vector<WindowReport> add_unpaired(bool dist, std::optional<Nanoseconds> running_time,
                                         std::optional<Nanoseconds> duration) {
    return add_unscored(dist ? Unscored::kDist : Unscored::kRef, running_time, duration);
  }
  // An unpaired frame or a skipped pair.
  std::vector<WindowReport> add_unscored(Unscored kind, std::optional<Nanoseconds> running_time,
                                         std::optional<Nanoseconds> duration);
  // End of stream: the windows now complete, then one partial window with
  // what is left, if anything.
  std::vector<WindowReport> finish();
  // The window being filled, as it stands (for alerts); nullopt when empty.
  std::optional<WindowReport> current() const;

  // Frame windows: unscored frames held until the next scored frame at most
  // this many; older ones are folded into counts that it takes (an input
  // that sends nothing for months holds a few kB, not a mark a frame).
  static constexpr std::size_t kMaxHeldMarks = 4096;
  std::size_t held_marks() const { return unscored_.size(); }
  // The frames held, scored and unscored: duration windows at most
  // kMaxWindowFrames, frame windows at most the window plus kMaxHeldMarks.
  std::size_t frames_held() const { return frames_.size() + unscored_.size(); }

 private:
  struct Frame {
    std::optional<Nanoseconds> running_time, end;
    std::vector<std::optional<double>> scores;
    // Frame windows: unscored frames just before it, by Unscored kind.
    std::array<std::uint64_t, 3> unscored_before{};
  };
  struct UnscoredMark {  // an unpaired frame or a skipped pair
    Unscored kind = Unscored::kRef;
    std::optional<Nanoseconds> running_time, end;
  };
  std::vector<WindowReport> close_time_windows(Nanoseconds known_until);
  // Drops what only the window at `start` held and moves to the next window
  // that can hold anything.
  void advance_time_window(Nanoseconds start, Nanoseconds known_until);
  // Posts the oldest window early while kMaxWindowFrames frames are held.
  void cut_full_windows(Nanoseconds known_until, std::vector<WindowReport>& reports);
  // Holds a time window's event unless no window can hold it any more.
  bool held_in_time_windows(Nanoseconds running_time) const {
    return !next_start_ || running_time >= *next_start_;
  }
  WindowReport time_window(Nanoseconds start, Nanoseconds end, bool partial) const;
  WindowReport frame_window(bool partial) const;
  void note_time(std::optional<Nanoseconds> time);
  void fold_oldest_mark();

  Span window_, step_;
  std::deque<Frame> frames_;
  std::deque<UnscoredMark> unscored_;
  // Time windows: the next window's nominal start, the latest running time seen,
  // the pairs pushed and not yet scored.
  std::optional<Nanoseconds> next_start_;
  Nanoseconds seen_until_ = 0, last_end_ = 0;
  std::deque<Nanoseconds> pending_;
  // The window at next_start_ was cut already: what it holds now is its rest.
  bool cut_ = false;
  // Frame windows: the index of the first frame in frames_ and of the next frame.
  std::uint64_t first_index_ = 0, next_index_ = 0;
  std::uint64_t trailing_unpaired_[2] = {0, 0};
  // Frame windows: the marks folded past kMaxHeldMarks, by Unscored kind, and
  // the running times they spanned.
  std::array<std::uint64_t, 3> folded_{};
  std::optional<Nanoseconds> folded_start_, folded_end_;
};

// ---- Alerts ---------------------------------------------------------------

struct AlertChange {
  bool raised = false;  // else cleared
  double value = 0., threshold = 0.;
};

// One alert's state: raised once its condition has held for `hold`, cleared
// once `value op clear` no longer holds.
class AlertState {
 public:
  explicit AlertState(const AlertSpec& spec) : spec_(&spec) {}
  // A value covering [start, end) in running time and `frames` frames.
  std::optional<AlertChange> update(double value, std::optional<Nanoseconds> start,
                                    std::optional<Nanoseconds> end, std::uint64_t frames);
  bool raised() const { return raised_; }

 private:
  const AlertSpec* spec_;  // owned by the caller, outlives this
  bool raised_ = false;
  bool holding_ = false;
  std::optional<Nanoseconds> onset_;
  std::uint64_t onset_frames_ = 0;
};

}  // namespace vmafexact
