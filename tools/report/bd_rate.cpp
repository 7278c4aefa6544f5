#include "bd_rate.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>

namespace vmafexact::report {
namespace {

std::string printf_number(const char* format, double value) {
  char text[64];
  std::snprintf(text, sizeof text, format, value);
  return text;
}

std::string quoted(std::string_view name) {
  std::string text(1, '"');
  text.append(name);
  text.push_back('"');
  return text;
}

std::string kbps(double bitrate) { return printf_number("%.6g kb/s", bitrate / 1000); }

std::string quality_text(std::string_view metric, double quality) {
  return std::string(metric) + " " + printf_number("%.6g", quality);
}

// Checks a curve and returns its points sorted by quality.
std::vector<RatePoint> checked_points(NamedCurve curve, std::string_view metric) {
  const std::string name = quoted(curve.name);
  if (curve.points.size() < kMinBdRatePoints) {
    throw BdRateError(BdRateRefusal::too_few_points,
                      name + " has " + std::to_string(curve.points.size()) + " (bitrate, " +
                          std::string(metric) + ") points; BD-rate needs " +
                          std::to_string(kMinBdRatePoints) +
                          " or more per curve: add encodes to it");
  }
  for (std::size_t i = 0; i < curve.points.size(); ++i) {
    const RatePoint& point = curve.points[i];
    const std::string which = name + ", point " + std::to_string(i + 1) + ": ";
    if (!std::isfinite(point.bitrate) || point.bitrate <= 0) {
      throw BdRateError(BdRateRefusal::not_a_value,
                        which + "bitrate " + printf_number("%g", point.bitrate) +
                            " b/s; BD-rate needs positive bitrates (check the encode's size and "
                            "duration)");
    }
    if (!std::isfinite(point.quality)) {
      throw BdRateError(BdRateRefusal::not_a_value,
                        which + "no finite " + std::string(metric) + " (" +
                            printf_number("%g", point.quality) +
                            "); BD-rate needs that score for every encode: score the encode with "
                            "it, or leave the encode out");
    }
  }
  std::vector<RatePoint> sorted(curve.points.begin(), curve.points.end());
  std::ranges::stable_sort(sorted, {}, &RatePoint::quality);
  for (std::size_t i = 1; i < sorted.size(); ++i) {
    const RatePoint& lower = sorted[i - 1];
    const RatePoint& upper = sorted[i];
    if (upper.quality == lower.quality) {
      throw BdRateError(BdRateRefusal::same_quality,
                        name + ": two encodes have the same " +
                            quality_text(metric, upper.quality) + " (" + kbps(lower.bitrate) +
                            " and " + kbps(upper.bitrate) +
                            "); BD-rate interpolates bitrate as a function of quality and needs "
                            "one bitrate per quality: leave one of them out");
    }
    if (upper.bitrate <= lower.bitrate) {
      throw BdRateError(BdRateRefusal::not_rising,
                        name + ": quality does not rise with bitrate: " + kbps(upper.bitrate) +
                            " gives " + quality_text(metric, upper.quality) + " but " +
                            kbps(lower.bitrate) + " gives " + printf_number("%.6g", lower.quality) +
                            "; BD-rate needs a curve whose quality rises with bitrate: leave out "
                            "the encode that gives less for more bits, or check the encodes' "
                            "order and settings");
    }
  }
  return sorted;
}

// Fritsch-Carlson's end slope (SciPy's PchipInterpolator._edge_case): the
// three-point estimate, zeroed or limited so that the curve stays monotone.
double end_slope(double h0, double h1, double delta0, double delta1) {
  const double slope = ((2 * h0 + h1) * delta0 - h0 * delta1) / (h0 + h1);
  const auto sign = [](double value) { return (value > 0) - (value < 0); };
  if (sign(slope) != sign(delta0)) return 0;
  if (sign(delta0) != sign(delta1) && std::abs(slope) > std::abs(3 * delta0)) return 3 * delta0;
  return slope;
}

}  // namespace

LogRateCurve::LogRateCurve(NamedCurve curve, std::string_view metric) {
  const std::vector<RatePoint> points = checked_points(curve, metric);
  for (const RatePoint& point : points) {
    qualities_.push_back(point.quality);
    log_rates_.push_back(std::log10(point.bitrate));
  }
  const std::size_t n = points.size();
  std::vector<double> widths(n - 1), secants(n - 1);
  for (std::size_t k = 0; k + 1 < n; ++k) {
    widths[k] = qualities_[k + 1] - qualities_[k];
    secants[k] = (log_rates_[k + 1] - log_rates_[k]) / widths[k];
  }
  slopes_.assign(n, 0.0);
  // Inside: the weighted harmonic mean of the neighbouring secants (Fritsch and
  // Butland), zero where they differ in sign or one is flat.
  for (std::size_t k = 1; k + 1 < n; ++k) {
    const double before = secants[k - 1], after = secants[k];
    if (before == 0 || after == 0 || (before > 0) != (after > 0)) continue;
    const double w1 = 2 * widths[k] + widths[k - 1];
    const double w2 = widths[k] + 2 * widths[k - 1];
    slopes_[k] = (w1 + w2) / (w1 / before + w2 / after);
  }
  slopes_[0] = end_slope(widths[0], widths[1], secants[0], secants[1]);
  slopes_[n - 1] = end_slope(widths[n - 2], widths[n - 3], secants[n - 2], secants[n - 3]);
}

double LogRateCurve::log_rate_at(double quality) const {
  quality = std::clamp(quality, quality_low(), quality_high());
  const auto upper = std::ranges::upper_bound(qualities_, quality);
  const std::size_t k = std::min<std::size_t>(
      std::max<std::ptrdiff_t>(upper - qualities_.begin(), 1) - 1, qualities_.size() - 2);
  const double h = qualities_[k + 1] - qualities_[k];
  const double t = quality - qualities_[k];
  const double secant = (log_rates_[k + 1] - log_rates_[k]) / h;
  const double c = (3 * secant - 2 * slopes_[k] - slopes_[k + 1]) / h;
  const double b = (slopes_[k] - 2 * secant + slopes_[k + 1]) / (h * h);
  return log_rates_[k] + t * (slopes_[k] + t * (c + t * b));
}

double LogRateCurve::integral(double from, double to) const {
  // Each segment's cubic y_k + d_k t + c_k t^2 + b_k t^3 (t = quality - q_k)
  // integrated in closed form over its part of [from, to].
  double sum = 0;
  for (std::size_t k = 0; k + 1 < qualities_.size(); ++k) {
    const double h = qualities_[k + 1] - qualities_[k];
    const double t0 = std::clamp(from, qualities_[k], qualities_[k + 1]) - qualities_[k];
    const double t1 = std::clamp(to, qualities_[k], qualities_[k + 1]) - qualities_[k];
    if (t1 <= t0) continue;
    const double secant = (log_rates_[k + 1] - log_rates_[k]) / h;
    const double c = (3 * secant - 2 * slopes_[k] - slopes_[k + 1]) / h;
    const double b = (slopes_[k] - 2 * secant + slopes_[k + 1]) / (h * h);
    const auto antiderivative = [&](double t) {
      return t * (log_rates_[k] + t * (slopes_[k] / 2 + t * (c / 3 + t * b / 4)));
    };
    sum += antiderivative(t1) - antiderivative(t0);
  }
  return sum;
}

BdRate bd_rate(NamedCurve anchor, NamedCurve test, std::string_view metric) {
  const LogRateCurve anchor_curve(anchor, metric);
  const LogRateCurve test_curve(test, metric);
  const double low = std::max(anchor_curve.quality_low(), test_curve.quality_low());
  const double high = std::min(anchor_curve.quality_high(), test_curve.quality_high());
  if (!(high > low)) {
    const auto range = [&](const LogRateCurve& curve) {
      return std::string(metric) + " " + printf_number("%.6g", curve.quality_low()) + " to " +
             printf_number("%.6g", curve.quality_high());
    };
    const bool test_above = test_curve.quality_low() >= anchor_curve.quality_high();
    const std::string lower_name = quoted(test_above ? anchor.name : test.name);
    const std::string upper_name = quoted(test_above ? test.name : anchor.name);
    throw BdRateError(BdRateRefusal::no_overlap,
                      quoted(anchor.name) + " (" + range(anchor_curve) + ") and " +
                          quoted(test.name) + " (" + range(test_curve) + ") do not overlap in " +
                          std::string(metric) +
                          ": BD-rate compares bitrates at equal quality over the range both "
                          "curves cover; add higher-bitrate encodes to " +
                          lower_name + " or lower-bitrate ones to " + upper_name);
  }
  const double mean_difference =
      (test_curve.integral(low, high) - anchor_curve.integral(low, high)) / (high - low);
  // 10^d - 1 without losing digits when d is small.
  const double percent = std::expm1(mean_difference * std::numbers::ln10) * 100;
  return {percent, low, high};
}

std::vector<LadderComparison> compare_ladders(const std::vector<Ladder>& ladders) {
  std::vector<LadderComparison> comparisons;
  if (ladders.empty()) return comparisons;
  const auto curve_of = [](const Ladder& ladder, double LadderPoint::*quality) {
    std::vector<RatePoint> points;
    for (const LadderPoint& point : ladder.points) {
      points.push_back({point.bitrate_bps, point.*quality});
    }
    return points;
  };
  struct Metric {
    double LadderPoint::*quality;
    const char* name;
    std::optional<BdRate> LadderComparison::*figure;
    std::string LadderComparison::*refusal;
  };
  const Metric metrics[] = {
      {&LadderPoint::vmaf, "VMAF", &LadderComparison::vmaf, &LadderComparison::vmaf_refusal},
      {&LadderPoint::psnr_y, "PSNR", &LadderComparison::psnr, &LadderComparison::psnr_refusal},
  };
  const Ladder& anchor = ladders.front();
  for (const Ladder& ladder : ladders) {
    LadderComparison comparison;
    comparison.name = ladder.name;
    comparison.anchor = &ladder == &anchor;
    for (const Metric& metric : metrics) {
      const std::vector<RatePoint> anchor_points = curve_of(anchor, metric.quality);
      const std::vector<RatePoint> points = curve_of(ladder, metric.quality);
      try {
        if (comparison.anchor) {
          [[maybe_unused]] const LogRateCurve checked({ladder.name, points}, metric.name);
        } else {
          comparison.*metric.figure =
              bd_rate({anchor.name, anchor_points}, {ladder.name, points}, metric.name);
        }
      } catch (const BdRateError& error) {
        comparison.*metric.refusal = error.what();
      }
    }
    comparisons.push_back(std::move(comparison));
  }
  return comparisons;
}

std::string format_bd_rate_percent(double percent) { return printf_number("%+.2f %%", percent); }

std::string format_overlap(const BdRate& figure) {
  return printf_number("%.2f", figure.overlap_low) + " to " +
         printf_number("%.2f", figure.overlap_high);
}

std::string bd_rate_table_text(const std::vector<LadderComparison>& comparisons) {
  if (comparisons.empty()) return {};
  std::vector<std::vector<std::string>> rows = {
      {"ladder", "BD-rate VMAF", "VMAF range", "BD-rate PSNR", "PSNR range (dB)"}};
  std::vector<std::string> notes;
  for (const LadderComparison& comparison : comparisons) {
    std::vector<std::string> row = {comparison.name};
    const auto add = [&](const std::optional<BdRate>& figure, const std::string& refusal) {
      if (figure) {
        row.push_back(format_bd_rate_percent(figure->percent));
        row.push_back(format_overlap(*figure));
      } else if (!refusal.empty()) {
        notes.push_back(refusal);
        row.push_back("refused (" + std::to_string(notes.size()) + ")");
        row.push_back("");
      } else {
        row.push_back(comparison.anchor ? "anchor" : "");
        row.push_back("");
      }
    };
    add(comparison.vmaf, comparison.vmaf_refusal);
    add(comparison.psnr, comparison.psnr_refusal);
    rows.push_back(std::move(row));
  }
  std::vector<std::size_t> widths(rows.front().size(), 0);
  for (const auto& row : rows) {
    for (std::size_t column = 0; column < row.size(); ++column) {
      widths[column] = std::max(widths[column], row[column].size());
    }
  }
  std::string text = "BD-rate against \"" + comparisons.front().name +
                     "\" (PCHIP; negative: less bitrate for the same quality)\n";
  for (const auto& row : rows) {
    std::string line;
    for (std::size_t column = 0; column < row.size(); ++column) {
      line += row[column];
      if (column + 1 < row.size())
        line += std::string(widths[column] - row[column].size() + 2, ' ');
    }
    line.erase(line.find_last_not_of(' ') + 1);
    text += line + "\n";
  }
  for (std::size_t i = 0; i < notes.size(); ++i) {
    text += '(';
    text += std::to_string(i + 1) + ") " + notes[i] + "\n";
  }
  return text;
}

}  // namespace vmafexact::report
