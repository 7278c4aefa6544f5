// The Bjøntegaard delta rate (BD-rate) of one rate-quality curve against
// another, as current practice computes it (the JCT-VC/JVET CTC sheets, AOM's
// tools, Netflix's vmaf BDrateCalculator): log10(bitrate) as a piecewise cubic
// Hermite (PCHIP, Fritsch-Carlson monotone slopes, SciPy's PchipInterpolator)
// function of quality, integrated exactly over the quality range both curves
// cover; the mean difference d of log10(bitrate) gives (10^d - 1) * 100 %.
// And ladders (several encodes of one reference) compared with it, for the
// vmafexact tool and its report (docs/report.md, "BD-rate"). Pure C++.
#pragma once

#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace vmafexact::report {

struct RatePoint {
  double bitrate;  // bits per second (> 0); messages print it in kb/s
  double quality;  // VMAF, PSNR in dB, ...
};

struct BdRate {
  double percent;      // negative: the test curve needs that much less bitrate for the same quality
  double overlap_low;  // the quality range integrated over
  double overlap_high;
};

// A curve that BD-rate cannot compare (too few points, a non-positive bitrate,
// two points of one quality, quality not rising with bitrate, no overlap). The
// message names the curve and the points and says what to change.
enum class BdRateRefusal {
  too_few_points,  // fewer than kMinBdRatePoints
  not_a_value,     // a bitrate <= 0 or not finite, a quality not finite
  same_quality,    // two points of one quality
  not_rising,      // sorted by quality, bitrate does not rise
  no_overlap,      // the curves' quality ranges do not overlap
};
class BdRateError : public std::runtime_error {
 public:
  BdRateError(BdRateRefusal reason, const std::string& message)
      : std::runtime_error(message), reason_(reason) {}
  BdRateRefusal reason() const { return reason_; }

 private:
  BdRateRefusal reason_;
};

struct NamedCurve {
  std::string_view name;              // as messages name it, e.g. a ladder's name
  std::span<const RatePoint> points;  // any order
};

inline constexpr std::size_t kMinBdRatePoints = 4;

// The BD-rate of `test` against `anchor`; `metric` names the quality in
// messages ("VMAF", "PSNR"). Throws BdRateError.
BdRate bd_rate(NamedCurve anchor, NamedCurve test, std::string_view metric = "quality");

// log10(bitrate) as the PCHIP function of quality through a curve's points.
// Throws BdRateError for the curves bd_rate refuses (the overlap aside).
class LogRateCurve {
 public:
  LogRateCurve(NamedCurve curve, std::string_view metric);
  double quality_low() const { return qualities_.front(); }
  double quality_high() const { return qualities_.back(); }
  // Within [quality_low, quality_high] (clamped to it).
  double log_rate_at(double quality) const;
  // The exact integral of log_rate_at over [from, to] within the curve's range.
  double integral(double from, double to) const;

 private:
  std::vector<double> qualities_;  // strictly rising
  std::vector<double> log_rates_;  // log10(bitrate), strictly rising
  std::vector<double> slopes_;     // d log_rate / d quality at each point
};

// Ladders: encodes of one reference at several bitrates, each scored.
struct LadderPoint {
  std::string encode;  // e.g. the file's name
  double bitrate_bps;  // size * 8 / duration
  double vmaf;         // pooled mean of the model's score
  double psnr_y;       // pooled mean of psnr_y; NaN when not scored
};

struct Ladder {
  std::string name;
  std::vector<LadderPoint> points;  // in the command line's order
};

struct LadderComparison {
  std::string name;
  bool anchor = false;         // the first ladder, which the others are compared with
  std::optional<BdRate> vmaf;  // absent: refused, see vmaf_refusal
  std::optional<BdRate> psnr;
  std::string vmaf_refusal;  // BdRateError's message
  std::string psnr_refusal;
};

// Every ladder against the first (that one marked anchor, without figures).
std::vector<LadderComparison> compare_ladders(const std::vector<Ladder>& ladders);

// The table the tool prints after its summary: ladder, BD-rate VMAF, overlap,
// BD-rate PSNR, overlap; the reasons for refused figures below it.
std::string bd_rate_table_text(const std::vector<LadderComparison>& comparisons);

// Figures as the table prints them: "-12.34 %", "+0.56 %"; ranges "62.10 to 91.23".
std::string format_bd_rate_percent(double percent);
std::string format_overlap(const BdRate& figure);

struct Encode;  // report.h

// An encode of a ladder as BD-rate takes it: its bitrate, the pooled mean of
// its first model's score (else of "vmaf"), the pooled mean of psnr_y (NaN
// where missing). For the tool and `vmafexact report`, which fill Encode.
LadderPoint ladder_point_of(const Encode& encode);

// The HTML section of the report (tools/report/rate_quality.cpp): a heading, the
// BD-rate table (refusals listed under it), for VMAF and PSNR an inline SVG of
// every ladder's points and PCHIP curve (bitrate on a log axis), and the points
// themselves. Empty when there are no ladders.
std::string render_rate_quality_html(const std::vector<Ladder>& ladders);

}  // namespace vmafexact::report
