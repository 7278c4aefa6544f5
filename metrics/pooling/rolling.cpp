#include "pooling/rolling.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <compare>
#include <limits>

#include "common/error.h"

namespace vmafexact {

// ---- Figures --------------------------------------------------------------

std::size_t nearest_rank(std::size_t n, unsigned percent) {
  // Integer arithmetic: ceil(percent * n / 100) without rounding surprises.
  const std::size_t rank = (static_cast<std::uint64_t>(percent) * n + 99) / 100;
  return std::max<std::size_t>(rank, 1);
}

namespace {

// A total order (NaN sorts last), so that sorting never misbehaves.
bool ascending(double a, double b) { return std::strong_order(a, b) < 0; }

}  // namespace

WindowStats window_stats(const std::vector<double>& values) {
  WindowStats stats;
  if (values.empty()) return stats;
  double sum = 0., inverse_sum = 0.;
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double s = values[i];
    sum += s;
    inverse_sum += 1. / (s + 1.);
    if (i == 0 || s < stats.min) stats.min = s;
    if (i == 0 || s > stats.max) stats.max = s;
  }
  const double n = static_cast<double>(values.size());
  stats.mean = sum / n;
  stats.harmonic_mean = n / inverse_sum - 1.0;

  std::vector<double> sorted = values;
  std::sort(sorted.begin(), sorted.end(), ascending);
  const auto at_rank = [&](unsigned percent) { return sorted[nearest_rank(sorted.size(), percent) - 1]; };
  const auto low_mean = [&](unsigned percent) {
    const std::size_t count = nearest_rank(sorted.size(), percent);
    double low_sum = 0.;
    for (std::size_t i = 0; i < count; ++i) low_sum += sorted[i];
    return low_sum / static_cast<double>(count);
  };
  stats.p1 = at_rank(1);
  stats.p5 = at_rank(5);
  stats.p50 = at_rank(50);
  stats.low1_mean = low_mean(1);
  stats.low5_mean = low_mean(5);
  return stats;
}

// ---- Whole-stream percentiles ---------------------------------------------

namespace {

const double kGamma = (1. + StreamQuantiles::kRelativeError) / (1. - StreamQuantiles::kRelativeError);
const double kLogGamma = std::log(kGamma);

int bucket_of(double magnitude) { return static_cast<int>(std::ceil(std::log(magnitude) / kLogGamma)); }
double bucket_value(int bucket) { return 2. * std::pow(kGamma, bucket) / (kGamma + 1.); }

}  // namespace

void StreamQuantiles::add(double value) {
  ++count_;
  if (!sketched_) {
    exact_.push_back(value);
    if (exact_.size() <= exact_limit_) return;
    // Past the limit: the kept values move into the histogram, for good.
    sketched_ = true;
    for (const double kept : exact_) add_to_sketch(kept);
    std::vector<double>().swap(exact_);
    return;
  }
  add_to_sketch(value);
}

void StreamQuantiles::add_to_sketch(double value) {
  if (std::isnan(value)) value = std::numeric_limits<double>::max();  // sorts last, as in exact mode
  const double magnitude = std::min(std::fabs(value), std::numeric_limits<double>::max());
  if (magnitude <= kZeroLimit)
    ++zeros_;
  else
    ++(value < 0 ? negative_ : positive_)[bucket_of(magnitude)];
}

std::pair<double, double> StreamQuantiles::sketch_rank(std::uint64_t rank) const {
  std::uint64_t remaining = rank;
  double sum = 0.;
  double value = 0.;
  const auto take = [&](double bucket_value_here, std::uint64_t count) {
    const std::uint64_t taken = std::min(count, remaining);
    sum += bucket_value_here * static_cast<double>(taken);
    remaining -= taken;
    value = bucket_value_here;
    return remaining == 0;
  };
  // Ascending: the most negative first, then zeros, then the positives.
  for (auto it = negative_.rbegin(); it != negative_.rend(); ++it)
    if (take(-bucket_value(it->first), it->second)) return {value, sum};
  if (zeros_ && take(0., zeros_)) return {value, sum};
  for (const auto& [bucket, count] : positive_)
    if (take(bucket_value(bucket), count)) return {value, sum};
  return {value, sum};
}

std::optional<StreamQuantiles::Figures> StreamQuantiles::figures() const {
  if (count_ == 0) return std::nullopt;
  Figures figures;
  if (!sketched_) {
    const WindowStats stats = window_stats(exact_);
    figures = {stats.p1, stats.p5, stats.p50, stats.low1_mean, stats.low5_mean};
    return figures;
  }
  const auto rank = [&](unsigned percent) { return nearest_rank(count_, percent); };
  figures.p1 = sketch_rank(rank(1)).first;
  figures.p5 = sketch_rank(rank(5)).first;
  figures.p50 = sketch_rank(rank(50)).first;
  figures.low1_mean = sketch_rank(rank(1)).second / static_cast<double>(rank(1));
  figures.low5_mean = sketch_rank(rank(5)).second / static_cast<double>(rank(5));
  return figures;
}

// ---- Parsers --------------------------------------------------------------

namespace {

std::string_view trim(std::string_view text) {
  const auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!text.empty() && space(text.front())) text.remove_prefix(1);
  while (!text.empty() && space(text.back())) text.remove_suffix(1);
  return text;
}

// Quoted for error messages; control characters and long inputs kept readable.
std::string quoted(std::string_view text) {
  std::string out = "'";
  for (const char c : text.substr(0, 80)) out += (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) ? '?' : c;
  if (text.size() > 80) out += "...";
  return out + "'";
}

std::optional<double> parse_number(std::string_view text) {
  text = trim(text);
  if (text.empty()) return std::nullopt;
  if (text.front() == '+') text.remove_prefix(1);
  double value = 0.;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value))
    return std::nullopt;
  return value;
}

}  // namespace

std::optional<Span> parse_span(std::string_view text, std::string_view property,
                               bool frames_allowed) {
  const std::string_view given = trim(text);
  if (given.empty()) return std::nullopt;
  const std::string fix =
      frames_allowed
          ? "write a number and a unit: 10s, 500ms, 1.5s, 1m, 1h, 250us, 100ns, or 300f for 300 frames"
          : "write a number and a unit: 10s, 500ms, 1.5s, 1m, 1h, 250us or 100ns";
  const std::string where = std::string(property) + ": " + quoted(given) + " ";
  std::size_t digits = 0;
  while (digits < given.size() &&
         ((given[digits] >= '0' && given[digits] <= '9') || given[digits] == '.'))
    ++digits;
  const std::string_view number = given.substr(0, digits);
  const std::string_view unit = trim(given.substr(digits));
  if (number.empty()) throw Error(where + "does not start with a number; " + fix);
  struct UnitScale {
    std::string_view name;
    double nanoseconds;
  };
  static constexpr UnitScale kUnits[] = {{"ns", 1.}, {"us", 1e3}, {"ms", 1e6}, {"s", 1e9},
                                         {"m", 60e9}, {"min", 60e9}, {"h", 3600e9}};
  if (unit == "f") {
    if (!frames_allowed) throw Error(where + "is a number of frames, but a duration is needed; " + fix);
    std::uint64_t frames = 0;
    const auto [end, error] = std::from_chars(number.data(), number.data() + number.size(), frames);
    if (error != std::errc() || end != number.data() + number.size())
      throw Error(where + "is not a whole number of frames; " + fix);
    if (frames == 0) throw Error(where + "is zero frames; it must be at least 1f");
    return Span{Span::Unit::kFrames, frames};
  }
  for (const auto& [name, scale] : kUnits) {
    if (unit != name) continue;
    const auto value = parse_number(number);
    if (!value) throw Error(where + "has a malformed number; " + fix);
    const double nanoseconds = std::round(*value * scale);
    // At most about 100 years, so that running times cannot overflow.
    if (nanoseconds < 1. || nanoseconds > 3.2e18)
      throw Error(where + "is out of range; it must be at least 1ns and at most 100 years");
    return Span{Span::Unit::kTime, static_cast<std::uint64_t>(nanoseconds)};
  }
  if (unit.empty()) throw Error(where + "has no unit; " + fix);
  throw Error(where + "has an unknown unit " + quoted(unit) + "; " + fix);
}

bool compare(Compare op, double value, double threshold) {
  switch (op) {
    case Compare::kLess: return value < threshold;
    case Compare::kLessEqual: return value <= threshold;
    case Compare::kGreater: return value > threshold;
    case Compare::kGreaterEqual: return value >= threshold;
  }
  return false;
}

std::vector<AlertSpec> parse_alerts(std::string_view text) {
  std::vector<AlertSpec> alerts;
  const std::string fix =
      "write alerts as SCORE OP VALUE[:for=DURATION|Nf][:clear=VALUE][:on=frame|window], OP one "
      "of <, <=, >, >=, separated by ';' (e.g. vmaf<60:for=2s:clear=65;psnr_y<30)";
  std::size_t begin = 0;
  while (begin <= text.size()) {
    const std::size_t semicolon = std::min(text.find(';', begin), text.size());
    const std::string_view entry = trim(text.substr(begin, semicolon - begin));
    begin = semicolon + 1;
    if (entry.empty()) continue;  // "a;b;" and surrounding spaces
    const std::string where = "alert " + quoted(entry) + " ";
    AlertSpec alert;
    alert.text = std::string(entry);
    const std::size_t colon = std::min(entry.find(':'), entry.size());
    const std::string_view condition = trim(entry.substr(0, colon));
    const std::size_t op_at = condition.find_first_of("<>");
    if (op_at == std::string_view::npos)
      throw Error(where + "has no comparison (<, <=, >, >=); " + fix);
    alert.score = std::string(trim(condition.substr(0, op_at)));
    if (alert.score.empty()) throw Error(where + "names no score before the comparison; " + fix);
    for (const char c : alert.score)
      if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.' || c == '-'))
        throw Error(where + "has the score name " + quoted(alert.score) +
                    " with a character a score name cannot have; " + fix);
    std::string_view rest = condition.substr(op_at);
    const bool or_equal = rest.size() > 1 && rest[1] == '=';
    alert.op = rest[0] == '<' ? (or_equal ? Compare::kLessEqual : Compare::kLess)
                              : (or_equal ? Compare::kGreaterEqual : Compare::kGreater);
    rest.remove_prefix(or_equal ? 2 : 1);
    const auto threshold = parse_number(rest);
    if (!threshold)
      throw Error(where + "has the threshold " + quoted(trim(rest)) + ", which is not a number; " + fix);
    alert.threshold = alert.clear = *threshold;
    bool have_for = false, have_clear = false, have_on = false;
    std::string_view clear_text;
    std::string_view options = colon < entry.size() ? entry.substr(colon + 1) : std::string_view{};
    while (colon < entry.size()) {
      const std::size_t next = std::min(options.find(':'), options.size());
      const std::string_view option = trim(options.substr(0, next));
      const std::size_t equals = option.find('=');
      const std::string_view key = trim(option.substr(0, equals));
      const std::string_view value =
          equals == std::string_view::npos ? std::string_view{} : trim(option.substr(equals + 1));
      if (equals == std::string_view::npos || value.empty())
        throw Error(where + "has the option " + quoted(option) + " without a value; " + fix);
      if (key == "for") {
        if (have_for) throw Error(where + "gives for= twice; keep one");
        have_for = true;
        alert.hold = parse_span(value, "alert " + quoted(entry) + " for=");
      } else if (key == "clear") {
        if (have_clear) throw Error(where + "gives clear= twice; keep one");
        have_clear = true;
        clear_text = value;
        const auto clear = parse_number(value);
        if (!clear) throw Error(where + "has clear=" + quoted(value) + ", which is not a number; " + fix);
        alert.clear = *clear;
      } else if (key == "on") {
        if (have_on) throw Error(where + "gives on= twice; keep one");
        have_on = true;
        if (value != "window" && value != "frame")
          throw Error(where + "has on=" + quoted(value) + "; write on=frame (each frame's value, "
                      "the default) or on=window (each window's mean)");
        alert.on_window = value == "window";
      } else {
        throw Error(where + "has the unknown option " + quoted(key) + "; " + fix);
      }
      if (next == options.size()) break;
      options.remove_prefix(next + 1);
    }
    // Hysteresis must lie on the far side of the threshold, or the alert would
    // clear before it could be raised.
    const bool below = alert.op == Compare::kLess || alert.op == Compare::kLessEqual;
    if (below ? alert.clear < alert.threshold : alert.clear > alert.threshold)
      throw Error(where + "has clear=" + quoted(clear_text) +
                  " on the wrong side of its threshold; for " +
                  (below ? "'<' or '<=' the clear value must be at least"
                         : "'>' or '>=' the clear value must be at most") +
                  " the threshold (e.g. vmaf<60:clear=65)");
    alerts.push_back(std::move(alert));
  }
  return alerts;
}

// ---- Rolling windows ------------------------------------------------------

std::string span_text(const Span& span) {
  if (span.unit == Span::Unit::kFrames) return std::to_string(span.amount) + "f";
  struct UnitScale {
    const char* name;
    std::uint64_t nanoseconds;
  };
  static constexpr UnitScale kUnits[] = {
      {"s", 1'000'000'000}, {"ms", 1'000'000}, {"us", 1'000}, {"ns", 1}};
  for (const auto& [name, scale] : kUnits)
    if (span.amount % scale == 0) return std::to_string(span.amount / scale) + name;
  return std::to_string(span.amount) + "ns";  // not reached: every amount is whole ns
}

namespace {

// `amount` rounded up to at most two significant digits (1234567 -> 1300000),
// for a suggestion that reads well.
std::uint64_t round_up_two_digits(std::uint64_t amount) {
  std::uint64_t scale = 1;
  while (amount / scale >= 100) scale *= 10;
  return (amount + scale - 1) / scale * scale;
}

}  // namespace

void check_window_step(const Span& window, const Span& step) {
  if (window.unit != step.unit)
    throw Error("window and window-step must both be durations or both numbers of frames");
  if (step.amount >= window.amount) return;  // tumbling or apart: a frame is in one window at most
  const std::uint64_t overlapping = (window.amount + step.amount - 1) / step.amount;
  const bool timed = window.unit == Span::Unit::kTime;
  const std::uint64_t shortest = std::max<std::uint64_t>(
      round_up_two_digits((window.amount + kMaxOverlappingWindows - 1) / kMaxOverlappingWindows),
      timed ? kMinTimeStep : 1);
  if (step.amount >= shortest) return;
  const std::string limit =
      "at most " + std::to_string(kMaxOverlappingWindows) + " may overlap" +
      (timed ? " and a step must be at least " + span_text({Span::Unit::kTime, kMinTimeStep})
             : std::string());
  throw Error("window-step=" + span_text(step) + " opens " + std::to_string(overlapping) +
              " overlapping windows per window=" + span_text(window) + "; " + limit +
              ": use window-step=" + span_text({window.unit, shortest}) +
              " or more (or a shorter window)");
}

void check_window_length(const Span& window) {
  if (window.unit != Span::Unit::kFrames || window.amount <= kMaxWindowFrames) return;
  throw Error("window=" + span_text(window) + " holds more frames than a window may; at most " +
              std::to_string(kMaxWindowFrames) + " frames (2 MiB per score): use window=" +
              span_text({Span::Unit::kFrames, kMaxWindowFrames}) + " or less");
}

RollingWindows::RollingWindows(Span window, Span step) : window_(window), step_(step) {
  check_window_step(window, step);
  check_window_length(window);
}

void RollingWindows::note_time(std::optional<Nanoseconds> time) {
  if (!time) return;
  if (!next_start_) next_start_ = *time;
  seen_until_ = std::max(seen_until_, *time);
}

void RollingWindows::pair_pushed(std::optional<Nanoseconds> running_time) {
  if (window_.unit != Span::Unit::kTime || !running_time) return;
  pending_.push_back(*running_time);
  // The grid starts at the first event, and a pushed pair is one: pairs skipped
  // after it while it is scored must not start the windows past its frame.
  if (!next_start_) next_start_ = *running_time;
}

namespace {

std::optional<Nanoseconds> end_of(std::optional<Nanoseconds> time, std::optional<Nanoseconds> duration) {
  if (!time) return std::nullopt;
  return *time + duration.value_or(0);
}

void add_stats(WindowReport& report, const std::vector<const std::vector<std::optional<double>>*>& frames) {
  std::size_t scores = 0;
  for (const auto* frame : frames) scores = std::max(scores, frame->size());
  report.stats.assign(scores, std::nullopt);
  std::vector<double> values;
  for (std::size_t s = 0; s < scores; ++s) {
    values.clear();
    for (const auto* frame : frames)
      if (s < frame->size() && (*frame)[s]) values.push_back(*(*frame)[s]);
    if (!values.empty()) report.stats[s] = window_stats(values);
  }
}

void widen(WindowReport& report, std::optional<Nanoseconds> start, std::optional<Nanoseconds> end) {
  if (start && (!report.start || *start < *report.start)) report.start = start;
  if (end && (!report.end || *end > *report.end)) report.end = end;
}

}  // namespace

std::vector<WindowReport> RollingWindows::add_frame(std::optional<Nanoseconds> running_time,
                                                    std::optional<Nanoseconds> duration,
                                                    std::vector<std::optional<double>> scores) {
  Frame frame{running_time, end_of(running_time, duration), std::move(scores), {}};
  if (window_.unit == Span::Unit::kTime) {
    if (!running_time) return {};  // untimed frames have no place in time windows
    while (!pending_.empty() && pending_.front() <= *running_time) pending_.pop_front();
    note_time(running_time);
    last_end_ = std::max(last_end_, *frame.end);
    if (held_in_time_windows(*running_time)) frames_.push_back(std::move(frame));
    Nanoseconds known = seen_until_;
    if (!pending_.empty()) known = std::min(known, pending_.front());
    std::vector<WindowReport> reports = close_time_windows(known);
    cut_full_windows(known, reports);
    return reports;
  }
  // Frame windows: unpaired frames before this one (by running time) count
  // with it, and the oldest, folded ones.
  for (unsigned kind = 0; kind < folded_.size(); ++kind)
    frame.unscored_before[kind] += folded_[kind];
  folded_ = {};
  folded_start_.reset();
  folded_end_.reset();
  while (!unscored_.empty() &&
         (!running_time || !unscored_.front().running_time ||
          *unscored_.front().running_time < *running_time)) {
    ++frame.unscored_before[static_cast<unsigned>(unscored_.front().kind)];
    unscored_.pop_front();
  }
  const std::uint64_t index = next_index_++;
  // Frames between windows (a step longer than the window) belong to none.
  const std::uint64_t window_begin = first_index_;
  if (index >= window_begin && index < window_begin + window_.amount) frames_.push_back(std::move(frame));
  std::vector<WindowReport> reports;
  if (next_index_ == window_begin + window_.amount) {
    reports.push_back(frame_window(false));
    first_index_ += step_.amount;
    const std::uint64_t drop = std::min<std::uint64_t>(step_.amount, frames_.size());
    frames_.erase(frames_.begin(), frames_.begin() + static_cast<std::ptrdiff_t>(drop));
  }
  return reports;
}

std::vector<WindowReport> RollingWindows::add_unscored(Unscored kind,
                                                       std::optional<Nanoseconds> running_time,
                                                       std::optional<Nanoseconds> duration) {
  unscored_.push_back({kind, running_time, end_of(running_time, duration)});
  if (window_.unit != Span::Unit::kTime) {
    if (unscored_.size() > kMaxHeldMarks) fold_oldest_mark();
    return {};
  }
  if (!running_time) {
    unscored_.pop_back();  // untimed frames have no place in time windows
    return {};
  }
  note_time(running_time);
  last_end_ = std::max(last_end_, *unscored_.back().end);
  if (!held_in_time_windows(*running_time)) unscored_.pop_back();
  Nanoseconds known = seen_until_;
  if (!pending_.empty()) known = std::min(known, pending_.front());
  std::vector<WindowReport> reports = close_time_windows(known);
  cut_full_windows(known, reports);
  return reports;
}

void RollingWindows::fold_oldest_mark() {
  const UnscoredMark& mark = unscored_.front();
  ++folded_[static_cast<unsigned>(mark.kind)];
  if (mark.running_time && (!folded_start_ || *mark.running_time < *folded_start_))
    folded_start_ = mark.running_time;
  if (mark.end && (!folded_end_ || *mark.end > *folded_end_)) folded_end_ = mark.end;
  unscored_.pop_front();
}

WindowReport RollingWindows::time_window(Nanoseconds start, Nanoseconds end, bool partial) const {
  WindowReport report;
  report.partial = partial;
  report.truncated = cut_;
  std::vector<const std::vector<std::optional<double>>*> in_window;
  for (const Frame& frame : frames_)
    if (*frame.running_time >= start && *frame.running_time < end) {
      in_window.push_back(&frame.scores);
      ++report.frames;
      widen(report, frame.running_time, frame.end);
    }
  for (const UnscoredMark& mark : unscored_)
    if (*mark.running_time >= start && *mark.running_time < end) {
      ++report.count(mark.kind);
      widen(report, mark.running_time, mark.end);
    }
  add_stats(report, in_window);
  return report;
}

std::vector<WindowReport> RollingWindows::close_time_windows(Nanoseconds known_until) {
  std::vector<WindowReport> reports;
  while (next_start_ && *next_start_ + window_.amount <= known_until) {
    const Nanoseconds start = *next_start_;
    WindowReport report = time_window(start, start + window_.amount, false);
    if (!report.empty()) reports.push_back(std::move(report));
    advance_time_window(start, known_until);
  }
  return reports;
}

void RollingWindows::advance_time_window(Nanoseconds start, Nanoseconds known_until) {
  Nanoseconds next = start + step_.amount;
  // Drop what no later window holds (also frames that came out of order),
  // then skip windows that would be empty.
  std::erase_if(frames_, [&](const Frame& frame) { return *frame.running_time < next; });
  std::erase_if(unscored_, [&](const UnscoredMark& mark) { return *mark.running_time < next; });
  std::optional<Nanoseconds> earliest;
  for (const Frame& frame : frames_)
    earliest = std::min(earliest.value_or(*frame.running_time), *frame.running_time);
  for (const UnscoredMark& mark : unscored_)
    earliest = std::min(earliest.value_or(*mark.running_time), *mark.running_time);
  if (!earliest) {
    // Nothing held: the next event starts the windows again on this grid.
    if (known_until >= next + window_.amount)
      next += ((known_until - next - window_.amount) / step_.amount + 1) * step_.amount;
  } else if (*earliest >= next + window_.amount) {
    next += ((*earliest - next - window_.amount) / step_.amount + 1) * step_.amount;
  }
  next_start_ = next;
  cut_ = false;
}

void RollingWindows::cut_full_windows(Nanoseconds known_until, std::vector<WindowReport>& reports) {
  while (next_start_ && frames_held() >= kMaxWindowFrames) {
    const Nanoseconds start = *next_start_;
    const Nanoseconds end = start + window_.amount;
    WindowReport report = time_window(start, end, false);
    report.truncated = true;
    const bool holds = !report.empty();
    if (holds) reports.push_back(std::move(report));
    if (holds && step_.amount >= window_.amount) {
      // No later window holds these frames: the rest of this window comes
      // after them, as a window of its own.
      std::erase_if(frames_, [&](const Frame& frame) { return *frame.running_time < end; });
      std::erase_if(unscored_, [&](const UnscoredMark& mark) { return *mark.running_time < end; });
      cut_ = true;
    } else {
      // The later windows hold the frames after the cut.
      advance_time_window(start, known_until);
    }
  }
}

WindowReport RollingWindows::frame_window(bool partial) const {
  WindowReport report;
  report.partial = partial;
  std::vector<const std::vector<std::optional<double>>*> in_window;
  for (const Frame& frame : frames_) {
    in_window.push_back(&frame.scores);
    ++report.frames;
    for (unsigned kind = 0; kind < frame.unscored_before.size(); ++kind)
      report.count(static_cast<Unscored>(kind)) += frame.unscored_before[kind];
    widen(report, frame.running_time, frame.end);
  }
  add_stats(report, in_window);
  return report;
}

std::vector<WindowReport> RollingWindows::finish() {
  std::vector<WindowReport> reports;
  if (window_.unit == Span::Unit::kTime) {
    pending_.clear();
    reports = close_time_windows(last_end_);
    if (next_start_) {
      WindowReport last =
          time_window(*next_start_, std::numeric_limits<Nanoseconds>::max(), true);
      if (!last.empty()) reports.push_back(std::move(last));
    }
    frames_.clear();
    unscored_.clear();
    next_start_.reset();
    cut_ = false;
    return reports;
  }
  // Frame windows: unpaired frames after the last scored frame count in the partial window.
  WindowReport last = frame_window(true);
  bool folded = false;
  for (unsigned kind = 0; kind < folded_.size(); ++kind) {
    last.count(static_cast<Unscored>(kind)) += folded_[kind];
    folded |= folded_[kind] > 0;
  }
  widen(last, folded_start_, folded_end_);
  for (const UnscoredMark& mark : unscored_) {
    ++last.count(mark.kind);
    widen(last, mark.running_time, mark.end);
  }
  const bool has_new_frames = next_index_ > first_index_ && !frames_.empty();
  if (has_new_frames || !unscored_.empty() || folded) reports.push_back(std::move(last));
  frames_.clear();
  unscored_.clear();
  folded_ = {};
  folded_start_.reset();
  folded_end_.reset();
  return reports;
}

std::optional<WindowReport> RollingWindows::current() const {
  WindowReport report;
  if (window_.unit == Span::Unit::kTime) {
    if (!next_start_) return std::nullopt;
    report = time_window(*next_start_, std::numeric_limits<Nanoseconds>::max(), true);
  } else {
    report = frame_window(true);
  }
  if (!report.frames) return std::nullopt;
  return report;
}

// ---- Alerts ---------------------------------------------------------------

std::optional<AlertChange> AlertState::update(double value, std::optional<Nanoseconds> start,
                                              std::optional<Nanoseconds> end, std::uint64_t frames) {
  const AlertSpec& spec = *spec_;
  if (raised_) {
    if (compare(spec.op, value, spec.clear)) return std::nullopt;
    raised_ = holding_ = false;
    return AlertChange{false, value, spec.clear};
  }
  if (!compare(spec.op, value, spec.threshold)) {
    holding_ = false;
    return std::nullopt;
  }
  if (!holding_) {
    holding_ = true;
    onset_ = start;
    onset_frames_ = 0;
  }
  onset_frames_ += frames;
  bool held = true;
  if (spec.hold && spec.hold->unit == Span::Unit::kFrames) held = onset_frames_ >= spec.hold->amount;
  // Without timestamps a duration cannot be measured: such frames hold at once.
  if (spec.hold && spec.hold->unit == Span::Unit::kTime && onset_ && end)
    held = *end >= *onset_ && *end - *onset_ >= spec.hold->amount;
  if (!held) return std::nullopt;
  raised_ = true;
  return AlertChange{true, value, spec.threshold};
}

}  // namespace vmafexact
